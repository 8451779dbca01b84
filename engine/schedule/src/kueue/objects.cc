// Flattening manifests into objects, and Kubernetes' ObjectMeta.
#include "kueue/objects.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "common/status_macros.h"

namespace charter::internal::kueue {

bool IsOtherKueueKind(std::string_view kind) {
  static constexpr std::string_view kKinds[] = {"Workload", "AdmissionCheck", "MultiKueueCluster", "MultiKueueConfig",
                                                "ProvisioningRequestConfig", "Topology"};
  for (std::string_view k : kKinds) {
    if (kind == k) return true;
  }
  return false;
}

absl::StatusOr<std::vector<Object>> Flatten(std::string_view source, const std::vector<Node>& docs) {
  std::vector<Object> out;
  struct Item {
    const Node* node;
    std::string list_api_version;  // a typed list's items may leave these out
    std::string list_item_kind;
  };
  std::vector<Item> work;
  for (auto it = docs.rbegin(); it != docs.rend(); ++it) work.push_back({&*it, "", ""});
  Fields f{std::string(source), ""};
  while (!work.empty()) {
    Item item = std::move(work.back());
    work.pop_back();
    const Node& n = *item.node;
    if (!n.is_map()) return f.Fail(n, Cat("a Kubernetes object must be a map, not ", n.KindName()));
    ASSIGN_OR_RETURN(std::optional<std::string> api_version, f.OptString(n, "apiVersion", "apiVersion"));
    ASSIGN_OR_RETURN(std::optional<std::string> kind, f.OptString(n, "kind", "kind"));
    if (!api_version) {
      if (item.list_api_version.empty()) return f.Fail(n, "the object has no `apiVersion`");
      api_version = item.list_api_version;
    }
    if (!kind) {
      if (item.list_item_kind.empty()) return f.Fail(n, "the object has no `kind`");
      kind = item.list_item_kind;
    }
    const bool typed_list = kind->size() > 4 && kind->substr(kind->size() - 4) == "List";
    if (*kind == "List" || (typed_list && n.Find("items") != nullptr)) {
      RETURN_IF_ERROR(f.Check(n, *kind, {"apiVersion", "kind", "metadata", "items"}));
      ASSIGN_OR_RETURN(const Node* items, f.OptSeq(n, "items", "items"));
      if (items == nullptr) continue;
      std::string item_kind = *kind == "List" ? "" : kind->substr(0, kind->size() - 4);
      std::string item_version = *kind == "List" ? "" : *api_version;
      for (auto it = items->items.rbegin(); it != items->items.rend(); ++it) work.push_back({&*it, item_version, item_kind});
      continue;
    }
    Object o;
    o.node = &n;
    o.kind = *kind;
    size_t slash = api_version->find('/');
    if (slash == std::string::npos) {
      o.version = *api_version;
    } else {
      o.group = api_version->substr(0, slash);
      o.version = api_version->substr(slash + 1);
    }
    if (const Node* meta = n.Find("metadata"); meta != nullptr && meta->is_map()) {
      if (const Node* name = meta->Find("name"); name != nullptr && name->kind == NodeKind::kString) o.name = name->text;
      if (const Node* ns = meta->Find("namespace"); ns != nullptr && ns->kind == NodeKind::kString) {
        o.namespace_name = ns->text;
      }
    }
    out.push_back(std::move(o));
  }
  return out;
}

absl::Status CheckMetadata(const Object& o, bool namespaced, Fields* f) {
  f->set_object(o.Label());
  const Node& n = *o.node;
  ASSIGN_OR_RETURN(const Node* meta, f->OptMap(n, "metadata", "metadata"));
  if (meta == nullptr) return f->Fail(n, Cat("the ", o.kind, " has no `metadata.name`"));
  RETURN_IF_ERROR(f->Check(*meta, "metadata",
                           {"name", "generateName", "namespace", "selfLink", "uid", "resourceVersion", "generation",
                            "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "labels",
                            "annotations", "ownerReferences", "finalizers", "managedFields"}));
  ASSIGN_OR_RETURN(std::optional<std::string> name, f->OptString(*meta, "name", "metadata.name"));
  if (!name || name->empty()) return f->Fail(*meta, Cat("the ", o.kind, " has no `metadata.name`"));
  RETURN_IF_ERROR(f->DnsSubdomain(*meta->Find("name"), *name, "metadata.name"));
  ASSIGN_OR_RETURN(std::optional<std::string> ns, f->OptString(*meta, "namespace", "metadata.namespace"));
  if (namespaced) {
    if (!ns || ns->empty()) return f->Fail(*meta, Cat("the ", o.kind, " has no `metadata.namespace`"));
  } else if (ns && !ns->empty()) {
    return f->Fail(*meta->Find("namespace"), Cat("a ", o.kind, " is cluster-scoped: it has no namespace"));
  }
  std::vector<std::pair<std::string, std::string>> ignored;
  RETURN_IF_ERROR(f->StringMap(*meta, "labels", "metadata.labels", &ignored));
  RETURN_IF_ERROR(f->StringMap(*meta, "annotations", "metadata.annotations", &ignored));
  return absl::OkStatus();
}

}  // namespace charter::internal::kueue
