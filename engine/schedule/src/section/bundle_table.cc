// The scheduling configuration in a bundle (bundle_table.h).
#include "section/bundle_table.h"

#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "common/status_macros.h"
#include "common/strings.h"
#include "common/utf8.h"
#include "cycle/config_check.h"
#include "flatbuffers/flatbuffers.h"
#include "section_fb/scheduling_generated.h"

namespace charter::internal::schedule {
namespace {

namespace sched = ::charter::schedule;
using flatbuffers::FlatBufferBuilder;
using flatbuffers::Offset;

Offset<flatbuffers::Vector<Offset<fb::SchedResourceGroup>>> WriteGroups(FlatBufferBuilder& fbb,
                                                                       const std::vector<sched::ResourceGroup>& groups) {
  std::vector<Offset<fb::SchedResourceGroup>> out;
  out.reserve(groups.size());
  for (const sched::ResourceGroup& g : groups) {
    std::vector<uint32_t> covered(g.covered_resources.begin(), g.covered_resources.end());
    std::vector<Offset<fb::SchedFlavorQuotas>> flavors;
    for (const sched::FlavorQuotas& f : g.flavors) {
      std::vector<fb::SchedQuota> quotas;
      for (const sched::ResourceQuota& q : f.resources) {
        uint8_t limits = (q.borrowing_limit.has_value() ? 1 : 0) | (q.lending_limit.has_value() ? 2 : 0);
        quotas.emplace_back(static_cast<uint32_t>(q.resource), limits, q.nominal, q.borrowing_limit.value_or(0),
                            q.lending_limit.value_or(0));
      }
      flavors.push_back(fb::CreateSchedFlavorQuotas(fbb, static_cast<uint32_t>(f.flavor), fbb.CreateVectorOfStructs(quotas)));
    }
    // One offset a statement: as arguments of one call they would be written
    // in the order the compiler chose (the bundle's bytes would depend on it).
    auto flavors_vec = fbb.CreateVector(flavors);
    auto covered_vec = fbb.CreateVector(covered);
    out.push_back(fb::CreateSchedResourceGroup(fbb, covered_vec, flavors_vec));
  }
  return fbb.CreateVector(out);
}

Offset<flatbuffers::Vector<Offset<flatbuffers::String>>> WriteNames(FlatBufferBuilder& fbb,
                                                                   const std::vector<std::string>& names) {
  std::vector<Offset<flatbuffers::String>> out;
  out.reserve(names.size());
  for (const std::string& n : names) out.push_back(fbb.CreateString(n));
  return fbb.CreateVector(out);
}

absl::Status Bad(std::string_view what) { return absl::InvalidArgumentError(Cat("scheduling: ", what)); }

// A string of the table, checked for UTF-8.
absl::StatusOr<std::string> Text(const flatbuffers::String* s, std::string_view what) {
  if (s == nullptr) return std::string();
  std::string_view v = s->string_view();
  if (FindInvalidUtf8(v) != std::string_view::npos) return Bad(Cat(what, " is not valid UTF-8"));
  return std::string(v);
}

template <typename E>
absl::StatusOr<E> Enum(uint8_t value, uint8_t last, std::string_view what) {
  if (value > last) return Bad(Cat("unknown ", what, " ", static_cast<int>(value)));
  return static_cast<E>(value);
}

absl::Status ReadGroups(const flatbuffers::Vector<Offset<fb::SchedResourceGroup>>* groups, const sched::State& s,
                        std::string_view what, std::vector<sched::ResourceGroup>* out) {
  if (groups == nullptr) return absl::OkStatus();
  const size_t num_resources = s.resources.size();
  const size_t num_flavors = s.flavors.size();
  out->reserve(groups->size());
  for (const fb::SchedResourceGroup* g : *groups) {
    sched::ResourceGroup group;
    if (g->covered_resources() != nullptr) {
      group.covered_resources.reserve(g->covered_resources()->size());
      for (uint32_t r : *g->covered_resources()) {
        if (r >= num_resources) return Bad(Cat(what, ": a covered resource out of range"));
        group.covered_resources.push_back(static_cast<int>(r));
      }
    }
    if (g->flavors() != nullptr) {
      group.flavors.reserve(g->flavors()->size());
      for (const fb::SchedFlavorQuotas* f : *g->flavors()) {
        if (f->flavor() >= num_flavors) return Bad(Cat(what, ": a flavor out of range"));
        sched::FlavorQuotas fq;
        fq.flavor = static_cast<int>(f->flavor());
        if (f->quotas() != nullptr) {
          fq.resources.reserve(f->quotas()->size());
          for (const fb::SchedQuota* q : *f->quotas()) {
            if (q->resource() >= num_resources) return Bad(Cat(what, ": a quota's resource out of range"));
            if (q->limits() > 3) return Bad(Cat(what, ": a quota's limits are malformed"));
            sched::ResourceQuota rq;
            rq.resource = static_cast<int>(q->resource());
            rq.nominal = q->nominal();
            if (q->limits() & 1) rq.borrowing_limit = q->borrowing_limit();
            if (q->limits() & 2) rq.lending_limit = q->lending_limit();
            fq.resources.push_back(rq);
          }
        }
        group.flavors.push_back(std::move(fq));
      }
    }
    out->push_back(std::move(group));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::string>> Names(const flatbuffers::Vector<Offset<flatbuffers::String>>* names,
                                               std::string_view what) {
  std::vector<std::string> out;
  if (names == nullptr) return out;
  out.reserve(names->size());
  for (const flatbuffers::String* n : *names) {
    ASSIGN_OR_RETURN(std::string name, Text(n, what));
    out.push_back(std::move(name));
  }
  return out;
}

Offset<fb::Scheduling> WriteSchedulingTable(FlatBufferBuilder& fbb, const sched::State& s) {
  std::vector<uint8_t> strategies;
  for (sched::FairSharingStrategy st : s.engine.fair_sharing_strategies) strategies.push_back(static_cast<uint8_t>(st));
  auto strategies_vec = fbb.CreateVector(strategies);
  auto flavors = WriteNames(fbb, s.flavors);
  auto resources = WriteNames(fbb, s.resources);
  std::vector<Offset<fb::SchedCohort>> cohorts;
  for (const sched::Cohort& c : s.cohorts) {
    auto name = fbb.CreateString(c.name);
    auto groups = WriteGroups(fbb, c.resource_groups);
    cohorts.push_back(fb::CreateSchedCohort(fbb, name, c.parent, groups, c.fair_weight));
  }
  auto cohorts_vec = fbb.CreateVector(cohorts);
  std::vector<Offset<fb::SchedClusterQueue>> queues;
  queues.reserve(s.cluster_queues.size());
  for (const sched::ClusterQueue& q : s.cluster_queues) {
    auto name = fbb.CreateString(q.name);
    auto groups = WriteGroups(fbb, q.resource_groups);
    auto implements = q.implements.empty() ? 0 : fbb.CreateString(q.implements);
    const sched::Preemption& p = q.preemption;
    const sched::FlavorFungibility& f = q.flavor_fungibility;
    queues.push_back(fb::CreateSchedClusterQueue(
        fbb, name, q.cohort, static_cast<uint8_t>(q.queueing_strategy), groups,
        static_cast<uint8_t>(p.within_cluster_queue), static_cast<uint8_t>(p.reclaim_within_cohort),
        static_cast<uint8_t>(p.borrow_within_cohort), p.max_priority_threshold.has_value(),
        p.max_priority_threshold.value_or(0), static_cast<uint8_t>(f.when_can_borrow),
        static_cast<uint8_t>(f.when_can_preempt), static_cast<uint8_t>(f.preference), q.fair_weight, implements));
  }
  auto queues_vec = fbb.CreateVector(queues);
  std::vector<Offset<fb::SchedPriorityClass>> classes;
  for (const sched::PriorityClass& c : s.priority_classes) {
    classes.push_back(fb::CreateSchedPriorityClass(fbb, fbb.CreateString(c.name), c.value));
  }
  auto classes_vec = fbb.CreateVector(classes);
  std::vector<Offset<fb::SchedLocalQueue>> locals;
  for (const sched::LocalQueue& l : s.local_queues) {
    auto ns = l.namespace_name.empty() ? 0 : fbb.CreateString(l.namespace_name);
    locals.push_back(fb::CreateSchedLocalQueue(fbb, ns, fbb.CreateString(l.name), static_cast<uint32_t>(l.cluster_queue)));
  }
  auto locals_vec = fbb.CreateVector(locals);
  Offset<flatbuffers::Vector<const fb::SchedCapacity*>> capacities_vec = 0;
  if (!s.capacities.empty()) {
    std::vector<fb::SchedCapacity> capacities;
    for (const sched::FlavorCapacity& c : s.capacities) {
      capacities.emplace_back(static_cast<uint32_t>(c.flavor), static_cast<uint32_t>(c.resource), c.amount);
    }
    capacities_vec = fbb.CreateVectorOfStructs(capacities);
  }
  return fb::CreateScheduling(fbb, s.engine.fair_sharing, strategies_vec, flavors, resources, cohorts_vec, queues_vec,
                              classes_vec, locals_vec, capacities_vec);
}

absl::StatusOr<sched::State> ReadSchedulingTable(const fb::Scheduling& t) {
  sched::State s;
  s.engine.fair_sharing = t.fair_sharing();
  if (t.fair_sharing_strategies() != nullptr && t.fair_sharing_strategies()->size() > 0) {
    s.engine.fair_sharing_strategies.clear();
    for (uint8_t v : *t.fair_sharing_strategies()) {
      ASSIGN_OR_RETURN(sched::FairSharingStrategy st, Enum<sched::FairSharingStrategy>(v, 1, "fair-sharing strategy"));
      s.engine.fair_sharing_strategies.push_back(st);
    }
  }
  ASSIGN_OR_RETURN(s.flavors, Names(t.flavors(), "a flavor name"));
  ASSIGN_OR_RETURN(s.resources, Names(t.resources(), "a resource name"));
  if (t.capacities() != nullptr) {
    s.capacities.reserve(t.capacities()->size());
    for (const fb::SchedCapacity* c : *t.capacities()) {
      if (c->flavor() >= s.flavors.size() || c->resource() >= s.resources.size()) {
        return Bad("a flavor's capacity: flavor or resource out of range");
      }
      s.capacities.push_back({static_cast<int>(c->flavor()), static_cast<int>(c->resource()), c->amount()});
    }
  }
  const int num_cohorts = t.cohorts() == nullptr ? 0 : static_cast<int>(t.cohorts()->size());
  std::string what;  // "cohort `name`", "cluster queue `name`" for the messages: one buffer for all
  if (t.cohorts() != nullptr) {
    s.cohorts.reserve(t.cohorts()->size());
    for (const fb::SchedCohort* c : *t.cohorts()) {
      sched::Cohort cohort;
      ASSIGN_OR_RETURN(cohort.name, Text(c->name(), "a cohort name"));
      if (c->parent() < -1 || c->parent() >= num_cohorts) return Bad(Cat("cohort `", cohort.name, "`: parent out of range"));
      cohort.parent = c->parent();
      cohort.fair_weight = c->fair_weight();
      what.clear();
      CatAppend(&what, "cohort `", cohort.name, "`");
      RETURN_IF_ERROR(ReadGroups(c->resource_groups(), s, what, &cohort.resource_groups));
      s.cohorts.push_back(std::move(cohort));
    }
  }
  if (t.cluster_queues() != nullptr) {
    s.cluster_queues.reserve(t.cluster_queues()->size());
    for (const fb::SchedClusterQueue* q : *t.cluster_queues()) {
      sched::ClusterQueue cq;
      ASSIGN_OR_RETURN(cq.name, Text(q->name(), "a cluster queue name"));
      what.clear();
      CatAppend(&what, "cluster queue `", cq.name, "`");
      if (q->cohort() < -1 || q->cohort() >= num_cohorts) return Bad(Cat(what, ": cohort out of range"));
      cq.cohort = q->cohort();
      ASSIGN_OR_RETURN(cq.queueing_strategy,
                       Enum<sched::QueueingStrategy>(q->queueing_strategy(), 1, "queueing strategy"));
      RETURN_IF_ERROR(ReadGroups(q->resource_groups(), s, what, &cq.resource_groups));
      ASSIGN_OR_RETURN(cq.preemption.within_cluster_queue,
                       Enum<sched::PreemptionPolicy>(q->within_cluster_queue(), 3, "preemption policy"));
      ASSIGN_OR_RETURN(cq.preemption.reclaim_within_cohort,
                       Enum<sched::PreemptionPolicy>(q->reclaim_within_cohort(), 3, "preemption policy"));
      ASSIGN_OR_RETURN(cq.preemption.borrow_within_cohort,
                       Enum<sched::PreemptionPolicy>(q->borrow_within_cohort(), 3, "preemption policy"));
      if (q->has_max_priority_threshold()) cq.preemption.max_priority_threshold = q->max_priority_threshold();
      ASSIGN_OR_RETURN(cq.flavor_fungibility.when_can_borrow,
                       Enum<sched::FungibilityPolicy>(q->when_can_borrow(), 1, "fungibility policy"));
      ASSIGN_OR_RETURN(cq.flavor_fungibility.when_can_preempt,
                       Enum<sched::FungibilityPolicy>(q->when_can_preempt(), 1, "fungibility policy"));
      ASSIGN_OR_RETURN(cq.flavor_fungibility.preference,
                       Enum<sched::FungibilityPreference>(q->preference(), 2, "fungibility preference"));
      cq.fair_weight = q->fair_weight();
      ASSIGN_OR_RETURN(cq.implements, Text(q->implements(), "an `implements` entity"));
      s.cluster_queues.push_back(std::move(cq));
    }
  }
  if (t.priority_classes() != nullptr) {
    s.priority_classes.reserve(t.priority_classes()->size());
    for (const fb::SchedPriorityClass* c : *t.priority_classes()) {
      sched::PriorityClass pc;
      ASSIGN_OR_RETURN(pc.name, Text(c->name(), "a priority class name"));
      pc.value = c->value();
      s.priority_classes.push_back(std::move(pc));
    }
  }
  if (t.local_queues() != nullptr) {
    s.local_queues.reserve(t.local_queues()->size());
    for (const fb::SchedLocalQueue* l : *t.local_queues()) {
      sched::LocalQueue lq;
      ASSIGN_OR_RETURN(lq.namespace_name, Text(l->namespace_(), "a local queue's namespace"));
      ASSIGN_OR_RETURN(lq.name, Text(l->name(), "a local queue name"));
      if (l->cluster_queue() >= s.cluster_queues.size()) {
        return Bad(Cat("local queue `", lq.name, "`: cluster queue out of range"));
      }
      lq.cluster_queue = static_cast<int>(l->cluster_queue());
      s.local_queues.push_back(std::move(lq));
    }
  }
  if (std::optional<PlacedFault> fault = CheckConfig(s, ::charter::schedule::kDefaultMaxQuotaCells)) {
    return Bad(fault->fault.message);
  }
  return s;
}

}  // namespace

std::string WriteSchedulingSection(const sched::State& state) {
  FlatBufferBuilder fbb;
  fb::FinishSchedulingBuffer(fbb, WriteSchedulingTable(fbb, state));
  return std::string(reinterpret_cast<const char*>(fbb.GetBufferPointer()), fbb.GetSize());
}

absl::StatusOr<sched::State> ReadSchedulingSection(std::string_view bytes) {
  if (bytes.size() < 8 || bytes.size() >= FLATBUFFERS_MAX_BUFFER_SIZE) return Bad("section too small or too large");
  // A section's bytes sit in the bundle at 4-byte alignment; its tables
  // hold 8-byte fields, so they are read from a copy aligned for them.
  auto words = std::make_unique<uint64_t[]>((bytes.size() + 7) / 8);
  std::memcpy(words.get(), bytes.data(), bytes.size());
  const auto* data = reinterpret_cast<const uint8_t*>(words.get());
  if (!fb::SchedulingBufferHasIdentifier(data)) return Bad("not a scheduling section (wrong file identifier)");
  flatbuffers::Verifier::Options vo;
  vo.check_alignment = true;
  flatbuffers::Verifier verifier(data, bytes.size(), vo);
  if (!fb::VerifySchedulingBuffer(verifier)) return Bad("corrupt structure");
  return ReadSchedulingTable(*fb::GetScheduling(data));
}

}  // namespace charter::internal::schedule
