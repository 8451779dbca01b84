// Generated benchmark workloads shaped like cluster governance: teams own
// namespaces on a few clusters, users belong to teams, tasks run in
// namespaces. A workload is a policy set, an entity store and a batch of
// requests, all as text in Charter's (and Cedar's) input formats, and the
// same seed and options always give the same bytes.
//
// Most policies are scoped to one team (`principal in Team::"…"`), one
// action and one namespace or cluster, as governance policies are; a fixed
// handful (kGlobalPolicies) apply to every request. An engine that indexes
// scopes looks at a small share of a large set, but not at a constant number
// of policies: the world is fixed (10,000 entities: 100 teams, 200
// namespaces, 6 actions), so the policies whose scope a request matches grow
// with the set. With seed 1, 1,000 requests: 1.3 policies a request for 10
// policies, 1.9 for 1,000 and 7.0 for 10,000 (`charter bench` reports it as
// policies_evaluated_per_request; docs/performance.md).
//
//   charter::bench::Workload w = charter::bench::GenerateWorkload({.policies = 1000});
//   // w.policies (Cedar text), w.entities (Cedar JSON), w.requests (a JSON array)
#ifndef CHARTER_BENCH_GEN_WORKLOAD_H_
#define CHARTER_BENCH_GEN_WORKLOAD_H_

#include <cstddef>
#include <cstdint>
#include <string>

namespace charter::bench {

// Policies that every request is in the scope of, whatever the set's size.
inline constexpr size_t kGlobalPolicies = 4;

struct WorkloadOptions {
  size_t policies = 10;     // at least kGlobalPolicies
  size_t entities = 10'000; // entities with data; at least 1,000
  size_t requests = 1'000;
  uint64_t seed = 1;
};

struct Workload {
  std::string policies;  // Cedar policy text, one policy a line, each with an @id
  std::string entities;  // Cedar's JSON entity format, one entity a line
  std::string requests;  // a JSON array of {principal, action, resource, context}
};

Workload GenerateWorkload(const WorkloadOptions& options);

}  // namespace charter::bench

#endif  // CHARTER_BENCH_GEN_WORKLOAD_H_
