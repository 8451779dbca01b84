// charter::Value and charter::Entity: values and entities built in code, and
// their JSON in Cedar's formats.
#include "charter/value.h"

#include <string>
#include <utility>

#include "charter/entities.h"
#include "json/json.h"

namespace charter {

Value Value::Bool(bool b) {
  Value v;
  v.kind_ = Kind::kBool;
  v.number_ = b ? 1 : 0;
  return v;
}

Value Value::Long(int64_t n) {
  Value v;
  v.kind_ = Kind::kLong;
  v.number_ = n;
  return v;
}

Value Value::String(std::string s) {
  Value v;
  v.kind_ = Kind::kString;
  v.text_ = std::move(s);
  return v;
}

Value Value::Entity(EntityUid uid) {
  Value v;
  v.kind_ = Kind::kEntity;
  v.uid_ = std::move(uid);
  return v;
}

Value Value::Set(std::vector<Value> elements) {
  Value v;
  v.kind_ = Kind::kSet;
  v.elements_ = std::move(elements);
  return v;
}

Value Value::Record(std::vector<std::pair<std::string, Value>> fields) {
  Value v;
  v.kind_ = Kind::kRecord;
  v.keys_.reserve(fields.size());
  v.elements_.reserve(fields.size());
  for (auto& [key, value] : fields) {
    v.keys_.push_back(std::move(key));
    v.elements_.push_back(std::move(value));
  }
  return v;
}

Value Value::Extension(std::string function, std::string argument) {
  Value v;
  v.kind_ = Kind::kExtension;
  v.function_ = std::move(function);
  v.text_ = std::move(argument);
  return v;
}

namespace {

void AppendUidObject(std::string* out, const EntityUid& uid) {
  out->append("{\"type\":");
  internal::json::AppendQuoted(out, uid.type);
  out->append(",\"id\":");
  internal::json::AppendQuoted(out, uid.id);
  out->push_back('}');
}

void AppendFields(std::string* out, const std::vector<std::pair<std::string, Value>>& fields) {
  out->push_back('{');
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) out->push_back(',');
    internal::json::AppendQuoted(out, fields[i].first);
    out->push_back(':');
    fields[i].second.AppendJson(out);
  }
  out->push_back('}');
}

}  // namespace

void Value::AppendJson(std::string* out) const {
  switch (kind_) {
    case Kind::kBool:
      out->append(number_ != 0 ? "true" : "false");
      return;
    case Kind::kLong:
      out->append(std::to_string(number_));
      return;
    case Kind::kString:
      internal::json::AppendQuoted(out, text_);
      return;
    case Kind::kEntity:
      out->append("{\"__entity\":");
      AppendUidObject(out, uid_);
      out->push_back('}');
      return;
    case Kind::kExtension:
      out->append("{\"__extn\":{\"fn\":");
      internal::json::AppendQuoted(out, function_);
      out->append(",\"arg\":");
      internal::json::AppendQuoted(out, text_);
      out->append("}}");
      return;
    case Kind::kSet:
      out->push_back('[');
      for (size_t i = 0; i < elements_.size(); ++i) {
        if (i > 0) out->push_back(',');
        elements_[i].AppendJson(out);
      }
      out->push_back(']');
      return;
    case Kind::kRecord:
      out->push_back('{');
      for (size_t i = 0; i < elements_.size(); ++i) {
        if (i > 0) out->push_back(',');
        internal::json::AppendQuoted(out, keys_[i]);
        out->push_back(':');
        elements_[i].AppendJson(out);
      }
      out->push_back('}');
      return;
  }
}

std::string Value::ToJson() const {
  std::string out;
  AppendJson(&out);
  return out;
}

void Entity::AppendJson(std::string* out) const {
  out->append("{\"uid\":");
  AppendUidObject(out, uid);
  out->append(",\"attrs\":");
  AppendFields(out, attrs);
  out->append(",\"parents\":[");
  for (size_t i = 0; i < parents.size(); ++i) {
    if (i > 0) out->push_back(',');
    AppendUidObject(out, parents[i]);
  }
  out->append("],\"tags\":");
  AppendFields(out, tags);
  out->push_back('}');
}

std::string Entity::ToJson() const {
  std::string out;
  AppendJson(&out);
  return out;
}

}  // namespace charter
