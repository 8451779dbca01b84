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

bool ScopeIndex::File(uint32_t p, const ScopeTest& test) {
  if (test.op == ScopeTest::kIs) {
    Entry& e = types_[test.var][TypeKeyHash(test.type)];
    if (e.eq.empty() && e.in.empty() && e.is.empty()) {
      e.type = test.type;
    } else if (e.type != test.type) {
      return false;
    }
    e.is.push_back(p);
    return true;
  }
  Entry& e = entities_[test.var][EntityKeyHash(test.type, test.id)];
  if (e.eq.empty() && e.in.empty() && e.is.empty()) {
    e.type = test.type;
    e.id = test.id;
  } else if (e.type != test.type || e.id != test.id) {
    return false;
  }
  (test.op == ScopeTest::kEq ? e.eq : e.in).push_back(p);
  return true;
}

void ScopeIndex::Build(const Program& program) {
  const std::vector<PolicyCode>& policies = program.policies();
  eq_filters_.assign(policies.size(), EqFilter{});
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
  for (uint32_t p = 0; p < policies.size(); ++p) {
    PolicyScope scope = AnalyzeScope(program, policies[p]);
    EqFilter& filter = eq_filters_[p];
    for (const ScopeTest& t : scope.all) {
      if (t.op != ScopeTest::kEq) continue;
      uint64_t h = EntityKeyHash(t.type, t.id);
      if ((filter.mask >> t.var & 1) && filter.hashes[t.var] != h) {
        // Two different `==` on one variable: never satisfied. Keep it
        // simple and leave the policy to its code.
        continue;
      }
      filter.mask |= 1 << t.var;
      filter.hashes[t.var] = h;
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
    bool filed = false;
    if (best != nullptr) {
      filed = File(p, *best);
    } else if (best_group != nullptr) {
      filed = true;
      for (const ScopeTest& t : *best_group) filed = File(p, t) && filed;
    }
    if (!filed) always_.push_back(p);
  }
  for (int v = 0; v < 3; ++v) {
    for (auto& [hash, entry] : entities_[v]) {
      if (!entry.in.empty()) in_targets_[v].push_back(&entry);
    }
  }
}

void ScopeIndex::Candidates(const ScopeKeys& keys, const EntityStore& store,
                            ScopeScratch* scratch, std::vector<uint32_t>* out) const {
  std::vector<uint32_t>& found = scratch->found;
  found.clear();
  for (int v = 0; v < 3; ++v) {
    const EntityRef* ref = keys.refs[v];
    const Table& table = entities_[v];
    if (!table.empty()) {
      auto it = table.find(keys.hashes[v]);
      if (it != table.end() && it->second.type == ref->type && it->second.id == ref->id) {
        Append(it->second.eq, &found);
        Append(it->second.in, &found);
      }
    }
    if (!types_[v].empty()) {
      auto it = types_[v].find(TypeKeyHash(ref->type));
      if (it != types_[v].end() && it->second.type == ref->type) Append(it->second.is, &found);
    }
    const std::vector<const Entry*>& targets = in_targets_[v];
    if (targets.empty() || ref->uid == kNoUid) continue;
    // `var in E` for E an ancestor of the request's entity: look its
    // ancestors up, unless there are more of them than `in` targets; then
    // ask the store about each target. (Duplicates are removed below.)
    if (store.Ancestors(ref->uid, targets.size(), &scratch->walk, &scratch->ancestors)) {
      for (uint32_t a : scratch->ancestors) {
        auto it = table.find(store.key_hash(a));
        if (it == table.end()) continue;
        const EntityRef& r = store.ref(a);
        if (it->second.type == r.type && it->second.id == r.id) Append(it->second.in, &found);
      }
    } else {
      for (const Entry* e : targets) {
        uint32_t t = store.Find(e->type, e->id);
        if (t != kNoUid && store.HasAncestor(ref->uid, t)) Append(e->in, &found);
      }
    }
  }
  std::sort(found.begin(), found.end());
  found.erase(std::unique(found.begin(), found.end()), found.end());
  out->clear();
  out->resize(found.size() + always_.size());
  std::merge(found.begin(), found.end(), always_.begin(), always_.end(), out->begin());
  // A policy whose key collided is in `always_` and may be in `found` too.
  out->erase(std::unique(out->begin(), out->end()), out->end());
}

}  // namespace charter::internal
