// ExportKueue: the scheduling model as Kueue's objects, in YAML that
// `kubectl apply` accepts, every default written out.
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "charter/kueue.h"
#include "charter/schedule.h"
#include "common/status_macros.h"
#include "common/strings.h"
#include "cycle/names.h"
#include "cycle/quantity.h"
#include "json/json.h"
#include "kueue/document.h"
#include "kueue/fields.h"
#include "kueue/objects.h"
#include "kueue/yaml_out.h"

namespace charter::kueue {
namespace {

namespace ik = internal::kueue;
using internal::Cat;
using internal::CatAppend;
using ik::YamlScalar;

using schedule::FungibilityName;
using schedule::PolicyName;

class Exporter {
 public:
  Exporter(const schedule::State& state, const ExportOptions& options, std::vector<Note>* notes)
      : s_(state), options_(options), notes_(notes) {}

  absl::StatusOr<std::string> Run();

 private:
  std::string ApiVersion() const { return options_.version == ApiVersion::kV1beta1 ? "kueue.x-k8s.io/v1beta1" : "kueue.x-k8s.io/v1beta2"; }
  void Header(std::string_view kind, std::string_view name, std::string_view ns = {}) {
    if (!out_.empty()) out_ += "---\n";
    CatAppend(&out_, "apiVersion: ", ApiVersion(), "\nkind: ", kind, "\nmetadata:\n  name: ", YamlScalar(name), "\n");
    if (!ns.empty()) CatAppend(&out_, "  namespace: ", YamlScalar(ns), "\n");
  }
  absl::Status Name(std::string_view what, std::string_view name) const {
    if (ik::IsDnsSubdomain(name)) return absl::OkStatus();
    return absl::InvalidArgumentError(
        Cat(what, " `", name, "`: Kueue needs a DNS subdomain name (lowercase letters, digits, `-` and `.`)"));
  }
  absl::Status Groups(const std::vector<schedule::ResourceGroup>& groups, std::string_view what, bool is_cohort);
  void Weight(double w);
  void Note(std::string message, bool warning = false) {
    kueue::Note n;
    n.severity = warning ? kueue::Note::Severity::kWarning : kueue::Note::Severity::kNote;
    n.message = std::move(message);
    notes_->push_back(std::move(n));
  }

  const schedule::State& s_;
  const ExportOptions& options_;
  std::vector<kueue::Note>* notes_;
  std::string out_;
};

void Exporter::Weight(double w) {
  CatAppend(&out_, "  fairSharing:\n    weight: ", YamlScalar(ik::FormatWeight(w)), "\n");
}

absl::Status Exporter::Groups(const std::vector<schedule::ResourceGroup>& groups, std::string_view what,
                              bool is_cohort) {
  if (groups.empty()) return absl::OkStatus();
  out_ += "  resourceGroups:\n";
  for (const schedule::ResourceGroup& g : groups) {
    out_ += "  - coveredResources:\n";
    for (int r : g.covered_resources) {
      if (!ik::IsQualifiedName(s_.resources[r])) {
        return absl::InvalidArgumentError(Cat(what, ": `", s_.resources[r], "` is not a Kubernetes resource name"));
      }
      CatAppend(&out_, "    - ", YamlScalar(s_.resources[r]), "\n");
    }
    out_ += "    flavors:\n";
    for (const schedule::FlavorQuotas& fq : g.flavors) {
      CatAppend(&out_, "    - name: ", YamlScalar(s_.flavors[fq.flavor]), "\n      resources:\n");
      // Kueue lists a flavor's resources in the order of coveredResources.
      for (int r : g.covered_resources) {
        auto q = std::find_if(fq.resources.begin(), fq.resources.end(),
                              [r](const schedule::ResourceQuota& x) { return x.resource == r; });
        if (q == fq.resources.end()) {
          return absl::InvalidArgumentError(
              Cat(what, ": flavor `", s_.flavors[fq.flavor], "` has no quota for `", s_.resources[r], "`"));
        }
        const bool milli = s_.resources[r] == "cpu";
        auto quantity = [&](int64_t v) { return YamlScalar(internal::schedule::FormatQuantity(v, milli)); };
        CatAppend(&out_, "      - name: ", YamlScalar(s_.resources[r]), "\n        nominalQuota: ", quantity(q->nominal), "\n");
        if (q->borrowing_limit) CatAppend(&out_, "        borrowingLimit: ", quantity(*q->borrowing_limit), "\n");
        if (q->lending_limit) {
          if (!is_cohort && *q->lending_limit > q->nominal) {
            return absl::InvalidArgumentError(Cat(what, ": the lending limit of `", s_.resources[r], "` in flavor `",
                                                  s_.flavors[fq.flavor], "` is above its nominal quota"));
          }
          CatAppend(&out_, "        lendingLimit: ", quantity(*q->lending_limit), "\n");
        }
      }
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> Exporter::Run() {
  const bool v1 = options_.version == ApiVersion::kV1beta1;
  for (const std::string& f : s_.flavors) {
    RETURN_IF_ERROR(Name("resource flavor", f));
    Header("ResourceFlavor", f);
    out_ += "spec: {}\n";
  }
  // Cohorts, each after its parent.
  std::vector<int> order;
  std::vector<int> state(s_.cohorts.size(), 0);  // 0 new, 1 placed
  for (size_t start = 0; start < s_.cohorts.size(); ++start) {
    std::vector<int> chain;
    for (int c = static_cast<int>(start); c >= 0 && state[c] == 0 && chain.size() <= s_.cohorts.size();
         c = s_.cohorts[c].parent) {
      chain.push_back(c);
    }
    if (chain.size() > s_.cohorts.size()) return absl::InvalidArgumentError("the cohorts form a cycle");
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      if (state[*it] == 0) order.push_back(*it), state[*it] = 1;
    }
  }
  for (int c : order) {
    const schedule::Cohort& cohort = s_.cohorts[c];
    const std::string what = Cat("cohort `", cohort.name, "`");
    RETURN_IF_ERROR(Name("cohort", cohort.name));
    Header("Cohort", cohort.name);
    out_ += "spec:\n";
    if (cohort.parent >= 0) CatAppend(&out_, "  parentName: ", YamlScalar(s_.cohorts[cohort.parent].name), "\n");
    Weight(cohort.fair_weight);
    RETURN_IF_ERROR(Groups(cohort.resource_groups, what, true));
  }
  for (const schedule::ClusterQueue& cq : s_.cluster_queues) {
    const std::string what = Cat("cluster queue `", cq.name, "`");
    RETURN_IF_ERROR(Name("cluster queue", cq.name));
    if (cq.preemption.within_cluster_queue == schedule::PreemptionPolicy::kAny) {
      return absl::InvalidArgumentError(Cat(what, ": Kueue's withinClusterQueue has no `Any`"));
    }
    if (cq.preemption.reclaim_within_cohort == schedule::PreemptionPolicy::kLowerOrNewerEqualPriority) {
      return absl::InvalidArgumentError(Cat(what, ": Kueue's reclaimWithinCohort has no `LowerOrNewerEqualPriority`"));
    }
    if (cq.preemption.borrow_within_cohort != schedule::PreemptionPolicy::kNever &&
        cq.preemption.borrow_within_cohort != schedule::PreemptionPolicy::kLowerPriority) {
      return absl::InvalidArgumentError(Cat(what, ": Kueue's borrowWithinCohort policy is Never or LowerPriority"));
    }
    Header("ClusterQueue", cq.name);
    if (!cq.implements.empty()) {
      out_ += "  annotations:\n    charter/implements: ";
      out_ += YamlScalar(cq.implements);
      out_ += "\n";
    }
    out_ += "spec:\n";
    if (cq.cohort >= 0) CatAppend(&out_, v1 ? "  cohort: " : "  cohortName: ", YamlScalar(s_.cohorts[cq.cohort].name), "\n");
    // The model admits workloads of every namespace: `{}`. Left out, Kueue
    // reads null, which matches no namespace (LabelSelectorAsSelector(nil)).
    out_ += "  namespaceSelector: {}\n";
    CatAppend(&out_, "  queueingStrategy: ",
              cq.queueing_strategy == schedule::QueueingStrategy::kStrictFIFO ? "StrictFIFO" : "BestEffortFIFO", "\n");
    CatAppend(&out_, "  preemption:\n    withinClusterQueue: ", PolicyName(cq.preemption.within_cluster_queue),
              "\n    reclaimWithinCohort: ", PolicyName(cq.preemption.reclaim_within_cohort),
              "\n    borrowWithinCohort:\n      policy: ", PolicyName(cq.preemption.borrow_within_cohort), "\n");
    if (cq.preemption.max_priority_threshold) {
      const int64_t t = *cq.preemption.max_priority_threshold;
      if (t < INT32_MIN || t > INT32_MAX) {
        return absl::InvalidArgumentError(Cat(what, ": maxPriorityThreshold ", t, " is not a 32-bit integer"));
      }
      CatAppend(&out_, "      maxPriorityThreshold: ", t, "\n");
    }
    CatAppend(&out_, "  flavorFungibility:\n    whenCanBorrow: ", FungibilityName(cq.flavor_fungibility.when_can_borrow),
              "\n    whenCanPreempt: ", FungibilityName(cq.flavor_fungibility.when_can_preempt), "\n");
    if (cq.flavor_fungibility.preference != schedule::FungibilityPreference::kUnset) {
      if (cq.flavor_fungibility.when_can_borrow != schedule::FungibilityPolicy::kTryNextFlavor ||
          cq.flavor_fungibility.when_can_preempt != schedule::FungibilityPolicy::kTryNextFlavor) {
        return absl::InvalidArgumentError(
            Cat(what, ": a flavor fungibility preference needs whenCanBorrow and whenCanPreempt TryNextFlavor"));
      }
      CatAppend(&out_, "    preference: ",
                cq.flavor_fungibility.preference == schedule::FungibilityPreference::kBorrowingOverPreemption
                    ? "BorrowingOverPreemption"
                    : "PreemptionOverBorrowing",
                "\n");
    }
    out_ += "  stopPolicy: None\n";
    Weight(cq.fair_weight);
    RETURN_IF_ERROR(Groups(cq.resource_groups, what, false));
  }
  for (const schedule::LocalQueue& lq : s_.local_queues) {
    std::string ns = lq.namespace_name;
    if (ns.empty()) {
      ns = "default";
      Note(Cat("local queue `", lq.name, "` has no namespace: written in `default`"), true);
    }
    RETURN_IF_ERROR(Name("local queue", lq.name));
    RETURN_IF_ERROR(Name("namespace", ns));
    Header("LocalQueue", lq.name, ns);
    CatAppend(&out_, "spec:\n  clusterQueue: ", YamlScalar(s_.cluster_queues[lq.cluster_queue].name),
              "\n  stopPolicy: None\n");
  }
  for (const schedule::PriorityClass& pc : s_.priority_classes) {
    RETURN_IF_ERROR(Name("priority class", pc.name));
    if (pc.value < INT32_MIN || pc.value > INT32_MAX) {
      return absl::InvalidArgumentError(Cat("priority class `", pc.name, "`: ", pc.value, " is not a 32-bit integer"));
    }
    Header("WorkloadPriorityClass", pc.name);
    CatAppend(&out_, "value: ", pc.value, "\n");
  }
  if (options_.configuration) {
    if (!out_.empty()) out_ += "---\n";
    std::string config = Cat("apiVersion: config.kueue.x-k8s.io/", v1 ? "v1beta1" : "v1beta2", "\nkind: Configuration\n");
    if (s_.engine.fair_sharing || v1) {
      config += "fairSharing:\n";
      if (v1) CatAppend(&config, "  enable: ", s_.engine.fair_sharing ? "true" : "false", "\n");
      config += "  preemptionStrategies:\n";
      for (schedule::FairSharingStrategy st : s_.engine.fair_sharing_strategies) {
        CatAppend(&config, "  - ",
                  st == schedule::FairSharingStrategy::kLessThanOrEqualToFinalShare ? "LessThanOrEqualToFinalShare"
                                                                                     : "LessThanInitialShare",
                  "\n");
      }
    }
    out_ += "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kueue-manager-config\n  namespace: kueue-system\n"
            "data:\n  controller_manager_config.yaml: |\n";
    for (size_t start = 0; start < config.size();) {
      size_t end = config.find('\n', start);
      CatAppend(&out_, "    ", std::string_view(config).substr(start, end - start), "\n");
      start = end + 1;
    }
    Note("the ConfigMap kueue-manager-config holds the whole manager configuration: merge its fairSharing into "
         "yours rather than replacing it");
  }
  if (!s_.admitted.empty() || !s_.pending.empty()) {
    Note(Cat("the ", s_.admitted.size() + s_.pending.size(), " workloads of the state are not written"));
  }
  return out_;
}

}  // namespace

absl::StatusOr<Exported> ExportKueue(const schedule::State& state, const ExportOptions& options) {
  Exported out;
  Exporter exporter(state, options, &out.notes);
  ASSIGN_OR_RETURN(out.text, exporter.Run());
  return out;
}

}  // namespace charter::kueue
