// The entity store: every entity of a request's world, built once from JSON
// and read by any number of concurrent evaluations. Each entity reference it
// knows (entities with data, their parents, entities named in attributes)
// has a uid index. `in` is answered without walking the hierarchy by
// interval labels (Agrawal, Borgida and Jagadish's compressed closure): a
// depth-first post-order numbering of the child graph, and for each uid the
// sorted, disjoint intervals of numbers of its descendants. A tree needs
// one interval an entity (a 100,000-deep chain: 100,000 intervals, where a
// full ancestor list would need 5 billion entries); a DAG needs more, never
// more than its closure, and at most EntitiesOptions::max_ancestor_intervals.
#ifndef CHARTER_ENTITIES_ENTITY_STORE_H_
#define CHARTER_ENTITIES_ENTITY_STORE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <span>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "absl/status/statusor.h"
#include "charter/entities.h"
#include "common/arena.h"
#include "value/value.h"

namespace charter::internal {

struct SchemaModel;

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
  const EntityRef& ref(uint32_t uid) const { return *refs_[uid]; }
  // The entity's data, or nullptr when the store has no entity with that uid.
  const EntityData* data(uint32_t uid) const {
    return uid < data_index_.size() && data_index_[uid] >= 0 ? &entities_[data_index_[uid]] : nullptr;
  }
  // Whether `ancestor` is a transitive parent of `uid` (not reflexive).
  bool HasAncestor(uint32_t uid, uint32_t ancestor) const;
  // Writes the transitive ancestors of `uid` to *out (in no particular
  // order), unless there are more than `limit`: then returns false and *out
  // holds some of them. Up to kSmallAncestorWalk, `scratch` needs no memory
  // per uid.
  static constexpr size_t kSmallAncestorWalk = 64;
  bool Ancestors(uint32_t uid, size_t limit, AncestorScratch* scratch,
                 std::vector<uint32_t>* out) const;
  // The direct parents of `uid`, as its entity JSON names them (deduplicated).
  std::span<const uint32_t> parents(uint32_t uid) const {
    return {parents_.data() + parent_begin_[uid], parent_begin_[uid + 1] - parent_begin_[uid]};
  }
  // The one copy of a record key that every record of this store's entity
  // attributes uses (records marked interned_keys), or nullptr when no
  // attribute record of the store has that key.
  const std::string_view* InternedKey(std::string_view key) const {
    auto it = keys_.find(key);
    return it == keys_.end() ? nullptr : &it->second;
  }
  // EntityKeyHash of the uid's type and id.
  uint64_t key_hash(uint32_t uid) const { return key_hashes_[uid]; }
  size_t size() const { return entities_.size(); }
  size_t num_uids() const { return refs_.size(); }

 private:
  const EntityRef* Intern(std::string_view type, std::string_view id);
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
  std::vector<const EntityRef*> refs_;
  std::vector<uint64_t> key_hashes_;  // uid -> EntityKeyHash
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
  std::vector<uint32_t> interval_begin_;  // num_uids + 1
  std::vector<std::pair<uint32_t, uint32_t>> intervals_;  // [lo, hi] of post numbers
};

}  // namespace charter::internal

#endif  // CHARTER_ENTITIES_ENTITY_STORE_H_
