// Kueue's objects in and out: the import of every declaration field (v1beta2
// and v1beta1, YAML, lists and JSON), the export and its round trip, Kueue's
// references (implicit cohorts, missing flavors, cycles), the faults with
// their positions, Workloads as a cycle's workloads, and HyperPod's requests.
//
// CHARTER_UPDATE_GOLDEN=1 rewrites testdata/*.golden.yaml.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "charter/kueue.h"
#include "charter/schedule.h"
#include "gtest/gtest.h"

namespace charter::kueue {
namespace {

std::filesystem::path Data(const std::string& name) {
  return std::filesystem::path(CHARTER_SOURCE_DIR) / "tests/schedule/kueue/testdata" / name;
}

std::string Read(const std::string& name) {
  std::ifstream in(Data(name));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

absl::StatusOr<Imported> Import(const std::string& name, const std::string& text) {
  return ImportKueue({Source{name, text}});
}

// (The result holds nothing of the text: the text may go once it returns.)
absl::StatusOr<Imported> ImportFile(const std::string& name) {
  const std::string text = Read(name);
  return ImportKueue({Source{name, text}});
}

bool HasNote(const std::vector<Note>& notes, const std::string& part) {
  return std::any_of(notes.begin(), notes.end(), [&](const Note& n) { return n.message.find(part) != std::string::npos; });
}

void ExpectGolden(const std::string& name, const std::string& actual) {
  if (std::getenv("CHARTER_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(Data(name)) << actual;
    return;
  }
  EXPECT_EQ(actual, Read(name)) << "rerun with CHARTER_UPDATE_GOLDEN=1 to update " << name;
}

TEST(KueueImport, EveryDeclarationField) {
  absl::StatusOr<Imported> in = ImportFile("cluster.yaml");
  ASSERT_TRUE(in.ok()) << in.status();
  const schedule::State& s = in->state;
  EXPECT_EQ(s.flavors, (std::vector<std::string>{"on-demand", "spot", "gpu-a100"}));
  ASSERT_EQ(s.cohorts.size(), 2u);
  EXPECT_EQ(s.cohorts[0].name, "org");
  EXPECT_EQ(s.cohorts[0].parent, -1);
  EXPECT_EQ(s.cohorts[0].fair_weight, 2);
  EXPECT_EQ(s.cohorts[1].parent, 0);
  EXPECT_EQ(s.cohorts[1].fair_weight, 0.5);
  const schedule::ResourceQuota& gpu = s.cohorts[1].resource_groups[0].flavors[0].resources[0];
  EXPECT_EQ(gpu.nominal, 8);
  EXPECT_EQ(gpu.borrowing_limit, std::optional<int64_t>(4));
  EXPECT_EQ(gpu.lending_limit, std::optional<int64_t>(2));
  ASSERT_EQ(s.cluster_queues.size(), 3u);
  const schedule::ClusterQueue& a = s.cluster_queues[0];
  EXPECT_EQ(a.name, "team-a");
  EXPECT_EQ(a.cohort, 1);
  EXPECT_EQ(a.implements, "Governance::Allocation::\"vision-west\"");
  EXPECT_EQ(a.queueing_strategy, schedule::QueueingStrategy::kStrictFIFO);
  EXPECT_EQ(a.preemption.within_cluster_queue, schedule::PreemptionPolicy::kLowerOrNewerEqualPriority);
  EXPECT_EQ(a.preemption.reclaim_within_cohort, schedule::PreemptionPolicy::kAny);
  EXPECT_EQ(a.preemption.borrow_within_cohort, schedule::PreemptionPolicy::kLowerPriority);
  EXPECT_EQ(a.preemption.max_priority_threshold, std::optional<int64_t>(100));
  EXPECT_EQ(a.flavor_fungibility.when_can_borrow, schedule::FungibilityPolicy::kTryNextFlavor);
  EXPECT_EQ(a.flavor_fungibility.preference, schedule::FungibilityPreference::kPreemptionOverBorrowing);
  EXPECT_EQ(a.fair_weight, 3);
  ASSERT_EQ(a.resource_groups.size(), 2u);
  const schedule::ResourceQuota& cpu = a.resource_groups[0].flavors[0].resources[0];
  EXPECT_EQ(s.resources[cpu.resource], "cpu");
  EXPECT_EQ(cpu.nominal, 9500);  // milli-cpu
  EXPECT_EQ(cpu.borrowing_limit, std::optional<int64_t>(2000));
  EXPECT_EQ(cpu.lending_limit, std::optional<int64_t>(1000));
  EXPECT_EQ(a.resource_groups[0].flavors[1].resources[1].nominal, int64_t{80} << 30);
  // Defaults of a queue that sets nothing.
  const schedule::ClusterQueue& b = s.cluster_queues[1];
  EXPECT_EQ(b.queueing_strategy, schedule::QueueingStrategy::kBestEffortFIFO);
  EXPECT_EQ(b.preemption.within_cluster_queue, schedule::PreemptionPolicy::kNever);
  EXPECT_EQ(b.flavor_fungibility.when_can_borrow, schedule::FungibilityPolicy::kMayStopSearch);
  EXPECT_EQ(b.flavor_fungibility.when_can_preempt, schedule::FungibilityPolicy::kTryNextFlavor);
  EXPECT_EQ(b.fair_weight, 1);
  EXPECT_EQ(s.cluster_queues[2].cohort, -1);
  ASSERT_EQ(s.local_queues.size(), 2u);
  EXPECT_EQ(s.local_queues[1].namespace_name, "team-b");
  EXPECT_EQ(s.local_queues[1].cluster_queue, 1);
  ASSERT_EQ(s.priority_classes.size(), 2u);
  EXPECT_EQ(s.priority_classes[1].value, -10);
  EXPECT_TRUE(s.engine.fair_sharing);
  EXPECT_EQ(s.engine.fair_sharing_strategies,
            (std::vector<schedule::FairSharingStrategy>{schedule::FairSharingStrategy::kLessThanInitialShare}));
  EXPECT_TRUE(HasNote(in->notes, "cluster.yaml:166:1: Job not-kueue: skipped")) << in->notes.size();
}

TEST(KueueImport, V1beta1ListAndJsonGiveTheSameModel) {
  absl::StatusOr<Imported> v2 = ImportFile("cluster.yaml");
  absl::StatusOr<Imported> v1 = ImportFile("cluster-v1beta1.yaml");
  ASSERT_TRUE(v2.ok()) << v2.status();
  ASSERT_TRUE(v1.ok()) << v1.status();
  EXPECT_EQ(WriteStateJson(v1->state), WriteStateJson(v2->state));
  // The same objects as JSON (a kubectl List), through the JSON reader.
  absl::StatusOr<Imported> json = ImportFile("cluster.json");
  ASSERT_TRUE(json.ok()) << json.status();
  EXPECT_EQ(WriteStateJson(json->state), WriteStateJson(v2->state));
}

TEST(KueueExport, RoundTripsWithDefaultsExplicit) {
  absl::StatusOr<Imported> in = ImportFile("cluster.yaml");
  ASSERT_TRUE(in.ok()) << in.status();
  for (ApiVersion version : {ApiVersion::kV1beta2, ApiVersion::kV1beta1}) {
    ExportOptions options;
    options.version = version;
    absl::StatusOr<Exported> out = ExportKueue(in->state, options);
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectGolden(version == ApiVersion::kV1beta2 ? "cluster.golden.yaml" : "cluster-v1beta1.golden.yaml", out->text);
    // Import then export then import: the same model, and the same objects
    // written again.
    absl::StatusOr<Imported> again = Import("exported.yaml", out->text);
    ASSERT_TRUE(again.ok()) << again.status();
    EXPECT_EQ(WriteStateJson(again->state), WriteStateJson(in->state));
    absl::StatusOr<Exported> twice = ExportKueue(again->state, options);
    ASSERT_TRUE(twice.ok());
    EXPECT_EQ(twice->text, out->text);
  }
}

TEST(KueueExport, RefusesWhatKueueRefuses) {
  absl::StatusOr<Imported> in = ImportFile("cluster.yaml");
  ASSERT_TRUE(in.ok());
  schedule::State s = in->state;
  s.cluster_queues[1].preemption.within_cluster_queue = schedule::PreemptionPolicy::kAny;
  absl::StatusOr<Exported> out = ExportKueue(s);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().message(), "cluster queue `team-b`: Kueue's withinClusterQueue has no `Any`");
  s = in->state;
  s.cluster_queues[1].name = "Team_B";
  out = ExportKueue(s);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("DNS subdomain"), absl::string_view::npos);
}

TEST(KueueStateJson, LoadsBackEqual) {
  absl::StatusOr<Imported> in = ImportFile("cluster.yaml");
  ASSERT_TRUE(in.ok());
  schedule::State s = in->state;
  WorkloadOptions options;
  options.source_name = "workloads.yaml";
  const std::string workloads = Read("workloads.yaml");
  ASSERT_TRUE(ReadKueueWorkloads(workloads, options, &s, nullptr).ok());
  const std::string json = WriteStateJson(s);
  absl::StatusOr<schedule::State> back = schedule::LoadState(json);
  ASSERT_TRUE(back.ok()) << back.status() << "\n" << json;
  EXPECT_EQ(WriteStateJson(*back), json);
}

TEST(KueueImport, ReferencesAsKueueResolvesThem) {
  const std::string text = R"(
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Cohort
metadata: {name: child}
spec: {parentName: nowhere}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Cohort
metadata: {name: loop-a}
spec: {parentName: loop-b}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Cohort
metadata: {name: loop-b}
spec: {parentName: loop-a}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: implicit}
spec: {cohortName: shared}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: missing-flavor}
spec:
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: gone, resources: [{name: cpu, nominalQuota: 1}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cyclic}
spec: {cohortName: loop-a}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: held}
spec: {stopPolicy: Hold}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: ns}
spec: {clusterQueue: missing-flavor}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: w, namespace: ns}
spec: {podSets: []}
)";
  absl::StatusOr<Imported> in = Import("refs.yaml", text);
  ASSERT_TRUE(in.ok()) << in.status();
  const schedule::State& s = in->state;
  std::vector<std::string> cohorts;
  for (const schedule::Cohort& c : s.cohorts) cohorts.push_back(c.name);
  // An unknown parent and a queue's undeclared cohort are implicit roots;
  // the cycle is left out.
  EXPECT_EQ(cohorts, (std::vector<std::string>{"child", "nowhere", "shared"}));
  EXPECT_EQ(s.cohorts[0].parent, 1);
  ASSERT_EQ(s.cluster_queues.size(), 1u);
  EXPECT_EQ(s.cluster_queues[0].name, "implicit");
  EXPECT_TRUE(s.local_queues.empty());
  EXPECT_TRUE(HasNote(in->notes, "refs.yaml:26:1: ClusterQueue missing-flavor: no ResourceFlavor declares `gone`"));
  EXPECT_TRUE(HasNote(in->notes, "ClusterQueue cyclic: its cohort `loop-a` is in or under a cycle"));
  EXPECT_TRUE(HasNote(in->notes, "ClusterQueue held: `spec.stopPolicy: Hold`"));
  EXPECT_TRUE(HasNote(in->notes, "LocalQueue ns/lq: its cluster queue `missing-flavor` is inactive"));
  EXPECT_TRUE(HasNote(in->notes, "Workload ns/w: skipped: a Workload is not a scheduling declaration"));
  const auto warning = std::find_if(in->notes.begin(), in->notes.end(), [](const Note& n) {
    return n.message.find("missing-flavor: no ResourceFlavor") != std::string::npos;
  });
  ASSERT_NE(warning, in->notes.end());
  EXPECT_EQ(warning->severity, Note::Severity::kWarning);
}

struct Fault {
  const char* text;
  const char* message;  // the whole error message
};

TEST(KueueImport, FaultsNameFileLineColumnAndObject) {
  const Fault faults[] = {
      // Kueue lets a cohort lend more than its own quota; the model refuses
      // it rather than change it.
      {"apiVersion: kueue.x-k8s.io/v1beta2\nkind: Cohort\nmetadata: {name: c}\nspec:\n  parentName: r\n"
       "  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n    - name: f\n"
       "      resources: [{name: cpu, nominalQuota: 2, lendingLimit: 3}]\n",
       "f.yaml:9:7: Cohort c: the lending limit of `cpu` is above the cohort's nominal quota: Kueue allows it, "
       "the model does not"},
      {"a: [1, 2\n", "f.yaml:2:1: malformed YAML: did not find expected ',' or ']' (while parsing a flow sequence at line 1)"},
      {"{\"kind\": 1", "f.yaml:1:11: malformed JSON: unexpected end of input"},
      {"kind: ResourceFlavor\n", "f.yaml:1:1: the object has no `apiVersion`"},
      {"apiVersion: kueue.x-k8s.io/v1alpha1\nkind: Cohort\nmetadata: {name: c}\n",
       "f.yaml:1:13: Cohort c: Kueue serves kueue.x-k8s.io/v1beta2 and v1beta1, not `v1alpha1`"},
      {"apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueues\nmetadata: {name: c}\n",
       "f.yaml:2:7: ClusterQueues c: Kueue has no kind `ClusterQueues` in kueue.x-k8s.io"},
      {"apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: q}\nspec:\n  cohort: x\n",
       "f.yaml:5:3: ClusterQueue q: unknown field `cohort` in `spec`"},
      {"apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata: {name: q}\nspec:\n  cohortName: x\n",
       "f.yaml:5:3: ClusterQueue q: unknown field `cohortName` in `spec`"},
      {"apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: q}\nspec:\n  preemption:\n"
       "    withinClusterQueue: Any\n",
       "f.yaml:6:25: ClusterQueue q: `spec.preemption.withinClusterQueue` is `Never`, `LowerPriority` or "
       "`LowerOrNewerEqualPriority`, not `Any`"},
      {"apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: q}\nspec:\n  cohortName: c\n"
       "  preemption: {borrowWithinCohort: {policy: LowerPriority}}\n",
       "f.yaml:6:15: ClusterQueue q: reclaimWithinCohort=Never and borrowWithinCohort.Policy!=Never"},
      {"apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: q}\nspec:\n  resourceGroups:\n"
       "  - coveredResources: [cpu]\n    flavors: [{name: f, resources: [{name: cpu, nominalQuota: 1, "
       "lendingLimit: 1}]}]\n",
       "f.yaml:7:80: ClusterQueue q: `spec.resourceGroups[0].flavors[0].resources[0].lendingLimit` must be nil when "
       "cohort is empty"},
      {"apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: q}\nspec:\n  cohortName: c\n"
       "  resourceGroups:\n  - coveredResources: [cpu]\n    flavors: [{name: f, resources: [{name: cpu, "
       "nominalQuota: 1, lendingLimit: 2}]}]\n",
       "f.yaml:8:80: ClusterQueue q: `spec.resourceGroups[0].flavors[0].resources[0].lendingLimit` must be less than "
       "or equal to the nominalQuota"},
      {"apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: q}\nspec:\n  resourceGroups:\n"
       "  - coveredResources: [cpu, memory]\n    flavors: [{name: f, resources: [{name: cpu, nominalQuota: 1}]}]\n",
       "f.yaml:7:36: ClusterQueue q: `spec.resourceGroups[0].flavors[0].resources` has 1 resources and "
       "`spec.resourceGroups[0].coveredResources` 2: flavors must have the same number of resources as the "
       "coveredResources"},
      {"apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: q}\nspec:\n  resourceGroups:\n"
       "  - coveredResources: [cpu]\n    flavors: [{name: f, resources: [{name: cpu, nominalQuota: -1}]}]\n",
       "f.yaml:7:63: ClusterQueue q: `spec.resourceGroups[0].flavors[0].resources[0].nominalQuota` must not be "
       "negative (-1)"},
      {"apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: q}\nspec:\n  flavorFungibility:\n"
       "    whenCanBorrow: Borrow\n",
       "f.yaml:6:20: ClusterQueue q: `spec.flavorFungibility.whenCanBorrow` is `MayStopSearch` or `TryNextFlavor`, "
       "not `Borrow`"},
      {"apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: q}\nspec:\n  flavorFungibility:\n"
       "    preference: BorrowingOverPreemption\n",
       "f.yaml:6:17: ClusterQueue q: preference \"BorrowingOverPreemption\" requires both whenCanBorrow and "
       "whenCanPreempt to be TryNextFlavor"},
      {"apiVersion: kueue.x-k8s.io/v1beta2\nkind: Cohort\nmetadata: {name: c}\nspec:\n  fairSharing: {weight: 1n}\n",
       "f.yaml:5:25: Cohort c: `spec.fairSharing.weight` must be 0 or above 10^-9 (1n)"},
      {"apiVersion: kueue.x-k8s.io/v1beta2\nkind: WorkloadPriorityClass\nmetadata: {name: p}\nvalue: \"5\"\n",
       "f.yaml:4:8: WorkloadPriorityClass p: `value` must be an integer, not a string"},
      {"apiVersion: kueue.x-k8s.io/v1beta2\nkind: WorkloadPriorityClass\nmetadata: {name: p}\nvalue: 3000000000\n",
       "f.yaml:4:8: WorkloadPriorityClass p: `value` is out of range (-2147483648 to 2147483647): 3000000000"},
      {"apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: l}\nspec: {clusterQueue: q}\n",
       "f.yaml:3:11: LocalQueue l: the LocalQueue has no `metadata.namespace`"},
      {"apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: Big_Flavor}\n",
       "f.yaml:3:18: ResourceFlavor Big_Flavor: `metadata.name` must be a DNS subdomain (lowercase letters, digits, "
       "`-` and `.`, at most 253): `Big_Flavor`"},
      {"apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: f}\n---\n"
       "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: f}\n",
       "f.yaml:5:1: ResourceFlavor f: declared twice (first at f.yaml:1:1)"},
      {"apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nfairSharing:\n  enable: true\n",
       "f.yaml:4:3: Configuration: unknown field `enable` in `fairSharing`"},
      {"apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nfairSharing:\n  preemptionStrategies: "
       "[LessThanInitialShare, LessThanOrEqualToFinalShare]\n",
       "f.yaml:4:25: Configuration: `fairSharing.preemptionStrategies` must be [LessThanOrEqualToFinalShare], "
       "[LessThanInitialShare] or [LessThanOrEqualToFinalShare, LessThanInitialShare]"},
      {"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: kueue-manager-config}\ndata:\n  config.yaml: |\n"
       "    apiVersion: config.kueue.x-k8s.io/v1beta2\n    kind: Configuration\n    fairShare: {}\n",
       "f.yaml:8:5: Configuration: unknown field `fairShare` in `Configuration`"},
      {"a: &x 1\nb: *x\n", "f.yaml:2:4: YAML aliases (`*name`) are not supported: write the value out"},
      {"a: 1\na: 2\n", "f.yaml:2:1: duplicate key `a`"},
      {"apiVersion: kueue.x-k8s.io/v1alpha1\nkind: CohortList\nitems: [{metadata: {name: c}}]\n",
       "f.yaml:3:9: Cohort c: Kueue serves kueue.x-k8s.io/v1beta2 and v1beta1, not `v1alpha1`"},
      {"apiVersion: kueue.x-k8s.io/v1beta2\nkind: QueueList\nitems: [{metadata: {name: c}}]\n",
       "f.yaml:3:9: Queue c: Kueue has no kind `Queue` in kueue.x-k8s.io"},
      {"a: 1\nb: \xff\n", "f.yaml:2:4: malformed YAML: invalid leading UTF-8 octet"},
  };
  for (const Fault& fault : faults) {
    absl::StatusOr<Imported> in = Import("f.yaml", fault.text);
    ASSERT_FALSE(in.ok()) << fault.text;
    EXPECT_EQ(in.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(std::string(in.status().message()), fault.message) << fault.text;
  }
}

// Each declaration's origin, for the comments `charter import kueue` writes:
// the declaring object at its line, or the object that names a cohort or
// flavor no object declares.
TEST(KueueImport, OriginsNameEachObjectAndItsLine) {
  absl::StatusOr<Imported> in = Import("o.yaml", R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: f}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Cohort
metadata: {name: c}
spec:
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: g
      resources: [{name: cpu, nominalQuota: 1}]
---
apiVersion: v1
kind: List
items:
- apiVersion: kueue.x-k8s.io/v1beta2
  kind: ClusterQueue
  metadata: {name: q}
  spec: {cohortName: implicit}
- apiVersion: kueue.x-k8s.io/v1beta2
  kind: LocalQueue
  metadata: {name: l, namespace: ns}
  spec: {clusterQueue: q}
- apiVersion: kueue.x-k8s.io/v1beta2
  kind: WorkloadPriorityClass
  metadata: {name: p}
  value: 1
---
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
fairSharing: {preemptionStrategies: [LessThanInitialShare]}
)");
  ASSERT_TRUE(in.ok()) << in.status();
  const schedule::DeclarationComments& o = in->origins;
  EXPECT_EQ(o.scheduler, "from o.yaml:31 (Configuration)");
  EXPECT_EQ(o.flavors, (std::vector<std::string>{"from o.yaml:1 (ResourceFlavor f)",
                                                 "named by Cohort c at o.yaml:12; no ResourceFlavor declares it"}));
  EXPECT_EQ(o.cohorts, (std::vector<std::string>{"from o.yaml:5 (Cohort c)",
                                                 "named by ClusterQueue q at o.yaml:18; no Cohort declares it"}));
  EXPECT_EQ(o.cluster_queues, (std::vector<std::string>{"from o.yaml:18 (ClusterQueue q)"}));
  EXPECT_EQ(o.local_queues, (std::vector<std::string>{"from o.yaml:22 (LocalQueue ns/l)"}));
  EXPECT_EQ(o.priority_classes, (std::vector<std::string>{"from o.yaml:26 (WorkloadPriorityClass p)"}));
  const std::string printed = schedule::PrintDeclarations(in->state, o);
  EXPECT_NE(printed.find("// from o.yaml:18 (ClusterQueue q)\nqueue q {\n"), std::string::npos) << printed;
}

TEST(KueueImport, EmptyDocumentsAndFilesHoldNothing) {
  absl::StatusOr<Imported> in = Import("e.yaml", "---\n# nothing\n---\napiVersion: kueue.x-k8s.io/v1beta2\n"
                                                 "kind: ResourceFlavor\nmetadata: {name: f}\n---\n");
  ASSERT_TRUE(in.ok()) << in.status();
  EXPECT_EQ(in->state.flavors, std::vector<std::string>{"f"});
  in = Import("e.yaml", "");
  ASSERT_TRUE(in.ok()) << in.status();
  EXPECT_TRUE(in->state.flavors.empty());
}

TEST(KueueImport, TypedListsAndAConfigMapOfJson) {
  const std::string text = R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavorList
metadata: {resourceVersion: "7"}
items:
- metadata: {name: a}
- metadata: {name: b}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: kueue-manager-config, namespace: kueue-system}
data:
  controller_manager_config.yaml: |
    {"apiVersion": "config.kueue.x-k8s.io/v1beta1", "kind": "Configuration",
     "fairSharing": {"enable": true}}
)";
  absl::StatusOr<Imported> in = Import("l.yaml", text);
  ASSERT_TRUE(in.ok()) << in.status();
  EXPECT_EQ(in->state.flavors, (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(in->state.engine.fair_sharing);
  EXPECT_EQ(in->state.engine.fair_sharing_strategies.size(), 2u);  // v1beta1's default
  const std::string bad = R"(apiVersion: v1
kind: ConfigMap
metadata: {name: kueue-manager-config}
data:
  controller_manager_config.yaml: |
    {"apiVersion": "config.kueue.x-k8s.io/v1beta1", "kind": "Configuration",
     "fairSharing": {"enable": "yes"}}
)";
  in = Import("l.yaml", bad);
  ASSERT_FALSE(in.ok());
  EXPECT_EQ(std::string(in.status().message()),
            "l.yaml:7:32: Configuration: `fairSharing.enable` must be true or false, not a string");
}

TEST(KueueImport, Limits) {
  std::string deep;
  for (int i = 0; i < 200; ++i) deep += "[";
  ReadOptions options;
  absl::StatusOr<Imported> in = ImportKueue({Source{"d.yaml", "a: " + deep}}, options);
  ASSERT_FALSE(in.ok());
  EXPECT_NE(in.status().message().find("nested deeper than 100"), absl::string_view::npos) << in.status();
  options.max_input_bytes = 4;
  in = ImportKueue({Source{"d.yaml", "a: b\n"}}, options);
  EXPECT_EQ(in.status().message(), "d.yaml: larger than 4 bytes");
}

TEST(KueueWorkloads, AdmittedAndPending) {
  absl::StatusOr<Imported> in = ImportFile("cluster.yaml");
  ASSERT_TRUE(in.ok());
  schedule::State s = in->state;
  WorkloadOptions options;
  options.source_name = "workloads.yaml";
  options.now = ParseTime("2026-03-01T10:10:00Z");
  ASSERT_TRUE(options.now.has_value());
  std::vector<Note> notes;
  const std::string text = Read("workloads.yaml");
  absl::Status status = ReadKueueWorkloads(text, options, &s, &notes);
  ASSERT_TRUE(status.ok()) << status;
  ASSERT_EQ(s.admitted.size(), 1u);
  const schedule::Workload& a = s.admitted[0];
  EXPECT_EQ(a.name, "train-1");
  EXPECT_EQ(a.uid, "0a1b");
  EXPECT_EQ(s.cluster_queues[a.cluster_queue].name, "team-a");
  EXPECT_EQ(a.priority, 1000);
  EXPECT_EQ(a.priority_class, "high");
  EXPECT_EQ(a.namespace_name, "team-a");
  EXPECT_EQ(a.created_at, std::optional<double>(-600));
  EXPECT_EQ(a.quota_reserved_at, std::optional<double>(-570));
  EXPECT_EQ(a.labels, (std::vector<std::pair<std::string, std::string>>{{"team", "vision"}}));
  ASSERT_EQ(a.pod_sets.size(), 1u);
  EXPECT_EQ(a.pod_sets[0].count, 2);
  // Per pod: the recorded usage divided by the count; flavors assigned.
  for (const schedule::Request& rq : a.pod_sets[0].requests) {
    const std::string& r = s.resources[rq.resource];
    const std::string& f = s.flavors[rq.flavor];
    if (r == "cpu") {
      EXPECT_EQ(rq.per_pod, 2000);
    }
    if (r == "memory") {
      EXPECT_EQ(rq.per_pod, int64_t{4} << 30);
    }
    if (r == "nvidia.com/gpu") {
      EXPECT_EQ(rq.per_pod, 1);
    }
    EXPECT_EQ(f, r == "nvidia.com/gpu" ? "gpu-a100" : "on-demand");
  }
  ASSERT_EQ(s.pending.size(), 1u);
  const schedule::Workload& p = s.pending[0];
  EXPECT_EQ(p.name, "etl-7");
  EXPECT_EQ(s.cluster_queues[p.cluster_queue].name, "team-b");  // through LocalQueue team-b/main
  EXPECT_EQ(p.priority, -10);
  EXPECT_EQ(p.priority_class, "low");
  EXPECT_EQ(p.created_at, std::optional<double>(-300));
  // max(containers 1 + 1.5 (limit as request) + sidecar 0.5, init 6) + overhead 0.1
  ASSERT_EQ(p.pod_sets[0].requests.size(), 1u);
  EXPECT_EQ(p.pod_sets[0].requests[0].per_pod, 6100);
  EXPECT_EQ(p.pod_sets[0].count, 3);
  EXPECT_TRUE(HasNote(notes, "workloads.yaml:71:3: Workload team-a/old: skipped: it has finished"));
  EXPECT_TRUE(HasNote(notes, "Workload team-c/lost: skipped: no LocalQueue `main` in namespace `team-c`"));
  EXPECT_TRUE(HasNote(notes, "Job team-a/train-1: skipped"));
  absl::StatusOr<schedule::CycleResult> r = schedule::RunCycle(s);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->admitted.size(), 1u) << r->ToText();
  EXPECT_EQ(r->admitted[0].name, "etl-7");
  EXPECT_TRUE(r->admitted[0].borrowing);
}

TEST(KueueWorkloads, SidecarsBeforeAnInitContainerAddUp) {
  schedule::State s;
  s.flavors = {"f"};
  s.resources = {"cpu"};
  schedule::ClusterQueue cq;
  cq.name = "q";
  s.cluster_queues.push_back(cq);
  s.local_queues.push_back(schedule::LocalQueue{"ns", "lq", 0});
  const std::string text = R"({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
  "metadata": {"name": "w", "namespace": "ns"},
  "spec": {"queueName": "lq", "podSets": [{"name": "p", "count": 1, "template": {"spec": {
    "initContainers": [{"name": "side", "restartPolicy": "Always", "resources": {"requests": {"cpu": "1"}}},
                       {"name": "init", "resources": {"requests": {"cpu": "2", "memory": "1Gi"}}}],
    "containers": [{"name": "c", "resources": {"requests": {"cpu": "500m"}}}],
    "resources": {"requests": {"memory": "3Gi"}}}}}]}})";
  WorkloadOptions options;
  ASSERT_TRUE(ReadKueueWorkloads(text, options, &s, nullptr).ok());
  ASSERT_EQ(s.pending.size(), 1u);
  std::map<std::string, int64_t> got;
  for (const schedule::Request& rq : s.pending[0].pod_sets[0].requests) got[s.resources[rq.resource]] = rq.per_pod;
  // cpu: max(0.5 + 1 sidecar, 2 init + 1 sidecar) = 3; memory: pod-level 3Gi.
  EXPECT_EQ(got["cpu"], 3000);
  EXPECT_EQ(got["memory"], int64_t{3} << 30);
  EXPECT_FALSE(s.pending[0].created_at.has_value());
}

TEST(KueueWorkloads, FaultsLeaveTheStateUnchanged) {
  absl::StatusOr<Imported> in = ImportFile("cluster.yaml");
  ASSERT_TRUE(in.ok());
  const Fault faults[] = {
      {"apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata: {name: w, namespace: team-a}\n"
       "spec:\n  queueName: main\n  podSets: [{count: -1}]\n",
       "w.yaml:6:21: Workload team-a/w: `spec.podSets[0].count` is out of range (0 to 2147483647): -1"},
      {"apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata: {name: w, namespace: team-a}\n"
       "spec:\n  priorityClassRef: {group: kueue.x-k8s.io, kind: WorkloadPriorityClass, name: high}\n"
       "  podSets: [{count: 1}]\n",
       "w.yaml:5:21: Workload team-a/w: priority should not be nil when priorityClassRef is set"},
      {"apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata: {name: w, namespace: team-a, "
       "creationTimestamp: yesterday}\nspec:\n  podSets: [{count: 1}]\n",
       "w.yaml:3:59: Workload team-a/w: `metadata.creationTimestamp` is not an RFC 3339 time: `yesterday`"},
      {"apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata: {name: w, namespace: team-a}\n"
       "spec:\n  podSets: [{count: 1}]\nstatus:\n  admission:\n    clusterQueue: team-a\n    podSetAssignments:\n"
       "    - name: main\n      flavors: {cpu: on-demand}\n      resourceUsage: {memory: 1Gi}\n",
       "w.yaml:10:7: Workload team-a/w: `status.admission.podSetAssignments[0].flavors` assigns no flavor to `memory`, "
       "which the pod set requests"},
      {"apiVersion: kueue.x-k8s.io/v1beta1\nkind: Workload\nmetadata: {name: w, namespace: team-a}\n"
       "spec:\n  priorityClassRef: {name: x}\n  podSets: [{count: 1}]\n",
       "w.yaml:5:3: Workload team-a/w: unknown field `priorityClassRef` in `spec`"},
  };
  for (const Fault& fault : faults) {
    schedule::State s = in->state;
    WorkloadOptions options;
    options.source_name = "w.yaml";
    absl::Status status = ReadKueueWorkloads(fault.text, options, &s, nullptr);
    EXPECT_EQ(std::string(status.message()), fault.message) << fault.text;
    EXPECT_EQ(WriteStateJson(s), WriteStateJson(in->state));
  }
}

TEST(KueueWorkloads, TellsTheirTextFromTheStateJson) {
  EXPECT_TRUE(LooksLikeKueueObjects("apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\n"));
  EXPECT_TRUE(LooksLikeKueueObjects(R"({"apiVersion": "v1", "kind": "List", "items": []})"));
  EXPECT_FALSE(LooksLikeKueueObjects(R"({"resource_flavors": [], "cluster_queues": []})"));
  EXPECT_EQ(ParseTime("2026-03-01T10:10:00Z"), std::optional<double>(1772359800));
  EXPECT_EQ(ParseTime("2026-03-01T12:10:00.5+02:00"), std::optional<double>(1772359800.5));
  EXPECT_FALSE(ParseTime("2026-13-01T10:10:00Z").has_value());
  // Days past the month's end, in the proleptic Gregorian calendar.
  EXPECT_FALSE(ParseTime("2026-02-29T00:00:00Z").has_value());
  EXPECT_FALSE(ParseTime("2026-04-31T00:00:00Z").has_value());
  EXPECT_EQ(ParseTime("2028-02-29T00:00:00Z"), std::optional<double>(1835395200));
}

TEST(KueueHyperPod, ExportLoadsBackAsTheSameQueues) {
  const std::string walkthrough = [] {
    std::ifstream in(std::filesystem::path(CHARTER_SOURCE_DIR) / "tests/schedule/hyperpod/hyperpod-walkthrough.json");
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }();
  absl::StatusOr<schedule::State> state = schedule::LoadHyperPodState(walkthrough);
  ASSERT_TRUE(state.ok()) << state.status();
  HyperPodExportOptions options;
  options.cluster_arn = "arn:aws:sagemaker:us-west-2:123456789012:cluster/demo";
  absl::StatusOr<Exported> out = ExportHyperPod(*state, options);
  ASSERT_TRUE(out.ok());
  ExpectGolden("hyperpod.golden.json", out->text);
  absl::StatusOr<schedule::State> back = schedule::LoadHyperPodState(out->text);
  ASSERT_TRUE(back.ok()) << back.status() << "\n" << out->text;
  schedule::State without = *state;
  without.admitted.clear();
  without.pending.clear();
  EXPECT_EQ(WriteStateJson(*back), WriteStateJson(without));
  // A HyperPod-shaped state needs no note but the workloads left out.
  EXPECT_EQ(out->notes.size(), 1u) << out->notes[0].message;
}

TEST(KueueHyperPod, SaysWhatItCannotExpress) {
  absl::StatusOr<Imported> in = ImportFile("cluster.yaml");
  ASSERT_TRUE(in.ok());
  absl::StatusOr<Exported> out = ExportHyperPod(in->state);
  ASSERT_TRUE(out.ok());
  for (const char* part : {"cohort `research` has a parent: HyperPod has no tree of cohorts",
                           "cohort `org` has quota of its own", "cluster queue `team-a`: StrictFIFO is not a HyperPod setting",
                           "cluster queue `team-a`: flavor fungibility is not a HyperPod setting",
                           "cluster queue `sandbox` has no cohort", "priority class `high`: HyperPod names",
                           "priority class `high`: HyperPod's Weight is 0 to 100; 1000 is written as 100",
                           "cluster queue `team-a`: preemption while borrowing (borrowWithinCohort)"}) {
    EXPECT_TRUE(HasNote(out->notes, part)) << part;
  }
}

// ---- any object as JSON (ReadObjectsAsJson, for `charter admit`) ------------------

TEST(KueueObjectsAsJson, YamlScalarsAsTheApiserverReadsThem) {
  const std::string text =
      "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  namespace: team\n"
      "spec: {a: yes, b: \"yes\", c: 0x1F, d: 017, e: 0o17, f: 1_000, g: 08, h: 1.5e3, i: ~, j: -0b11,\n"
      "  k: 99999999999999999999, l: 1e21, m: 1.5e-7, n: 'text', o: [1, two], p: 18446744073709551615}\n";
  absl::StatusOr<std::vector<ObjectJson>> objects = ReadObjectsAsJson({"pod.yaml", text});
  ASSERT_TRUE(objects.ok()) << objects.status();
  ASSERT_EQ(objects->size(), 1u);
  const ObjectJson& o = objects->front();
  EXPECT_EQ(o.group, "");
  EXPECT_EQ(o.version, "v1");
  EXPECT_EQ(o.kind, "Pod");
  EXPECT_EQ(o.name, "p");
  EXPECT_EQ(o.namespace_name, "team");
  EXPECT_EQ(o.line, 1u);
  EXPECT_EQ(o.json,
            "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\",\"namespace\":\"team\"},"
            "\"spec\":{\"a\":true,\"b\":\"yes\",\"c\":31,\"d\":15,\"e\":15,\"f\":1000,\"g\":8,\"h\":1500,"
            "\"i\":null,\"j\":-3,\"k\":100000000000000000000,\"l\":1e+21,\"m\":1.5e-7,\"n\":\"text\","
            "\"o\":[1,\"two\"],\"p\":18446744073709551615}}");
}

TEST(KueueObjectsAsJson, ListsAndDocumentsEachObjectAtItsPlace) {
  const std::string text =
      "apiVersion: v1\nkind: PodList\nitems:\n- metadata: {name: a}\n- metadata: {name: b}\n---\n"
      "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j, namespace: n}\n";
  absl::StatusOr<std::vector<ObjectJson>> objects = ReadObjectsAsJson({"list.yaml", text});
  ASSERT_TRUE(objects.ok()) << objects.status();
  ASSERT_EQ(objects->size(), 3u);
  // A typed list's items take their apiVersion and kind from it.
  EXPECT_EQ((*objects)[0].json, "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"a\"}}");
  EXPECT_EQ((*objects)[1].name, "b");
  EXPECT_EQ((*objects)[1].line, 5u);
  EXPECT_EQ((*objects)[1].column, 3u);
  EXPECT_EQ((*objects)[2].group, "batch");
  EXPECT_EQ((*objects)[2].kind, "Job");
  EXPECT_EQ((*objects)[2].line, 7u);
}

TEST(KueueObjectsAsJson, JsonNumbersAsWritten) {
  const std::string text =
      "{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": [\n"
      "  {\"apiVersion\": \"v1\", \"kind\": \"Pod\", \"spec\": {\"x\": 1.50, \"y\": 1E3, \"s\": \"\\u00e9\\n\"}}]}";
  absl::StatusOr<std::vector<ObjectJson>> objects = ReadObjectsAsJson({"list.json", text});
  ASSERT_TRUE(objects.ok()) << objects.status();
  ASSERT_EQ(objects->size(), 1u);
  EXPECT_EQ(objects->front().json,
            "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"spec\":{\"x\":1.50,\"y\":1E3,\"s\":\"\u00e9\\n\"}}");
  EXPECT_EQ(objects->front().line, 2u);
  EXPECT_EQ(objects->front().column, 3u);
}

TEST(KueueObjectsAsJson, FaultsAtTheirPlace) {
  auto fault = [](const std::string& text) {
    absl::StatusOr<std::vector<ObjectJson>> o = ReadObjectsAsJson({"f.yaml", text});
    return o.ok() ? std::string("ok") : std::string(o.status().message());
  };
  EXPECT_EQ(fault("apiVersion: v1\nkind: Pod\nspec: {x: .inf}\n"),
            "f.yaml:3:11: `.inf` has no JSON form: write a number, or quote it for a string");
  EXPECT_EQ(fault("apiVersion: v1\nkind: Pod\nspec: {x: 0x10000000000000000}\n"),
            "f.yaml:3:11: the integer `0x10000000000000000` is out of range");
  EXPECT_EQ(fault("apiVersion: v1\nkind: \"\"\n"), "f.yaml:2:7: the object's `kind` is empty");
  EXPECT_EQ(fault("apiVersion: v1\nmetadata: {}\n"), "f.yaml:1:1: the object has no `kind`");
  EXPECT_EQ(fault("- a\n"), "f.yaml:1:1: a Kubernetes object must be a map, not a list");
}

}  // namespace
}  // namespace charter::kueue
