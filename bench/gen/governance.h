// Generated stores over the standard governance model
// (stdlib/governance.cedarschema), for the benchmarks of `charter access`,
// `charter audit` (issue 19), listing, residuals and `charter diff`
// (issue 20). The shape is that of examples/governance, scaled up:
//
//   - an organization with domain units, accounts, regions, tools and
//     project profiles;
//   - clusters, alternately Kubernetes and Slurm (with partitions), each with
//     its admin role, admin identities and priority classes;
//   - projects, each with owners, contributors and viewers roles, teams, and
//     connections to some of the clusters (a contract each: owners,
//     approved workload types and data classifications, scheduling policy,
//     review dates, a review history; some with an owner missing or
//     suspended, some overdue, one in forty revoked);
//   - a namespace and an allocation for each team on each cluster its
//     project is connected to, and a workload identity for each namespace
//     (one in fifty also in the cluster's admin role, by mistake);
//   - members, each in a domain unit, a project role and a team; one in
//     ninety-seven suspended;
//   - tasks in the namespaces, owned by members of the namespace's team,
//     until the store has `entities` entities.
//
// The policies are the example's (examples/governance/policies.cedar, all of
// its rules over the standard model) and then per-project and per-team
// policies in the same style, until there are `policies` of them: viewers
// and owners of a project see, cancel and administer its tasks and
// namespaces, teams cap their GPUs and forbid notebooks on big requests,
// restricted data is hidden and refused per namespace. Every policy
// validates against the standard schema.
//
// `previous` is the same world at an earlier date, as `charter audit
// --previous` takes it: in about one connection in eight something that
// calls for a review differs (the project's owners, the contract's owners,
// the approved data classifications or workload types, the allocation's
// GPUs, the cluster's account, a namespace since removed).
//
// `decision_log` is `requests` lines as `charter serve --decision-log`
// writes them (each with its `request`), over every action of the model,
// mostly by members of the resource's team. `tightened` is the policy set
// with one rule removed and one narrowed, for `charter diff`.
//
// The same options always give the same bytes.
#ifndef CHARTER_BENCH_GEN_GOVERNANCE_H_
#define CHARTER_BENCH_GEN_GOVERNANCE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace charter::bench {

struct GovernanceOptions {
  size_t projects = 50;
  size_t teams_per_project = 2;
  size_t clusters = 4;
  size_t connections_per_project = 2;  // at most `clusters`
  size_t members = 4'000;
  size_t entities = 10'000;            // tasks fill the store up to this many
  size_t policies = 1'000;             // the example's, then generated ones
  size_t requests = 0;                 // decision-log lines
  uint64_t seed = 1;
  // The example's policies (examples/governance/policies.cedar): the first
  // policies of the set. Empty: read from CHARTER_SOURCE_DIR.
  std::string base_policies;
};

struct GovernanceWorld {
  std::string policies;      // Cedar text
  std::string tightened;     // the policy set with one rule removed and one narrowed
  std::string entities;      // Cedar's JSON entity format, one entity a line
  std::string previous;      // the same store at an earlier date
  std::string decision_log;  // JSON lines, each with its `request`
  size_t entity_count = 0;
  size_t policy_count = 0;
  size_t connection_count = 0;
  size_t task_count = 0;
  std::vector<std::string> connections;  // their ids, in the store's order
  std::string member;                    // a member in a team and a project role, not suspended
};

GovernanceWorld GenerateGovernance(const GovernanceOptions& options);

}  // namespace charter::bench

#endif  // CHARTER_BENCH_GEN_GOVERNANCE_H_
