// The checked schema: every name resolved, common types inlined, hierarchies
// closed. The validator's types (Cedar's strict-mode type lattice) live here
// too, since the schema's attribute types are the same values.
#ifndef CHARTER_SCHEMA_SCHEMA_MODEL_H_
#define CHARTER_SCHEMA_SCHEMA_MODEL_H_

#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "charter/diagnostics.h"
#include "schema/schema_ast.h"

namespace charter::internal {

struct SchemaType;
using TypeRef = std::shared_ptr<const SchemaType>;

struct AttrType {
  TypeRef type;
  bool required = true;
};

struct SchemaType {
  enum class Kind : uint8_t {
    kNever,      // no value; a subtype of everything
    kBool,       // true or false
    kTrue,       // the singleton type of `true`
    kFalse,      // the singleton type of `false`
    kLong,
    kString,
    kEntity,     // an entity of type `name`
    kAnyEntity,  // an entity of any type (only as an expected type)
    kSet,        // elem == nullptr: a set of anything (only as an expected type)
    kRecord,     // attrs; open: may have more attributes (only as an expected type)
    kExtension,  // name: ipaddr, decimal, datetime, duration
  };
  Kind kind = Kind::kNever;
  std::string name;
  TypeRef elem;
  std::map<std::string, AttrType> attrs;
  bool open = false;

  static TypeRef Of(Kind k);
  static TypeRef Entity(std::string name);
  static TypeRef Extension(std::string name);
  static TypeRef SetOf(TypeRef elem);
  static TypeRef Record(std::map<std::string, AttrType> attrs, bool open = false);

  bool is_bool() const { return kind == Kind::kBool || kind == Kind::kTrue || kind == Kind::kFalse; }
};

bool TypeEquals(const SchemaType& a, const SchemaType& b);
// Cedar's display of a type: `Long`, `Set<String>`, `User`, `{a: Long, b?: Bool}`.
std::string TypeName(const SchemaType& t);

struct EntityTypeInfo {
  std::string name;
  std::vector<std::string> parents;    // declared memberOfTypes, resolved
  std::set<std::string> descendants;   // types that may be (transitively) members of this one
  std::map<std::string, AttrType> attrs;
  bool open_attrs = false;             // JSON "additionalAttributes": true
  TypeRef tags;                        // null: no tags
  bool is_enum = false;
  std::vector<std::string> choices;
};

struct ActionKey {
  std::string type;  // "Action" or "NS::Action"
  std::string id;
  friend bool operator<(const ActionKey& a, const ActionKey& b) {
    return a.type != b.type ? a.type < b.type : a.id < b.id;
  }
  friend bool operator==(const ActionKey& a, const ActionKey& b) {
    return a.type == b.type && a.id == b.id;
  }
};

struct ActionInfo {
  ActionKey key;
  std::vector<ActionKey> parents;       // memberOf, resolved
  std::set<ActionKey> ancestors;        // transitive
  std::set<ActionKey> descendants;      // actions that are (transitively) in this one
  bool applies = false;                 // has appliesTo with principals and resources
  std::vector<std::string> principals;
  std::vector<std::string> resources;
  TypeRef context;                      // a closed record
};

struct SchemaModel {
  std::map<std::string, EntityTypeInfo> entity_types;
  std::map<ActionKey, ActionInfo> actions;

  const EntityTypeInfo* FindEntityType(const std::string& name) const {
    auto it = entity_types.find(name);
    return it == entity_types.end() ? nullptr : &it->second;
  }
  const ActionInfo* FindAction(const ActionKey& key) const {
    auto it = actions.find(key);
    return it == actions.end() ? nullptr : &it->second;
  }
};

// An entity type name is an action type when its last component is `Action`.
bool IsActionType(std::string_view type);

// Resolves names, inlines common types, checks for duplicates, undefined
// names, cycles and reserved names (CH0403 to CH0409), and closes the entity
// and action hierarchies.
bool Resolve(const schema::SchemaAst& ast, SchemaModel* model, Diagnostics* diagnostics);

struct SchemaData {
  std::string source_name;
  schema::SchemaAst ast;
  SchemaModel model;
};

}  // namespace charter::internal

#endif  // CHARTER_SCHEMA_SCHEMA_MODEL_H_
