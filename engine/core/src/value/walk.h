// Walks over values with a bound on their steps. Values the VM builds may
// share their elements (a set held twice is one array), so that a value of
// n nodes can be a tree of up to 2^n (issue 32: {S, {S}} nested 30 times is
// a 2^30-node tree, and hashing it took 49 s); the VM runs every walk over
// values (equality, hashing, set building and membership) on the steps
// left in its decision, EvalLimits::max_decision_work.
#ifndef CHARTER_VALUE_WALK_H_
#define CHARTER_VALUE_WALK_H_

#include <cstdint>

#include "value/value.h"

namespace charter::internal {

// The steps a walk may still take: one for each value it visits, taken
// where a set or record is reached (the set or record, and each element or
// field it will look at), so that comparing two scalars, the common case,
// costs nothing. Once spent, a walk stops (after at most a loop over the
// elements of each value it is inside), answers anything, and exhausted()
// says to discard the answer.
class WalkBudget {
 public:
  explicit WalkBudget(uint64_t steps = UINT64_MAX)
      : left_(steps > uint64_t{INT64_MAX} ? INT64_MAX : static_cast<int64_t>(steps)) {}
  // n steps, or false (and exhausted from then on) when fewer are left.
  // INVARIANT: a walk takes a bounded number of times once exhausted, n
  // < 2^33 each, so left_ never wraps.
  bool Take(uint64_t n) {
    left_ -= static_cast<int64_t>(n);
    return left_ >= 0;
  }
  bool exhausted() const { return left_ < 0; }
  uint64_t left() const { return left_ < 0 ? 0 : static_cast<uint64_t>(left_); }

 private:
  int64_t left_;
};

// Equal, HashValue, AppendUnique and SetHasEach (value.h), each step taken
// from `budget`. value.h's forms walk without a bound: for values read from
// a request, entities or source text, which are trees their readers bound.
bool Equal(const Value& a, const Value& b, WalkBudget* budget);
uint64_t HashValue(const Value& v, WalkBudget* budget);
uint32_t AppendUnique(Value* elems, uint32_t unique, const Value* src, uint32_t n, WalkBudget* budget);
bool SetHasEach(const Value& set, const Value* vs, uint32_t n, bool all, WalkBudget* budget);

}  // namespace charter::internal

#endif  // CHARTER_VALUE_WALK_H_
