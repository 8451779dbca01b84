// The syntax layer: policy text -> AST. The only code that sees ANTLR.
#ifndef CHARTER_SYNTAX_PARSER_H_
#define CHARTER_SYNTAX_PARSER_H_

#include <memory>

#include "ast/ast.h"
#include "charter/compiler.h"
#include "charter/diagnostics.h"

namespace charter::internal {

// Parses a whole policy set. Every fault goes into `diagnostics`; the
// returned set holds the policies that parsed cleanly. Never throws.
ast::PolicySet ParsePolicySet(const SourceFile& source, const CompileOptions& options,
                              Diagnostics* diagnostics);

// Parses one expression (a condition's body, without `when { }`), with the
// same checks as in a policy. Every fault goes into `diagnostics`; the result
// is null if there is any. Never throws.
std::unique_ptr<ast::Expr> ParseExpression(const SourceFile& source, const CompileOptions& options,
                                           Diagnostics* diagnostics);

}  // namespace charter::internal

#endif  // CHARTER_SYNTAX_PARSER_H_
