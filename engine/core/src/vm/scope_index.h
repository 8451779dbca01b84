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
// and the rest in the `always` list. A policy filed under a principal or
// resource test that also requires an action (`action == A`, `action in A`
// or `action in [A, B]`) is filed in that entry's slot for each such A, so a
// request reads only the slots of its own action (and its action groups).
// Each candidate then passes a filter of all its scope tests, read against
// the request's entities and their ancestors by 64-bit key hashes, before
// its code runs: the policies evaluated are, all but always, those whose
// scope matches. Candidates come out in policy order.
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

// What a request offers the scope tests, worked out once a request: for
// each variable, its entity's key hash, its type's hash, and the key hashes
// of its transitive ancestors (`known` is false when it has more than
// kMaxRequestAncestors of them: then every `in` test is taken to hold).
struct RequestScope {
  uint64_t hash[3];
  uint64_t type_hash[3];
  std::vector<uint64_t> ancestors[3];
  bool known[3];
};

// Reusable memory for Candidates (kept by an evaluation context).
struct ScopeScratch {
  std::vector<uint32_t> found;
  std::vector<uint32_t> ancestors;
  AncestorScratch walk;
  RequestScope request;
};

class ScopeIndex {
 public:
  // Ancestors a request entity may have for the index to list them; past
  // this, `in` is asked of the store for each target instead.
  static constexpr size_t kMaxRequestAncestors = 32;

  ScopeIndex() = default;
  void Build(const Program& program);

  // Writes to *out the indices, ascending, of the policies whose scope the
  // request can satisfy: every policy that is not false on the request is
  // among them, and a policy whose scope tests all read `==`, `in` and `is`
  // of the request's entities is there only if those tests hold (up to
  // 64-bit hash collisions, and `in` on an entity with more than
  // kMaxRequestAncestors ancestors).
  void Candidates(const ScopeKeys& keys, const EntityStore& store, ScopeScratch* scratch,
                  std::vector<uint32_t>* out) const;

  size_t always_size() const { return always_.size(); }

 private:
  // The policies filed under one entity (or type) for one `op`, split by
  // the action they require: a request reads only its action's slots.
  struct Slot {
    bool any_action = true;
    uint64_t action = 0;  // EntityKeyHash of the action entity, unless any_action
    std::vector<uint32_t> policies;
  };
  struct Entry {
    std::string_view type, id;  // the entity (kIs: type only)
    std::vector<Slot> eq, in, is;
  };
  // One scope test as the filter reads it: `group` 0 for a test that must
  // hold, g > 0 for the g-th group of which one test must hold.
  struct FilterTest {
    uint64_t hash;  // EntityKeyHash, or TypeKeyHash for kIs
    uint8_t var;
    ScopeTest::Op op;
    uint16_t group;
  };
  using Table = absl::flat_hash_map<uint64_t, Entry>;

  // Files policy `p` under `test`, in the slots of `actions` (or the
  // any-action slot when empty); false if the key collides with another.
  bool File(uint32_t p, const ScopeTest& test, const std::vector<uint64_t>& actions);
  void AppendSlots(const std::vector<Slot>& slots, const RequestScope& r,
                   std::vector<uint32_t>* to) const;
  bool Passes(uint32_t p, const RequestScope& r) const;
  static void Append(const std::vector<uint32_t>& from, std::vector<uint32_t>* to) {
    to->insert(to->end(), from.begin(), from.end());
  }

  Table entities_[3];  // by EntityKeyHash: eq and in lists
  Table types_[3];     // by TypeKeyHash: is lists
  // The `in` targets of each variable, for requests with many ancestors.
  std::vector<const Entry*> in_targets_[3];
  bool has_in_[3] = {false, false, false};  // some policy tests `var in E`
  bool has_is_ = false;                      // some policy tests `var is T`
  std::vector<uint32_t> always_;
  std::vector<uint32_t> filter_begin_;  // policy -> first of its tests in filter_
  std::vector<FilterTest> filter_;
};

}  // namespace charter::internal

#endif  // CHARTER_VM_SCOPE_INDEX_H_
