// Cedar's JSON value encoding (entity attributes, tags, context) -> Values,
// without a schema and with one.
//
// Without a schema (Cedar's `CedarValueJson`): strings, booleans, 64-bit
// integers, arrays as sets, objects as records; an object whose only key is
// `__entity` holding `type` and `id` strings is an entity reference, one
// whose only key is `__extn` holding a string `fn` and `arg` (or an array
// `args`) is a call of that extension function, and `__expr` is refused.
// Other keys beside those are ignored, and an `__entity` or `__extn` object
// that does not fit that shape is an ordinary record, as in Cedar.
//
// With a schema, each value is read for its declared type (Cedar's
// schema-based parsing): where an entity is expected, `{"type", "id"}` (or
// `["T", "id"]`) may stand without `__entity`; where an extension value is,
// its string (`"10.0.0.1"`) or `{"fn", "arg"}` may stand without `__extn`;
// records must have exactly their declared attributes; and every value must
// have its declared type.
#ifndef CHARTER_ENTITIES_JSON_VALUES_H_
#define CHARTER_ENTITIES_JSON_VALUES_H_

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "charter/entities.h"
#include "charter/value.h"
#include "common/arena.h"
#include "common/diagnostic_codes.h"
#include "json/json.h"
#include "value/value.h"

namespace charter::internal {

struct SchemaModel;
struct SchemaType;

// Where errors point: the document text and its display name. A fault is
// an InvalidArgument "NAME:LINE:COL: message" that carries its Diagnostic
// (json/json_diagnostics.h), with a code of common/diagnostics.def.
struct JsonSource {
  std::string_view name;
  std::string_view text;
  // A fault in the value that starts at `offset`, which it underlines.
  absl::Status Error(const char* code, uint32_t offset, std::string_view message) const;
  // A fault in the key at `offset` (json::Value::key_offset).
  absl::Status KeyError(const char* code, uint32_t offset, std::string_view message) const;
};

// Interns an entity reference (type, id) and returns stable storage for it.
using EntityInterner = std::function<const EntityRef*(std::string_view type, std::string_view id)>;

// Reads an entity uid strictly: {"type": T, "id": I}, or {"__entity": {...}}
// of that, nothing else (requests and template links).
absl::Status ReadEntityUid(const json::Value& v, const JsonSource& src, std::string_view what,
                           std::string_view* type, std::string_view* id);

// Reads an entity uid as Cedar's entity JSON does (its `EntityUidJson`): an
// object with string `type` and `id`, or `{"__entity": ...}` of one, or a
// two-string array `["T", "id"]`; other keys are ignored. The type must be
// `::`-separated identifiers, none of them reserved. `what` names the place
// in messages ("an entity's `uid`").
absl::Status ReadEntityUidJson(const json::Value& v, const JsonSource& src, std::string_view what,
                               std::string_view* type, std::string_view* id);

// Whether `name` is an entity type name Cedar accepts: identifiers joined by
// `::`, none of them a reserved word or starting with `__cedar`.
bool IsValidEntityTypeName(std::string_view name);

// Parses Cedar's `Type::"id"` text form (namespaces allowed, Cedar's escapes
// in the id). On failure returns false and says why.
bool ParseEntityUidText(std::string_view s, EntityUid* out, std::string* why);

// An entity reference given as a `Type::"id"` string or a uid object.
absl::Status ReadEntityUidOrText(const json::Value& v, const JsonSource& src, std::string_view field,
                                 EntityUid* out);

// "a boolean", "an entity of type `T`", ...: what a value is, in messages.
std::string KindName(const Value& v);

// Reads values. Strings and the other storage of the values go to `arena`.
class ValueReader {
 public:
  // `schema` (may be null) is used only to check entity references inside
  // schema-directed values: an enumerated type's id must be one of its
  // values, and an action must be declared.
  ValueReader(const JsonSource& src, Arena* arena, const EntityInterner& intern, int max_nesting,
              const SchemaModel* schema = nullptr);

  // Without a schema.
  absl::StatusOr<Value> Read(const json::Value& v) { return Generic(v, max_nesting_); }
  // A record from a JSON object (attrs, tags, context) without a schema.
  absl::StatusOr<Value> ReadRecord(const json::Value& v, std::string_view what);

  // With a schema: `v` read for type `t` (a record type for attributes,
  // tags and contexts), and checked against it. Messages read "WHERE: KIND
  // `PATH`: what is wrong", as in "entity User::\"a\": attribute
  // `profile.dept`: expected `String`, found a long"; PATH steps through
  // records (`.`) and sets (`[2]`).
  absl::StatusOr<Value> ReadTyped(const json::Value& v, const SchemaType& t, std::string where,
                                  std::string kind);

 private:
  absl::StatusOr<Value> Generic(const json::Value& v, int depth);
  absl::StatusOr<Value> Typed(const json::Value& v, const SchemaType& t, int depth);
  absl::StatusOr<Value> Call(const json::Value& at, std::string_view fn, const json::Value* const* args,
                             size_t n, const SchemaType* expected, int depth);
  absl::StatusOr<Value> MakeSet(std::vector<Value>& elems);
  // A fault in the value read; most are invalid values (CH0606).
  absl::Status Fail(const json::Value& at, std::string_view message,
                    const char* code = codes::CH0606) const;
  absl::Status Fail(uint32_t offset, std::string_view message, const char* code = codes::CH0606) const;
  std::string PathText() const;
  absl::Status Mismatch(const json::Value& at, const SchemaType& t, const Value& v) const;
  absl::Status CheckEntityRef(const json::Value& at, const EntityRef& e) const;

  const JsonSource& src_;
  Arena* arena_;
  const EntityInterner& intern_;
  int max_nesting_;
  const SchemaModel* schema_;
  bool typed_ = false;
  std::string where_;
  std::string kind_;
  std::vector<std::string> path_;
};

// Reads values built in code (charter::Value) as ValueReader reads their JSON
// (charter::Value::ToJson): the same values (sets without duplicates,
// records sorted by key, extension constructors called on their strings),
// and with a schema the same reading for the declared types (an extension
// value may be given as its string; an open record keeps only its declared
// attributes). There is no text, so a fault is InvalidArgument
// "SOURCE_NAME: WHERE: KIND `PATH`: message", without a position.
class BuiltValueReader {
 public:
  using Fields = std::vector<std::pair<std::string, charter::Value>>;
  BuiltValueReader(std::string_view source_name, Arena* arena, const EntityInterner& intern, int max_nesting,
                   const SchemaModel* schema = nullptr);

  // A record (attributes, tags, a context) given as its fields, or as a
  // Value that must be a record: without a schema when `t` is null, else for
  // the record type `t`. `entity` (the entity whose record it is; null: a
  // context) and `kind` ("attribute", "tag") name the place in messages,
  // which are written only when there is a fault.
  absl::StatusOr<Value> ReadRecord(const Fields& fields, const SchemaType* t, const EntityUid* entity,
                                   std::string_view kind);
  absl::StatusOr<Value> ReadRecord(const charter::Value& record, const SchemaType* t, const EntityUid* entity,
                                   std::string_view kind);
  // A fault at WHERE (no attribute path). Without a text there is no span,
  // so no Diagnostic is attached: the message is all there is.
  absl::Status Fail(std::string_view message) const;

 private:
  template <typename KeyAt, typename ValueAt>
  absl::StatusOr<Value> Record(size_t n, KeyAt key_at, ValueAt value_at, const SchemaType* t, int depth);
  absl::StatusOr<Value> Generic(const charter::Value& v, int depth);
  absl::StatusOr<Value> Typed(const charter::Value& v, const SchemaType& t, int depth);
  absl::StatusOr<Value> Call(const std::string& fn, const std::string& arg);
  absl::Status FailAt(std::string_view message) const;
  absl::Status Mismatch(const SchemaType& t, const Value& v) const;
  absl::Status CheckEntityRef(const EntityRef& e) const;

  std::string_view source_name_;
  Arena* arena_;
  const EntityInterner& intern_;
  int max_nesting_;
  const SchemaModel* schema_;
  const EntityUid* entity_ = nullptr;
  std::string_view kind_;
  std::vector<std::string> path_;
};

}  // namespace charter::internal

#endif  // CHARTER_ENTITIES_JSON_VALUES_H_
