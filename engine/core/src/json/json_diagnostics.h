// Faults in JSON input as Diagnostics: the spans of a parsed document's
// values, and the status a JSON reader returns for a fault (a Diagnostic
// with a code and a span, and the one-line message the public API has
// always given).
#ifndef CHARTER_ENGINE_SRC_JSON_JSON_DIAGNOSTICS_H_
#define CHARTER_ENGINE_SRC_JSON_JSON_DIAGNOSTICS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "charter/diagnostics.h"
#include "json/json.h"

namespace charter::internal::json {

// The span of the value that starts at `offset` of `text`, the text of a
// parsed Document: a string with its quotes, a number or a literal, an
// object or array to its closing bracket. Scans the value once; for a
// reader's error path. An offset at or past the end is an empty span there.
Span ValueSpan(std::string_view text, uint32_t offset);
inline Span ValueSpan(std::string_view text, const Value& v) { return ValueSpan(text, v.offset()); }
// The span of an object key (Value::key_offset): its quoted string.
Span KeySpan(std::string_view text, uint32_t offset);
// The span of a ParseFault: the character where the parser stopped.
Span FaultSpan(std::string_view text, const ParseFault& fault);

// ValueSpan for many values of one text: containers are indexed by one pass
// over the text up front, for a reader that may report many faults.
class Extents {
 public:
  explicit Extents(std::string_view text);
  Span Of(const Value& v) const;
  Span Key(uint32_t offset) const { return KeySpan(text_, offset); }

 private:
  std::string_view text_;
  std::vector<std::pair<uint32_t, uint32_t>> containers_;  // sorted by begin
};

// InvalidArgument "SOURCE_NAME:LINE:COL: MESSAGE" (LINE:COL of the span's
// start, as LineCol counts) carrying the Diagnostic {code, span, message,
// help}, which charter::DiagnosticOf reads back.
absl::Status FaultStatus(std::string_view source_name, std::string_view text, const char* code,
                         Span span, std::string_view message, std::string_view help = "");

// The FaultStatus of a failed Parse: `code` for invalid JSON, or
// `nesting_code` when the input nests deeper than ParseOptions::max_depth;
// the message is the parser's, after "SOURCE_NAME:LINE:COL: ".
absl::Status ParseFaultStatus(std::string_view source_name, std::string_view text,
                              const ParseFault& fault, const char* code, const char* nesting_code);

}  // namespace charter::internal::json

#endif  // CHARTER_ENGINE_SRC_JSON_JSON_DIAGNOSTICS_H_
