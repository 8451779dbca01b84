// A strict JSON (RFC 8259) DOM parser for entities, requests, schemas and
// scheduling state.
//
// Parse() reads one value into a Document: an immutable tree whose nodes and
// decoded strings live in the Document's own blocks, while number literals and
// strings without escapes are views into the input. Every fault in the input is
// an absl::InvalidArgumentError reading "LINE:COL: message".
//
//   absl::StatusOr<json::Document> doc = json::Parse(R"({"uid": 7})");
//   const json::Value* uid = doc->root().Find("uid");
//   if (uid != nullptr && uid->fits_int64()) use(uid->as_int64());
//
// Calling an accessor on a value of another kind, or with an index out of
// range, is a programming error: it asserts in debug builds and otherwise
// returns false, zero, an empty view or a null value.

#ifndef CHARTER_ENGINE_SRC_JSON_JSON_H_
#define CHARTER_ENGINE_SRC_JSON_JSON_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace charter::internal::json {

enum class Kind : uint8_t { kNull, kBool, kNumber, kString, kArray, kObject };

class Value {
 public:
  // A null at offset 0.
  Value() = default;

  Kind kind() const { return kind_; }
  // Byte offset of the value's first character in the input.
  uint32_t offset() const { return offset_; }

  bool is_null() const { return kind_ == Kind::kNull; }
  bool is_bool() const { return kind_ == Kind::kBool; }
  bool is_number() const { return kind_ == Kind::kNumber; }
  bool is_string() const { return kind_ == Kind::kString; }
  bool is_array() const { return kind_ == Kind::kArray; }
  bool is_object() const { return kind_ == Kind::kObject; }

  bool as_bool() const { return (flags_ & kTrue) != 0; }

  // An integer literal has no fraction and no exponent: "12", "-0",
  // "99999999999999999999".
  bool is_integer_literal() const { return (flags_ & kIntegerLiteral) != 0; }
  // An integer literal within [-2^63, 2^63 - 1].
  bool fits_int64() const { return (flags_ & kFitsInt64) != 0; }
  int64_t as_int64() const;
  // Any number, rounded to the nearest double; beyond the double range it is
  // an infinity or a zero of the literal's sign.
  double as_double() const;
  // The literal exactly as written.
  std::string_view number_text() const;

  // Decoded UTF-8; may contain U+0000 when the input had \u0000.
  std::string_view as_string() const;

  // Elements of an array or members of an object; 0 for anything else.
  size_t size() const;
  const Value& at(size_t i) const;
  // Members are kept in document order, duplicates included.
  std::string_view key(size_t i) const;
  // Byte offset of the key's opening quote.
  uint32_t key_offset(size_t i) const;
  const Value& member(size_t i) const;
  // The last member named `key`, or nullptr (also for non-objects). Linear in
  // the number of members.
  const Value* Find(std::string_view key) const;

 private:
  friend class Parser;

  struct Key {
    const char* data;
    uint32_t size;
    uint32_t offset;
  };

  static constexpr uint8_t kIntegerLiteral = 1;
  static constexpr uint8_t kFitsInt64 = 2;
  static constexpr uint8_t kTrue = 4;

  // An object's keys follow its member values in the same block.
  const Key* keys() const { return reinterpret_cast<const Key*>(values_ + size_); }

  Kind kind_ = Kind::kNull;
  uint8_t flags_ = 0;
  uint32_t offset_ = 0;
  // String or literal bytes, or the element or member count.
  uint32_t size_ = 0;
  union {
    const char* text_ = nullptr;  // string, number
    const Value* values_;         // array elements, object member values
  };
};

struct ParseOptions {
  // Nesting of arrays and objects; deeper input is an error.
  int max_depth = 128;
  // Longer input is an error; inputs of 4 GiB or more are always refused.
  size_t max_bytes = size_t{1} << 31;
  // A key repeated within one object is an error unless this is true; then
  // every member is kept and Find() returns the last.
  bool allow_duplicate_keys = false;
};

// Owns the nodes and decoded strings of one parsed value. Move-only; moving
// keeps every Value and string_view obtained from it valid. A default or
// moved-from Document has a null root.
class Document {
 public:
  Document() = default;
  Document(Document&& other) noexcept;
  Document& operator=(Document&& other) noexcept;
  Document(const Document&) = delete;
  Document& operator=(const Document&) = delete;
  ~Document() = default;

  const Value& root() const { return root_; }

 private:
  friend class Parser;

  std::vector<std::unique_ptr<char[]>> blocks_;
  Value root_;
};

// Parses exactly one JSON value surrounded by optional whitespace. The
// Document may refer to `text`: keep it alive and unchanged while using the
// Document. Errors are absl::InvalidArgumentError("LINE:COL: message"), for
// example "3:14: expected `,` or `}` after an object member".
absl::StatusOr<Document> Parse(std::string_view text,
                               const ParseOptions& options = {});

// A fault of Parse: the byte offset where it stopped and the message
// without the "LINE:COL: " that the status message starts with.
struct ParseFault {
  uint32_t offset = 0;
  std::string message;
};

// Parse that also describes its fault, when it fails, in `*fault`, for
// readers that report it as a Diagnostic (json/extents.h).
absl::StatusOr<Document> Parse(std::string_view text, const ParseOptions& options,
                               ParseFault* fault);

// Whether the first character of `text` after JSON whitespace is `{`: how a
// reader that takes a JSON object or a text format (policies, schemas) tells
// them apart, since neither text format starts with `{`.
bool StartsWithObject(std::string_view text);

// "LINE:COL" of a byte offset in text: both 1-based, lines split at '\n',
// columns counted in Unicode scalar values (UTF-8 lead bytes). An offset past
// the end is taken as the end.
std::string LineCol(std::string_view text, uint32_t offset);

// Appends s as a JSON string literal with quotes, escaping `"`, `\` and
// control characters (\b \f \n \r \t, others as \u00xx). Non-ASCII UTF-8 is
// kept as is; a byte that is not part of valid UTF-8 becomes U+FFFD, so the
// result always parses.
void AppendQuoted(std::string* out, std::string_view s);

}  // namespace charter::internal::json

#endif  // CHARTER_ENGINE_SRC_JSON_JSON_H_
