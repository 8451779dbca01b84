// Value equality, lookup and printing.
#include "value/value.h"

#include <algorithm>

#include "extensions/extensions.h"
#include "common/strings.h"

namespace charter::internal {

const Value* FindField(const Value& record, std::string_view key) {
  const RecordField* begin = record.fields;
  const RecordField* end = record.fields + record.size;
  const RecordField* it = std::lower_bound(
      begin, end, key, [](const RecordField& f, std::string_view k) { return f.key < k; });
  if (it == end || it->key != key) return nullptr;
  return &it->value;
}

namespace {
bool SetContains(const Value& set, const Value& v) {
  for (uint32_t i = 0; i < set.size; ++i) {
    if (Equal(set.elements[i], v)) return true;
  }
  return false;
}
}  // namespace

bool Equal(const Value& a, const Value& b) {
  if (a.type != b.type) return false;
  switch (a.type) {
    case Type::kBool:
      return a.b == b.b;
    case Type::kLong:
      return a.i == b.i;
    case Type::kString:
      return a.string() == b.string();
    case Type::kEntity:
      if (a.entity->uid != kNoUid && a.entity->uid == b.entity->uid) return true;
      return a.entity->id == b.entity->id && a.entity->type == b.entity->type;
    case Type::kRecord:
      if (a.size != b.size) return false;
      for (uint32_t i = 0; i < a.size; ++i) {
        if (a.fields[i].key != b.fields[i].key || !Equal(a.fields[i].value, b.fields[i].value)) {
          return false;
        }
      }
      return true;
    case Type::kDecimal:
    case Type::kDatetime:
    case Type::kDuration:
      return a.i == b.i;
    case Type::kIp:
      return ext::IpEqual(*a.ip, *b.ip);
    case Type::kSet:
      // INVARIANT: set elements are unique, so equal sizes and inclusion
      // one way mean equality.
      if (a.size != b.size) return false;
      for (uint32_t i = 0; i < a.size; ++i) {
        if (!SetContains(b, a.elements[i])) return false;
      }
      return true;
  }
  return false;
}

std::string_view TypeName(Type t) {
  switch (t) {
    case Type::kBool: return "bool";
    case Type::kLong: return "long";
    case Type::kString: return "string";
    case Type::kEntity: return "entity";
    case Type::kSet: return "set";
    case Type::kRecord: return "record";
    case Type::kIp: return "ipaddr";
    case Type::kDecimal: return "decimal";
    case Type::kDatetime: return "datetime";
    case Type::kDuration: return "duration";
  }
  return "?";
}

void AppendCedarEscaped(std::string* out, std::string_view s, bool escape_star) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (char ch : s) {
    unsigned char c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '"': out->append("\\\""); break;
      case '\\': out->append("\\\\"); break;
      case '\n': out->append("\\n"); break;
      case '\r': out->append("\\r"); break;
      case '\t': out->append("\\t"); break;
      case '\0': out->append("\\0"); break;
      case '*': out->append(escape_star ? "\\*" : "*"); break;
      default:
        if (c < 0x20 || c == 0x7f) {
          out->append("\\u{");
          if (c >= 0x10) out->push_back(kHex[c >> 4]);
          out->push_back(kHex[c & 0xf]);
          out->push_back('}');
        } else {
          out->push_back(ch);
        }
    }
  }
}

void AppendQuotedCedar(std::string* out, std::string_view s) {
  out->push_back('"');
  AppendCedarEscaped(out, s);
  out->push_back('"');
}

namespace {
void Append(std::string* out, const Value& v) {
  switch (v.type) {
    case Type::kBool: *out += v.b ? "true" : "false"; break;
    case Type::kLong: CatAppend(out, v.i); break;
    case Type::kString: AppendQuotedCedar(out, v.string()); break;
    case Type::kEntity: *out += EntityToCedar(v.entity->type, v.entity->id); break;
    case Type::kSet:
      out->push_back('[');
      for (uint32_t i = 0; i < v.size; ++i) {
        if (i > 0) *out += ", ";
        Append(out, v.elements[i]);
      }
      out->push_back(']');
      break;
    case Type::kIp: CatAppend(out, "ip(\"", ext::FormatIp(*v.ip), "\")"); break;
    case Type::kDecimal: CatAppend(out, "decimal(\"", ext::FormatDecimal(v.i), "\")"); break;
    case Type::kDatetime: CatAppend(out, "datetime(\"", ext::FormatDatetime(v.i), "\")"); break;
    case Type::kDuration: CatAppend(out, "duration(\"", ext::FormatDuration(v.i), "\")"); break;
    case Type::kRecord:
      out->push_back('{');
      for (uint32_t i = 0; i < v.size; ++i) {
        if (i > 0) *out += ", ";
        AppendQuotedCedar(out, v.fields[i].key);
        *out += ": ";
        Append(out, v.fields[i].value);
      }
      out->push_back('}');
      break;
  }
}
}  // namespace

std::string ToCedar(const Value& v) {
  std::string out;
  Append(&out, v);
  return out;
}

void AppendEntityToCedar(std::string* out, std::string_view type, std::string_view id) {
  out->append(type);
  out->append("::");
  AppendQuotedCedar(out, id);
}

std::string EntityToCedar(std::string_view type, std::string_view id) {
  std::string out(type);
  out += "::";
  AppendQuotedCedar(&out, id);
  return out;
}

}  // namespace charter::internal
