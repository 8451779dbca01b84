// What a schema declares, for tools that complete or list names (the REPL):
// an entity type's attributes, the types actions take.
#include <string>
#include <string_view>
#include <vector>

#include "charter/schema.h"
#include "schema/schema_model.h"

namespace charter {

std::vector<std::string> Schema::Attributes(std::string_view entity_type) const {
  std::vector<std::string> out;
  const internal::EntityTypeInfo* info = data_->model.FindEntityType(std::string(entity_type));
  if (info == nullptr) return out;
  for (const auto& [name, type] : info->attrs) out.push_back(name);
  return out;
}

std::vector<std::string> Schema::PrincipalTypes() const {
  std::vector<std::string> out;
  for (const auto& [key, action] : data_->model.actions) {
    out.insert(out.end(), action.principals.begin(), action.principals.end());
  }
  return out;
}

std::vector<std::string> Schema::ResourceTypes() const {
  std::vector<std::string> out;
  for (const auto& [key, action] : data_->model.actions) {
    out.insert(out.end(), action.resources.begin(), action.resources.end());
  }
  return out;
}

}  // namespace charter
