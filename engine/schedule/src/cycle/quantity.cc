// Kubernetes quantities written back in quantity form (they are read by
// charter_support/quantity.h).
#include "cycle/quantity.h"

#include <cstdint>
#include <string>

#include "common/strings.h"

namespace charter::internal::schedule {

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
