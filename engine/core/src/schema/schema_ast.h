// The schema as written: namespaces with their common types, entity types and
// actions, in declaration order, with byte spans into the source. Both the
// Cedar schema text and the JSON schema format are read into this tree, and
// both writers print from it; resolve.cc turns it into the checked model
// (schema_model.h) that the validator uses.
#ifndef CHARTER_SCHEMA_SCHEMA_AST_H_
#define CHARTER_SCHEMA_SCHEMA_AST_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "charter/diagnostics.h"

namespace charter::internal::schema {

struct Annotation {
  std::string key;
  std::string value;
  bool has_value = false;
  Span span;  // from `@` to the end of the annotation (text format only)
};

struct AttrDecl;

// A type as written. A name is resolved later: in the text format a bare name
// may be a common type, an entity type, a primitive or an extension type; the
// JSON format says which kind it means.
struct TypeExpr {
  enum class Kind : uint8_t { kName, kSet, kRecord };
  enum class Hint : uint8_t {
    kAny,        // text, or JSON "EntityOrCommon" / a bare common-type name
    kPrimitive,  // JSON "Long", "String", "Boolean" (name is Long, String or Bool)
    kEntity,     // JSON {"type": "Entity"}
    kExtension,  // JSON {"type": "Extension"}
  };
  Kind kind = Kind::kName;
  Hint hint = Hint::kAny;
  std::string name;                 // kName: a path such as "NS::User" or "Long"
  std::shared_ptr<TypeExpr> elem;   // kSet
  std::vector<AttrDecl> attrs;      // kRecord, in declaration order
  bool additional_attributes = false;  // JSON "additionalAttributes": true
  Span span;
};

struct AttrDecl {
  std::string name;
  bool required = true;
  TypeExpr type;
  std::vector<Annotation> annotations;
  Span span;  // the attribute's name
};

struct CommonTypeDecl {
  std::string name;
  TypeExpr type;
  std::vector<Annotation> annotations;
  Span span;  // the name
};

struct EntityDecl {
  std::vector<std::string> names;  // `entity A, B ...` declares both
  std::vector<Span> name_spans;
  std::vector<std::string> parents;  // memberOfTypes, as written
  std::vector<Span> parent_spans;
  std::optional<TypeExpr> shape;     // a record type or a common-type name
  std::optional<TypeExpr> tags;
  bool is_enum = false;
  std::vector<std::string> choices;  // for an enumerated entity type
  std::vector<Span> choice_spans;
  std::vector<Annotation> annotations;
  Span span;
};

// A reference to an action: `view`, `"read docs"`, or `NS::Action::"view"`.
struct ActionRef {
  std::string type;  // as written; empty means this namespace's `Action`
  std::string id;
  Span span;
};

struct ActionDecl {
  std::vector<std::string> names;
  std::vector<Span> name_spans;
  std::vector<ActionRef> parents;
  bool has_applies_to = false;
  std::vector<std::string> principals;
  std::vector<Span> principal_spans;
  std::vector<std::string> resources;
  std::vector<Span> resource_spans;
  std::optional<TypeExpr> context;
  std::vector<Annotation> annotations;
  Span span;
};

struct Namespace {
  std::string name;  // "" for the empty namespace
  bool braced = false;  // written as `namespace NAME { ... }`
  std::vector<Annotation> annotations;
  std::vector<CommonTypeDecl> common_types;
  std::vector<EntityDecl> entities;
  std::vector<ActionDecl> actions;
  // Declaration order across the three lists, for printing: 'c', 'e' or 'a'
  // with an index into its list.
  std::vector<std::pair<char, size_t>> order;
  Span span;
};

struct SchemaAst {
  std::vector<Namespace> namespaces;
};

}  // namespace charter::internal::schema

#endif  // CHARTER_SCHEMA_SCHEMA_AST_H_
