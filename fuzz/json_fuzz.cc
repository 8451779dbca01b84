// libFuzzer target for the JSON parser. Any input must parse or fail cleanly.
// A parsed tree is walked whole and checked against the input; it is
// serialized, reparsed and serialized again, and both texts must agree.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <charconv>
#include <cmath>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "json/json.h"

namespace {

namespace json = charter::internal::json;

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "json_fuzz invariant failed: %s\n", what);
    std::abort();
  }
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// A deliberately simple second implementation of well-formed UTF-8.
bool IsValidUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    size_t n;
    uint32_t cp;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xE0) == 0xC0) {
      n = 2;
      cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      n = 3;
      cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      n = 4;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (i + n > s.size()) return false;
    for (size_t k = 1; k < n; ++k) {
      const unsigned char b = static_cast<unsigned char>(s[i + k]);
      if ((b & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (b & 0x3F);
    }
    static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += n;
  }
  return true;
}

// The RFC 8259 number grammar, checked independently of the parser.
bool IsJsonNumber(std::string_view t, bool* integer) {
  size_t i = 0;
  if (i < t.size() && t[i] == '-') ++i;
  if (i >= t.size() || !IsDigit(t[i])) return false;
  if (t[i] == '0') {
    ++i;
  } else {
    while (i < t.size() && IsDigit(t[i])) ++i;
  }
  *integer = true;
  if (i < t.size() && t[i] == '.') {
    *integer = false;
    ++i;
    if (i >= t.size() || !IsDigit(t[i])) return false;
    while (i < t.size() && IsDigit(t[i])) ++i;
  }
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    *integer = false;
    ++i;
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
    if (i >= t.size() || !IsDigit(t[i])) return false;
    while (i < t.size() && IsDigit(t[i])) ++i;
  }
  return i == t.size();
}

void CheckError(std::string_view input, const absl::Status& status) {
  Check(status.code() == absl::StatusCode::kInvalidArgument, "error code");
  const std::string_view m(status.message().data(), status.message().size());
  size_t i = 0;
  auto digits = [&] {
    const size_t start = i;
    while (i < m.size() && IsDigit(m[i])) ++i;
    return i > start;
  };
  Check(digits() && i < m.size() && m[i++] == ':', "error line");
  Check(digits() && i < m.size() && m[i++] == ':', "error column");
  Check(i + 1 < m.size() && m[i] == ' ' && m[i + 1] >= 'a' && m[i + 1] <= 'z',
        "error message starts lowercase");
  size_t line = 0;
  std::from_chars(m.data(), m.data() + m.size(), line);
  size_t lines = 1;
  for (char c : input) lines += c == '\n';
  Check(line >= 1 && line <= lines, "error line in range");
}

void CheckNumber(const json::Value& v) {
  const std::string_view text = v.number_text();
  bool integer = false;
  Check(IsJsonNumber(text, &integer), "number grammar");
  Check(v.is_integer_literal() == integer, "integer literal flag");
  int64_t expected = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), expected);
  const bool fits = integer && ec == std::errc() && ptr == text.data() + text.size();
  Check(v.fits_int64() == fits, "fits_int64");
  if (fits) Check(v.as_int64() == expected, "as_int64");
  const double d = v.as_double();
  Check(!std::isnan(d), "as_double is not NaN");
  if (fits && expected > -(int64_t{1} << 53) && expected < (int64_t{1} << 53)) {
    Check(d == static_cast<double>(expected), "small integer as double");
  }
}

// Walks the whole tree with an explicit stack; returns the maximum depth.
int Walk(std::string_view input, const json::Value& root, bool unique_keys) {
  struct Item {
    const json::Value* value;
    int depth;
  };
  std::vector<Item> stack = {{&root, 0}};
  int max_depth = 0;
  while (!stack.empty()) {
    const Item item = stack.back();
    stack.pop_back();
    const json::Value& v = *item.value;
    Check(v.offset() < input.size(), "offset in range");
    const char first = input[v.offset()];
    switch (v.kind()) {
      case json::Kind::kNull:
        Check(input.substr(v.offset(), 4) == "null", "null text");
        break;
      case json::Kind::kBool:
        Check(input.substr(v.offset(), v.as_bool() ? 4 : 5) ==
                  (v.as_bool() ? "true" : "false"),
              "bool text");
        break;
      case json::Kind::kNumber:
        Check(v.number_text().data() == input.data() + v.offset(), "number text is a view");
        CheckNumber(v);
        break;
      case json::Kind::kString: {
        Check(first == '"', "string starts with a quote");
        const std::string_view s = v.as_string();
        Check(IsValidUtf8(s), "decoded string is UTF-8");
        if (s.data() == input.data() + v.offset() + 1) {
          Check(input[v.offset() + 1 + s.size()] == '"', "view ends at a quote");
        }
        break;
      }
      case json::Kind::kArray: {
        Check(first == '[', "array starts with a bracket");
        max_depth = std::max(max_depth, item.depth + 1);
        uint32_t last = v.offset();
        for (size_t i = 0; i < v.size(); ++i) {
          Check(v.at(i).offset() > last, "element offsets increase");
          last = v.at(i).offset();
          stack.push_back({&v.at(i), item.depth + 1});
        }
        break;
      }
      case json::Kind::kObject: {
        Check(first == '{', "object starts with a brace");
        max_depth = std::max(max_depth, item.depth + 1);
        uint32_t last = v.offset();
        for (size_t i = 0; i < v.size(); ++i) {
          Check(v.key_offset(i) > last, "key offsets increase");
          Check(input[v.key_offset(i)] == '"', "key starts with a quote");
          Check(v.member(i).offset() > v.key_offset(i), "member after its key");
          last = v.member(i).offset();
          Check(IsValidUtf8(v.key(i)), "key is UTF-8");
          const json::Value* found = v.Find(v.key(i));
          Check(found != nullptr, "Find finds every key");
          if (unique_keys) Check(found == &v.member(i), "Find finds the member");
          size_t last_same = i;
          for (size_t k = i + 1; k < v.size(); ++k) {
            if (v.key(k) == v.key(i)) last_same = k;
          }
          Check(found == &v.member(last_same), "Find returns the last");
          Check(!unique_keys || last_same == i, "keys are unique");
          stack.push_back({&v.member(i), item.depth + 1});
        }
        break;
      }
    }
  }
  return max_depth;
}

// Compact JSON for the tree, written without recursion.
std::string Serialize(const json::Value& root) {
  struct Item {
    const json::Value* value;
    size_t next;  // next element or member to write
  };
  std::string out;
  std::vector<Item> stack;
  const json::Value* pending = &root;
  for (;;) {
    if (pending != nullptr) {
      const json::Value& v = *pending;
      pending = nullptr;
      switch (v.kind()) {
        case json::Kind::kNull: out += "null"; break;
        case json::Kind::kBool: out += v.as_bool() ? "true" : "false"; break;
        case json::Kind::kNumber: out += v.number_text(); break;
        case json::Kind::kString: json::AppendQuoted(&out, v.as_string()); break;
        case json::Kind::kArray:
          out += '[';
          stack.push_back({&v, 0});
          break;
        case json::Kind::kObject:
          out += '{';
          stack.push_back({&v, 0});
          break;
      }
    }
    if (stack.empty()) return out;
    Item& top = stack.back();
    const json::Value& c = *top.value;
    if (top.next == c.size()) {
      out += c.is_array() ? ']' : '}';
      stack.pop_back();
      continue;
    }
    if (top.next > 0) out += ',';
    if (c.is_object()) {
      json::AppendQuoted(&out, c.key(top.next));
      out += ':';
      pending = &c.member(top.next);
    } else {
      pending = &c.at(top.next);
    }
    ++top.next;
  }
}

void CheckRoundTrip(const json::Value& root, const json::ParseOptions& options) {
  const std::string first = Serialize(root);
  absl::StatusOr<json::Document> again = json::Parse(first, options);
  Check(again.ok(), "serialized tree parses");
  Check(Serialize(again->root()) == first, "serialization is stable");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);

  json::ParseOptions strict;
  absl::StatusOr<json::Document> doc = json::Parse(input, strict);
  if (doc.ok()) {
    const int depth = Walk(input, doc->root(), /*unique_keys=*/true);
    Check(depth <= strict.max_depth, "depth within the limit");
    Check(IsValidUtf8(input), "accepted input is UTF-8");
    CheckRoundTrip(doc->root(), strict);
    json::Document moved = std::move(*doc);
    Check(doc->root().is_null(), "moved-from document is null");
    Walk(input, moved.root(), true);
  } else {
    CheckError(input, doc.status());
  }

  json::ParseOptions loose;
  loose.max_depth = 8;
  loose.allow_duplicate_keys = true;
  absl::StatusOr<json::Document> loose_doc = json::Parse(input, loose);
  if (loose_doc.ok()) {
    Check(Walk(input, loose_doc->root(), false) <= loose.max_depth, "loose depth");
    CheckRoundTrip(loose_doc->root(), loose);
  } else {
    CheckError(input, loose_doc.status());
    if (doc.ok()) {
      const std::string_view m(loose_doc.status().message().data(),
                               loose_doc.status().message().size());
      Check(m.find("nesting deeper than 8") != std::string_view::npos,
            "loose options fail only on depth");
    }
  }

  // Any bytes quote into a string literal that parses; UTF-8 survives as is.
  std::string quoted;
  json::AppendQuoted(&quoted, input);
  absl::StatusOr<json::Document> string_doc = json::Parse(quoted);
  Check(string_doc.ok() && string_doc->root().is_string(), "quoted input parses");
  if (IsValidUtf8(input)) Check(string_doc->root().as_string() == input, "quote round trip");

  json::LineCol(input, static_cast<uint32_t>(size / 2));
  json::LineCol(input, static_cast<uint32_t>(size + 1));
  return 0;
}
