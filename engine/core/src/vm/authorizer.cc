// The authorizer: the scope index's candidates, each run by the VM, the
// outcomes combined with Cedar's rules.
#include "vm/authorizer.h"

#include "common/combine.h"

namespace charter::internal {

bool Authorize(const std::shared_ptr<const Program>& program, const RequestView& request,
               const std::shared_ptr<const EntityStore>& shared_store, EvalScratch* scratch) {
  EvalScratch& s = *scratch;
  if (s.program != program) s.program = program;  // no atomic operation in the steady state
  const EntityStore& store = *shared_store;
  // The request's entities, resolved against this store once.
  EntityRef* refs = s.refs;
  Environment env;
  ScopeKeys keys;
  for (int i = 0; i < 3; ++i) {
    refs[i] = *request.entities[i];
    refs[i].key_hash = request.key_hashes[i];
    refs[i].uid = store.Find(refs[i].type, refs[i].id, request.key_hashes[i]);
    env.vars[i] = Value::Entity(&refs[i]);
    keys.refs[i] = &refs[i];
    keys.hashes[i] = request.key_hashes[i];
  }
  env.vars[3] = *request.context;
  env.store = &store;
  env.binding = s.binding.Prepare(program, shared_store);
  // One budget for the walks of all the decision's policies.
  WalkBudget work(program->limits().max_decision_work);
  env.work = &work;

  program->scope_index().Candidates(keys, store, &s.index, &s.candidates);
  s.arena.Reset();
  s.permits.clear();
  s.forbids.clear();
  s.errors.clear();
  s.evaluated = 0;
  const std::vector<PolicyCode>& policies = program->policies();
  for (uint32_t c : s.candidates) {
    const PolicyCode& p = policies[c];
    ++s.evaluated;
    size_t e = s.errors.size();
    if (e == s.failures.size()) s.failures.emplace_back();
    switch (Run(*program, p, env, &s.arena, &s.failures[e])) {
      case Outcome::kTrue:
        (p.forbid ? s.forbids : s.permits).push_back(p.id);
        break;
      case Outcome::kFalse:
        break;
      case Outcome::kError:
        s.errors.push_back(PolicyErrorView{p.id, {}, SpanAt(p, s.failures[e].pc)});
        break;
    }
  }
  // INVARIANT: the messages no longer move, so views of them hold.
  for (size_t i = 0; i < s.errors.size(); ++i) s.errors[i].message = s.failures[i].message;
  s.allowed = CombinedAllows(s.permits, s.forbids);
  return s.allowed;
}

}  // namespace charter::internal
