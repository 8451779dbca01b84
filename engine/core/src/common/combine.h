// Cedar's rule for combining the policies' outcomes into a decision, written
// once for the VM's authorizer, the reference interpreter, explain and
// coverage: deny by default, a satisfied forbid overrides every permit, and
// the determining policies are the satisfied forbids when there are any, else
// the satisfied permits. Erring policies are skipped (they neither permit nor
// forbid).
#ifndef CHARTER_COMMON_COMBINE_H_
#define CHARTER_COMMON_COMBINE_H_

namespace charter::internal {

// Whether the request is allowed, given the satisfied permits and forbids.
template <typename Ids>
inline bool CombinedAllows(const Ids& permits, const Ids& forbids) {
  return forbids.empty() && !permits.empty();
}

// The determining policies: one of the two lists, as Cedar reports them.
template <typename Ids>
inline Ids& DeterminingPolicies(Ids& permits, Ids& forbids) {
  return forbids.empty() ? permits : forbids;
}
template <typename Ids>
inline const Ids& DeterminingPolicies(const Ids& permits, const Ids& forbids) {
  return forbids.empty() ? permits : forbids;
}

}  // namespace charter::internal

#endif  // CHARTER_COMMON_COMBINE_H_
