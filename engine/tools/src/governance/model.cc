// The standard governance model as the reviews read an entity store.
#include "governance/model.h"

#include <algorithm>
#include <deque>

#include "common/strings.h"
#include "extensions/extensions.h"

namespace charter::internal::review {

ModelNames ModelNames::For(std::string_view connection_type) {
  ModelNames n;
  size_t colons = connection_type.rfind("::");
  n.ns = colons == std::string_view::npos ? "" : std::string(connection_type.substr(0, colons + 2));
  n.connection = std::string(connection_type);
  n.project = n.ns + "Project";
  n.cluster = n.ns + "Cluster";
  n.ns_type = n.ns + "Namespace";
  n.task = n.ns + "Task";
  n.member = n.ns + "Member";
  n.identity = n.ns + "Identity";
  n.team = n.ns + "Team";
  n.project_role = n.ns + "ProjectRole";
  n.cluster_role = n.ns + "ClusterRole";
  n.allocation = n.ns + "Allocation";
  n.priority_class = n.ns + "PriorityClass";
  n.profile = n.ns + "ProjectProfile";
  n.tool = n.ns + "Tool";
  n.account = n.ns + "Account";
  n.auditor = n.ns + "Auditor";
  n.review_decision = n.ns + "ReviewDecision";
  n.action = n.ns + "Action";
  return n;
}

std::string ModelNames::Short(std::string_view type, std::string_view id) const {
  if (!ns.empty() && type.size() > ns.size() && type.substr(0, ns.size()) == ns) type.remove_prefix(ns.size());
  return EntityToCedar(type, id);
}

StoreIndex::StoreIndex(const EntityStore& store) : store_(store) {
  size_t n = store.num_uids();
  child_begin_.assign(n + 1, 0);
  for (uint32_t u = 0; u < n; ++u) {
    for (uint32_t p : store.parents(u)) ++child_begin_[p + 1];
  }
  for (size_t u = 0; u < n; ++u) child_begin_[u + 1] += child_begin_[u];
  children_.resize(child_begin_[n]);
  std::vector<uint32_t> fill(child_begin_.begin(), child_begin_.end() - 1);
  for (uint32_t u = 0; u < n; ++u) {
    for (uint32_t p : store.parents(u)) children_[fill[p]++] = u;
  }
  for (uint32_t u = 0; u < n; ++u) {
    if (store.data(u) != nullptr) by_type_[store.ref(u).type].push_back(u);
  }
  mark_.assign(n, 0);
}

const std::vector<uint32_t>& StoreIndex::OfType(std::string_view type) const {
  auto it = by_type_.find(type);
  return it == by_type_.end() ? none_ : it->second;
}

const Value* StoreIndex::Attr(uint32_t uid, std::initializer_list<std::string_view> path) const {
  if (uid == kNoUid) return nullptr;
  const EntityData* data = store_.data(uid);
  if (data == nullptr) return nullptr;
  const Value* v = &data->attrs;
  for (std::string_view name : path) {
    if (v->type == Type::kEntity) {
      uint32_t u = store_.Resolve(*v->entity);
      const EntityData* d = u == kNoUid ? nullptr : store_.data(u);
      if (d == nullptr) return nullptr;
      v = &d->attrs;
    }
    if (v->type != Type::kRecord) return nullptr;
    v = FindField(*v, name);
    if (v == nullptr) return nullptr;
  }
  return v;
}

uint32_t StoreIndex::EntityAt(uint32_t uid, std::initializer_list<std::string_view> path) const {
  const Value* v = Attr(uid, path);
  return v == nullptr ? kNoUid : UidOf(*v);
}

void StoreIndex::Descendants(uint32_t uid, std::vector<uint32_t>* out) const {
  if (uid == kNoUid) return;
  if (++stamp_ == 0) {
    std::fill(mark_.begin(), mark_.end(), 0);
    stamp_ = 1;
  }
  stack_.clear();
  stack_.push_back(uid);
  mark_[uid] = stamp_;
  while (!stack_.empty()) {
    uint32_t u = stack_.back();
    stack_.pop_back();
    out->push_back(u);
    for (uint32_t c : children(u)) {
      if (mark_[c] != stamp_) {
        mark_[c] = stamp_;
        stack_.push_back(c);
      }
    }
  }
}

std::vector<uint32_t> StoreIndex::PathUp(uint32_t from, uint32_t to) const {
  if (from == kNoUid || to == kNoUid) return {};
  if (from == to) return {from};
  if (!store_.HasAncestor(from, to)) return {};
  // Breadth first over parents, remembering where each uid came from.
  absl::flat_hash_map<uint32_t, uint32_t> came_from;
  std::deque<uint32_t> queue{from};
  came_from[from] = from;
  while (!queue.empty()) {
    uint32_t u = queue.front();
    queue.pop_front();
    for (uint32_t p : store_.parents(u)) {
      if (came_from.contains(p)) continue;
      came_from[p] = u;
      if (p == to) {
        std::vector<uint32_t> path{to};
        for (uint32_t at = to; at != from;) path.push_back(at = came_from[at]);
        std::reverse(path.begin(), path.end());
        return path;
      }
      queue.push_back(p);
    }
  }
  return {};
}

absl::StatusOr<int64_t> ParseDate(std::string_view text) {
  int64_t ms = 0;
  std::string error;
  if (!ext::ParseDatetime(text, &ms, &error)) {
    return absl::InvalidArgumentError(Cat("`", text, "` is not a date (YYYY-MM-DD): ", error));
  }
  return ms;
}

std::string FormatDate(int64_t ms) { return ext::FormatDatetime(ms); }

int64_t DaysBetween(int64_t from, int64_t to) {
  int64_t d = to - from;
  int64_t days = d / ext::kMillisPerDay;
  if (d % ext::kMillisPerDay != 0 && d < 0) --days;
  return days;
}

std::string Display(const Value& v) {
  switch (v.type) {
    case Type::kString:
      return std::string(v.string());
    case Type::kEntity:
      return std::string(v.entity->id);
    case Type::kDatetime:
      return FormatDate(v.i);
    case Type::kSet: {
      if (v.size == 0) return "none";
      std::vector<std::string> items;
      for (uint32_t i = 0; i < v.size; ++i) items.push_back(Display(v.elements[i]));
      std::sort(items.begin(), items.end());
      std::string out;
      for (const std::string& s : items) CatAppend(&out, out.empty() ? "" : ", ", s);
      return out;
    }
    default:
      return ToCedar(v);
  }
}

}  // namespace charter::internal::review
