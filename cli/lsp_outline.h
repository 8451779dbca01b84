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

// A name that find-references and rename follow, where a text writes it:
// read by the same scan as the outline and ReferenceAt, so that the three
// agree on what a token names.
struct Occurrence {
  enum class Kind { kType, kAction, kAttribute, kTemplate, kQueue, kCohort, kFlavor };
  Kind kind = Kind::kType;
  // kType: the type, qualified (a schema's `User` in `namespace Org` is
  // `Org::User`); kAction: its type (`Org::Action`); kAttribute, kTemplate
  // and the declarations: the name (unquoted).
  std::string name;
  std::string id;                   // kAction: the action's id
  std::string base;                 // kAttribute in a policy: the identifier before the `.`, if one is
  std::vector<std::string> owners;  // kAttribute declared in a schema: the entity types declaring it
  bool declaration = false;
  bool quoted = false;              // written as a string literal
  size_t begin = 0, end = 0;        // the token: a path's last name, a string with its quotes
};

// In policy text (`charter` true: with `.charter` declarations): types (at
// the last name of their path: `User` of `Org::User::"alice"`, of `is
// Org::User`), actions (the id string of `Org::Action::"view"`), attributes
// (`x.a`, `x has a`; not a method's name), templates (the `@id` of a policy
// with a slot, a declaration), and a `.charter` file's queues, cohorts and
// flavors, declared (`cohort "org";`) and referred to (`cohort: "org";`,
// `parent:`, `flavor "a100" { ... }` in a resource group, `local_queue "x": q;`).
std::vector<Occurrence> PolicyOccurrences(std::string_view text, bool charter);
// In Cedar's schema text: the declarations of entity types, common types,
// actions and entity attributes, and the types and actions they name.
std::vector<Occurrence> SchemaOccurrences(std::string_view text);
// In a template-links JSON file: each `"template_id": "ID"`'s string.
std::vector<Occurrence> LinkOccurrences(std::string_view text);

// The cases of a `charter test` file (JSON: `{"cases": [{...}, ...]}`), each
// with the range of its object and its `name`, if it has one as a string.
struct TestCase {
  size_t begin = 0, end = 0;
  std::string name;
};
std::vector<TestCase> TestCases(std::string_view text);
// Its invariants (`{"invariants": [{...}, ...]}`), likewise.
std::vector<TestCase> TestInvariants(std::string_view text);

// Semantic tokens: what each token of a text is, for an editor's colours.
// The types are LSP's legend of the server, in this order.
enum class SemanticType : int { kKeyword, kType, kAction, kAttribute, kString, kNumber, kComment, kOperator };
inline constexpr const char* kSemanticTypeNames[] = {"keyword", "type",   "event",   "property",
                                                     "string",  "number", "comment", "operator"};
struct SemanticToken {
  size_t begin = 0, end = 0;  // bytes, within one line
  SemanticType type = SemanticType::kKeyword;
  bool declaration = false;   // where the name is declared (LSP's `declaration` modifier)
};
enum class SemanticLanguage { kCedar, kCharter, kSchema };
// In order, not overlapping; nothing for a schema in Cedar's JSON format.
std::vector<SemanticToken> SemanticTokens(std::string_view text, SemanticLanguage language);

}  // namespace charter::cli::lsp

#endif  // CHARTER_CLI_LSP_OUTLINE_H_
