// The scope index: reading scope tests out of verified code, filing
// policies under them, and finding a request's candidates.
#include "vm/scope_index.h"

#include <algorithm>

#include "bytecode/opcodes.h"
#include "vm/program.h"

namespace charter::internal {
namespace {

// What the analysis knows a register holds.
struct RegFact {
  enum Kind : uint8_t { kUnknown, kVar, kConst, kTest } kind = kUnknown;
  uint8_t var = 0;       // kVar, kTest
  uint32_t k = 0;        // kConst: entity pool index
  ScopeTest test;        // kTest
};

bool IsReturnFalse(const PolicyCode& policy, uint32_t pc) {
  Insn insn{policy.code[pc]};
  return insn.op() == Op::kRetBool && insn.b() == 0;
}

}  // namespace

PolicyScope AnalyzeScope(const Program& program, const PolicyCode& policy) {
  PolicyScope scope;
  std::vector<RegFact> regs(policy.num_registers);
  std::vector<ScopeTest> group;  // an open `JumpIfTrue` group
  uint32_t group_target = 0;
  bool group_merges = true;  // every jump of the group goes to one place
  for (uint32_t pc = 0; pc < policy.size; ++pc) {
    Insn insn{policy.code[pc]};
    switch (insn.op()) {
      case Op::kVar:
        regs[insn.a()] = RegFact{RegFact::kVar, static_cast<uint8_t>(insn.b()), 0, {}};
        continue;
      case Op::kEntity:
        regs[insn.a()] = RegFact{RegFact::kConst, 0, insn.c(), {}};
        continue;
      case Op::kIs: {
        const RegFact& x = regs[insn.b()];
        if (x.kind != RegFact::kVar || x.var > 2) return scope;
        RegFact t{RegFact::kTest, x.var, 0, {}};
        t.test = ScopeTest{x.var, ScopeTest::kIs, program.string_view(insn.c()), {}};
        regs[insn.a()] = t;
        continue;
      }
      case Op::kEq:
      case Op::kIn: {
        // INVARIANT: both operands are entities, so neither test can err.
        const RegFact& x = regs[insn.b()];
        const RegFact& y = regs[insn.c()];
        if (x.kind != RegFact::kVar || x.var > 2 || y.kind != RegFact::kConst) return scope;
        const EntityRef* e = program.entity(y.k);
        RegFact t{RegFact::kTest, x.var, 0, {}};
        t.test = ScopeTest{x.var, insn.op() == Op::kEq ? ScopeTest::kEq : ScopeTest::kIn, e->type,
                           e->id};
        regs[insn.a()] = t;
        continue;
      }
      case Op::kJumpIfFalse:
      case Op::kTJumpIfFalse: {  // the compiler's scope tests use the typed jump
        const RegFact& x = regs[insn.a()];
        if (x.kind != RegFact::kTest || !group.empty() || !IsReturnFalse(policy, insn.c())) {
          return scope;
        }
        scope.all.push_back(x.test);
        continue;
      }
      case Op::kJumpIfTrue:
      case Op::kTJumpIfTrue: {
        const RegFact& x = regs[insn.a()];
        if (x.kind != RegFact::kTest) return scope;
        if (group.empty()) group_target = insn.c();
        group_merges = group_merges && insn.c() == group_target;
        group.push_back(x.test);
        continue;
      }
      case Op::kJump: {
        // The end of a group: no test held, so the policy is false.
        if (group.empty() || !IsReturnFalse(policy, insn.c())) return scope;
        scope.any_of.push_back(std::move(group));
        group.clear();
        // Go on only when every test jumps to the next instruction, where
        // the paths meet and nothing is known about the registers.
        if (!group_merges || group_target != pc + 1) return scope;
        std::fill(regs.begin(), regs.end(), RegFact{});
        group_merges = true;
        continue;
      }
      default:
        return scope;
    }
  }
  return scope;
}

bool ScopeIndex::File(uint32_t p, const ScopeTest& test, const std::vector<uint64_t>& actions) {
  Entry* e;
  if (test.op == ScopeTest::kIs) {
    e = &types_[test.var][TypeKeyHash(test.type)];
    if (e->eq.empty() && e->in.empty() && e->is.empty()) {
      e->type = test.type;
    } else if (e->type != test.type) {
      return false;
    }
  } else {
    e = &entities_[test.var][EntityKeyHash(test.type, test.id)];
    if (e->eq.empty() && e->in.empty() && e->is.empty()) {
      e->type = test.type;
      e->id = test.id;
    } else if (e->type != test.type || e->id != test.id) {
      return false;
    }
  }
  std::vector<Slot>& slots = test.op == ScopeTest::kEq ? e->eq : test.op == ScopeTest::kIn ? e->in : e->is;
  auto slot = [&slots](bool any, uint64_t action) -> Slot& {
    for (Slot& s : slots) {
      if (s.any_action == any && s.action == action) return s;
    }
    slots.push_back(Slot{any, action, {}});
    return slots.back();
  };
  if (actions.empty()) {
    slot(true, 0).policies.push_back(p);
  } else {
    for (uint64_t a : actions) {
      std::vector<uint32_t>& list = slot(false, a).policies;
      if (list.empty() || list.back() != p) list.push_back(p);
    }
  }
  return true;
}

void ScopeIndex::Build(const Program& program) {
  const std::vector<PolicyCode>& policies = program.policies();
  filter_begin_.assign(1, 0);
  // Most selective first: `==` on principal or resource, then `in` on
  // them, then the action, then `is`.
  auto rank = [](const ScopeTest& t) {
    bool entity_var = t.var != 1;
    switch (t.op) {
      case ScopeTest::kEq: return entity_var ? 0 : 2;
      case ScopeTest::kIn: return entity_var ? 1 : 3;
      case ScopeTest::kIs: return 4;
    }
    return 5;
  };
  auto filter_test = [](const ScopeTest& t, uint16_t group) {
    uint64_t h = t.op == ScopeTest::kIs ? TypeKeyHash(t.type) : EntityKeyHash(t.type, t.id);
    return FilterTest{h, t.var, t.op, group};
  };
  auto is_action_test = [](const ScopeTest& t) { return t.var == 1 && t.op != ScopeTest::kIs; };
  std::vector<uint64_t> actions;
  for (uint32_t p = 0; p < policies.size(); ++p) {
    PolicyScope scope = AnalyzeScope(program, policies[p]);
    // Which request facts Candidates must work out.
    auto note = [this](const ScopeTest& t) {
      if (t.op == ScopeTest::kIn) has_in_[t.var] = true;
      if (t.op == ScopeTest::kIs) has_is_ = true;
    };
    for (const ScopeTest& t : scope.all) note(t);
    for (const std::vector<ScopeTest>& g : scope.any_of) {
      for (const ScopeTest& t : g) note(t);
    }
    const ScopeTest* best = nullptr;
    for (const ScopeTest& t : scope.all) {
      if (best == nullptr || rank(t) < rank(*best)) best = &t;
    }
    // A group is filed under each of its tests, when it is more selective
    // than the best single test.
    const std::vector<ScopeTest>* best_group = nullptr;
    for (const std::vector<ScopeTest>& g : scope.any_of) {
      int worst = 0;
      for (const ScopeTest& t : g) worst = std::max(worst, rank(t));
      if ((best == nullptr || worst < rank(*best)) && !g.empty()) {
        best_group = &g;
        best = nullptr;
      }
    }
    // The action slots: a required action test, or a group of action
    // tests, unless the policy is filed under the action itself.
    actions.clear();
    const ScopeTest* action_test = nullptr;
    const std::vector<ScopeTest>* action_group = nullptr;
    bool filed_under_action = (best != nullptr && best->var == 1) ||
                              (best_group != nullptr && (*best_group)[0].var == 1);
    if (!filed_under_action) {
      for (const ScopeTest& t : scope.all) {
        if (is_action_test(t)) {
          actions.push_back(EntityKeyHash(t.type, t.id));
          action_test = &t;
          break;
        }
      }
      for (size_t g = 0; actions.empty() && g < scope.any_of.size(); ++g) {
        const std::vector<ScopeTest>& group = scope.any_of[g];
        if (!group.empty() && std::all_of(group.begin(), group.end(), is_action_test)) {
          for (const ScopeTest& t : group) actions.push_back(EntityKeyHash(t.type, t.id));
          action_group = &group;
        }
      }
    }
    bool filed = false;
    if (best != nullptr) {
      filed = File(p, *best, actions);
    } else if (best_group != nullptr) {
      filed = true;
      for (const ScopeTest& t : *best_group) filed = File(p, t, actions) && filed;
    }
    if (!filed) always_.push_back(p);

    // The filter: every test, then every group, less those that finding
    // the policy in its entry and slot already proved (all of them for a
    // policy in `always_`).
    auto implied = [&](const ScopeTest* t) { return filed && (t == best || t == action_test); };
    auto implied_group = [&](const std::vector<ScopeTest>* g) {
      return filed && (g == best_group || g == action_group);
    };
    for (const ScopeTest& t : scope.all) {
      if (!implied(&t)) filter_.push_back(filter_test(t, 0));
    }
    uint16_t group = 0;
    for (const std::vector<ScopeTest>& g : scope.any_of) {
      if (implied_group(&g) || group == 0xFFFF) continue;
      ++group;
      for (const ScopeTest& t : g) filter_.push_back(filter_test(t, group));
    }
    filter_begin_.push_back(static_cast<uint32_t>(filter_.size()));
  }
  for (int v = 0; v < 3; ++v) {
    for (auto& [hash, entry] : entities_[v]) {
      if (!entry.in.empty()) in_targets_[v].push_back(&entry);
    }
  }
}

namespace {

bool Contains(const std::vector<uint64_t>& v, uint64_t h) {
  for (uint64_t x : v) {
    if (x == h) return true;
  }
  return false;
}

}  // namespace

// INVARIANT: the scope tests cannot err (AnalyzeScope), so a policy one of
// whose tests fails is false. Hash inequality proves entity inequality;
// equal hashes may still be different entities, which only keeps a policy
// that its code then finds false.
bool ScopeIndex::Passes(uint32_t p, const RequestScope& r) const {
  const FilterTest* t = filter_.data() + filter_begin_[p];
  const FilterTest* end = filter_.data() + filter_begin_[p + 1];
  uint16_t group = 0;
  bool group_held = true;
  for (; t != end; ++t) {
    if (t->group != group) {
      if (!group_held) return false;  // the previous group had no test that holds
      group = t->group;
      group_held = false;
    } else if (group != 0 && group_held) {
      continue;  // this group already holds
    }
    bool holds;
    switch (t->op) {
      case ScopeTest::kEq: holds = r.hash[t->var] == t->hash; break;
      case ScopeTest::kIs: holds = r.type_hash[t->var] == t->hash; break;
      default:
        holds = r.hash[t->var] == t->hash || !r.known[t->var] || Contains(r.ancestors[t->var], t->hash);
        break;
    }
    if (group == 0) {
      if (!holds) return false;
    } else {
      group_held = group_held || holds;
    }
  }
  return group_held;
}

void ScopeIndex::AppendSlots(const std::vector<Slot>& slots, const RequestScope& r,
                             std::vector<uint32_t>* to) const {
  for (const Slot& s : slots) {
    if (s.any_action || !r.known[1] || s.action == r.hash[1] || Contains(r.ancestors[1], s.action)) {
      Append(s.policies, to);
    }
  }
}

void ScopeIndex::Candidates(const ScopeKeys& keys, const EntityStore& store,
                            ScopeScratch* scratch, std::vector<uint32_t>* out) const {
  // The request's side of every test.
  RequestScope& r = scratch->request;
  for (int v = 0; v < 3; ++v) {
    const EntityRef* ref = keys.refs[v];
    r.hash[v] = keys.hashes[v];
    r.type_hash[v] = has_is_ ? TypeKeyHash(ref->type) : 0;
    r.ancestors[v].clear();
    r.known[v] = true;
    if (!has_in_[v] || ref->uid == kNoUid) continue;
    r.known[v] = store.Ancestors(ref->uid, kMaxRequestAncestors, &scratch->walk, &scratch->ancestors);
    if (!r.known[v]) continue;
    for (uint32_t a : scratch->ancestors) r.ancestors[v].push_back(store.key_hash(a));
  }

  std::vector<uint32_t>& found = scratch->found;
  found.clear();
  for (int v = 0; v < 3; ++v) {
    const EntityRef* ref = keys.refs[v];
    const Table& table = entities_[v];
    if (!table.empty()) {
      auto it = table.find(keys.hashes[v]);
      if (it != table.end() && it->second.type == ref->type && it->second.id == ref->id) {
        AppendSlots(it->second.eq, r, &found);
        AppendSlots(it->second.in, r, &found);
      }
    }
    if (!types_[v].empty()) {
      auto it = types_[v].find(TypeKeyHash(ref->type));
      if (it != types_[v].end() && it->second.type == ref->type) AppendSlots(it->second.is, r, &found);
    }
    const std::vector<const Entry*>& targets = in_targets_[v];
    if (targets.empty() || ref->uid == kNoUid) continue;
    // `var in E` for E an ancestor of the request's entity: look its
    // ancestors up, unless there are too many of them; then ask the store
    // about each target. (Duplicates are removed below.)
    if (r.known[v]) {
      // By hash alone: an entry of another entity with the same hash only
      // adds a candidate, which its filter or its code finds false.
      for (uint64_t h : r.ancestors[v]) {
        auto it = table.find(h);
        if (it != table.end()) AppendSlots(it->second.in, r, &found);
      }
    } else {
      for (const Entry* e : targets) {
        uint32_t t = store.Find(e->type, e->id);
        if (t != kNoUid && store.HasAncestor(ref->uid, t)) AppendSlots(e->in, r, &found);
      }
    }
  }
  std::sort(found.begin(), found.end());
  found.erase(std::unique(found.begin(), found.end()), found.end());
  out->clear();
  // Merge with `always_` (a policy whose key collided is in `always_` and
  // may be in `found` too), keeping those whose tests may hold.
  auto a = always_.begin();
  auto f = found.begin();
  while (a != always_.end() || f != found.end()) {
    uint32_t p;
    if (f == found.end() || (a != always_.end() && *a < *f)) {
      p = *a++;
    } else {
      if (a != always_.end() && *a == *f) ++a;
      p = *f++;
    }
    if (Passes(p, r)) out->push_back(p);
  }
}

}  // namespace charter::internal
