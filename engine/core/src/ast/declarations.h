// The declarations of one source as a DeclarationCompiler (charter/compiler.h)
// receives them: the generic `head names... { entries }` shapes the parser
// read (ast::DeclEntry), with the source they are in and where their faults go.
#ifndef CHARTER_AST_DECLARATIONS_H_
#define CHARTER_AST_DECLARATIONS_H_

#include <vector>

#include "ast/ast.h"
#include "charter/diagnostics.h"

namespace charter::internal {

struct DeclarationFile {
  const SourceFile* source = nullptr;  // names the place of a first declaration in help lines
  const std::vector<ast::DeclEntry>* declarations = nullptr;
  Diagnostics* diagnostics = nullptr;  // where the faults in this file go
};

}  // namespace charter::internal

#endif  // CHARTER_AST_DECLARATIONS_H_
