// Builds the entity store from Cedar's JSON entity format: uids, attributes,
// parents and tags; duplicate and cyclic input is an error, as in Cedar.
#include "entities/entity_store.h"

#include <algorithm>
#include <iterator>
#include <cstdint>
#include <set>

#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "common/diagnostic_codes.h"
#include "common/strings.h"
#include "common/status_macros.h"
#include "entities/json_values.h"
#include "json/json.h"
#include "json/json_diagnostics.h"
#include "schema/schema_model.h"

namespace charter::internal {

namespace {

// interval_len_ of a uid whose descendants the index does not keep: `in` on
// it walks up from the descendant instead (see FromJson).
constexpr uint32_t kUnindexed = 0xFFFFFFFF;

// The index keeps at most this many intervals for each uid and each parent
// link of the input, and this many more (8 bytes each; a tree needs one a
// uid, and is always indexed whole).
constexpr size_t kIntervalsPerItem = 8;
constexpr size_t kIntervalsAtLeast = size_t{1} << 20;

}  // namespace

const EntityRef* EntityStore::Intern(std::string_view type, std::string_view id) {
  uint64_t hash = EntityKeyHash(type, id);
  uint32_t found = Find(type, id, hash);
  if (found != kNoUid) return &ref(found);
  uint32_t uid = static_cast<uint32_t>(base_uids_ + refs_.size());
  EntityRef* ref = arena_.New<EntityRef>();
  ref->type = arena_.CopyString(type);
  ref->id = arena_.CopyString(id);
  ref->uid = uid;
  ref->key_hash = hash;
  refs_.push_back(ref);
  key_hashes_.push_back(hash);
  if (built_) {
    data_index_.push_back(-1);
    own_parent_range_.emplace_back();
    own_ancestor_range_.emplace_back();
    own_is_parent_.push_back(0);
  }
  if (!index_.emplace(hash, uid).second) collisions_.emplace(Key{ref->type, ref->id}, uid);
  return ref;
}

uint32_t EntityStore::Find(std::string_view type, std::string_view id, uint64_t hash) const {
  auto it = index_.find(hash);
  if (it != index_.end()) {
    const EntityRef& r = *refs_[it->second - base_uids_];
    if (r.id == id && r.type == type) return it->second;
  }
  if (!collisions_.empty()) {
    auto c = collisions_.find(Key{type, id});
    if (c != collisions_.end()) return c->second;
  }
  return base_ != nullptr ? base_->Find(type, id, hash) : kNoUid;
}

bool EntityStore::HasAncestor(uint32_t uid, uint32_t ancestor) const {
  if (built_) {
    // INVARIANT: no entity of the base has a parent in this store, and no
    // entity of the base has an overridden uid as an ancestor (an override
    // is for a uid that is no entity's parent in the base).
    const Override* o = uid < base_uids_ ? OverrideOf(uid) : nullptr;
    if (uid < base_uids_ && o == nullptr) return ancestor < base_uids_ && base_->HasAncestor(uid, ancestor);
    uint32_t local = uid - base_uids_;
    if (o == nullptr && local >= own_ancestor_range_.size()) return false;
    std::span<const uint32_t> list = OwnRange(own_ancestors_, o != nullptr ? o->ancestors : own_ancestor_range_[local]);
    return std::binary_search(list.begin(), list.end(), ancestor);
  }
  if (uid == ancestor || uid >= post_.size() || ancestor >= post_.size()) return false;
  uint32_t x = post_[uid];
  if (interval_len_[ancestor] == kUnindexed) {
    // The index keeps no intervals for `ancestor`: walk up from `uid`. Only
    // uids numbered below it in post order can be on the way (a parent is
    // numbered after each of its children), and each is visited once.
    const uint32_t top = post_[ancestor];
    if (x > top) return false;
    absl::InlinedVector<uint32_t, 32> stack{uid};
    absl::InlinedVector<uint32_t, 32> seen{uid};  // while small; then `many`
    absl::flat_hash_set<uint32_t> many;
    while (!stack.empty()) {
      const uint32_t at = stack.back();
      stack.pop_back();
      for (uint32_t k = parent_begin_[at]; k < parent_begin_[at + 1]; ++k) {
        const uint32_t q = parents_[k];
        if (q == ancestor) return true;
        if (post_[q] > top) continue;
        if (many.empty()) {
          if (std::find(seen.begin(), seen.end(), q) != seen.end()) continue;
          seen.push_back(q);
          if (seen.size() > 64) many.insert(seen.begin(), seen.end());
        } else if (!many.insert(q).second) {
          continue;
        }
        stack.push_back(q);
      }
    }
    return false;
  }
  const std::pair<uint32_t, uint32_t>* begin = intervals_.data() + interval_at_[ancestor];
  const std::pair<uint32_t, uint32_t>* end = begin + interval_len_[ancestor];
  // The last interval starting at or before x.
  const auto* it = std::upper_bound(begin, end, x,
                                    [](uint32_t v, const std::pair<uint32_t, uint32_t>& iv) {
                                      return v < iv.first;
                                    });
  return it != begin && x <= (it - 1)->second;
}

std::unique_ptr<EntityStore> EntityStore::Overlay(std::shared_ptr<const EntityStore> base) {
  auto store = std::make_unique<EntityStore>();
  // An overlay usually holds a few entities (a request's): a small first
  // block, growing as the arena does.
  store->arena_ = Arena(2048);
  store->built_ = true;
  store->base_uids_ = base != nullptr ? static_cast<uint32_t>(base->num_uids()) : 0;
  store->base_ = std::move(base);
  return store;
}

const EntityRef* EntityStore::Ref(std::string_view type, std::string_view id) { return Intern(type, id); }

std::string_view EntityStore::InternKey(std::string_view key) {
  auto it = keys_.find(key);
  if (it != keys_.end()) return it->second;
  if (base_ != nullptr) {
    if (const std::string_view* k = base_->InternedKey(key)) return *k;
  }
  std::string_view copy = arena_.CopyString(key);
  keys_.emplace(copy, copy);
  ++key_generation_;
  return copy;
}

Value EntityStore::Record(std::span<const RecordField> fields, bool intern) {
  RecordField* out = arena_.AllocateArray<RecordField>(fields.size());
  for (size_t i = 0; i < fields.size(); ++i) {
    out[i] = fields[i];
    if (intern) out[i].key = InternKey(fields[i].key);
  }
  std::sort(out, out + fields.size(), [](const RecordField& a, const RecordField& b) { return a.key < b.key; });
  Value v = Value::Record(out, static_cast<uint32_t>(fields.size()));
  v.interned_keys = intern;
  return v;
}

absl::Status EntityStore::Add(const EntityRef* self, Value attrs, Value tags, std::span<const uint32_t> parents) {
  if (!built_) return absl::FailedPreconditionError("entities are added one by one only to a store built in code");
  const uint32_t uid = self->uid;
  if (uid == kNoUid || uid >= num_uids() || &ref(uid) != self) {
    return absl::InvalidArgumentError(Cat("entity ", EntityToCedar(self->type, self->id), " is not a reference of this store"));
  }
  // The entity goes to its own slot, or, for a uid of the base that the
  // base names without data and as no entity's parent, to an override
  // (made last, once nothing can fail).
  const bool override = uid < base_uids_;
  if (override) {
    if (base_->data(uid) != nullptr || base_->HasChildren(uid) || OverrideOf(uid) != nullptr) {
      return absl::InvalidArgumentError(Cat("entity ", EntityToCedar(self->type, self->id), " belongs to the base store"));
    }
  } else if (data_index_[uid - base_uids_] >= 0) {
    return absl::InvalidArgumentError(Cat("entity ", EntityToCedar(self->type, self->id), " is already in the store"));
  }
  if (override ? base_parents_.contains(uid) : own_is_parent_[uid - base_uids_] != 0) {
    return absl::InvalidArgumentError(Cat("entity ", EntityToCedar(self->type, self->id),
                                          " is already the parent of an entity; add an entity before its children"));
  }
  for (uint32_t p : parents) {
    if (p >= num_uids() || p == uid) {
      return absl::InvalidArgumentError(Cat("entity ", EntityToCedar(self->type, self->id), " has a parent that is not in the store"));
    }
  }
  // Parents, sorted and unique; then every ancestor: each parent and its
  // ancestors, from the base's hierarchy or from the lists kept here.
  Range pr{static_cast<uint32_t>(own_parents_.size()), 0};
  own_parents_.insert(own_parents_.end(), parents.begin(), parents.end());
  std::sort(own_parents_.begin() + pr.begin, own_parents_.end());
  own_parents_.erase(std::unique(own_parents_.begin() + pr.begin, own_parents_.end()), own_parents_.end());
  pr.size = static_cast<uint32_t>(own_parents_.size() - pr.begin);
  Range ar{static_cast<uint32_t>(own_ancestors_.size()), 0};
  std::vector<uint32_t> walk;
  for (uint32_t i = pr.begin; i < pr.begin + pr.size; ++i) {
    const uint32_t p = own_parents_[i];
    own_ancestors_.push_back(p);
    auto found = p < base_uids_ ? override_at_.find(p) : override_at_.end();
    Override* o = found != override_at_.end() ? &overrides_[found->second] : nullptr;
    if (p < base_uids_ && o == nullptr) {
      if (base_->data(p) == nullptr) base_parents_.insert(p);  // it may not gain data later
      // A short walk first: it needs no mark for each of the base's uids,
      // which a new overlay (one a request) would otherwise allocate.
      if (!base_->Ancestors(p, kSmallAncestorWalk, &build_scratch_, &walk)) {
        base_->Ancestors(p, SIZE_MAX, &build_scratch_, &walk);
      }
      own_ancestors_.insert(own_ancestors_.end(), walk.begin(), walk.end());
    } else {
      if (o != nullptr) {
        o->is_parent = 1;
      } else {
        own_is_parent_[p - base_uids_] = 1;
      }
      const Range r = o != nullptr ? o->ancestors : own_ancestor_range_[p - base_uids_];
      // INVARIANT: r lies before the range being built (p was added earlier).
      for (uint32_t k = r.begin; k < r.begin + r.size; ++k) own_ancestors_.push_back(own_ancestors_[k]);
    }
  }
  std::sort(own_ancestors_.begin() + ar.begin, own_ancestors_.end());
  own_ancestors_.erase(std::unique(own_ancestors_.begin() + ar.begin, own_ancestors_.end()), own_ancestors_.end());
  ar.size = static_cast<uint32_t>(own_ancestors_.size() - ar.begin);
  if (override) {
    override_at_.emplace(uid, static_cast<uint32_t>(overrides_.size()));
    overrides_.push_back(Override{static_cast<int32_t>(entities_.size()), pr, ar, 0});
  } else {
    const uint32_t local = uid - base_uids_;
    own_parent_range_[local] = pr;
    own_ancestor_range_[local] = ar;
    data_index_[local] = static_cast<int32_t>(entities_.size());
  }
  entities_.push_back(EntityData{attrs, tags});
  return absl::OkStatus();
}

const EntityData* EntityStore::BaseData(uint32_t uid) const {
  if (const Override* o = OverrideOf(uid)) return &entities_[o->data];
  return base_->data(uid);
}

std::span<const uint32_t> EntityStore::BaseParents(uint32_t uid) const {
  if (const Override* o = OverrideOf(uid)) return OwnRange(own_parents_, o->parents);
  return base_->parents(uid);
}

bool EntityStore::HasChildren(uint32_t uid) const {
  if (built_) {
    if (uid < base_uids_) {
      if (const Override* o = OverrideOf(uid)) return o->is_parent != 0;
      return base_->HasChildren(uid);
    }
    uint32_t local = uid - base_uids_;
    return local < own_is_parent_.size() && own_is_parent_[local] != 0;
  }
  return uid < has_children_.size() && has_children_[uid];
}

bool EntityStore::Ancestors(uint32_t uid, size_t limit, AncestorScratch* scratch,
                            std::vector<uint32_t>* out) const {
  if (built_) {
    const Override* o = uid < base_uids_ ? OverrideOf(uid) : nullptr;
    if (uid < base_uids_ && o == nullptr) return base_->Ancestors(uid, limit, scratch, out);
    out->clear();
    uint32_t local = uid - base_uids_;
    if (o == nullptr && local >= own_ancestor_range_.size()) return true;
    std::span<const uint32_t> list = OwnRange(own_ancestors_, o != nullptr ? o->ancestors : own_ancestor_range_[local]);
    const bool all = list.size() <= limit;
    out->assign(list.begin(), all ? list.end() : list.begin() + static_cast<std::ptrdiff_t>(limit));
    return all;
  }
  out->clear();
  if (uid >= post_.size()) return true;
  // A depth-first walk up the parents; `reached(p)` says whether p was
  // reached before, and remembers it if not.
  auto walk = [&](auto reached) {
    std::vector<uint32_t>& stack = scratch->stack;
    stack.clear();
    stack.push_back(uid);
    while (!stack.empty()) {
      uint32_t u = stack.back();
      stack.pop_back();
      for (uint32_t k = parent_begin_[u]; k < parent_begin_[u + 1]; ++k) {
        uint32_t p = parents_[k];
        if (reached(p)) continue;
        if (out->size() == limit) return false;
        out->push_back(p);
        stack.push_back(p);
      }
    }
    return true;
  };
  if (limit <= kSmallAncestorWalk) {
    // A short walk (the scope index's) looks in `out` itself: no mark per
    // uid, so a fresh scratch costs nothing.
    return walk([out](uint32_t p) { return std::find(out->begin(), out->end(), p) != out->end(); });
  }
  if (scratch->mark.size() < post_.size()) scratch->mark.resize(post_.size(), 0);
  if (++scratch->stamp == 0) {  // wrapped: forget every old mark
    std::fill(scratch->mark.begin(), scratch->mark.end(), 0);
    scratch->stamp = 1;
  }
  return walk([&mark = scratch->mark, stamp = scratch->stamp](uint32_t p) {
    if (mark[p] == stamp) return true;
    mark[p] = stamp;
    return false;
  });
}

// The document of an entity array, within the options' limits.
static absl::StatusOr<json::Document> ParseEntityArray(std::string_view json, std::string_view source_name,
                                                       const EntitiesOptions& options) {
  if (json.size() > options.max_input_bytes) {
    return absl::InvalidArgumentError(Cat(source_name, ": ", json.size(), " bytes, more than the limit of ",
                                          options.max_input_bytes));
  }
  json::ParseOptions parse_options;
  parse_options.max_depth = options.max_nesting + 8;
  json::ParseFault fault;
  absl::StatusOr<json::Document> doc = json::Parse(json, parse_options, &fault);
  if (!doc.ok()) return json::ParseFaultStatus(source_name, json, fault, codes::CH0600, codes::CH0601);
  const json::Value& root = doc->root();
  if (!root.is_array()) {
    return JsonSource{source_name, json}.Error(codes::CH0602, root.offset(),
                                               "entities must be a JSON array of entity objects");
  }
  return doc;
}

// One entity of a JSON array, as read.
struct ParsedEntity {
  uint32_t uid;
  uint32_t offset;
  Value attrs;
  Value tags;
  std::vector<uint32_t> parents;  // sorted, unique
};

// Where each uid's entity is in the parsed list (-1: none): by uid for the
// store's own uids, in a map for the base's (an overlay reads a few
// entities over a base of any size).
struct FirstIndex {
  uint32_t base_uids = 0;
  std::vector<int32_t> local;                     // by uid - base_uids
  absl::flat_hash_map<uint32_t, int32_t> based;  // uid < base_uids
  int32_t& at(uint32_t uid) {
    if (uid < base_uids) return based.try_emplace(uid, -1).first->second;
    uint32_t k = uid - base_uids;
    if (k >= local.size()) local.resize(k + 1, -1);
    return local[k];
  }
};

// What the schema says of an entity's uid: "" when it may be in a store
// (a declared action; a declared entity type, with an id among its values
// when enumerated), else why not. Sets *info to its type's (null for an
// action).
std::string SchemaUidFault(const SchemaModel& schema, std::string_view type, std::string_view id, bool is_action,
                           const EntityTypeInfo** info) {
  std::string where = Cat("entity ", EntityToCedar(type, id));
  std::string type_name(type);
  *info = nullptr;
  if (is_action) {
    if (schema.FindAction({type_name, std::string(id)}) == nullptr) return Cat(where, " is not an action of the schema");
    return "";
  }
  *info = schema.FindEntityType(type_name);
  if (*info == nullptr) return Cat(where, ": the schema declares no entity type `", type, "`");
  if ((*info)->is_enum && std::find((*info)->choices.begin(), (*info)->choices.end(), id) == (*info)->choices.end()) {
    return Cat(where, ": `", id, "` is not one of the values of enumerated type `", type, "`");
  }
  return "";
}

// What the schema (and Cedar) say of a parent: "" when the entity of `type`
// and `id` (of entity type `info`, null for an action or without a schema)
// may have it, else why not.
std::string ParentFault(const SchemaModel* schema, std::string_view type, std::string_view id, bool is_action,
                        const EntityTypeInfo* info, std::string_view ptype, std::string_view pid) {
  std::string parent_type(ptype);
  if (is_action && !IsActionType(parent_type)) {
    return Cat("action ", EntityToCedar(type, id), " cannot have the parent ", EntityToCedar(ptype, pid),
               ", which is not an action");
  }
  if (info == nullptr) return "";
  std::string where = Cat("entity ", EntityToCedar(type, id));
  const EntityTypeInfo* pinfo = schema->FindEntityType(parent_type);
  if (pinfo == nullptr || pinfo->descendants.count(std::string(type)) == 0) {
    return Cat(where, ": `", type, "` cannot be a member of `", EntityToCedar(ptype, pid), "` according to the schema");
  }
  if (pinfo->is_enum && std::find(pinfo->choices.begin(), pinfo->choices.end(), pid) == pinfo->choices.end()) {
    return Cat(where, ": parent `", EntityToCedar(ptype, pid), "` is not one of the values of enumerated type `", ptype,
               "`");
  }
  return "";
}

// An entity type's attributes as a record type, made once a type.
const SchemaType& ShapeOf(const EntityTypeInfo* info,
                          absl::flat_hash_map<const EntityTypeInfo*, SchemaType>* shapes) {
  auto [it, added] = shapes->try_emplace(info);
  if (added) {
    it->second.kind = SchemaType::Kind::kRecord;
    it->second.attrs = info->attrs;
    it->second.open = info->open_attrs;
  }
  return it->second;
}

// Adds `p` to *parsed, its parents sorted and unique, unless an entity with
// its uid is there already: an identical one is accepted (and dropped), a
// different one returns false.
bool KeepFirst(ParsedEntity p, std::vector<ParsedEntity>* parsed, FirstIndex* first) {
  std::sort(p.parents.begin(), p.parents.end());
  p.parents.erase(std::unique(p.parents.begin(), p.parents.end()), p.parents.end());
  int32_t& slot = first->at(p.uid);
  if (slot >= 0) {
    const ParsedEntity& q = (*parsed)[slot];
    return Equal(p.attrs, q.attrs) && Equal(p.tags, q.tags) && p.parents == q.parents;
  }
  slot = static_cast<int32_t>(parsed->size());
  parsed->push_back(std::move(p));
  return true;
}

void EntityStore::InternKeys(Value* record) {
  // INVARIANT: the values were just read into this store's arena and are
  // not shared yet, so they may still be changed. Nesting is bounded by
  // EntitiesOptions::max_nesting; the walk uses an explicit stack anyway.
  std::vector<Value*> stack{record};
  while (!stack.empty()) {
    Value* v = stack.back();
    stack.pop_back();
    if (v->type == Type::kSet) {
      Value* elements = const_cast<Value*>(v->elements);
      for (uint32_t i = 0; i < v->size; ++i) stack.push_back(&elements[i]);
      continue;
    }
    if (v->type != Type::kRecord) continue;
    v->interned_keys = true;
    RecordField* fields = const_cast<RecordField*>(v->fields);
    for (uint32_t i = 0; i < v->size; ++i) {
      // An overlay's keys are its base's copies where the base has them.
      fields[i].key = built_ ? InternKey(fields[i].key) : keys_.try_emplace(fields[i].key, fields[i].key).first->second;
      stack.push_back(&fields[i].value);
    }
  }
}

absl::Status EntityStore::ReadEntityList(EntityStore* store, const JsonSource& src, const json::Value& root,
                                         const EntitiesOptions& options, const SchemaModel* schema,
                                         std::vector<ParsedEntity>* parsed, FirstIndex* first) {
  EntityInterner intern = [s = store](std::string_view t, std::string_view i) {
    return s->Intern(t, i);
  };
  parsed->reserve(root.size());
  ValueReader reader(src, &store->arena_, intern, options.max_nesting, schema);
  // With a schema: each entity type's attributes as a record type, made once.
  absl::flat_hash_map<const EntityTypeInfo*, SchemaType> shapes;
  const Value empty_record = Value::Record(nullptr, 0);
  for (size_t n = 0; n < root.size(); ++n) {
    const json::Value& e = root.at(n);
    if (!e.is_object()) return src.Error(codes::CH0602, e.offset(), "an entity must be a JSON object");
    // Other keys are ignored, as Cedar ignores them.
    const json::Value* uid = e.Find("uid");
    const json::Value* attrs = e.Find("attrs");
    const json::Value* parents = e.Find("parents");
    const json::Value* tags = e.Find("tags");
    if (uid == nullptr) return src.Error(codes::CH0603, e.offset(), "an entity lacks `uid`");
    if (attrs == nullptr) return src.Error(codes::CH0603, e.offset(), "an entity lacks `attrs`");
    if (parents == nullptr) return src.Error(codes::CH0603, e.offset(), "an entity lacks `parents`");
    ParsedEntity p;
    p.offset = e.offset();
    std::string_view type, id;
    RETURN_IF_ERROR(ReadEntityUidJson(*uid, src, "an entity's `uid`", &type, &id));
    const EntityRef* self = store->Intern(type, id);
    p.uid = self->uid;
    std::string type_name(type);
    bool is_action = IsActionType(type_name);
    const EntityTypeInfo* info = nullptr;
    std::string where;
    if (schema != nullptr) {
      where = Cat("entity ", EntityToCedar(type, id));
      std::string fault = SchemaUidFault(*schema, type, id, is_action, &info);
      if (!fault.empty()) return src.Error(codes::CH0608, uid->offset(), fault);
    }
    if (info == nullptr) {
      // Without a schema, and for actions (whose attributes the schema does
      // not describe; they must have none, see below).
      ASSIGN_OR_RETURN(p.attrs, reader.ReadRecord(*attrs, "`attrs`"));
      if (tags != nullptr) {
        ASSIGN_OR_RETURN(p.tags, reader.ReadRecord(*tags, "`tags`"));
      } else {
        p.tags = empty_record;
      }
    } else {
      // Schema-directed: each attribute for its declared type.
      const SchemaType& shape = ShapeOf(info, &shapes);
      if (!attrs->is_object()) return src.Error(codes::CH0602, attrs->offset(), "`attrs` must be a JSON object");
      ASSIGN_OR_RETURN(p.attrs, reader.ReadTyped(*attrs, shape, where, "attribute"));
      p.tags = empty_record;
      if (tags != nullptr) {
        if (!tags->is_object()) return src.Error(codes::CH0602, tags->offset(), "`tags` must be a JSON object");
        if (tags->size() > 0 && info->tags == nullptr) {
          return src.KeyError(codes::CH0608, tags->key_offset(0), Cat(where, ": entity type `", type, "` has no tags"));
        }
        if (tags->size() > 0) {
          SchemaType all_tags;
          all_tags.kind = SchemaType::Kind::kRecord;
          all_tags.open = false;
          for (size_t k = 0; k < tags->size(); ++k) all_tags.attrs[std::string(tags->key(k))] = {info->tags, true};
          ASSIGN_OR_RETURN(p.tags, reader.ReadTyped(*tags, all_tags, where, "tag"));
        }
      }
    }
    store->InternKeys(&p.attrs);
    if (!parents->is_array()) return src.Error(codes::CH0602, parents->offset(), "`parents` must be a JSON array");
    for (size_t k = 0; k < parents->size(); ++k) {
      std::string_view ptype, pid;
      RETURN_IF_ERROR(ReadEntityUidJson(parents->at(k), src, "a parent", &ptype, &pid));
      // The parent's type may hold this entity, and its id is valid.
      std::string fault = ParentFault(schema, type, id, is_action, info, ptype, pid);
      if (!fault.empty()) {
        return src.Error(info == nullptr ? codes::CH0607 : codes::CH0608, parents->at(k).offset(), fault);
      }
      p.parents.push_back(store->Intern(ptype, pid)->uid);
    }
    if (schema != nullptr && is_action && (p.attrs.size > 0 || p.tags.size > 0)) {
      return src.Error(codes::CH0608, e.offset(), Cat(where, " has attributes or tags, which the schema's actions do not have"));
    }
    if (!KeepFirst(std::move(p), parsed, first)) {
      return src.Error(codes::CH0607, e.offset(), Cat("entity ", EntityToCedar(type, id),
                                                      " appears twice with different contents"));
    }
  }
  return absl::OkStatus();
}


absl::StatusOr<std::unique_ptr<EntityStore>> EntityStore::FromJson(std::string_view json,
                                                                   std::string_view source_name,
                                                                   const EntitiesOptions& options,
                                                                   const SchemaModel* schema) {
  ASSIGN_OR_RETURN(json::Document doc, ParseEntityArray(json, source_name, options));
  JsonSource src{source_name, json};
  const json::Value& root = doc.root();

  auto store = std::make_unique<EntityStore>();
  std::vector<ParsedEntity> parsed;
  FirstIndex first_index;
  RETURN_IF_ERROR(ReadEntityList(store.get(), src, root, options, schema, &parsed, &first_index));
  std::vector<int32_t>& first = first_index.local;  // uid -> index in parsed, or -1
  const Value empty_record = Value::Record(nullptr, 0);

  // Cycles, found by a depth-first walk up the parent relation with an
  // explicit stack; meeting an entity that is still open means a cycle.
  size_t num_uids = store->refs_.size();
  first.resize(num_uids, -1);
  enum : uint8_t { kNew, kOpen, kDone };
  std::vector<uint8_t> state(num_uids, kNew);
  for (size_t root_uid = 0; root_uid < num_uids; ++root_uid) {
    if (state[root_uid] != kNew || first[root_uid] < 0) continue;
    std::vector<std::pair<uint32_t, size_t>> stack{{static_cast<uint32_t>(root_uid), 0}};
    state[root_uid] = kOpen;
    while (!stack.empty()) {
      auto& [u, next] = stack.back();
      const std::vector<uint32_t>* parents = first[u] >= 0 ? &parsed[first[u]].parents : nullptr;
      if (parents != nullptr && next < parents->size()) {
        uint32_t p = (*parents)[next++];
        if (state[p] == kOpen) {
          return src.Error(codes::CH0607, parsed[first[u]].offset,
                           Cat("the entity hierarchy has a cycle through ",
                                        EntityToCedar(store->refs_[p]->type, store->refs_[p]->id)));
        }
        if (state[p] == kNew) {
          state[p] = kOpen;
          stack.push_back({p, 0});
        }
        continue;
      }
      state[u] = kDone;
      stack.pop_back();
    }
  }

  if (schema != nullptr) {
    // With a schema the actions and their groups are the schema's. One the
    // data lists must be the schema's exactly: no attributes or tags
    // (checked above), and the same ancestors through the data's own
    // hierarchy. Then every action of the schema joins the store, with the
    // schema's parents.
    std::vector<uint8_t> seen(num_uids, 0);
    std::vector<uint32_t> stack;
    for (ParsedEntity& p : parsed) {
      const EntityRef& ref = *store->refs_[p.uid];
      std::string type(ref.type);
      if (!IsActionType(type)) continue;
      const ActionInfo* action = schema->FindAction({type, std::string(ref.id)});
      std::set<ActionKey> ancestors;
      std::fill(seen.begin(), seen.end(), 0);
      stack.assign(p.parents.begin(), p.parents.end());
      while (!stack.empty()) {
        uint32_t u = stack.back();
        stack.pop_back();
        if (seen[u]) continue;
        seen[u] = 1;
        ancestors.insert({std::string(store->refs_[u]->type), std::string(store->refs_[u]->id)});
        if (first[u] >= 0) stack.insert(stack.end(), parsed[first[u]].parents.begin(), parsed[first[u]].parents.end());
      }
      size_t same = 0;  // the schema's ancestors the data lists too
      for (const ActionKey& k : action->ancestors) {
        if (ancestors.count(k) == 0) break;
        ++same;
      }
      if (same != ancestors.size() || std::next(action->ancestors.begin(), static_cast<std::ptrdiff_t>(same)) !=
                                          action->ancestors.end()) {
        return src.Error(codes::CH0608, p.offset, Cat("action ", EntityToCedar(ref.type, ref.id),
                                       " has other groups in the entities than in the schema; leave it out of "
                                       "the entities to use the schema's"));
      }
    }
    for (const auto& [key, action] : schema->actions) {
      uint32_t uid = store->Intern(key.type, key.id)->uid;
      std::vector<uint32_t> parents;
      for (const ActionKey& q : action.parents) parents.push_back(store->Intern(q.type, q.id)->uid);
      std::sort(parents.begin(), parents.end());
      parents.erase(std::unique(parents.begin(), parents.end()), parents.end());
      first.resize(store->refs_.size(), -1);
      if (first[uid] >= 0) {
        parsed[first[uid]].parents = std::move(parents);
        continue;
      }
      ParsedEntity p;
      p.uid = uid;
      p.offset = 0;
      p.attrs = empty_record;
      p.tags = empty_record;
      p.parents = std::move(parents);
      first[uid] = static_cast<int32_t>(parsed.size());
      parsed.push_back(std::move(p));
    }
    num_uids = store->refs_.size();
    first.resize(num_uids, -1);
  }

  // Parents and children as CSR arrays.
  std::vector<uint32_t>& parent_begin = store->parent_begin_;
  parent_begin.assign(num_uids + 1, 0);
  std::vector<uint32_t> child_begin(num_uids + 1, 0);
  for (const ParsedEntity& p : parsed) {
    parent_begin[p.uid + 1] = static_cast<uint32_t>(p.parents.size());
    for (uint32_t q : p.parents) ++child_begin[q + 1];
  }
  for (size_t u = 0; u < num_uids; ++u) {
    parent_begin[u + 1] += parent_begin[u];
    child_begin[u + 1] += child_begin[u];
  }
  store->parents_.resize(parent_begin[num_uids]);
  store->has_children_.assign(num_uids, false);
  for (size_t u = 0; u < num_uids; ++u) store->has_children_[u] = child_begin[u + 1] != child_begin[u];
  std::vector<uint32_t> children(child_begin[num_uids]);
  std::vector<uint32_t> fill(child_begin.begin(), child_begin.end() - 1);
  for (const ParsedEntity& p : parsed) {
    std::copy(p.parents.begin(), p.parents.end(), store->parents_.begin() + parent_begin[p.uid]);
    for (uint32_t q : p.parents) children[fill[q]++] = p.uid;
  }

  // Post-order numbers over the child graph, from the uids without parents
  // (every uid is reached: the hierarchy is acyclic). A uid's subtree in
  // this walk is the interval [low, post].
  std::vector<uint32_t>& post = store->post_;
  post.assign(num_uids, kNoUid);
  std::vector<uint32_t> low(num_uids, 0);
  std::vector<uint32_t> order;  // uids in post order
  order.reserve(num_uids);
  {
    std::vector<std::pair<uint32_t, uint32_t>> stack;
    std::vector<uint8_t> seen(num_uids, 0);
    for (uint32_t r = 0; r < num_uids; ++r) {
      if (parent_begin[r + 1] != parent_begin[r] || seen[r]) continue;
      seen[r] = 1;
      low[r] = static_cast<uint32_t>(order.size());
      stack.push_back({r, child_begin[r]});
      while (!stack.empty()) {
        auto& [u, next] = stack.back();
        if (next < child_begin[u + 1]) {
          uint32_t c = children[next++];
          if (!seen[c]) {
            seen[c] = 1;
            low[c] = static_cast<uint32_t>(order.size());
            stack.push_back({c, child_begin[c]});
          }
          continue;
        }
        post[u] = static_cast<uint32_t>(order.size());
        order.push_back(u);
        stack.pop_back();
      }
    }
  }

  // Each uid's descendant intervals: its own subtree's, merged with its
  // children's (which come earlier in post order), kept where they are made
  // (interval_at_, interval_len_). A tree needs one a uid; a hierarchy whose
  // entities have several parents may need many more (a comb, many entities
  // each under a group and under a node of a long chain: quadratic). The
  // index is bounded by its input: at most kIntervalsPerItem for each uid
  // and parent link (and max_ancestor_intervals in all), and so is the work
  // of merging them. A uid whose intervals would take it past that, or with
  // a child that has none, keeps none (kUnindexed, and so do the uids above
  // it): `in` on it walks up from the descendant (HasAncestor).
  std::vector<uint32_t>& iv_at = store->interval_at_;
  std::vector<uint32_t>& iv_len = store->interval_len_;
  iv_at.assign(num_uids, 0);
  iv_len.assign(num_uids, 0);
  std::vector<std::pair<uint32_t, uint32_t>>& all = store->intervals_;
  all.clear();
  std::vector<std::pair<uint32_t, uint32_t>> pending;
  const size_t budget = std::min(options.max_ancestor_intervals,
                                 kIntervalsPerItem * (num_uids + store->parents_.size()) + kIntervalsAtLeast);
  size_t work = 0;
  for (uint32_t u : order) {
    iv_at[u] = static_cast<uint32_t>(all.size());
    bool indexed = true;
    pending.clear();
    pending.push_back({low[u], post[u]});
    size_t runs = 1;  // sorted runs in pending
    for (uint32_t k = child_begin[u]; k < child_begin[u + 1] && indexed; ++k) {
      uint32_t c = children[k];
      if (iv_len[c] == kUnindexed) {
        indexed = false;
        break;
      }
      work += iv_len[c];
      if (work > 2 * budget || all.size() + pending.size() + iv_len[c] > budget) {
        indexed = false;
        break;
      }
      size_t mid = pending.size();
      pending.insert(pending.end(), all.begin() + iv_at[c], all.begin() + iv_at[c] + iv_len[c]);
      // A few runs (most entities have a few children) are merged as they
      // come; many are sorted once.
      if (++runs <= 8) std::inplace_merge(pending.begin(), pending.begin() + static_cast<std::ptrdiff_t>(mid), pending.end());
    }
    if (!indexed) {
      iv_len[u] = kUnindexed;
      continue;
    }
    if (runs > 8) std::sort(pending.begin(), pending.end());
    for (const auto& iv : pending) {
      if (all.size() > iv_at[u] && iv.first <= all.back().second + 1) {
        all.back().second = std::max(all.back().second, iv.second);
      } else {
        all.push_back(iv);
      }
    }
    iv_len[u] = static_cast<uint32_t>(all.size() - iv_at[u]);
  }
  all.shrink_to_fit();

  store->data_index_.assign(num_uids, -1);
  store->entities_.reserve(parsed.size());
  for (const ParsedEntity& p : parsed) {
    EntityData d;
    d.attrs = p.attrs;
    d.tags = p.tags;
    store->data_index_[p.uid] = static_cast<int32_t>(store->entities_.size());
    store->entities_.push_back(d);
  }
  return store;
}

namespace {

// The parents of a base entity, sorted and unique (a store read from JSON
// keeps them as the JSON named them).
std::vector<uint32_t> SortedParents(const EntityStore& store, uint32_t uid) {
  std::span<const uint32_t> ps = store.parents(uid);
  std::vector<uint32_t> out(ps.begin(), ps.end());
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace

absl::StatusOr<std::unique_ptr<EntityStore>> EntityStore::ExtendFromJson(std::shared_ptr<const EntityStore> base,
                                                                         std::string_view json,
                                                                         std::string_view source_name,
                                                                         const EntitiesOptions& options,
                                                                         const SchemaModel* schema) {
  ASSIGN_OR_RETURN(json::Document doc, ParseEntityArray(json, source_name, options));
  JsonSource src{source_name, json};
  const json::Value& root = doc.root();

  std::unique_ptr<EntityStore> store = Overlay(std::move(base));
  std::vector<ParsedEntity> parsed;
  FirstIndex first;
  first.base_uids = store->base_uids_;
  RETURN_IF_ERROR(ReadEntityList(store.get(), src, root, options, schema, &parsed, &first));
  return FinishExtend(std::move(store), &parsed, source_name, schema,
                      [&src](const char* code, uint32_t offset, std::string_view message) {
                        return src.Error(code, offset, message);
                      });
}

absl::StatusOr<std::unique_ptr<EntityStore>> EntityStore::FinishExtend(std::unique_ptr<EntityStore> store,
                                                                       std::vector<ParsedEntity>* parsed_entities,
                                                                       std::string_view source_name,
                                                                       const SchemaModel* schema,
                                                                       const FaultAt& fault) {
  const uint32_t base_uids = store->base_uids_;
  std::vector<ParsedEntity>& parsed = *parsed_entities;

  // The base's entities: the same again is accepted (and left to the base);
  // another is refused. A uid the base names without data may gain data
  // here unless it is the parent of one of the base's entities (the base's
  // hierarchy cannot change).
  std::vector<ParsedEntity> own;
  own.reserve(parsed.size());
  for (ParsedEntity& p : parsed) {
    if (p.uid >= base_uids) {
      own.push_back(std::move(p));
      continue;
    }
    const EntityRef& ref = store->ref(p.uid);
    const EntityData* data = store->base_->data(p.uid);
    if (data == nullptr) {
      if (store->base_->HasChildren(p.uid)) {
        return fault(codes::CH0607, p.offset,
                         Cat("entity ", EntityToCedar(ref.type, ref.id),
                             " is a parent among the entities it extends, without data there; it cannot be given "
                             "data in an extension"));
      }
      own.push_back(std::move(p));
      continue;
    }
    if (!Equal(p.attrs, data->attrs) || !Equal(p.tags, data->tags) ||
        p.parents != SortedParents(*store->base_, p.uid)) {
      return fault(codes::CH0607, p.offset,
                       Cat("entity ", EntityToCedar(ref.type, ref.id),
                           " is already among the entities it extends, with different contents"));
    }
  }

  if (schema != nullptr) {
    // As FromJson: an action the data lists must have the schema's groups
    // (its ancestors through the data and the base), and the schema's
    // actions the base lacks join the overlay with the schema's parents.
    absl::flat_hash_map<uint32_t, size_t> own_at;
    for (size_t k = 0; k < own.size(); ++k) own_at[own[k].uid] = k;
    std::vector<uint32_t> walk;
    for (const ParsedEntity& p : own) {
      const EntityRef& ref = store->ref(p.uid);
      std::string type(ref.type);
      if (!IsActionType(type)) continue;
      const ActionInfo* action = schema->FindAction({type, std::string(ref.id)});
      std::set<ActionKey> ancestors;
      absl::flat_hash_set<uint32_t> seen;
      std::vector<uint32_t> stack(p.parents.begin(), p.parents.end());
      while (!stack.empty()) {
        uint32_t u = stack.back();
        stack.pop_back();
        if (!seen.insert(u).second) continue;
        ancestors.insert({std::string(store->ref(u).type), std::string(store->ref(u).id)});
        if (auto it = own_at.find(u); it != own_at.end()) {
          stack.insert(stack.end(), own[it->second].parents.begin(), own[it->second].parents.end());
        } else if (u < base_uids) {
          std::span<const uint32_t> ps = store->base_->parents(u);
          stack.insert(stack.end(), ps.begin(), ps.end());
        }
      }
      if (!std::equal(ancestors.begin(), ancestors.end(), action->ancestors.begin(), action->ancestors.end())) {
        return fault(codes::CH0608, p.offset, Cat("action ", EntityToCedar(ref.type, ref.id),
                                                      " has other groups in the entities than in the schema; leave "
                                                      "it out of the entities to use the schema's"));
      }
    }
    for (const auto& [key, action] : schema->actions) {
      uint32_t found = store->Find(key.type, key.id);
      if (found != kNoUid && found < base_uids && store->base_->data(found) != nullptr) continue;
      uint32_t uid = store->Intern(key.type, key.id)->uid;
      std::vector<uint32_t> parents;
      for (const ActionKey& q : action.parents) parents.push_back(store->Intern(q.type, q.id)->uid);
      std::sort(parents.begin(), parents.end());
      parents.erase(std::unique(parents.begin(), parents.end()), parents.end());
      if (auto it = own_at.find(uid); it != own_at.end()) {
        own[it->second].parents = std::move(parents);
        continue;
      }
      if (uid < base_uids && store->base_->HasChildren(uid)) {
        return absl::InvalidArgumentError(Cat(source_name, ": the schema's action ", EntityToCedar(key.type, key.id),
                                              " is a parent among the entities it extends, without data there"));
      }
      ParsedEntity p;
      p.uid = uid;
      p.offset = 0;
      p.attrs = Value::Record(nullptr, 0);
      p.tags = Value::Record(nullptr, 0);
      p.parents = std::move(parents);
      own_at[uid] = own.size();
      own.push_back(std::move(p));
    }
  }

  // Parents before children (the overlay's rule), found by a depth-first
  // walk up the parents among the new entities; meeting one that is still
  // open means a cycle. The base cannot lead back to them.
  absl::flat_hash_map<uint32_t, size_t> index_of;
  for (size_t k = 0; k < own.size(); ++k) index_of[own[k].uid] = k;
  enum : uint8_t { kNew, kOpen, kDone };
  std::vector<uint8_t> state(own.size(), kNew);
  std::vector<size_t> order;
  order.reserve(own.size());
  for (size_t root_k = 0; root_k < own.size(); ++root_k) {
    if (state[root_k] != kNew) continue;
    std::vector<std::pair<size_t, size_t>> stack{{root_k, 0}};
    state[root_k] = kOpen;
    while (!stack.empty()) {
      auto& [k, next] = stack.back();
      const std::vector<uint32_t>& ps = own[k].parents;
      if (next < ps.size()) {
        auto it = index_of.find(ps[next++]);
        if (it == index_of.end()) continue;
        const size_t q = it->second;
        if (state[q] == kOpen) {
          const EntityRef& r = store->ref(own[q].uid);
          return fault(codes::CH0607, own[k].offset,
                           Cat("the entity hierarchy has a cycle through ", EntityToCedar(r.type, r.id)));
        }
        if (state[q] == kNew) {
          state[q] = kOpen;
          stack.push_back({q, 0});
        }
        continue;
      }
      state[k] = kDone;
      order.push_back(k);
      stack.pop_back();
    }
  }
  for (size_t k : order) {
    ParsedEntity& p = own[k];
    RETURN_IF_ERROR(store->Add(&store->ref(p.uid), p.attrs, p.tags, p.parents));
  }
  return store;
}

absl::StatusOr<std::unique_ptr<EntityStore>> EntityStore::ExtendFromEntities(
    std::shared_ptr<const EntityStore> base, std::span<const charter::Entity> entities,
    std::string_view source_name, const EntitiesOptions& options, const SchemaModel* schema) {
  std::unique_ptr<EntityStore> store = Overlay(std::move(base));
  auto fail = [source_name](std::string_view message) {
    return absl::InvalidArgumentError(Cat(source_name, ": ", message));
  };
  std::vector<ParsedEntity> parsed;
  parsed.reserve(entities.size());
  FirstIndex first;
  first.base_uids = store->base_uids_;
  EntityStore* raw = store.get();
  EntityInterner intern = [raw](std::string_view t, std::string_view i) { return raw->Intern(t, i); };
  BuiltValueReader reader(source_name, &store->arena_, intern, options.max_nesting, schema);
  // With a schema: each entity type's attributes as a record type, made once.
  absl::flat_hash_map<const EntityTypeInfo*, SchemaType> shapes;
  for (size_t n = 0; n < entities.size(); ++n) {
    const charter::Entity& e = entities[n];
    const std::string& type = e.uid.type;
    const std::string& id = e.uid.id;
    // The entity, in messages (written only for a fault).
    auto where = [&e]() { return Cat("entity ", EntityToCedar(e.uid.type, e.uid.id)); };
    if (!IsValidEntityTypeName(type)) return fail(Cat(where(), ": `", type, "` is not a valid entity type name"));
    ParsedEntity p;
    p.offset = static_cast<uint32_t>(n);
    p.uid = store->Intern(type, id)->uid;
    const bool is_action = IsActionType(type);
    const EntityTypeInfo* info = nullptr;
    if (schema != nullptr) {
      std::string fault = SchemaUidFault(*schema, type, id, is_action, &info);
      if (!fault.empty()) return fail(fault);
    }
    p.tags = Value::Record(nullptr, 0);
    if (info == nullptr) {
      // Without a schema, and for actions (which may have none; see below).
      ASSIGN_OR_RETURN(p.attrs, reader.ReadRecord(e.attrs, nullptr, &e.uid, "attribute"));
      ASSIGN_OR_RETURN(p.tags, reader.ReadRecord(e.tags, nullptr, &e.uid, "tag"));
    } else {
      const SchemaType& shape = ShapeOf(info, &shapes);
      ASSIGN_OR_RETURN(p.attrs, reader.ReadRecord(e.attrs, &shape, &e.uid, "attribute"));
      if (!e.tags.empty()) {
        if (info->tags == nullptr) return fail(Cat(where(), ": entity type `", type, "` has no tags"));
        SchemaType all_tags;
        all_tags.kind = SchemaType::Kind::kRecord;
        all_tags.open = false;
        for (const auto& [key, value] : e.tags) all_tags.attrs[key] = {info->tags, true};
        ASSIGN_OR_RETURN(p.tags, reader.ReadRecord(e.tags, &all_tags, &e.uid, "tag"));
      }
    }
    store->InternKeys(&p.attrs);
    for (const EntityUid& parent : e.parents) {
      if (!IsValidEntityTypeName(parent.type)) {
        return fail(Cat(where(), ": parent `", parent.type, "` is not a valid entity type name"));
      }
      std::string fault = ParentFault(schema, type, id, is_action, info, parent.type, parent.id);
      if (!fault.empty()) return fail(fault);
      p.parents.push_back(store->Intern(parent.type, parent.id)->uid);
    }
    if (schema != nullptr && is_action && (p.attrs.size > 0 || p.tags.size > 0)) {
      return fail(Cat(where(), " has attributes or tags, which the schema's actions do not have"));
    }
    if (!KeepFirst(std::move(p), &parsed, &first)) return fail(Cat(where(), " appears twice with different contents"));
  }
  return FinishExtend(std::move(store), &parsed, source_name, schema,
                      [&fail](const char*, uint32_t, std::string_view message) { return fail(message); });
}

}  // namespace charter::internal
