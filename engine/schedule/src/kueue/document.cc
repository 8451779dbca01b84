// Manifests into a tree of positioned values: YAML through libyaml's event
// parser (built with an explicit stack, no recursion), JSON through json/.
#include "kueue/document.h"

#include <yaml.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "common/strings.h"
#include "json/json.h"

namespace charter::internal::kueue {
namespace {

bool IsDigits(std::string_view s, std::string_view allowed) {
  if (s.empty()) return false;
  for (char c : s) {
    if (allowed.find(c) == std::string_view::npos) return false;
  }
  return true;
}

// How Kubernetes' YAML reader (YAML 1.1 resolution) types a plain scalar.
NodeKind ResolvePlain(std::string_view t) {
  static constexpr std::string_view kNull[] = {"", "~", "null", "Null", "NULL"};
  static constexpr std::string_view kBool[] = {"y",    "Y",    "yes",   "Yes",   "YES",   "on",  "On",  "ON",
                                               "true", "True", "TRUE",  "n",     "N",     "no",  "No",  "NO",
                                               "off",  "Off",  "OFF",   "false", "False", "FALSE"};
  for (std::string_view n : kNull) {
    if (t == n) return NodeKind::kNull;
  }
  for (std::string_view b : kBool) {
    if (t == b) return NodeKind::kBool;
  }
  std::string s;
  for (char c : t) {
    if (c != '_') s.push_back(c);
  }
  std::string_view v = s;
  if (!v.empty() && (v[0] == '+' || v[0] == '-')) v.remove_prefix(1);
  if (v.size() > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X') && IsDigits(v.substr(2), "0123456789abcdefABCDEF")) {
    return NodeKind::kInt;
  }
  if (v.size() > 2 && v[0] == '0' && (v[1] == 'b' || v[1] == 'B') && IsDigits(v.substr(2), "01")) return NodeKind::kInt;
  if (v.size() > 2 && v[0] == '0' && (v[1] == 'o' || v[1] == 'O') && IsDigits(v.substr(2), "01234567")) {
    return NodeKind::kInt;
  }
  if (IsDigits(v, "0123456789")) {
    if (v.size() == 1 || v[0] != '0' || IsDigits(v, "01234567")) return NodeKind::kInt;
    return NodeKind::kFloat;  // 08, 09: not octal; Kubernetes reads them as numbers
  }
  static constexpr std::string_view kSpecial[] = {".inf", ".Inf", ".INF", ".nan", ".NaN", ".NAN"};
  for (std::string_view sp : kSpecial) {
    if (v == sp) return NodeKind::kFloat;
  }
  // [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
  size_t i = 0, digits = 0;
  while (i < v.size() && v[i] >= '0' && v[i] <= '9') ++i, ++digits;
  if (i < v.size() && v[i] == '.') {
    ++i;
    size_t frac = 0;
    while (i < v.size() && v[i] >= '0' && v[i] <= '9') ++i, ++frac;
    if (digits == 0 && frac == 0) return NodeKind::kString;
    digits += frac;
  }
  if (digits == 0) return NodeKind::kString;
  if (i < v.size() && (v[i] == 'e' || v[i] == 'E')) {
    ++i;
    if (i < v.size() && (v[i] == '+' || v[i] == '-')) ++i;
    size_t exp = 0;
    while (i < v.size() && v[i] >= '0' && v[i] <= '9') ++i, ++exp;
    if (exp == 0) return NodeKind::kString;
  }
  return i == v.size() ? NodeKind::kFloat : NodeKind::kString;
}

// The open collections while events arrive.
struct Open {
  Node node;
  bool expecting_key = true;  // maps: the next scalar is a key
  // A map's keys so far, to find a duplicate in constant time (a scan of
  // node.keys for each key was quadratic in the map's size).
  absl::flat_hash_set<std::string> key_set;
};

class YamlReader {
 public:
  YamlReader(std::string_view text, const DocumentOptions& options) : text_(text), options_(options) {
    yaml_parser_initialize(&parser_);
    yaml_parser_set_input_string(&parser_, reinterpret_cast<const unsigned char*>(text.data()), text.size());
  }
  ~YamlReader() { yaml_parser_delete(&parser_); }
  YamlReader(const YamlReader&) = delete;
  YamlReader& operator=(const YamlReader&) = delete;

  absl::StatusOr<std::vector<Node>> Read() {
    std::vector<Node> docs;
    for (;;) {
      yaml_event_t event;
      if (!yaml_parser_parse(&parser_, &event)) return ParserError();
      absl::Status status = Handle(event, &docs);
      const bool end = event.type == YAML_STREAM_END_EVENT;
      yaml_event_delete(&event);
      if (!status.ok()) return status;
      if (end) break;
    }
    return docs;
  }

 private:
  absl::Status Error(const yaml_mark_t& mark, std::string_view message) const {
    return absl::InvalidArgumentError(At(options_.source_name, static_cast<uint32_t>(mark.line + 1) + options_.line_shift,
                                         static_cast<uint32_t>(mark.column + 1) + options_.col_shift, message));
  }

  absl::Status ParserError() const {
    std::string message = parser_.problem != nullptr ? parser_.problem : "malformed YAML";
    if (parser_.error == YAML_READER_ERROR) {
      // Bad bytes (not UTF-8, or a control character): the reader gives a
      // byte offset, not a mark.
      uint32_t line = 1, col = 1;
      const size_t end = std::min<size_t>(parser_.problem_offset, text_.size());
      for (size_t i = 0; i < end; ++i) {
        if (text_[i] == '\n') {
          ++line;
          col = 1;
        } else if ((static_cast<unsigned char>(text_[i]) & 0xC0) != 0x80) {
          ++col;
        }
      }
      return absl::InvalidArgumentError(
          At(options_.source_name, line + options_.line_shift, col + options_.col_shift, Cat("malformed YAML: ", message)));
    }
    if (parser_.context != nullptr) {
      message = Cat(message, " (", parser_.context, " at line ", parser_.context_mark.line + 1 + options_.line_shift, ")");
    }
    return Error(parser_.problem_mark, Cat("malformed YAML: ", message));
  }

  absl::Status Add(Node node, const yaml_mark_t& mark, std::vector<Node>* docs) {
    if (stack_.empty()) {
      if (!node.is_null()) docs->push_back(std::move(node));  // an empty document is none
      return absl::OkStatus();
    }
    Open& top = stack_.back();
    if (top.node.kind == NodeKind::kSeq) {
      top.node.items.push_back(std::move(node));
      return absl::OkStatus();
    }
    if (top.expecting_key) {
      if (!node.is_scalar()) return Error(mark, "a map key must be a scalar");
      if (!top.key_set.insert(node.text).second) return Error(mark, Cat("duplicate key `", node.text, "`"));
      top.node.keys.push_back(Member{std::move(node.text), node.line, node.col});
      top.expecting_key = false;
      return absl::OkStatus();
    }
    top.node.items.push_back(std::move(node));
    top.expecting_key = true;
    return absl::OkStatus();
  }

  absl::Status Count(const yaml_mark_t& mark) {
    if (++nodes_ > options_.max_nodes) {
      return Error(mark, Cat("more than ", options_.max_nodes, " values in one file"));
    }
    return absl::OkStatus();
  }

  absl::Status Handle(const yaml_event_t& e, std::vector<Node>* docs) {
    const yaml_mark_t& mark = e.start_mark;
    Node node;
    node.line = static_cast<uint32_t>(mark.line + 1) + options_.line_shift;
    node.col = static_cast<uint32_t>(mark.column + 1) + options_.col_shift;
    switch (e.type) {
      case YAML_ALIAS_EVENT:
        return Error(mark, "YAML aliases (`*name`) are not supported: write the value out");
      case YAML_SCALAR_EVENT: {
        if (absl::Status s = Count(mark); !s.ok()) return s;
        node.text.assign(reinterpret_cast<const char*>(e.data.scalar.value), e.data.scalar.length);
        const char* tag = reinterpret_cast<const char*>(e.data.scalar.tag);
        if (tag != nullptr && std::strcmp(tag, "tag:yaml.org,2002:str") == 0) {
          node.kind = NodeKind::kString;
        } else if (e.data.scalar.plain_implicit && e.data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
          node.kind = ResolvePlain(node.text);
        } else {
          node.kind = NodeKind::kString;
        }
        return Add(std::move(node), mark, docs);
      }
      case YAML_SEQUENCE_START_EVENT:
      case YAML_MAPPING_START_EVENT: {
        if (absl::Status s = Count(mark); !s.ok()) return s;
        if (static_cast<int>(stack_.size()) >= options_.max_depth) {
          return Error(mark, Cat("values nested deeper than ", options_.max_depth, " levels"));
        }
        if (!stack_.empty() && stack_.back().node.kind == NodeKind::kMap && stack_.back().expecting_key) {
          return Error(mark, "a map key must be a scalar");
        }
        node.kind = e.type == YAML_SEQUENCE_START_EVENT ? NodeKind::kSeq : NodeKind::kMap;
        stack_.push_back(Open{std::move(node), true, {}});
        return absl::OkStatus();
      }
      case YAML_SEQUENCE_END_EVENT:
      case YAML_MAPPING_END_EVENT: {
        Node done = std::move(stack_.back().node);
        stack_.pop_back();
        return Add(std::move(done), mark, docs);
      }
      default:
        return absl::OkStatus();
    }
  }

  std::string_view text_;
  const DocumentOptions& options_;
  yaml_parser_t parser_;
  std::vector<Open> stack_;
  size_t nodes_ = 0;
};

// A JSON document as a Node tree, with an explicit stack.
class JsonConverter {
 public:
  JsonConverter(std::string_view text, uint32_t line_shift, uint32_t col_shift)
      : text_(text), line_shift_(line_shift), col_shift_(col_shift) {}

  Node Convert(const json::Value& root) {
    struct Frame {
      const json::Value* v;
      Node* out;
      size_t next;
    };
    Node result;
    std::vector<Frame> stack;
    Fill(root, &result);
    if (!result.is_scalar()) stack.push_back({&root, &result, 0});
    while (!stack.empty()) {
      Frame& f = stack.back();
      if (f.next == f.v->size()) {
        stack.pop_back();
        continue;
      }
      const size_t i = f.next++;
      const json::Value& child = f.v->is_array() ? f.v->at(i) : f.v->member(i);
      Node* out = f.out;
      if (f.v->is_object()) {
        Member m;
        m.key = std::string(f.v->key(i));
        Position(f.v->key_offset(i), &m.line, &m.col);
        out->keys.push_back(std::move(m));
      }
      out->items.emplace_back();
      Node* slot = &out->items.back();
      Fill(child, slot);
      // INVARIANT: `out->items` was reserved to its final size in Fill, so
      // `slot` stays valid while its own children are added.
      if (!slot->is_scalar()) stack.push_back({&child, slot, 0});
    }
    return result;
  }

  void Locate(uint32_t offset, uint32_t* line, uint32_t* col) { Position(offset, line, col); }

 private:
  void Fill(const json::Value& v, Node* out) {
    Position(v.offset(), &out->line, &out->col);
    switch (v.kind()) {
      case json::Kind::kNull: out->kind = NodeKind::kNull; out->text = "null"; break;
      case json::Kind::kBool: out->kind = NodeKind::kBool; out->text = v.as_bool() ? "true" : "false"; break;
      case json::Kind::kNumber:
        out->kind = v.is_integer_literal() && v.fits_int64() ? NodeKind::kInt : NodeKind::kFloat;
        out->text = std::string(v.number_text());
        break;
      case json::Kind::kString: out->kind = NodeKind::kString; out->text = std::string(v.as_string()); break;
      case json::Kind::kArray:
      case json::Kind::kObject:
        out->kind = v.is_array() ? NodeKind::kSeq : NodeKind::kMap;
        out->items.reserve(v.size());
        if (v.is_object()) out->keys.reserve(v.size());
        break;
    }
  }

  // Line and column of an offset, moving a cursor forward (values come in
  // increasing order of offset, so the text is scanned about once).
  void Position(uint32_t offset, uint32_t* line, uint32_t* col) {
    if (offset < pos_) pos_ = 0, line_ = 1, col_ = 1;
    for (; pos_ < offset && pos_ < text_.size(); ++pos_) {
      const unsigned char c = static_cast<unsigned char>(text_[pos_]);
      if (c == '\n') {
        ++line_;
        col_ = 1;
      } else if ((c & 0xC0) != 0x80) {
        ++col_;
      }
    }
    *line = line_ + line_shift_;
    *col = col_ + col_shift_;
  }

  std::string_view text_;
  uint32_t line_shift_, col_shift_;
  uint32_t pos_ = 0, line_ = 1, col_ = 1;
};

}  // namespace

const Node* Node::Find(std::string_view key) const {
  if (kind != NodeKind::kMap) return nullptr;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (keys[i].key == key) return &items[i];
  }
  return nullptr;
}

std::string_view Node::KindName() const {
  switch (kind) {
    case NodeKind::kNull: return "null";
    case NodeKind::kBool: return "a boolean";
    case NodeKind::kInt: return "an integer";
    case NodeKind::kFloat: return "a number";
    case NodeKind::kString: return "a string";
    case NodeKind::kSeq: return "a list";
    case NodeKind::kMap: return "a map";
  }
  return "a value";
}

std::string At(std::string_view source, uint32_t line, uint32_t col, std::string_view message) {
  return Cat(source, ":", line, ":", col, ": ", message);
}

bool PlainIsString(std::string_view text) { return ResolvePlain(text) == NodeKind::kString; }

absl::StatusOr<std::vector<Node>> ParseDocuments(std::string_view text, const DocumentOptions& options) {
  if (text.size() > options.max_input_bytes) {
    return absl::InvalidArgumentError(Cat(options.source_name, ": larger than ", options.max_input_bytes, " bytes"));
  }
  size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && (text[first] == '{' || text[first] == '[')) {
    json::ParseOptions json_options;
    json_options.max_depth = options.max_depth;
    json::ParseFault fault;
    absl::StatusOr<json::Document> doc = json::Parse(text, json_options, &fault);
    if (!doc.ok()) {
      uint32_t line = 1, col = 1;
      JsonConverter(text, options.line_shift, options.col_shift).Locate(fault.offset, &line, &col);
      return absl::InvalidArgumentError(At(options.source_name, line, col, Cat("malformed JSON: ", fault.message)));
    }
    std::vector<Node> docs;
    docs.push_back(JsonConverter(text, options.line_shift, options.col_shift).Convert(doc->root()));
    return docs;
  }
  return YamlReader(text, options).Read();
}

}  // namespace charter::internal::kueue
