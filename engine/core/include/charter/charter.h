// Charter's public API in one include. Read the headers in this order:
// diagnostics.h, compiler.h, bundle.h, entity_uid.h, value.h, entities.h, request.h, engine.h,
// decision.h (the core library, charter::core); explain.h, query.h, then
// disassembly.h (the tools library, charter::tools); schedule.h and kueue.h
// (the scheduling library, charter::schedule); json.h and files.h.
//
// This header is the core library's: it brings in the core's API, and the
// tools' and the scheduling library's when the build links them (their
// headers are then on the include path; an embedder that links charter::core
// alone gets the core's).
#ifndef CHARTER_CHARTER_H_
#define CHARTER_CHARTER_H_

#include <string_view>

#include "charter/bundle.h"
#include "charter/compiler.h"
#include "charter/decision.h"
#include "charter/diagnostics.h"
#include "charter/engine.h"
#include "charter/engine_handle.h"
#include "charter/entities.h"
#include "charter/eval_context.h"
#include "charter/export.h"
#include "charter/files.h"
#include "charter/json.h"
#include "charter/request.h"

// The libraries above the core, when they are linked.
#if __has_include("charter/query.h")
#include "charter/disassembly.h"
#include "charter/explain.h"
#include "charter/query.h"
#endif
#if __has_include("charter/schedule.h")
#include "charter/kueue.h"
#include "charter/schedule.h"
#endif

namespace charter {

// The library's version, "MAJOR.MINOR.PATCH".
CHARTER_API std::string_view Version();

}  // namespace charter

#endif  // CHARTER_CHARTER_H_
