// charter::Decision as JSON, and the library version.
#include "charter/decision.h"

#include "charter/charter.h"
#include "charter/version.h"
#include "common/strings.h"
#include "json/json.h"

namespace charter {

namespace {

// The decision object; with `positions`, each error with a known span says
// where it happened (and, with `source`, its line and column).
std::string DecisionJson(const Decision& d, bool positions, const SourceFile* source) {
  std::string out = d.allowed ? "{\"decision\":\"allow\",\"reasons\":[" : "{\"decision\":\"deny\",\"reasons\":[";
  for (size_t i = 0; i < d.reasons.size(); ++i) {
    if (i > 0) out.push_back(',');
    internal::json::AppendQuoted(&out, d.reasons[i]);
  }
  out += "],\"errors\":[";
  for (size_t i = 0; i < d.errors.size(); ++i) {
    const PolicyError& e = d.errors[i];
    if (i > 0) out.push_back(',');
    out += "{\"policy\":";
    internal::json::AppendQuoted(&out, e.policy_id);
    out += ",\"message\":";
    internal::json::AppendQuoted(&out, e.message);
    if (positions && e.span.end > e.span.begin) {
      internal::CatAppend(&out, ",\"begin\":", e.span.begin, ",\"end\":", e.span.end);
      if (source != nullptr) {
        SourceFile::Position p = source->PositionOf(e.span.begin);
        internal::CatAppend(&out, ",\"line\":", p.line, ",\"column\":", p.column);
      }
    }
    out.push_back('}');
  }
  out += "]}";
  return out;
}

}  // namespace

std::string Decision::ToJson() const { return DecisionJson(*this, false, nullptr); }

std::string Decision::ToJsonWithPositions(const SourceFile* source) const {
  return DecisionJson(*this, true, source);
}

std::string_view Version() { return CHARTER_VERSION; }

}  // namespace charter
