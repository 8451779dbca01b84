// Cedar's JSON value encoding -> Values.
#include "entities/json_values.h"

#include <algorithm>
#include <cctype>
#include <vector>

#include "common/diagnostic_codes.h"
#include "common/strings.h"
#include "common/status_macros.h"
#include "common/utf8.h"
#include "json/json_diagnostics.h"
#include "builtins/builtins.h"
#include "schema/schema_model.h"

namespace charter::internal {

absl::Status JsonSource::Error(const char* code, uint32_t offset, std::string_view message) const {
  return json::FaultStatus(name, text, code, json::ValueSpan(text, offset), message);
}

absl::Status JsonSource::KeyError(const char* code, uint32_t offset, std::string_view message) const {
  return json::FaultStatus(name, text, code, json::KeySpan(text, offset), message);
}

namespace {
// Cedar's identifiers are ASCII: [A-Za-z_][A-Za-z0-9_]*.
bool IsIdentStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool IsIdentChar(char c) { return IsIdentStart(c) || (c >= '0' && c <= '9'); }

}  // namespace

// Parses Cedar's `Type::"id"` (namespaces allowed, id with Cedar's escapes).
bool ParseEntityUidText(std::string_view s, EntityUid* out, std::string* why) {
  size_t i = 0;
  std::string type;
  for (;;) {
    if (i >= s.size() || !IsIdentStart(s[i])) {
      *why = "expected an entity type name";
      return false;
    }
    size_t start = i;
    while (i < s.size() && IsIdentChar(s[i])) ++i;
    type.append(s.substr(start, i - start));
    if (s.substr(i, 2) != "::") {
      *why = "expected `::` after the entity type";
      return false;
    }
    i += 2;
    if (i < s.size() && s[i] == '"') break;
    type += "::";
  }
  ++i;
  std::string id;
  while (i < s.size() && s[i] != '"') {
    // The characters up to the next quote or backslash, at once.
    size_t run = i;
    while (run < s.size() && s[run] != '"' && s[run] != '\\') ++run;
    if (run > i) {
      id.append(s.data() + i, run - i);
      i = run;
      continue;
    }
    ++i;  // past the backslash
    if (i >= s.size()) break;
    char e = s[i++];
    switch (e) {
      case 'n': id.push_back('\n'); break;
      case 'r': id.push_back('\r'); break;
      case 't': id.push_back('\t'); break;
      case '0': id.push_back('\0'); break;
      case '\\': id.push_back('\\'); break;
      case '\'': id.push_back('\''); break;
      case '"': id.push_back('"'); break;
      case 'x': {
        auto hex = [](char h) {
          return h >= '0' && h <= '9' ? h - '0'
                 : h >= 'a' && h <= 'f' ? h - 'a' + 10
                 : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                        : -1;
        };
        if (i + 1 >= s.size() || hex(s[i]) < 0 || hex(s[i + 1]) < 0 || hex(s[i]) * 16 + hex(s[i + 1]) > 0x7F) {
          *why = "invalid `\\x` escape in the entity id";
          return false;
        }
        id.push_back(static_cast<char>(hex(s[i]) * 16 + hex(s[i + 1])));
        i += 2;
        break;
      }
      case 'u': {
        size_t close = s.find('}', i);
        if (i >= s.size() || s[i] != '{' || close == std::string_view::npos || close - i < 2 ||
            close - i > 7) {
          *why = "invalid `\\u` escape in the entity id";
          return false;
        }
        uint32_t v = 0;
        for (size_t k = i + 1; k < close; ++k) {
          char h = s[k];
          int d = std::isdigit(static_cast<unsigned char>(h)) ? h - '0'
                  : (h >= 'a' && h <= 'f')                    ? h - 'a' + 10
                  : (h >= 'A' && h <= 'F')                    ? h - 'A' + 10
                                                              : -1;
          if (d < 0) {
            *why = "invalid `\\u` escape in the entity id";
            return false;
          }
          v = v * 16 + static_cast<uint32_t>(d);
        }
        if (v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) {
          *why = "invalid `\\u` escape in the entity id";
          return false;
        }
        AppendUtf8(&id, v);
        i = close + 1;
        break;
      }
      default:
        *why = Cat("invalid escape `\\", std::string(1, e), "` in the entity id");
        return false;
    }
  }
  if (i >= s.size() || s[i] != '"' || i + 1 != s.size()) {
    *why = "expected the entity id as a quoted string ending the reference";
    return false;
  }
  // The object form's rule: reserved words and `__cedar` are no type names.
  if (!IsValidEntityTypeName(type)) {
    *why = Cat("`", type, "` is not a valid entity type name");
    return false;
  }
  out->type = std::move(type);
  out->id = std::move(id);
  return true;
}

absl::Status ReadEntityUidOrText(const json::Value& v, const JsonSource& src, std::string_view field,
                                 EntityUid* out) {
  if (v.is_string()) {
    std::string why;
    if (!ParseEntityUidText(v.as_string(), out, &why)) {
      return src.Error(codes::CH0605, v.offset(), Cat("`", field, "` is not an entity reference: ", why,
                                                "; write it as `Type::\"id\"` or as an object with `type` and `id`"));
    }
    return absl::OkStatus();
  }
  std::string_view type, id;
  RETURN_IF_ERROR(ReadEntityUid(v, src, Cat("`", field, "`"), &type, &id));
  out->type = std::string(type);
  out->id = std::string(id);
  return absl::OkStatus();
}

absl::Status ReadEntityUid(const json::Value& v, const JsonSource& src, std::string_view what,
                           std::string_view* type, std::string_view* id) {
  const json::Value* uid = &v;
  if (v.is_object() && v.size() == 1 && v.key(0) == "__entity") uid = &v.member(0);
  if (!uid->is_object()) {
    return src.Error(codes::CH0605, v.offset(), Cat(what, " must be an object with `type` and `id`"));
  }
  const json::Value* t = nullptr;
  const json::Value* i = nullptr;
  for (size_t k = 0; k < uid->size(); ++k) {
    if (uid->key(k) == "type") {
      t = &uid->member(k);
    } else if (uid->key(k) == "id") {
      i = &uid->member(k);
    } else {
      return src.KeyError(codes::CH0605, uid->key_offset(k),
                       Cat("unexpected key `", uid->key(k), "` in ", what,
                                    "; expected `type` and `id`"));
    }
  }
  if (t == nullptr || i == nullptr) {
    return src.Error(codes::CH0605, uid->offset(), Cat(what, " lacks `", t == nullptr ? "type" : "id", "`"));
  }
  if (!t->is_string()) return src.Error(codes::CH0605, t->offset(), Cat("the `type` of ", what, " must be a string"));
  if (!i->is_string()) return src.Error(codes::CH0605, i->offset(), Cat("the `id` of ", what, " must be a string"));
  std::string_view name = t->as_string();
  bool ok = IsValidEntityTypeName(name);
  if (!ok) {
    return src.Error(codes::CH0605, t->offset(), Cat("`", name, "` is not a valid entity type name"));
  }
  *type = name;
  *id = i->as_string();
  return absl::OkStatus();
}


bool IsValidEntityTypeName(std::string_view name) {
  static constexpr std::string_view kReserved[] = {"true", "false", "if", "then", "else",
                                                   "in", "is", "like", "has"};
  if (name.empty()) return false;
  size_t start = 0;
  for (;;) {
    size_t end = name.find("::", start);
    std::string_view part = name.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    if (part.empty() || !IsIdentStart(part[0])) return false;
    for (char c : part) {
      if (!IsIdentChar(c)) return false;
    }
    for (std::string_view r : kReserved) {
      if (part == r) return false;
    }
    if (part.substr(0, 7) == "__cedar") return false;
    if (end == std::string_view::npos) return true;
    start = end + 2;
  }
}

namespace {

// The string members `type` and `id` of an object (other keys ignored), or
// of a two-string array; false when `v` is neither.
bool TypeAndId(const json::Value& v, const json::Value** type, const json::Value** id) {
  if (v.is_array()) {
    if (v.size() != 2 || !v.at(0).is_string() || !v.at(1).is_string()) return false;
    *type = &v.at(0);
    *id = &v.at(1);
    return true;
  }
  const json::Value* t = v.Find("type");
  const json::Value* i = v.Find("id");
  if (t == nullptr || i == nullptr || !t->is_string() || !i->is_string()) return false;
  *type = t;
  *id = i;
  return true;
}

bool HasExprEscape(const json::Value& v) {
  const json::Value* e = v.Find("__expr");
  return e != nullptr && e->is_string();
}

}  // namespace

absl::Status ReadEntityUidJson(const json::Value& v, const JsonSource& src, std::string_view what,
                               std::string_view* type, std::string_view* id) {
  const json::Value* t = nullptr;
  const json::Value* i = nullptr;
  if (v.is_object() && HasExprEscape(v)) {
    return src.Error(codes::CH0605, v.offset(), Cat(what, ": the `__expr` escape is not supported"));
  }
  const json::Value* escaped = v.Find("__entity");
  bool found = (escaped != nullptr && TypeAndId(*escaped, &t, &i)) || TypeAndId(v, &t, &i);
  if (!found) {
    // Say what is missing from the object meant.
    const json::Value& meant = escaped != nullptr && !v.Find("type") ? *escaped : v;
    if (!meant.is_object()) return src.Error(codes::CH0605, v.offset(), Cat(what, " must be an object with `type` and `id`"));
    t = meant.Find("type");
    i = meant.Find("id");
    if (t == nullptr || i == nullptr) {
      return src.Error(codes::CH0605, meant.offset(), Cat(what, " lacks `", t == nullptr ? "type" : "id", "`"));
    }
    if (!t->is_string()) return src.Error(codes::CH0605, t->offset(), Cat("the `type` of ", what, " must be a string"));
    return src.Error(codes::CH0605, i->offset(), Cat("the `id` of ", what, " must be a string"));
  }
  if (!IsValidEntityTypeName(t->as_string())) {
    return src.Error(codes::CH0605, t->offset(), Cat("`", t->as_string(), "` is not a valid entity type name"));
  }
  *type = t->as_string();
  *id = i->as_string();
  return absl::OkStatus();
}

// --- values ------------------------------------------------------------------

namespace {

using SK = SchemaType::Kind;

// The extension function `__extn` names (a function or a method of an
// extension type in the builtin registry), or null.
const BuiltinInfo* FindExtensionFunction(std::string_view name) {
  for (const BuiltinInfo& f : kBuiltins) {
    if (f.name == name && IsExtensionFunction(f)) return &f;
  }
  return nullptr;
}

Builtin IdOf(const BuiltinInfo* f) { return static_cast<Builtin>(f - kBuiltins); }

bool FnAndArgs(const json::Value& v, const json::Value** fn, std::vector<const json::Value*>* args) {
  if (!v.is_object()) return false;
  const json::Value* f = v.Find("fn");
  if (f == nullptr || !f->is_string()) return false;
  args->clear();
  if (const json::Value* a = v.Find("arg"); a != nullptr) {
    args->push_back(a);
  } else if (const json::Value* as = v.Find("args"); as != nullptr && as->is_array()) {
    for (size_t i = 0; i < as->size(); ++i) args->push_back(&as->at(i));
  } else {
    return false;
  }
  *fn = f;
  return true;
}

Type ValueTypeOf(std::string_view extension) {
  return extension == "ipaddr"    ? Type::kIp
         : extension == "decimal" ? Type::kDecimal
         : extension == "datetime" ? Type::kDatetime
                                   : Type::kDuration;
}


}  // namespace

std::string KindName(const Value& v) {
  switch (v.type) {
    case Type::kBool: return "a boolean";
    case Type::kLong: return "a long";
    case Type::kString: return "a string";
    case Type::kEntity: return Cat("an entity of type `", v.entity->type, "`");
    case Type::kSet: return "a set";
    case Type::kRecord: return "a record";
    case Type::kIp: return "an ipaddr";
    case Type::kDecimal: return "a decimal";
    case Type::kDatetime: return "a datetime";
    case Type::kDuration: return "a duration";
  }
  return "a value";
}

ValueReader::ValueReader(const JsonSource& src, Arena* arena, const EntityInterner& intern,
                         int max_nesting, const SchemaModel* schema)
    : src_(src), arena_(arena), intern_(intern), max_nesting_(max_nesting), schema_(schema) {}

absl::Status ValueReader::Fail(const json::Value& at, std::string_view message, const char* code) const {
  return Fail(at.offset(), message, code);
}

std::string ValueReader::PathText() const {
  std::string path;
  for (const std::string& step : path_) {
    if (!path.empty() && step[0] != '[') path.push_back('.');
    path += step;
  }
  return path;
}

absl::Status ValueReader::Fail(uint32_t offset, std::string_view message, const char* code) const {
  if (!typed_) return src_.Error(code, offset, message);
  std::string path = PathText();
  if (path.empty()) return src_.Error(code, offset, Cat(where_, ": ", message));
  return src_.Error(code, offset, Cat(where_, ": ", kind_, " `", path, "`: ", message));
}

absl::Status ValueReader::Mismatch(const json::Value& at, const SchemaType& t, const Value& v) const {
  return Fail(at, Cat("expected `", TypeName(t), "`, found ", KindName(v)), codes::CH0608);
}

absl::Status ValueReader::CheckEntityRef(const json::Value& at, const EntityRef& e) const {
  if (schema_ == nullptr) return absl::OkStatus();
  std::string type(e.type);
  if (IsActionType(type)) {
    if (schema_->FindAction({type, std::string(e.id)}) == nullptr) {
      return Fail(at, Cat("`", EntityToCedar(e.type, e.id), "` is not an action of the schema"), codes::CH0608);
    }
    return absl::OkStatus();
  }
  const EntityTypeInfo* info = schema_->FindEntityType(type);
  if (info != nullptr && info->is_enum &&
      std::find(info->choices.begin(), info->choices.end(), e.id) == info->choices.end()) {
    return Fail(at, Cat("`", EntityToCedar(e.type, e.id), "` is not one of the values of enumerated type `",
                        e.type, "`"), codes::CH0608);
  }
  return absl::OkStatus();
}

absl::StatusOr<Value> ValueReader::MakeSet(std::vector<Value>& elems) {
  // Duplicates are dropped: a set's elements are unique (in linear time:
  // a set of 160,000 integers took 27 s pairwise).
  size_t n = AppendUnique(elems.data(), 0, elems.data(), static_cast<uint32_t>(elems.size()));
  Value* out = arena_->AllocateArray<Value>(n);
  std::copy(elems.begin(), elems.begin() + n, out);
  return Value::Set(out, static_cast<uint32_t>(n));
}

absl::StatusOr<Value> ValueReader::ReadRecord(const json::Value& v, std::string_view what) {
  if (!v.is_object()) return src_.Error(codes::CH0602, v.offset(), Cat(what, " must be a JSON object"));
  if (max_nesting_ <= 0) return src_.Error(codes::CH0601, v.offset(), "values are nested too deeply");
  uint32_t n = static_cast<uint32_t>(v.size());
  RecordField* fields = arena_->AllocateArray<RecordField>(n);
  for (uint32_t k = 0; k < n; ++k) {
    fields[k].key = arena_->CopyString(v.key(k));
    ASSIGN_OR_RETURN(fields[k].value, Generic(v.member(k), max_nesting_ - 1));
  }
  std::sort(fields, fields + n, [](const RecordField& a, const RecordField& b) { return a.key < b.key; });
  for (uint32_t k = 1; k < n; ++k) {
    if (fields[k].key == fields[k - 1].key) {
      return src_.Error(codes::CH0604, v.offset(), Cat("duplicate key `", fields[k].key, "`"));
    }
  }
  return Value::Record(fields, n);
}

// Calls extension function `fn` on `args`: read for the function's argument
// types when `expected` (the declared type of the value) is an extension
// type, as Cedar's schema-based parsing does, else without a schema.
absl::StatusOr<Value> ValueReader::Call(const json::Value& at, std::string_view fn,
                                        const json::Value* const* args, size_t n,
                                        const SchemaType* expected, int depth) {
  if (fn == "unknown") {
    return Fail(at, "`unknown` values are for partial evaluation, which Charter does not do");
  }
  const BuiltinInfo* f = FindExtensionFunction(fn);
  if (f == nullptr) {
    return Fail(at, Cat("unknown extension function `", fn,
                        "`; expected `ip`, `decimal`, `datetime` or `duration`"));
  }
  if (n != f->arity) {
    return Fail(at, Cat("`", fn, "` takes ", f->arity, f->arity == 1 ? " argument" : " arguments", ", ", n,
                        " given"));
  }
  Value values[2];
  for (size_t k = 0; k < n; ++k) {
    if (expected != nullptr && f->params[k] != ParamType::kString) {
      SchemaType arg_type;
      arg_type.kind = SK::kExtension;
      arg_type.name = std::string(ParamTypeName(f->params[k]));
      ASSIGN_OR_RETURN(values[k], Typed(*args[k], arg_type, depth));
    } else {
      ASSIGN_OR_RETURN(values[k], Generic(*args[k], depth));
    }
  }
  if (f->params[0] == ParamType::kString && values[0].type != Type::kString) {
    return Fail(*args[0], Cat("the argument of `", fn, "` must be a string"));
  }
  Value out;
  std::string error;
  CallContext ctx{nullptr, arena_};
  if (!CallBuiltin(IdOf(f), values, ctx, &out, &error)) {
    // A constructor's fault is in its string.
    if (f->params[0] == ParamType::kString) return Fail(*args[0], error);
    return Fail(at, Cat("`", fn, "`: ", error));
  }
  return out;
}

absl::StatusOr<Value> ValueReader::Generic(const json::Value& v, int depth) {
  switch (v.kind()) {
    case json::Kind::kNull:
      return Fail(v, "`null` is not a value");
    case json::Kind::kBool:
      return Value::Bool(v.as_bool());
    case json::Kind::kNumber:
      if (!v.is_integer_literal()) {
        return Fail(v, Cat("`", v.number_text(), "` is not an integer; only integers are values"));
      }
      if (!v.fits_int64()) return Fail(v, Cat("integer `", v.number_text(), "` does not fit in 64 bits"));
      return Value::Long(v.as_int64());
    case json::Kind::kString:
      return Value::String(arena_->CopyString(v.as_string()));
    case json::Kind::kArray: {
      if (depth <= 0) return Fail(v, "values are nested too deeply", codes::CH0601);
      std::vector<Value> elems;
      elems.reserve(v.size());
      for (size_t k = 0; k < v.size(); ++k) {
        ASSIGN_OR_RETURN(Value e, Generic(v.at(k), depth - 1));
        elems.push_back(e);
      }
      return MakeSet(elems);
    }
    case json::Kind::kObject:
      if (v.size() == 1) {
        std::string_view key = v.key(0);
        const json::Value& inner = v.member(0);
        // The escapes, when they have exactly Cedar's shape; anything else
        // is an ordinary record.
        if (key == "__extn" && inner.is_object() && inner.size() >= 2) {
          const json::Value* fn = nullptr;
          std::vector<const json::Value*> args;
          if (FnAndArgs(inner, &fn, &args)) {
            if (depth <= 0) return Fail(v, "values are nested too deeply", codes::CH0601);
            return Call(inner, fn->as_string(), args.data(), args.size(), nullptr, depth - 1);
          }
        }
        if (key == "__expr" && inner.is_string()) return Fail(v, "the `__expr` escape is not supported");
        if (key == "__entity" && inner.is_object() && inner.size() >= 2) {
          const json::Value* t = inner.Find("type");
          const json::Value* i = inner.Find("id");
          if (t != nullptr && i != nullptr && t->is_string() && i->is_string()) {
            if (!IsValidEntityTypeName(t->as_string())) {
              return Fail(*t, Cat("`", t->as_string(), "` is not a valid entity type name"), codes::CH0605);
            }
            return Value::Entity(intern_(t->as_string(), i->as_string()));
          }
        }
      }
      {
        if (depth <= 0) return Fail(v, "values are nested too deeply", codes::CH0601);
        uint32_t n = static_cast<uint32_t>(v.size());
        RecordField* fields = arena_->AllocateArray<RecordField>(n);
        for (uint32_t k = 0; k < n; ++k) {
          fields[k].key = arena_->CopyString(v.key(k));
          ASSIGN_OR_RETURN(fields[k].value, Generic(v.member(k), depth - 1));
        }
        std::sort(fields, fields + n, [](const RecordField& a, const RecordField& b) { return a.key < b.key; });
        for (uint32_t k = 1; k < n; ++k) {
          if (fields[k].key == fields[k - 1].key) return Fail(v, Cat("duplicate key `", fields[k].key, "`"), codes::CH0604);
        }
        return Value::Record(fields, n);
      }
  }
  return Fail(v, "unexpected JSON value");
}

absl::StatusOr<Value> ValueReader::ReadTyped(const json::Value& v, const SchemaType& t, std::string where,
                                             std::string kind) {
  typed_ = true;
  where_ = std::move(where);
  kind_ = std::move(kind);
  path_.clear();
  absl::StatusOr<Value> out = Typed(v, t, max_nesting_);
  typed_ = false;
  return out;
}

absl::StatusOr<Value> ValueReader::Typed(const json::Value& v, const SchemaType& t, int depth) {
  // `{"__extn": {"fn": "unknown", ...}}` is refused whatever the type.
  if (const json::Value* e = v.Find("__extn"); e != nullptr && v.is_object()) {
    const json::Value* fn = nullptr;
    std::vector<const json::Value*> args;
    if (FnAndArgs(*e, &fn, &args) && fn->as_string() == "unknown") {
      return Fail(v, "`unknown` values are for partial evaluation, which Charter does not do");
    }
  }
  switch (t.kind) {
    case SK::kEntity:
    case SK::kAnyEntity: {
      std::string_view type, id;
      const json::Value* ty = nullptr;
      const json::Value* i = nullptr;
      if (v.is_object() && HasExprEscape(v)) return Fail(v, "the `__expr` escape is not supported");
      const json::Value* escaped = v.Find("__entity");
      if (!((escaped != nullptr && TypeAndId(*escaped, &ty, &i)) || TypeAndId(v, &ty, &i))) {
        return Fail(v, Cat("expected an entity of type `", TypeName(t),
                           "`: an object with string `type` and `id`"), codes::CH0608);
      }
      if (!IsValidEntityTypeName(ty->as_string())) {
        return Fail(*ty, Cat("`", ty->as_string(), "` is not a valid entity type name"), codes::CH0605);
      }
      type = ty->as_string();
      id = i->as_string();
      if (t.kind == SK::kEntity && type != t.name) {
        return Fail(v, Cat("expected an entity of type `", t.name, "`, found `", EntityToCedar(type, id), "`"),
                    codes::CH0608);
      }
      const EntityRef* ref = intern_(type, id);
      RETURN_IF_ERROR(CheckEntityRef(v, *ref));
      return Value::Entity(ref);
    }
    case SK::kExtension: {
      if (v.is_object() && HasExprEscape(v)) return Fail(v, "the `__expr` escape is not supported");
      const json::Value* fn = nullptr;
      std::vector<const json::Value*> args;
      Value out;
      // `{"__extn": {"fn", "arg"}}`, or the same without `__extn`.
      const json::Value* call = v.Find("__extn");
      if (call == nullptr || !FnAndArgs(*call, &fn, &args)) call = FnAndArgs(v, &fn, &args) ? &v : nullptr;
      if (call != nullptr) {
        if (depth <= 0) return Fail(v, "values are nested too deeply", codes::CH0601);
        ASSIGN_OR_RETURN(out, Call(*call, fn->as_string(), args.data(), args.size(), &t, depth - 1));
      } else {
        // The constructor of the type, on a string.
        if (!v.is_string()) {
          return Fail(v, Cat("expected `", t.name, "`: its string, such as `",
                             t.name == "ipaddr"    ? "10.0.0.1"
                             : t.name == "decimal" ? "1.5"
                             : t.name == "datetime" ? "2025-01-01"
                                                    : "1h30m",
                             "`, or an `__extn` object"),
                      codes::CH0608);
        }
        const BuiltinInfo* ctor = FindExtensionFunction(
            t.name == "ipaddr" ? std::string_view("ip") : std::string_view(t.name));
        Value arg = Value::String(arena_->CopyString(v.as_string()));
        std::string error;
        CallContext ctx{nullptr, arena_};
        if (ctor == nullptr || !CallBuiltin(IdOf(ctor), &arg, ctx, &out, &error)) return Fail(v, error);
      }
      if (out.type != ValueTypeOf(t.name)) return Mismatch(v, t, out);
      return out;
    }
    case SK::kSet: {
      if (!v.is_array()) {
        ASSIGN_OR_RETURN(Value got, Generic(v, depth));
        return Mismatch(v, t, got);
      }
      if (depth <= 0) return Fail(v, "values are nested too deeply", codes::CH0601);
      std::vector<Value> elems;
      elems.reserve(v.size());
      for (size_t k = 0; k < v.size(); ++k) {
        path_.push_back(Cat("[", k, "]"));
        absl::StatusOr<Value> e = t.elem == nullptr ? Generic(v.at(k), depth - 1) : Typed(v.at(k), *t.elem, depth - 1);
        path_.pop_back();
        if (!e.ok()) return e.status();
        elems.push_back(*e);
      }
      return MakeSet(elems);
    }
    case SK::kRecord: {
      if (!v.is_object()) {
        ASSIGN_OR_RETURN(Value got, Generic(v, depth));
        return Mismatch(v, t, got);
      }
      if (depth <= 0) return Fail(v, "values are nested too deeply", codes::CH0601);
      for (size_t k = 0; k < v.size(); ++k) {
        if (t.attrs.count(std::string(v.key(k))) == 0 && !t.open) {
          path_.push_back(std::string(v.key(k)));
          std::string path = PathText();
          path_.pop_back();
          return src_.KeyError(codes::CH0608, v.key_offset(k),
                               Cat(where_, ": ", kind_, " `", path, "` is not declared in the schema"));
        }
      }
      std::vector<RecordField> fields;
      for (const auto& [key, attr] : t.attrs) {
        const json::Value* f = v.Find(key);
        if (f == nullptr) {
          if (attr.required) return Fail(v, Cat("lacks the required attribute `", key, "`"), codes::CH0608);
          continue;
        }
        path_.push_back(key);
        absl::StatusOr<Value> fv = Typed(*f, *attr.type, depth - 1);
        path_.pop_back();
        if (!fv.ok()) return fv.status();
        fields.push_back({arena_->CopyString(key), *fv});
      }
      // t.attrs is a std::map: the fields are sorted by key already.
      RecordField* out = arena_->AllocateArray<RecordField>(fields.size());
      std::copy(fields.begin(), fields.end(), out);
      return Value::Record(out, static_cast<uint32_t>(fields.size()));
    }
    case SK::kBool:
    case SK::kTrue:
    case SK::kFalse:
    case SK::kLong:
    case SK::kString: {
      ASSIGN_OR_RETURN(Value got, Generic(v, depth));
      Type want = t.kind == SK::kLong ? Type::kLong : t.kind == SK::kString ? Type::kString : Type::kBool;
      if (got.type != want) return Mismatch(v, t, got);
      return got;
    }
    case SK::kNever:
      break;
  }
  return Fail(v, Cat("no value has type `", TypeName(t), "`"), codes::CH0608);
}

}  // namespace charter::internal

namespace charter::internal {

BuiltValueReader::BuiltValueReader(std::string_view source_name, Arena* arena, const EntityInterner& intern,
                                   int max_nesting, const SchemaModel* schema)
    : source_name_(source_name), arena_(arena), intern_(intern), max_nesting_(max_nesting), schema_(schema) {}

absl::Status BuiltValueReader::Fail(std::string_view message) const {
  return absl::InvalidArgumentError(Cat(source_name_, ": ",
                                        entity_ != nullptr ? Cat("entity ", EntityToCedar(entity_->type, entity_->id))
                                                           : std::string("context"),
                                        ": ", message));
}

absl::Status BuiltValueReader::FailAt(std::string_view message) const {
  if (path_.empty()) return Fail(message);
  std::string path;
  for (const std::string& step : path_) CatAppend(&path, path.empty() || step[0] == '[' ? "" : ".", step);
  return Fail(Cat(kind_, " `", path, "`: ", message));
}

absl::Status BuiltValueReader::Mismatch(const SchemaType& t, const Value& v) const {
  return FailAt(Cat("expected `", TypeName(t), "`, found ", KindName(v)));
}

absl::Status BuiltValueReader::CheckEntityRef(const EntityRef& e) const {
  if (schema_ == nullptr) return absl::OkStatus();
  std::string type(e.type);
  if (IsActionType(type)) {
    if (schema_->FindAction({type, std::string(e.id)}) == nullptr) {
      return FailAt(Cat("`", EntityToCedar(e.type, e.id), "` is not an action of the schema"));
    }
    return absl::OkStatus();
  }
  const EntityTypeInfo* info = schema_->FindEntityType(type);
  if (info != nullptr && info->is_enum &&
      std::find(info->choices.begin(), info->choices.end(), e.id) == info->choices.end()) {
    return FailAt(Cat("`", EntityToCedar(e.type, e.id), "` is not one of the values of enumerated type `", e.type,
                      "`"));
  }
  return absl::OkStatus();
}

absl::StatusOr<Value> BuiltValueReader::Call(const std::string& fn, const std::string& arg) {
  if (fn == "unknown") return FailAt("`unknown` values are for partial evaluation, which Charter does not do");
  const BuiltinInfo* f = FindExtensionFunction(fn);
  if (f == nullptr) {
    return FailAt(Cat("unknown extension function `", fn, "`; expected `ip`, `decimal`, `datetime` or `duration`"));
  }
  if (f->arity != 1) {
    return FailAt(Cat("`", fn, "` takes ", f->arity, f->arity == 1 ? " argument" : " arguments", ", 1 given"));
  }
  if (f->params[0] != ParamType::kString) return FailAt(Cat("the argument of `", fn, "` must be a string"));
  Value in = Value::String(arena_->CopyString(arg));
  Value out;
  std::string error;
  CallContext ctx{nullptr, arena_};
  if (!CallBuiltin(IdOf(f), &in, ctx, &out, &error)) return FailAt(error);
  return out;
}

template <typename KeyAt, typename ValueAt>
absl::StatusOr<Value> BuiltValueReader::Record(size_t size, KeyAt key_at, ValueAt value_at, const SchemaType* t,
                                               int depth) {
  if (depth <= 0) return FailAt("values are nested too deeply");
  uint32_t n = static_cast<uint32_t>(size);
  if (t == nullptr) {
    RecordField* fields = arena_->AllocateArray<RecordField>(n);
    for (uint32_t k = 0; k < n; ++k) {
      fields[k].key = arena_->CopyString(key_at(k));
      path_.push_back(key_at(k));
      absl::StatusOr<Value> v = Generic(value_at(k), depth - 1);
      path_.pop_back();
      if (!v.ok()) return v.status();
      fields[k].value = *v;
    }
    std::sort(fields, fields + n, [](const RecordField& a, const RecordField& b) { return a.key < b.key; });
    for (uint32_t k = 1; k < n; ++k) {
      if (fields[k].key == fields[k - 1].key) return FailAt(Cat("duplicate key `", fields[k].key, "`"));
    }
    return Value::Record(fields, n);
  }
  // For the record type `t`: exactly its attributes (an open record's others
  // are dropped, as the JSON reader drops them), required ones present.
  for (uint32_t k = 0; k < n; ++k) {
    for (uint32_t j = 0; j < k; ++j) {
      if (key_at(j) == key_at(k)) return FailAt(Cat("duplicate key `", key_at(k), "`"));
    }
    if (!t->open && t->attrs.count(key_at(k)) == 0) {
      // "KIND `PATH` is not declared", as the JSON reader words it.
      std::string path;
      for (const std::string& step : path_) CatAppend(&path, path.empty() || step[0] == '[' ? "" : ".", step);
      return Fail(Cat(kind_, " `", path, path.empty() ? "" : ".", key_at(k), "` is not declared in the schema"));
    }
  }
  std::vector<RecordField> fields;
  for (const auto& [key, attr] : t->attrs) {
    uint32_t k = 0;
    while (k < n && key_at(k) != key) ++k;
    if (k == n) {
      if (attr.required) return FailAt(Cat("lacks the required attribute `", key, "`"));
      continue;
    }
    path_.push_back(key);
    absl::StatusOr<Value> v = Typed(value_at(k), *attr.type, depth - 1);
    path_.pop_back();
    if (!v.ok()) return v.status();
    fields.push_back({arena_->CopyString(key), *v});
  }
  RecordField* out = arena_->AllocateArray<RecordField>(fields.size());
  std::copy(fields.begin(), fields.end(), out);
  return Value::Record(out, static_cast<uint32_t>(fields.size()));
}

absl::StatusOr<Value> BuiltValueReader::ReadRecord(const Fields& fields, const SchemaType* t,
                                                   const EntityUid* entity, std::string_view kind) {
  entity_ = entity;
  kind_ = kind;
  path_.clear();
  return Record(
      fields.size(), [&](uint32_t k) -> const std::string& { return fields[k].first; },
      [&](uint32_t k) -> const charter::Value& { return fields[k].second; }, t, max_nesting_);
}

absl::StatusOr<Value> BuiltValueReader::ReadRecord(const charter::Value& record, const SchemaType* t,
                                                   const EntityUid* entity, std::string_view kind) {
  entity_ = entity;
  kind_ = kind;
  path_.clear();
  if (record.kind() != charter::Value::Kind::kRecord) return Fail("must be a record");
  return Record(
      record.keys().size(), [&](uint32_t k) -> const std::string& { return record.keys()[k]; },
      [&](uint32_t k) -> const charter::Value& { return record.elements()[k]; }, t, max_nesting_);
}

namespace {

// The field `key` of a record built in code, or null.
const charter::Value* FieldOf(const charter::Value& v, std::string_view key) {
  if (v.kind() != charter::Value::Kind::kRecord) return nullptr;
  for (size_t k = 0; k < v.keys().size(); ++k) {
    if (v.keys()[k] == key) return &v.elements()[k];
  }
  return nullptr;
}

bool IsString(const charter::Value* v) { return v != nullptr && v->kind() == charter::Value::Kind::kString; }

// An entity in one of the plain forms the JSON reader takes for a declared
// entity type (TypeAndId): {"type": S, "id": S} or a set of two strings.
bool PlainUid(const charter::Value& v, EntityUid* out) {
  if (v.kind() == charter::Value::Kind::kSet) {
    if (v.elements().size() != 2 || !IsString(&v.elements()[0]) || !IsString(&v.elements()[1])) return false;
    *out = EntityUid{v.elements()[0].string_value(), v.elements()[1].string_value()};
    return true;
  }
  const charter::Value* t = FieldOf(v, "type");
  const charter::Value* i = FieldOf(v, "id");
  if (!IsString(t) || !IsString(i)) return false;
  *out = EntityUid{t->string_value(), i->string_value()};
  return true;
}

// An extension call written as a record, {"fn": S, "arg": S}, as the JSON
// reader's FnAndArgs takes it (with a string argument).
bool PlainCall(const charter::Value& v, const std::string** fn, const std::string** arg) {
  const charter::Value* f = FieldOf(v, "fn");
  const charter::Value* a = FieldOf(v, "arg");
  if (!IsString(f) || !IsString(a)) return false;
  *fn = &f->string_value();
  *arg = &a->string_value();
  return true;
}

}  // namespace

absl::StatusOr<Value> BuiltValueReader::Generic(const charter::Value& v, int depth) {
  using K = charter::Value::Kind;
  switch (v.kind()) {
    case K::kBool: return Value::Bool(v.bool_value());
    case K::kLong: return Value::Long(v.long_value());
    case K::kString: return Value::String(arena_->CopyString(v.string_value()));
    case K::kEntity:
      if (!IsValidEntityTypeName(v.entity().type)) {
        return FailAt(Cat("`", v.entity().type, "` is not a valid entity type name"));
      }
      return Value::Entity(intern_(v.entity().type, v.entity().id));
    case K::kExtension:
      if (depth <= 0) return FailAt("values are nested too deeply");
      return Call(v.function(), v.string_value());
    case K::kSet: {
      if (depth <= 0) return FailAt("values are nested too deeply");
      std::vector<Value> elems;
      elems.reserve(v.elements().size());
      for (const charter::Value& e : v.elements()) {
        ASSIGN_OR_RETURN(Value x, Generic(e, depth - 1));
        elems.push_back(x);
      }
      size_t n = AppendUnique(elems.data(), 0, elems.data(), static_cast<uint32_t>(elems.size()));
      Value* out = arena_->AllocateArray<Value>(n);
      std::copy(elems.begin(), elems.begin() + n, out);
      return Value::Set(out, static_cast<uint32_t>(n));
    }
    case K::kRecord:
      // A record of one field in the shape of one of Cedar's JSON escapes
      // is read as the JSON reader reads its text (Value::ToJson).
      if (v.keys().size() == 1) {
        const std::string& key = v.keys()[0];
        const charter::Value& inner = v.elements()[0];
        const std::string *fn = nullptr, *arg = nullptr;
        if (key == "__extn" && PlainCall(inner, &fn, &arg)) {
          if (depth <= 0) return FailAt("values are nested too deeply");
          return Call(*fn, *arg);
        }
        if (key == "__expr" && inner.kind() == K::kString) return FailAt("the `__expr` escape is not supported");
        EntityUid uid;
        if (key == "__entity" && inner.kind() == K::kRecord && PlainUid(inner, &uid)) {
          if (!IsValidEntityTypeName(uid.type)) return FailAt(Cat("`", uid.type, "` is not a valid entity type name"));
          return Value::Entity(intern_(uid.type, uid.id));
        }
      }
      return Record(
          v.keys().size(), [&](uint32_t k) -> const std::string& { return v.keys()[k]; },
          [&](uint32_t k) -> const charter::Value& { return v.elements()[k]; }, nullptr, depth);
  }
  return FailAt("unexpected value");
}

absl::StatusOr<Value> BuiltValueReader::Typed(const charter::Value& v, const SchemaType& t, int depth) {
  using K = charter::Value::Kind;
  // Records in the shapes of Cedar's JSON escapes are read for a declared
  // type as the JSON reader reads their text (Value::ToJson): `__extn` of
  // `unknown` refused whatever the type, `__expr` refused where an entity
  // or an extension value is expected, and the plain forms below.
  if (const charter::Value* e = FieldOf(v, "__extn"); e != nullptr) {
    const std::string *fn = nullptr, *arg = nullptr;
    if (PlainCall(*e, &fn, &arg) && *fn == "unknown") {
      return FailAt("`unknown` values are for partial evaluation, which Charter does not do");
    }
  }
  if ((t.kind == SK::kEntity || t.kind == SK::kAnyEntity || t.kind == SK::kExtension) &&
      IsString(FieldOf(v, "__expr"))) {
    return FailAt("the `__expr` escape is not supported");
  }
  switch (t.kind) {
    case SK::kEntity:
    case SK::kAnyEntity: {
      EntityUid plain;
      if (v.kind() != K::kEntity) {
        const charter::Value* escaped = FieldOf(v, "__entity");
        if (!((escaped != nullptr && PlainUid(*escaped, &plain)) || PlainUid(v, &plain))) {
          return FailAt(Cat("expected an entity of type `", TypeName(t), "`: an object with string `type` and `id`"));
        }
      }
      const EntityUid& uid = v.kind() == K::kEntity ? v.entity() : plain;
      if (!IsValidEntityTypeName(uid.type)) {
        return FailAt(Cat("`", uid.type, "` is not a valid entity type name"));
      }
      if (t.kind == SK::kEntity && uid.type != t.name) {
        return FailAt(Cat("expected an entity of type `", t.name, "`, found `", EntityToCedar(uid.type, uid.id), "`"));
      }
      const EntityRef* ref = intern_(uid.type, uid.id);
      RETURN_IF_ERROR(CheckEntityRef(*ref));
      return Value::Entity(ref);
    }
    case SK::kExtension: {
      Value out;
      const std::string *fn = nullptr, *arg = nullptr;
      const charter::Value* call = FieldOf(v, "__extn");
      if (call == nullptr || !PlainCall(*call, &fn, &arg)) call = PlainCall(v, &fn, &arg) ? &v : nullptr;
      if (v.kind() == K::kExtension) {
        if (depth <= 0) return FailAt("values are nested too deeply");
        ASSIGN_OR_RETURN(out, Call(v.function(), v.string_value()));
      } else if (call != nullptr) {
        // {"__extn": {"fn", "arg"}}, or the same without `__extn`.
        if (depth <= 0) return FailAt("values are nested too deeply");
        ASSIGN_OR_RETURN(out, Call(*fn, *arg));
      } else if (v.kind() == K::kString) {
        // The constructor of the type, on a string (as the JSON reader takes it).
        ASSIGN_OR_RETURN(out, Call(t.name == "ipaddr" ? std::string("ip") : t.name, v.string_value()));
      } else {
        return FailAt(Cat("expected `", t.name, "`: its string, or an extension value"));
      }
      if (out.type != ValueTypeOf(t.name)) return Mismatch(t, out);
      return out;
    }
    case SK::kSet: {
      if (v.kind() != K::kSet) {
        ASSIGN_OR_RETURN(Value got, Generic(v, depth));
        return Mismatch(t, got);
      }
      if (depth <= 0) return FailAt("values are nested too deeply");
      std::vector<Value> elems;
      elems.reserve(v.elements().size());
      for (size_t k = 0; k < v.elements().size(); ++k) {
        path_.push_back(Cat("[", k, "]"));
        absl::StatusOr<Value> e = t.elem == nullptr ? Generic(v.elements()[k], depth - 1)
                                                    : Typed(v.elements()[k], *t.elem, depth - 1);
        path_.pop_back();
        if (!e.ok()) return e.status();
        elems.push_back(*e);
      }
      size_t n = AppendUnique(elems.data(), 0, elems.data(), static_cast<uint32_t>(elems.size()));
      Value* out = arena_->AllocateArray<Value>(n);
      std::copy(elems.begin(), elems.begin() + n, out);
      return Value::Set(out, static_cast<uint32_t>(n));
    }
    case SK::kRecord: {
      if (v.kind() != K::kRecord) {
        ASSIGN_OR_RETURN(Value got, Generic(v, depth));
        return Mismatch(t, got);
      }
      return Record(
          v.keys().size(), [&](uint32_t k) -> const std::string& { return v.keys()[k]; },
          [&](uint32_t k) -> const charter::Value& { return v.elements()[k]; }, &t, depth);
    }
    case SK::kBool:
    case SK::kTrue:
    case SK::kFalse:
    case SK::kLong:
    case SK::kString: {
      ASSIGN_OR_RETURN(Value got, Generic(v, depth));
      Type want = t.kind == SK::kLong ? Type::kLong : t.kind == SK::kString ? Type::kString : Type::kBool;
      if (got.type != want) return Mismatch(t, got);
      return got;
    }
    case SK::kNever:
      break;
  }
  return FailAt(Cat("no value has type `", TypeName(t), "`"));
}

}  // namespace charter::internal
