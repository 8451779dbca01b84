// charter::Coverage: each request decided as Explain decides it, with a
// tracer that counts the values of every clause and sub-condition.
// Coverage::ToJson is in render.cc.
#include "charter/explain.h"

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

using internal::Value;
namespace ast = internal::ast;
namespace interp = internal::interp;
using K = ast::Expr::Kind;

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
  std::unique_ptr<internal::PolicySet> set;
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
  ASSIGN_OR_RETURN(state->set, internal::ReadLinkedPolicySet(policies, links, options, nullptr));
  for (const internal::PolicyInstance& instance : state->set->instances) {
    const ast::Policy& p = *instance.policy;
    PolicyCoverage pc;
    pc.policy_id = instance.id;
    if (instance.link != nullptr) pc.template_id = instance.link->template_id;
    pc.forbid = p.effect == ast::Effect::kForbid;
    pc.where = internal::RangeOf(policies, p.effect_span);
    std::vector<std::vector<const ast::Expr*>> clauses;
    for (uint32_t i = 0; i < p.conditions.size(); ++i) {
      const ast::Condition& c = p.conditions[i];
      ClauseCoverage cc;
      cc.when = c.when;
      cc.condition.expression = internal::TextOf(policies, c.body->span);
      cc.condition.where = internal::RangeOf(policies, c.span);
      std::vector<const ast::Expr*> subs = SubConditions(*c.body);
      if (subs.size() < 2) subs.clear();
      for (uint32_t k = 0; k < subs.size(); ++k) {
        ConditionCoverage sub;
        sub.expression = internal::TextOf(policies, subs[k]->span);
        sub.where = internal::RangeOf(policies, subs[k]->span);
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
    const internal::PolicyInstance& instance = state_->set->instances[n];
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
      decision.errors.push_back(PolicyError{instance.id, r.error, r.error_span});
    } else if (r.outcome == interp::Outcome::kTrue) {
      ++pc.satisfied;
      (pc.forbid ? forbids : permits).push_back(instance.id);
      (pc.forbid ? forbid_index : permit_index).push_back(n);
    }
  }
  decision.allowed = internal::CombinedAllows(permits, forbids);
  decision.reasons = std::move(internal::DeterminingPolicies(permits, forbids));
  for (size_t n : internal::DeterminingPolicies(permit_index, forbid_index)) ++state_->policies[n].determining;
  return decision;
}

size_t Coverage::requests() const { return state_->requests; }

const std::vector<PolicyCoverage>& Coverage::policies() const { return state_->policies; }

}  // namespace charter
