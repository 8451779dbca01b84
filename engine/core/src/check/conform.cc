// Conformance of data to a schema: entities and requests, value by value.
#include <string>

#include "unwrap/unwrap.h"
#include "charter/schema.h"
#include "common/status_macros.h"
#include "common/strings.h"
#include "entities/entity_store.h"
#include "entities/json_values.h"
#include "request/request_data.h"
#include "schema/schema_model.h"
#include "value/value.h"

namespace charter {
namespace {

using internal::Cat;
using VT = internal::Type;       // the value's kind
using internal::SchemaModel;
using internal::TypeRef;
using internal::KindName;
using internal::Value;

// "" when `v` has type `t`, else what is wrong, at `path`.
std::string Conforms(const Value& v, const internal::SchemaType& t, const std::string& path) {
  using K = internal::SchemaType::Kind;
  auto wrong = [&]() {
    return Cat("`", path, "` should be `", internal::TypeName(t), "` but is ", KindName(v));
  };
  switch (t.kind) {
    case K::kBool:
    case K::kTrue:
    case K::kFalse: return v.type == VT::kBool ? "" : wrong();
    case K::kLong: return v.type == VT::kLong ? "" : wrong();
    case K::kString: return v.type == VT::kString ? "" : wrong();
    case K::kEntity:
      return v.type == VT::kEntity && v.entity->type == t.name ? "" : wrong();
    case K::kExtension: {
      VT want = t.name == "ipaddr"    ? VT::kIp
                : t.name == "decimal" ? VT::kDecimal
                : t.name == "datetime" ? VT::kDatetime
                                       : VT::kDuration;
      return v.type == want ? "" : wrong();
    }
    case K::kSet:
      if (v.type != VT::kSet) return wrong();
      if (t.elem == nullptr) return "";
      for (uint32_t i = 0; i < v.size; ++i) {
        std::string e = Conforms(v.elements[i], *t.elem, Cat(path, "[", i, "]"));
        if (!e.empty()) return e;
      }
      return "";
    case K::kRecord: {
      if (v.type != VT::kRecord) return wrong();
      for (const auto& [key, attr] : t.attrs) {
        const Value* f = internal::FindField(v, key);
        if (f == nullptr) {
          if (attr.required) return Cat("`", path, "` lacks the required attribute `", key, "`");
          continue;
        }
        std::string e = Conforms(*f, *attr.type, Cat(path, ".", key));
        if (!e.empty()) return e;
      }
      if (!t.open) {
        for (uint32_t i = 0; i < v.size; ++i) {
          std::string key(v.fields[i].key);
          if (t.attrs.count(key) == 0) return Cat("`", path, "` has the undeclared attribute `", key, "`");
        }
      }
      return "";
    }
    default: return "";
  }
}

}  // namespace

absl::StatusOr<Entities> Entities::FromJson(std::string_view json, const Schema& schema,
                                            std::string_view source_name, const EntitiesOptions& options) {
  ASSIGN_OR_RETURN(std::unique_ptr<internal::EntityStore> store,
                   internal::EntityStore::FromJson(json, source_name, options, &internal::Unwrap::Model(schema)));
  return Entities(std::shared_ptr<const internal::EntityStore>(std::move(store)));
}

absl::Status ValidateEntities(const Schema& schema, const Entities& entities) {
  const SchemaModel& m = internal::Unwrap::Model(schema);
  const internal::EntityStore& store = internal::Unwrap::Store(entities);
  for (uint32_t uid = 0; uid < store.num_uids(); ++uid) {
    const internal::EntityData* d = store.data(uid);
    if (d == nullptr) continue;
    const internal::EntityRef& ref = store.ref(uid);
    std::string name = Cat(ref.type, "::\"", ref.id, "\"");
    std::string type(ref.type);
    if (internal::IsActionType(type)) {
      if (m.FindAction({type, std::string(ref.id)}) == nullptr) {
        return absl::InvalidArgumentError(Cat("entity ", name, ": undeclared action"));
      }
      continue;
    }
    const internal::EntityTypeInfo* info = m.FindEntityType(type);
    if (info == nullptr) {
      return absl::InvalidArgumentError(Cat("entity ", name, ": undeclared entity type `", type, "`"));
    }
    if (info->is_enum &&
        std::find(info->choices.begin(), info->choices.end(), std::string(ref.id)) == info->choices.end()) {
      return absl::InvalidArgumentError(Cat("entity ", name, ": not a value of the enumerated type"));
    }
    internal::SchemaType shape;
    shape.kind = internal::SchemaType::Kind::kRecord;
    shape.attrs = info->attrs;
    shape.open = info->open_attrs;
    std::string e = Conforms(d->attrs, shape, "attrs");
    if (!e.empty()) return absl::InvalidArgumentError(Cat("entity ", name, ": ", e));
    if (d->tags.size > 0) {
      if (info->tags == nullptr) {
        return absl::InvalidArgumentError(Cat("entity ", name, ": entity type `", type, "` has no tags"));
      }
      for (uint32_t i = 0; i < d->tags.size; ++i) {
        e = Conforms(d->tags.fields[i].value, *info->tags, Cat("tags.", d->tags.fields[i].key));
        if (!e.empty()) return absl::InvalidArgumentError(Cat("entity ", name, ": ", e));
      }
    }
    for (uint32_t parent : store.parents(uid)) {
      const internal::EntityRef& a = store.ref(parent);
      const internal::EntityTypeInfo* ai = m.FindEntityType(std::string(a.type));
      if (ai == nullptr || ai->descendants.count(type) == 0) {
        return absl::InvalidArgumentError(Cat("entity ", name, ": `", type, "` cannot be a member of `",
                                              a.type, "::\"", a.id, "\"`"));
      }
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateRequest(const Schema& schema, const Request& request) {
  const SchemaModel& m = internal::Unwrap::Model(schema);
  const internal::ActionInfo* a = m.FindAction({request.action().type, request.action().id});
  if (a == nullptr) {
    return absl::InvalidArgumentError(Cat("request: undeclared action `", request.action().ToString(), "`"));
  }
  if (std::find(a->principals.begin(), a->principals.end(), request.principal().type) == a->principals.end()) {
    return absl::InvalidArgumentError(Cat("request: action `", request.action().ToString(),
                                          "` does not apply to principals of type `", request.principal().type, "`"));
  }
  if (std::find(a->resources.begin(), a->resources.end(), request.resource().type) == a->resources.end()) {
    return absl::InvalidArgumentError(Cat("request: action `", request.action().ToString(),
                                          "` does not apply to resources of type `", request.resource().type, "`"));
  }
  std::string e = Conforms(internal::Unwrap::Data(request).context, *a->context, "context");
  if (!e.empty()) return absl::InvalidArgumentError(Cat("request: ", e));
  return absl::OkStatus();
}

}  // namespace charter
