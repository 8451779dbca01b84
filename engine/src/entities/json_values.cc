// Cedar's JSON value encoding -> Values.
#include "entities/json_values.h"

#include <algorithm>
#include <cctype>
#include <vector>

#include "common/strings.h"
#include "builtins/extensions.h"
#include "common/status_macros.h"
#include "common/utf8.h"

namespace charter::internal {

absl::Status JsonSource::Error(uint32_t offset, std::string_view message) const {
  return absl::InvalidArgumentError(
      Cat(name, ":", json::LineCol(text, offset), ": ", message));
}

namespace {
bool IsIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

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
    char c = s[i++];
    if (c != '\\') {
      id.push_back(c);
      continue;
    }
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
  out->type = std::move(type);
  out->id = std::move(id);
  return true;
}

absl::Status ReadEntityUidOrText(const json::Value& v, const JsonSource& src, std::string_view field,
                                 EntityUid* out) {
  if (v.is_string()) {
    std::string why;
    if (!ParseEntityUidText(v.as_string(), out, &why)) {
      return src.Error(v.offset(), Cat("`", field, "` is not an entity reference: ", why,
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
    return src.Error(v.offset(), Cat(what, " must be an object with `type` and `id`"));
  }
  const json::Value* t = nullptr;
  const json::Value* i = nullptr;
  for (size_t k = 0; k < uid->size(); ++k) {
    if (uid->key(k) == "type") {
      t = &uid->member(k);
    } else if (uid->key(k) == "id") {
      i = &uid->member(k);
    } else {
      return src.Error(uid->key_offset(k),
                       Cat("unexpected key `", uid->key(k), "` in ", what,
                                    "; expected `type` and `id`"));
    }
  }
  if (t == nullptr || i == nullptr) {
    return src.Error(uid->offset(), Cat(what, " lacks `", t == nullptr ? "type" : "id", "`"));
  }
  if (!t->is_string()) return src.Error(t->offset(), Cat("the `type` of ", what, " must be a string"));
  if (!i->is_string()) return src.Error(i->offset(), Cat("the `id` of ", what, " must be a string"));
  // Type names are `::`-separated identifiers.
  std::string_view name = t->as_string();
  bool ok = !name.empty();
  size_t start = 0;
  while (ok && start <= name.size()) {
    size_t end = name.find("::", start);
    std::string_view part = name.substr(start, end == std::string_view::npos ? std::string_view::npos
                                                                            : end - start);
    if (part.empty() || !(std::isalpha(static_cast<unsigned char>(part[0])) || part[0] == '_')) ok = false;
    for (char c : part) {
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) ok = false;
    }
    if (end == std::string_view::npos) break;
    start = end + 2;
  }
  if (!ok) {
    return src.Error(t->offset(), Cat("`", name, "` is not a valid entity type name"));
  }
  *type = name;
  *id = i->as_string();
  return absl::OkStatus();
}

absl::StatusOr<Value> ReadRecord(const json::Value& v, const JsonSource& src, Arena* arena,
                                 const EntityInterner& intern, int max_nesting,
                                 std::string_view what) {
  if (!v.is_object()) return src.Error(v.offset(), Cat(what, " must be a JSON object"));
  if (max_nesting <= 0) return src.Error(v.offset(), "values are nested too deeply");
  uint32_t n = static_cast<uint32_t>(v.size());
  RecordField* fields = arena->AllocateArray<RecordField>(n);
  for (uint32_t k = 0; k < n; ++k) {
    fields[k].key = arena->CopyString(v.key(k));
    ASSIGN_OR_RETURN(fields[k].value, ReadValue(v.member(k), src, arena, intern, max_nesting - 1));
  }
  std::sort(fields, fields + n, [](const RecordField& a, const RecordField& b) { return a.key < b.key; });
  for (uint32_t k = 1; k < n; ++k) {
    if (fields[k].key == fields[k - 1].key) {
      return src.Error(v.offset(), Cat("duplicate key `", fields[k].key, "`"));
    }
  }
  return Value::Record(fields, n);
}

namespace {

// {"fn": "ip", "arg": "10.0.0.1"} (or "args": ["10.0.0.1"]).
absl::StatusOr<Value> ReadExtension(const json::Value& v, const JsonSource& src, Arena* arena) {
  if (!v.is_object()) return src.Error(v.offset(), "`__extn` must be an object with `fn` and `arg`");
  const json::Value* fn = v.Find("fn");
  const json::Value* arg = v.Find("arg");
  const json::Value* args = v.Find("args");
  for (size_t k = 0; k < v.size(); ++k) {
    if (v.key(k) != "fn" && v.key(k) != "arg" && v.key(k) != "args") {
      return src.Error(v.key_offset(k), Cat("unexpected key `", v.key(k), "` in `__extn`"));
    }
  }
  if (fn == nullptr || !fn->is_string()) return src.Error(v.offset(), "`__extn` needs a string `fn`");
  if (arg == nullptr && args != nullptr && args->is_array() && args->size() == 1) arg = &args->at(0);
  if (arg == nullptr || (args != nullptr && v.Find("arg") != nullptr)) {
    return src.Error(v.offset(), "`__extn` needs one argument, as `arg`");
  }
  if (!arg->is_string()) return src.Error(arg->offset(), "the argument of `__extn` must be a string");
  std::string_view name = fn->as_string();
  std::string_view text = arg->as_string();
  std::string error;
  int64_t n = 0;
  if (name == "ip") {
    ext::IpAddr addr;
    if (!ext::ParseIp(text, &addr, &error)) return src.Error(arg->offset(), error);
    return Value::Ip(arena->New<ext::IpAddr>(addr));
  }
  if (name == "decimal") {
    if (!ext::ParseDecimal(text, &n, &error)) return src.Error(arg->offset(), error);
    return Value::Ext(Type::kDecimal, n);
  }
  if (name == "datetime") {
    if (!ext::ParseDatetime(text, &n, &error)) return src.Error(arg->offset(), error);
    return Value::Ext(Type::kDatetime, n);
  }
  if (name == "duration") {
    if (!ext::ParseDuration(text, &n, &error)) return src.Error(arg->offset(), error);
    return Value::Ext(Type::kDuration, n);
  }
  return src.Error(fn->offset(), Cat("unknown extension function `", name,
                                     "`; expected `ip`, `decimal`, `datetime` or `duration`"));
}

}  // namespace

absl::StatusOr<Value> ReadValue(const json::Value& v, const JsonSource& src, Arena* arena,
                                const EntityInterner& intern, int max_nesting) {
  switch (v.kind()) {
    case json::Kind::kNull:
      return src.Error(v.offset(), "`null` is not a value");
    case json::Kind::kBool:
      return Value::Bool(v.as_bool());
    case json::Kind::kNumber:
      if (!v.is_integer_literal()) {
        return src.Error(v.offset(), Cat("`", v.number_text(),
                                                  "` is not an integer; only integers are values"));
      }
      if (!v.fits_int64()) {
        return src.Error(v.offset(), Cat("integer `", v.number_text(),
                                                  "` does not fit in 64 bits"));
      }
      return Value::Long(v.as_int64());
    case json::Kind::kString:
      return Value::String(arena->CopyString(v.as_string()));
    case json::Kind::kArray: {
      if (max_nesting <= 0) return src.Error(v.offset(), "values are nested too deeply");
      std::vector<Value> elems;
      elems.reserve(v.size());
      for (size_t k = 0; k < v.size(); ++k) {
        ASSIGN_OR_RETURN(Value e, ReadValue(v.at(k), src, arena, intern, max_nesting - 1));
        bool dup = false;
        for (const Value& x : elems) {
          if (Equal(x, e)) {
            dup = true;
            break;
          }
        }
        if (!dup) elems.push_back(e);
      }
      Value* out = arena->AllocateArray<Value>(elems.size());
      std::copy(elems.begin(), elems.end(), out);
      return Value::Set(out, static_cast<uint32_t>(elems.size()));
    }
    case json::Kind::kObject:
      if (v.size() == 1 && v.key(0) == "__entity") {
        std::string_view type, id;
        RETURN_IF_ERROR(ReadEntityUid(v, src, "an entity reference", &type, &id));
        return Value::Entity(intern(type, id));
      }
      if (v.size() == 1 && v.key(0) == "__extn") return ReadExtension(v.member(0), src, arena);
      return ReadRecord(v, src, arena, intern, max_nesting, "a record");
  }
  return src.Error(v.offset(), "unexpected JSON value");
}

}  // namespace charter::internal
