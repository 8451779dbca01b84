// Cedar's JSON value encoding -> Values.
#include "entities/json_values.h"

#include <algorithm>
#include <cctype>
#include <vector>

#include "common/strings.h"
#include "common/status_macros.h"

namespace charter::internal {

absl::Status JsonSource::Error(uint32_t offset, std::string_view message) const {
  return absl::InvalidArgumentError(
      Cat(name, ":", json::LineCol(text, offset), ": ", message));
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
      if (v.size() >= 1 && v.Find("__extn") != nullptr) {
        return src.Error(v.offset(), "extension values (`__extn`) are not supported yet");
      }
      return ReadRecord(v, src, arena, intern, max_nesting, "a record");
  }
  return src.Error(v.offset(), "unexpected JSON value");
}

}  // namespace charter::internal
