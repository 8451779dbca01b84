// Scheduling: Kueue-compatible quota admission, borrowing, lending and
// preemption for team allocations. Authorization decides whether a task may be
// submitted; scheduling decides when it gets capacity.
//
// A State is the cluster at the start of one scheduling cycle: resource
// flavors, a tree of cohorts, cluster queues (one per team) with their quota,
// the workloads holding quota and the workloads waiting. RunCycle runs one
// Kueue scheduling cycle over it and says which pending workloads are
// admitted, which admitted ones are preempted and why, and why each other head
// stays pending, in words and numbers:
//
//   charter::schedule::LoadOptions options;
//   options.source_name = "state.json";
//   absl::StatusOr<charter::schedule::State> state = charter::schedule::LoadState(json_text, options);
//   absl::StatusOr<charter::schedule::CycleResult> r = charter::schedule::RunCycle(*state);
//   for (const auto& a : r->admitted) use(a.name, a.borrowing, a.message);
//
// ApplyCycle turns a state and its cycle's outcome into the next state, for
// simulations over many cycles (charter simulate).
//
// Names appear once, in the State's tables; everything else refers to them by
// index, so a cycle compares integers, never strings. Quantities are integers
// in Kueue's units: milli-units for `cpu`, whole units (rounded up) for every
// other resource. docs/scheduling.md describes the JSON format and the
// semantics with worked examples.
#ifndef CHARTER_SCHEDULE_H_
#define CHARTER_SCHEDULE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "charter/compiler.h"
#include "charter/diagnostics.h"
#include "charter/engine.h"
#include "charter/export.h"

namespace charter {
class Engine;
class Entities;
namespace internal::schedule {
class RuleSet;  // cycle/rules_hook.h
}  // namespace internal::schedule
}  // namespace charter

namespace charter::schedule {

// An amount of one resource; see the header comment for the units.
using Quantity = int64_t;

enum class QueueingStrategy : uint8_t { kBestEffortFIFO, kStrictFIFO };

// Which workloads a preemptor may evict (Kueue's PreemptionPolicy).
enum class PreemptionPolicy : uint8_t {
  kNever,
  kLowerPriority,
  kLowerOrNewerEqualPriority,
  kAny,
};

enum class FungibilityPolicy : uint8_t { kMayStopSearch, kTryNextFlavor };
enum class FungibilityPreference : uint8_t {
  kUnset,  // same as kBorrowingOverPreemption
  kBorrowingOverPreemption,
  kPreemptionOverBorrowing,
};

enum class FairSharingStrategy : uint8_t { kLessThanOrEqualToFinalShare, kLessThanInitialShare };

// The quota of one resource in one flavor.
struct ResourceQuota {
  int resource = 0;  // index into State::resources
  Quantity nominal = 0;
  std::optional<Quantity> borrowing_limit;  // unset: unlimited
  std::optional<Quantity> lending_limit;    // unset: lends everything
};

struct FlavorQuotas {
  int flavor = 0;  // index into State::flavors
  std::vector<ResourceQuota> resources;
};

// Resources that always get the same flavor, and the flavors in try order.
struct ResourceGroup {
  std::vector<int> covered_resources;
  std::vector<FlavorQuotas> flavors;
};

struct Preemption {
  PreemptionPolicy within_cluster_queue = PreemptionPolicy::kNever;
  PreemptionPolicy reclaim_within_cohort = PreemptionPolicy::kNever;
  // kNever or kLowerPriority (Kueue's borrowWithinCohort.policy).
  PreemptionPolicy borrow_within_cohort = PreemptionPolicy::kNever;
  std::optional<int64_t> max_priority_threshold;
};

struct FlavorFungibility {
  FungibilityPolicy when_can_borrow = FungibilityPolicy::kMayStopSearch;
  FungibilityPolicy when_can_preempt = FungibilityPolicy::kTryNextFlavor;
  FungibilityPreference preference = FungibilityPreference::kUnset;
};

struct Cohort {
  std::string name;
  int parent = -1;  // index into State::cohorts; -1 for a root
  std::vector<ResourceGroup> resource_groups;  // the cohort's own quota
  double fair_weight = 1.0;
};

struct ClusterQueue {
  std::string name;
  int cohort = -1;  // index into State::cohorts; -1: no cohort
  QueueingStrategy queueing_strategy = QueueingStrategy::kBestEffortFIFO;
  std::vector<ResourceGroup> resource_groups;
  Preemption preemption;
  FlavorFungibility flavor_fungibility;
  double fair_weight = 1.0;
  // Between cycles of a simulation: how many admitted workloads have left
  // the queue (Kueue's AllocatableResourceGeneration).
  int64_t generation = 0;
  // The entity of the typed model this queue implements, in Cedar's form
  // (`Governance::Allocation::"vision-west"`), so that authorization and
  // scheduling rules talk about the same thing; empty: none.
  std::string implements;
};

// A Kueue LocalQueue: the name under which a namespace's workloads enter a
// cluster queue (a Workload's spec.queueName).
struct LocalQueue {
  std::string namespace_name;
  std::string name;
  int cluster_queue = 0;  // index into State::cluster_queues
};

struct PriorityClass {
  std::string name;
  int64_t value = 0;
};

struct Request {
  int resource = 0;
  Quantity per_pod = 0;
  int flavor = -1;  // admitted workloads: the assigned flavor
};

struct PodSet {
  std::string name;
  int64_t count = 1;
  std::vector<Request> requests;  // per pod; usage is count × per_pod
};

// Times are seconds relative to the cycle (negative: before it).
struct Workload {
  std::string name;
  std::string uid;  // the last tie-breaker; the name unless set
  int cluster_queue = 0;
  int64_t priority = 0;
  // The priority class it named (its priority is the class's value); empty:
  // none.
  std::string priority_class;
  // Kueue's metadata.namespace; empty: not known.
  std::string namespace_name;
  // metadata.labels and metadata.annotations, sorted by key, for the
  // scheduling rules.
  std::vector<std::pair<std::string, std::string>> labels;
  std::vector<std::pair<std::string, std::string>> annotations;
  // Unset is Kueue's zero time, which sorts before every set time.
  std::optional<double> created_at;
  // Admitted workloads: when quota was reserved (unset: now).
  std::optional<double> quota_reserved_at;
  std::vector<PodSet> pod_sets;
  // Pending workloads, between cycles of a simulation: parked in the
  // queue's inadmissible set (BestEffortFIFO) until capacity is freed.
  bool inadmissible = false;
  // Pending workloads: issued preemptions in an earlier cycle and stays at
  // the head of a BestEffortFIFO queue until it is admitted.
  bool preempting = false;
  // Pending workloads, between cycles of a simulation: where the last flavor
  // search stopped (Kueue's FlavorFungibilityPreserveScanProgress). Per pod
  // set and per request (with the `pods` request a queue adds last), the
  // index in its resource group of the flavor the search stopped at, or -1
  // when it tried them all; empty: none recorded. The next search starts
  // after that flavor if it ran in the previous cycle, or if the queue's
  // generation has not changed since.
  std::vector<std::vector<int>> flavor_scan;
  int64_t flavor_scan_cycle = 0;
  int64_t flavor_scan_generation = 0;
};

struct EngineConfig {
  bool fair_sharing = false;
  std::vector<FairSharingStrategy> fair_sharing_strategies = {
      FairSharingStrategy::kLessThanOrEqualToFinalShare, FairSharingStrategy::kLessThanInitialShare};
};

// What a flavor's nodes hold of one resource, as the declarations say
// (`flavor F { capacity { R: QUANTITY; } }`, docs/scheduling.md). Kueue has no
// such field: the cycle ignores it, and an export to Kueue leaves it out;
// CompileDeclarations checks the nominal quotas against it (CH0811).
struct FlavorCapacity {
  int flavor = 0;    // index into State::flavors
  int resource = 0;  // index into State::resources
  Quantity amount = 0;
};

struct State {
  EngineConfig engine;
  std::vector<std::string> flavors;    // resource flavors
  std::vector<FlavorCapacity> capacities;  // declared capacities, by flavor then as written
  std::vector<std::string> resources;  // resource names seen anywhere
  std::vector<Cohort> cohorts;
  std::vector<ClusterQueue> cluster_queues;
  std::vector<PriorityClass> priority_classes;
  std::vector<LocalQueue> local_queues;
  std::vector<Workload> admitted;
  std::vector<Workload> pending;
  // Seconds since the first cycle of a simulation; 0 for a loaded state.
  double now = 0;
  // Cycles applied since the state was loaded.
  int64_t cycle = 0;
};

// The quota tree keeps, per node (cohort or cluster queue), one cell for each
// flavor × resource pair; every resource name a request mentions is a
// resource. A state whose tree would hold more cells than this is refused.
inline constexpr uint64_t kDefaultMaxQuotaCells = uint64_t{1} << 24;

struct LoadOptions {
  std::string source_name = "state.json";  // prefixes every error message
  // For a file of scenarios ({"scenarios": [...]}): the `id` to load. Empty
  // picks the only scenario and is an error when there are several.
  std::string scenario;
  size_t max_input_bytes = size_t{1} << 30;
  // (cohorts + cluster queues) × flavors × resources, each count at least 1.
  uint64_t max_quota_cells = kDefaultMaxQuotaCells;
};

// Reads the state JSON of docs/scheduling.md: one state object, one scenario
// (a state plus `expected`, which is ignored), or a file of scenarios.
// Malformed JSON, unknown fields, queues, cohorts, flavors or priority
// classes, duplicate names, cohort cycles, negative or malformed quantities
// and lending limits above the nominal quota are InvalidArgument errors
// reading "SOURCE:LINE:COL: message" that name the object at fault.
CHARTER_API absl::StatusOr<State> LoadState(std::string_view json, const LoadOptions& options = {});

// Reads workloads into a copy of a configuration (a State whose workloads
// are ignored: the one ReadConfiguration gives, or CompileDeclarations).
// The JSON is {"admitted": [...], "pending": [...]} with workloads in
// LoadState's form, checked as LoadState checks them against the
// configuration's queues, priority classes and flavors; resources they
// request that the configuration does not name are added to `resources`.
// Errors read "SOURCE:LINE:COL: message", with codes CH07xx.
CHARTER_API absl::StatusOr<State> LoadWorkloads(const State& config, std::string_view json,
                                                const LoadOptions& options = {});

// Reads HyperPod task governance objects as the SageMaker API returns them
// (DescribeComputeQuota / DescribeClusterSchedulerConfig output, or the
// Create requests) and translates them into a State; docs/scheduling.md gives
// the mapping. The document is {"ClusterSchedulerConfig": {...},
// "ComputeQuotas": [...], "InstanceTypes": {...}, "Workloads": {...}}.
CHARTER_API absl::StatusOr<State> LoadHyperPodState(std::string_view json,
                                                    const LoadOptions& options = {});
struct DeclarationComments;
// The same, with where each declaration comes from in `*origins` (for
// PrintDeclarations): `from hyperpod.json:12 (ComputeQuota ml-team)`.
CHARTER_API absl::StatusOr<State> LoadHyperPodState(std::string_view json, const LoadOptions& options,
                                                    DeclarationComments* origins);

// --- the scheduling language --------------------------------------------------
//
// A .charter file declares the configuration (docs/scheduling.md, "The
// scheduling language"):
//
//   flavor "default";
//   queue "team-a" {
//     resources cpu { flavor "default" { cpu: 8; } }
//   }

// The configuration the scheduling declarations of `sources` declare
// together (their Cedar policies are read and not compiled). Faults go to
// (*diagnostics)[i] for sources[i] (resized to the sources; may be null);
// with any error the result is InvalidArgument whose message is the first
// one as "file:line:col: message". Compile() with Declarations() stores the
// same configuration in a bundle.
CHARTER_API absl::StatusOr<State> CompileDeclarations(const std::vector<SourceFile>& sources,
                                                      const CompileOptions& options,
                                                      std::vector<Diagnostics>* diagnostics);

// The two halves of the model agree: each cluster queue of `sources` that
// `implements` an entity is checked against that entity in `entities`, the
// text of Cedar's JSON entities (read as an Entities store is; give the
// store's own text, already read with Entities::FromJson). A queue whose
// entity is not there is a fault; for an entity with the standard model's
// Allocation attributes (stdlib/governance.cedarschema; an entity without
// `gpus` is not compared), each is compared
// with the queue's GPU quotas (resources `gpu` and `.../gpu`, such as
// `nvidia.com/gpu`), summed over flavors:
//   gpus             the nominal quotas
//   borrowLimitGpus  the borrowing limits (absent: the queue borrows none;
//                    a quota without `borrow`, in a cohort, borrows without
//                    limit, which no entity says)
//   lendsIdle        whether the queue, in a cohort, lends any (a quota
//                    without `lend 0`)
//   fairShareWeight  the queue's fair weight
// Each difference is a CH0810 error in (*diagnostics)[i] for sources[i] at
// the queue's text, naming the entity's place in `entities`
// ("entities.json:12:3"); returns how many. Sources whose declarations have
// faults of their own are not checked (0; CompileDeclarations reports
// them). Entities that are not a JSON array are InvalidArgument.
CHARTER_API absl::StatusOr<size_t> CheckImplements(const std::vector<SourceFile>& sources,
                                                   const CompileOptions& options, const SourceFile& entities,
                                                   std::vector<Diagnostics>* diagnostics);

// The compiler of scheduling declarations, for CompileOptions::declarations:
// with it, charter::Compile stores the configuration the sources declare in
// the bundle's `scheduling` section.
//
//   charter::CompileOptions options;
//   options.declarations = &charter::schedule::Declarations();
//   absl::StatusOr<charter::Bundle> bundle = charter::Compile(sources, {}, options, &diagnostics);
CHARTER_API const DeclarationCompiler& Declarations();

// The scheduling configuration the engine's bundle declares (its `scheduling`
// section): the State's tables without workloads, verified as LoadState
// verifies a state; nullopt when the bundle declares none. A section that is
// not a valid configuration is InvalidArgument "invalid bundle: scheduling: ...".
// Add the workloads of the moment with LoadWorkloads and run a cycle:
//
//   absl::StatusOr<std::optional<charter::schedule::State>> config = charter::schedule::ReadConfiguration(*engine);
//   if (config.ok() && config->has_value()) {
//     absl::StatusOr<charter::schedule::State> state = charter::schedule::LoadWorkloads(**config, json);
//     absl::StatusOr<charter::schedule::CycleResult> r = charter::schedule::RunCycle(*state);
//   }
CHARTER_API absl::StatusOr<std::optional<State>> ReadConfiguration(const Engine& engine);

// The configuration of `state` (its tables, not its workloads) as canonical
// .charter text: declarations in the order of the State's tables, default
// settings left out, names quoted unless they are identifiers, quantities in
// the units of their resource (`500m` of cpu, `64Gi` of memory). Compiling
// the text gives the same tables back. The state must be one LoadState
// would accept.
CHARTER_API std::string PrintDeclarations(const State& state);

// Comments to print above declarations, one line each (`// TEXT`): per row
// of the State's tables (a vector shorter than its table leaves the rest
// without), an empty string for none. `charter import` names each object's
// source this way: `// from cluster.yaml:12 (ClusterQueue team-a)`. A
// comment above the `scheduler` block is written only when the block is.
struct DeclarationComments {
  std::string header;  // above everything, then an empty line
  std::string scheduler;
  std::vector<std::string> flavors, priority_classes, cohorts, cluster_queues, local_queues;
};

// PrintDeclarations with the comments: the same text as charter::FormatPolicies
// leaves it, and it compiles to the same tables.
CHARTER_API std::string PrintDeclarations(const State& state, const DeclarationComments& comments);

// --- the outcome of a cycle --------------------------------------------------

// Why an admitted workload was preempted (Kueue's `Preempted` reason).
enum class PreemptionReason : uint8_t {
  kInClusterQueue,
  kInCohortReclamation,
  kInCohortReclaimWhileBorrowing,
  kInCohortFairSharing,
};

// Why a head stays pending.
enum class PendingState : uint8_t {
  kWaitingForPreemption,  // it issued the evictions in `preempted`
  kNoFit,                 // no flavor fits, even by preempting
  kNoFitExceedsMaxQuota,  // it asks for more than the queue can ever reach
  kNoFitNoCandidates,     // it needs preemption, and no victim set works
  kSkippedNoLongerFits,   // fitted at nomination, not after earlier entries
  kDeferredFit,           // fits once other preemptions of this cycle finish
  kDeniedByRule,          // a scheduling rule refuses its admission
};

// A scheduling rule that changed an outcome: it refused something the cycle
// would otherwise have done (admit the head, borrow on a flavor, preempt or
// evict a workload), or it erred, which refuses it too (fail-closed).
struct RuleNote {
  std::string rule;     // the rule's @id (its policy id)
  std::string action;   // "admit", "borrow", "preempt" or "evict"
  std::string subject;  // what was refused: "nvidia.com/gpu in flavor spot", "`w1`"
  std::string error;    // why the rule erred; empty when it was satisfied
};

struct PodSetFlavors {
  std::string pod_set;
  std::vector<std::pair<std::string, std::string>> flavors;  // resource -> flavor
};

struct Admitted {
  std::string name;
  std::string cluster_queue;
  std::vector<PodSetFlavors> flavors;
  bool borrowing = false;
  std::string message;
  std::vector<RuleNote> rules;  // the rules that changed this outcome
};

struct Preempted {
  std::string name;
  std::string cluster_queue;
  PreemptionReason reason = PreemptionReason::kInClusterQueue;
  std::string preemptor;
  std::string message;
};

// An admitted workload that holds capacity a pending head needs (on a
// flavor-resource it would use, in its queue or its cohort tree), and
// whether Kueue's preemption search may take it for that head.
struct Holder {
  std::string name;
  std::string cluster_queue;
  std::string usage;  // what it holds of what the head needs: "48 nvidia.com/gpu in flavor p5"
  // A candidate of the search (the queue's preemption policies allow it;
  // whether the search takes it depends on the others); `why` says which
  // rule makes it one, or keeps it from being one.
  bool candidate = false;
  std::string why;
};

struct NotAdmitted {
  std::string name;
  std::string cluster_queue;
  PendingState state = PendingState::kNoFit;
  bool inadmissible = false;  // queue_state: parked until capacity frees up
  std::string message;
  std::vector<RuleNote> rules;  // the rules that changed this outcome
  // Its place in its queue's order (1 for the head) and the queue's length.
  int position = 0;
  int queue_length = 0;
  // For a head short of quota (no_fit, no_fit_no_candidates,
  // skipped_no_longer_fits): the workloads that hold what it needs, those
  // of its own queue first (at most CycleOptions::max_holders).
  std::vector<Holder> holders;
  size_t more_holders = 0;  // those left out
  // For skipped_no_longer_fits: the entry of this cycle that went first and
  // took the capacity, and the ordering rule that put it first.
  std::string went_first;
  // Where this cycle's flavor search stopped, for ApplyCycle (see
  // Workload::flavor_scan); empty when Kueue forgets it (after preemptions).
  std::vector<std::vector<int>> flavor_scan;
};

// A pending workload that was not a head this cycle.
struct Queued {
  std::string name;
  std::string cluster_queue;
  std::string message;
  bool inadmissible = false;  // parked: its last evaluation found no room
  int position = 0;           // in its queue's order (the head is 1)
  int queue_length = 0;
};

struct CHARTER_API CycleResult {
  std::vector<Admitted> admitted;       // in processing order
  std::vector<Preempted> preempted;     // in processing order
  std::vector<NotAdmitted> not_admitted;
  std::vector<Queued> queued;        // empty when CycleOptions::list_queued is false
  size_t queued_count = 0;           // how many workloads waited behind the heads (or were parked)

  // {"admitted":[{"name","cluster_queue","flavors":{pod set:{resource:flavor}},
  //   "borrowing","message"}],"preempted":[{"name","cluster_queue","reason",
  //   "preemptor","message"}],"not_admitted":[{"name","cluster_queue","state",
  //   "queue_state","message"}],"queued":[{"name","cluster_queue","message"}]}
  // An admitted or not admitted entry that scheduling rules changed also
  // has "rules":[{"rule","action","subject"}, with "error" when it erred].
  std::string ToJson() const;
  // One line per workload, for people (the message names the rules).
  std::string ToText() const;
};

// Scheduling rules: Cedar policies over the actions of the `Scheduling`
// namespace (stdlib/scheduling.cedarschema, docs/scheduling.md), which the
// cycle consults at its decision points:
//
//   Scheduling::Action::"admit"    may the head be admitted (or preempt to be)
//   Scheduling::Action::"borrow"   may it borrow on this flavor and resource
//   Scheduling::Action::"preempt"  may it preempt this admitted workload
//   Scheduling::Action::"evict"    may this admitted workload be a victim
//
// The cycle's own (Kueue's) decision stands in for a permit that always
// holds: an action is refused when a `forbid` rule whose scope matches is
// satisfied, or errs (fail-closed; Cedar skips an erring forbid, a scheduler
// must not); a permit cannot widen what Kueue decides and is not evaluated.
// The principal and resource are entities the cycle builds, lazily, for the
// workloads a decision needs, over `entities` (for instance the governance
// model's, so that a queue's `implements` entity and its ancestors are the
// queue's ancestors too).
class CHARTER_API SchedulingRules {
 public:
  // No rules: RunCycle with these is RunCycle without rules.
  SchedulingRules();
  // The rules of `engines` (one per policy file) over `entities` (may be
  // null). Two rules with one id are an InvalidArgument error naming it.
  static absl::StatusOr<SchedulingRules> Create(const std::vector<Engine>& engines,
                                                const Entities* entities = nullptr);
  // The forbid rules the cycle may consult, and the permits whose scope
  // names a scheduling action (they have no effect: warn about them), by id.
  std::vector<std::string> rule_ids() const;
  std::vector<std::string> ignored_permits() const;
  bool empty() const;

 private:
  friend struct RulesAccess;  // how RunCycle reaches the rule set
  std::shared_ptr<const internal::schedule::RuleSet> impl_;
  std::vector<std::string> rule_ids_, ignored_permits_;
};

CHARTER_API std::string_view ReasonName(PreemptionReason reason);  // "InClusterQueue", ...
CHARTER_API std::string_view StateName(PendingState state);        // "no_fit", ...
// The reason Kueue's pending-reason enhancement (KEP-10852) gives a head in
// this state, by its precedence among a nominated flavor's reasons:
// "ExceedsMaxQuota" (no_fit_exceeds_max_quota), "WaitingForQuota" (no_fit,
// no_fit_no_candidates, skipped_no_longer_fits), "WaitingForPreemptedWorkloads"
// (waiting_for_preemption, deferred_fit), and "AdmissionGated" for a head a
// scheduling rule refuses (the rule plays the part of an admission gate).
CHARTER_API std::string_view KueueReason(PendingState state);
// The reason of a workload that was not a head this cycle: "PendingEvaluation"
// (Kueue's, for a workload that waits in the queue's heap); empty for one
// parked as inadmissible, which keeps the reason of its last evaluation (a
// state does not record it).
CHARTER_API std::string_view KueueReason(const Queued& queued);

struct CycleOptions {
  // The most preemption candidates considered per head: the ordered list of
  // possible victims (classical and fair-sharing) is cut to this length, so
  // a head whose victims lie past the cut is judged on the shorter list.
  // Flavor assignment is not bounded by it, and no head is reported as
  // no_fit for reaching it.
  size_t max_candidates_per_head = 1'000'000;
  // As LoadOptions::max_quota_cells: RunCycle refuses a larger state.
  uint64_t max_quota_cells = kDefaultMaxQuotaCells;
  // The most holders named for one pending head (NotAdmitted::holders).
  size_t max_holders = 10;
  // Scheduling rules to consult (may be null: none). They must outlive the
  // call.
  const SchedulingRules* rules = nullptr;
  // False: CycleResult::queued stays empty and only queued_count says how
  // many there were (a simulation that prints counts skips writing a
  // message for each of thousands of waiting workloads every cycle).
  bool list_queued = true;
};

// One scheduling cycle. Fails only on a State that LoadState would refuse.
CHARTER_API absl::StatusOr<CycleResult> RunCycle(const State& state,
                                                 const CycleOptions& options = {});

// The state after a cycle: admitted workloads hold quota from `state.now`,
// preempted ones leave it and wait again, heads that cannot be admitted in a
// BestEffortFIFO queue are parked until a preemption frees capacity in their
// cohort tree (with the waiting workloads of their queue that have the same
// priority and pod sets, as Kueue's SchedulingEquivalenceHashing does), and a
// head that issued preemptions is its queue's preemptor until it is
// admitted, first in a BestEffortFIFO queue. `now` advances by one second.
CHARTER_API absl::StatusOr<State> ApplyCycle(const State& state, const CycleResult& result);
// The same over a state the caller gives up (no copy of its workloads): a
// simulation's loop, `state = *ApplyCycle(std::move(state), result)`.
CHARTER_API absl::StatusOr<State> ApplyCycle(State&& state, const CycleResult& result);

// True when a cycle changes nothing: nothing admitted, nothing preempted, and
// no head newly parked.
CHARTER_API bool IsStable(const State& before, const CycleResult& result);

}  // namespace charter::schedule

#endif  // CHARTER_SCHEDULE_H_
