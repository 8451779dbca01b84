// CheckWhole (declare.h): what only the whole scheduling configuration shows,
// none of which Kueue's API validation checks (docs/scheduling.md, "Checks
// of the whole configuration"). Kueue reads each quota tree with the
// formulas of resource_node.go (docs/scheduling.md, "The quota tree"):
//
//   localQuota(n)         = lend set ? max(0, SubtreeQuota(n) - lend) : 0
//   SubtreeQuota(cohort)  = nominal + sum over children (SubtreeQuota - localQuota)
//   potential(root)       = SubtreeQuota(root)
//   potential(n)          = min(localQuota(n) + potential(parent), borrow set ? SubtreeQuota(n) + borrow : inf)
//
// potential(n) is the most node n can ever use of a flavor's resource, so
// potential(parent) - (SubtreeQuota(n) - localQuota(n)) is the most it can
// ever borrow. From those:
//   CH0811 (error)   the nominal quotas of a flavor's resource, over every
//                    tree, exceed the capacity the flavor declares;
//   CH0812 (warning) a borrowing limit above the most the tree can lend;
//   CH0813 (warning) one resource written in different units in one tree
//                    (kubernetes/kubernetes#139677), or memory in `m`;
//   CH0814 (warning) a lending limit where no queue outside the lender can
//                    borrow that flavor's resource (without fair sharing).
// Every tree is walked in an order computed once (by depth), never by
// recursion: the configuration is user-shaped.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "common/diagnostic_codes.h"
#include "common/strings.h"
#include "cycle/quantity.h"
#include "language/declare.h"

namespace charter::internal {
namespace {

namespace sched = ::charter::schedule;
using schedule::FormatQuantity;
using schedule::SatAdd;
using schedule::SatSub;

constexpr int64_t kInfinity = INT64_MAX;

// One quota of one node, with its place.
struct Cell {
  const sched::ResourceQuota* quota = nullptr;
  const QuotaAt* at = nullptr;
  int flavor = 0;
};

// A cohort (0 .. cohorts-1) or a cluster queue (after them).
struct Node {
  int parent = -1;
  int root = 0;
  int depth = 0;
  const ObjectAt* at = nullptr;
  std::string what;  // "cluster queue `a`"
  bool queue = false;
  absl::flat_hash_map<uint64_t, Cell> cells;  // by Key(flavor, resource)
};

// How a quantity is written: what its suffix says of its unit.
enum class Unit : uint8_t { kPlain, kMilli, kDecimal, kBinary };

Unit UnitOf(std::string_view text) {
  if (text.size() >= 2 && text.front() == '"' && text.back() == '"') text = text.substr(1, text.size() - 2);
  size_t i = 0;
  while (i < text.size() && ((text[i] >= '0' && text[i] <= '9') || text[i] == '.' || text[i] == '+' || text[i] == '-')) ++i;
  std::string_view suffix = text.substr(i);
  if (suffix.empty()) return Unit::kPlain;
  if (suffix.size() > 1 && (suffix[0] == 'e' || suffix[0] == 'E') &&
      (suffix[1] == '+' || suffix[1] == '-' || (suffix[1] >= '0' && suffix[1] <= '9'))) {
    return Unit::kPlain;  // an exponent: 1e3
  }
  if (suffix == "m") return Unit::kMilli;
  if (suffix.size() == 2 && suffix[1] == 'i') return Unit::kBinary;
  return Unit::kDecimal;
}

std::string_view UnitName(Unit u) {
  switch (u) {
    case Unit::kPlain: return "no suffix";
    case Unit::kMilli: return "the suffix `m`";
    case Unit::kDecimal: return "decimal suffixes (k, M, G, T)";
    case Unit::kBinary: return "binary suffixes (Ki, Mi, Gi, Ti)";
  }
  return "";
}

class Whole {
 public:
  Whole(const std::vector<DeclarationFile>& files, const sched::State& state, const std::vector<ObjectAt>& cohorts,
        const std::vector<ObjectAt>& queues, const std::vector<CapacityAt>& capacities)
      : files_(files), state_(state), cohorts_at_(cohorts), queues_at_(queues), capacities_(capacities) {}

  void Run() {
    if (!Build()) return;
    Trees();
    Capacities();
    Borrowing();
    Lending();
    Units();
  }

 private:
  uint64_t Key(int flavor, int resource) const {
    return static_cast<uint64_t>(flavor) * state_.resources.size() + static_cast<uint64_t>(resource);
  }
  bool Milli(int resource) const { return state_.resources[resource] == "cpu"; }
  std::string Amount(int64_t v, int resource) const {
    return v == kInfinity ? std::string("unlimited") : FormatQuantity(v, Milli(resource));
  }

  std::string Where(size_t file, Span span, size_t from) const { return PlaceOf(files_, file, span, from); }
  std::string_view Text(size_t file, Span span) const {
    const SourceFile* source = files_[file].source;
    if (source == nullptr || span.end > source->text().size() || span.begin > span.end) return {};
    return std::string_view(source->text()).substr(span.begin, span.end - span.begin);
  }

  void Add(size_t file, Severity severity, const char* code, Span span, std::string message, std::string help) {
    Diagnostic d;
    d.severity = severity;
    d.code = code;
    d.span = span;
    d.message = std::move(message);
    d.help = std::move(help);
    files_[file].diagnostics->Add(std::move(d));
  }

  // The nodes and their quotas; false when the places do not match the
  // tables (a configuration with faults of its own, which is not checked).
  bool Build() {
    const size_t nc = state_.cohorts.size();
    if (cohorts_at_.size() != nc || queues_at_.size() != state_.cluster_queues.size()) return false;
    nodes_.resize(nc + state_.cluster_queues.size());
    auto read = [&](Node& node, const std::vector<sched::ResourceGroup>& groups) {
      if (node.at->groups.size() != groups.size()) return false;
      for (size_t g = 0; g < groups.size(); ++g) {
        if (node.at->groups[g].flavors.size() != groups[g].flavors.size()) return false;
        for (size_t f = 0; f < groups[g].flavors.size(); ++f) {
          const sched::FlavorQuotas& fq = groups[g].flavors[f];
          const FlavorAt& fat = node.at->groups[g].flavors[f];
          if (fat.quotas.size() != fq.resources.size()) return false;
          for (size_t q = 0; q < fq.resources.size(); ++q) {
            node.cells.try_emplace(Key(fq.flavor, fq.resources[q].resource),
                                   Cell{&fq.resources[q], &fat.quotas[q], fq.flavor});
          }
        }
      }
      return true;
    };
    for (size_t c = 0; c < nc; ++c) {
      Node& n = nodes_[c];
      n.parent = state_.cohorts[c].parent;
      n.at = &cohorts_at_[c];
      n.what = Cat("cohort `", state_.cohorts[c].name, "`");
      if (!read(n, state_.cohorts[c].resource_groups)) return false;
    }
    for (size_t q = 0; q < state_.cluster_queues.size(); ++q) {
      Node& n = nodes_[nc + q];
      n.parent = state_.cluster_queues[q].cohort;
      n.at = &queues_at_[q];
      n.queue = true;
      n.what = Cat("cluster queue `", state_.cluster_queues[q].name, "`");
      if (!read(n, state_.cluster_queues[q].resource_groups)) return false;
    }
    return true;
  }

  // Each node's root and depth (iteratively: the parents have no cycle, or
  // the declarations had an error and this does not run), and the nodes by
  // depth.
  void Trees() {
    const size_t total = nodes_.size();
    for (size_t i = 0; i < total; ++i) {
      int at = static_cast<int>(i);
      int depth = 0;
      while (nodes_[at].parent >= 0 && depth <= static_cast<int>(total)) {
        at = nodes_[at].parent;
        ++depth;
      }
      nodes_[i].root = at;
      nodes_[i].depth = depth;
      order_.push_back(static_cast<int>(i));
    }
    queues_in_tree_.assign(total, 0);
    for (const Node& n : nodes_) queues_in_tree_[n.root] += n.queue ? 1 : 0;
    std::stable_sort(order_.begin(), order_.end(), [&](int a, int b) { return nodes_[a].depth < nodes_[b].depth; });
  }

  // A cell of node n, or null.
  const Cell* CellOf(int n, uint64_t key) const {
    auto it = nodes_[n].cells.find(key);
    return it == nodes_[n].cells.end() ? nullptr : &it->second;
  }

  // SubtreeQuota, localQuota and potential of every node for one
  // flavor-resource key.
  struct Tree {
    std::vector<int64_t> subtree, local, potential;
  };
  Tree Compute(uint64_t key) const {
    const size_t total = nodes_.size();
    Tree t;
    t.subtree.assign(total, 0);
    t.local.assign(total, 0);
    t.potential.assign(total, 0);
    for (size_t i = 0; i < total; ++i) {
      if (const Cell* c = CellOf(static_cast<int>(i), key)) t.subtree[i] = c->quota->nominal;
    }
    // Children before parents.
    for (auto it = order_.rbegin(); it != order_.rend(); ++it) {
      const int n = *it;
      const Cell* c = CellOf(n, key);
      if (c != nullptr && c->quota->lending_limit.has_value()) {
        t.local[n] = std::max<int64_t>(0, SatSub(t.subtree[n], *c->quota->lending_limit));
      }
      if (nodes_[n].parent >= 0) {
        int p = nodes_[n].parent;
        t.subtree[p] = SatAdd(t.subtree[p], SatSub(t.subtree[n], t.local[n]));
      }
    }
    for (int n : order_) {
      if (nodes_[n].parent < 0) {
        t.potential[n] = t.subtree[n];
        continue;
      }
      int64_t reach = SatAdd(t.local[n], t.potential[nodes_[n].parent]);
      const Cell* c = CellOf(n, key);
      if (c != nullptr && c->quota->borrowing_limit.has_value()) {
        reach = std::min(reach, SatAdd(t.subtree[n], *c->quota->borrowing_limit));
      }
      t.potential[n] = reach;
    }
    return t;
  }

  // CH0811: per declared capacity, the nominal quotas of every cohort and
  // queue (every tree draws on the same nodes of the flavor).
  void Capacities() {
    for (size_t i = 0; i < state_.capacities.size() && i < capacities_.size(); ++i) {
      const sched::FlavorCapacity& cap = state_.capacities[i];
      const CapacityAt& at = capacities_[i];
      const uint64_t key = Key(cap.flavor, cap.resource);
      int64_t sum = 0;
      std::string list;
      size_t count = 0;
      for (const Node& n : nodes_) {
        const Cell* c = nullptr;
        if (auto it = n.cells.find(key); it != n.cells.end()) c = &it->second;
        if (c == nullptr || c->quota->nominal == 0) continue;
        sum = SatAdd(sum, c->quota->nominal);
        CatAppend(&list, count++ == 0 ? "" : ", ", n.what, " ", Text(n.at->file, c->at->nominal), " (",
                  Where(n.at->file, c->at->nominal, at.file), ")");
      }
      if (sum <= cap.amount) continue;
      const std::string& resource = state_.resources[cap.resource];
      Add(at.file, Severity::kError, codes::CH0811, at.value,
          Cat("the nominal quotas of `", resource, "` in flavor `", state_.flavors[cap.flavor], "` add up to ",
              Amount(sum, cap.resource), ", more than the flavor's capacity (", Amount(cap.amount, cap.resource), ")"),
          Cat("the quotas: ", list, "; Kueue would admit workloads its nodes cannot hold"));
    }
  }

  // The other quotas of `key` in n's tree, for a help line.
  std::string Others(int n, uint64_t key, size_t from) const {
    std::string list;
    size_t count = 0;
    for (size_t i = 0; i < nodes_.size(); ++i) {
      if (static_cast<int>(i) == n || nodes_[i].root != nodes_[n].root) continue;
      const Cell* c = CellOf(static_cast<int>(i), key);
      if (c == nullptr) continue;
      CatAppend(&list, count++ == 0 ? "" : ", ", nodes_[i].what, " `", Text(nodes_[i].at->file, c->at->value), "` (",
                Where(nodes_[i].at->file, c->at->value, from), ")");
    }
    return list;
  }

  std::string RootName(int n) const { return state_.cohorts[nodes_[n].root].name; }

  // Whether n is in a cohort tree of two queues or more. Kueue's cohorts are
  // open (any cluster queue joins one by naming it), so a tree of one queue
  // is taken for a part of a configuration whose other queues are declared
  // elsewhere, and what it could borrow or lend is not judged.
  bool Populated(int n) const { return nodes_[n].parent >= 0 && queues_in_tree_[nodes_[n].root] >= 2; }

  // Whether a is in b's subtree (a == b included).
  bool Under(int a, int b) const {
    for (int at = a, steps = 0; at >= 0 && steps <= static_cast<int>(nodes_.size()); at = nodes_[at].parent, ++steps) {
      if (at == b) return true;
    }
    return false;
  }

  // The keys that some node has a borrowing or lending limit for.
  std::vector<uint64_t> LimitKeys(bool borrow) const {
    std::vector<uint64_t> keys;
    for (int n : order_) {
      for (const auto& [key, c] : nodes_[n].cells) {
        if (borrow ? c.quota->borrowing_limit.has_value() : c.quota->lending_limit.has_value()) keys.push_back(key);
      }
    }
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    return keys;
  }

  std::string QuotaName(int n, const Cell& c) const {
    return Cat("the `", state_.resources[c.quota->resource], "` quota of flavor `", state_.flavors[c.flavor], "` of ",
               nodes_[n].what);
  }

  // CH0812: a borrowing limit above what the tree could ever lend (the
  // limit never binds).
  void Borrowing() {
    for (uint64_t key : LimitKeys(true)) {
      const Tree t = Compute(key);
      for (int n : order_) {
        const Cell* c = CellOf(n, key);
        if (c == nullptr || !c->quota->borrowing_limit.has_value() || !Populated(n)) continue;
        const int64_t limit = *c->quota->borrowing_limit;
        const int64_t stored = SatSub(t.subtree[n], t.local[n]);
        const int64_t most = std::max<int64_t>(0, SatSub(t.potential[nodes_[n].parent], stored));
        if (limit <= most) continue;
        const size_t file = nodes_[n].at->file;
        const int r = c->quota->resource;
        std::string others = Others(n, key, file);
        std::string message =
            most == 0 ? Cat("the borrowing limit in ", QuotaName(n, *c), " (", Amount(limit, r),
                            ") has no effect: nothing in cohort tree `", RootName(n), "` can lend it")
                      : Cat("the borrowing limit in ", QuotaName(n, *c), " (", Amount(limit, r),
                            ") is more than cohort tree `", RootName(n), "` can ever lend it (", Amount(most, r), ")");
        std::string help = others.empty()
                               ? Cat("no other queue or cohort of the tree has this flavor and resource; remove the "
                                     "limit, or give others a quota to lend")
                               : Cat("the tree's other quotas of it: ", others, "; the limit never binds: write `borrow ",
                                     Amount(most, r), "` or remove it");
        Add(file, Severity::kWarning, codes::CH0812, c->at->borrow_value.end > 0 ? c->at->borrow_value : c->at->borrow,
            std::move(message), std::move(help));
      }
    }
  }

  // CH0814: a lending limit where no queue outside the lender's subtree has
  // the flavor and resource (Kueue lends a flavor's resource only to a queue
  // that lists it).
  void Lending() {
    // With fair sharing, what a parent can lend is the denominator of every
    // borrower's share, which a lending limit changes even when no queue can
    // borrow the flavor's resource itself.
    if (state_.engine.fair_sharing) return;
    for (uint64_t key : LimitKeys(false)) {
      for (int n : order_) {
        const Cell* c = CellOf(n, key);
        if (c == nullptr || !c->quota->lending_limit.has_value() || !Populated(n)) continue;
        if (*c->quota->lending_limit == 0) continue;  // `lend 0` says what it means
        bool borrower = false;
        for (size_t i = 0; i < nodes_.size() && !borrower; ++i) {
          borrower = nodes_[i].queue && nodes_[i].root == nodes_[n].root && !Under(static_cast<int>(i), n) &&
                     CellOf(static_cast<int>(i), key) != nullptr;
        }
        if (borrower) continue;
        const size_t file = nodes_[n].at->file;
        Add(file, Severity::kWarning, codes::CH0814, c->at->lend_value.end > 0 ? c->at->lend_value : c->at->lend,
            Cat("the lending limit in ", QuotaName(n, *c), " has no effect: no other queue of cohort tree `",
                RootName(n), "` has `", state_.resources[c->quota->resource], "` in flavor `",
                state_.flavors[c->flavor], "` to borrow it"),
            "Kueue lends a flavor's resource only to a queue whose resource groups list it; give one a quota of "
            "it (`0` is enough), or remove the limit");
      }
    }
  }

  // CH0813: per tree (a root cohort with everything under it, or a queue
  // without a cohort) and resource, the quantities that are not written in
  // the unit most of them are; and `m` on anything but cpu.
  void Units() {
    struct Quantity {
      int node;
      const Cell* cell;
      Span span;
      std::string_view text;
      Unit unit;
    };
    // Per (root, resource), in the order of the nodes.
    absl::flat_hash_map<uint64_t, std::vector<Quantity>> groups;
    std::vector<uint64_t> group_order;
    for (size_t i = 0; i < nodes_.size(); ++i) {
      const Node& node = nodes_[i];
      std::vector<const Cell*> cells;
      for (const auto& [key, c] : node.cells) cells.push_back(&c);
      std::sort(cells.begin(), cells.end(), [](const Cell* a, const Cell* b) { return a->at->value.begin < b->at->value.begin; });
      for (const Cell* c : cells) {
        const int r = c->quota->resource;
        const uint64_t g = static_cast<uint64_t>(node.root) * state_.resources.size() + static_cast<uint64_t>(r);
        auto add = [&](Span span, int64_t value) {
          if (span.end == 0 || value == 0) return;  // 0 is 0 in every unit
          std::string_view text = Text(node.at->file, span);
          auto [it, inserted] = groups.try_emplace(g);
          if (inserted) group_order.push_back(g);
          it->second.push_back({static_cast<int>(i), c, span, text, UnitOf(text)});
        };
        add(c->at->nominal, c->quota->nominal);
        if (c->quota->borrowing_limit) add(c->at->borrow_value, *c->quota->borrowing_limit);
        if (c->quota->lending_limit) add(c->at->lend_value, *c->quota->lending_limit);
      }
    }
    for (uint64_t g : group_order) {
      std::vector<Quantity>& list = groups[g];
      const int r = static_cast<int>(g % state_.resources.size());
      const std::string& resource = state_.resources[r];
      const bool cpu = Milli(r);
      std::string tree = nodes_[list.front().node].parent < 0 && nodes_[list.front().node].queue
                             ? nodes_[list.front().node].what
                             : Cat("cohort tree `", RootName(list.front().node), "`");
      // `m` is a thousandth: a CPU's millicore, anything else's milli-unit.
      size_t counts[4] = {0, 0, 0, 0};
      for (const Quantity& q : list) {
        Unit u = q.unit == Unit::kMilli && cpu ? Unit::kPlain : q.unit;
        ++counts[static_cast<int>(u)];
        if (q.unit == Unit::kMilli && !cpu) {
          const size_t file = nodes_[q.node].at->file;
          Add(file, Severity::kWarning, codes::CH0813, q.span,
              Cat("`", q.text, "` in ", QuotaName(q.node, *q.cell),
                  " counts thousandths: Kubernetes' `m` is milli, not mega"),
              "write `M` (10^6) or `Mi` (2^20) for mega; Kueue counts anything but cpu in whole units, rounded up");
        }
      }
      // The unit most quantities are written in (the first seen on a tie),
      // among plain, decimal and binary.
      int kinds = 0;
      Unit major = Unit::kPlain;
      size_t best = 0;
      const Quantity* example = nullptr;
      for (const Quantity& q : list) {
        Unit u = q.unit == Unit::kMilli ? Unit::kPlain : q.unit;
        if (counts[static_cast<int>(u)] > best) {
          best = counts[static_cast<int>(u)];
          major = u;
        }
      }
      for (Unit u : {Unit::kPlain, Unit::kDecimal, Unit::kBinary}) kinds += counts[static_cast<int>(u)] > 0 ? 1 : 0;
      if (kinds < 2) continue;
      for (const Quantity& q : list) {
        Unit u = q.unit == Unit::kMilli ? Unit::kPlain : q.unit;
        if (u == major && example == nullptr) example = &q;
      }
      for (const Quantity& q : list) {
        Unit u = q.unit == Unit::kMilli ? Unit::kPlain : q.unit;
        if (u == major || q.unit == Unit::kMilli) continue;
        const size_t file = nodes_[q.node].at->file;
        Add(file, Severity::kWarning, codes::CH0813, q.span,
            Cat("`", q.text, "` in ", QuotaName(q.node, *q.cell), " is written with ", UnitName(u), " where ", tree,
                " writes `", resource, "` with ", UnitName(major)),
            Cat("such as `", example->text, "` (", Where(nodes_[example->node].at->file, example->span, file),
                "); a quantity without a suffix counts units (bytes, for memory), so mixed units let a queue lend "
                "or borrow far more or less than meant: write every `",
                resource, "` of the tree in one unit"));
      }
    }
  }

  const std::vector<DeclarationFile>& files_;
  const sched::State& state_;
  const std::vector<ObjectAt>& cohorts_at_;
  const std::vector<ObjectAt>& queues_at_;
  const std::vector<CapacityAt>& capacities_;
  std::vector<Node> nodes_;
  std::vector<int> order_;  // nodes by depth, roots first
  std::vector<int> queues_in_tree_;  // per root: the queues of its tree
};

}  // namespace

void CheckWhole(const std::vector<DeclarationFile>& files, const ::charter::schedule::State& state,
                const std::vector<ObjectAt>& cohorts, const std::vector<ObjectAt>& queues,
                const std::vector<CapacityAt>& capacities) {
  Whole(files, state, cohorts, queues, capacities).Run();
}

}  // namespace charter::internal
