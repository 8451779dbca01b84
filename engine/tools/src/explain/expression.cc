// charter::EvaluateExpression: one expression parsed and evaluated by the
// reference interpreter, for tools that let people try expressions.
#include "charter/explain.h"

#include <memory>

#include "unwrap/unwrap.h"
#include "common/strings.h"
#include "explain/source_text.h"
#include "extensions/extensions.h"
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

// `v` in Cedar's JSON value encoding (ExpressionValue::json). The walk
// recurses as ToCedar's does: a value the interpreter built is bounded by
// the expression's nesting, which the parser limits.
void AppendJson(std::string* out, const Value& v) {
  auto extension = [&](const char* fn, const std::string& arg) {
    CatAppend(out, "{\"__extn\": {\"fn\": \"", fn, "\", \"arg\": ");
    internal::json::AppendQuoted(out, arg);
    *out += "}}";
  };
  switch (v.type) {
    case internal::Type::kBool: *out += v.b ? "true" : "false"; break;
    case internal::Type::kLong: CatAppend(out, v.i); break;
    case internal::Type::kString: internal::json::AppendQuoted(out, v.string()); break;
    case internal::Type::kEntity:
      *out += "{\"__entity\": {\"type\": ";
      internal::json::AppendQuoted(out, v.entity->type);
      *out += ", \"id\": ";
      internal::json::AppendQuoted(out, v.entity->id);
      *out += "}}";
      break;
    case internal::Type::kSet:
      out->push_back('[');
      for (uint32_t i = 0; i < v.size; ++i) {
        if (i > 0) *out += ", ";
        AppendJson(out, v.elements[i]);
      }
      out->push_back(']');
      break;
    case internal::Type::kRecord:
      out->push_back('{');
      for (uint32_t i = 0; i < v.size; ++i) {
        if (i > 0) *out += ", ";
        internal::json::AppendQuoted(out, v.fields[i].key);
        *out += ": ";
        AppendJson(out, v.fields[i].value);
      }
      out->push_back('}');
      break;
    case internal::Type::kIp: extension("ip", internal::ext::FormatIp(*v.ip)); break;
    case internal::Type::kDecimal: extension("decimal", internal::ext::FormatDecimal(v.i)); break;
    case internal::Type::kDatetime: extension("datetime", internal::ext::FormatDatetime(v.i)); break;
    case internal::Type::kDuration: extension("duration", internal::ext::FormatDuration(v.i)); break;
  }
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
  internal::Value v;
  const ast::Expr* error_at = nullptr;
  if (interp::EvaluateExpression(*e, env, &scratch, &v, &out.error, &error_at)) {
    out.ok = true;
    out.value = internal::ToCedar(v);
    AppendJson(&out.json, v);
    const internal::Value* record = &v;
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
