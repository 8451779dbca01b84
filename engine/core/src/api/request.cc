// charter::Request: the public face of the request stage's RequestData.
#include "charter/request.h"

#include <memory>
#include <utility>

#include "unwrap/unwrap.h"
#include "common/status_macros.h"
#include "request/request_data.h"
#include "value/value.h"

namespace charter {
namespace {

absl::StatusOr<Request> Read(std::string_view json, std::string_view source_name,
                             const internal::SchemaModel* schema) {
  ASSIGN_OR_RETURN(std::shared_ptr<internal::RequestData> data,
                   internal::ReadRequestJson(json, source_name, schema));
  return internal::Unwrap::MakeRequest(std::move(data));
}

absl::StatusOr<std::vector<Request>> ReadAll(std::string_view json, std::string_view source_name,
                                             const internal::SchemaModel* schema) {
  ASSIGN_OR_RETURN(std::vector<std::shared_ptr<internal::RequestData>> data,
                   internal::ReadRequestArrayJson(json, source_name, schema));
  std::vector<Request> out;
  out.reserve(data.size());
  for (std::shared_ptr<internal::RequestData>& d : data) out.push_back(internal::Unwrap::MakeRequest(std::move(d)));
  return out;
}

}  // namespace

Request::Request(std::shared_ptr<const internal::RequestData> data) : data_(std::move(data)) {}

Request Request::Create(EntityUid principal, EntityUid action, EntityUid resource) {
  auto data = std::make_shared<internal::RequestData>();
  data->principal = std::move(principal);
  data->action = std::move(action);
  data->resource = std::move(resource);
  data->Bind();
  return Request(std::move(data));
}

absl::StatusOr<Request> Request::Create(EntityUid principal, EntityUid action, EntityUid resource,
                                        std::string_view context_json, const Schema* schema,
                                        std::string_view source_name) {
  ASSIGN_OR_RETURN(std::shared_ptr<internal::RequestData> data,
                   internal::MakeRequest(std::move(principal), std::move(action), std::move(resource),
                                         context_json, source_name,
                                         schema == nullptr ? nullptr : &internal::Unwrap::Model(*schema)));
  return internal::Unwrap::MakeRequest(std::move(data));
}

absl::StatusOr<Request> Request::Create(EntityUid principal, EntityUid action, EntityUid resource,
                                        const Value& context, const Schema* schema, std::string_view source_name) {
  ASSIGN_OR_RETURN(std::shared_ptr<internal::RequestData> data,
                   internal::MakeRequest(std::move(principal), std::move(action), std::move(resource), context,
                                         source_name,
                                         schema == nullptr ? nullptr : &internal::Unwrap::Model(*schema)));
  return internal::Unwrap::MakeRequest(std::move(data));
}

absl::StatusOr<Request> Request::FromJson(std::string_view json, std::string_view source_name) {
  return Read(json, source_name, nullptr);
}

absl::StatusOr<std::vector<Request>> Request::ArrayFromJson(std::string_view json,
                                                            std::string_view source_name) {
  return ReadAll(json, source_name, nullptr);
}

absl::StatusOr<Request> Request::FromJson(std::string_view json, const Schema& schema,
                                          std::string_view source_name) {
  return Read(json, source_name, &internal::Unwrap::Model(schema));
}

absl::StatusOr<std::vector<Request>> Request::ArrayFromJson(std::string_view json, const Schema& schema,
                                                            std::string_view source_name) {
  return ReadAll(json, source_name, &internal::Unwrap::Model(schema));
}

const EntityUid& Request::principal() const { return data_->principal; }
const EntityUid& Request::action() const { return data_->action; }
const EntityUid& Request::resource() const { return data_->resource; }
std::string Request::ContextToCedar() const { return internal::ToCedar(data_->context); }

}  // namespace charter
