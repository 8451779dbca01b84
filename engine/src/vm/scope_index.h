// The scope index: which policies can apply to a request. Built once per
// Program from the verified code itself (not from anything a bundle claims),
// so a bundle cannot make the index skip a policy that could be satisfied.
//
// A policy's code starts with its scope checks (compile/lower.cc): loads of
// `principal`, `action` or `resource`, an `==`, `in` or `is` test against a
// constant, and a jump to `return false` when the test fails (`action in
// [..]` is a group of tests that jump past a final `goto return-false`).
// Those tests cannot err, so a request that fails one of them makes the
// policy false: skipping it changes no decision, reason or error.
//
// Each policy is filed under its most selective scope test:
//   var == E  under E in the variable's `eq` table;
//   var in E  under E in its `in` table (a request matches E itself and each
//             of its ancestors in the entity store);
//   var is T  under T in its type table;
// and the rest in the `always` list. Candidates come out in policy order.
#ifndef CHARTER_VM_SCOPE_INDEX_H_
#define CHARTER_VM_SCOPE_INDEX_H_

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "entities/entity_store.h"
#include "value/value.h"

namespace charter::internal {

class Program;
struct PolicyCode;

// One scope test: `var op entity` (kEq, kIn) or `var is type` (kIs).
struct ScopeTest {
  enum Op : uint8_t { kEq, kIn, kIs };
  uint8_t var = 0;  // 0 principal, 1 action, 2 resource
  Op op = kEq;
  std::string_view type;
  std::string_view id;  // empty for kIs
};

// What a policy's code requires of the request before it can be anything
// but false: every test in `all`, and one test of each group in `any_of`.
struct PolicyScope {
  std::vector<ScopeTest> all;
  std::vector<std::vector<ScopeTest>> any_of;
};

// Reads the scope checks at the head of `policy`'s (verified) code. Stops at
// the first instruction it does not recognise; what it found so far holds.
PolicyScope AnalyzeScope(const Program& program, const PolicyCode& policy);

// The three request entities as the index reads them.
struct ScopeKeys {
  const EntityRef* refs[3];  // principal, action, resource (uid resolved)
  uint64_t hashes[3];        // EntityKeyHash of each
};

// Reusable memory for Candidates (kept by an evaluation context).
struct ScopeScratch {
  std::vector<uint32_t> found;
  std::vector<uint32_t> ancestors;
  AncestorScratch walk;
};

class ScopeIndex {
 public:
  ScopeIndex() = default;
  void Build(const Program& program);

  // Writes to *out the indices, ascending, of the policies whose scope the
  // request can satisfy (a superset of those that are not false).
  void Candidates(const ScopeKeys& keys, const EntityStore& store, ScopeScratch* scratch,
                  std::vector<uint32_t>* out) const;

  // Whether the request certainly fails one of policy `p`'s `==` tests
  // (a cheap check before running its code).
  bool FailsEq(uint32_t p, const ScopeKeys& keys) const {
    const EqFilter& f = eq_filters_[p];
    for (int v = 0; v < 3; ++v) {
      if ((f.mask >> v & 1) && f.hashes[v] != keys.hashes[v]) return true;
    }
    return false;
  }

  size_t always_size() const { return always_.size(); }

 private:
  struct Entry {
    std::string_view type, id;  // the entity (kIs: type only)
    std::vector<uint32_t> eq, in, is;
  };
  struct EqFilter {
    uint8_t mask = 0;
    std::array<uint64_t, 3> hashes{};
  };
  using Table = absl::flat_hash_map<uint64_t, Entry>;

  // Files policy `p` under `test`; false if the key collides with another.
  bool File(uint32_t p, const ScopeTest& test);
  static void Append(const std::vector<uint32_t>& from, std::vector<uint32_t>* to) {
    to->insert(to->end(), from.begin(), from.end());
  }

  Table entities_[3];  // by EntityKeyHash: eq and in lists
  Table types_[3];     // by TypeKeyHash: is lists
  // The `in` targets of each variable, for requests with many ancestors.
  std::vector<const Entry*> in_targets_[3];
  std::vector<uint32_t> always_;
  std::vector<EqFilter> eq_filters_;
};

}  // namespace charter::internal

#endif  // CHARTER_VM_SCOPE_INDEX_H_
