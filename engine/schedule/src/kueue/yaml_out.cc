// YAML scalars out (see yaml_out.h).
#include "kueue/yaml_out.h"

#include <cmath>
#include <cstdio>
#include <string>

#include "common/strings.h"
#include "json/json.h"
#include "kueue/document.h"

namespace charter::internal::kueue {

std::string YamlScalar(std::string_view s) {
  bool plain = !s.empty() && PlainIsString(s) &&
               ((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= '0' && s[0] <= '9'));
  for (char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                    c == '.' || c == '_' || c == '/';
    if (!ok) plain = false;
  }
  if (plain) return std::string(s);
  std::string out;
  json::AppendQuoted(&out, s);
  return out;
}

std::string FormatWeight(double w) {
  if (w == std::floor(w) && w < 9e15) return Cat(static_cast<int64_t>(w));
  const double milli = w * 1000;
  if (milli == std::floor(milli) && milli < 9e15) return Cat(static_cast<int64_t>(milli), "m");
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.9f", w);
  std::string out = buffer;
  while (!out.empty() && out.back() == '0') out.pop_back();
  if (!out.empty() && out.back() == '.') out.pop_back();
  return out;
}

}  // namespace charter::internal::kueue
