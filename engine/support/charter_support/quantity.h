// Kubernetes resource quantities ("8", "500m", "16Gi", "1.5e3", "1k"), read
// exactly, and checked arithmetic on counts: one reading for the engine's
// scheduling (Kueue's units, engine/schedule/src/cycle/quantity.h) and for the
// tools built beside it (the server's `gpus`, server/admission_review.cc), which share
// these header-only helpers but not the engine's internals.
#ifndef CHARTER_SUPPORT_QUANTITY_H_
#define CHARTER_SUPPORT_QUANTITY_H_

#include <cstdint>
#include <optional>
#include <string_view>

namespace charter::support {

enum class QuantityError { kOk, kMalformed, kNegative, kTooLarge };

// Parses `text` in the Kubernetes quantity grammar: an optional sign, digits
// with an optional fraction, then a binary suffix (Ki Mi Gi Ti Pi Ei), a
// decimal suffix (n u m k M G T P E) or a decimal exponent (e3, E-2).
// `milli` counts thousandths. The result is exact, rounded up to an integer
// (as Kubernetes' Value and MilliValue round).
inline QuantityError ParseQuantity(std::string_view text, bool milli, int64_t* out) {
  __extension__ using u128 = unsigned __int128;
  constexpr u128 kLimit = u128{1} << 100;  // mantissas and products stay below
  auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
  size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
    negative = text[i] == '-';
    ++i;
  }
  u128 mantissa = 0;
  int digits = 0;
  int scale = 0;  // decimal exponent applied to the mantissa
  bool mantissa_overflow = false;
  auto digit = [&](char c, bool fraction) {
    ++digits;
    if (mantissa >= kLimit / 10) {
      // Beyond 30 significant digits: an integer digit still scales the
      // value; a fraction digit can only matter for rounding up.
      if (!fraction) ++scale;
      if (c != '0') mantissa_overflow = true;
      return;
    }
    mantissa = mantissa * 10 + static_cast<unsigned>(c - '0');
    if (fraction) --scale;
  };
  while (i < text.size() && is_digit(text[i])) digit(text[i++], false);
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && is_digit(text[i])) digit(text[i++], true);
  }
  if (digits == 0) return QuantityError::kMalformed;
  int binary = 0;
  std::string_view suffix = text.substr(i);
  if (suffix.empty()) {
  } else if (suffix.size() == 2 && suffix[1] == 'i') {
    switch (suffix[0]) {
      case 'K': binary = 10; break;
      case 'M': binary = 20; break;
      case 'G': binary = 30; break;
      case 'T': binary = 40; break;
      case 'P': binary = 50; break;
      case 'E': binary = 60; break;
      default: return QuantityError::kMalformed;
    }
  } else if (suffix.size() == 1 && suffix[0] != 'e') {
    // A bare `E` is the exa suffix; `E` followed by digits is an exponent.
    switch (suffix[0]) {
      case 'n': scale -= 9; break;
      case 'u': scale -= 6; break;
      case 'm': scale -= 3; break;
      case 'k': scale += 3; break;
      case 'M': scale += 6; break;
      case 'G': scale += 9; break;
      case 'T': scale += 12; break;
      case 'P': scale += 15; break;
      case 'E': scale += 18; break;
      default: return QuantityError::kMalformed;
    }
  } else if (suffix[0] == 'e' || suffix[0] == 'E') {
    size_t k = 1;
    bool exp_negative = false;
    if (k < suffix.size() && (suffix[k] == '+' || suffix[k] == '-')) {
      exp_negative = suffix[k] == '-';
      ++k;
    }
    if (k == suffix.size()) return QuantityError::kMalformed;
    int exponent = 0;
    for (; k < suffix.size(); ++k) {
      if (!is_digit(suffix[k])) return QuantityError::kMalformed;
      if (exponent < 100000) exponent = exponent * 10 + (suffix[k] - '0');
    }
    scale += exp_negative ? -exponent : exponent;
  } else {
    return QuantityError::kMalformed;
  }
  if (milli) scale += 3;
  if (mantissa == 0 && !mantissa_overflow) {
    *out = 0;
    return QuantityError::kOk;
  }
  if (negative) return QuantityError::kNegative;
  // value = mantissa × 10^scale × 2^binary, rounded up.
  u128 value = mantissa;
  for (int b = 0; b < binary; ++b) {
    value <<= 1;
    if (value >= kLimit) return QuantityError::kTooLarge;
  }
  bool inexact = mantissa_overflow;
  for (; scale > 0; --scale) {
    value *= 10;
    if (value >= kLimit) return QuantityError::kTooLarge;
  }
  for (; scale < 0; ++scale) {
    if (value == 0) break;
    if (value % 10 != 0) inexact = true;
    value /= 10;
  }
  if (inexact) value += 1;
  if (value > static_cast<u128>(INT64_MAX)) return QuantityError::kTooLarge;
  *out = static_cast<int64_t>(value);
  return QuantityError::kOk;
}

// Checked arithmetic: the exact result, or nothing where it would not fit in
// 64 bits (never a wrap: signed overflow is undefined behaviour).
inline std::optional<int64_t> CheckedAdd(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}
inline std::optional<int64_t> CheckedMul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

}  // namespace charter::support

#endif  // CHARTER_SUPPORT_QUANTITY_H_
