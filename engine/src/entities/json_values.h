// Cedar's JSON value encoding (entity attributes, tags, context) -> Values.
// Without a schema: strings, booleans, integers, arrays as sets, objects as
// records, {"__entity": {"type", "id"}} as entity references.
#ifndef CHARTER_ENTITIES_JSON_VALUES_H_
#define CHARTER_ENTITIES_JSON_VALUES_H_

#include <functional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "charter/entities.h"
#include "common/arena.h"
#include "json/json.h"
#include "value/value.h"

namespace charter::internal {

// Where errors point: the document text and its display name.
struct JsonSource {
  std::string_view name;
  std::string_view text;
  absl::Status Error(uint32_t offset, std::string_view message) const;
};

// Interns an entity reference (type, id) and returns stable storage for it.
using EntityInterner = std::function<const EntityRef*(std::string_view type, std::string_view id)>;

// Reads an entity uid: {"type": T, "id": I}, or {"__entity": {...}} of that.
absl::Status ReadEntityUid(const json::Value& v, const JsonSource& src, std::string_view what,
                           std::string_view* type, std::string_view* id);

// Parses Cedar's `Type::"id"` text form (namespaces allowed, Cedar's escapes
// in the id). On failure returns false and says why.
bool ParseEntityUidText(std::string_view s, EntityUid* out, std::string* why);

// An entity reference given as a `Type::"id"` string or a uid object.
absl::Status ReadEntityUidOrText(const json::Value& v, const JsonSource& src, std::string_view field,
                                 EntityUid* out);

// Converts one attribute value. Strings are copied into `arena`.
absl::StatusOr<Value> ReadValue(const json::Value& v, const JsonSource& src, Arena* arena,
                                const EntityInterner& intern, int max_nesting);

// A record from a JSON object (attrs, tags, context).
absl::StatusOr<Value> ReadRecord(const json::Value& v, const JsonSource& src, Arena* arena,
                                 const EntityInterner& intern, int max_nesting,
                                 std::string_view what);

}  // namespace charter::internal

#endif  // CHARTER_ENTITIES_JSON_VALUES_H_
