// Small writers the review reports share: JSON members and entity names.
#ifndef CHARTER_GOVERNANCE_RENDER_H_
#define CHARTER_GOVERNANCE_RENDER_H_

#include <string>
#include <string_view>
#include <vector>

#include "charter/entities.h"
#include "json/json.h"
#include "value/value.h"

namespace charter::internal::review {

using json::AppendQuoted;

inline void JsonString(std::string* out, std::string_view s) { AppendQuoted(out, s); }

// An entity as Cedar's JSON writes a request's principal: {"type":T,"id":I}
// (never Cedar text in a string, so that a script can use it as it is).
inline void JsonEntity(std::string* out, const EntityUid& uid) {
  out->append("{\"type\":");
  AppendQuoted(out, uid.type);
  out->append(",\"id\":");
  AppendQuoted(out, uid.id);
  out->push_back('}');
}

inline void JsonStrings(std::string* out, const std::vector<std::string>& items) {
  out->push_back('[');
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out->push_back(',');
    AppendQuoted(out, items[i]);
  }
  out->push_back(']');
}

inline void JsonEntities(std::string* out, const std::vector<EntityUid>& items) {
  out->push_back('[');
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out->push_back(',');
    JsonEntity(out, items[i]);
  }
  out->push_back(']');
}

// `"key":` with its comma when it is not the object's first member.
inline void JsonKey(std::string* out, std::string_view key, bool first = false) {
  if (!first) out->push_back(',');
  AppendQuoted(out, key);
  out->push_back(':');
}

// The type's name without the model's namespace: "Governance::Member" ->
// "Member".
inline std::string_view LocalType(std::string_view type) {
  size_t colons = type.rfind("::");
  return colons == std::string_view::npos ? type : type.substr(colons + 2);
}

// `Member::"alice"`: the entity with its type's last name only.
inline std::string ShortEntity(const EntityUid& uid) { return EntityToCedar(LocalType(uid.type), uid.id); }

}  // namespace charter::internal::review

#endif  // CHARTER_GOVERNANCE_RENDER_H_
