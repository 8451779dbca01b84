// charter::Request from JSON: {"principal", "action", "resource", "context"},
// each entity as {"type","id"}, {"__entity": {...}} or the string `Type::"id"`.
#include "charter/request.h"

#include <cctype>

#include "api/access.h"
#include "common/diagnostic_codes.h"
#include "common/strings.h"
#include "common/status_macros.h"
#include "common/utf8.h"
#include "entities/json_values.h"
#include "json/json.h"
#include "json/json_diagnostics.h"
#include "request/request_data.h"
#include "charter/schema.h"
#include "schema/schema_model.h"

namespace charter {

using internal::Cat;
using internal::CatAppend;
namespace codes = internal::codes;
namespace {

using internal::JsonSource;

// Whether `type::"id"` may be the principal (or resource) of `action`:
// "" if so, else why not.
std::string CheckTarget(const internal::SchemaModel& m, const internal::ActionInfo& action, const EntityUid& uid,
                        std::string_view role) {
  const std::vector<std::string>& allowed = role == "principal" ? action.principals : action.resources;
  if (std::find(allowed.begin(), allowed.end(), uid.type) == allowed.end()) {
    return Cat("action `", internal::EntityToCedar(action.key.type, action.key.id), "` does not apply to ", role,
               "s of type `", uid.type, "`");
  }
  const internal::EntityTypeInfo* info = m.FindEntityType(uid.type);
  if (info != nullptr && info->is_enum &&
      std::find(info->choices.begin(), info->choices.end(), uid.id) == info->choices.end()) {
    return Cat("`", uid.ToString(), "` is not one of the values of enumerated type `", uid.type, "`");
  }
  return "";
}

absl::StatusOr<std::shared_ptr<internal::RequestData>> ReadRequest(const internal::json::Value& v,
                                                                   const JsonSource& src,
                                                                   const internal::SchemaModel* schema) {
  if (!v.is_object()) return src.Error(codes::CH0602, v.offset(), "a request must be a JSON object");
  auto data = std::make_shared<internal::RequestData>();
  const internal::json::Value* fields[4] = {nullptr, nullptr, nullptr, nullptr};
  constexpr std::string_view kNames[4] = {"principal", "action", "resource", "context"};
  for (size_t k = 0; k < v.size(); ++k) {
    std::string_view key = v.key(k);
    bool known = false;
    for (int f = 0; f < 4; ++f) {
      if (key == kNames[f]) fields[f] = &v.member(k), known = true;
    }
    if (key == "description") {
      if (!v.member(k).is_string()) return src.Error(codes::CH0602, v.member(k).offset(), "`description` must be a string");
      known = true;
    }
    if (!known) {
      return src.KeyError(codes::CH0604, v.key_offset(k),
                       Cat("unexpected key `", key, "` in a request; expected `principal`, "
                                    "`action`, `resource`, `context` or `description`"));
    }
  }
  EntityUid* uids[3] = {&data->principal, &data->action, &data->resource};
  for (int f = 0; f < 3; ++f) {
    if (fields[f] == nullptr) return src.Error(codes::CH0603, v.offset(), Cat("a request lacks `", kNames[f], "`"));
    RETURN_IF_ERROR(internal::ReadEntityUidOrText(*fields[f], src, kNames[f], uids[f]));
  }
  data->Bind();
  const internal::ActionInfo* action = nullptr;
  if (schema != nullptr) {
    action = schema->FindAction({data->action.type, data->action.id});
    if (action == nullptr) {
      return src.Error(codes::CH0608, fields[1]->offset(),
                       Cat("`action`: the schema declares no action `", data->action.ToString(), "`"));
    }
    for (int f : {0, 2}) {
      std::string why = CheckTarget(*schema, *action, *uids[f], kNames[f]);
      if (!why.empty()) return src.Error(codes::CH0608, fields[f]->offset(), Cat("`", kNames[f], "`: ", why));
    }
  }
  internal::RequestData* d = data.get();
  internal::EntityInterner intern = [d](std::string_view t, std::string_view i) {
    auto* ref = d->arena.New<internal::EntityRef>();
    ref->type = d->arena.CopyString(t);
    ref->id = d->arena.CopyString(i);
    return ref;
  };
  internal::ValueReader reader(src, &data->arena, intern, 64, schema);
  if (action != nullptr) {
    // The context is read for the action's context type; none is `{}`.
    absl::StatusOr<internal::json::Document> empty_doc;
    const internal::json::Value* context = fields[3];
    if (context == nullptr) {
      empty_doc = internal::json::Parse("{}");
      context = &empty_doc->root();
    }
    if (!context->is_object()) return src.Error(codes::CH0602, context->offset(), "`context` must be a JSON object");
    ASSIGN_OR_RETURN(data->context, reader.ReadTyped(*context, *action->context, "context", "attribute"));
  } else if (fields[3] != nullptr) {
    ASSIGN_OR_RETURN(data->context, reader.ReadRecord(*fields[3], "`context`"));
  }
  return data;
}

absl::StatusOr<internal::json::Document> ParseDocument(std::string_view json,
                                                       std::string_view source_name) {
  internal::json::ParseFault fault;
  auto doc = internal::json::Parse(json, {}, &fault);
  if (!doc.ok()) {
    return internal::json::ParseFaultStatus(source_name, json, fault, codes::CH0600, codes::CH0601);
  }
  return doc;
}

absl::StatusOr<Request> Read(std::string_view json, std::string_view source_name,
                             const internal::SchemaModel* schema) {
  ASSIGN_OR_RETURN(internal::json::Document doc, ParseDocument(json, source_name));
  JsonSource src{source_name, json};
  ASSIGN_OR_RETURN(std::shared_ptr<internal::RequestData> data, ReadRequest(doc.root(), src, schema));
  return internal::ApiAccess::MakeRequest(std::move(data));
}

absl::StatusOr<std::vector<Request>> ReadAll(std::string_view json, std::string_view source_name,
                                             const internal::SchemaModel* schema) {
  ASSIGN_OR_RETURN(internal::json::Document doc, ParseDocument(json, source_name));
  JsonSource src{source_name, json};
  const internal::json::Value& root = doc.root();
  if (!root.is_array()) return src.Error(codes::CH0602, root.offset(), "requests must be a JSON array of request objects");
  std::vector<Request> out;
  out.reserve(root.size());
  for (size_t i = 0; i < root.size(); ++i) {
    ASSIGN_OR_RETURN(std::shared_ptr<internal::RequestData> data, ReadRequest(root.at(i), src, schema));
    out.push_back(internal::ApiAccess::MakeRequest(std::move(data)));
  }
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

absl::StatusOr<Request> Request::FromJson(std::string_view json, std::string_view source_name) {
  return Read(json, source_name, nullptr);
}

absl::StatusOr<std::vector<Request>> Request::ArrayFromJson(std::string_view json,
                                                            std::string_view source_name) {
  return ReadAll(json, source_name, nullptr);
}

absl::StatusOr<Request> Request::FromJson(std::string_view json, const Schema& schema,
                                          std::string_view source_name) {
  return Read(json, source_name, &internal::ApiAccess::Model(schema));
}

absl::StatusOr<std::vector<Request>> Request::ArrayFromJson(std::string_view json, const Schema& schema,
                                                            std::string_view source_name) {
  return ReadAll(json, source_name, &internal::ApiAccess::Model(schema));
}

const EntityUid& Request::principal() const { return data_->principal; }
const EntityUid& Request::action() const { return data_->action; }
const EntityUid& Request::resource() const { return data_->resource; }
std::string Request::ContextToCedar() const { return internal::ToCedar(data_->context); }

}  // namespace charter
