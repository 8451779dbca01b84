// The diagnostic codes of common/diagnostics.def as constants, so that code
// names a code rather than spelling it: `diags->Error(codes::CH0101, ...)`
// does not compile when CH0101 has no row in the table.
#ifndef CHARTER_COMMON_DIAGNOSTIC_CODES_H_
#define CHARTER_COMMON_DIAGNOSTIC_CODES_H_

#include <string_view>

#include "charter/diagnostics.h"

namespace charter::internal {

namespace codes {
#define CHARTER_DIAGNOSTIC(code, severity, title) inline constexpr char code[] = #code;
#include "common/diagnostics.def"
}  // namespace codes

// One row of the table.
struct DiagnosticInfo {
  std::string_view code;
  Severity severity;
  std::string_view title;
};

inline constexpr DiagnosticInfo kDiagnosticTable[] = {
#define CHARTER_DIAGNOSTIC(code, severity, title) {#code, Severity::k##severity, title},
#include "common/diagnostics.def"
};

// Codes no longer emitted, whose numbers are never reused.
inline constexpr std::string_view kRetiredDiagnosticCodes[] = {
#define CHARTER_DIAGNOSTIC(code, severity, title)
#define CHARTER_RETIRED_DIAGNOSTIC(code, title) #code,
#include "common/diagnostics.def"
};

// The row of `code`, or nullptr when the table has none (retired codes
// included).
inline const DiagnosticInfo* FindDiagnosticInfo(std::string_view code) {
  for (const DiagnosticInfo& info : kDiagnosticTable) {
    if (info.code == code) return &info;
  }
  return nullptr;
}

}  // namespace charter::internal

#endif  // CHARTER_COMMON_DIAGNOSTIC_CODES_H_
