// Kueue's rules for a scheduling configuration (config_check.h).
#include "cycle/config_check.h"

#include <cmath>
#include <string>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "common/strings.h"
#include "cycle/quantity.h"
#include "cycle/tree.h"

namespace charter::internal::schedule {
namespace {

using ::charter::schedule::Cohort;
using ::charter::schedule::ClusterQueue;
using ::charter::schedule::FairSharingStrategy;
using ::charter::schedule::FlavorFungibility;
using ::charter::schedule::FlavorQuotas;
using ::charter::schedule::FungibilityPolicy;
using ::charter::schedule::FungibilityPreference;
using ::charter::schedule::LocalQueue;
using ::charter::schedule::Preemption;
using ::charter::schedule::PreemptionPolicy;
using ::charter::schedule::ResourceGroup;
using ::charter::schedule::ResourceQuota;
using ::charter::schedule::State;

ConfigFault Fault(FaultKind kind, FaultField field, std::string message) {
  ConfigFault f;
  f.kind = kind;
  f.field = field;
  f.message = std::move(message);
  return f;
}

}  // namespace

std::optional<ConfigFault> CheckResourceGroups(const State& state, const std::vector<ResourceGroup>& groups,
                                               std::string_view what, bool is_queue, bool has_parent,
                                               QuotaTotals* totals) {
  const int num_resources = static_cast<int>(state.resources.size());
  const int num_flavors = static_cast<int>(state.flavors.size());
  std::vector<bool> covered(state.resources.size(), false);
  std::vector<bool> flavor_used(state.flavors.size(), false);
  std::vector<bool> quoted;  // per flavor, one buffer for all
  for (size_t g = 0; g < groups.size(); ++g) {
    const ResourceGroup& group = groups[g];
    auto at = [&](ConfigFault f) {
      f.group = static_cast<int>(g);
      return f;
    };
    if (group.covered_resources.empty()) {
      return at(Fault(FaultKind::kRefused, FaultField::kGroup, Cat("a resource group of ", what, " covers no resources")));
    }
    for (size_t i = 0; i < group.covered_resources.size(); ++i) {
      const int r = group.covered_resources[i];
      ConfigFault f;
      if (r < 0 || r >= num_resources) {
        f = Fault(FaultKind::kUnknown, FaultField::kCoveredResource, Cat(what, " covers an unknown resource"));
      } else if (covered[r]) {
        f = Fault(FaultKind::kDuplicate, FaultField::kCoveredResource,
                  Cat(what, " covers resource `", state.resources[r], "` twice"));
      } else {
        covered[r] = true;
        continue;
      }
      f.item = static_cast<int>(i);
      return at(std::move(f));
    }
    if (group.flavors.empty()) {
      return at(Fault(FaultKind::kRefused, FaultField::kGroup, Cat("a resource group of ", what, " has no flavors")));
    }
    for (size_t fi = 0; fi < group.flavors.size(); ++fi) {
      const FlavorQuotas& fq = group.flavors[fi];
      auto in_flavor = [&](ConfigFault f) {
        f.flavor = static_cast<int>(fi);
        return at(std::move(f));
      };
      if (fq.flavor < 0 || fq.flavor >= num_flavors) {
        return in_flavor(Fault(FaultKind::kUnknown, FaultField::kFlavor, Cat(what, " uses an unknown resource flavor")));
      }
      if (flavor_used[fq.flavor]) {
        return in_flavor(Fault(FaultKind::kDuplicate, FaultField::kFlavor,
                               Cat(what, " lists flavor `", state.flavors[fq.flavor], "` twice")));
      }
      flavor_used[fq.flavor] = true;
      // The messages' names, built only for a fault (a load reads thousands
      // of quotas without one).
      auto fwhat = [&] { return Cat("flavor `", state.flavors[fq.flavor], "` of ", what); };
      quoted.assign(state.resources.size(), false);
      for (size_t qi = 0; qi < fq.resources.size(); ++qi) {
        const ResourceQuota& q = fq.resources[qi];
        auto in_quota = [&](ConfigFault f) {
          f.quota = static_cast<int>(qi);
          return in_flavor(std::move(f));
        };
        if (q.resource < 0 || q.resource >= num_resources) {
          return in_quota(Fault(FaultKind::kUnknown, FaultField::kQuotaResource, Cat(fwhat(), " has a quota for an unknown resource")));
        }
        const std::string& rname = state.resources[q.resource];
        bool in_group = false;
        for (int c : group.covered_resources) in_group = in_group || c == q.resource;
        if (!in_group) {
          return in_quota(Fault(FaultKind::kRefused, FaultField::kQuotaResource,
                                Cat(fwhat(), " has a quota for `", rname, "`, which its resource group does not cover")));
        }
        if (quoted[q.resource]) {
          return in_quota(Fault(FaultKind::kDuplicate, FaultField::kQuotaResource, Cat(fwhat(), " lists `", rname, "` twice")));
        }
        quoted[q.resource] = true;
        auto rwhat = [&] { return Cat("the `", rname, "` quota of ", fwhat()); };
        const bool milli = rname == "cpu";
        if (q.nominal < 0) {
          return in_quota(Fault(FaultKind::kQuantity, FaultField::kNominal, Cat("the nominal ", rwhat().substr(4), " is negative")));
        }
        auto no_parent = [&](std::string_view kind, FaultField field) {
          return in_quota(Fault(
              FaultKind::kRefused, field,
              Cat("the ", kind, " limit in ", rwhat(), " needs ",
                  is_queue ? "a cohort: Kueue allows borrowing and lending limits only in a cluster queue of a cohort"
                           : "a parent cohort: Kueue allows borrowing and lending limits only in a cohort with a parent")));
        };
        if (q.borrowing_limit.has_value()) {
          if (*q.borrowing_limit < 0) {
            return in_quota(Fault(FaultKind::kQuantity, FaultField::kBorrowingLimit, Cat("the borrowing limit in ", rwhat(), " is negative")));
          }
          if (!has_parent) return no_parent("borrowing", FaultField::kBorrowingLimit);
        }
        if (q.lending_limit.has_value()) {
          if (*q.lending_limit < 0) {
            return in_quota(Fault(FaultKind::kQuantity, FaultField::kLendingLimit, Cat("the lending limit in ", rwhat(), " is negative")));
          }
          if (!has_parent) return no_parent("lending", FaultField::kLendingLimit);
          if (*q.lending_limit > q.nominal) {
            return in_quota(Fault(FaultKind::kLendingAboveNominal, FaultField::kLendingLimit,
                                  Cat("the lending limit in ", rwhat(), " (", FormatQuantity(*q.lending_limit, milli),
                                      ") is above its nominal quota (", FormatQuantity(q.nominal, milli), ")")));
          }
        }
        // The quota tree adds quotas up exactly: they must fit in 64 bits
        // together, and a nominal quota with its borrowing limit.
        int64_t reach = 0;
        if (q.borrowing_limit.has_value() && __builtin_add_overflow(q.nominal, *q.borrowing_limit, &reach)) {
          return in_quota(Fault(FaultKind::kQuantity, FaultField::kQuota,
                                Cat(rwhat(), ": the nominal quota and the borrowing limit add up to more than 2^63-1")));
        }
        if (totals != nullptr) {
          if (static_cast<size_t>(q.resource) >= totals->size()) totals->resize(q.resource + 1, 0);
          if (__builtin_add_overflow((*totals)[q.resource], q.nominal, &(*totals)[q.resource])) {
            return in_quota(Fault(FaultKind::kQuantity, FaultField::kQuota,
                                  Cat("with ", rwhat(), ", the nominal quotas of `", rname, "` add up to more than 2^63-1")));
          }
        }
      }
      for (int r : group.covered_resources) {
        if (!quoted[r]) {
          return in_flavor(Fault(FaultKind::kRefused, FaultField::kQuotas,
                                 Cat(fwhat(), " has no quota for covered resource `", state.resources[r], "`")));
        }
      }
    }
  }
  return std::nullopt;
}

std::optional<ConfigFault> CheckPreemption(const Preemption& p, std::string_view what) {
  if (p.borrow_within_cohort != PreemptionPolicy::kNever && p.borrow_within_cohort != PreemptionPolicy::kLowerPriority) {
    return Fault(FaultKind::kRefused, FaultField::kPreemption,
                 Cat("`borrow_within_cohort` of ", what, " is `Never` or `LowerPriority`"));
  }
  if (p.reclaim_within_cohort == PreemptionPolicy::kNever && p.borrow_within_cohort != PreemptionPolicy::kNever) {
    return Fault(FaultKind::kRefused, FaultField::kPreemption,
                 Cat(what, " sets `borrow_within_cohort` while `reclaim_within_cohort` is Never "
                           "(Kueue refuses this combination)"));
  }
  return std::nullopt;
}

std::optional<ConfigFault> CheckFungibility(const FlavorFungibility& f, std::string_view what) {
  if (f.preference != FungibilityPreference::kUnset &&
      (f.when_can_borrow != FungibilityPolicy::kTryNextFlavor || f.when_can_preempt != FungibilityPolicy::kTryNextFlavor)) {
    return Fault(FaultKind::kRefused, FaultField::kPreference,
                 Cat("`preference` of ", what, " needs `when_can_borrow` and `when_can_preempt` both `TryNextFlavor` "
                                               "(Kueue refuses it otherwise)"));
  }
  return std::nullopt;
}

std::optional<ConfigFault> CheckFairWeight(double weight, std::string_view what) {
  if (std::isnan(weight) || weight < 0) {
    return Fault(FaultKind::kQuantity, FaultField::kFairWeight, Cat("the fair weight of ", what, " is negative"));
  }
  if (std::isinf(weight)) {
    return Fault(FaultKind::kQuantity, FaultField::kFairWeight, Cat("the fair weight of ", what, " is too large"));
  }
  return std::nullopt;
}

std::optional<ConfigFault> CheckStrategies(const std::vector<FairSharingStrategy>& list) {
  // Kueue accepts these three lists only.
  bool ok = list.size() == 1 ||
            (list.size() == 2 && list[0] == FairSharingStrategy::kLessThanOrEqualToFinalShare &&
             list[1] == FairSharingStrategy::kLessThanInitialShare);
  if (ok) return std::nullopt;
  return Fault(FaultKind::kRefused, FaultField::kStrategies,
               "the fair-sharing preemption strategies must be one strategy, or "
               "LessThanOrEqualToFinalShare then LessThanInitialShare");
}

std::optional<ConfigFault> CheckLocalQueueName(const LocalQueue& lq) {
  if (lq.name.empty()) {
    return Fault(FaultKind::kRefused, FaultField::kName, "a local queue needs a name");
  }
  if (lq.namespace_name.find('/') != std::string::npos || lq.name.find('/') != std::string::npos) {
    return Fault(FaultKind::kRefused, FaultField::kName,
                 Cat("local queue `", lq.namespace_name, "/", lq.name,
                     "`: a namespace or a name holds no `/` (Kubernetes refuses it)"));
  }
  return std::nullopt;
}

std::string CohortCyclePath(const std::vector<Cohort>& cohorts, int* at) {
  int c = CohortInCycle(cohorts);
  if (at != nullptr) *at = c;
  if (c < 0) return {};
  std::string path = cohorts[c].name;
  for (int walk = cohorts[c].parent;; walk = cohorts[walk].parent) {
    CatAppend(&path, " -> ", cohorts[walk].name);
    if (walk == c) break;
  }
  return path;
}

std::optional<PlacedFault> CheckConfig(const State& s, uint64_t max_quota_cells) {
  using Object = PlacedFault::Object;
  auto placed = [](Object object, int index, ConfigFault f) { return PlacedFault{object, index, std::move(f)}; };
  if (auto f = CheckStrategies(s.engine.fair_sharing_strategies)) return placed(Object::kEngine, -1, *f);
  auto unique = [&](Object object, const auto& list, auto name_of, std::string_view what) -> std::optional<PlacedFault> {
    absl::flat_hash_set<std::string_view> seen;
    for (size_t i = 0; i < list.size(); ++i) {
      std::string_view name = name_of(list[i]);
      if (name.empty()) {
        return placed(object, static_cast<int>(i), Fault(FaultKind::kRefused, FaultField::kName, Cat("a ", what, " has an empty name")));
      }
      if (!seen.insert(name).second) {
        return placed(object, static_cast<int>(i),
                      Fault(FaultKind::kDuplicate, FaultField::kName, Cat(what, " `", name, "` is declared twice")));
      }
    }
    return std::nullopt;
  };
  if (auto f = unique(Object::kFlavor, s.flavors, [](const std::string& n) { return std::string_view(n); },
                      "resource flavor")) {
    return f;
  }
  if (auto f = unique(Object::kPriorityClass, s.priority_classes,
                      [](const ::charter::schedule::PriorityClass& c) { return std::string_view(c.name); },
                      "priority class")) {
    return f;
  }
  if (auto f = unique(Object::kCohort, s.cohorts, [](const Cohort& c) { return std::string_view(c.name); }, "cohort")) {
    return f;
  }
  if (auto f = unique(Object::kClusterQueue, s.cluster_queues,
                      [](const ClusterQueue& q) { return std::string_view(q.name); }, "cluster queue")) {
    return f;
  }
  {
    absl::flat_hash_set<std::string_view> seen;
    for (const std::string& r : s.resources) {
      if (r.empty() || !seen.insert(r).second) {
        return placed(Object::kEngine, -1, Fault(FaultKind::kDuplicate, FaultField::kObject,
                                                 Cat("resource `", r, "` is listed twice or empty")));
      }
    }
  }
  {
    // The flavors' declared capacities: known flavors and resources, each
    // pair once, no negative amount.
    absl::flat_hash_set<std::pair<int, int>> seen;
    for (const ::charter::schedule::FlavorCapacity& c : s.capacities) {
      if (c.flavor < 0 || static_cast<size_t>(c.flavor) >= s.flavors.size() || c.resource < 0 ||
          static_cast<size_t>(c.resource) >= s.resources.size()) {
        return placed(Object::kEngine, -1,
                      Fault(FaultKind::kUnknown, FaultField::kObject, "a flavor's capacity names an unknown flavor or resource"));
      }
      if (!seen.insert({c.flavor, c.resource}).second) {
        return placed(Object::kFlavor, c.flavor,
                      Fault(FaultKind::kDuplicate, FaultField::kObject,
                            Cat("the capacity of `", s.resources[c.resource], "` in resource flavor `", s.flavors[c.flavor],
                                "` is given twice")));
      }
      if (c.amount < 0) {
        return placed(Object::kFlavor, c.flavor,
                      Fault(FaultKind::kQuantity, FaultField::kObject,
                            Cat("the capacity of `", s.resources[c.resource], "` in resource flavor `", s.flavors[c.flavor],
                                "` is negative")));
      }
    }
  }
  const int num_cohorts = static_cast<int>(s.cohorts.size());
  QuotaTotals totals;
  std::string what;  // "cohort `name`", "cluster queue `name`": one buffer for all
  for (int c = 0; c < num_cohorts; ++c) {
    const Cohort& cohort = s.cohorts[c];
    what.clear();
    CatAppend(&what, "cohort `", cohort.name, "`");
    if (cohort.parent < -1 || cohort.parent >= num_cohorts) {
      return placed(Object::kCohort, c, Fault(FaultKind::kUnknown, FaultField::kParent, Cat(what, " names an unknown parent cohort")));
    }
    if (auto f = CheckFairWeight(cohort.fair_weight, what)) return placed(Object::kCohort, c, *f);
    if (auto f = CheckResourceGroups(s, cohort.resource_groups, what, false, cohort.parent >= 0, &totals)) {
      return placed(Object::kCohort, c, *f);
    }
  }
  int in_cycle = -1;
  if (std::string path = CohortCyclePath(s.cohorts, &in_cycle); !path.empty()) {
    return placed(Object::kCohort, in_cycle,
                  Fault(FaultKind::kCycle, FaultField::kParent,
                        Cat("cohort `", s.cohorts[in_cycle].name, "` is in a cycle of parents: ", path)));
  }
  for (size_t q = 0; q < s.cluster_queues.size(); ++q) {
    const ClusterQueue& cq = s.cluster_queues[q];
    const int i = static_cast<int>(q);
    what.clear();
    CatAppend(&what, "cluster queue `", cq.name, "`");
    if (cq.cohort < -1 || cq.cohort >= num_cohorts) {
      return placed(Object::kClusterQueue, i, Fault(FaultKind::kUnknown, FaultField::kParent, Cat(what, " names an unknown cohort")));
    }
    if (auto f = CheckPreemption(cq.preemption, what)) return placed(Object::kClusterQueue, i, *f);
    if (auto f = CheckFungibility(cq.flavor_fungibility, what)) return placed(Object::kClusterQueue, i, *f);
    if (auto f = CheckFairWeight(cq.fair_weight, what)) return placed(Object::kClusterQueue, i, *f);
    if (auto f = CheckResourceGroups(s, cq.resource_groups, what, true, cq.cohort >= 0, &totals)) {
      return placed(Object::kClusterQueue, i, *f);
    }
  }
  {
    absl::flat_hash_set<std::pair<std::string_view, std::string_view>> seen;
    for (size_t l = 0; l < s.local_queues.size(); ++l) {
      const LocalQueue& lq = s.local_queues[l];
      const int i = static_cast<int>(l);
      if (auto f = CheckLocalQueueName(lq)) return placed(Object::kLocalQueue, i, *f);
      if (lq.cluster_queue < 0 || static_cast<size_t>(lq.cluster_queue) >= s.cluster_queues.size()) {
        return placed(Object::kLocalQueue, i, Fault(FaultKind::kUnknown, FaultField::kClusterQueue,
                                                    Cat("local queue `", lq.namespace_name, "/", lq.name,
                                                        "` names an unknown cluster queue")));
      }
      if (!seen.emplace(lq.namespace_name, lq.name).second) {
        return placed(Object::kLocalQueue, i, Fault(FaultKind::kDuplicate, FaultField::kName,
                                                    Cat("local queue `", lq.namespace_name, "/", lq.name,
                                                        "` is declared twice")));
      }
    }
  }
  if (std::string error = QuotaCellsError(s, max_quota_cells); !error.empty()) {
    return placed(Object::kEngine, -1, Fault(FaultKind::kRefused, FaultField::kObject, error));
  }
  return std::nullopt;
}

}  // namespace charter::internal::schedule
