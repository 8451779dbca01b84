// Typed field reading for Kubernetes objects (see fields.h).
#include "kueue/fields.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

#include "cycle/quantity.h"

namespace charter::internal::kueue {
namespace {

bool IsAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

// A label-style name: [A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?, at most 63.
bool IsLabelName(std::string_view s) {
  if (s.empty() || s.size() > 63 || !IsAlnum(s.front()) || !IsAlnum(s.back())) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return IsAlnum(c) || c == '-' || c == '_' || c == '.'; });
}

}  // namespace

bool IsDnsSubdomain(std::string_view name) {
  if (name.empty() || name.size() > 253) return false;
  size_t start = 0;
  for (;;) {
    size_t dot = name.find('.', start);
    std::string_view part = name.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (part.empty()) return false;
    auto lower = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
    if (!lower(part.front()) || !lower(part.back())) return false;
    if (!std::all_of(part.begin(), part.end(), [&](char c) { return lower(c) || c == '-'; })) return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

bool IsQualifiedName(std::string_view name) {
  size_t slash = name.find('/');
  if (slash == std::string_view::npos) return IsLabelName(name);
  std::string_view prefix = name.substr(0, slash);
  return IsDnsSubdomain(prefix) && IsLabelName(name.substr(slash + 1));
}

std::string OneOf(std::initializer_list<std::string_view> values) {
  std::string out;
  size_t i = 0;
  for (std::string_view v : values) {
    if (i > 0) out += i + 1 == values.size() ? " or " : ", ";
    CatAppend(&out, "`", v, "`");
    ++i;
  }
  return out;
}

void AddNote(std::vector<::charter::kueue::Note>* notes, const Where& where, std::string_view message, bool warning) {
  if (notes == nullptr) return;
  ::charter::kueue::Note n;
  n.severity = warning ? ::charter::kueue::Note::Severity::kWarning : ::charter::kueue::Note::Severity::kNote;
  n.message = where.Message(message);
  notes->push_back(std::move(n));
}

absl::Status Fields::FailKey(const Node& map, std::string_view key, std::string_view message) const {
  for (const Member& m : map.keys) {
    if (m.key == key) return absl::InvalidArgumentError(Where{source_, m.line, m.col, object_}.Message(message));
  }
  return Fail(map, message);
}

absl::Status Fields::Check(const Node& n, std::string_view path, std::initializer_list<std::string_view> allowed) const {
  return Check(n, path, std::vector<std::string_view>(allowed));
}

absl::Status Fields::Check(const Node& n, std::string_view path, const std::vector<std::string_view>& allowed) const {
  if (!n.is_map()) return Fail(n, Cat("`", path, "` must be a map, not ", n.KindName()));
  for (const Member& m : n.keys) {
    if (std::find(allowed.begin(), allowed.end(), m.key) == allowed.end()) {
      return absl::InvalidArgumentError(Where{source_, m.line, m.col, object_}.Message(
          Cat("unknown field `", m.key, "` in `", path, "`")));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<const Node*> Fields::OptMap(const Node& parent, std::string_view key, std::string_view path) const {
  const Node* n = parent.Find(key);
  if (n == nullptr || n->is_null()) return nullptr;
  if (!n->is_map()) return Fail(*n, Cat("`", path, "` must be a map, not ", n->KindName()));
  return n;
}

absl::StatusOr<const Node*> Fields::OptSeq(const Node& parent, std::string_view key, std::string_view path) const {
  const Node* n = parent.Find(key);
  if (n == nullptr || n->is_null()) return nullptr;
  if (!n->is_seq()) return Fail(*n, Cat("`", path, "` must be a list, not ", n->KindName()));
  return n;
}

absl::StatusOr<std::optional<std::string>> Fields::OptString(const Node& parent, std::string_view key,
                                                             std::string_view path) const {
  const Node* n = parent.Find(key);
  if (n == nullptr || n->is_null()) return std::optional<std::string>();
  if (n->kind != NodeKind::kString) {
    return Fail(*n, Cat("`", path, "` must be a string, not ", n->KindName(), " (quote it: \"", n->text, "\")"));
  }
  return std::optional<std::string>(n->text);
}

absl::StatusOr<std::optional<int64_t>> Fields::OptInt(const Node& parent, std::string_view key, std::string_view path,
                                                      int64_t lo, int64_t hi) const {
  const Node* n = parent.Find(key);
  if (n == nullptr || n->is_null()) return std::optional<int64_t>();
  if (n->kind != NodeKind::kInt) return Fail(*n, Cat("`", path, "` must be an integer, not ", n->KindName()));
  std::string digits;
  for (char c : n->text) {
    if (c != '_') digits.push_back(c);
  }
  errno = 0;
  char* end = nullptr;
  const char* p = digits.c_str();
  bool negative = *p == '-';
  if (*p == '-' || *p == '+') ++p;
  int base = 10;
  if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) base = 16, p += 2;
  else if (p[0] == '0' && (p[1] == 'b' || p[1] == 'B')) base = 2, p += 2;
  else if (p[0] == '0' && (p[1] == 'o' || p[1] == 'O')) base = 8, p += 2;
  else if (p[0] == '0' && p[1] != '\0') base = 8;
  unsigned long long v = std::strtoull(p, &end, base);
  if (errno == ERANGE || *end != '\0' || v > static_cast<unsigned long long>(INT64_MAX)) {
    return Fail(*n, Cat("`", path, "` is out of range (", lo, " to ", hi, "): ", n->text));
  }
  int64_t value = negative ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
  if (value < lo || value > hi) return Fail(*n, Cat("`", path, "` is out of range (", lo, " to ", hi, "): ", n->text));
  return std::optional<int64_t>(value);
}

absl::StatusOr<std::optional<bool>> Fields::OptBool(const Node& parent, std::string_view key,
                                                    std::string_view path) const {
  const Node* n = parent.Find(key);
  if (n == nullptr || n->is_null()) return std::optional<bool>();
  if (n->kind != NodeKind::kBool) return Fail(*n, Cat("`", path, "` must be true or false, not ", n->KindName()));
  const std::string& t = n->text;
  return std::optional<bool>(t == "true" || t == "True" || t == "TRUE" || t == "yes" || t == "Yes" || t == "YES" ||
                             t == "on" || t == "On" || t == "ON" || t == "y" || t == "Y");
}

absl::StatusOr<std::optional<std::string>> Fields::OptEnum(const Node& parent, std::string_view key,
                                                           std::string_view path,
                                                           std::initializer_list<std::string_view> values) const {
  absl::StatusOr<std::optional<std::string>> s = OptString(parent, key, path);
  if (!s.ok() || !s->has_value()) return s;
  for (std::string_view v : values) {
    if (**s == v) return s;
  }
  return Fail(*parent.Find(key), Cat("`", path, "` is ", OneOf(values), ", not `", **s, "`"));
}

absl::Status Fields::StringMap(const Node& parent, std::string_view key, std::string_view path,
                               std::vector<std::pair<std::string, std::string>>* out) const {
  absl::StatusOr<const Node*> m = OptMap(parent, key, path);
  if (!m.ok()) return m.status();
  if (*m == nullptr) return absl::OkStatus();
  for (size_t i = 0; i < (*m)->keys.size(); ++i) {
    const Node& v = (*m)->items[i];
    if (v.kind != NodeKind::kString) {
      return Fail(v, Cat("`", path, ".", (*m)->keys[i].key, "` must be a string, not ", v.KindName()));
    }
    out->emplace_back((*m)->keys[i].key, v.text);
  }
  std::sort(out->begin(), out->end());
  return absl::OkStatus();
}

absl::StatusOr<int64_t> Fields::Quantity(const Node& n, std::string_view resource, std::string_view path) const {
  if (n.kind != NodeKind::kString && n.kind != NodeKind::kInt && n.kind != NodeKind::kFloat) {
    return Fail(n, Cat("`", path, "` must be a quantity such as 8, 500m or 64Gi, not ", n.KindName()));
  }
  int64_t out = 0;
  switch (schedule::ParseQuantity(n.text, resource == "cpu", &out)) {
    case schedule::QuantityError::kOk: return out;
    case schedule::QuantityError::kNegative:
      return Fail(n, Cat("`", path, "` must not be negative (", n.text, ")"));
    case schedule::QuantityError::kTooLarge: return Fail(n, Cat("`", path, "` is too large (", n.text, ")"));
    case schedule::QuantityError::kMalformed: break;
  }
  return Fail(n, Cat("`", path, "` is not a quantity: `", n.text, "`"));
}

absl::StatusOr<double> Fields::Weight(const Node& n, std::string_view path) const {
  if (n.kind != NodeKind::kString && n.kind != NodeKind::kInt && n.kind != NodeKind::kFloat) {
    return Fail(n, Cat("`", path, "` must be a quantity such as 1, 0.5 or 500m, not ", n.KindName()));
  }
  int64_t milli = 0;
  switch (schedule::ParseQuantity(n.text, true, &milli)) {
    case schedule::QuantityError::kOk: break;
    case schedule::QuantityError::kNegative: return Fail(n, Cat("`", path, "` must not be negative (", n.text, ")"));
    case schedule::QuantityError::kTooLarge: return Fail(n, Cat("`", path, "` is too large (", n.text, ")"));
    case schedule::QuantityError::kMalformed: return Fail(n, Cat("`", path, "` is not a quantity: `", n.text, "`"));
  }
  // The value as a double: the number times its suffix.
  const std::string& t = n.text;
  size_t end = 0;
  while (end < t.size() && (std::isdigit(static_cast<unsigned char>(t[end])) || t[end] == '.' || t[end] == '+')) ++end;
  double value = std::strtod(t.substr(0, end).c_str(), nullptr);
  std::string_view suffix = std::string_view(t).substr(end);
  static constexpr std::pair<std::string_view, double> kSuffix[] = {
      {"n", 1e-9}, {"u", 1e-6}, {"m", 1e-3}, {"", 1},     {"k", 1e3},  {"M", 1e6}, {"G", 1e9},
      {"T", 1e12}, {"P", 1e15}, {"E", 1e18}, {"Ki", 1024.0}, {"Mi", 1048576.0}, {"Gi", 1073741824.0},
      {"Ti", 1099511627776.0}, {"Pi", 1125899906842624.0}, {"Ei", 1152921504606846976.0}};
  bool known = false;
  for (const auto& [s, f] : kSuffix) {
    if (suffix == s) value *= f, known = true;
  }
  if (!known) value = std::strtod(t.c_str(), nullptr);  // a decimal exponent: 1e3, 5E-1
  if (value > 0 && value <= 1e-9) return Fail(n, Cat("`", path, "` must be 0 or above 10^-9 (", n.text, ")"));
  if (!std::isfinite(value)) return Fail(n, Cat("`", path, "` is too large (", n.text, ")"));
  return value;
}

absl::Status Fields::DnsSubdomain(const Node& n, std::string_view value, std::string_view path) const {
  if (IsDnsSubdomain(value)) return absl::OkStatus();
  return Fail(n, Cat("`", path, "` must be a DNS subdomain (lowercase letters, digits, `-` and `.`, at most 253): `",
                     value, "`"));
}

}  // namespace charter::internal::kueue
