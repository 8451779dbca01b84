// The standard governance model as the reviews read an entity store: its
// type names (in the namespace the connection's type is in), each entity's
// children, the entities of each type, attribute paths, and dates.
#ifndef CHARTER_GOVERNANCE_MODEL_H_
#define CHARTER_GOVERNANCE_MODEL_H_

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "charter/entities.h"
#include "entities/entity_store.h"
#include "value/value.h"

namespace charter::internal::review {

// The model's entity types, with the namespace of `Governance::Connection`
// (a model extended under another namespace keeps the same type names).
struct ModelNames {
  std::string ns;  // "Governance::", or "" at the top level
  std::string connection, project, cluster, ns_type, task, member, identity, team, project_role,
      cluster_role, allocation, priority_class, profile, tool, account, auditor, review_decision, action;
  static ModelNames For(std::string_view connection_type);
  // `Type::"id"` with the model's namespace left off: `Member::"alice"`.
  std::string Short(std::string_view type, std::string_view id) const;
};

// A store indexed for reviews. Built once per review (linear in the store).
class StoreIndex {
 public:
  explicit StoreIndex(const EntityStore& store);
  const EntityStore& store() const { return store_; }

  // The uid of (type, id), or kNoUid.
  uint32_t Find(std::string_view type, std::string_view id) const { return store_.Find(type, id); }
  uint32_t Find(const EntityUid& uid) const { return store_.Find(uid.type, uid.id); }
  bool HasData(uint32_t uid) const { return uid != kNoUid && store_.data(uid) != nullptr; }
  // The entities with data of `type`, in the store's order.
  const std::vector<uint32_t>& OfType(std::string_view type) const;
  // The uids whose parents include `uid`.
  std::span<const uint32_t> children(uint32_t uid) const {
    return {children_.data() + child_begin_[uid], child_begin_[uid + 1] - child_begin_[uid]};
  }
  // Whether `uid` is `ancestor` or in it.
  bool In(uint32_t uid, uint32_t ancestor) const {
    return uid == ancestor || (uid != kNoUid && ancestor != kNoUid && store_.HasAncestor(uid, ancestor));
  }

  // The attribute at `path` of an entity's attributes (through records and
  // entities), or nullptr.
  const Value* Attr(uint32_t uid, std::initializer_list<std::string_view> path) const;
  // The uid of the entity an attribute path names (kNoUid when the value is
  // not an entity; the uid may have no data).
  uint32_t EntityAt(uint32_t uid, std::initializer_list<std::string_view> path) const;
  uint32_t UidOf(const Value& entity) const {
    return entity.type == Type::kEntity ? store_.Resolve(*entity.entity) : kNoUid;
  }

  // `uid` and everything in it, each once, appended to *out.
  void Descendants(uint32_t uid, std::vector<uint32_t>* out) const;
  // The shortest chain of parents from `from` up to `to`: from, ..., to;
  // empty when `from` is not in `to`.
  std::vector<uint32_t> PathUp(uint32_t from, uint32_t to) const;

  EntityUid Uid(uint32_t uid) const {
    const EntityRef& r = store_.ref(uid);
    return EntityUid{std::string(r.type), std::string(r.id)};
  }

 private:
  const EntityStore& store_;
  std::vector<uint32_t> child_begin_;
  std::vector<uint32_t> children_;
  absl::flat_hash_map<std::string_view, std::vector<uint32_t>> by_type_;
  std::vector<uint32_t> none_;  // OfType of a type without entities
  mutable std::vector<uint32_t> mark_;  // Descendants' visit stamps
  mutable uint32_t stamp_ = 0;
  mutable std::vector<uint32_t> stack_;
};

// Dates: milliseconds since the Unix epoch <-> "YYYY-MM-DD" (or a longer
// datetime() form when not at midnight UTC).
absl::StatusOr<int64_t> ParseDate(std::string_view text);
std::string FormatDate(int64_t ms);
// Whole days from `from` to `to`, rounded down.
int64_t DaysBetween(int64_t from, int64_t to);

// A value as a review message shows it: strings as they are, entities by
// their ids, sets as comma-separated lists ("none" when empty), datetimes as
// dates, records in Cedar's form.
std::string Display(const Value& v);

}  // namespace charter::internal::review

#endif  // CHARTER_GOVERNANCE_MODEL_H_
