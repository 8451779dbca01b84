// The builtin registry (builtins.def): names, arity and call style for the
// parser and compiler, and one entry point for the VM.
#ifndef CHARTER_BUILTINS_BUILTINS_H_
#define CHARTER_BUILTINS_BUILTINS_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "common/arena.h"
#include "value/value.h"

namespace charter::internal {

class EntityStore;

enum class Builtin : uint16_t {
#define BUILTIN(id, name, arity, style) k##id,
#include "builtins/builtins.def"
#undef BUILTIN
};

enum class CallStyle : uint8_t { kMethod, kFunction };

struct BuiltinInfo {
  std::string_view name;
  uint8_t arity;  // with the receiver of a method
  CallStyle style;
};

inline constexpr BuiltinInfo kBuiltins[] = {
#define BUILTIN(id, name, arity, style) {name, arity, CallStyle::style},
#include "builtins/builtins.def"
#undef BUILTIN
};
inline constexpr uint32_t kNumBuiltins = sizeof(kBuiltins) / sizeof(kBuiltins[0]);

// The builtin with this name and style, or -1.
int FindBuiltin(std::string_view name, CallStyle style);

// Everything a builtin may need besides its arguments.
struct CallContext {
  const EntityStore* store;
  Arena* scratch;  // for values made during this evaluation
};

// Calls builtin `id` on args[0..arity). On an evaluation error returns false
// and sets *error.
bool CallBuiltin(Builtin id, const Value* args, const CallContext& ctx, Value* out,
                 std::string* error);

}  // namespace charter::internal

#endif  // CHARTER_BUILTINS_BUILTINS_H_
