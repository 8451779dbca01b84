// String concatenation over std::string_view, shared with the tools
// (engine/support/charter_support/strings.h), in the engine's namespace.
#ifndef CHARTER_COMMON_STRINGS_H_
#define CHARTER_COMMON_STRINGS_H_

#include "charter_support/strings.h"

namespace charter::internal {

using support::Cat;
using support::CatAppend;
using support::ForCat;
using support::ToStd;

}  // namespace charter::internal

#endif  // CHARTER_COMMON_STRINGS_H_
