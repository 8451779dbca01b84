// Entities: the immutable store of principals, resources and their
// hierarchy that a request is decided against. Built once from Cedar's JSON
// entity format and shared by any number of concurrent Authorize calls.
//
//   [{"uid": {"type": "User", "id": "alice"},
//     "attrs": {"team": "ml", "level": 3},
//     "parents": [{"type": "Group", "id": "admins"}]}]
#ifndef CHARTER_ENTITIES_H_
#define CHARTER_ENTITIES_H_

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "charter/entity_uid.h"
#include "charter/export.h"
#include "charter/value.h"

namespace charter {

namespace internal {
class Unwrap;    // unwrap/unwrap.h
class EntityStore;  // entities/entity_store.h
}  // namespace internal

class Diagnostics;
class Engine;
class Request;
class Schema;
class SourceFile;
struct CompileOptions;
struct ExpressionValue;

// One entity as the store holds it, for tools that show entities (the
// REPL's `:entities UID`): its direct parents as its JSON named them, and
// its attributes and tags as Cedar record literals.
struct EntityInfo {
  EntityUid uid;
  std::vector<EntityUid> parents;
  std::string attrs;  // "{}" when it has none
  std::string tags;   // empty when it has none
};

// An entity built in code, for Entities::Extend: its uid, attributes, tags
// and direct parents, as an object of Cedar's JSON entity format holds them
// (ToJson writes that object).
struct CHARTER_API Entity {
  EntityUid uid;
  std::vector<std::pair<std::string, Value>> attrs;
  std::vector<std::pair<std::string, Value>> tags;
  std::vector<EntityUid> parents;
  std::string ToJson() const;
  void AppendJson(std::string* out) const;
};

struct EntitiesOptions {
  size_t max_input_bytes = size_t{1} << 30;
  int max_nesting = 64;  // of records and sets inside attribute values
  // The most the ancestor index keeps: one interval an entity for a tree,
  // more for entities with several parents (8 bytes each; the default, 2^25,
  // is 256 MiB, more than a tree within max_input_bytes needs). The index
  // also keeps at most 8 a uid and a parent link of the input (plus 2^20).
  // An entity it has no room for keeps none, and `in` on it walks up from
  // the descendant: the same answers, in time and memory bounded by the
  // input.
  size_t max_ancestor_intervals = size_t{1} << 25;
};

class CHARTER_API Entities {
 public:
  // An empty store.
  Entities();
  // Parses Cedar's JSON entity format. A malformed document, an integer that
  // does not fit in 64 bits, a cycle in the hierarchy or two different
  // entities with one uid is an InvalidArgument error whose message starts
  // with "SOURCE_NAME:LINE:COL: ".
  static absl::StatusOr<Entities> FromJson(std::string_view json,
                                           std::string_view source_name = "entities.json",
                                           const EntitiesOptions& options = {});
  // Parses Cedar's JSON entity format with a schema, as Cedar does when it
  // is given one (docs/entities.md, "With a schema"):
  //   - each attribute and tag is read for its declared type, so an entity
  //     may be written {"type": "User", "id": "bob"} without `__entity`, and
  //     an extension value as its string ("10.0.0.1") without `__extn`;
  //   - every entity must conform: a declared entity type (or a declared
  //     action), an id among the values of an enumerated type, exactly the
  //     declared attributes (required ones present) with their types, tags
  //     only where the type declares them, parents of types it may be a
  //     member of;
  //   - the schema's actions join the store with the schema's groups, so
  //     `action in Action::"group"` follows the schema; an action listed in
  //     the JSON must match the schema's (no attributes, the same groups).
  // A fault is InvalidArgument "SOURCE_NAME:LINE:COL: entity T::\"id\": ..."
  // naming the entity and the attribute path (`attribute `profile.dept``).
  static absl::StatusOr<Entities> FromJson(std::string_view json, const Schema& schema,
                                           std::string_view source_name = "entities.json",
                                           const EntitiesOptions& options = {});
  // This store with the entities of `json` (Cedar's JSON entity format) laid
  // over it: a request's own entities beside a large configured store, read
  // in time proportional to `json`, never copying this store, which stays
  // as it was (the result shares it, so either may be dropped first).
  //   - An entity this store already has is accepted when it is the same
  //     (attributes, tags, parents) and refused when it differs.
  //   - An entity this store names without data may be given data (a
  //     request's principal that an attribute here mentions), unless it is
  //     the parent of one of this store's entities: this store's hierarchy
  //     never changes.
  //   - Parents may be entities of either; `in` sees the whole hierarchy.
  // With a schema, the new entities are read and checked as FromJson with a
  // schema reads them, and the schema's actions this store lacks join them.
  // Errors are InvalidArgument "SOURCE_NAME:LINE:COL: ..."; an extension
  // may be extended again.
  absl::StatusOr<Entities> Extend(std::string_view json, std::string_view source_name = "entities.json",
                                  const EntitiesOptions& options = {}) const;
  absl::StatusOr<Entities> Extend(std::string_view json, const Schema& schema,
                                  std::string_view source_name = "entities.json",
                                  const EntitiesOptions& options = {}) const;

  // The same, with entities built in code instead of JSON text: the same
  // store as Extend of their JSON (Entity::ToJson, joined in an array) gives,
  // with the same checks, without writing or reading any text. Values are
  // taken as given (an entity is Value::Entity, an extension value
  // Value::Extension); with a schema each must have its declared type.
  // Errors are InvalidArgument "SOURCE_NAME: entity T::\"id\": ...".
  absl::StatusOr<Entities> Extend(std::span<const Entity> entities,
                                  std::string_view source_name = "entities",
                                  const EntitiesOptions& options = {}) const;
  absl::StatusOr<Entities> Extend(std::span<const Entity> entities, const Schema& schema,
                                  std::string_view source_name = "entities",
                                  const EntitiesOptions& options = {}) const;

  size_t size() const;  // the number of entities with data (not mere parents)

  // The entities with data, in the store's order (the order read).
  std::vector<EntityUid> Uids() const;
  // Every uid the store knows: those of Uids() and the parents named
  // without data of their own, in the store's order.
  std::vector<EntityUid> KnownUids() const;
  // The entity `uid`, or nullopt when the store has no data for it.
  std::optional<EntityInfo> Find(const EntityUid& uid) const;
  // Whether the store has data for `uid` (Find without building the answer).
  bool Contains(const EntityUid& uid) const;

 private:
  // The library reaches the store through internal::Unwrap.
  friend class internal::Unwrap;

  explicit Entities(std::shared_ptr<const internal::EntityStore> store);
  std::shared_ptr<const internal::EntityStore> store_;
};

}  // namespace charter

#endif  // CHARTER_ENTITIES_H_
