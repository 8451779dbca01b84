// ReadObjectsAsJson (charter/kueue.h): Kubernetes objects of any kind, from
// YAML or JSON manifests, written as JSON the way the apiserver reads YAML
// (sigs.k8s.io/yaml: YAML 1.1 scalars, as document.cc types them, then
// encoding/json). The tree is written with an explicit stack.
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "charter/kueue.h"
#include "common/status_macros.h"
#include "common/strings.h"
#include "json/json.h"
#include "kueue/document.h"
#include "kueue/objects.h"

namespace charter::kueue {
namespace {

namespace ik = internal::kueue;
using ik::Node;
using ik::NodeKind;
using internal::Cat;

absl::Status Fault(std::string_view source, const Node& n, std::string_view message) {
  return absl::InvalidArgumentError(ik::At(source, n, message));
}

// A finite double as encoding/json writes a float64: the shortest digits
// that read back the same, in fixed notation from 1e-6 up to 1e21 and in
// exponent notation (`1e+21`, `1e-7`) beyond.
std::string Float64Json(double d) {
  char buffer[512];
  const double a = d < 0 ? -d : d;
  const bool fixed = a == 0 || (a >= 1e-6 && a < 1e21);
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, d,
                                 fixed ? std::chars_format::fixed : std::chars_format::scientific);
  std::string out(buffer, ec == std::errc() ? end : buffer);
  // "1e-07" -> "1e-7", as Go writes it.
  size_t e = out.find('e');
  if (e != std::string::npos && out.size() == e + 4 && out[e + 2] == '0') out.erase(e + 2, 1);
  return out;
}

// A YAML 1.1 integer as Kubernetes' reader takes it: the underscores
// dropped, then strconv.ParseInt with base 0 (0x hexadecimal, 0b binary, 0o
// or a leading 0 octal), else ParseUint; a decimal beyond both is a float.
absl::StatusOr<std::string> IntJson(std::string_view source, const Node& n) {
  std::string digits;
  for (char c : n.text) {
    if (c != '_') digits.push_back(c);
  }
  std::string_view v = digits;
  bool negative = false;
  if (!v.empty() && (v[0] == '+' || v[0] == '-')) {
    negative = v[0] == '-';
    v.remove_prefix(1);
  }
  int base = 10;
  if (v.size() > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) {
    base = 16, v.remove_prefix(2);
  } else if (v.size() > 2 && v[0] == '0' && (v[1] == 'b' || v[1] == 'B')) {
    base = 2, v.remove_prefix(2);
  } else if (v.size() > 2 && v[0] == '0' && (v[1] == 'o' || v[1] == 'O')) {
    base = 8, v.remove_prefix(2);
  } else if (v.size() > 1 && v[0] == '0') {
    base = 8, v.remove_prefix(1);
  }
  uint64_t magnitude = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), magnitude, base);
  const bool fits = ec == std::errc() && end == v.data() + v.size() &&
                    (!negative || magnitude <= (uint64_t{1} << 63));
  if (fits) return Cat(negative && magnitude != 0 ? "-" : "", magnitude);
  if (base == 10) {
    // Beyond 64 bits: a float, as Kubernetes reads it.
    double d = std::strtod(digits.c_str(), nullptr);
    if (d - d == 0) return Float64Json(d);
  }
  return Fault(source, n, Cat("the integer `", n.text, "` is out of range"));
}

// A YAML 1.1 float (1.5, 1e3, .5, 08) as the shortest JSON number that reads
// back the same double, as encoding/json writes a float64; .inf and .nan have
// no JSON form (Kubernetes refuses them too).
absl::StatusOr<std::string> FloatJson(std::string_view source, const Node& n) {
  std::string text;
  for (char c : n.text) {
    if (c != '_') text.push_back(c);
  }
  std::string_view v = text;
  if (!v.empty() && (v[0] == '+' || v[0] == '-')) v.remove_prefix(1);
  if (!v.empty() && v[0] == '.' && (v.size() < 2 || v[1] < '0' || v[1] > '9')) {
    return Fault(source, n, Cat("`", n.text, "` has no JSON form: write a number, or quote it for a string"));
  }
  char* end = nullptr;
  double d = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || d - d != 0) {
    return Fault(source, n, Cat("the number `", n.text, "` has no JSON form"));
  }
  return Float64Json(d);
}

bool IsTrue(std::string_view t) {
  static constexpr std::string_view kTrue[] = {"y", "Y", "yes", "Yes", "YES", "on", "On", "ON", "true", "True", "TRUE"};
  for (std::string_view w : kTrue) {
    if (t == w) return true;
  }
  return false;
}

// `root` as JSON: the scalars of JSON text as written (`json_input`), of
// YAML as Kubernetes reads them. `prefix` goes right after the root's `{`
// (the apiVersion and kind a typed list gave its item).
absl::Status WriteJson(std::string_view source, const Node& root, bool json_input, std::string_view prefix,
                       std::string* out) {
  struct Frame {
    const Node* node;
    size_t next;
  };
  std::vector<Frame> stack;
  auto open = [&](const Node& n) -> absl::Status {
    switch (n.kind) {
      case NodeKind::kNull: *out += "null"; return absl::OkStatus();
      case NodeKind::kBool: *out += json_input ? n.text : (IsTrue(n.text) ? "true" : "false"); return absl::OkStatus();
      case NodeKind::kInt:
      case NodeKind::kFloat: {
        if (json_input) {
          *out += n.text;
          return absl::OkStatus();
        }
        ASSIGN_OR_RETURN(std::string number, n.kind == NodeKind::kInt ? IntJson(source, n) : FloatJson(source, n));
        *out += number;
        return absl::OkStatus();
      }
      case NodeKind::kString: internal::json::AppendQuoted(out, n.text); return absl::OkStatus();
      case NodeKind::kSeq:
      case NodeKind::kMap:
        out->push_back(n.is_map() ? '{' : '[');
        stack.push_back({&n, 0});
        return absl::OkStatus();
    }
    return absl::OkStatus();
  };
  RETURN_IF_ERROR(open(root));
  if (!prefix.empty() && root.is_map()) {
    *out += prefix;
    if (!root.items.empty()) out->push_back(',');
  }
  while (!stack.empty()) {
    Frame& f = stack.back();
    const Node& n = *f.node;
    if (f.next == n.items.size()) {
      out->push_back(n.is_map() ? '}' : ']');
      stack.pop_back();
      continue;
    }
    const size_t i = f.next++;
    if (i > 0) out->push_back(',');
    if (n.is_map()) {
      internal::json::AppendQuoted(out, n.keys[i].key);
      out->push_back(':');
    }
    // INVARIANT: `open` may push onto `stack`, moving `f`; it is not used after.
    RETURN_IF_ERROR(open(n.items[i]));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<ObjectJson>> ReadObjectsAsJson(const Source& source, const ReadOptions& options) {
  ik::DocumentOptions doc_options;
  doc_options.source_name = source.name;
  doc_options.max_input_bytes = options.max_input_bytes;
  doc_options.max_depth = options.max_depth;
  doc_options.max_nodes = options.max_nodes;
  ASSIGN_OR_RETURN(std::vector<Node> docs, ik::ParseDocuments(source.text, doc_options));
  ASSIGN_OR_RETURN(std::vector<ik::Object> objects, ik::Flatten(source.name, docs));
  // As ParseDocuments tells JSON from YAML.
  size_t first = source.text.find_first_not_of(" \t\r\n");
  const bool json_input = first != std::string_view::npos && (source.text[first] == '{' || source.text[first] == '[');
  std::vector<ObjectJson> out;
  out.reserve(objects.size());
  for (const ik::Object& o : objects) {
    if (o.kind.empty()) return Fault(source.name, o.At("kind"), "the object's `kind` is empty");
    ObjectJson j;
    j.group = o.group;
    j.version = o.version;
    j.kind = o.kind;
    j.name = o.name;
    j.namespace_name = o.namespace_name;
    j.line = o.node->line;
    j.column = o.node->col;
    // A typed list's item may leave its apiVersion and kind to the list.
    std::string prefix;
    if (o.node->Find("apiVersion") == nullptr) {
      prefix += "\"apiVersion\":";
      internal::json::AppendQuoted(&prefix, o.group.empty() ? o.version : Cat(o.group, "/", o.version));
    }
    if (o.node->Find("kind") == nullptr) {
      prefix += prefix.empty() ? "\"kind\":" : ",\"kind\":";
      internal::json::AppendQuoted(&prefix, o.kind);
    }
    RETURN_IF_ERROR(WriteJson(source.name, *o.node, json_input, prefix, &j.json));
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace charter::kueue
