// The builtins' implementations, one function a row of builtins.def: the set
// methods, and the extension types' functions and methods (whose parsing and
// arithmetic live in extensions/). The tag methods read the entity store, and
// the entities stage implements them (entities/tag_builtins.cc). Each checks its arguments'
// types, so a call of any builtin on any values is safe.
#include "builtins/builtins.h"

#include <functional>

#include "common/strings.h"
#include "extensions/extensions.h"
#include "value/walk.h"

namespace charter::internal {
namespace {

void TypeError(std::string* error, std::string_view expected, const Value& got) {
  CatAppend(error, "type error: expected ", expected, ", got ", TypeName(got.type));
}

bool Expect(const Value& v, Type t, std::string* error) { return ExpectArgType(v, t, error); }

bool SetHas(const Value& set, const Value& v, WalkBudget* work) {
  if (work != nullptr && !work->Take(set.size)) return false;
  for (uint32_t i = 0; i < set.size; ++i) {
    if (work == nullptr ? Equal(set.elements[i], v) : Equal(set.elements[i], v, work)) return true;
  }
  return false;
}

// --- the implementations, one a row of builtins.def ---------------------------

bool SetContains(const Value* args, const CallContext& ctx, Value* out, std::string* error) {
  if (!Expect(args[0], Type::kSet, error)) return false;
  *out = Value::Bool(SetHas(args[0], args[1], ctx.work));
  return true;
}

// containsAll (all) and containsAny (!all).
template <bool kAll>
bool SetContainsEvery(const Value* args, const CallContext& ctx, Value* out, std::string* error) {
  const Value& self = args[0];
  const Value& other = args[1];
  if (!Expect(self, Type::kSet, error) || !Expect(other, Type::kSet, error)) return false;
  // Linear in the sizes of the two sets, however large (value.h).
  *out = Value::Bool(ctx.work == nullptr ? SetHasEach(self, other.elements, other.size, kAll)
                                          : SetHasEach(self, other.elements, other.size, kAll, ctx.work));
  return true;
}
constexpr BuiltinFn SetContainsAll = SetContainsEvery<true>;
constexpr BuiltinFn SetContainsAny = SetContainsEvery<false>;

bool SetIsEmpty(const Value* args, const CallContext&, Value* out, std::string* error) {
  if (!Expect(args[0], Type::kSet, error)) return false;
  *out = Value::Bool(args[0].size == 0);
  return true;
}

bool MakeIp(const Value* args, const CallContext& ctx, Value* out, std::string* error) {
  if (!Expect(args[0], Type::kString, error)) return false;
  ext::IpAddr addr;
  if (!ext::ParseIp(args[0].string(), &addr, error)) return false;
  *out = Value::Ip(ctx.scratch->New<ext::IpAddr>(addr));
  return true;
}

// The constructors whose value is an int64: decimal, datetime and duration.
template <Type kType, bool (*kParse)(std::string_view, int64_t*, std::string*)>
bool MakeScalar(const Value* args, const CallContext&, Value* out, std::string* error) {
  if (!Expect(args[0], Type::kString, error)) return false;
  int64_t v;
  if (!kParse(args[0].string(), &v, error)) return false;
  *out = Value::Ext(kType, v);
  return true;
}
constexpr BuiltinFn MakeDecimal = MakeScalar<Type::kDecimal, ext::ParseDecimal>;
constexpr BuiltinFn MakeDatetime = MakeScalar<Type::kDatetime, ext::ParseDatetime>;
constexpr BuiltinFn MakeDuration = MakeScalar<Type::kDuration, ext::ParseDuration>;

template <bool (*kTest)(const ext::IpAddr&)>
bool IpTest(const Value* args, const CallContext&, Value* out, std::string* error) {
  if (!Expect(args[0], Type::kIp, error)) return false;
  *out = Value::Bool(kTest(*args[0].ip));
  return true;
}

bool IpIsInRange(const Value* args, const CallContext&, Value* out, std::string* error) {
  if (!Expect(args[0], Type::kIp, error) || !Expect(args[1], Type::kIp, error)) return false;
  *out = Value::Bool(ext::IsInRange(*args[0].ip, *args[1].ip));
  return true;
}

template <typename Compare>
bool DecimalCompare(const Value* args, const CallContext&, Value* out, std::string* error) {
  if (!Expect(args[0], Type::kDecimal, error) || !Expect(args[1], Type::kDecimal, error)) return false;
  *out = Value::Bool(Compare()(args[0].i, args[1].i));
  return true;
}

// A datetime operation on (datetime, kOther) that may fail, making a kResult.
template <Type kOther, Type kResult, bool (*kOp)(int64_t, int64_t, int64_t*, std::string*)>
bool DatetimeOp(const Value* args, const CallContext&, Value* out, std::string* error) {
  if (!Expect(args[0], Type::kDatetime, error) || !Expect(args[1], kOther, error)) return false;
  int64_t r;
  if (!kOp(args[0].i, args[1].i, &r, error)) return false;
  *out = Value::Ext(kResult, r);
  return true;
}
constexpr BuiltinFn DatetimeOffset = DatetimeOp<Type::kDuration, Type::kDatetime, ext::Offset>;
constexpr BuiltinFn DatetimeDurationSince =
    DatetimeOp<Type::kDatetime, Type::kDuration, ext::DurationSince>;

template <Type kResult, bool (*kOp)(int64_t, int64_t*, std::string*)>
bool DatetimePart(const Value* args, const CallContext&, Value* out, std::string* error) {
  if (!Expect(args[0], Type::kDatetime, error)) return false;
  int64_t r;
  if (!kOp(args[0].i, &r, error)) return false;
  *out = Value::Ext(kResult, r);
  return true;
}
constexpr BuiltinFn DatetimeToDate = DatetimePart<Type::kDatetime, ext::ToDate>;
constexpr BuiltinFn DatetimeToTime = DatetimePart<Type::kDuration, ext::ToTime>;

template <int64_t (*kUnits)(int64_t)>
bool DurationIn(const Value* args, const CallContext&, Value* out, std::string* error) {
  if (!Expect(args[0], Type::kDuration, error)) return false;
  *out = Value::Long(kUnits(args[0].i));
  return true;
}

bool FailWithMessage(const Value* args, const CallContext&, Value*, std::string* error) {
  if (!Expect(args[0], Type::kString, error)) return false;
  error->assign(args[0].string());
  return false;
}

}  // namespace

bool ExpectArgType(const Value& v, Type t, std::string* error) {
  if (v.type == t) return true;
  TypeError(error, TypeName(t), v);
  return false;
}

const BuiltinFn kBuiltinFns[kNumBuiltins] = {
#define BUILTIN(id, name, style, family, wrong_arity, cost, result, impl, ...) impl,
#include "builtins/builtins.def"
#undef BUILTIN
};

int FindBuiltin(std::string_view name, CallStyle style) {
  if (style == CallStyle::kInternal) return -1;
  for (uint32_t i = 0; i < kNumBuiltins; ++i) {
    if (kBuiltins[i].name == name && kBuiltins[i].style == style) return static_cast<int>(i);
  }
  return -1;
}

std::string_view ParamTypeName(ParamType t) {
  switch (t) {
    case ParamType::kAny: return "any";
    case ParamType::kBool: return "Bool";
    case ParamType::kLong: return "Long";
    case ParamType::kString: return "String";
    case ParamType::kEntity: return "entity";
    case ParamType::kSet: return "Set";
    case ParamType::kIpaddr: return "ipaddr";
    case ParamType::kDecimal: return "decimal";
    case ParamType::kDatetime: return "datetime";
    case ParamType::kDuration: return "duration";
  }
  return "any";
}

std::string WrongArityMessage(const BuiltinInfo& info, size_t given) {
  return Cat("wrong number of arguments provided to extension function `", info.name,
             "`: expected ", static_cast<int>(info.arity), ", got ", given);
}

}  // namespace charter::internal
