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

bool IsIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Parses Cedar's `Type::"id"` (namespaces allowed, id with Cedar's escapes).
bool ParseEntityText(std::string_view s, EntityUid* out, std::string* why) {
  size_t i = 0;
  std::string type;
  for (;;) {
    if (i >= s.size() || !IsIdentStart(s[i])) {
      *why = "expected an entity type name";
      return false;
    }
    size_t start = i;
    while (i < s.size() && IsIdentChar(s[i])) ++i;
    type.append(s.substr(start, i - start));
    if (s.substr(i, 2) != "::") {
      *why = "expected `::` after the entity type";
      return false;
    }
    i += 2;
    if (i < s.size() && s[i] == '"') break;
    type += "::";
  }
  ++i;
  std::string id;
  while (i < s.size() && s[i] != '"') {
    char c = s[i++];
    if (c != '\\') {
      id.push_back(c);
      continue;
    }
    if (i >= s.size()) break;
    char e = s[i++];
    switch (e) {
      case 'n': id.push_back('\n'); break;
      case 'r': id.push_back('\r'); break;
      case 't': id.push_back('\t'); break;
      case '0': id.push_back('\0'); break;
      case '\\': id.push_back('\\'); break;
      case '\'': id.push_back('\''); break;
      case '"': id.push_back('"'); break;
      case 'u': {
        size_t close = s.find('}', i);
        if (i >= s.size() || s[i] != '{' || close == std::string_view::npos || close - i < 2 ||
            close - i > 7) {
          *why = "invalid `\\u` escape in the entity id";
          return false;
        }
        uint32_t v = 0;
        for (size_t k = i + 1; k < close; ++k) {
          char h = s[k];
          int d = std::isdigit(static_cast<unsigned char>(h)) ? h - '0'
                  : (h >= 'a' && h <= 'f')                    ? h - 'a' + 10
                  : (h >= 'A' && h <= 'F')                    ? h - 'A' + 10
                                                              : -1;
          if (d < 0) {
            *why = "invalid `\\u` escape in the entity id";
            return false;
          }
          v = v * 16 + static_cast<uint32_t>(d);
        }
        if (v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) {
          *why = "invalid `\\u` escape in the entity id";
          return false;
        }
        internal::AppendUtf8(&id, v);
        i = close + 1;
        break;
      }
      default:
        *why = Cat("invalid escape `\\", std::string(1, e), "` in the entity id");
        return false;
    }
  }
  if (i >= s.size() || s[i] != '"' || i + 1 != s.size()) {
    *why = "expected the entity id as a quoted string ending the reference";
    return false;
  }
  out->type = std::move(type);
  out->id = std::move(id);
  return true;
}

absl::Status ReadRequestEntity(const internal::json::Value& v, const JsonSource& src,
                               std::string_view field, EntityUid* out) {
  if (v.is_string()) {
    std::string why;
    if (!ParseEntityText(v.as_string(), out, &why)) {
      return src.Error(v.offset(), Cat("`", field, "` is not an entity reference: ", why,
                                                " (write it as `Type::\\\"id\\\"` or "
                                                "{\"type\": ..., \"id\": ...})"));
    }
    return absl::OkStatus();
  }
  std::string_view type, id;
  RETURN_IF_ERROR(internal::ReadEntityUid(v, src, Cat("`", field, "`"), &type, &id));
  out->type = std::string(type);
  out->id = std::string(id);
  return absl::OkStatus();
}

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
    RETURN_IF_ERROR(ReadRequestEntity(*fields[f], src, kNames[f], uids[f]));
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
