// RETURN_IF_ERROR and ASSIGN_OR_RETURN, shared with the tools
// (engine/support/charter_support/status_macros.h).
#ifndef CHARTER_COMMON_STATUS_MACROS_H_
#define CHARTER_COMMON_STATUS_MACROS_H_

#include "charter_support/status_macros.h"

#endif  // CHARTER_COMMON_STATUS_MACROS_H_
