// charter::JsonDocument: the engine's JSON reader (json/json.h) behind the
// public API.
#include "charter/json.h"

#include "json/json.h"

namespace charter {

class JsonDocument::Tree {
 public:
  explicit Tree(internal::json::Document d) : doc(std::move(d)) {}
  internal::json::Document doc;
};

namespace {

const internal::json::Value& Node(const void* node) { return *static_cast<const internal::json::Value*>(node); }

// The root of a moved-from document.
const internal::json::Value kNullNode{};

}  // namespace

bool JsonValue::is_null() const { return Node(node_).is_null(); }
bool JsonValue::is_bool() const { return Node(node_).is_bool(); }
bool JsonValue::is_number() const { return Node(node_).is_number(); }
bool JsonValue::is_string() const { return Node(node_).is_string(); }
bool JsonValue::is_array() const { return Node(node_).is_array(); }
bool JsonValue::is_object() const { return Node(node_).is_object(); }
uint32_t JsonValue::offset() const { return Node(node_).offset(); }
bool JsonValue::as_bool() const { return Node(node_).as_bool(); }
std::string_view JsonValue::as_string() const { return Node(node_).as_string(); }
size_t JsonValue::size() const { return Node(node_).size(); }
JsonValue JsonValue::at(size_t i) const { return JsonValue(&Node(node_).at(i)); }
std::string_view JsonValue::key(size_t i) const { return Node(node_).key(i); }
uint32_t JsonValue::key_offset(size_t i) const { return Node(node_).key_offset(i); }
JsonValue JsonValue::member(size_t i) const { return JsonValue(&Node(node_).member(i)); }

std::optional<JsonValue> JsonValue::Find(std::string_view key) const {
  const internal::json::Value* v = Node(node_).Find(key);
  if (v == nullptr) return std::nullopt;
  return JsonValue(v);
}

absl::StatusOr<JsonDocument> JsonDocument::Parse(std::string_view text) {
  absl::StatusOr<internal::json::Document> doc = internal::json::Parse(text);
  if (!doc.ok()) return doc.status();
  return JsonDocument(std::make_shared<const Tree>(*std::move(doc)));
}

JsonValue JsonDocument::root() const {
  return JsonValue(tree_ == nullptr ? &kNullNode : &tree_->doc.root());
}

std::string JsonLineCol(std::string_view text, uint32_t offset) { return internal::json::LineCol(text, offset); }

void AppendJsonQuoted(std::string* out, std::string_view s) { internal::json::AppendQuoted(out, s); }

}  // namespace charter
