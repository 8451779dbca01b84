// charter::Engine: verification, then decisions with Cedar's semantics.
#include "charter/engine.h"

#include "common/status_macros.h"
#include "entities/entity_store.h"
#include "request/request_data.h"
#include "verify/verifier.h"
#include "vm/program.h"
#include "vm/vm.h"

namespace charter {
namespace internal {

Program::Program(Bundle bundle, const fb::Bundle* root) : bundle_(std::move(bundle)), root_(root) {
  if (root_->strings() != nullptr) {
    for (const flatbuffers::String* s : *root_->strings()) {
      strings_.push_back(Value::String(s->string_view()));
    }
  }
  if (root_->longs() != nullptr) {
    for (int64_t v : *root_->longs()) longs_.push_back(v);
  }
  if (root_->entities() != nullptr) {
    for (const fb::EntityConst* e : *root_->entities()) {
      entities_.push_back(EntityRef{e->type()->string_view(), e->id()->string_view(), kNoUid});
    }
  }
  if (root_->patterns() != nullptr) {
    for (const fb::Pattern* p : *root_->patterns()) {
      std::vector<PatternPart> parts;
      for (const fb::PatternElem* e : *p->elems()) {
        parts.push_back({e->wildcard(), e->wildcard() ? std::string_view() : e->literal()->string_view()});
      }
      patterns_.push_back(std::move(parts));
    }
  }
  if (root_->record_shapes() != nullptr) {
    for (const fb::RecordShape* shape : *root_->record_shapes()) {
      RecordShapeView view;
      for (uint32_t k : *shape->keys()) view.keys.push_back(strings_[k].string());
      for (uint32_t o : *shape->order()) view.order.push_back(o);
      shapes_.push_back(std::move(view));
    }
  }
  if (root_->policies() != nullptr) {
    for (const fb::Policy* p : *root_->policies()) {
      PolicyCode pc;
      pc.id = p->id()->string_view();
      pc.forbid = p->effect() == fb::Effect::Forbid;
      pc.code = p->code()->data();
      pc.size = p->code()->size();
      pc.num_registers = p->num_registers();
      pc.source = p;
      policies_.push_back(pc);
    }
  }
  scope_index_.Build(*this);
}

}  // namespace internal

Engine::Engine(std::shared_ptr<const internal::Program> program) : program_(std::move(program)) {}

absl::StatusOr<Engine> Engine::Create(Bundle bundle, const VerifyOptions& options) {
  ASSIGN_OR_RETURN(const internal::fb::Bundle* root,
                   internal::VerifyBundle(bundle.bytes(), options));
  return Engine(std::make_shared<const internal::Program>(std::move(bundle), root));
}

size_t Engine::policy_count() const { return program_->policies().size(); }

std::vector<std::string> Engine::policy_ids() const {
  std::vector<std::string> ids;
  for (const internal::PolicyCode& p : program_->policies()) ids.emplace_back(p.id);
  return ids;
}

Decision Engine::Authorize(const Request& request, const Entities& entities) const {
  using internal::EntityRef;
  using internal::Value;
  const internal::EntityStore& store = entities.store();
  const internal::RequestData& data = request.data();
  // The request's entities, resolved against this store once.
  EntityRef refs[3] = {data.principal_ref, data.action_ref, data.resource_ref};
  internal::Environment env;
  for (int i = 0; i < 3; ++i) {
    refs[i].uid = store.Find(refs[i].type, refs[i].id);
    env.vars[i] = Value::Entity(&refs[i]);
  }
  env.vars[3] = data.context;
  env.store = &store;

  internal::ScopeKeys keys;
  for (int i = 0; i < 3; ++i) {
    keys.refs[i] = &refs[i];
    keys.hashes[i] = data.key_hashes[i];
  }
  const internal::ScopeIndex& index = program_->scope_index();
  internal::ScopeScratch index_scratch;
  std::vector<uint32_t> candidates;
  index.Candidates(keys, store, &index_scratch, &candidates);

  internal::Arena scratch;
  Decision decision;
  std::vector<std::string> permits;
  std::vector<std::string> forbids;
  for (uint32_t c : candidates) {
    if (index.FailsEq(c, keys)) continue;
    const internal::PolicyCode& p = program_->policies()[c];
    internal::EvalResult r = internal::Evaluate(*program_, p, env, &scratch);
    switch (r.outcome) {
      case internal::Outcome::kTrue:
        (p.forbid ? forbids : permits).emplace_back(p.id);
        break;
      case internal::Outcome::kFalse:
        break;
      case internal::Outcome::kError:
        decision.errors.push_back(PolicyError{std::string(p.id), std::move(r.error)});
        break;
    }
  }
  if (!forbids.empty()) {
    decision.allowed = false;
    decision.reasons = std::move(forbids);
  } else {
    decision.allowed = !permits.empty();
    decision.reasons = std::move(permits);
  }
  return decision;
}

}  // namespace charter
