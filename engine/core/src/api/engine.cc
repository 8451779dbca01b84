// charter::Engine and charter::EvalContext: the public face of the verifier
// (verify/) and of the authorizer (vm/authorizer.h).
#include "charter/engine.h"

#include <algorithm>
#include <cstdint>

#include "unwrap/unwrap.h"
#include "charter/schema.h"
#include "common/combine.h"
#include "common/status_macros.h"
#include "request/request_data.h"
#include "verify/verifier.h"
#include "vm/authorizer.h"
#include "vm/program.h"

namespace charter {

Engine::Engine(std::shared_ptr<const internal::Program> program) : program_(std::move(program)) {}

absl::StatusOr<Engine> Engine::Create(Bundle bundle, const VerifyOptions& options) {
  ASSIGN_OR_RETURN(const internal::fb::Bundle* root, internal::VerifyBundle(bundle.bytes(), options));
  internal::EvalLimits limits;
  // Value::depth is 16 bits.
  limits.max_value_depth = static_cast<uint16_t>(std::min<size_t>(options.max_value_depth, UINT16_MAX));
  limits.max_decision_bytes = options.max_decision_bytes;
  limits.max_decision_work = options.max_decision_work;
  return Engine(
      std::make_shared<const internal::Program>(std::move(bundle), root, limits));
}

std::optional<std::string_view> Engine::section(std::string_view name) const {
  const auto* sections = program_->root()->sections();
  if (sections == nullptr) return std::nullopt;
  // Sorted by name (the verifier checked): a binary search.
  auto it = std::lower_bound(sections->begin(), sections->end(), name,
                             [](const internal::fb::Section* s, std::string_view n) { return s->name()->string_view() < n; });
  if (it == sections->end() || it->name()->string_view() != name) return std::nullopt;
  return std::string_view(reinterpret_cast<const char*>(it->data()->data()), it->data()->size());
}

size_t Engine::policy_count() const { return program_->policies().size(); }

std::string_view Engine::schema_fingerprint() const { return program_->schema_fingerprint(); }

Engine::SchemaFit Engine::FitSchema(const Schema* schema) const {
  std::string_view fingerprint = program_->schema_fingerprint();
  if (fingerprint.empty()) return SchemaFit::kUntyped;
  if (schema == nullptr) return SchemaFit::kMissing;
  return schema->Fingerprint() == fingerprint ? SchemaFit::kSame : SchemaFit::kOther;
}

std::vector<std::string> Engine::policy_ids() const {
  std::vector<std::string> ids;
  for (const internal::PolicyCode& p : program_->policies()) ids.emplace_back(p.id);
  return ids;
}

std::vector<PolicyInfo> Engine::policies() const {
  std::vector<PolicyInfo> out;
  out.reserve(program_->policies().size());
  for (const internal::PolicyCode& p : program_->policies()) {
    PolicyInfo& info = out.emplace_back();
    info.id = std::string(p.id);
    info.forbid = p.forbid;
    // The verifier has checked the bundle: every annotation has its key and value.
    if (p.source != nullptr && p.source->annotations() != nullptr) {
      for (const internal::fb::Annotation* a : *p.source->annotations()) {
        info.annotations.emplace_back(a->key()->str(), a->value()->str());
      }
    }
  }
  return out;
}

bool Engine::Authorize(const Request& request, const Entities& entities,
                       EvalContext* context) const {
  if (context->scratch_ == nullptr) context->scratch_ = std::make_unique<internal::EvalScratch>();
  const internal::RequestData& data = internal::Unwrap::Data(request);
  internal::RequestView view{{&data.principal_ref, &data.action_ref, &data.resource_ref},
                             data.key_hashes, &data.context};
  return internal::Authorize(program_, view, internal::Unwrap::SharedStore(entities), context->scratch_.get());
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
  return internal::DeterminingPolicies(scratch_->permits, scratch_->forbids);
}

std::span<const std::string_view> EvalContext::satisfied_permits() const {
  if (scratch_ == nullptr) return {};
  return scratch_->permits;
}

std::span<const std::string_view> EvalContext::satisfied_forbids() const {
  if (scratch_ == nullptr) return {};
  return scratch_->forbids;
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
