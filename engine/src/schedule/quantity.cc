// Kubernetes quantities, parsed exactly with 128-bit intermediates.
#include "schedule/quantity.h"

#include <cstdint>
#include <string>

#include "common/strings.h"

namespace charter::internal::schedule {
namespace {

__extension__ using u128 = unsigned __int128;

constexpr u128 kLimit = u128{1} << 100;  // mantissas and products stay below

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

QuantityError ParseQuantity(std::string_view text, bool milli, int64_t* out) {
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
  while (i < text.size() && IsDigit(text[i])) digit(text[i++], false);
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && IsDigit(text[i])) digit(text[i++], true);
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
      if (!IsDigit(suffix[k])) return QuantityError::kMalformed;
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

std::string FormatQuantity(int64_t value, bool milli) {
  if (milli) {
    if (value % 1000 == 0) return Cat(value / 1000);
    return Cat(value, "m");
  }
  static constexpr const char* kSuffix[] = {"Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
  if (value >= 1024 && value % 1024 == 0) {
    int k = -1;
    int64_t v = value;
    while (v % 1024 == 0 && k < 5 && v >= 1024) {
      v /= 1024;
      ++k;
    }
    return Cat(v, kSuffix[k]);
  }
  return Cat(value);
}

}  // namespace charter::internal::schedule
