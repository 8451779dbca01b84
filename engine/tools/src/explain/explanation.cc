// charter::Explain: the reference interpreter with a tracer that records
// every value, then, per policy, a walk down the deciding clause through
// `&&`, `||` and `if` to the sub-conditions that settled it. Rendering the
// Explanation is render.cc.
#include "charter/explain.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "common/combine.h"
#include "common/status_macros.h"
#include "explain/source_text.h"
#include "interp/interp.h"
#include "policy_set/policy_set.h"

namespace charter {
namespace {

using internal::RangeOf;
using internal::TextOf;
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
    out.push_back(ExplainedValue{std::move(text), internal::ToCedar(*v), RangeOf(source, e->span)});
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
  return ExplainedCondition{TextOf(source, e.span), std::move(value), RangeOf(source, e.span),
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
  // (A copy of the text: one source is the several-sources case.)
  return Explain(std::vector<SourceFile>{policies}, links, request, entities, options);
}

absl::StatusOr<Explanation> Explain(const std::vector<SourceFile>& sources, const std::vector<TemplateLink>& links,
                                    const Request& request, const Entities& entities,
                                    const ExplainOptions& options) {
  ASSIGN_OR_RETURN(std::unique_ptr<internal::PolicySet> set,
                   internal::ReadLinkedPolicySet(sources, links, options.compile));
  internal::EntityRef refs[3];
  interp::Env env = interp::MakeEnv(request, entities, refs);
  internal::Arena scratch;
  Explanation out;
  std::vector<std::string> permits, forbids;
  for (const internal::PolicyInstance& instance : set->instances) {
    const ast::Policy& p = *instance.policy;
    const SourceFile& policies = sources[p.source];
    Recorder rec;
    interp::PolicyResult r = interp::EvaluatePolicy(instance, env, &scratch, &rec);
    PolicyExplanation pe;
    pe.policy_id = instance.id;
    if (instance.link != nullptr) pe.template_id = instance.link->template_id;
    pe.forbid = p.effect == ast::Effect::kForbid;
    pe.source = p.source;
    pe.where = RangeOf(policies, p.effect_span);
    if (r.part == interp::Part::kCondition) {
      const ast::Condition& c = p.conditions[r.condition];
      pe.clause = static_cast<int>(r.condition);
      pe.clause_when = c.when;
      pe.clause_where = RangeOf(policies, c.span);
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
          pe.scope_where = RangeOf(policies, span);
        }
        break;
      case interp::Outcome::kError:
        pe.outcome = PolicyOutcome::kErrored;
        pe.error = r.error;
        out.decision.errors.push_back(PolicyError{instance.id, r.error, r.error_span});
        if (r.error_at != nullptr) {
          ExplainedCondition failed = Condition(*r.error_at, "error", rec, policies, options);
          // Underlined where the Decision says it failed: the failing
          // expression, or its operand that is not a boolean.
          if (r.error_span.end > r.error_span.begin) {
            failed.expression = TextOf(policies, r.error_span);
            failed.where = RangeOf(policies, r.error_span);
          }
          pe.conditions.push_back(std::move(failed));
        }
        break;
    }
    out.policies.push_back(std::move(pe));
  }
  out.decision.allowed = internal::CombinedAllows(permits, forbids);
  out.decision.reasons = std::move(internal::DeterminingPolicies(permits, forbids));
  for (PolicyExplanation& pe : out.policies) {
    pe.determining = std::find(out.decision.reasons.begin(), out.decision.reasons.end(),
                               pe.policy_id) != out.decision.reasons.end();
  }
  return out;
}

}  // namespace charter
