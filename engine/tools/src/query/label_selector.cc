// Residuals as label selectors (see label_selector.h).
#include "query/label_selector.h"

#include <algorithm>
#include <utility>

#include "common/strings.h"
#include "query/residual_expr.h"

namespace charter::internal::residual {
namespace {

using K = ast::Expr::Kind;

struct Requirement {
  enum Op : uint8_t { kEq, kNe, kIn, kNotIn, kExists, kNotExists };
  Op op;
  std::string key;
  std::vector<std::string> values;  // kEq, kNe: one; kIn, kNotIn: one or more
  friend bool operator==(const Requirement& a, const Requirement& b) {
    return a.op == b.op && a.key == b.key && a.values == b.values;
  }
};

// The key of `unknown.getTag("key")` or `unknown.hasTag("key")`.
bool TagCall(const ast::Expr& e, std::string_view method, ast::Var unknown, std::string* key) {
  if (e.kind != K::kMethod || e.str != method || e.args.size() != 2) return false;
  if (!IsVar(*e.args[0], unknown) || e.args[1]->kind != K::kString) return false;
  *key = e.args[1]->str;
  return true;
}

// `unknown.getTag("k") == "v"` either way round: k and v.
bool TagEquals(const ast::Expr& e, ast::BinaryOp op, ast::Var unknown, std::string* key, std::string* value) {
  if (e.kind != K::kBinary || e.bop != op) return false;
  for (int side : {0, 1}) {
    const ast::Expr& tag = *e.args[side];
    const ast::Expr& literal = *e.args[1 - side];
    if (TagCall(tag, "getTag", unknown, key) && literal.kind == K::kString) {
      *value = literal.str;
      return true;
    }
  }
  return false;
}

// `["a", "b"].contains(unknown.getTag("k"))`: k and the strings.
bool TagAmong(const ast::Expr& e, ast::Var unknown, std::string* key, std::vector<std::string>* values) {
  if (e.kind != K::kMethod || e.str != "contains" || e.args.size() != 2) return false;
  const ast::Expr& set = *e.args[0];
  if (set.kind != K::kSet || set.args.empty() || !TagCall(*e.args[1], "getTag", unknown, key)) return false;
  values->clear();
  for (const ExprPtr& x : set.args) {
    if (x->kind != K::kString) return false;
    if (std::find(values->begin(), values->end(), x->str) == values->end()) values->push_back(x->str);
  }
  return true;
}

// The requirements that hold exactly where `e` evaluates to true.
bool Requirements(const ast::Expr& root, ast::Var unknown, std::vector<Requirement>* out) {
  std::vector<const ast::Expr*> stack{&root};
  while (!stack.empty()) {
    const ast::Expr& e = *stack.back();
    stack.pop_back();
    std::string key, value;
    std::vector<std::string> values;
    if (IsBool(e, true)) continue;
    if (e.kind == K::kBinary && e.bop == ast::BinaryOp::kAnd) {
      stack.push_back(e.args[1].get());
      stack.push_back(e.args[0].get());
    } else if (TagCall(e, "hasTag", unknown, &key)) {
      out->push_back({Requirement::kExists, key, {}});
    } else if (TagEquals(e, ast::BinaryOp::kEq, unknown, &key, &value)) {
      out->push_back({Requirement::kEq, key, {value}});
    } else if (TagEquals(e, ast::BinaryOp::kNe, unknown, &key, &value)) {
      out->push_back({Requirement::kExists, key, {}});
      out->push_back({Requirement::kNe, key, {value}});
    } else if (TagAmong(e, unknown, &key, &values)) {
      out->push_back({Requirement::kIn, key, values});
    } else if (e.kind == K::kUnary && e.uop == ast::UnaryOp::kNot) {
      const ast::Expr& x = *e.args[0];
      if (TagCall(x, "hasTag", unknown, &key)) {
        out->push_back({Requirement::kNotExists, key, {}});
      } else if (TagAmong(x, unknown, &key, &values)) {
        out->push_back({Requirement::kExists, key, {}});
        out->push_back({Requirement::kNotIn, key, values});
      } else {
        return false;
      }
    } else {
      return false;
    }
  }
  return true;
}

// The one requirement that holds exactly where a forbid of `e` does not
// deny: where e is false or fails.
bool Complement(const ast::Expr& e, ast::Var unknown, Requirement* out) {
  std::vector<Requirement> holds;
  if (!Requirements(e, unknown, &holds) || holds.size() != 1) return false;
  Requirement r = std::move(holds[0]);
  switch (r.op) {
    case Requirement::kExists: r.op = Requirement::kNotExists; break;
    case Requirement::kNotExists: r.op = Requirement::kExists; break;
    case Requirement::kEq: r.op = Requirement::kNe; break;
    case Requirement::kIn: r.op = Requirement::kNotIn; break;
    default: return false;
  }
  *out = std::move(r);
  return true;
}

bool NameChars(std::string_view s) {
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); };
  if (s.empty() || s.size() > 63 || !alnum(s.front()) || !alnum(s.back())) return false;
  for (char c : s) {
    if (!alnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

bool DnsSubdomain(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  size_t start = 0;
  while (start <= s.size()) {
    size_t dot = s.find('.', start);
    std::string_view label = s.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (label.empty() || label.size() > 63 || label.front() == '-' || label.back() == '-') return false;
    for (char c : label) {
      if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
    }
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return true;
}

std::string Render(const std::vector<Requirement>& reqs) {
  std::string out;
  for (const Requirement& r : reqs) {
    if (!out.empty()) out.push_back(',');
    switch (r.op) {
      case Requirement::kEq: CatAppend(&out, r.key, "=", r.values[0]); break;
      case Requirement::kNe: CatAppend(&out, r.key, "!=", r.values[0]); break;
      case Requirement::kExists: out += r.key; break;
      case Requirement::kNotExists: CatAppend(&out, "!", r.key); break;
      case Requirement::kIn:
      case Requirement::kNotIn: {
        CatAppend(&out, r.key, r.op == Requirement::kIn ? " in (" : " notin (");
        for (size_t i = 0; i < r.values.size(); ++i) CatAppend(&out, i > 0 ? "," : "", r.values[i]);
        out.push_back(')');
        break;
      }
    }
  }
  return out;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

}  // namespace

bool ValidLabelKey(std::string_view key) {
  size_t slash = key.find('/');
  if (slash == std::string_view::npos) return NameChars(key);
  return DnsSubdomain(key.substr(0, slash)) && NameChars(key.substr(slash + 1));
}

bool ValidLabelValue(std::string_view value) { return value.empty() || NameChars(value); }

std::optional<std::string> LabelSelector(const std::vector<SelectorInput>& policies, ast::Var unknown) {
  std::vector<Requirement> reqs;
  size_t permits = 0;
  for (const SelectorInput& p : policies) {
    if (p.forbid) {
      Requirement r;
      if (!Complement(*p.condition, unknown, &r)) return std::nullopt;
      reqs.push_back(std::move(r));
    } else {
      if (++permits > 1 || !Requirements(*p.condition, unknown, &reqs)) return std::nullopt;
    }
  }
  if (permits != 1) return std::nullopt;
  // Valid names only; then no duplicates, and no `k` beside `k=v` or `k in (...)`.
  std::vector<Requirement> kept;
  for (const Requirement& r : reqs) {
    if (!ValidLabelKey(r.key)) return std::nullopt;
    for (const std::string& v : r.values) {
      if (!ValidLabelValue(v)) return std::nullopt;
    }
    if (std::find(kept.begin(), kept.end(), r) != kept.end()) continue;
    if (r.op == Requirement::kExists) {
      bool implied = std::any_of(reqs.begin(), reqs.end(), [&](const Requirement& o) {
        return o.key == r.key && (o.op == Requirement::kEq || o.op == Requirement::kIn);
      });
      if (implied) continue;
    }
    kept.push_back(r);
  }
  return Render(kept);
}

bool SelectorMatches(std::string_view selector, const std::map<std::string, std::optional<std::string>>& labels) {
  // Requirements are separated by commas outside parentheses.
  std::vector<std::string_view> parts;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= selector.size(); ++i) {
    if (i == selector.size() || (selector[i] == ',' && depth == 0)) {
      if (i > start) parts.push_back(selector.substr(start, i - start));
      start = i + 1;
    } else if (selector[i] == '(') {
      ++depth;
    } else if (selector[i] == ')') {
      --depth;
    }
  }
  for (std::string_view raw : parts) {
    std::string_view part = Trim(raw);
    auto find = [&](std::string_view key) { return labels.find(std::string(Trim(key))); };
    auto has_value = [&](std::string_view key, std::string_view v) {
      auto it = find(key);
      return it != labels.end() && it->second.has_value() && *it->second == Trim(v);
    };
    size_t in = part.find(" in (");
    size_t notin = part.find(" notin (");
    if (notin != std::string_view::npos || in != std::string_view::npos) {
      bool negated = notin != std::string_view::npos;
      size_t at = negated ? notin : in;
      std::string_view key = part.substr(0, at);
      std::string_view list = part.substr(part.find('(') + 1);
      list = list.substr(0, list.rfind(')'));
      bool among = false;
      size_t s = 0;
      for (size_t i = 0; i <= list.size(); ++i) {
        if (i == list.size() || list[i] == ',') {
          among = among || has_value(key, list.substr(s, i - s));
          s = i + 1;
        }
      }
      if (among == negated) return false;
    } else if (size_t ne = part.find("!="); ne != std::string_view::npos) {
      if (has_value(part.substr(0, ne), part.substr(ne + 2))) return false;
    } else if (size_t eq = part.find('='); eq != std::string_view::npos) {
      size_t value = part.compare(eq, 2, "==") == 0 ? eq + 2 : eq + 1;
      if (!has_value(part.substr(0, eq), part.substr(value))) return false;
    } else if (part.front() == '!') {
      if (find(part.substr(1)) != labels.end()) return false;
    } else if (find(part) == labels.end()) {
      return false;
    }
  }
  return true;
}

}  // namespace charter::internal::residual
