// The syntax layer: policy text -> AST. The only code that sees ANTLR.
#ifndef CHARTER_SYNTAX_PARSER_H_
#define CHARTER_SYNTAX_PARSER_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "ast/ast.h"
#include "charter/compiler.h"
#include "charter/diagnostics.h"

namespace charter::internal {

// Whether `source` is .charter text (Cedar policies and scheduling
// declarations) rather than Cedar text: CompileOptions::language, or with
// kAuto a name that ends in `.charter`.
bool IsCharterSource(const SourceFile& source, const CompileOptions& options);

// Parses a whole policy set (and, in .charter text, its scheduling
// declarations). Every fault goes into `diagnostics`; the returned set
// holds the policies and declarations that parsed cleanly. A policy without
// an `@id` is `policyN`, N counting from `first_index`. Never throws.
ast::PolicySet ParsePolicySet(const SourceFile& source, const CompileOptions& options,
                              Diagnostics* diagnostics, size_t first_index = 0);

// Parses one expression (a condition's body, without `when { }`), with the
// same checks as in a policy. Every fault goes into `diagnostics`; the result
// is null if there is any. Never throws.
std::unique_ptr<ast::Expr> ParseExpression(const SourceFile& source, const CompileOptions& options,
                                           Diagnostics* diagnostics);

// Where the syntax layer's lexer (syntax/lexer.h) and the lexer ANTLR
// generates from Charter.g4 disagree over TEXT (valid UTF-8): the first
// token that differs in type, position, line, column or text, described;
// empty when every token agrees. For tests and fuzzing. Never throws.
std::string LexerDifference(std::string_view text);

// Where the fast reader of declarations (syntax/declarations.h) and the
// full parser disagree over TEXT, read as .charter text group by group as
// ParsePolicySet reads it: nullopt when the fast reader declines every
// group (or the text fails the checks before parsing); else empty when,
// in each group it reads, both give the same declarations (every field and
// span) and the parser reports nothing, and otherwise what differs first.
// *GROUPS_READ (when given) counts the groups the fast reader read. For
// tests and fuzzing. Never throws.
std::optional<std::string> DeclarationParseDifference(std::string_view text, size_t* groups_read = nullptr);

}  // namespace charter::internal

#endif  // CHARTER_SYNTAX_PARSER_H_
