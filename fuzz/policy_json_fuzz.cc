// Fuzz target: arbitrary bytes as a JSON policy or policy set. Reading must
// never crash; every fault must be a diagnostic inside the input; and a
// clean read must give a well-formed AST (each node with the operands its
// kind needs, spans inside the input, slots only in the scope, links only
// to templates that have exactly the slots they bind).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "charter/compiler.h"
#include "builtins/builtins.h"
#include "charter/diagnostics.h"
#include "policy_json/policy_json.h"

namespace {

using charter::internal::ast::Expr;

void Check(bool ok) {
  if (!ok) std::abort();
}

void CheckSpan(charter::Span s, size_t size) { Check(s.begin <= s.end && s.end <= size); }

// Walks without recursion: clean reads may hold long chains.
void CheckExpr(const Expr& root, size_t size) {
  std::vector<const Expr*> stack{&root};
  while (!stack.empty()) {
    const Expr* e = stack.back();
    stack.pop_back();
    CheckSpan(e->span, size);
    for (const auto& a : e->args) Check(a != nullptr);
    size_t n = e->args.size();
    switch (e->kind) {
      case Expr::Kind::kBool:
      case Expr::Kind::kLong:
      case Expr::Kind::kString:
      case Expr::Kind::kEntity:
      case Expr::Kind::kVar:
        Check(n == 0);
        break;
      case Expr::Kind::kSlot:
        Check(false);  // slots belong to the scope only
        break;
      case Expr::Kind::kHas:
        Check(n == 1 && !e->keys.empty() && e->str == e->keys[0]);
        break;
      case Expr::Kind::kAttr:
      case Expr::Kind::kUnary:
      case Expr::Kind::kLike:
        Check(n == 1);
        break;
      case Expr::Kind::kBinary:
        Check(n == 2);
        break;
      case Expr::Kind::kIf:
        Check(n == 3);
        break;
      case Expr::Kind::kIs:
        Check(n == 1 || n == 2);
        Check(!e->str.empty());
        break;
      case Expr::Kind::kSet:
        break;
      case Expr::Kind::kRecord:
        Check(e->keys.size() == n);
        break;
      case Expr::Kind::kMethod:
      case Expr::Kind::kCall: {
        // A known builtin with the registry's arity (a method's receiver
        // counts), unless a wrong arity is an evaluation error; a method has
        // its receiver.
        auto style = e->kind == Expr::Kind::kMethod ? charter::internal::CallStyle::kMethod
                                                    : charter::internal::CallStyle::kFunction;
        int id = charter::internal::FindBuiltin(e->str, style);
        Check(id >= 0);
        const auto& info = charter::internal::kBuiltins[id];
        Check(info.arity == n || info.wrong_arity == charter::internal::WrongArity::kEvaluation);
        Check(e->kind != Expr::Kind::kMethod || n >= 1);
        break;
      }
    }
    if (e->kind == Expr::Kind::kLike) {
      for (size_t i = 1; i < e->pattern.size(); ++i) {
        // Runs are merged: no two wildcards and no two literals in a row.
        Check(e->pattern[i].wildcard != e->pattern[i - 1].wildcard);
      }
      for (const auto& p : e->pattern) Check(p.wildcard || !p.literal.empty());
    }
    for (const auto& a : e->args) stack.push_back(a.get());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  charter::SourceFile source("fuzz.json", std::string(reinterpret_cast<const char*>(data), size));
  charter::CompileOptions options;
  options.max_errors = 8;
  charter::Diagnostics diagnostics;
  std::vector<charter::TemplateLink> links;
  charter::internal::ast::PolicySet set =
      charter::internal::ParsePolicySetJson(source, options, &diagnostics, &links);
  Check(diagnostics.size() <= options.max_errors);
  for (const charter::Diagnostic& d : diagnostics.items()) {
    CheckSpan(d.span, size);
    Check(d.code.size() == 6 && d.code.compare(0, 4, "CH03") == 0);
    Check(!d.message.empty() && !(d.message[0] >= 'A' && d.message[0] <= 'Z'));
  }
  if (!diagnostics.empty()) (void)diagnostics.Render(source);

  std::set<std::string> ids, templates;
  for (const auto& p : set.policies) {
    Check(ids.insert(p.id).second);
    if (p.is_template()) templates.insert(p.id);
    CheckSpan(p.span, size);
    CheckSpan(p.effect_span, size);
    using SK = charter::internal::ast::ScopeConstraint::Kind;
    for (const auto* c : {&p.principal, &p.resource}) {
      CheckSpan(c->span, size);
      Check(!c->slot || c->kind == SK::kEq || c->kind == SK::kIn || c->kind == SK::kIsIn);
      Check((c->kind == SK::kIs || c->kind == SK::kIsIn) == !c->type.empty());
    }
    using AK = charter::internal::ast::ActionConstraint::Kind;
    Check(p.action.kind == AK::kAny ? p.action.entities.empty()
          : p.action.kind == AK::kInList ? true
                                         : p.action.entities.size() == 1);
    for (const auto& c : p.conditions) {
      Check(c.body != nullptr);
      CheckExpr(*c.body, size);
    }
  }
  for (const auto& link : links) {
    Check(templates.count(link.template_id) == 1);
    Check(ids.insert(link.link_id).second);
    for (const auto& p : set.policies) {
      if (p.id != link.template_id) continue;
      Check(p.principal.slot == link.principal.has_value());
      Check(p.resource.slot == link.resource.has_value());
    }
  }
  return 0;
}
