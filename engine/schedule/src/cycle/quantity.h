// Kubernetes resource quantities ("8", "500m", "16Gi", "1.5e3") as Kueue
// counts them: an exact integer, milli-units for `cpu` and whole units,
// rounded up, for every other resource.
#ifndef CHARTER_CYCLE_QUANTITY_H_
#define CHARTER_CYCLE_QUANTITY_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "charter_support/quantity.h"

namespace charter::internal::schedule {

// The one reader of quantities, shared with the tools beside the engine
// (engine/support/charter_support/quantity.h): an exact integer, rounded up;
// `milli` counts thousandths.
using ::charter::support::ParseQuantity;
using ::charter::support::QuantityError;

// The integer back in quantity form: "2", "500m", "1500m", "16Gi".
std::string FormatQuantity(int64_t value, bool milli);

// Saturating arithmetic: results stay within [INT64_MIN, INT64_MAX].
inline int64_t SatAdd(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return b > 0 ? INT64_MAX : INT64_MIN;
  return r;
}
inline int64_t SatSub(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r)) return b < 0 ? INT64_MAX : INT64_MIN;
  return r;
}
inline int64_t SatMul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return (a < 0) != (b < 0) ? INT64_MIN : INT64_MAX;
  return r;
}

}  // namespace charter::internal::schedule

#endif  // CHARTER_CYCLE_QUANTITY_H_
