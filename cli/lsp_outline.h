// The outline of a document for the language server: its policies (by
// `@id` or `policyN`), its `.charter` declarations, and a schema's
// namespaces, entity types (with their attributes), actions and common
// types, each with the byte range it spans and the range of its name.
// Read by a tolerant scan of the tokens, so that a document with faults
// still has an outline; the compiler and Schema::Parse remain the judges
// of what is valid (the diagnostics).
#ifndef CHARTER_CLI_LSP_OUTLINE_H_
#define CHARTER_CLI_LSP_OUTLINE_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace charter::cli::lsp {

// LSP's SymbolKind numbers for what an outline holds.
enum class SymbolKind : int {
  kNamespace = 3,
  kClass = 5,      // an entity type
  kField = 8,      // an attribute
  kFunction = 12,  // a policy
  kObject = 19,    // a `.charter` declaration
  kEvent = 24,     // an action
  kStruct = 23,    // a common type
};

struct Symbol {
  std::string name;    // a policy's id, a declaration's or type's name (in its namespace, for schemas: not qualified)
  std::string detail;  // `permit`/`forbid`, the declaration's keyword, an attribute's type
  SymbolKind kind = SymbolKind::kObject;
  size_t begin = 0, end = 0;                  // the whole declaration, annotations and comments above it aside
  size_t name_begin = 0, name_end = 0;        // its name (a policy's `permit`/`forbid`)
  size_t doc_begin = 0, doc_end = 0;          // the `//` comment lines right above it (empty if none)
  std::vector<Symbol> children;
};

// Policies (and, in `.charter` text, declarations) in source order.
std::vector<Symbol> OutlinePolicies(std::string_view text);
// A schema in Cedar's schema text: namespaces holding their declarations,
// entity types holding their attributes. (Nothing for Cedar's JSON schema format.)
std::vector<Symbol> OutlineSchema(std::string_view text);

// What the name under a byte offset refers to, read from the tokens around it.
struct Reference {
  enum class Kind { kNone, kType, kEntity, kAttribute };
  Kind kind = Kind::kNone;
  std::string type;  // kType: the path as written (`Org::User`); kEntity: its type
  std::string id;    // kEntity: the id (unescaped `\"`); kAttribute: the name
  std::string base;  // kAttribute: the identifier before the `.`, if one is
  size_t begin = 0, end = 0;  // the token under the offset
};
Reference ReferenceAt(std::string_view text, size_t offset);

}  // namespace charter::cli::lsp

#endif  // CHARTER_CLI_LSP_OUTLINE_H_
