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

// The steps a walk may still take: one for each value it visits, a set or
// record and then each of its elements or fields. Once spent, a walk stops
// (after at most a loop over the elements of each value it is inside),
// answers anything, and exhausted() says to discard the answer.
class WalkBudget {
 public:
  explicit WalkBudget(uint64_t steps = UINT64_MAX) : left_(steps) {}
  // One step, or false (and exhausted from then on) when none is left.
  bool Take() {
    if (left_ == 0) {
      exhausted_ = true;
      return false;
    }
    --left_;
    return true;
  }
  bool exhausted() const { return exhausted_; }
  uint64_t left() const { return left_; }

 private:
  uint64_t left_;
  bool exhausted_ = false;
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
