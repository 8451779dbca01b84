// Writing JSON text: the server builds its answers, the Charter requests and
// entities it maps reviews to, and its decision-log lines as text, and every
// string in them goes through Quote.
#ifndef CHARTER_SERVER_JSON_WRITE_H_
#define CHARTER_SERVER_JSON_WRITE_H_

#include <string>
#include <string_view>
#include <vector>

#include "charter/json.h"

namespace charter::server {

// Appends `s` as a JSON string (quotes included): `"`, `\` and control
// characters escaped, everything else (UTF-8 included) as is.
inline void AppendQuoted(std::string* out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out->push_back('"');
  for (char c : s) {
    unsigned char u = static_cast<unsigned char>(c);
    switch (c) {
      case '"': out->append("\\\""); break;
      case '\\': out->append("\\\\"); break;
      case '\n': out->append("\\n"); break;
      case '\r': out->append("\\r"); break;
      case '\t': out->append("\\t"); break;
      default:
        if (u < 0x20 || u == 0x7f) {
          out->append("\\u00");
          out->push_back(kHex[u >> 4]);
          out->push_back(kHex[u & 15]);
        } else {
          out->push_back(c);
        }
    }
  }
  out->push_back('"');
}

inline std::string Quoted(std::string_view s) {
  std::string out;
  AppendQuoted(&out, s);
  return out;
}

// {"type":"T","id":"I"}
inline std::string UidJson(std::string_view type, std::string_view id) {
  std::string out = "{\"type\":";
  AppendQuoted(&out, type);
  out += ",\"id\":";
  AppendQuoted(&out, id);
  out += "}";
  return out;
}

// {"__entity":{"type":"T","id":"I"}}: an entity reference inside a value.
inline std::string EntityValueJson(std::string_view type, std::string_view id) {
  return "{\"__entity\":" + UidJson(type, id) + "}";
}

// The end of the JSON value that starts at `begin` in `text`, which the
// reader has already accepted (so well formed): strings skipped whole,
// brackets counted.
inline size_t JsonValueEnd(std::string_view text, size_t begin) {
  size_t i = begin;
  int depth = 0;
  do {
    char c = text[i];
    if (c == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\') ++i;
      }
      ++i;
    } else if (c == '{' || c == '[') {
      ++depth, ++i;
    } else if (c == '}' || c == ']') {
      --depth, ++i;
    } else if (depth == 0) {
      // A scalar at the top: up to the next delimiter.
      while (i < text.size() && text[i] != ',' && text[i] != '}' && text[i] != ']' && text[i] != ' ' &&
             text[i] != '\n' && text[i] != '\t' && text[i] != '\r') {
        ++i;
      }
      return i;
    } else {
      ++i;
    }
  } while (depth > 0 && i < text.size());
  return i;
}

// `v` (a value of a document parsed from `text`) as compact JSON on one
// line; the members of its "context" object named in `mask` written as
// "***". Nesting is bounded by the reader's own limit.
inline void AppendCompact(std::string* out, std::string_view text, const JsonValue& v,
                          const std::vector<std::string>* mask = nullptr, int depth = 0) {
  if (v.is_string()) {
    AppendQuoted(out, v.as_string());
  } else if (v.is_object()) {
    out->push_back('{');
    for (size_t i = 0; i < v.size(); ++i) {
      if (i) out->push_back(',');
      AppendQuoted(out, v.key(i));
      out->push_back(':');
      bool masked = false;
      if (mask != nullptr && depth == 1) {
        for (const std::string& m : *mask) masked = masked || m == v.key(i);
      }
      if (masked) {
        out->append("\"***\"");
      } else {
        // Only the top object's "context" member is masked.
        const std::vector<std::string>* inner = depth == 0 && v.key(i) == "context" ? mask : nullptr;
        AppendCompact(out, text, v.member(i), inner, inner ? 1 : depth + 2);
      }
    }
    out->push_back('}');
  } else if (v.is_array()) {
    out->push_back('[');
    for (size_t i = 0; i < v.size(); ++i) {
      if (i) out->push_back(',');
      AppendCompact(out, text, v.at(i), nullptr, depth + 2);
    }
    out->push_back(']');
  } else {
    size_t begin = v.offset();
    out->append(text.substr(begin, JsonValueEnd(text, begin) - begin));
  }
}

}  // namespace charter::server

#endif  // CHARTER_SERVER_JSON_WRITE_H_
