// The builtin registry (builtins.def): one row a method or function, with
// its name, call style, parameter and result types, cost, implementation and
// what a call with the wrong number of arguments is. The parser, the
// validator, the `__extn` reader, the compiler, the VM and the docs' tables
// all read it; nothing else lists builtins.
#ifndef CHARTER_BUILTINS_BUILTINS_H_
#define CHARTER_BUILTINS_BUILTINS_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "common/arena.h"
#include "value/value.h"

namespace charter::internal {

class EntityStore;
class WalkBudget;

enum class Builtin : uint16_t {
#define BUILTIN(id, ...) k##id,
#include "builtins/builtins.def"
#undef BUILTIN
};

enum class CallStyle : uint8_t { kMethod, kFunction, kInternal };

// What a builtin works on. The last four are Cedar's extension types, whose
// functions `__extn` may call.
enum class BuiltinFamily : uint8_t { kSet, kTag, kIpaddr, kDecimal, kDatetime, kDuration, kCompiler };

// What a call with another number of arguments than the row's is.
enum class WrongArity : uint8_t {
  kParse,       // refused by the parser (CH0126)
  kEvaluation,  // parses; refused by the validator (CH0520); an evaluation error
};

enum class BuiltinCost : uint8_t { kConstant, kLogarithmic, kLinear, kProduct };

// The type of a parameter or a result, as the validator and the docs see it.
enum class ParamType : uint8_t {
  kAny, kBool, kLong, kString, kEntity, kSet, kIpaddr, kDecimal, kDatetime, kDuration,
};

// Everything a builtin may need besides its arguments.
struct CallContext {
  const EntityStore* store;
  Arena* scratch;  // for values made during this evaluation
  // The steps the set methods' walks may take (value/walk.h), or nullptr
  // for no bound; the caller checks it for exhaustion after the call.
  WalkBudget* work = nullptr;
};

// A builtin's implementation: on args[0..arity) (the receiver of a method
// first) sets *out, or returns false with a message in *error. It checks the
// types of its arguments itself (evaluation errors).
using BuiltinFn = bool (*)(const Value* args, const CallContext& ctx, Value* out, std::string* error);

inline constexpr uint32_t kMaxBuiltinArity = 2;

struct BuiltinInfo {
  std::string_view name;
  CallStyle style;
  BuiltinFamily family;
  WrongArity wrong_arity;
  BuiltinCost cost;
  ParamType result;
  uint8_t arity;  // with the receiver of a method
  ParamType params[kMaxBuiltinArity];
};

// The table, made from builtins.def. (In a namespace of its own, where `P`
// names the parameter types as the rows write them.)
namespace builtin_row {
template <typename... T>
constexpr uint8_t Count(T...) {
  static_assert(sizeof...(T) <= kMaxBuiltinArity, "a builtin has at most two parameters");
  return static_cast<uint8_t>(sizeof...(T));
}
using P = ParamType;

inline constexpr BuiltinInfo kBuiltins[] = {
#define BUILTIN(id, name, style, family, wrong_arity, cost, result, impl, ...)                 \
  {name,          CallStyle::style,  BuiltinFamily::family, WrongArity::wrong_arity,         \
   BuiltinCost::cost, ParamType::result, Count(__VA_ARGS__), {__VA_ARGS__}},
#include "builtins/builtins.def"
#undef BUILTIN
};
}  // namespace builtin_row

using builtin_row::kBuiltins;
inline constexpr uint32_t kNumBuiltins = sizeof(kBuiltins) / sizeof(kBuiltins[0]);

inline const BuiltinInfo& InfoOf(Builtin id) { return kBuiltins[static_cast<uint32_t>(id)]; }

// Whether `__extn` may call it: a function or method of an extension type.
inline bool IsExtensionFunction(const BuiltinInfo& info) {
  return info.family >= BuiltinFamily::kIpaddr && info.family <= BuiltinFamily::kDuration;
}

// The builtin with this name and style (kMethod or kFunction), or -1.
int FindBuiltin(std::string_view name, CallStyle style);

// The schema's name of a parameter type ("Bool", "ipaddr", ...; "any").
std::string_view ParamTypeName(ParamType t);

// The evaluation error of a call of `info` with `given` arguments (a
// method's receiver counted), in Cedar's words.
std::string WrongArityMessage(const BuiltinInfo& info, size_t given);

// Whether v has type t; if not, sets *error to Cedar's type error. The
// implementations check their arguments with it.
bool ExpectArgType(const Value& v, Type t, std::string* error);

// The tag methods, which read the entity store: the entities stage, above
// this one, implements them (entities/tag_builtins.cc), so that the registry
// does not include the store.
bool EntityHasTag(const Value* args, const CallContext& ctx, Value* out, std::string* error);
bool EntityGetTag(const Value* args, const CallContext& ctx, Value* out, std::string* error);

// The implementations, in registry order (builtins.cc).
extern const BuiltinFn kBuiltinFns[kNumBuiltins];

// Calls builtin `id` on args[0..arity). On an evaluation error returns false
// and sets *error.
inline bool CallBuiltin(Builtin id, const Value* args, const CallContext& ctx, Value* out,
                        std::string* error) {
  return kBuiltinFns[static_cast<uint32_t>(id)](args, ctx, out, error);
}

}  // namespace charter::internal

#endif  // CHARTER_BUILTINS_BUILTINS_H_
