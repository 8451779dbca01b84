// RETURN_IF_ERROR and ASSIGN_OR_RETURN for absl::Status and absl::StatusOr,
// for the engine and the tools built beside it (see strings.h).
#ifndef CHARTER_SUPPORT_STATUS_MACROS_H_
#define CHARTER_SUPPORT_STATUS_MACROS_H_

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define CHARTER_CONCAT_INNER_(a, b) a##b
#define CHARTER_CONCAT_(a, b) CHARTER_CONCAT_INNER_(a, b)

#define RETURN_IF_ERROR(expr)                          \
  do {                                                 \
    ::absl::Status charter_status_ = (expr);           \
    if (!charter_status_.ok()) return charter_status_; \
  } while (0)

#define ASSIGN_OR_RETURN(lhs, expr) \
  ASSIGN_OR_RETURN_IMPL_(CHARTER_CONCAT_(charter_statusor_, __LINE__), lhs, expr)

#define ASSIGN_OR_RETURN_IMPL_(statusor, lhs, expr) \
  auto statusor = (expr);                           \
  if (!statusor.ok()) return statusor.status();     \
  lhs = std::move(statusor).value()

#endif  // CHARTER_SUPPORT_STATUS_MACROS_H_
