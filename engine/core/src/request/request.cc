// Requests from JSON (the data behind a charter::Request, which api/request.cc
// wraps): {"principal", "action", "resource", "context"},
// each entity as {"type","id"}, {"__entity": {...}} or the string `Type::"id"`.
#include "charter/request.h"

#include <cctype>

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

// With a schema: "" when the request's action is declared and applies to
// its principal and resource (*action is then the action's), else why not,
// with *field the uid at fault (0 principal, 1 action, 2 resource).
std::string CheckSignature(const internal::RequestData& request, const internal::SchemaModel* schema,
                           const internal::ActionInfo** action, int* field) {
  constexpr std::string_view kNames[3] = {"principal", "action", "resource"};
  const EntityUid* uids[3] = {&request.principal, &request.action, &request.resource};
  *action = nullptr;
  if (schema == nullptr) return "";
  *action = schema->FindAction({request.action.type, request.action.id});
  if (*action == nullptr) {
    *field = 1;
    return Cat("`action`: the schema declares no action `", request.action.ToString(), "`");
  }
  for (int f : {0, 2}) {
    std::string why = CheckTarget(*schema, **action, *uids[f], kNames[f]);
    if (!why.empty()) {
      *field = f;
      return Cat("`", kNames[f], "`: ", why);
    }
  }
  return "";
}

// Entity references inside the context, kept in the request's arena.
internal::EntityInterner RequestInterner(internal::RequestData* d) {
  return [d](std::string_view t, std::string_view i) {
    auto* ref = d->arena.New<internal::EntityRef>();
    ref->type = d->arena.CopyString(t);
    ref->id = d->arena.CopyString(i);
    return ref;
  };
}

// The part of reading a request after its three uids: binds them, checks
// them against the schema's action (errors at `offsets`), and reads the
// context (null: none given).
absl::Status FinishRequest(internal::RequestData& request, const uint32_t offsets[3],
                           const internal::json::Value* context_json, const JsonSource& src,
                           const internal::SchemaModel* schema) {
  request.Bind();
  const internal::ActionInfo* action = nullptr;
  int field = 0;
  std::string why = CheckSignature(request, schema, &action, &field);
  if (!why.empty()) return src.Error(codes::CH0608, offsets[field], why);
  internal::EntityInterner intern = RequestInterner(&request);
  internal::ValueReader reader(src, &request.arena, intern, 64, schema);
  if (action != nullptr) {
    // The context is read for the action's context type; none is `{}`.
    absl::StatusOr<internal::json::Document> empty_doc;
    const internal::json::Value* context = context_json;
    if (context == nullptr) {
      empty_doc = internal::json::Parse("{}");
      context = &empty_doc->root();
    }
    if (!context->is_object()) return src.Error(codes::CH0602, context->offset(), "`context` must be a JSON object");
    ASSIGN_OR_RETURN(request.context, reader.ReadTyped(*context, *action->context, "context", "attribute"));
  } else if (context_json != nullptr) {
    ASSIGN_OR_RETURN(request.context, reader.ReadRecord(*context_json, "`context`"));
  }
  return absl::OkStatus();
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
  uint32_t offsets[3] = {0, 0, 0};
  for (int f = 0; f < 3; ++f) {
    if (fields[f] == nullptr) return src.Error(codes::CH0603, v.offset(), Cat("a request lacks `", kNames[f], "`"));
    RETURN_IF_ERROR(internal::ReadEntityUidOrText(*fields[f], src, kNames[f], uids[f]));
    offsets[f] = fields[f]->offset();
  }
  RETURN_IF_ERROR(FinishRequest(*data, offsets, fields[3], src, schema));
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

}  // namespace

namespace internal {

absl::StatusOr<std::shared_ptr<RequestData>> ReadRequestJson(std::string_view json, std::string_view source_name,
                                                             const SchemaModel* schema) {
  ASSIGN_OR_RETURN(json::Document doc, ParseDocument(json, source_name));
  JsonSource src{source_name, json};
  return ReadRequest(doc.root(), src, schema);
}

absl::StatusOr<std::vector<std::shared_ptr<RequestData>>> ReadRequestArrayJson(std::string_view json,
                                                                               std::string_view source_name,
                                                                               const SchemaModel* schema) {
  ASSIGN_OR_RETURN(json::Document doc, ParseDocument(json, source_name));
  JsonSource src{source_name, json};
  const json::Value& root = doc.root();
  if (!root.is_array()) return src.Error(codes::CH0602, root.offset(), "requests must be a JSON array of request objects");
  std::vector<std::shared_ptr<RequestData>> out;
  out.reserve(root.size());
  for (size_t i = 0; i < root.size(); ++i) {
    ASSIGN_OR_RETURN(std::shared_ptr<RequestData> data, ReadRequest(root.at(i), src, schema));
    out.push_back(std::move(data));
  }
  return out;
}

namespace {

// A request's data holding its three uids (not yet bound).
std::shared_ptr<RequestData> WithUids(EntityUid principal, EntityUid action, EntityUid resource) {
  auto data = std::make_shared<RequestData>();
  data->principal = std::move(principal);
  data->action = std::move(action);
  data->resource = std::move(resource);
  return data;
}

}  // namespace

absl::StatusOr<std::shared_ptr<RequestData>> MakeRequest(EntityUid principal, EntityUid action,
                                                         EntityUid resource, std::string_view context_json,
                                                         std::string_view source_name,
                                                         const SchemaModel* schema) {
  std::shared_ptr<RequestData> data = WithUids(std::move(principal), std::move(action), std::move(resource));
  JsonSource src{source_name, context_json};
  const uint32_t offsets[3] = {0, 0, 0};
  if (context_json.empty()) {
    RETURN_IF_ERROR(FinishRequest(*data, offsets, nullptr, src, schema));
    return data;
  }
  ASSIGN_OR_RETURN(json::Document doc, ParseDocument(context_json, source_name));
  RETURN_IF_ERROR(FinishRequest(*data, offsets, &doc.root(), src, schema));
  return data;
}

absl::StatusOr<std::shared_ptr<RequestData>> MakeRequest(EntityUid principal, EntityUid action,
                                                         EntityUid resource, const charter::Value& context,
                                                         std::string_view source_name,
                                                         const SchemaModel* schema) {
  std::shared_ptr<RequestData> data = WithUids(std::move(principal), std::move(action), std::move(resource));
  data->Bind();
  const ActionInfo* info = nullptr;
  int field = 0;
  std::string why = CheckSignature(*data, schema, &info, &field);
  if (!why.empty()) return absl::InvalidArgumentError(Cat(source_name, ": ", why));
  EntityInterner intern = RequestInterner(data.get());
  BuiltValueReader reader(source_name, &data->arena, intern, 64, schema);
  ASSIGN_OR_RETURN(data->context,
                   reader.ReadRecord(context, info == nullptr ? nullptr : info->context.get(), nullptr, "attribute"));
  return data;
}

}  // namespace internal

}  // namespace charter
