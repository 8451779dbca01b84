// Scheduling declarations (.charter text): what they compile to, every
// CH08xx diagnostic with its code, message and underline, the canonical
// text (PrintDeclarations) and its round trip, several sources, and the
// configuration in a bundle (its `scheduling` section, ReadConfiguration).
#include <string>
#include <vector>

#include "charter/charter.h"
#include "charter/schedule.h"
#include "gtest/gtest.h"

namespace charter::schedule {
namespace {

// Options that compile declarations (this library's compiler).
CompileOptions WithDeclarations() {
  CompileOptions options;
  options.declarations = &Declarations();
  return options;
}

// The configuration an engine's bundle declares; a section that does not
// read is a test failure.
std::optional<State> Configuration(const Engine& engine) {
  absl::StatusOr<std::optional<State>> config = ReadConfiguration(engine);
  EXPECT_TRUE(config.ok()) << config.status();
  return config.ok() ? *std::move(config) : std::nullopt;
}

absl::StatusOr<State> Declare(const std::string& text, std::vector<Diagnostics>* diagnostics = nullptr) {
  std::vector<SourceFile> sources{SourceFile("cluster.charter", text)};
  return CompileDeclarations(sources, {}, diagnostics);
}

const char kCluster[] = R"(// A cluster.
scheduler {
  fair_sharing: true;
  fair_sharing_strategies: [LessThanInitialShare];
}

flavor "a100";
flavor spot;

priority_class "training": 70;
priority_class low: -5;

cohort org;
cohort "vision" {
  parent: org;
  fair_weight: 500m;
  resources "nvidia.com/gpu" {
    flavor a100 { "nvidia.com/gpu": 4 borrow 2 lend 1; }
  }
}

queue "vision-west" {
  cohort: "vision";
  implements: Governance::Allocation::"gpu-east/vision\"x";
  queueing: StrictFIFO;
  fair_weight: 1.5;
  preemption {
    within_queue: LowerPriority;
    reclaim_within_cohort: Any;
    borrow_within_cohort: LowerPriority;
    max_priority_threshold: "training";
  }
  fungibility {
    when_can_borrow: TryNextFlavor;
    when_can_preempt: TryNextFlavor;
    preference: PreemptionOverBorrowing;
  }
  resources cpu, memory, "nvidia.com/gpu" {
    flavor "a100" { cpu: 96; memory: 768Gi; "nvidia.com/gpu": 8 borrow 4 lend 2; }
    flavor spot { cpu: 500m; memory: 1.5Gi; "nvidia.com/gpu": 0; }
  }
  local_queue "vision/training";
}

local_queue "default/inbox": "vision-west";

permit (principal, action, resource) when { principal.cohort == "vision" };
)";

TEST(Declare, TheLanguage) {
  std::vector<Diagnostics> d;
  absl::StatusOr<State> s = Declare(kCluster, &d);
  ASSERT_TRUE(s.ok()) << s.status() << d[0].Render(SourceFile("cluster.charter", kCluster));
  EXPECT_TRUE(s->engine.fair_sharing);
  ASSERT_EQ(s->engine.fair_sharing_strategies.size(), 1u);
  EXPECT_EQ(s->engine.fair_sharing_strategies[0], FairSharingStrategy::kLessThanInitialShare);
  EXPECT_EQ(s->flavors, (std::vector<std::string>{"a100", "spot"}));
  ASSERT_EQ(s->priority_classes.size(), 2u);
  EXPECT_EQ(s->priority_classes[1].name, "low");
  EXPECT_EQ(s->priority_classes[1].value, -5);
  ASSERT_EQ(s->cohorts.size(), 2u);
  EXPECT_EQ(s->cohorts[1].parent, 0);
  EXPECT_EQ(s->cohorts[1].fair_weight, 0.5);
  const ResourceQuota& cq = s->cohorts[1].resource_groups[0].flavors[0].resources[0];
  EXPECT_EQ(cq.nominal, 4);
  EXPECT_EQ(cq.borrowing_limit, 2);
  EXPECT_EQ(cq.lending_limit, 1);
  // Resources in the order the JSON loader meets them: cohorts first.
  EXPECT_EQ(s->resources, (std::vector<std::string>{"nvidia.com/gpu", "cpu", "memory"}));
  ASSERT_EQ(s->cluster_queues.size(), 1u);
  const ClusterQueue& q = s->cluster_queues[0];
  EXPECT_EQ(q.cohort, 1);
  EXPECT_EQ(q.implements, R"(Governance::Allocation::"gpu-east/vision\"x")");
  EXPECT_EQ(q.queueing_strategy, QueueingStrategy::kStrictFIFO);
  EXPECT_EQ(q.fair_weight, 1.5);
  EXPECT_EQ(q.preemption.within_cluster_queue, PreemptionPolicy::kLowerPriority);
  EXPECT_EQ(q.preemption.reclaim_within_cohort, PreemptionPolicy::kAny);
  EXPECT_EQ(q.preemption.borrow_within_cohort, PreemptionPolicy::kLowerPriority);
  EXPECT_EQ(q.preemption.max_priority_threshold, 70);  // the class's value
  EXPECT_EQ(q.flavor_fungibility.when_can_borrow, FungibilityPolicy::kTryNextFlavor);
  EXPECT_EQ(q.flavor_fungibility.preference, FungibilityPreference::kPreemptionOverBorrowing);
  ASSERT_EQ(q.resource_groups.size(), 1u);
  const ResourceGroup& g = q.resource_groups[0];
  EXPECT_EQ(g.covered_resources, (std::vector<int>{1, 2, 0}));
  ASSERT_EQ(g.flavors.size(), 2u);
  EXPECT_EQ(g.flavors[0].resources[0].nominal, 96000);          // milli-cpu
  EXPECT_EQ(g.flavors[0].resources[1].nominal, int64_t{768} << 30);
  EXPECT_EQ(g.flavors[1].resources[0].nominal, 500);
  EXPECT_EQ(g.flavors[1].resources[1].nominal, int64_t{3} << 29);
  EXPECT_EQ(g.flavors[0].resources[2].borrowing_limit, 4);
  EXPECT_EQ(g.flavors[0].resources[2].lending_limit, 2);
  ASSERT_EQ(s->local_queues.size(), 2u);
  EXPECT_EQ(s->local_queues[0].namespace_name, "vision");
  EXPECT_EQ(s->local_queues[0].name, "training");
  EXPECT_EQ(s->local_queues[1].namespace_name, "default");
  EXPECT_EQ(s->local_queues[1].name, "inbox");
}

// The configuration tables of two states are equal.
void ExpectSameConfig(const State& a, const State& b) {
  EXPECT_EQ(a.engine.fair_sharing, b.engine.fair_sharing);
  EXPECT_EQ(a.engine.fair_sharing_strategies, b.engine.fair_sharing_strategies);
  EXPECT_EQ(a.flavors, b.flavors);
  EXPECT_EQ(a.resources, b.resources);
  ASSERT_EQ(a.cohorts.size(), b.cohorts.size());
  for (size_t i = 0; i < a.cohorts.size(); ++i) {
    EXPECT_EQ(a.cohorts[i].name, b.cohorts[i].name);
    EXPECT_EQ(a.cohorts[i].parent, b.cohorts[i].parent);
    EXPECT_EQ(a.cohorts[i].fair_weight, b.cohorts[i].fair_weight);
  }
  ASSERT_EQ(a.cluster_queues.size(), b.cluster_queues.size());
  for (size_t i = 0; i < a.cluster_queues.size(); ++i) {
    const ClusterQueue& x = a.cluster_queues[i];
    const ClusterQueue& y = b.cluster_queues[i];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.cohort, y.cohort);
    EXPECT_EQ(x.implements, y.implements);
    EXPECT_EQ(x.queueing_strategy, y.queueing_strategy);
    EXPECT_EQ(x.fair_weight, y.fair_weight);
    EXPECT_EQ(x.preemption.within_cluster_queue, y.preemption.within_cluster_queue);
    EXPECT_EQ(x.preemption.reclaim_within_cohort, y.preemption.reclaim_within_cohort);
    EXPECT_EQ(x.preemption.borrow_within_cohort, y.preemption.borrow_within_cohort);
    EXPECT_EQ(x.preemption.max_priority_threshold, y.preemption.max_priority_threshold);
    EXPECT_EQ(x.flavor_fungibility.when_can_borrow, y.flavor_fungibility.when_can_borrow);
    EXPECT_EQ(x.flavor_fungibility.when_can_preempt, y.flavor_fungibility.when_can_preempt);
    EXPECT_EQ(x.flavor_fungibility.preference, y.flavor_fungibility.preference);
  }
  auto groups = [](const std::vector<ResourceGroup>& gs) {
    std::string out;
    for (const ResourceGroup& g : gs) {
      out += "[";
      for (int r : g.covered_resources) out += std::to_string(r) + ",";
      for (const FlavorQuotas& f : g.flavors) {
        out += " f" + std::to_string(f.flavor) + ":";
        for (const ResourceQuota& q : f.resources) {
          out += std::to_string(q.resource) + "=" + std::to_string(q.nominal) + "/" +
                 (q.borrowing_limit ? std::to_string(*q.borrowing_limit) : "-") + "/" +
                 (q.lending_limit ? std::to_string(*q.lending_limit) : "-") + ";";
        }
      }
      out += "]";
    }
    return out;
  };
  for (size_t i = 0; i < a.cohorts.size(); ++i) {
    EXPECT_EQ(groups(a.cohorts[i].resource_groups), groups(b.cohorts[i].resource_groups));
  }
  for (size_t i = 0; i < a.cluster_queues.size(); ++i) {
    EXPECT_EQ(groups(a.cluster_queues[i].resource_groups), groups(b.cluster_queues[i].resource_groups));
  }
  ASSERT_EQ(a.priority_classes.size(), b.priority_classes.size());
  for (size_t i = 0; i < a.priority_classes.size(); ++i) {
    EXPECT_EQ(a.priority_classes[i].name, b.priority_classes[i].name);
    EXPECT_EQ(a.priority_classes[i].value, b.priority_classes[i].value);
  }
  ASSERT_EQ(a.local_queues.size(), b.local_queues.size());
  for (size_t i = 0; i < a.local_queues.size(); ++i) {
    EXPECT_EQ(a.local_queues[i].namespace_name, b.local_queues[i].namespace_name);
    EXPECT_EQ(a.local_queues[i].name, b.local_queues[i].name);
    EXPECT_EQ(a.local_queues[i].cluster_queue, b.local_queues[i].cluster_queue);
  }
}

TEST(Declare, PrintedTextCompilesBackToTheSameTables) {
  absl::StatusOr<State> s = Declare(kCluster);
  ASSERT_TRUE(s.ok()) << s.status();
  std::string text = PrintDeclarations(*s);
  std::vector<Diagnostics> d;
  absl::StatusOr<State> back = Declare(text, &d);
  ASSERT_TRUE(back.ok()) << back.status() << "\n" << text;
  ExpectSameConfig(*s, *back);
  EXPECT_EQ(PrintDeclarations(*back), text);
}

TEST(Declare, CanonicalText) {
  absl::StatusOr<State> s = Declare(kCluster);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(PrintDeclarations(*s), R"(scheduler {
  fair_sharing: true;
  fair_sharing_strategies: [LessThanInitialShare];
}

flavor a100;
flavor spot;

priority_class training: 70;
priority_class low: -5;

cohort org;

cohort vision {
  parent: org;
  fair_weight: 0.5;
  resources "nvidia.com/gpu" {
    flavor a100 { "nvidia.com/gpu": 4 borrow 2 lend 1; }
  }
}

queue "vision-west" {
  cohort: vision;
  implements: Governance::Allocation::"gpu-east/vision\"x";
  queueing: StrictFIFO;
  fair_weight: 1.5;
  preemption {
    within_queue: LowerPriority;
    reclaim_within_cohort: Any;
    borrow_within_cohort: LowerPriority;
    max_priority_threshold: 70;
  }
  fungibility {
    when_can_borrow: TryNextFlavor;
    preference: PreemptionOverBorrowing;
  }
  resources cpu, memory, "nvidia.com/gpu" {
    flavor a100 { cpu: 96; memory: 768Gi; "nvidia.com/gpu": 8 borrow 4 lend 2; }
    flavor spot { cpu: 500m; memory: 1536Mi; "nvidia.com/gpu": 0; }
  }
  local_queue "vision/training";
  local_queue "default/inbox";
}
)");
}

// Local queues listed out of the queues' order are written after them, so
// that the order comes back.
TEST(Declare, LocalQueuesOutOfOrderStayInOrder) {
  absl::StatusOr<State> s = Declare(R"(
queue a {}
queue b {}
local_queue "ns/one": b;
local_queue "ns/two": a;
local_queue "three": b;
)");
  ASSERT_TRUE(s.ok()) << s.status();
  std::string text = PrintDeclarations(*s);
  // A name that is an identifier is written bare, as `charter fmt` writes it.
  EXPECT_NE(text.find("local_queue \"ns/one\": b;\nlocal_queue \"ns/two\": a;\nlocal_queue three: b;\n"),
            std::string::npos)
      << text;
  absl::StatusOr<State> back = Declare(text);
  ASSERT_TRUE(back.ok()) << back.status();
  ExpectSameConfig(*s, *back);
  EXPECT_EQ(back->local_queues[2].namespace_name, "");
}

// Each fault: code, message, underlined text.
struct Fault {
  const char* text;
  const char* code;
  const char* message;
  const char* underlined;
};

void ExpectFault(const Fault& f) {
  SCOPED_TRACE(f.text);
  std::vector<Diagnostics> d;
  absl::StatusOr<State> s = Declare(f.text, &d);
  ASSERT_FALSE(s.ok());
  ASSERT_EQ(d.size(), 1u);
  ASSERT_FALSE(d[0].empty());
  const Diagnostic& x = d[0].items()[0];
  EXPECT_EQ(x.code, f.code);
  EXPECT_EQ(x.message, f.message);
  EXPECT_EQ(std::string(f.text).substr(x.span.begin, x.span.end - x.span.begin), f.underlined);
}

const char kBase[] = "flavor default;\ncohort ml;\n";

std::string WithBase(const char* rest) { return std::string(kBase) + rest; }

TEST(Declare, Faults) {
  const std::vector<Fault> faults = {
      {"queue a { resources cpu { flavor default { cpu: 8x; } } }\nflavor default;", "CH0801",
       "the nominal `cpu` quota of flavor `default` of cluster queue `a` is not a quantity: `8x`", "8x"},
      {"queue a { resources memory { flavor default { memory: 64 Gi; } } }\nflavor default;", "CH0801",
       "the nominal `memory` quota of flavor `default` of cluster queue `a` is not a quantity: `64 Gi`", "64 Gi"},
      {"queue a { resources cpu { flavor default { cpu: -1; } } }\nflavor default;", "CH0801",
       "the nominal `cpu` quota of flavor `default` of cluster queue `a` is negative (-1)", "-1"},
      {"queue a { fair_weight: -2; }", "CH0801", "the fair weight of cluster queue `a` is negative", "-2"},
      {"queue a { fair_weight: heavy; }", "CH0803",
       "the fair weight of cluster queue `a` must be a non-negative number, such as `1`, `0.5` or `500m`", "heavy"},
      {"priority_class high: 1.5;", "CH0801", "the value of priority class `high` must be an integer, not `1.5`", "1.5"},
      {"queue a { colour: blue; }", "CH0802", "unknown setting `colour` in cluster queue `a`", "colour"},
      {"queues a {}", "CH0802", "unknown declaration `queues`", "queues"},
      {"queue a { queueing: Strict; }", "CH0802", "unknown value `Strict` for `queueing`", "Strict"},
      {"queue a { resources cpu { flavor default { cpu: 1 lent 1; } } }\nflavor default;", "CH0802",
       "unknown quota limit `lent`", "lent"},
      {"flavor a: 1;", "CH0803", "malformed `flavor` declaration", "flavor a: 1;"},
      {"queue a { cohort: 3; }", "CH0803", "`cohort` takes a name", "3"},
      {"queue a { implements: \"x\"; }", "CH0803", "`implements` takes an entity reference", "\"x\""},
      {"flavor a;\nflavor a;", "CH0804", "resource flavor `a` is declared twice", "flavor a"},
      {"queue a { cohort: x; cohort: x; }\ncohort x;", "CH0804", "`cohort` is set twice in cluster queue `a`", "cohort"},
      {"queue a { resources cpu, cpu { flavor default { cpu: 1; } } }\nflavor default;", "CH0804",
       "cluster queue `a` covers resource `cpu` twice", "cpu"},
      {"queue a { local_queue \"ns/q\"; local_queue \"ns/q\"; }", "CH0804", "local queue `ns/q` is declared twice",
       "\"ns/q\""},
      {"queue a { cohort: ml; }", "CH0805", "cluster queue `a` names an unknown cohort `ml`", "ml"},
      {"cohort b { parent: c; }", "CH0805", "cohort `b` names an unknown parent cohort `c`", "c"},
      {"queue a { resources cpu { flavor gold { cpu: 1; } } }", "CH0805",
       "cluster queue `a` uses unknown resource flavor `gold`", "gold"},
      {"local_queue \"ns/q\": nope;", "CH0805", "local queue `ns/q` feeds an unknown cluster queue `nope`", "nope"},
      {"queue a { preemption { reclaim_within_cohort: Any; max_priority_threshold: urgent; } }", "CH0805",
       "`max_priority_threshold` of cluster queue `a` names an unknown priority class `urgent`", "urgent"},
      {"cohort x { parent: y; }\ncohort y { parent: x; }", "CH0806", "cohort `x` is in a cycle of parents: x -> y -> x",
       "y"},
      {"cohort ml;\nflavor default;\nqueue a { cohort: ml; resources cpu { flavor default { cpu: 8 lend 10; } } }",
       "CH0807",
       "the lending limit in the `cpu` quota of flavor `default` of cluster queue `a` (10) is above its nominal quota "
       "(8)",
       "lend 10"},
      {"flavor default;\nqueue a { resources cpu { flavor default { cpu: 8 borrow 1; } } }", "CH0808",
       "the borrowing limit in the `cpu` quota of flavor `default` of cluster queue `a` needs a cohort: Kueue allows "
       "borrowing and lending limits only in a cluster queue of a cohort",
       "borrow 1"},
      {"queue a { preemption { borrow_within_cohort: LowerPriority; } }", "CH0808",
       "cluster queue `a` sets `borrow_within_cohort` while `reclaim_within_cohort` is Never (Kueue refuses this "
       "combination)",
       "borrow_within_cohort: LowerPriority;"},
      {"queue a { fungibility { preference: BorrowingOverPreemption; } }", "CH0808",
       "`preference` of cluster queue `a` needs `when_can_borrow` and `when_can_preempt` both `TryNextFlavor` (Kueue "
       "refuses it otherwise)",
       "preference: BorrowingOverPreemption;"},
      {"flavor default;\nqueue a { resources cpu, memory { flavor default { cpu: 1; } } }", "CH0808",
       "flavor `default` of cluster queue `a` has no quota for covered resource `memory`", "default"},
      {"flavor default;\nqueue a { resources cpu { flavor default { cpu: 1; gpu: 1; } } }", "CH0808",
       "flavor `default` of cluster queue `a` has a quota for `gpu`, which its resource group does not cover", "gpu"},
      {"queue a { resources { } }", "CH0808", "a resource group of cluster queue `a` covers no resources", "resources"},
      {"scheduler { fair_sharing_strategies: [LessThanInitialShare, LessThanOrEqualToFinalShare]; }", "CH0808",
       "the fair-sharing preemption strategies must be one strategy, or LessThanOrEqualToFinalShare then "
       "LessThanInitialShare",
       "[LessThanInitialShare, LessThanOrEqualToFinalShare]"},
      {"queue a { local_queue \"ns/q/r\"; }", "CH0808",
       "local queue `ns/q/r`: a namespace or a name holds no `/` (Kubernetes refuses it)", "\"ns/q/r\""},
  };
  for (const Fault& f : faults) ExpectFault(f);
}

TEST(Declare, SeveralFaultsAtOnce) {
  std::vector<Diagnostics> d;
  absl::StatusOr<State> s = Declare(WithBase("queue a { cohort: nope; }\nqueue b { colour: 1; }\nflavor default;"), &d);
  ASSERT_FALSE(s.ok());
  ASSERT_EQ(d[0].size(), 3u);
  EXPECT_EQ(d[0].items()[0].code, "CH0804");  // the second `flavor default`
  EXPECT_EQ(d[0].items()[1].code, "CH0805");
  EXPECT_EQ(d[0].items()[2].code, "CH0802");
  EXPECT_EQ(s.status().message(), "cluster.charter:5:1: resource flavor `default` is declared twice");
  EXPECT_EQ(d[0].items()[0].help, "it is first declared on line 1");
}

// A declaration in Cedar text is CH0800, and the policies around it are
// still read.
TEST(Declare, CedarTextHoldsNoDeclarations) {
  const std::string text = "permit (principal, action, resource);\nqueue \"team-a\" { cohort: ml; }\n";
  SourceFile source("policies.cedar", text);
  Diagnostics d;
  absl::StatusOr<Bundle> b = Compile(source, {}, &d);
  ASSERT_FALSE(b.ok());
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d.items()[0].code, "CH0800");
  EXPECT_EQ(d.items()[0].message, "a scheduling declaration (`queue`) in Cedar text");
  EXPECT_EQ(text.substr(d.items()[0].span.begin, d.items()[0].span.end - d.items()[0].span.begin), "queue \"team-a\"");
  // The same text named .charter compiles; so does Cedar text with
  // CompileOptions::language.
  CompileOptions charter = WithDeclarations();
  charter.language = SourceLanguage::kCharter;
  Diagnostics d2;
  EXPECT_FALSE(Compile(source, charter, &d2).ok());  // `ml` is unknown
  EXPECT_EQ(d2.items()[0].code, "CH0805");
  // A Cedar syntax error that is no declaration stays a syntax error.
  Diagnostics d3;
  EXPECT_FALSE(Compile(SourceFile("p.cedar", "allow (principal, action, resource);"), {}, &d3).ok());
  EXPECT_EQ(d3.items()[0].code, "CH0101");
  EXPECT_EQ(d3.items()[0].message, "unexpected `allow`");
}

// Words of the language stay free for Cedar: a policy may name attributes
// `queue`, `flavor`, `cohort`.
TEST(Declare, WordsAreNotReserved) {
  const std::string text =
      "permit (principal, action, resource) when { resource.queue == \"a\" && context.flavor.cohort == 1 };\n"
      "queue a {}\n";
  std::vector<SourceFile> sources{SourceFile("x.charter", text)};
  std::vector<Diagnostics> d;
  absl::StatusOr<Bundle> b = Compile(sources, {}, WithDeclarations(), &d);
  ASSERT_TRUE(b.ok()) << b.status();
  absl::StatusOr<Engine> e = Engine::Create(*b);
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(e->policy_count(), 1u);
  std::optional<State> config = Configuration(*e);
  ASSERT_TRUE(config.has_value());
  EXPECT_EQ(config->cluster_queues[0].name, "a");
}

// Several sources: declarations refer to each other across files, faults
// go to their own file, policy ids are unique across them.
TEST(Declare, SeveralSources) {
  std::vector<SourceFile> sources{
      SourceFile("flavors.charter", "flavor default;\ncohort ml;\npermit (principal, action, resource);\n"),
      SourceFile("queues.charter", "queue a { cohort: ml; resources cpu { flavor default { cpu: 8; } } }\n"
                                   "permit (principal, action, resource);\n"),
      SourceFile("rules.cedar", "@id(\"policy0\") forbid (principal, action, resource);\n")};
  std::vector<Diagnostics> d;
  absl::StatusOr<Bundle> b = Compile(sources, {}, WithDeclarations(), &d);
  ASSERT_FALSE(b.ok());
  ASSERT_EQ(d.size(), 3u);
  EXPECT_TRUE(d[0].empty());
  EXPECT_TRUE(d[1].empty());
  ASSERT_EQ(d[2].size(), 1u);
  EXPECT_EQ(d[2].items()[0].code, "CH0125");
  EXPECT_EQ(b.status().message(), "rules.cedar:1:1: duplicate policy id `policy0`");
  sources.pop_back();
  d.clear();
  b = Compile(sources, {}, WithDeclarations(), &d);
  ASSERT_TRUE(b.ok()) << b.status();
  absl::StatusOr<Engine> e = Engine::Create(*b);
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(e->policy_ids(), (std::vector<std::string>{"policy0", "policy1"}));
  std::optional<State> config = Configuration(*e);
  ASSERT_TRUE(config.has_value());
  EXPECT_EQ(config->cluster_queues[0].cohort, 0);
  // A fault in the second file is reported there.
  sources[1] = SourceFile("queues.charter", "queue a { cohort: nope; }\n");
  d.clear();
  b = Compile(sources, {}, WithDeclarations(), &d);
  ASSERT_FALSE(b.ok());
  EXPECT_TRUE(d[0].empty());
  ASSERT_EQ(d[1].size(), 1u);
  EXPECT_EQ(b.status().message(), "queues.charter:1:19: cluster queue `a` names an unknown cohort `nope`");
  // A duplicate across files says where the first one is.
  sources[1] = SourceFile("queues.charter", "\n\ncohort ml;\n");
  d.clear();
  b = Compile(sources, {}, WithDeclarations(), &d);
  ASSERT_FALSE(b.ok());
  ASSERT_EQ(d[1].size(), 1u);
  EXPECT_EQ(d[1].items()[0].help, "it is first declared on flavors.charter:2:1");
}

// The core compiles policies only: without a declarations compiler, a
// source that declares is CH0809 at its first declaration, and says which
// library compiles them.
TEST(Declare, CoreAloneRefusesDeclarations) {
  const std::string text = "permit (principal, action, resource);\nflavor default;\nqueue a {}\n";
  std::vector<SourceFile> sources{SourceFile("p.cedar", "permit (principal, action, resource);\n"),
                                  SourceFile("cluster.charter", text)};
  std::vector<Diagnostics> d;
  absl::StatusOr<Bundle> b = Compile(sources, {}, CompileOptions{}, &d);
  ASSERT_FALSE(b.ok());
  EXPECT_TRUE(d[0].empty());
  ASSERT_EQ(d[1].size(), 1u);
  EXPECT_EQ(d[1].items()[0].code, "CH0809");
  EXPECT_EQ(b.status().message(),
            "cluster.charter:2:1: `flavor` declares, and nothing compiles declarations here");
  EXPECT_NE(d[1].items()[0].help.find("charter::schedule::Declarations()"), std::string::npos);
  // With it, the same sources compile, and the configuration is in the
  // bundle's `scheduling` section.
  b = Compile(sources, {}, WithDeclarations(), &d);
  ASSERT_TRUE(b.ok()) << b.status();
  absl::StatusOr<Engine> e = Engine::Create(*b);
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_TRUE(e->section("scheduling").has_value());
  EXPECT_FALSE(e->section("schedulin").has_value());
  EXPECT_FALSE(e->section("").has_value());
}

// The scheduling section is verified by its reader: bytes that are not a
// configuration load into an engine (the core keeps them unread) and are
// refused by ReadConfiguration, saying why.
TEST(Declare, ReadConfigurationVerifiesTheSection) {
  std::vector<SourceFile> sources{SourceFile("cluster.charter", kCluster)};
  absl::StatusOr<Bundle> b = Compile(sources, {}, WithDeclarations(), nullptr);
  ASSERT_TRUE(b.ok()) << b.status();
  absl::StatusOr<Engine> e = Engine::Create(*b);
  ASSERT_TRUE(e.ok()) << e.status();
  std::optional<std::string_view> section = e->section("scheduling");
  ASSERT_TRUE(section.has_value());
  // Find the section's bytes in the bundle and damage them: its file
  // identifier (bytes 4..7 of a FlatBuffer), then its root offset (bytes
  // 0..3), which then points past its end. The core keeps the bytes unread,
  // so the engine loads; the reader refuses each, saying why.
  std::string bytes(b->bytes());
  const size_t at = bytes.find(std::string(*section));
  ASSERT_NE(at, std::string::npos);
  struct Damage {
    size_t offset;
    const char* message;
  };
  for (const Damage& damage : {Damage{4, "invalid bundle: scheduling: not a scheduling section (wrong file identifier)"},
                               Damage{0, "invalid bundle: scheduling: corrupt structure"}}) {
    std::string damaged = bytes;
    for (size_t i = 0; i < 4; ++i) damaged[at + damage.offset + i] = '\x7f';
    absl::StatusOr<Bundle> db = Bundle::FromBytes(damaged);
    ASSERT_TRUE(db.ok());
    absl::StatusOr<Engine> de = Engine::Create(*db);
    ASSERT_TRUE(de.ok()) << de.status();
    absl::StatusOr<std::optional<State>> config = ReadConfiguration(*de);
    ASSERT_FALSE(config.ok()) << damage.offset;
    EXPECT_EQ(config.status().message(), damage.message);
  }
}

TEST(Declare, BundleWithoutDeclarationsHasNoScheduling) {
  absl::StatusOr<Bundle> b = Compile(SourceFile("p.cedar", "permit (principal, action, resource);"), WithDeclarations(), nullptr);
  ASSERT_TRUE(b.ok());
  absl::StatusOr<Engine> e = Engine::Create(*b);
  ASSERT_TRUE(e.ok());
  EXPECT_FALSE(Configuration(*e).has_value());
}

TEST(Declare, EngineKeepsTheConfiguration) {
  std::vector<SourceFile> sources{SourceFile("cluster.charter", kCluster)};
  absl::StatusOr<Bundle> b = Compile(sources, {}, WithDeclarations(), nullptr);
  ASSERT_TRUE(b.ok()) << b.status();
  absl::StatusOr<Engine> e = Engine::Create(*b);
  ASSERT_TRUE(e.ok()) << e.status();
  std::optional<State> config = Configuration(*e);
  ASSERT_TRUE(config.has_value());
  absl::StatusOr<State> direct = Declare(kCluster);
  ASSERT_TRUE(direct.ok());
  ExpectSameConfig(*direct, *config);
  EXPECT_EQ(PrintDeclarations(*config), PrintDeclarations(*direct));
}

TEST(Declare, WorkloadsOntoTheConfiguration) {
  absl::StatusOr<State> config = Declare(WithBase(
      "priority_class high: 10;\nqueue a { cohort: ml; resources cpu { flavor default { cpu: 4; } } }\n"));
  ASSERT_TRUE(config.ok()) << config.status();
  LoadOptions options;
  options.source_name = "w.json";
  absl::StatusOr<State> s = LoadWorkloads(*config, R"({"pending": [
    {"name": "w1", "cluster_queue": "a", "priority_class": "high",
     "pod_sets": [{"name": "main", "count": 2, "requests": {"cpu": "1500m", "example.com/fpga": 1}}]}]})",
                                          options);
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ(s->pending.size(), 1u);
  EXPECT_EQ(s->pending[0].priority, 10);
  EXPECT_EQ(s->resources, (std::vector<std::string>{"cpu", "example.com/fpga"}));
  absl::StatusOr<CycleResult> r = RunCycle(*s);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->not_admitted.size(), 1u);  // no queue covers the fpga
  EXPECT_EQ(LoadWorkloads(*config, R"({"pending": [{"name": "w", "cluster_queue": "b", "pod_sets": [{"name": "m"}]}]})",
                          options)
                .status()
                .message(),
            "w.json:1:45: pending workload `w` names an unknown cluster queue `b`");
  EXPECT_EQ(LoadWorkloads(*config, R"({"cohorts": []})", options).status().message(),
            "w.json:1:2: unknown field `cohorts` in the workloads");
  EXPECT_EQ(LoadWorkloads(*config, "[]", options).status().message(),
            "w.json:1:1: the workloads must be a JSON object {\"admitted\": [...], \"pending\": [...]}");
}

}  // namespace
}  // namespace charter::schedule
