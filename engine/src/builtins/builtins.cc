// The builtins: set and tag methods, and the extension types' functions and
// methods (their parsing and arithmetic live in extensions.cc).
#include "builtins/builtins.h"

#include "builtins/extensions.h"
#include "common/strings.h"
#include "entities/entity_store.h"

namespace charter::internal {
namespace {

void TypeError(std::string* error, std::string_view expected, const Value& got) {
  CatAppend(error, "type error: expected ", expected, ", got ", TypeName(got.type));
}

bool Expect(const Value& v, Type t, std::string* error) {
  if (v.type == t) return true;
  TypeError(error, TypeName(t), v);
  return false;
}

bool SetHas(const Value& set, const Value& v) {
  for (uint32_t i = 0; i < set.size; ++i) {
    if (Equal(set.elements[i], v)) return true;
  }
  return false;
}

const EntityData* EntityOf(const Value& v, const EntityStore* store) {
  uint32_t uid = v.entity->uid != kNoUid ? v.entity->uid : store->Find(v.entity->type, v.entity->id);
  return uid == kNoUid ? nullptr : store->data(uid);
}

// The string argument of an extension constructor.
bool Construct(Builtin id, const Value& arg, const CallContext& ctx, Value* out, std::string* error) {
  if (!Expect(arg, Type::kString, error)) return false;
  std::string_view s = arg.string();
  switch (id) {
    case Builtin::kIp: {
      ext::IpAddr addr;
      if (!ext::ParseIp(s, &addr, error)) return false;
      *out = Value::Ip(ctx.scratch->New<ext::IpAddr>(addr));
      return true;
    }
    case Builtin::kDecimal: {
      int64_t v;
      if (!ext::ParseDecimal(s, &v, error)) return false;
      *out = Value::Ext(Type::kDecimal, v);
      return true;
    }
    case Builtin::kDatetime: {
      int64_t v;
      if (!ext::ParseDatetime(s, &v, error)) return false;
      *out = Value::Ext(Type::kDatetime, v);
      return true;
    }
    default: {
      int64_t v;
      if (!ext::ParseDuration(s, &v, error)) return false;
      *out = Value::Ext(Type::kDuration, v);
      return true;
    }
  }
}

}  // namespace

int FindBuiltin(std::string_view name, CallStyle style) {
  for (uint32_t i = 0; i < kNumBuiltins; ++i) {
    if (kBuiltins[i].name == name && kBuiltins[i].style == style) return static_cast<int>(i);
  }
  return -1;
}

bool CallBuiltin(Builtin id, const Value* args, const CallContext& ctx, Value* out,
                 std::string* error) {
  const Value& self = args[0];
  switch (id) {
    case Builtin::kContains:
      if (!Expect(self, Type::kSet, error)) return false;
      *out = Value::Bool(SetHas(self, args[1]));
      return true;
    case Builtin::kContainsAll:
    case Builtin::kContainsAny: {
      if (!Expect(self, Type::kSet, error) || !Expect(args[1], Type::kSet, error)) return false;
      const Value& other = args[1];
      bool all = true;
      bool any = false;
      for (uint32_t i = 0; i < other.size; ++i) {
        bool has = SetHas(self, other.elements[i]);
        all = all && has;
        any = any || has;
      }
      *out = Value::Bool(id == Builtin::kContainsAll ? all : any);
      return true;
    }
    case Builtin::kIsEmpty:
      if (!Expect(self, Type::kSet, error)) return false;
      *out = Value::Bool(self.size == 0);
      return true;
    case Builtin::kHasTag:
    case Builtin::kGetTag: {
      if (!Expect(self, Type::kEntity, error) || !Expect(args[1], Type::kString, error)) return false;
      const EntityData* data = EntityOf(self, ctx.store);
      const Value* tag = data == nullptr ? nullptr : FindField(data->tags, args[1].string());
      if (id == Builtin::kHasTag) {
        *out = Value::Bool(tag != nullptr);
        return true;
      }
      if (data == nullptr) {
        error->append("entity `");
        AppendEntityToCedar(error, self.entity->type, self.entity->id);
        error->append("` does not exist");
        return false;
      }
      if (tag == nullptr) {
        error->push_back('`');
        AppendEntityToCedar(error, self.entity->type, self.entity->id);
        CatAppend(error, "` does not have the tag `", args[1].string(), "`");
        return false;
      }
      *out = *tag;
      return true;
    }
    case Builtin::kIp:
    case Builtin::kDecimal:
    case Builtin::kDatetime:
    case Builtin::kDuration:
      return Construct(id, self, ctx, out, error);
    case Builtin::kIsIpv4:
    case Builtin::kIsIpv6:
    case Builtin::kIsLoopback:
    case Builtin::kIsMulticast:
      if (!Expect(self, Type::kIp, error)) return false;
      *out = Value::Bool(id == Builtin::kIsIpv4       ? ext::IsIpv4(*self.ip)
                         : id == Builtin::kIsIpv6     ? ext::IsIpv6(*self.ip)
                         : id == Builtin::kIsLoopback ? ext::IsLoopback(*self.ip)
                                                      : ext::IsMulticast(*self.ip));
      return true;
    case Builtin::kIsInRange:
      if (!Expect(self, Type::kIp, error) || !Expect(args[1], Type::kIp, error)) return false;
      *out = Value::Bool(ext::IsInRange(*self.ip, *args[1].ip));
      return true;
    case Builtin::kLessThan:
    case Builtin::kLessThanOrEqual:
    case Builtin::kGreaterThan:
    case Builtin::kGreaterThanOrEqual: {
      if (!Expect(self, Type::kDecimal, error) || !Expect(args[1], Type::kDecimal, error)) return false;
      int64_t a = self.i, b = args[1].i;
      *out = Value::Bool(id == Builtin::kLessThan          ? a < b
                         : id == Builtin::kLessThanOrEqual ? a <= b
                         : id == Builtin::kGreaterThan     ? a > b
                                                           : a >= b);
      return true;
    }
    case Builtin::kOffset: {
      if (!Expect(self, Type::kDatetime, error) || !Expect(args[1], Type::kDuration, error)) return false;
      int64_t r;
      if (!ext::Offset(self.i, args[1].i, &r, error)) return false;
      *out = Value::Ext(Type::kDatetime, r);
      return true;
    }
    case Builtin::kDurationSince: {
      if (!Expect(self, Type::kDatetime, error) || !Expect(args[1], Type::kDatetime, error)) return false;
      int64_t r;
      if (!ext::DurationSince(self.i, args[1].i, &r, error)) return false;
      *out = Value::Ext(Type::kDuration, r);
      return true;
    }
    case Builtin::kToDate:
    case Builtin::kToTime: {
      if (!Expect(self, Type::kDatetime, error)) return false;
      int64_t r;
      if (id == Builtin::kToDate) {
        if (!ext::ToDate(self.i, &r, error)) return false;
        *out = Value::Ext(Type::kDatetime, r);
      } else {
        if (!ext::ToTime(self.i, &r, error)) return false;
        *out = Value::Ext(Type::kDuration, r);
      }
      return true;
    }
    case Builtin::kToDays:
    case Builtin::kToHours:
    case Builtin::kToMinutes:
    case Builtin::kToSeconds:
    case Builtin::kToMilliseconds: {
      if (!Expect(self, Type::kDuration, error)) return false;
      int64_t ms = self.i;
      *out = Value::Long(id == Builtin::kToDays      ? ext::ToDays(ms)
                         : id == Builtin::kToHours   ? ext::ToHours(ms)
                         : id == Builtin::kToMinutes ? ext::ToMinutes(ms)
                         : id == Builtin::kToSeconds ? ext::ToSeconds(ms)
                                                     : ext::ToMilliseconds(ms));
      return true;
    }
  }
  *error = "unknown builtin";
  return false;
}

}  // namespace charter::internal
