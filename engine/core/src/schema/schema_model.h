// The checked schema: every name resolved, common types inlined, hierarchies
// closed. The validator's types (Cedar's strict-mode type lattice) live here
// too, since the schema's attribute types are the same values.
#ifndef CHARTER_SCHEMA_SCHEMA_MODEL_H_
#define CHARTER_SCHEMA_SCHEMA_MODEL_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "charter/diagnostics.h"
#include "schema/schema_ast.h"

namespace charter {
struct SchemaOptions;  // charter/schema.h
}  // namespace charter

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

// The transitive closure of a hierarchy (entity types under memberOfTypes,
// or actions under memberOf), stored as interval labels: its members are
// numbered (ranks) in a depth-first post order of the child graph, the
// members of one cycle consecutively, and each member keeps the sorted,
// disjoint rank intervals of itself and every member below it. A chain or
// a tree needs one interval a member (a chain of 32,000 actions: 32,000
// intervals, where the closure as sets held half a billion entries, issue
// 15); a tangled DAG needs more, at most kMaxHierarchyIntervals (CH0412).
inline constexpr size_t kMaxHierarchyIntervals = size_t{1} << 22;

template <typename Key>
struct Hierarchy {
  std::vector<Key> keys;          // by node: sorted (the order of the model's map)
  std::vector<uint32_t> rank;     // node -> rank
  std::vector<uint32_t> by_rank;  // rank -> node
  std::vector<uint32_t> group;    // node -> its cycle (or itself): whose intervals it has
  std::vector<uint8_t> cyclic;    // node: below itself (on a cycle)
  std::vector<uint32_t> iv_begin;  // group -> its intervals: [iv_begin[g], iv_begin[g + 1])
  std::vector<std::pair<uint32_t, uint32_t>> intervals;  // [lo, hi] ranks

  // The node of `key`, or -1.
  int64_t Find(const Key& key) const {
    auto it = std::lower_bound(keys.begin(), keys.end(), key);
    return it == keys.end() || !(*it == key) ? -1 : it - keys.begin();
  }
  // Whether `node` is below `of` (reaches it along one or more edges).
  bool Below(uint32_t node, uint32_t of) const {
    if (node == of) return cyclic[of] != 0;
    uint32_t g = group[of];
    const auto* begin = intervals.data() + iv_begin[g];
    const auto* end = intervals.data() + iv_begin[g + 1];
    uint32_t r = rank[node];
    // The last interval starting at or before r.
    auto it = std::upper_bound(begin, end, r, [](uint32_t x, const std::pair<uint32_t, uint32_t>& iv) {
      return x < iv.first;
    });
    return it != begin && r <= (it - 1)->second;
  }
};

// The members below one member of a hierarchy (its descendants, or with the
// hierarchy reversed its ancestors), read from the shared closure: count()
// in logarithmic time, iteration in rank order (not key order) in time
// linear in the result. Empty until the schema is resolved.
template <typename Key>
class ReachSet {
 public:
  ReachSet() = default;
  ReachSet(std::shared_ptr<const Hierarchy<Key>> h, uint32_t node) : h_(std::move(h)), node_(node) {}

  size_t count(const Key& key) const {
    if (h_ == nullptr) return 0;
    int64_t n = h_->Find(key);
    return n >= 0 && h_->Below(static_cast<uint32_t>(n), node_) ? 1 : 0;
  }

  class iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = Key;
    using difference_type = std::ptrdiff_t;
    using pointer = const Key*;
    using reference = const Key&;
    iterator() = default;
    reference operator*() const { return h_->keys[h_->by_rank[pos_]]; }
    pointer operator->() const { return &**this; }
    iterator& operator++() {
      ++pos_;
      Settle();
      return *this;
    }
    iterator operator++(int) {
      iterator old = *this;
      ++*this;
      return old;
    }
    friend bool operator==(const iterator& a, const iterator& b) { return a.iv_ == b.iv_ && a.pos_ == b.pos_; }
    friend bool operator!=(const iterator& a, const iterator& b) { return !(a == b); }

   private:
    friend class ReachSet;
    using Interval = std::pair<uint32_t, uint32_t>;
    iterator(const Hierarchy<Key>* h, const Interval* iv, const Interval* end, uint32_t skip)
        : h_(h), iv_(iv), end_(end), pos_(iv != end ? iv->first : 0), skip_(skip) {
      Settle();
    }
    // Moves to the next rank in an interval that is not skipped.
    void Settle() {
      while (iv_ != end_) {
        if (pos_ > iv_->second) {
          ++iv_;
          pos_ = iv_ != end_ ? iv_->first : 0;
        } else if (pos_ == skip_) {
          ++pos_;
        } else {
          return;
        }
      }
    }
    const Hierarchy<Key>* h_ = nullptr;
    const Interval* iv_ = nullptr;
    const Interval* end_ = nullptr;
    uint32_t pos_ = 0;
    uint32_t skip_ = 0xFFFFFFFF;
  };

  iterator begin() const {
    if (h_ == nullptr) return iterator();
    uint32_t g = h_->group[node_];
    const auto* b = h_->intervals.data() + h_->iv_begin[g];
    const auto* e = h_->intervals.data() + h_->iv_begin[g + 1];
    return iterator(h_.get(), b, e, h_->cyclic[node_] != 0 ? 0xFFFFFFFF : h_->rank[node_]);
  }
  iterator end() const {
    if (h_ == nullptr) return iterator();
    uint32_t g = h_->group[node_];
    const auto* e = h_->intervals.data() + h_->iv_begin[g + 1];
    return iterator(h_.get(), e, e, 0xFFFFFFFF);
  }
  bool empty() const { return begin() == end(); }

 private:
  std::shared_ptr<const Hierarchy<Key>> h_;
  uint32_t node_ = 0;
};

struct EntityTypeInfo {
  std::string name;
  std::vector<std::string> parents;    // declared memberOfTypes, resolved
  ReachSet<std::string> descendants;   // types that may be (transitively) members of this one
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
  ReachSet<ActionKey> ancestors;        // transitive
  ReachSet<ActionKey> descendants;      // actions that are (transitively) in this one
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
// and action hierarchies. A type nested deeper than options.max_nesting once
// its common types are inlined is refused (CH0412).
bool Resolve(const schema::SchemaAst& ast, const SchemaOptions& options, SchemaModel* model,
             Diagnostics* diagnostics);

struct SchemaData {
  std::string source_name;
  schema::SchemaAst ast;
  SchemaModel model;
};

}  // namespace charter::internal

#endif  // CHARTER_SCHEMA_SCHEMA_MODEL_H_
