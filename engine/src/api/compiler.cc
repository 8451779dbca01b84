// charter::Compile: read (policy_set/), validate, lower, bundle.
#include "charter/compiler.h"

#include <memory>

#include "access/access.h"
#include "charter/schema.h"
#include "check/validator.h"
#include "compile/lower.h"
#include "policy_set/policy_set.h"
#include "schema/schema_model.h"

namespace charter {
namespace {

size_t ErrorsSince(const Diagnostics& diags, size_t before) {
  size_t n = 0;
  for (size_t i = before; i < diags.size(); ++i) n += diags.items()[i].severity == Severity::kError;
  return n;
}

}  // namespace

absl::StatusOr<Bundle> Compile(const SourceFile& source, const CompileOptions& options,
                               Diagnostics* diagnostics) {
  return Compile(source, {}, options, diagnostics);
}

absl::StatusOr<Bundle> Compile(const SourceFile& source, const std::vector<TemplateLink>& links,
                               const CompileOptions& options, Diagnostics* diagnostics) {
  Diagnostics local;
  Diagnostics* diags = diagnostics != nullptr ? diagnostics : &local;
  size_t before = diags->size();
  std::unique_ptr<internal::PolicySet> set = internal::ReadPolicySet(source, links, options, diags);
  std::string bytes;
  internal::LowerOptions lower;
  if (options.schema != nullptr && diags->size() == before) {
    internal::ValidatePolicySet(internal::ApiAccess::Model(*options.schema), set->ast, diags);
    internal::ValidateTemplateLinks(internal::ApiAccess::Model(*options.schema), set->instances, diags);
    lower.typed = true;
    lower.schema_fingerprint = options.schema->Fingerprint();
  }
  if (ErrorsSince(*diags, before) == 0) {
    absl::StatusOr<std::string> lowered = internal::LowerToBundle(*set, source, lower, diags);
    if (!lowered.ok()) return lowered.status();
    bytes = *std::move(lowered);
  }
  if (ErrorsSince(*diags, before) > 0) {
    diags->Truncate(before + options.max_errors);
    return absl::InvalidArgumentError(diags->FirstErrorLine(source, before));
  }
  return Bundle::FromBytes(std::move(bytes));
}

}  // namespace charter
