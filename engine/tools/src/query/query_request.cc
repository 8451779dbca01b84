// charter::QueryRequest: a request whose principal or resource is unknown,
// held as a RequestData whose unknown side is (type, "").
#include <algorithm>
#include <memory>
#include <utility>

#include "unwrap/unwrap.h"
#include "query/query_unwrap.h"
#include "charter/query.h"
#include "charter/schema.h"
#include "common/status_macros.h"
#include "common/strings.h"
#include "entities/json_values.h"
#include "query/query_internal.h"
#include "request/request_data.h"
#include "schema/schema_model.h"
#include "value/value.h"

namespace charter {
namespace {

using internal::Cat;

// The schema's checks on a query: the action is declared and applies to
// the known side's type and to the unknown type, which is declared.
absl::Status CheckAgainstSchema(const internal::SchemaModel& m, const EntityUid& action,
                                const EntityUid& known, std::string_view known_role,
                                const std::string& unknown_type, std::string_view unknown_role) {
  const internal::ActionInfo* info = m.FindAction({action.type, action.id});
  if (info == nullptr) {
    return absl::InvalidArgumentError(Cat("the schema declares no action `", action.ToString(), "`"));
  }
  auto applies = [&](std::string_view role, const std::string& type) -> absl::Status {
    const std::vector<std::string>& allowed = role == "principal" ? info->principals : info->resources;
    if (m.FindEntityType(type) == nullptr && !internal::IsActionType(type)) {
      return absl::InvalidArgumentError(Cat("the schema declares no entity type `", type, "`"));
    }
    if (std::find(allowed.begin(), allowed.end(), type) == allowed.end()) {
      std::string types;
      for (const std::string& t : allowed) types += Cat(types.empty() ? "" : ", ", "`", t, "`");
      return absl::InvalidArgumentError(Cat("action `", action.ToString(), "` does not apply to ", role,
                                            "s of type `", type, "`",
                                            types.empty() ? "" : Cat(" (it applies to ", types, ")")));
    }
    return absl::OkStatus();
  };
  RETURN_IF_ERROR(applies(known_role, known.type));
  return applies(unknown_role, unknown_type);
}

// The placeholder of the unknown side: (type, ""), or for an enumerated
// type its first value, so that the request stage's schema checks pass.
EntityUid Placeholder(const internal::SchemaModel* m, const std::string& type) {
  if (m != nullptr) {
    const internal::EntityTypeInfo* info = m->FindEntityType(type);
    if (info != nullptr && info->is_enum && !info->choices.empty()) return EntityUid{type, info->choices[0]};
  }
  return EntityUid{type, ""};
}

absl::Status CheckType(const std::string& type, std::string_view role) {
  if (!internal::IsValidEntityTypeName(type)) {
    return absl::InvalidArgumentError(Cat("`", type, "` is not an entity type name (the ", role, " type)"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<QueryRequest> QueryRequest::ForResources(EntityUid principal, EntityUid action,
                                                        std::string resource_type, std::string_view context_json,
                                                        const Schema* schema, std::string_view source_name) {
  RETURN_IF_ERROR(CheckType(resource_type, "resource"));
  const internal::SchemaModel* m = schema == nullptr ? nullptr : &internal::Unwrap::Model(*schema);
  if (m != nullptr) RETURN_IF_ERROR(CheckAgainstSchema(*m, action, principal, "principal", resource_type, "resource"));
  EntityUid placeholder = Placeholder(m, resource_type);
  ASSIGN_OR_RETURN(std::shared_ptr<internal::RequestData> data,
                   internal::MakeRequest(std::move(principal), std::move(action), std::move(placeholder),
                                         context_json, source_name, m));
  data->resource.id.clear();
  data->Bind();
  return internal::QueryUnwrap::MakeQuery(std::move(data), Unknown::kResource, m != nullptr);
}

absl::StatusOr<QueryRequest> QueryRequest::ForPrincipals(std::string principal_type, EntityUid action,
                                                         EntityUid resource, std::string_view context_json,
                                                         const Schema* schema, std::string_view source_name) {
  RETURN_IF_ERROR(CheckType(principal_type, "principal"));
  const internal::SchemaModel* m = schema == nullptr ? nullptr : &internal::Unwrap::Model(*schema);
  if (m != nullptr) RETURN_IF_ERROR(CheckAgainstSchema(*m, action, resource, "resource", principal_type, "principal"));
  EntityUid placeholder = Placeholder(m, principal_type);
  ASSIGN_OR_RETURN(std::shared_ptr<internal::RequestData> data,
                   internal::MakeRequest(std::move(placeholder), std::move(action), std::move(resource),
                                         context_json, source_name, m));
  data->principal.id.clear();
  data->Bind();
  return internal::QueryUnwrap::MakeQuery(std::move(data), Unknown::kPrincipal, m != nullptr);
}

const std::string& QueryRequest::unknown_type() const {
  return unknown_ == Unknown::kResource ? data_->resource.type : data_->principal.type;
}
const EntityUid& QueryRequest::principal() const { return data_->principal; }
const EntityUid& QueryRequest::action() const { return data_->action; }
const EntityUid& QueryRequest::resource() const { return data_->resource; }
std::string QueryRequest::ContextToCedar() const { return internal::ToCedar(data_->context); }

Request QueryRequest::With(const EntityUid& uid) const {
  return internal::Unwrap::MakeRequest(internal::CompleteRequest(data_, unknown_, uid));
}

namespace internal {

std::shared_ptr<const RequestData> CompleteRequest(const std::shared_ptr<const RequestData>& query,
                                                   QueryRequest::Unknown unknown, const EntityUid& uid) {
  // The context stays in the query's arena, which the new request keeps alive.
  struct Completed : RequestData {
    std::shared_ptr<const RequestData> base;
  };
  auto data = std::make_shared<Completed>();
  data->base = query;
  data->principal = unknown == QueryRequest::Unknown::kPrincipal ? uid : query->principal;
  data->action = query->action;
  data->resource = unknown == QueryRequest::Unknown::kResource ? uid : query->resource;
  data->context = query->context;
  data->Bind();
  return data;
}

}  // namespace internal
}  // namespace charter
