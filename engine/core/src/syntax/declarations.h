// A fast reader of the scheduling declarations of a .charter text: the
// common case, a text of declarations only (what `charter import` writes and
// reads back, the scheduling files of a cluster), read straight from the
// bytes into the AST the parse tree would give, without ANTLR's tokens and
// tree.
//
// It only ever answers for text that Charter.g4 parses cleanly and the AST
// builder accepts without a diagnostic, and then it gives that AST exactly:
// anything else (a policy, a syntax error, an escape in a string, a name
// that needs a diagnostic, a shape whose parse needs ANTLR's lookahead) it
// declines, and the parser reads the text with ANTLR as before, which
// reports whatever there is to report. DeclarationParseDifference
// (parser.h) checks the two readings against each other; a unit test runs
// it over every shipped .charter file and a fuzz target over arbitrary text.
#ifndef CHARTER_SYNTAX_DECLARATIONS_H_
#define CHARTER_SYNTAX_DECLARATIONS_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "ast/ast.h"

namespace charter::internal {

// The declarations of GROUP, whole units of .charter text that begin at byte
// `base` of their source, appended to *OUT with source spans; false (and
// *OUT as it was) when GROUP is not declarations only or needs the full
// parser (above).
bool ReadDeclarationsFast(std::string_view group, uint32_t base, std::vector<ast::DeclEntry>* out);

}  // namespace charter::internal

#endif  // CHARTER_SYNTAX_DECLARATIONS_H_
