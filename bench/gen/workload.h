// Generated benchmark workloads shaped like cluster governance: teams own
// namespaces on a few clusters, users belong to teams, tasks run in
// namespaces. A workload is a policy set, an entity store and a batch of
// requests, all as text in Charter's (and Cedar's) input formats, and the
// same seed and options always give the same bytes.
//
// Most policies are scoped to one team (`principal in Team::"…"`), one
// action and one namespace or cluster, as governance policies are; a fixed
// handful (kGlobalPolicies) apply to every request. So the number of policies
// that can match a request stays about the same as the set grows, and an
// engine that indexes scopes should cost about the same per request for 10
// policies as for 10,000.
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
