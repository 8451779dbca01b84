// Kubernetes manifests as a tree of values with their positions: YAML (one
// or several documents, through libyaml) or JSON (through json/), with every
// scalar typed as Kubernetes' YAML reader types it (YAML 1.1: `yes` and `on`
// are booleans, `08` is a string, `1e3` a float).
#ifndef CHARTER_KUEUE_DOCUMENT_H_
#define CHARTER_KUEUE_DOCUMENT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace charter::internal::kueue {

enum class NodeKind : uint8_t { kNull, kBool, kInt, kFloat, kString, kSeq, kMap };

struct Member {
  std::string key;
  uint32_t line = 0, col = 0;  // of the key
};

struct Node {
  NodeKind kind = NodeKind::kNull;
  uint32_t line = 1, col = 1;  // 1-based; columns in Unicode scalar values
  std::string text;             // scalars: the text as written (unquoted)
  std::vector<Node> items;      // kSeq: the items; kMap: the values
  std::vector<Member> keys;     // kMap: the keys, parallel to `items`

  bool is_scalar() const { return kind != NodeKind::kSeq && kind != NodeKind::kMap; }
  bool is_map() const { return kind == NodeKind::kMap; }
  bool is_seq() const { return kind == NodeKind::kSeq; }
  bool is_null() const { return kind == NodeKind::kNull; }
  // The value of `key` in a map, or nullptr.
  const Node* Find(std::string_view key) const;
  // "a string", "an integer", "a map", ... for messages.
  std::string_view KindName() const;
};

struct DocumentOptions {
  std::string source_name;
  size_t max_input_bytes = size_t{1} << 30;
  int max_depth = 100;
  size_t max_nodes = size_t{1} << 22;
  // Added to every position: the text is a block scalar of another file
  // (a ConfigMap's data), whose line 1 is the file's line 1 + line_shift
  // and whose columns are shifted by its indentation.
  uint32_t line_shift = 0, col_shift = 0;
};

// The documents of `text`: JSON when its first character after whitespace
// is `{` or `[`, YAML otherwise. Empty documents are left out. Faults
// (malformed text, an alias, a duplicate key, a key that is not a scalar,
// nesting or size past the limits) read "SOURCE:LINE:COL: message".
absl::StatusOr<std::vector<Node>> ParseDocuments(std::string_view text, const DocumentOptions& options);

// "SOURCE:LINE:COL: message".
std::string At(std::string_view source, uint32_t line, uint32_t col, std::string_view message);
inline std::string At(std::string_view source, const Node& n, std::string_view message) {
  return At(source, n.line, n.col, message);
}

// A YAML scalar that is written plain (unquoted) would read back as this text
// with NodeKind::kString.
bool PlainIsString(std::string_view text);

}  // namespace charter::internal::kueue

#endif  // CHARTER_KUEUE_DOCUMENT_H_
