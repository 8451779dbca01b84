// charter::Decision as JSON, and the library version.
#include "charter/decision.h"

#include "charter/charter.h"
#include "charter/version.h"
#include "json/json.h"

namespace charter {

std::string Decision::ToJson() const {
  std::string out = allowed ? "{\"decision\":\"allow\",\"reasons\":[" : "{\"decision\":\"deny\",\"reasons\":[";
  for (size_t i = 0; i < reasons.size(); ++i) {
    if (i > 0) out.push_back(',');
    internal::json::AppendQuoted(&out, reasons[i]);
  }
  out += "],\"errors\":[";
  for (size_t i = 0; i < errors.size(); ++i) {
    if (i > 0) out.push_back(',');
    out += "{\"policy\":";
    internal::json::AppendQuoted(&out, errors[i].policy_id);
    out += ",\"message\":";
    internal::json::AppendQuoted(&out, errors[i].message);
    out.push_back('}');
  }
  out += "]}";
  return out;
}

std::string_view Version() { return CHARTER_VERSION; }

}  // namespace charter
