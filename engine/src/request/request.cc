// charter::Request from JSON: {"principal", "action", "resource", "context"},
// each entity as {"type","id"}, {"__entity": {...}} or the string `Type::"id"`.
#include "charter/request.h"

#include <cctype>

#include "common/strings.h"
#include "common/status_macros.h"
#include "common/utf8.h"
#include "entities/json_values.h"
#include "json/json.h"
#include "request/request_data.h"

namespace charter {

using internal::Cat;
using internal::CatAppend;
namespace {

using internal::JsonSource;

absl::StatusOr<std::shared_ptr<internal::RequestData>> ReadRequest(const internal::json::Value& v,
                                                                   const JsonSource& src) {
  if (!v.is_object()) return src.Error(v.offset(), "a request must be a JSON object");
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
      if (!v.member(k).is_string()) return src.Error(v.member(k).offset(), "`description` must be a string");
      known = true;
    }
    if (!known) {
      return src.Error(v.key_offset(k),
                       Cat("unexpected key `", key, "` in a request; expected `principal`, "
                                    "`action`, `resource`, `context` or `description`"));
    }
  }
  EntityUid* uids[3] = {&data->principal, &data->action, &data->resource};
  for (int f = 0; f < 3; ++f) {
    if (fields[f] == nullptr) return src.Error(v.offset(), Cat("a request lacks `", kNames[f], "`"));
    RETURN_IF_ERROR(internal::ReadEntityUidOrText(*fields[f], src, kNames[f], uids[f]));
  }
  data->Bind();
  if (fields[3] != nullptr) {
    internal::RequestData* d = data.get();
    internal::EntityInterner intern = [d](std::string_view t, std::string_view i) {
      auto* ref = d->arena.New<internal::EntityRef>();
      ref->type = d->arena.CopyString(t);
      ref->id = d->arena.CopyString(i);
      return ref;
    };
    ASSIGN_OR_RETURN(data->context,
                     internal::ReadRecord(*fields[3], src, &data->arena, intern, 64, "`context`"));
  }
  return data;
}

absl::StatusOr<internal::json::Document> ParseDocument(std::string_view json,
                                                       std::string_view source_name) {
  auto doc = internal::json::Parse(json);
  if (!doc.ok()) {
    return absl::InvalidArgumentError(Cat(source_name, ":", doc.status().message()));
  }
  return doc;
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
  ASSIGN_OR_RETURN(internal::json::Document doc, ParseDocument(json, source_name));
  JsonSource src{source_name, json};
  ASSIGN_OR_RETURN(std::shared_ptr<internal::RequestData> data, ReadRequest(doc.root(), src));
  return Request(std::move(data));
}

absl::StatusOr<std::vector<Request>> Request::ArrayFromJson(std::string_view json,
                                                            std::string_view source_name) {
  ASSIGN_OR_RETURN(internal::json::Document doc, ParseDocument(json, source_name));
  JsonSource src{source_name, json};
  const internal::json::Value& root = doc.root();
  if (!root.is_array()) return src.Error(root.offset(), "requests must be a JSON array of request objects");
  std::vector<Request> out;
  out.reserve(root.size());
  for (size_t i = 0; i < root.size(); ++i) {
    ASSIGN_OR_RETURN(std::shared_ptr<internal::RequestData> data, ReadRequest(root.at(i), src));
    out.push_back(Request(std::move(data)));
  }
  return out;
}

const EntityUid& Request::principal() const { return data_->principal; }
const EntityUid& Request::action() const { return data_->action; }
const EntityUid& Request::resource() const { return data_->resource; }

}  // namespace charter
