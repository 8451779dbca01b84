// The objects of a set of manifests, flattened: every document, and every
// item of a `kind: List` (or a typed list such as ClusterQueueList), with its
// API group, version and kind. Shared by the declarations importer and the
// Workload reader.
#ifndef CHARTER_KUEUE_OBJECTS_H_
#define CHARTER_KUEUE_OBJECTS_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "kueue/document.h"
#include "kueue/fields.h"
#include "charter/schedule.h"

namespace charter::internal::kueue {

inline constexpr std::string_view kKueueGroup = "kueue.x-k8s.io";
inline constexpr std::string_view kConfigGroup = "config.kueue.x-k8s.io";

struct Object {
  const Node* node = nullptr;
  std::string group;    // "" for the core group ("v1")
  std::string version;  // "v1beta2"
  std::string kind;
  std::string name;       // metadata.name ("" when absent)
  std::string namespace_name;
  // The value of `key` (apiVersion, kind), or the object when a typed
  // list gave it.
  const Node& At(std::string_view key) const {
    const Node* n = node->Find(key);
    return n != nullptr ? *n : *node;
  }
  std::string Label() const { return name.empty() ? kind : Cat(kind, " ", namespace_name.empty() ? "" : Cat(namespace_name, "/"), name); }
};

// The objects of `docs` (which must outlive them). A document or list item
// that is not a map, or has no `apiVersion` or `kind`, is an error.
absl::StatusOr<std::vector<Object>> Flatten(std::string_view source, const std::vector<Node>& docs);

// Checks metadata against Kubernetes' ObjectMeta, and that Kueue's objects
// have a name (and, when `namespaced`, a namespace); fills `fields`' object
// label.
absl::Status CheckMetadata(const Object& o, bool namespaced, Fields* fields);

// Kueue's kinds in kueue.x-k8s.io that hold no scheduling declaration.
bool IsOtherKueueKind(std::string_view kind);

}  // namespace charter::internal::kueue

#endif  // CHARTER_KUEUE_OBJECTS_H_
