// Charter's public API in one include. Read the headers in this order:
// diagnostics.h, compiler.h, bundle.h, entities.h, request.h, engine.h,
// decision.h, explain.h, query.h; then disassembly.h, json.h and files.h for tools.
#ifndef CHARTER_CHARTER_H_
#define CHARTER_CHARTER_H_

#include <string_view>

#include "charter/bundle.h"
#include "charter/compiler.h"
#include "charter/decision.h"
#include "charter/diagnostics.h"
#include "charter/disassembly.h"
#include "charter/engine.h"
#include "charter/engine_handle.h"
#include "charter/entities.h"
#include "charter/eval_context.h"
#include "charter/explain.h"
#include "charter/export.h"
#include "charter/files.h"
#include "charter/json.h"
#include "charter/query.h"
#include "charter/request.h"

namespace charter {

// The library's version, "MAJOR.MINOR.PATCH".
CHARTER_API std::string_view Version();

}  // namespace charter

#endif  // CHARTER_CHARTER_H_
