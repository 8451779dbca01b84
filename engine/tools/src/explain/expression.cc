// charter::EvaluateExpression: one expression parsed and evaluated by the
// reference interpreter, for tools that let people try expressions.
#include "charter/explain.h"

#include <memory>

#include "unwrap/unwrap.h"
#include "common/strings.h"
#include "explain/source_text.h"
#include "interp/interp.h"
#include "syntax/parser.h"

namespace charter {
namespace {

using internal::Cat;
using internal::Value;
namespace ast = internal::ast;
namespace interp = internal::interp;

// The first variable `e` names, in evaluation order, or null.
const ast::Expr* FirstVariable(const ast::Expr& root) {
  std::vector<const ast::Expr*> stack{&root};
  while (!stack.empty()) {
    const ast::Expr* e = stack.back();
    stack.pop_back();
    if (e->kind == ast::Expr::Kind::kVar) return e;
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
    env.store = &internal::Unwrap::Store(entities);
    if (const ast::Expr* var = FirstVariable(*e); var != nullptr) {
      static constexpr const char* kNames[] = {"principal", "action", "resource", "context"};
      out.error = Cat("`", kNames[static_cast<int>(var->var)], "` has no value: there is no request");
      out.error_where = internal::RangeOf(expression, var->span);
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
    out.error_where = internal::RangeOf(expression, error_at != nullptr ? error_at->span : e->span);
  }
  return out;
}

}  // namespace charter
