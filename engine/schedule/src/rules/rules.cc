// Scheduling rules over the VM: charter::schedule::SchedulingRules and the
// cycle's questions (cycle/rules_hook.h) answered by running the forbid
// rules of compiled policy sets.
//
// Each cycle builds its entities in a store of its own laid over the
// caller's entities (EntityStore::Overlay), lazily: a cluster queue, its
// cohorts, a workload with its requests and annotations are added the first
// time a question names them, so a cycle over 10,000 pending workloads
// builds the few hundred its heads and victims need. Questions whose answer
// cannot change within the cycle (may this admitted workload be a victim;
// may this head preempt that one, for this reason) are answered once.
#include <cmath>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "charter/engine.h"
#include "charter/entities.h"
#include "charter/schedule.h"
#include "common/arena.h"
#include "common/strings.h"
#include "cycle/quantity.h"
#include "cycle/rules_hook.h"
#include "cycle/snapshot.h"
#include "cycle/tree.h"
#include "entities/entity_store.h"
#include "rules/rules.h"
#include "rules/schema_names.h"
#include "unwrap/unwrap.h"
#include "value/value.h"
#include "vm/program.h"
#include "vm/scope_index.h"
#include "vm/vm.h"

namespace charter {
namespace internal::schedule {
namespace {

using ::charter::schedule::PreemptionReason;
using ::charter::schedule::State;
using ::charter::schedule::Workload;
namespace names = ::charter::internal::schedule::names;

// What one program keeps between the questions of a cycle.
struct ProgramScratch {
  std::shared_ptr<const Program> program;
  StoreBinding binding;
  ScopeScratch scope;
  std::vector<uint32_t> candidates;
  Arena arena;
  EvalError failure;
};

class Rules final : public RuleSet {
 public:
  Rules(std::vector<std::shared_ptr<const Program>> programs, std::shared_ptr<const EntityStore> base)
      : programs_(std::move(programs)), base_(std::move(base)) {}
  std::unique_ptr<CycleRules> Begin(const Snapshot& snapshot) const override;
  const std::vector<std::shared_ptr<const Program>>& programs() const { return programs_; }
  const std::shared_ptr<const EntityStore>& base() const { return base_; }

 private:
  std::vector<std::shared_ptr<const Program>> programs_;
  std::shared_ptr<const EntityStore> base_;  // may be null
};

class Cycle final : public CycleRules {
 public:
  Cycle(const Rules& rules, const Snapshot& snapshot);

  // Builds every entity the cycle could need (BuildCycleEntities).
  std::shared_ptr<const EntityStore> BuildAll() {
    for (size_t q = 0; q < queue_uid_.size(); ++q) QueueUid(static_cast<int>(q));
    for (size_t c = 0; c < cohort_uid_.size(); ++c) CohortUid(static_cast<int>(c));
    for (const WorkloadInfo& w : snapshot_.pending()) PendingUid(w);
    for (size_t a = 0; a < admitted_uid_.size(); ++a) AdmittedUid(static_cast<int>(a));
    return store_view_;
  }

  bool MayAdmit(const WorkloadInfo& head, const AdmitFacts& facts) override;
  bool MayBorrow(const WorkloadInfo& head, const BorrowFacts& facts) override;
  bool MayPreempt(const WorkloadInfo& preemptor, int admitted, PreemptionReason reason) override;
  bool MayEvict(int admitted) override;
  const std::vector<Refusal>& refusals() const override { return refusals_; }

 private:
  enum ActionIndex { kAdmit, kBorrow, kPreempt, kEvict };
  // A remembered answer: refusals_ [begin, begin + size) of saved_.
  struct Saved {
    uint32_t begin = 0;
    uint32_t size = 0;
  };

  // Runs every forbid rule whose scope matches; fills refusals_.
  bool Ask(uint32_t principal, ActionIndex action, uint32_t resource, const Value& context);
  Saved Save() {
    Saved s{static_cast<uint32_t>(saved_.size()), static_cast<uint32_t>(refusals_.size())};
    saved_.insert(saved_.end(), refusals_.begin(), refusals_.end());
    return s;
  }
  bool Restore(Saved s) {
    refusals_.assign(saved_.begin() + s.begin, saved_.begin() + s.begin + s.size);
    return s.size == 0;
  }

  // The entities, built on first use; each returns its uid in store_.
  uint32_t CohortUid(int cohort);
  uint32_t QueueUid(int queue);
  uint32_t WorkloadUid(const Workload& w, int queue, bool admitted);
  uint32_t PendingUid(const WorkloadInfo& info);
  uint32_t AdmittedUid(int admitted);
  uint32_t NamedUid(absl::flat_hash_map<std::string_view, uint32_t>* built, std::string_view type,
                    std::string_view name, const Value* value);
  void Add(const EntityRef* self, std::span<const RecordField> attrs, Value tags, std::span<const uint32_t> parents);
  Value String(std::string_view s) { return Value::String(s); }
  Value Entity(uint32_t uid) { return Value::Entity(&store_->ref(uid)); }
  Value Context(std::span<const RecordField> fields) { return store_->Record(fields, true); }

  const Rules& rules_;
  const Snapshot& snapshot_;
  const State& state_;
  std::shared_ptr<EntityStore> store_;
  std::shared_ptr<const EntityStore> store_view_;  // the same store, as the VM takes it
  std::vector<ProgramScratch> programs_;
  const EntityRef* actions_[4];
  uint64_t action_hashes_[4];
  std::vector<uint32_t> cohort_uid_, queue_uid_, pending_uid_, admitted_uid_;
  absl::flat_hash_map<std::string_view, uint32_t> namespaces_, priority_classes_;
  std::vector<Refusal> refusals_, saved_;
  std::deque<std::string> errors_;  // the messages refusals point into
  std::vector<int> evict_;          // admitted -> -1 not asked, else an index into evict_saved_
  std::vector<Saved> evict_saved_;
  absl::flat_hash_map<uint64_t, Saved> preempt_saved_;  // (preemptor, victim, reason)
  std::vector<RecordField> fields_;                     // reused while building
};

std::unique_ptr<CycleRules> Rules::Begin(const Snapshot& snapshot) const {
  return std::make_unique<Cycle>(*this, snapshot);
}

Cycle::Cycle(const Rules& rules, const Snapshot& snapshot)
    : rules_(rules), snapshot_(snapshot), state_(snapshot.state()) {
  store_ = std::shared_ptr<EntityStore>(EntityStore::Overlay(rules.base()));
  store_view_ = store_;
  // Every key a record of this cycle has, interned before any program is
  // bound to the store, so that bindings stay valid as entities are added.
  for (std::string_view key : names::kRecordKeys) store_->InternKey(key);
  static constexpr std::string_view kActions[4] = {names::kAdmit, names::kBorrow, names::kPreempt, names::kEvict};
  for (int a = 0; a < 4; ++a) {
    actions_[a] = store_->Ref(names::kActionType, kActions[a]);
    action_hashes_[a] = actions_[a]->key_hash;
  }
  programs_.resize(rules.programs().size());
  for (size_t p = 0; p < programs_.size(); ++p) programs_[p].program = rules.programs()[p];
  cohort_uid_.assign(state_.cohorts.size(), kNoUid);
  queue_uid_.assign(state_.cluster_queues.size(), kNoUid);
  pending_uid_.assign(snapshot.pending().size(), kNoUid);
  admitted_uid_.assign(snapshot.admitted().size(), kNoUid);
  evict_.assign(snapshot.admitted().size(), -1);
}

void Cycle::Add(const EntityRef* self, std::span<const RecordField> attrs, Value tags,
                std::span<const uint32_t> parents) {
  // INVARIANT: `self` is new in this store and its parents are built, so
  // Add cannot refuse it.
  absl::Status added = store_->Add(self, store_->Record(attrs, true), tags, parents);
  (void)added;
}

uint32_t Cycle::CohortUid(int cohort) {
  if (cohort_uid_[cohort] != kNoUid) return cohort_uid_[cohort];
  // Parents first, with an explicit walk up (cohort chains are acyclic:
  // RunCycle's Validate).
  std::vector<int> chain;
  for (int c = cohort; c >= 0 && cohort_uid_[c] == kNoUid; c = state_.cohorts[c].parent) chain.push_back(c);
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    const int c = *it;
    const int parent = state_.cohorts[c].parent;
    std::vector<RecordField> attrs = {{names::kName, String(state_.cohorts[c].name)}};
    std::vector<uint32_t> parents;
    if (parent >= 0) {
      attrs.push_back({names::kParent, Entity(cohort_uid_[parent])});
      parents.push_back(cohort_uid_[parent]);
    }
    const EntityRef* self = store_->Ref(names::kCohortType, state_.cohorts[c].name);
    Add(self, attrs, Value::Record(nullptr, 0), parents);
    cohort_uid_[c] = self->uid;
  }
  return cohort_uid_[cohort];
}

uint32_t Cycle::QueueUid(int queue) {
  if (queue_uid_[queue] != kNoUid) return queue_uid_[queue];
  const ::charter::schedule::ClusterQueue& q = state_.cluster_queues[queue];
  std::vector<RecordField> attrs = {
      {names::kName, String(q.name)},
      {names::kQueueingStrategy,
       String(q.queueing_strategy == ::charter::schedule::QueueingStrategy::kStrictFIFO ? "StrictFIFO"
                                                                                        : "BestEffortFIFO")},
      {names::kFairWeight, Value::Ext(Type::kDecimal, std::llround(q.fair_weight * 10000.0))},
  };
  std::vector<uint32_t> parents;
  if (q.cohort >= 0) {
    const uint32_t c = CohortUid(q.cohort);
    attrs.push_back({names::kCohort, Entity(c)});
    parents.push_back(c);
  }
  if (!q.implements.empty()) {
    // The entity of the typed model the queue stands for: an attribute, and
    // a parent, so that the queue (and its workloads) are `in` it and in
    // its ancestors in the caller's entities.
    if (absl::StatusOr<EntityUid> uid = EntityUid::Parse(q.implements); uid.ok()) {
      const EntityRef* e = store_->Ref(uid->type, uid->id);
      attrs.push_back({names::kImplements, Value::Entity(e)});
      parents.push_back(e->uid);
    }
  }
  const EntityRef* self = store_->Ref(names::kQueueType, q.name);
  Add(self, attrs, Value::Record(nullptr, 0), parents);
  queue_uid_[queue] = self->uid;
  return self->uid;
}

uint32_t Cycle::NamedUid(absl::flat_hash_map<std::string_view, uint32_t>* built, std::string_view type,
                         std::string_view name, const Value* value) {
  auto it = built->find(name);
  if (it != built->end()) return it->second;
  std::vector<RecordField> attrs = {{names::kName, String(name)}};
  if (value != nullptr) attrs.push_back({names::kValue, *value});
  const EntityRef* self = store_->Ref(type, name);
  Add(self, attrs, Value::Record(nullptr, 0), {});
  built->emplace(name, self->uid);
  return self->uid;
}

uint32_t Cycle::WorkloadUid(const Workload& w, int queue, bool admitted) {
  const uint32_t queue_uid = QueueUid(queue);
  std::vector<uint32_t> parents = {queue_uid};
  std::vector<RecordField> attrs = {
      {names::kName, String(w.name)},
      {names::kQueue, Entity(queue_uid)},
      {names::kPriority, Value::Long(w.priority)},
      {names::kAdmitted, Value::Bool(admitted)},
  };
  if (!w.namespace_name.empty()) {
    const uint32_t ns = NamedUid(&namespaces_, names::kNamespaceType, w.namespace_name, nullptr);
    attrs.push_back({names::kNamespace, Entity(ns)});
    parents.push_back(ns);
  }
  if (!w.priority_class.empty()) {
    int64_t value = w.priority;
    for (const ::charter::schedule::PriorityClass& pc : state_.priority_classes) {
      if (pc.name == w.priority_class) value = pc.value;
    }
    const Value v = Value::Long(value);
    attrs.push_back(
        {names::kPriorityClass, Entity(NamedUid(&priority_classes_, names::kPriorityClassType, w.priority_class, &v))});
  }
  // The governance model's workload type and data classification, from a
  // label (or else an annotation) when it holds one of the model's values.
  auto classify = [&](std::string_view key, std::string_view type, std::span<const std::string_view> values,
                      std::string_view attr) {
    const std::string* found = nullptr;
    for (const auto* list : {&w.labels, &w.annotations}) {
      for (const auto& [k, v] : *list) {
        if (found == nullptr && k == key) found = &v;
      }
    }
    if (found == nullptr) return;
    for (std::string_view value : values) {
      if (value == *found) attrs.push_back({attr, Value::Entity(store_->Ref(type, value))});
    }
  };
  classify(names::kWorkloadTypeLabel, names::kWorkloadTypeType, names::kWorkloadTypes, names::kWorkloadType);
  classify(names::kDataClassificationLabel, names::kDataClassificationType, names::kDataClassifications,
           names::kDataClassification);
  // Requests per resource, summed over the pod sets (count × per pod), in
  // Kueue's units; and the pods.
  fields_.clear();
  int64_t pods = 0;
  for (const ::charter::schedule::PodSet& ps : w.pod_sets) {
    pods = SatAdd(pods, ps.count);
    for (const ::charter::schedule::Request& r : ps.requests) {
      const std::string_view resource = state_.resources[r.resource];
      const int64_t amount = SatMul(ps.count, r.per_pod);
      bool merged = false;
      for (RecordField& f : fields_) {
        if (f.key == resource) {
          f.value = Value::Long(SatAdd(f.value.i, amount));
          merged = true;
        }
      }
      if (!merged) fields_.push_back({resource, Value::Long(amount)});
    }
  }
  const EntityRef* requests = store_->Ref(names::kRequestsType, w.name);
  Add(requests, {}, store_->Record(fields_, false), {});
  attrs.push_back({names::kRequests, Value::Entity(requests)});
  attrs.push_back({names::kPods, Value::Long(pods)});
  auto tags = [&](const std::vector<std::pair<std::string, std::string>>& list) {
    fields_.clear();
    for (const auto& [k, v] : list) fields_.push_back({k, String(v)});
    return store_->Record(fields_, false);
  };
  const EntityRef* annotations = store_->Ref(names::kAnnotationsType, w.name);
  Add(annotations, {}, tags(w.annotations), {});
  attrs.push_back({names::kAnnotations, Value::Entity(annotations)});
  const EntityRef* self = store_->Ref(names::kWorkloadEntityType, w.name);
  Add(self, attrs, tags(w.labels), parents);
  return self->uid;
}

uint32_t Cycle::PendingUid(const WorkloadInfo& info) {
  const size_t i = static_cast<size_t>(&info - snapshot_.pending().data());
  if (pending_uid_[i] == kNoUid) pending_uid_[i] = WorkloadUid(*info.workload, info.cluster_queue, false);
  return pending_uid_[i];
}

uint32_t Cycle::AdmittedUid(int admitted) {
  if (admitted_uid_[admitted] == kNoUid) {
    const WorkloadInfo& info = snapshot_.admitted()[admitted];
    admitted_uid_[admitted] = WorkloadUid(*info.workload, info.cluster_queue, true);
  }
  return admitted_uid_[admitted];
}

bool Cycle::Ask(uint32_t principal, ActionIndex action, uint32_t resource, const Value& context) {
  refusals_.clear();
  const EntityStore& store = *store_;
  Environment env;
  ScopeKeys keys;
  const uint32_t uids[3] = {principal, kNoUid, resource};
  for (int v = 0; v < 3; ++v) {
    const EntityRef* ref = v == 1 ? actions_[action] : &store.ref(uids[v]);
    keys.refs[v] = ref;
    keys.hashes[v] = ref->key_hash;
    env.vars[v] = Value::Entity(ref);
  }
  env.vars[3] = context;
  env.store = &store;
  // One budget for the walks of all the rules asked about this admission.
  WalkBudget work(programs_.empty() ? 0 : programs_.front().program->limits().max_decision_work);
  env.work = &work;
  for (ProgramScratch& p : programs_) {
    env.binding = p.binding.Prepare(p.program, store_view_);
    p.program->scope_index().Candidates(keys, store, &p.scope, &p.candidates);
    p.arena.Reset();
    const std::vector<PolicyCode>& policies = p.program->policies();
    for (uint32_t c : p.candidates) {
      const PolicyCode& policy = policies[c];
      // The cycle's own decision is the permit; only forbids can change it.
      if (!policy.forbid) continue;
      switch (Run(*p.program, policy, env, &p.arena, &p.failure)) {
        case Outcome::kTrue:
          refusals_.push_back({policy.id, {}});
          break;
        case Outcome::kFalse:
          break;
        case Outcome::kError:
          errors_.push_back(p.failure.message);
          refusals_.push_back({policy.id, errors_.back()});
          break;
      }
    }
  }
  return refusals_.empty();
}

bool Cycle::MayAdmit(const WorkloadInfo& head, const AdmitFacts& facts) {
  const uint32_t principal = PendingUid(head);
  std::vector<Value> flavors;
  for (int f : facts.flavors) flavors.push_back(String(state_.flavors[f]));
  Value* elements = store_->arena().AllocateArray<Value>(flavors.size());
  for (size_t i = 0; i < flavors.size(); ++i) elements[i] = flavors[i];
  const RecordField context[] = {
      {names::kBorrowing, Value::Bool(facts.borrowing)},
      {names::kPreempting, Value::Bool(facts.preempting)},
      {names::kFlavors, Value::Set(elements, static_cast<uint32_t>(flavors.size()))},
  };
  return Ask(principal, kAdmit, QueueUid(head.cluster_queue), Context(context));
}

bool Cycle::MayBorrow(const WorkloadInfo& head, const BorrowFacts& facts) {
  const uint32_t principal = PendingUid(head);
  const Tree& tree = snapshot_.tree();
  fields_.clear();
  fields_.push_back({names::kFlavor, String(state_.flavors[tree.flavor_of(facts.fr)])});
  fields_.push_back({names::kResource, String(state_.resources[tree.resource_of(facts.fr)])});
  fields_.push_back({names::kRequested, Value::Long(facts.requested)});
  fields_.push_back({names::kUsage, Value::Long(facts.usage)});
  fields_.push_back({names::kNominal, Value::Long(facts.nominal)});
  fields_.push_back({names::kBorrowed, Value::Long(facts.borrowed)});
  fields_.push_back({names::kLevel, Value::Long(facts.level)});
  fields_.push_back({names::kFairSharing, Value::Bool(facts.fair_sharing)});
  if (facts.borrowing_limit != kUnset) fields_.push_back({names::kBorrowingLimit, Value::Long(facts.borrowing_limit)});
  if (facts.fair_sharing) {
    fields_.push_back({names::kShare, Value::Long(facts.share)});
    fields_.push_back({names::kAverageShare, Value::Long(facts.average_share)});
  }
  const Value context = Context(fields_);
  return Ask(principal, kBorrow, QueueUid(head.cluster_queue), context);
}

bool Cycle::MayPreempt(const WorkloadInfo& preemptor, int admitted, PreemptionReason reason) {
  const uint64_t pending = static_cast<uint64_t>(&preemptor - snapshot_.pending().data());
  const uint64_t key = (pending << 34) | (static_cast<uint64_t>(admitted) << 2) | static_cast<uint64_t>(reason);
  if (auto it = preempt_saved_.find(key); it != preempt_saved_.end()) return Restore(it->second);
  const RecordField context[] = {{names::kReason, String(::charter::schedule::ReasonName(reason))}};
  Ask(PendingUid(preemptor), kPreempt, AdmittedUid(admitted), Context(context));
  const Saved saved = Save();
  preempt_saved_.emplace(key, saved);
  return saved.size == 0;
}

bool Cycle::MayEvict(int admitted) {
  if (evict_[admitted] >= 0) return Restore(evict_saved_[evict_[admitted]]);
  const uint32_t principal = AdmittedUid(admitted);
  Ask(principal, kEvict, QueueUid(snapshot_.admitted()[admitted].cluster_queue), Context({}));
  evict_[admitted] = static_cast<int>(evict_saved_.size());
  evict_saved_.push_back(Save());
  return evict_saved_.back().size == 0;
}

}  // namespace

std::shared_ptr<const EntityStore> BuildCycleEntities(const ::charter::schedule::State& state,
                                                      std::shared_ptr<const EntityStore> base) {
  const Snapshot snapshot(state);
  const Rules rules({}, std::move(base));
  Cycle cycle(rules, snapshot);
  return cycle.BuildAll();
}

}  // namespace internal::schedule

namespace schedule {

SchedulingRules::SchedulingRules() = default;

absl::StatusOr<SchedulingRules> SchedulingRules::Create(const std::vector<Engine>& engines, const Entities* entities) {
  std::vector<std::shared_ptr<const internal::Program>> programs;
  std::vector<std::string> ids, ignored;
  absl::flat_hash_set<std::string_view> seen;
  for (const Engine& engine : engines) {
    const std::shared_ptr<const internal::Program>& program = internal::Unwrap::SharedProgram(engine);
    const size_t rules_before = ids.size();
    for (const internal::PolicyCode& p : program->policies()) {
      if (!seen.insert(p.id).second) {
        return absl::InvalidArgumentError(internal::Cat("two scheduling rules have the id `", p.id, "`"));
      }
      // Whether its scope names a scheduling action (or no action at all).
      const internal::PolicyScope scope = internal::AnalyzeScope(*program, p);
      bool names_action = false, names_scheduling = false;
      auto look = [&](const internal::ScopeTest& t) {
        if (t.var != 1 || t.op == internal::ScopeTest::kIs) return;
        names_action = true;
        names_scheduling = names_scheduling || t.type == internal::schedule::names::kActionType;
      };
      for (const internal::ScopeTest& t : scope.all) look(t);
      for (const auto& group : scope.any_of) {
        for (const internal::ScopeTest& t : group) look(t);
      }
      if (p.forbid && (names_scheduling || !names_action)) ids.emplace_back(p.id);
      if (!p.forbid && names_scheduling) ignored.emplace_back(p.id);
    }
    // A policy set without a rule (authorization policies only, or only
    // declarations) is never asked: the cycle would search its scope index
    // at every decision point for nothing.
    if (ids.size() > rules_before) programs.push_back(program);
  }
  if (programs.empty()) return RulesAccess::Make(nullptr, {}, std::move(ignored));
  std::shared_ptr<const internal::EntityStore> base;
  if (entities != nullptr) base = internal::Unwrap::SharedStore(*entities);
  return RulesAccess::Make(std::make_shared<const internal::schedule::Rules>(std::move(programs), std::move(base)),
                           std::move(ids), std::move(ignored));
}

std::vector<std::string> SchedulingRules::rule_ids() const { return rule_ids_; }
std::vector<std::string> SchedulingRules::ignored_permits() const { return ignored_permits_; }
bool SchedulingRules::empty() const { return impl_ == nullptr; }

}  // namespace schedule
}  // namespace charter
