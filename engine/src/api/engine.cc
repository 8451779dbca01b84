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

// What an EvalContext keeps between calls.
struct EvalScratch {
  EntityRef refs[3];
  // The program the views below point into, kept alive with the context
  // (an EngineHandle may drop the engine meanwhile).
  std::shared_ptr<const Program> program;
  // The program's constants resolved against the last entity store (it
  // keeps both alive).
  StoreBinding binding;
  Arena arena;
  ScopeScratch index;
  std::vector<uint32_t> candidates;
  std::vector<std::string_view> permits, forbids;
  std::vector<EvalError> failures;  // grows; error i's message is failures[i].message
  std::vector<PolicyErrorView> errors;
  bool allowed = false;
  size_t evaluated = 0;
};

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
      std::string_view type = e->type()->string_view(), id = e->id()->string_view();
      entities_.push_back(EntityRef{type, id, kNoUid, EntityKeyHash(type, id)});
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
  if (root_->const_sets() != nullptr) {
    // INVARIANT: the verifier checked every index and that the elements
    // are unique; entities_ and strings_ no longer move.
    for (const fb::ConstSet* set : *root_->const_sets()) {
      std::vector<Value> elems;
      elems.reserve(set->elems()->size());
      for (const fb::ConstScalar* e : *set->elems()) {
        switch (e->kind()) {
          case fb::ScalarKind::Bool: elems.push_back(Value::Bool(e->index() != 0)); break;
          case fb::ScalarKind::Long: elems.push_back(Value::Long(longs_[e->index()])); break;
          case fb::ScalarKind::String: elems.push_back(strings_[e->index()]); break;
          default: elems.push_back(Value::Entity(&entities_[e->index()])); break;
        }
      }
      const_set_elements_.push_back(std::move(elems));
    }
    for (const std::vector<Value>& elems : const_set_elements_) {
      const_sets_.push_back(Value::Set(elems.data(), static_cast<uint32_t>(elems.size())));
    }
  }
  if (root_->schema_fingerprint() != nullptr) {
    schema_fingerprint_ = root_->schema_fingerprint()->string_view();
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

std::string_view Engine::schema_fingerprint() const { return program_->schema_fingerprint(); }

std::vector<std::string> Engine::policy_ids() const {
  std::vector<std::string> ids;
  for (const internal::PolicyCode& p : program_->policies()) ids.emplace_back(p.id);
  return ids;
}

bool Engine::Authorize(const Request& request, const Entities& entities,
                       EvalContext* context) const {
  using internal::EntityRef;
  using internal::Value;
  if (context->scratch_ == nullptr) context->scratch_ = std::make_unique<internal::EvalScratch>();
  internal::EvalScratch& s = *context->scratch_;
  if (s.program != program_) s.program = program_;  // no atomic operation in the steady state
  const internal::EntityStore& store = entities.store();
  const internal::RequestData& data = request.data();
  // The request's entities, resolved against this store once.
  EntityRef* refs = s.refs;
  refs[0] = data.principal_ref;
  refs[1] = data.action_ref;
  refs[2] = data.resource_ref;
  internal::Environment env;
  internal::ScopeKeys keys;
  for (int i = 0; i < 3; ++i) {
    refs[i].key_hash = data.key_hashes[i];
    refs[i].uid = store.Find(refs[i].type, refs[i].id, data.key_hashes[i]);
    env.vars[i] = Value::Entity(&refs[i]);
    keys.refs[i] = &refs[i];
    keys.hashes[i] = data.key_hashes[i];
  }
  env.vars[3] = data.context;
  env.store = &store;
  env.binding = s.binding.Prepare(program_, entities.shared_store());

  const internal::ScopeIndex& index = program_->scope_index();
  index.Candidates(keys, store, &s.index, &s.candidates);
  s.arena.Reset();
  s.permits.clear();
  s.forbids.clear();
  s.errors.clear();
  s.evaluated = 0;
  const std::vector<internal::PolicyCode>& policies = program_->policies();
  for (uint32_t c : s.candidates) {
    const internal::PolicyCode& p = policies[c];
    ++s.evaluated;
    size_t e = s.errors.size();
    if (e == s.failures.size()) s.failures.emplace_back();
    switch (internal::Run(*program_, p, env, &s.arena, &s.failures[e])) {
      case internal::Outcome::kTrue:
        (p.forbid ? s.forbids : s.permits).push_back(p.id);
        break;
      case internal::Outcome::kFalse:
        break;
      case internal::Outcome::kError:
        s.errors.push_back(PolicyErrorView{p.id, {}, internal::SpanAt(p, s.failures[e].pc)});
        break;
    }
  }
  // INVARIANT: the messages no longer move, so views of them hold.
  for (size_t i = 0; i < s.errors.size(); ++i) s.errors[i].message = s.failures[i].message;
  s.allowed = s.forbids.empty() && !s.permits.empty();
  return s.allowed;
}

Decision Engine::Authorize(const Request& request, const Entities& entities) const {
  EvalContext context;
  Authorize(request, entities, &context);
  return context.ToDecision();
}

EvalContext::EvalContext() = default;
EvalContext::~EvalContext() = default;
EvalContext::EvalContext(EvalContext&&) noexcept = default;
EvalContext& EvalContext::operator=(EvalContext&&) noexcept = default;

bool EvalContext::allowed() const { return scratch_ != nullptr && scratch_->allowed; }

std::span<const std::string_view> EvalContext::reasons() const {
  if (scratch_ == nullptr) return {};
  return scratch_->forbids.empty() ? scratch_->permits : scratch_->forbids;
}

std::span<const PolicyErrorView> EvalContext::errors() const {
  if (scratch_ == nullptr) return {};
  return scratch_->errors;
}

size_t EvalContext::policies_evaluated() const {
  return scratch_ == nullptr ? 0 : scratch_->evaluated;
}

Decision EvalContext::ToDecision() const {
  Decision d;
  d.allowed = allowed();
  for (std::string_view id : reasons()) d.reasons.emplace_back(id);
  for (const PolicyErrorView& e : errors()) {
    d.errors.push_back(PolicyError{std::string(e.policy_id), std::string(e.message), e.span});
  }
  return d;
}

}  // namespace charter
