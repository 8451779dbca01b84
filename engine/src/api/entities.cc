// charter::Entities and charter::EntityUid.
#include "charter/entities.h"

#include "common/status_macros.h"
#include "entities/entity_store.h"
#include "value/value.h"

namespace charter {

std::string EntityUid::ToString() const { return internal::EntityToCedar(type, id); }

Entities::Entities() : store_(std::make_shared<const internal::EntityStore>()) {}
Entities::Entities(std::shared_ptr<const internal::EntityStore> store) : store_(std::move(store)) {}

absl::StatusOr<Entities> Entities::FromJson(std::string_view json, std::string_view source_name,
                                            const EntitiesOptions& options) {
  ASSIGN_OR_RETURN(std::unique_ptr<internal::EntityStore> store,
                   internal::EntityStore::FromJson(json, source_name, options));
  return Entities(std::shared_ptr<const internal::EntityStore>(std::move(store)));
}

size_t Entities::size() const { return store_->size(); }

}  // namespace charter
