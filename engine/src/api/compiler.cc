// charter::Compile: parse, lower, bundle.
#include "charter/compiler.h"

#include <string_view>
#include "charter/schema.h"
#include "check/validator.h"
#include "compile/lower.h"
#include "schema/schema_model.h"
#include "policy_json/policy_json.h"
#include "syntax/parser.h"

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
  // Cedar's JSON policy format is an object; policy text never starts with `{`.
  std::string_view text = source.text();
  size_t first_char = text.find_first_not_of(" \t\r\n");
  bool json = first_char != std::string_view::npos && text[first_char] == '{';
  std::vector<TemplateLink> all_links;
  internal::ast::PolicySet set =
      json ? internal::ParsePolicySetJson(source, options, diags, &all_links)
           : internal::ParsePolicySet(source, options, diags);
  all_links.insert(all_links.end(), links.begin(), links.end());
  std::string bytes;
  internal::LowerOptions lower;
  if (options.schema != nullptr && diags->size() == before) {
    internal::ValidatePolicySet(options.schema->data().model, set, diags);
    lower.typed = true;
    lower.schema_fingerprint = options.schema->Fingerprint();
  }
  if (ErrorsSince(*diags, before) == 0) {
    absl::StatusOr<std::string> lowered =
        internal::LowerToBundle(set, all_links, source, lower, diags);
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
