// The entity store: every entity of a request's world, built once from JSON
// and read by any number of concurrent evaluations. Each entity reference it
// knows (entities with data, their parents, entities named in attributes)
// has a uid index. `in` is answered without walking the hierarchy by
// interval labels (Agrawal, Borgida and Jagadish's compressed closure): a
// depth-first post-order numbering of the child graph, and for each uid the
// sorted, disjoint intervals of numbers of its descendants. A tree needs
// one interval an entity (a 100,000-deep chain: 100,000 intervals, where a
// full ancestor list would need 5 billion entries); a DAG needs more, never
// more than its closure. The index is bounded by the input (a few intervals
// a uid and a parent link, and EntitiesOptions::max_ancestor_intervals):
// the uids it has no room for keep none, and `in` on one of them walks up
// from the descendant, visiting each uid on the way once.
//
// A store can also be built in code, entity by entity (Add), and on top of
// another store without copying it: an overlay reads every uid of its base
// and numbers its own after them, so a caller adds the few entities one
// decision needs (a scheduling cycle's workloads, a request's own entities)
// to a large shared store. Such a store keeps, for each entity it adds, the
// sorted list of its ancestors (an entity is added after its parents, so
// the list is its parents' lists merged); the base is never changed.
#ifndef CHARTER_ENTITIES_ENTITY_STORE_H_
#define CHARTER_ENTITIES_ENTITY_STORE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <span>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "charter/entities.h"
#include "common/arena.h"
#include "value/value.h"

namespace charter::internal {

struct SchemaModel;
struct JsonSource;    // entities/json_values.h
struct ParsedEntity;  // entities/entity_store.cc
struct FirstIndex;    // entities/entity_store.cc
namespace json {
class Value;
}  // namespace json

// A hash of an entity's (type, id), the same for every store and program in
// one process: the scope index keys policies by it, and a store keeps it for
// each uid so that a request's ancestors are looked up without hashing
// strings.
inline uint64_t EntityKeyHash(std::string_view type, std::string_view id) {
  return absl::Hash<std::pair<std::string_view, std::string_view>>{}(std::make_pair(type, id));
}
inline uint64_t TypeKeyHash(std::string_view type) { return absl::Hash<std::string_view>{}(type); }

// Reusable memory for walking the hierarchy (kept by an evaluation context).
struct AncestorScratch {
  std::vector<uint32_t> mark;  // uid -> stamp of the last walk that reached it
  uint32_t stamp = 0;
  std::vector<uint32_t> stack;
};

struct EntityData {
  Value attrs;  // a record
  Value tags;   // a record
};

class EntityStore {
 public:
  // With a schema (may be null), the values are read for their declared
  // types, every entity is checked against it, and the schema's actions join
  // the store (json_values.h, docs/entities.md).
  static absl::StatusOr<std::unique_ptr<EntityStore>> FromJson(std::string_view json,
                                                               std::string_view source_name,
                                                               const EntitiesOptions& options,
                                                               const SchemaModel* schema = nullptr);
  EntityStore() = default;

  // --- building in code ------------------------------------------------------
  // An empty store to add entities to with Add, on top of `base` (null: on
  // nothing). The base is shared, read and never changed; the overlay's uids
  // come after the base's, so a uid of the base means the same in both.
  static std::unique_ptr<EntityStore> Overlay(std::shared_ptr<const EntityStore> base);
  // An overlay on `base` holding the entities of `json` (Cedar's JSON entity
  // format, read as FromJson reads it, with `schema` when not null), without
  // copying the base. An entity the base already holds with data is
  // accepted when it is the same (attributes, tags and parents) and refused
  // when it differs; an entity the base names without data may gain data
  // here (an Override), unless it is the parent of a base entity (the base's
  // hierarchy is never changed). With a schema, the schema's actions the base lacks join
  // the overlay. Errors are InvalidArgument "SOURCE_NAME:LINE:COL: ...".
  static absl::StatusOr<std::unique_ptr<EntityStore>> ExtendFromJson(std::shared_ptr<const EntityStore> base,
                                                                     std::string_view json,
                                                                     std::string_view source_name,
                                                                     const EntitiesOptions& options,
                                                                     const SchemaModel* schema = nullptr);

  // The same with entities built in code (charter::Entity), read as
  // ExtendFromJson reads their JSON (entities/json_values.h's
  // BuiltValueReader): the same store, the same checks, faults
  // "SOURCE_NAME: entity T::\"id\": ..." without a position.
  static absl::StatusOr<std::unique_ptr<EntityStore>> ExtendFromEntities(std::shared_ptr<const EntityStore> base,
                                                                         std::span<const charter::Entity> entities,
                                                                         std::string_view source_name,
                                                                         const EntitiesOptions& options,
                                                                         const SchemaModel* schema = nullptr);

  // The reference of (type, id): the base's or this store's when either
  // knows it, else a new uid without data (an entity named as a parent or in
  // an attribute). Only for a store built in code.
  const EntityRef* Ref(std::string_view type, std::string_view id);
  // This store's one copy of a record key (the base's when the base has
  // one), for the records of entities added with Add: a program bound to
  // the store (vm.h's StoreBinding) finds such keys by address. A key not
  // seen before changes key_generation().
  std::string_view InternKey(std::string_view key);
  // Where the values of added entities live (strings, records, sets). It
  // grows with the store and lives as long as it.
  Arena& arena() { return arena_; }
  // A record of `fields` (keys unique, any order) in the arena, sorted by
  // key. With `intern`, every key becomes InternKey(key) and the record is marked
  // interned_keys; tag records need not be.
  Value Record(std::span<const RecordField> fields, bool intern);

  // Adds the entity `self` (from Ref) with its attributes and tags (records
  // whose strings, records and sets outlive the store: in its arena, its
  // base's, or static) and its parents (uids of this store or its base).
  // Refused when `self` already has data or is already a parent of an
  // entity (an entity is added after its parents, so that the hierarchy
  // cannot gain a cycle), or belongs to the base.
  absl::Status Add(const EntityRef* self, Value attrs, Value tags, std::span<const uint32_t> parents);

  // The store this one is built on, or null.
  const std::shared_ptr<const EntityStore>& base() const { return base_; }
  // Changes whenever InternKey adds a key the store did not have.
  uint64_t key_generation() const { return key_generation_; }
  // Built in code (Overlay): it may gain entities after a reader looked for
  // one and did not find it.
  bool built_in_code() const { return built_; }

  // --- reading ---------------------------------------------------------------
  // The uid index of (type, id), or kNoUid.
  uint32_t Find(std::string_view type, std::string_view id) const {
    return Find(type, id, EntityKeyHash(type, id));
  }
  // The same, given `hash` == EntityKeyHash(type, id).
  uint32_t Find(std::string_view type, std::string_view id, uint64_t hash) const;
  // The uid of `e`: its own when it has one, else looked up (by its
  // key_hash when it has one).
  uint32_t Resolve(const EntityRef& e) const {
    if (e.uid != kNoUid) return e.uid;
    return Find(e.type, e.id, e.key_hash != 0 ? e.key_hash : EntityKeyHash(e.type, e.id));
  }
  const EntityRef& ref(uint32_t uid) const {
    return uid < base_uids_ ? base_->ref(uid) : *refs_[uid - base_uids_];
  }
  // The entity's data, or nullptr when the store has no entity with that uid.
  const EntityData* data(uint32_t uid) const {
    if (uid < base_uids_) [[unlikely]] return BaseData(uid);
    uid -= base_uids_;
    return uid < data_index_.size() && data_index_[uid] >= 0 ? &entities_[data_index_[uid]] : nullptr;
  }
  // Whether `ancestor` is a transitive parent of `uid` (not reflexive).
  bool HasAncestor(uint32_t uid, uint32_t ancestor) const;
  // Whether some entity of the store names `uid` as a parent.
  bool HasChildren(uint32_t uid) const;
  // Writes the transitive ancestors of `uid` to *out (in no particular
  // order), unless there are more than `limit`: then returns false and *out
  // holds some of them. Up to kSmallAncestorWalk, `scratch` needs no memory
  // per uid.
  static constexpr size_t kSmallAncestorWalk = 64;
  bool Ancestors(uint32_t uid, size_t limit, AncestorScratch* scratch,
                 std::vector<uint32_t>* out) const;
  // The direct parents of `uid`, as its entity JSON names them (deduplicated).
  std::span<const uint32_t> parents(uint32_t uid) const {
    if (uid < base_uids_) [[unlikely]] return BaseParents(uid);
    if (built_) return OwnRange(own_parents_, own_parent_range_[uid - base_uids_]);
    return {parents_.data() + parent_begin_[uid], parent_begin_[uid + 1] - parent_begin_[uid]};
  }
  // The one copy of a record key that every record of this store's entity
  // attributes uses (records marked interned_keys), or nullptr when no
  // attribute record of the store has that key.
  const std::string_view* InternedKey(std::string_view key) const {
    auto it = keys_.find(key);
    if (it != keys_.end()) return &it->second;
    return base_ != nullptr ? base_->InternedKey(key) : nullptr;
  }
  // EntityKeyHash of the uid's type and id.
  uint64_t key_hash(uint32_t uid) const {
    return uid < base_uids_ ? base_->key_hash(uid) : key_hashes_[uid - base_uids_];
  }
  size_t size() const { return entities_.size() + (base_ != nullptr ? base_->size() : 0); }
  size_t num_uids() const { return base_uids_ + refs_.size(); }

 private:
  // A range of one of the flat lists of a store built in code.
  struct Range {
    uint32_t begin = 0;
    uint32_t size = 0;
  };
  static std::span<const uint32_t> OwnRange(const std::vector<uint32_t>& list, Range r) {
    return {list.data() + r.begin, r.size};
  }
  // An overlay's data for a uid of its base that the base names without
  // data and as no entity's parent (an entity inside an attribute, or a
  // request's principal the configured store only mentions): the base's
  // hierarchy cannot change, so such a uid may gain data, parents and
  // ancestors here.
  struct Override {
    int32_t data = -1;  // in entities_
    Range parents, ancestors;  // in own_parents_, own_ancestors_
    uint8_t is_parent = 0;
  };
  // data() and parents() of an overlay for a uid of its base (out of line:
  // a store read from JSON, the one a decision reads most, never calls them).
  const EntityData* BaseData(uint32_t uid) const;
  std::span<const uint32_t> BaseParents(uint32_t uid) const;
  const Override* OverrideOf(uint32_t uid) const {
    if (override_at_.empty()) return nullptr;
    auto it = override_at_.find(uid);
    return it == override_at_.end() ? nullptr : &overrides_[it->second];
  }
  const EntityRef* Intern(std::string_view type, std::string_view id);
  // FromJson's and ExtendFromJson's reading of the array's entities into
  // *parsed (entities/entity_store.cc).
  static absl::Status ReadEntityList(EntityStore* store, const JsonSource& src, const json::Value& root,
                                     const EntitiesOptions& options, const SchemaModel* schema,
                                     std::vector<ParsedEntity>* parsed, FirstIndex* first);
  // ExtendFromJson's and ExtendFromEntities's work once the entities are
  // read into *parsed: the base's entities checked and left to it, the
  // schema's actions added, the rest added parents first. `fault` makes the
  // error for an entity (its ParsedEntity::offset).
  using FaultAt = std::function<absl::Status(const char* code, uint32_t offset, std::string_view message)>;
  static absl::StatusOr<std::unique_ptr<EntityStore>> FinishExtend(std::unique_ptr<EntityStore> store,
                                                                  std::vector<ParsedEntity>* parsed,
                                                                  std::string_view source_name,
                                                                  const SchemaModel* schema, const FaultAt& fault);
  // Makes every key of `record` and of the records nested in it (in records
  // and sets) the store's one copy of that key, and marks those records.
  void InternKeys(Value* record);
  struct Key {
    std::string_view type, id;
    friend bool operator==(const Key& a, const Key& b) { return a.type == b.type && a.id == b.id; }
    template <typename H>
    friend H AbslHashValue(H h, const Key& k) {
      return H::combine(std::move(h), k.type, k.id);
    }
  };

  Arena arena_;
  // A store built in code: its base (may be null) and the base's uid count;
  // refs_, key_hashes_ and data_index_ are then indexed by uid - base_uids_.
  std::shared_ptr<const EntityStore> base_;
  uint32_t base_uids_ = 0;
  bool built_ = false;  // built in code: the hierarchy is in own_* below
  uint64_t key_generation_ = 0;
  std::vector<Range> own_parent_range_, own_ancestor_range_;  // by uid - base_uids_
  std::vector<uint32_t> own_parents_, own_ancestors_;        // ancestors sorted per entity
  std::vector<uint8_t> own_is_parent_;                        // by uid - base_uids_
  std::vector<Override> overrides_;
  absl::flat_hash_map<uint32_t, uint32_t> override_at_;  // base uid -> overrides_ index
  absl::flat_hash_set<uint32_t> base_parents_;  // base uids without data named as parents here
  std::vector<bool> has_children_;  // by uid, for a store read from JSON
  AncestorScratch build_scratch_;
  std::vector<const EntityRef*> refs_;
  std::vector<uint64_t> key_hashes_;  // uid - base_uids_ -> EntityKeyHash
  // uid by EntityKeyHash; an entity whose hash another already has is in
  // `collisions_` instead (so a lookup hashes no string and compares one).
  absl::flat_hash_map<uint64_t, uint32_t> index_;
  absl::flat_hash_map<Key, uint32_t> collisions_;
  absl::flat_hash_map<std::string_view, std::string_view> keys_;  // record keys, interned
  std::vector<int32_t> data_index_;  // uid -> entities_ index, or -1
  std::vector<EntityData> entities_;
  // The hierarchy, by uid: parents (CSR), post-order number, descendant intervals (CSR).
  std::vector<uint32_t> parent_begin_;  // num_uids + 1
  std::vector<uint32_t> parents_;
  std::vector<uint32_t> post_;
  std::vector<uint32_t> interval_at_;   // by uid: where its intervals start
  std::vector<uint32_t> interval_len_;  // by uid: how many it has (kUnindexed: none kept)
  std::vector<std::pair<uint32_t, uint32_t>> intervals_;  // [lo, hi] of post numbers
};

}  // namespace charter::internal

#endif  // CHARTER_ENTITIES_ENTITY_STORE_H_
