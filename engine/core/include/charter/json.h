// JSON as Charter reads it: strict RFC 8259, every fault an error at its
// "LINE:COL". Entities, requests, schemas and template links are all read
// this way; the same reader is public so that tools built on Charter read
// their own JSON files (a `charter test` file, a server's configuration)
// with the same rules and the same messages.
//
//   absl::StatusOr<charter::JsonDocument> doc = charter::JsonDocument::Parse(text);
//   if (!doc.ok()) return doc.status();  // "3:14: expected `,` or `}` after an object member"
//   std::optional<charter::JsonValue> name = doc->root().Find("name");
//   if (name && name->is_string()) use(name->as_string());
//
// A JsonValue is a view into its document: keep the document, and the text
// it was parsed from, alive and unchanged while using it.
#ifndef CHARTER_JSON_H_
#define CHARTER_JSON_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/statusor.h"
#include "charter/export.h"

namespace charter {

class CHARTER_API JsonValue {
 public:
  bool is_null() const;
  bool is_bool() const;
  bool is_number() const;
  bool is_string() const;
  bool is_array() const;
  bool is_object() const;
  // The byte offset of the value's first character in the text.
  uint32_t offset() const;
  bool as_bool() const;
  // The decoded string; empty for anything else.
  std::string_view as_string() const;
  // Elements of an array or members of an object; 0 for anything else.
  size_t size() const;
  // INVARIANT: i < size(), of an array (at) or an object (the others).
  JsonValue at(size_t i) const;
  std::string_view key(size_t i) const;
  uint32_t key_offset(size_t i) const;  // of the key's opening quote
  JsonValue member(size_t i) const;
  // The member named `key`, or nullopt (also for anything but an object).
  std::optional<JsonValue> Find(std::string_view key) const;

 private:
  friend class JsonDocument;
  explicit JsonValue(const void* node) : node_(node) {}
  const void* node_;  // the reader's node; opaque here
};

class CHARTER_API JsonDocument {
 public:
  // Exactly one JSON value with optional whitespace around it. A fault is
  // InvalidArgument "LINE:COL: message".
  static absl::StatusOr<JsonDocument> Parse(std::string_view text);
  // The document's value; a null value for a moved-from document. The values
  // it leads to live as long as a copy of this document does.
  JsonValue root() const;

 private:
  class Tree;
  explicit JsonDocument(std::shared_ptr<const Tree> tree) : tree_(std::move(tree)) {}
  std::shared_ptr<const Tree> tree_;
};

// "LINE:COL" of a byte offset in `text`, both 1-based, columns counted in
// Unicode scalar values, as the reader's messages give them.
CHARTER_API std::string JsonLineCol(std::string_view text, uint32_t offset);

// Appends `s` as a JSON string literal, quotes included: `"`, `\` and
// control characters escaped, a byte outside UTF-8 replaced by U+FFFD.
CHARTER_API void AppendJsonQuoted(std::string* out, std::string_view s);

}  // namespace charter

#endif  // CHARTER_JSON_H_
