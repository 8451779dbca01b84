// What a schema declares, for tools that complete or list names (the REPL):
// an entity type's attributes, the types actions take.
#include <set>
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

namespace {

// The entity types some action takes in one position (`types` of each
// action: its principals or its resources), each once, sorted.
template <typename Member>
std::vector<std::string> TypesActionsTake(const internal::SchemaModel& model, Member types) {
  std::set<std::string> out;
  for (const auto& [key, action] : model.actions) out.insert((action.*types).begin(), (action.*types).end());
  return std::vector<std::string>(out.begin(), out.end());
}

}  // namespace

std::vector<std::string> Schema::PrincipalTypes() const {
  return TypesActionsTake(data_->model, &internal::ActionInfo::principals);
}

std::vector<std::string> Schema::ResourceTypes() const {
  return TypesActionsTake(data_->model, &internal::ActionInfo::resources);
}

}  // namespace charter
