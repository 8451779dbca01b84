// charter::Explain: the reference interpreter with a tracer that records
// every value, then, per policy, a walk down the deciding clause through
// `&&`, `||` and `if` to the sub-conditions that settled it.
#include "charter/explain.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "common/status_macros.h"
#include "common/strings.h"
#include "common/utf8.h"
#include "interp/interp.h"
#include "json/json.h"
#include "syntax/parser.h"

namespace charter {
namespace {

using internal::Cat;
using internal::CatAppend;
using internal::Value;
namespace ast = internal::ast;
namespace interp = internal::interp;
using K = ast::Expr::Kind;

class Recorder : public interp::Tracer {
 public:
  void OnValue(const ast::Expr& e, const Value& v) override { values_[&e] = v; }
  const Value* Find(const ast::Expr* e) const {
    auto it = values_.find(e);
    return it == values_.end() ? nullptr : &it->second;
  }

 private:
  absl::flat_hash_map<const ast::Expr*, Value> values_;
};

SourceRange Range(const SourceFile& source, Span span) {
  SourceFile::Position p = source.PositionOf(span.begin);
  return SourceRange{span, p.line, p.column};
}

// The source text of a span, with each run of whitespace made one space.
std::string TextOf(const SourceFile& source, Span span) {
  std::string_view text = source.text();
  if (span.begin > span.end || span.end > text.size()) return "";
  std::string out;
  bool space = false;
  for (char c : text.substr(span.begin, span.end - span.begin)) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      space = true;
      continue;
    }
    if (space && !out.empty()) out.push_back(' ');
    space = false;
    out.push_back(c);
  }
  return out;
}

bool IsBool(const Value* v, bool b) { return v != nullptr && v->type == internal::Type::kBool && v->b == b; }

// The sub-conditions of `root` that settled its value: through `&&` and `||`
// to the operands that decided them, through `if` to the condition and the
// branch taken; anything else is itself a deciding condition. Iterative, for
// long chains.
std::vector<const ast::Expr*> Deciding(const ast::Expr& root, const Recorder& rec) {
  std::vector<const ast::Expr*> out;
  std::vector<const ast::Expr*> stack{&root};
  while (!stack.empty()) {
    const ast::Expr* e = stack.back();
    stack.pop_back();
    const Value* v = rec.Find(e);
    if (v == nullptr) continue;  // not reached
    bool logic = e->kind == K::kBinary && (e->bop == ast::BinaryOp::kAnd || e->bop == ast::BinaryOp::kOr);
    if (logic) {
      // The left operand decides alone when it has the value that stops the
      // operator (false for `&&`, true for `||`); else the right one does,
      // with the left when both had to be looked at to get the value.
      bool stop = e->bop == ast::BinaryOp::kOr;
      const ast::Expr* left = e->args[0].get();
      const ast::Expr* right = e->args[1].get();
      if (IsBool(rec.Find(left), stop)) {
        stack.push_back(left);
      } else if (IsBool(v, stop)) {
        stack.push_back(right);
      } else {
        stack.push_back(right);
        stack.push_back(left);
      }
    } else if (e->kind == K::kIf && v->type == internal::Type::kBool) {
      const Value* c = rec.Find(e->args[0].get());
      if (c != nullptr && c->type == internal::Type::kBool) stack.push_back(e->args[c->b ? 1 : 2].get());
      stack.push_back(e->args[0].get());
    } else {
      out.push_back(e);
    }
  }
  return out;
}

// The values inside a deciding condition that it was computed from: every
// evaluated sub-expression but literals, in source order, each text once.
std::vector<ExplainedValue> Saw(const ast::Expr& leaf, const Recorder& rec, const SourceFile& source,
                                size_t max) {
  std::vector<ExplainedValue> out;
  absl::flat_hash_set<std::string> seen;
  std::vector<const ast::Expr*> stack;
  for (auto it = leaf.args.rbegin(); it != leaf.args.rend(); ++it) stack.push_back(it->get());
  while (!stack.empty() && out.size() < max) {
    const ast::Expr* e = stack.back();
    stack.pop_back();
    for (auto it = e->args.rbegin(); it != e->args.rend(); ++it) stack.push_back(it->get());
    switch (e->kind) {
      case K::kBool: case K::kLong: case K::kString: case K::kEntity: case K::kSet: case K::kRecord:
        continue;
      default: break;
    }
    const Value* v = rec.Find(e);
    if (v == nullptr) continue;
    std::string text = TextOf(source, e->span);
    if (!seen.insert(text).second) continue;
    out.push_back(ExplainedValue{std::move(text), internal::ToCedar(*v), Range(source, e->span)});
  }
  // In source order; an expression before those it contains (`a` before `a.b`).
  std::stable_sort(out.begin(), out.end(), [](const ExplainedValue& a, const ExplainedValue& b) {
    return a.where.span.begin != b.where.span.begin ? a.where.span.begin < b.where.span.begin
                                                    : a.where.span.end < b.where.span.end;
  });
  return out;
}

ExplainedCondition Condition(const ast::Expr& e, std::string value, const Recorder& rec,
                             const SourceFile& source, const ExplainOptions& options) {
  return ExplainedCondition{TextOf(source, e.span), std::move(value), Range(source, e.span),
                            Saw(e, rec, source, options.max_values)};
}

void AddConditions(PolicyExplanation* pe, const std::vector<const ast::Expr*>& exprs,
                   const Recorder& rec, const SourceFile& source, const ExplainOptions& options) {
  for (const ast::Expr* e : exprs) {
    if (pe->conditions.size() >= options.max_conditions) {
      ++pe->more_conditions;
      continue;
    }
    const Value* v = rec.Find(e);
    pe->conditions.push_back(Condition(*e, internal::ToCedar(*v), rec, source, options));
  }
}

}  // namespace

absl::StatusOr<Explanation> Explain(const SourceFile& policies, const std::vector<TemplateLink>& links,
                                    const Request& request, const Entities& entities,
                                    const ExplainOptions& options) {
  ASSIGN_OR_RETURN(std::unique_ptr<interp::PolicySet> set,
                   interp::ReadPolicySet(policies, links, options.compile, nullptr));
  internal::EntityRef refs[3];
  interp::Env env = interp::MakeEnv(request, entities, refs);
  internal::Arena scratch;
  Explanation out;
  std::vector<std::string> permits, forbids;
  for (const interp::Instance& instance : set->instances) {
    const ast::Policy& p = *instance.policy;
    Recorder rec;
    interp::PolicyResult r = interp::EvaluatePolicy(instance, env, &scratch, &rec);
    PolicyExplanation pe;
    pe.policy_id = instance.id;
    if (instance.link != nullptr) pe.template_id = instance.link->template_id;
    pe.forbid = p.effect == ast::Effect::kForbid;
    pe.where = Range(policies, p.effect_span);
    if (r.part == interp::Part::kCondition) {
      const ast::Condition& c = p.conditions[r.condition];
      pe.clause = static_cast<int>(r.condition);
      pe.clause_when = c.when;
      pe.clause_where = Range(policies, c.span);
    }
    switch (r.outcome) {
      case interp::Outcome::kTrue:
        pe.outcome = PolicyOutcome::kSatisfied;
        (pe.forbid ? forbids : permits).push_back(instance.id);
        for (const ast::Condition& c : p.conditions) AddConditions(&pe, Deciding(*c.body, rec), rec, policies, options);
        break;
      case interp::Outcome::kFalse:
        if (r.part == interp::Part::kCondition) {
          pe.outcome = PolicyOutcome::kNotSatisfied;
          AddConditions(&pe, Deciding(*p.conditions[r.condition].body, rec), rec, policies, options);
        } else {
          pe.outcome = PolicyOutcome::kNotApplicable;
          pe.scope = r.part == interp::Part::kPrincipal ? "principal"
                     : r.part == interp::Part::kAction  ? "action"
                                                        : "resource";
          Span span = r.part == interp::Part::kPrincipal ? p.principal.span
                      : r.part == interp::Part::kAction  ? p.action.span
                                                         : p.resource.span;
          pe.scope_where = Range(policies, span);
        }
        break;
      case interp::Outcome::kError:
        pe.outcome = PolicyOutcome::kErrored;
        pe.error = r.error;
        out.decision.errors.push_back(PolicyError{instance.id, r.error});
        if (r.error_at != nullptr) pe.conditions.push_back(Condition(*r.error_at, "error", rec, policies, options));
        break;
    }
    out.policies.push_back(std::move(pe));
  }
  out.decision.allowed = forbids.empty() && !permits.empty();
  out.decision.reasons = forbids.empty() ? std::move(permits) : std::move(forbids);
  for (PolicyExplanation& pe : out.policies) {
    pe.determining = std::find(out.decision.reasons.begin(), out.decision.reasons.end(),
                               pe.policy_id) != out.decision.reasons.end();
  }
  return out;
}

// ---------------------------------------------------------------- JSON

namespace {

const char* OutcomeName(PolicyOutcome o) {
  switch (o) {
    case PolicyOutcome::kSatisfied: return "satisfied";
    case PolicyOutcome::kNotSatisfied: return "not-satisfied";
    case PolicyOutcome::kErrored: return "error";
    case PolicyOutcome::kNotApplicable: return "not-applicable";
  }
  return "?";
}

void Key(std::string* out, std::string_view key, std::string_view value) {
  CatAppend(out, ",\"", key, "\":");
  internal::json::AppendQuoted(out, value);
}

void Where(std::string* out, const SourceRange& r) {
  CatAppend(out, ",\"line\":", r.line, ",\"column\":", r.column);
}

}  // namespace

std::string Explanation::ToJson() const {
  std::string out = decision.ToJson();
  out.pop_back();  // the closing brace
  out += ",\"policies\":[";
  for (size_t i = 0; i < policies.size(); ++i) {
    const PolicyExplanation& p = policies[i];
    out += i == 0 ? "{\"id\":" : ",{\"id\":";
    internal::json::AppendQuoted(&out, p.policy_id);
    Key(&out, "effect", p.forbid ? "forbid" : "permit");
    if (!p.template_id.empty()) Key(&out, "template", p.template_id);
    Key(&out, "outcome", OutcomeName(p.outcome));
    CatAppend(&out, ",\"determining\":", p.determining ? "true" : "false");
    Where(&out, p.where);
    if (p.outcome == PolicyOutcome::kNotApplicable) Key(&out, "scope", p.scope);
    if (p.clause >= 0) {
      CatAppend(&out, ",\"clause\":{\"kind\":\"", p.clause_when ? "when" : "unless",
                "\",\"index\":", p.clause);
      Where(&out, p.clause_where);
      out += "}";
    }
    if (p.outcome == PolicyOutcome::kErrored) Key(&out, "error", p.error);
    out += ",\"conditions\":[";
    for (size_t k = 0; k < p.conditions.size(); ++k) {
      const ExplainedCondition& c = p.conditions[k];
      out += k == 0 ? "{\"expression\":" : ",{\"expression\":";
      internal::json::AppendQuoted(&out, c.expression);
      Key(&out, "value", c.value);
      Where(&out, c.where);
      out += ",\"saw\":[";
      for (size_t v = 0; v < c.saw.size(); ++v) {
        out += v == 0 ? "{\"expression\":" : ",{\"expression\":";
        internal::json::AppendQuoted(&out, c.saw[v].expression);
        Key(&out, "value", c.saw[v].value);
        out += "}";
      }
      out += "]}";
    }
    out += "]";
    if (p.more_conditions > 0) CatAppend(&out, ",\"more_conditions\":", p.more_conditions);
    out += "}";
  }
  out += "]}";
  return out;
}

// ---------------------------------------------------------------- text

namespace {

struct Style {
  const char* bold;
  const char* red;
  const char* green;
  const char* blue;
  const char* reset;
};

// At most `max` scalar values, with an ellipsis when cut.
std::string Clip(std::string_view s, size_t max = 120) {
  size_t count = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) continue;
    if (count++ == max) return Cat(s.substr(0, i), "…");
  }
  return std::string(s);
}

// A source line with the part of `span` on it underlined, and a label after
// the underline, in the style of Diagnostics::Render:
//   --> policies.cedar:38:8
//    |
// 38 | when { resource.owner == principal };
//    |        ^^^^^^^^^^^^^^ false
void Snippet(std::string* out, const SourceFile& source, Span span, std::string_view label,
             const char* mark, const Style& s) {
  constexpr uint32_t kMaxLines = 6;
  SourceFile::Position pos = source.PositionOf(span.begin);
  SourceFile::Position end = source.PositionOf(span.end > span.begin ? span.end : span.begin + 1);
  uint32_t last_line = std::min(end.line, pos.line + kMaxLines - 1);
  std::string pad(Cat(last_line).size(), ' ');
  CatAppend(out, pad, s.blue, "--> ", s.reset, source.name(), ":", pos.line, ":", pos.column, "\n");
  CatAppend(out, pad, " ", s.blue, "|", s.reset, "\n");
  for (uint32_t n = pos.line; n <= last_line; ++n) {
    std::string_view line = source.Line(n);
    uint32_t line_len = static_cast<uint32_t>(internal::CountScalars(line));
    // Columns [from, to) of this line are in the span; the first and the
    // last line only in part, lines between from their first non-blank.
    uint32_t from = n == pos.line ? pos.column
                                  : static_cast<uint32_t>(internal::CountScalars(
                                        line.substr(0, std::min(line.find_first_not_of(" \t"), line.size())))) + 1;
    uint32_t to = n == end.line ? end.column : line_len + 1;
    if (to <= from) to = from + 1;
    std::string lead;
    uint32_t col = 1;
    for (char c : line) {
      if (col >= from) break;
      if ((static_cast<unsigned char>(c) & 0xC0) == 0x80) continue;
      lead.push_back(c == '\t' ? '\t' : ' ');
      ++col;
    }
    while (col < from) lead.push_back(' '), ++col;
    std::string number = Cat(n);
    number.resize(pad.size(), ' ');
    CatAppend(out, s.blue, number, " |", s.reset, " ", line, "\n");
    CatAppend(out, pad, " ", s.blue, "|", s.reset, " ", lead, mark, std::string(to - from, '^'));
    if (n == last_line) CatAppend(out, " ", Clip(label, 200));
    CatAppend(out, s.reset, "\n");
  }
}

void Values(std::string* out, const SourceFile& source, const ExplainedCondition& c, const Style& s) {
  uint32_t first = source.PositionOf(c.where.span.begin).line;
  uint32_t last = std::min(source.PositionOf(c.where.span.end).line, first + 5);
  std::string pad(Cat(last).size(), ' ');
  for (const ExplainedValue& v : c.saw) {
    CatAppend(out, pad, " ", s.blue, "=", s.reset, " ", Clip(v.expression, 60), " is ", Clip(v.value),
              "\n");
  }
}

}  // namespace

std::string Explanation::ToText(const SourceFile& source, bool color) const {
  Style s = color ? Style{"\x1b[1m", "\x1b[1;31m", "\x1b[1;32m", "\x1b[1;34m", "\x1b[0m"}
                  : Style{"", "", "", "", ""};
  std::string out;
  auto names = [](const std::vector<std::string>& ids) {
    std::string list;
    for (size_t i = 0; i < ids.size(); ++i) CatAppend(&list, i == 0 ? "" : ", ", "`", ids[i], "`");
    return list;
  };
  bool forbidden = false;
  for (const PolicyExplanation& p : policies) forbidden = forbidden || (p.determining && p.forbid);
  if (decision.allowed) {
    CatAppend(&out, s.bold, s.green, "ALLOW", s.reset, s.bold, ": permitted by ", names(decision.reasons),
              s.reset, "\n");
  } else if (forbidden) {
    CatAppend(&out, s.bold, s.red, "DENY", s.reset, s.bold, ": forbidden by ", names(decision.reasons),
              s.reset, "\n");
  } else {
    CatAppend(&out, s.bold, s.red, "DENY", s.reset, s.bold, ": no permit is satisfied (deny by default)",
              s.reset, "\n");
  }
  if (!decision.errors.empty()) {
    std::vector<std::string> ids;
    for (const PolicyError& e : decision.errors) ids.push_back(e.policy_id);
    CatAppend(&out, "skipped because evaluating them failed: ", names(ids), "\n");
  }

  std::vector<const PolicyExplanation*> inapplicable;
  for (const PolicyExplanation& p : policies) {
    if (p.outcome == PolicyOutcome::kNotApplicable) {
      inapplicable.push_back(&p);
      continue;
    }
    std::string name = Cat(p.forbid ? "forbid" : "permit", " `", p.policy_id, "`");
    if (!p.template_id.empty()) CatAppend(&name, " (linked from template `", p.template_id, "`)");
    std::string clause = Cat("its `", p.clause_when ? "when" : "unless", "` clause");
    std::string verdict;
    switch (p.outcome) {
      case PolicyOutcome::kSatisfied:
        verdict = p.determining ? (p.forbid ? "is satisfied: it denies the request"
                                            : "is satisfied: it allows the request")
                                : (p.forbid ? "is satisfied"
                                            : "is satisfied, but a satisfied forbid overrides it");
        break;
      case PolicyOutcome::kNotSatisfied:
        verdict = Cat("is not satisfied: ", clause, " is ", p.clause_when ? "false" : "true");
        break;
      case PolicyOutcome::kErrored:
        verdict = Cat("was skipped: evaluating ", clause, " failed");
        break;
      case PolicyOutcome::kNotApplicable: break;
    }
    CatAppend(&out, "\n", s.bold, name, " ", verdict, s.reset, "\n");
    if (p.conditions.empty()) {
      Snippet(&out, source, p.where.span,
              "its scope matches and it has no conditions", s.green, s);
    }
    for (const ExplainedCondition& c : p.conditions) {
      bool error = p.outcome == PolicyOutcome::kErrored;
      std::string label = error ? p.error : c.value;
      const char* mark = error || c.value == "false" ? s.red : s.green;
      Snippet(&out, source, c.where.span, label, mark, s);
      Values(&out, source, c, s);
    }
    if (p.more_conditions > 0) CatAppend(&out, "   (and ", p.more_conditions, " more conditions)\n");
  }
  if (!inapplicable.empty()) {
    CatAppend(&out, "\n", s.bold, "not applicable (the scope does not match):", s.reset, "\n");
    for (const PolicyExplanation* p : inapplicable) {
      CatAppend(&out, "  ", p->policy_id, ": `", Clip(TextOf(source, p->scope_where.span), 80), "` (",
                source.name(), ":", p->scope_where.line, ":", p->scope_where.column, ")\n");
    }
  }
  return out;
}

// ---------------------------------------------------------------- coverage

namespace {

// The sub-conditions of a clause body: the operands of its `&&`, `||`, `!`
// and `if`, down to the first expression that is none of those, in source
// order; literals (constants) are left out. Iterative, for long chains.
std::vector<const ast::Expr*> SubConditions(const ast::Expr& body) {
  std::vector<const ast::Expr*> out;
  std::vector<const ast::Expr*> stack{&body};
  while (!stack.empty()) {
    const ast::Expr* e = stack.back();
    stack.pop_back();
    bool logic = e->kind == K::kBinary && (e->bop == ast::BinaryOp::kAnd || e->bop == ast::BinaryOp::kOr);
    bool negation = e->kind == K::kUnary && e->uop == ast::UnaryOp::kNot;
    if (logic || negation || e->kind == K::kIf) {
      for (auto it = e->args.rbegin(); it != e->args.rend(); ++it) stack.push_back(it->get());
    } else if (e->kind != K::kBool) {
      out.push_back(e);
    }
  }
  return out;
}

void Count(ConditionCoverage* c, const Value* v) {
  if (v != nullptr && v->type == internal::Type::kBool) {
    ++(v->b ? c->true_count : c->false_count);
  } else {
    ++c->error_count;
  }
}

bool Contains(Span outer, Span inner) { return outer.begin <= inner.begin && inner.end <= outer.end; }

// Where a sub-condition is in its policy: clause and index.
struct Slot {
  uint32_t clause;
  uint32_t condition;
};

// Counts the values of sub-conditions for the policy being evaluated.
class CoverageTracer : public interp::Tracer {
 public:
  explicit CoverageTracer(const absl::flat_hash_map<const ast::Expr*, Slot>* slots) : slots_(slots) {}
  void Start(PolicyCoverage* policy) {
    policy_ = policy;
    valued_.clear();
  }
  void OnValue(const ast::Expr& e, const Value& v) override {
    auto it = slots_->find(&e);
    if (it == slots_->end()) return;
    valued_.insert(&e);
    Count(&policy_->clauses[it->second.clause].conditions[it->second.condition], &v);
  }
  bool Valued(const ast::Expr* e) const { return valued_.contains(e); }

 private:
  const absl::flat_hash_map<const ast::Expr*, Slot>* slots_;
  PolicyCoverage* policy_ = nullptr;
  absl::flat_hash_set<const ast::Expr*> valued_;
};

}  // namespace

struct Coverage::State {
  std::unique_ptr<interp::PolicySet> set;
  std::vector<PolicyCoverage> policies;  // one an instance
  // Per instance, per clause: its sub-conditions (empty when it has none).
  std::vector<std::vector<std::vector<const ast::Expr*>>> conditions;
  absl::flat_hash_map<const ast::Expr*, Slot> slots;  // shared by a template's links
  size_t requests = 0;
};

Coverage::Coverage(std::unique_ptr<State> state) : state_(std::move(state)) {}
Coverage::Coverage(Coverage&&) noexcept = default;
Coverage& Coverage::operator=(Coverage&&) noexcept = default;
Coverage::~Coverage() = default;

absl::StatusOr<Coverage> Coverage::Create(const SourceFile& policies, const std::vector<TemplateLink>& links,
                                          const CompileOptions& options) {
  auto state = std::make_unique<State>();
  ASSIGN_OR_RETURN(state->set, interp::ReadPolicySet(policies, links, options, nullptr));
  for (const interp::Instance& instance : state->set->instances) {
    const ast::Policy& p = *instance.policy;
    PolicyCoverage pc;
    pc.policy_id = instance.id;
    if (instance.link != nullptr) pc.template_id = instance.link->template_id;
    pc.forbid = p.effect == ast::Effect::kForbid;
    pc.where = Range(policies, p.effect_span);
    std::vector<std::vector<const ast::Expr*>> clauses;
    for (uint32_t i = 0; i < p.conditions.size(); ++i) {
      const ast::Condition& c = p.conditions[i];
      ClauseCoverage cc;
      cc.when = c.when;
      cc.condition.expression = TextOf(policies, c.body->span);
      cc.condition.where = Range(policies, c.span);
      std::vector<const ast::Expr*> subs = SubConditions(*c.body);
      if (subs.size() < 2) subs.clear();
      for (uint32_t k = 0; k < subs.size(); ++k) {
        ConditionCoverage sub;
        sub.expression = TextOf(policies, subs[k]->span);
        sub.where = Range(policies, subs[k]->span);
        cc.conditions.push_back(std::move(sub));
        state->slots.emplace(subs[k], Slot{i, k});
      }
      pc.clauses.push_back(std::move(cc));
      clauses.push_back(std::move(subs));
    }
    state->policies.push_back(std::move(pc));
    state->conditions.push_back(std::move(clauses));
  }
  return Coverage(std::move(state));
}

Decision Coverage::Record(const Request& request, const Entities& entities) {
  internal::EntityRef refs[3];
  interp::Env env = interp::MakeEnv(request, entities, refs);
  internal::Arena scratch;
  CoverageTracer tracer(&state_->slots);
  Decision decision;
  std::vector<std::string> permits, forbids;
  std::vector<size_t> permit_index, forbid_index;
  ++state_->requests;
  for (size_t n = 0; n < state_->set->instances.size(); ++n) {
    const interp::Instance& instance = state_->set->instances[n];
    PolicyCoverage& pc = state_->policies[n];
    tracer.Start(&pc);
    interp::PolicyResult r = interp::EvaluatePolicy(instance, env, &scratch, &tracer);
    bool scope_failed = r.outcome == interp::Outcome::kFalse && r.part != interp::Part::kCondition;
    if (scope_failed) continue;
    ++pc.applicable;
    // Clauses before the deciding one held; the deciding one (or, when the
    // policy is satisfied, every one) had the value counted here.
    size_t last = r.outcome == interp::Outcome::kTrue ? pc.clauses.size() : r.condition + 1;
    for (size_t i = 0; i < last; ++i) {
      ConditionCoverage& c = pc.clauses[i].condition;
      bool held = r.outcome == interp::Outcome::kTrue || i < r.condition;
      if (!held && r.outcome == interp::Outcome::kError) {
        ++c.error_count;
        // The sub-condition that failed: the one around the failing node
        // that got no value (one that got a value of another type than
        // bool is already counted as an error).
        const std::vector<const ast::Expr*>& subs = state_->conditions[n][i];
        for (size_t k = 0; k < subs.size() && r.error_at != nullptr; ++k) {
          if (!tracer.Valued(subs[k]) && Contains(subs[k]->span, r.error_at->span)) {
            ++pc.clauses[i].conditions[k].error_count;
          }
        }
      } else {
        bool when = pc.clauses[i].when;
        ++(held == when ? c.true_count : c.false_count);
      }
    }
    if (r.outcome == interp::Outcome::kError) {
      ++pc.errored;
      decision.errors.push_back(PolicyError{instance.id, r.error});
    } else if (r.outcome == interp::Outcome::kTrue) {
      ++pc.satisfied;
      (pc.forbid ? forbids : permits).push_back(instance.id);
      (pc.forbid ? forbid_index : permit_index).push_back(n);
    }
  }
  decision.allowed = forbids.empty() && !permits.empty();
  decision.reasons = forbids.empty() ? std::move(permits) : std::move(forbids);
  for (size_t n : forbid_index.empty() ? permit_index : forbid_index) ++state_->policies[n].determining;
  return decision;
}

size_t Coverage::requests() const { return state_->requests; }

const std::vector<PolicyCoverage>& Coverage::policies() const { return state_->policies; }

namespace {

// "line":…,"column":…,"expression":…,"true":…,"false":…,"errors":…,"covered":…
void AppendCounts(std::string* out, const ConditionCoverage& c) {
  CatAppend(out, "\"line\":", c.where.line, ",\"column\":", c.where.column, ",\"expression\":");
  internal::json::AppendQuoted(out, c.expression);
  CatAppend(out, ",\"true\":", c.true_count, ",\"false\":", c.false_count, ",\"errors\":", c.error_count,
            ",\"covered\":", c.covered() ? "true" : "false");
}

}  // namespace

std::string Coverage::ToJson() const {
  std::string out = Cat("{\"requests\":", state_->requests, ",\"policies\":[");
  for (size_t i = 0; i < state_->policies.size(); ++i) {
    const PolicyCoverage& p = state_->policies[i];
    out += i == 0 ? "{\"id\":" : ",{\"id\":";
    internal::json::AppendQuoted(&out, p.policy_id);
    Key(&out, "effect", p.forbid ? "forbid" : "permit");
    if (!p.template_id.empty()) Key(&out, "template", p.template_id);
    Where(&out, p.where);
    CatAppend(&out, ",\"applicable\":", p.applicable, ",\"satisfied\":", p.satisfied,
              ",\"determining\":", p.determining, ",\"errors\":", p.errored,
              ",\"exercised\":", p.exercised() ? "true" : "false", ",\"clauses\":[");
    for (size_t k = 0; k < p.clauses.size(); ++k) {
      const ClauseCoverage& c = p.clauses[k];
      CatAppend(&out, k == 0 ? "" : ",", "{\"kind\":\"", c.when ? "when" : "unless", "\",\"index\":", k, ",");
      AppendCounts(&out, c.condition);
      out += ",\"conditions\":[";
      for (size_t j = 0; j < c.conditions.size(); ++j) {
        out += j == 0 ? "{" : ",{";
        AppendCounts(&out, c.conditions[j]);
        out += "}";
      }
      out += "]}";
    }
    out += "]}";
  }
  out += "]}";
  return out;
}

// ---------------------------------------------------------------- expressions

namespace {

// The first variable `e` names, in evaluation order, or null.
const ast::Expr* FirstVariable(const ast::Expr& root) {
  std::vector<const ast::Expr*> stack{&root};
  while (!stack.empty()) {
    const ast::Expr* e = stack.back();
    stack.pop_back();
    if (e->kind == K::kVar) return e;
    for (auto it = e->args.rbegin(); it != e->args.rend(); ++it) stack.push_back(it->get());
  }
  return nullptr;
}

}  // namespace

absl::StatusOr<ExpressionValue> EvaluateExpression(const SourceFile& expression, const Request* request,
                                                   const Entities& entities, const CompileOptions& options,
                                                   Diagnostics* diagnostics) {
  Diagnostics local;
  Diagnostics* diags = diagnostics != nullptr ? diagnostics : &local;
  size_t before = diags->size();
  std::unique_ptr<ast::Expr> e = internal::ParseExpression(expression, options, diags);
  if (e == nullptr || diags->size() > before) {
    std::string first = diags->FirstErrorLine(expression, before);
    return absl::InvalidArgumentError(first.empty() ? Cat(expression.name(), ": invalid expression") : first);
  }
  ExpressionValue out;
  internal::EntityRef refs[3];
  interp::Env env;
  if (request != nullptr) {
    env = interp::MakeEnv(*request, entities, refs);
  } else {
    env.store = &entities.store();
    if (const ast::Expr* var = FirstVariable(*e); var != nullptr) {
      static constexpr const char* kNames[] = {"principal", "action", "resource", "context"};
      out.error = Cat("`", kNames[static_cast<int>(var->var)], "` has no value: there is no request");
      out.error_where = Range(expression, var->span);
      return out;
    }
  }
  internal::Arena scratch;
  Value v;
  const ast::Expr* error_at = nullptr;
  if (interp::EvaluateExpression(*e, env, &scratch, &v, &out.error, &error_at)) {
    out.ok = true;
    out.value = internal::ToCedar(v);
    const Value* record = &v;
    if (v.type == internal::Type::kEntity) {
      uint32_t uid = env.store->Find(v.entity->type, v.entity->id);
      const internal::EntityData* data = uid == internal::kNoUid ? nullptr : env.store->data(uid);
      record = data != nullptr ? &data->attrs : nullptr;
    }
    if (record != nullptr && record->type == internal::Type::kRecord) {
      for (uint32_t i = 0; i < record->size; ++i) out.attributes.emplace_back(record->fields[i].key);
    }
  } else {
    out.error_where = Range(expression, error_at != nullptr ? error_at->span : e->span);
  }
  return out;
}

}  // namespace charter
