// A Diagnostic carried by an absl::Status, for readers whose public API
// answers with a status (Entities::FromJson, Request::FromJson,
// ParseTemplateLinks, schedule::LoadState): the message stays one line,
// and charter::DiagnosticOf gives the code and the span back.
#ifndef CHARTER_COMMON_DIAGNOSTIC_STATUS_H_
#define CHARTER_COMMON_DIAGNOSTIC_STATUS_H_

#include "absl/status/status.h"
#include "charter/diagnostics.h"

namespace charter::internal {

// Attaches `d` to a non-OK `status`, replacing any diagnostic it carried.
void AttachDiagnostic(absl::Status* status, const Diagnostic& d);

}  // namespace charter::internal

#endif  // CHARTER_COMMON_DIAGNOSTIC_STATUS_H_
