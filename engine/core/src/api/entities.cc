// charter::Entities and charter::EntityUid.
#include "charter/entities.h"

#include "common/status_macros.h"
#include "entities/entity_store.h"
#include "entities/json_values.h"
#include "unwrap/unwrap.h"
#include "value/value.h"

namespace charter {

std::string EntityUid::ToString() const { return internal::EntityToCedar(type, id); }

absl::StatusOr<EntityUid> EntityUid::Parse(std::string_view text) {
  EntityUid uid;
  std::string why;
  if (!internal::ParseEntityUidText(text, &uid, &why)) return absl::InvalidArgumentError(why);
  return uid;
}

Entities::Entities() : store_(std::make_shared<const internal::EntityStore>()) {}
Entities::Entities(std::shared_ptr<const internal::EntityStore> store) : store_(std::move(store)) {}

absl::StatusOr<Entities> Entities::FromJson(std::string_view json, std::string_view source_name,
                                            const EntitiesOptions& options) {
  ASSIGN_OR_RETURN(std::unique_ptr<internal::EntityStore> store,
                   internal::EntityStore::FromJson(json, source_name, options));
  return Entities(std::shared_ptr<const internal::EntityStore>(std::move(store)));
}

absl::StatusOr<Entities> Entities::Extend(std::string_view json, std::string_view source_name,
                                          const EntitiesOptions& options) const {
  ASSIGN_OR_RETURN(std::unique_ptr<internal::EntityStore> store,
                   internal::EntityStore::ExtendFromJson(store_, json, source_name, options));
  return Entities(std::shared_ptr<const internal::EntityStore>(std::move(store)));
}

absl::StatusOr<Entities> Entities::Extend(std::string_view json, const Schema& schema, std::string_view source_name,
                                          const EntitiesOptions& options) const {
  ASSIGN_OR_RETURN(std::unique_ptr<internal::EntityStore> store,
                   internal::EntityStore::ExtendFromJson(store_, json, source_name, options,
                                                         &internal::Unwrap::Model(schema)));
  return Entities(std::shared_ptr<const internal::EntityStore>(std::move(store)));
}

absl::StatusOr<Entities> Entities::Extend(std::span<const Entity> entities, std::string_view source_name,
                                          const EntitiesOptions& options) const {
  ASSIGN_OR_RETURN(std::unique_ptr<internal::EntityStore> store,
                   internal::EntityStore::ExtendFromEntities(store_, entities, source_name, options));
  return Entities(std::shared_ptr<const internal::EntityStore>(std::move(store)));
}

absl::StatusOr<Entities> Entities::Extend(std::span<const Entity> entities, const Schema& schema,
                                          std::string_view source_name, const EntitiesOptions& options) const {
  ASSIGN_OR_RETURN(std::unique_ptr<internal::EntityStore> store,
                   internal::EntityStore::ExtendFromEntities(store_, entities, source_name, options,
                                                             &internal::Unwrap::Model(schema)));
  return Entities(std::shared_ptr<const internal::EntityStore>(std::move(store)));
}

size_t Entities::size() const { return store_->size(); }

namespace {

EntityUid UidOf(const internal::EntityRef& e) { return EntityUid{std::string(e.type), std::string(e.id)}; }

}  // namespace

std::vector<EntityUid> Entities::Uids() const {
  std::vector<EntityUid> out;
  out.reserve(store_->size());
  for (uint32_t uid = 0; uid < store_->num_uids(); ++uid) {
    if (store_->data(uid) != nullptr) out.push_back(UidOf(store_->ref(uid)));
  }
  return out;
}

std::vector<EntityUid> Entities::KnownUids() const {
  std::vector<EntityUid> out;
  out.reserve(store_->num_uids());
  for (uint32_t uid = 0; uid < store_->num_uids(); ++uid) out.push_back(UidOf(store_->ref(uid)));
  return out;
}

bool Entities::Contains(const EntityUid& uid) const {
  uint32_t index = store_->Find(uid.type, uid.id);
  return index != internal::kNoUid && store_->data(index) != nullptr;
}

std::optional<EntityInfo> Entities::Find(const EntityUid& uid) const {
  uint32_t index = store_->Find(uid.type, uid.id);
  const internal::EntityData* data = index == internal::kNoUid ? nullptr : store_->data(index);
  if (data == nullptr) return std::nullopt;
  EntityInfo info;
  info.uid = uid;
  for (uint32_t parent : store_->parents(index)) info.parents.push_back(UidOf(store_->ref(parent)));
  info.attrs = internal::ToCedar(data->attrs);
  if (data->tags.type == internal::Type::kRecord && data->tags.size > 0) info.tags = internal::ToCedar(data->tags);
  return info;
}

}  // namespace charter
