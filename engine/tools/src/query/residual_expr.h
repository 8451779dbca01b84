// Residual expressions: ASTs that partial evaluation builds (ast::Expr trees
// with no source behind them), and what is done with them: made from values,
// copied, printed as Cedar text and as Cedar's JSON expression (the EST of
// its JSON policy format), and asked whether they can fail or yield a
// non-boolean.
//
// Long left-leaning chains (`a && b && c ...`, `e.a.b.c`) are walked in
// loops, as the parser builds and the interpreter reads them; every other
// child costs one level of recursion, which the nesting limits of the policy
// text bound.
#ifndef CHARTER_QUERY_RESIDUAL_EXPR_H_
#define CHARTER_QUERY_RESIDUAL_EXPR_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ast/ast.h"
#include "value/value.h"

namespace charter::internal::residual {

using ExprPtr = std::unique_ptr<ast::Expr>;

// Nodes.
ExprPtr Bool(bool b);
ExprPtr Var(ast::Var v);
ExprPtr EntityLiteral(std::string_view type, std::string_view id);
ExprPtr Unary(ast::UnaryOp op, ExprPtr arg);
ExprPtr Binary(ast::BinaryOp op, ExprPtr left, ExprPtr right);
// A copy of `e`'s own fields (kind, operator, name, keys, pattern...) with
// `args` as its operands.
ExprPtr WithArgs(const ast::Expr& e, std::vector<ExprPtr> args);
// Operand i of `e`, `e` dropped. (Never leave a null operand in a node:
// ast::Expr's destructor walks every operand.)
ExprPtr TakeOperand(ExprPtr e, size_t i);
// The literal expression whose value is `v`: entities as `T::"id"`,
// extension values as calls of their constructors (`decimal("1.5000")`).
ExprPtr FromValue(const Value& v);

bool IsVar(const ast::Expr& e, ast::Var v);
bool IsBool(const ast::Expr& e, bool b);

// Whether `e` yields a boolean whenever it does not fail: relations,
// `&&`, `||`, `!`, `has`, `like`, `is`, builtins returning bool, and `if`s
// whose branches all do.
bool BoolTyped(const ast::Expr& e);

// Whether evaluating `e` can fail, for an entity store in which the unknown
// `unknown` is an entity. Conservative: false only when it cannot. Knows
// that the unknown is an entity, that literals and `==` never fail, and that
// `unknown has a && ... unknown.a ...` (and hasTag/getTag) is guarded.
bool CanError(const ast::Expr& e, ast::Var unknown);

// Whether `e` can evaluate to true. Conservative: false only for `false`
// and conjunctions with a false operand.
bool MayHold(const ast::Expr& e);

// Cedar text, on one line, with parentheses only where precedence needs them.
std::string ToCedar(const ast::Expr& e);
// Cedar's JSON expression: {"==": {"left": ..., "right": ...}}, {"Var":
// "resource"}, {"Value": ...}, as cedar-policy's `Expr` JSON and Charter's
// JSON policy reader (policy_json/) read it.
void AppendEst(std::string* out, const ast::Expr& e);
std::string ToEst(const ast::Expr& e);

}  // namespace charter::internal::residual

#endif  // CHARTER_QUERY_RESIDUAL_EXPR_H_
