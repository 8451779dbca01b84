// Builds the entity store from Cedar's JSON entity format: uids, attributes,
// parents and tags; duplicate and cyclic input is an error, as in Cedar.
#include "entities/entity_store.h"

#include <algorithm>

#include "common/strings.h"
#include "common/status_macros.h"
#include "entities/json_values.h"
#include "json/json.h"

namespace charter::internal {

const EntityRef* EntityStore::Intern(std::string_view type, std::string_view id) {
  auto it = index_.find(Key{type, id});
  if (it != index_.end()) return refs_[it->second];
  uint32_t uid = static_cast<uint32_t>(refs_.size());
  EntityRef* ref = arena_.New<EntityRef>();
  ref->type = arena_.CopyString(type);
  ref->id = arena_.CopyString(id);
  ref->uid = uid;
  refs_.push_back(ref);
  key_hashes_.push_back(EntityKeyHash(ref->type, ref->id));
  index_.emplace(Key{ref->type, ref->id}, uid);
  return ref;
}

uint32_t EntityStore::Find(std::string_view type, std::string_view id) const {
  auto it = index_.find(Key{type, id});
  return it == index_.end() ? kNoUid : it->second;
}

bool EntityStore::HasAncestor(uint32_t uid, uint32_t ancestor) const {
  const EntityData* d = data(uid);
  if (d == nullptr) return false;
  return std::binary_search(d->ancestors, d->ancestors + d->num_ancestors, ancestor);
}

bool EntityStore::Ancestors(uint32_t uid, size_t limit, AncestorScratch* scratch,
                            std::vector<uint32_t>* out) const {
  out->clear();
  const EntityData* d = data(uid);
  if (d == nullptr) return true;
  if (d->num_ancestors > limit) return false;
  out->assign(d->ancestors, d->ancestors + d->num_ancestors);
  return true;
}

namespace {

struct Parsed {
  uint32_t uid;
  uint32_t offset;
  Value attrs;
  Value tags;
  std::vector<uint32_t> parents;  // sorted, unique
};

}  // namespace

absl::StatusOr<std::unique_ptr<EntityStore>> EntityStore::FromJson(std::string_view json,
                                                                   std::string_view source_name,
                                                                   const EntitiesOptions& options) {
  if (json.size() > options.max_input_bytes) {
    return absl::InvalidArgumentError(Cat(source_name, ": ", json.size(),
                                                   " bytes, more than the limit of ",
                                                   options.max_input_bytes));
  }
  json::ParseOptions parse_options;
  parse_options.max_depth = options.max_nesting + 8;
  auto doc = json::Parse(json, parse_options);
  if (!doc.ok()) {
    return absl::InvalidArgumentError(Cat(source_name, ":", doc.status().message()));
  }
  JsonSource src{source_name, json};
  const json::Value& root = doc->root();
  if (!root.is_array()) return src.Error(root.offset(), "entities must be a JSON array of entity objects");

  auto store = std::make_unique<EntityStore>();
  EntityInterner intern = [s = store.get()](std::string_view t, std::string_view i) {
    return s->Intern(t, i);
  };
  std::vector<Parsed> parsed;
  parsed.reserve(root.size());
  std::vector<int32_t> first;  // uid -> index in parsed, or -1
  for (size_t n = 0; n < root.size(); ++n) {
    const json::Value& e = root.at(n);
    if (!e.is_object()) return src.Error(e.offset(), "an entity must be a JSON object");
    const json::Value* uid = nullptr;
    const json::Value* attrs = nullptr;
    const json::Value* parents = nullptr;
    const json::Value* tags = nullptr;
    for (size_t k = 0; k < e.size(); ++k) {
      std::string_view key = e.key(k);
      if (key == "uid") {
        uid = &e.member(k);
      } else if (key == "attrs") {
        attrs = &e.member(k);
      } else if (key == "parents") {
        parents = &e.member(k);
      } else if (key == "tags") {
        tags = &e.member(k);
      } else {
        return src.Error(e.key_offset(k), Cat("unexpected key `", key,
                                                       "` in an entity; expected `uid`, `attrs`, "
                                                       "`parents` or `tags`"));
      }
    }
    if (uid == nullptr) return src.Error(e.offset(), "an entity lacks `uid`");
    if (attrs == nullptr) return src.Error(e.offset(), "an entity lacks `attrs`");
    if (parents == nullptr) return src.Error(e.offset(), "an entity lacks `parents`");
    Parsed p;
    p.offset = e.offset();
    std::string_view type, id;
    RETURN_IF_ERROR(ReadEntityUid(*uid, src, "an entity's `uid`", &type, &id));
    p.uid = store->Intern(type, id)->uid;
    ASSIGN_OR_RETURN(p.attrs, ReadRecord(*attrs, src, &store->arena_, intern, options.max_nesting,
                                         "`attrs`"));
    if (tags != nullptr) {
      ASSIGN_OR_RETURN(p.tags, ReadRecord(*tags, src, &store->arena_, intern, options.max_nesting,
                                          "`tags`"));
    } else {
      p.tags = Value::Record(nullptr, 0);
    }
    if (!parents->is_array()) return src.Error(parents->offset(), "`parents` must be a JSON array");
    for (size_t k = 0; k < parents->size(); ++k) {
      std::string_view ptype, pid;
      RETURN_IF_ERROR(ReadEntityUid(parents->at(k), src, "a parent", &ptype, &pid));
      p.parents.push_back(store->Intern(ptype, pid)->uid);
    }
    std::sort(p.parents.begin(), p.parents.end());
    p.parents.erase(std::unique(p.parents.begin(), p.parents.end()), p.parents.end());
    if (first.size() < store->refs_.size()) first.resize(store->refs_.size(), -1);
    if (first[p.uid] >= 0) {
      // Identical duplicates are accepted; different ones are an error.
      const Parsed& q = parsed[first[p.uid]];
      if (!Equal(p.attrs, q.attrs) || !Equal(p.tags, q.tags) || p.parents != q.parents) {
        return src.Error(p.offset, Cat("entity ", EntityToCedar(type, id),
                                                " appears twice with different contents"));
      }
      continue;
    }
    first[p.uid] = static_cast<int32_t>(parsed.size());
    parsed.push_back(std::move(p));
  }

  // Transitive closure of the parent relation, in post-order with an explicit
  // stack; meeting an entity that is still open means a cycle.
  size_t num_uids = store->refs_.size();
  first.resize(num_uids, -1);
  enum : uint8_t { kNew, kOpen, kDone };
  std::vector<uint8_t> state(num_uids, kNew);
  std::vector<std::vector<uint32_t>> closure(num_uids);
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
          return src.Error(parsed[first[u]].offset,
                           Cat("the entity hierarchy has a cycle through ",
                                        EntityToCedar(store->refs_[p]->type, store->refs_[p]->id)));
        }
        if (state[p] == kNew) {
          state[p] = kOpen;
          stack.push_back({p, 0});
        }
        continue;
      }
      std::vector<uint32_t> all;
      if (parents != nullptr) {
        for (uint32_t p : *parents) {
          all.push_back(p);
          all.insert(all.end(), closure[p].begin(), closure[p].end());
        }
      }
      std::sort(all.begin(), all.end());
      all.erase(std::unique(all.begin(), all.end()), all.end());
      closure[u] = std::move(all);
      state[u] = kDone;
      stack.pop_back();
    }
  }

  store->data_index_.assign(num_uids, -1);
  store->entities_.reserve(parsed.size());
  for (const Parsed& p : parsed) {
    EntityData d;
    d.attrs = p.attrs;
    d.tags = p.tags;
    const std::vector<uint32_t>& anc = closure[p.uid];
    uint32_t* a = store->arena_.AllocateArray<uint32_t>(anc.size());
    std::copy(anc.begin(), anc.end(), a);
    d.ancestors = a;
    d.num_ancestors = static_cast<uint32_t>(anc.size());
    store->data_index_[p.uid] = static_cast<int32_t>(store->entities_.size());
    store->entities_.push_back(d);
  }
  return store;
}

}  // namespace charter::internal
