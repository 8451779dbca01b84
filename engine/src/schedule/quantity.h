// Kubernetes resource quantities ("8", "500m", "16Gi", "1.5e3") as Kueue
// counts them: an exact integer, milli-units for `cpu` and whole units,
// rounded up, for every other resource.
#ifndef CHARTER_ENGINE_SRC_SCHEDULE_QUANTITY_H_
#define CHARTER_ENGINE_SRC_SCHEDULE_QUANTITY_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace charter::internal::schedule {

enum class QuantityError { kOk, kMalformed, kNegative, kTooLarge };

// Parses `text` in the Kubernetes quantity grammar: an optional sign, digits
// with an optional fraction, then a binary suffix (Ki Mi Gi Ti Pi Ei), a
// decimal suffix (n u m k M G T P E) or a decimal exponent (e3, E-2).
// `milli` counts thousandths. The result is exact, rounded up to an integer.
QuantityError ParseQuantity(std::string_view text, bool milli, int64_t* out);

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

#endif  // CHARTER_ENGINE_SRC_SCHEDULE_QUANTITY_H_
