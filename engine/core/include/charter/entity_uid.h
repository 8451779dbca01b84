// EntityUid: a reference to an entity, by its type and id.
#ifndef CHARTER_ENTITY_UID_H_
#define CHARTER_ENTITY_UID_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "charter/export.h"

namespace charter {

// A reference to an entity: its type (with namespaces, "NS::User") and id.
struct CHARTER_API EntityUid {
  std::string type;
  std::string id;
  friend bool operator==(const EntityUid& a, const EntityUid& b) {
    return a.type == b.type && a.id == b.id;
  }
  // Cedar's text form, `Type::"id"` with the id escaped.
  std::string ToString() const;
  // Reads that form back: `Type::"id"`, `NS::Type::"id"`, with Cedar's
  // escapes in the id. Anything else is InvalidArgument saying why.
  static absl::StatusOr<EntityUid> Parse(std::string_view text);
};

}  // namespace charter

#endif  // CHARTER_ENTITY_UID_H_
