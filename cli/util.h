// The helpers every command uses, string concatenation and the status
// macros: the engine's own, from the header-only engine/support/ that the
// engine and its tools share (the CLI reads no engine stage header, engine/*/src/).
#ifndef CHARTER_CLI_UTIL_H_
#define CHARTER_CLI_UTIL_H_

#include "charter_support/status_macros.h"
#include "charter_support/strings.h"

namespace charter::cli {

using support::Cat;
using support::CatAppend;
using support::ForCat;

}  // namespace charter::cli

#endif  // CHARTER_CLI_UTIL_H_
