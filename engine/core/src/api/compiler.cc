// charter::Compile: read (policy_set/), validate, declare, lower, bundle.
//
// Sources are read one by one (each its own AST and diagnostics), validated
// one by one (Cedar validates a policy alone), then their policies form one
// policy set, linked once, and their declarations go to the declarations
// compiler the options name (the scheduling library's makes them one
// configuration, in a section of the bundle). A fault goes to the
// diagnostics of the source it is in.
#include "charter/compiler.h"

#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "unwrap/unwrap.h"
#include "ast/declarations.h"
#include "charter/schema.h"
#include "check/validator.h"
#include "common/diagnostic_codes.h"
#include "common/strings.h"
#include "compile/lower.h"
#include "policy_set/policy_set.h"
#include "schema/schema_model.h"

namespace charter {
namespace {

// Reads, validates (with a schema) and links the sources' policies into
// one set; the declarations stay in `asts`.
internal::SourcesRead Read(const std::vector<SourceFile>& sources, const std::vector<TemplateLink>& links,
                           const CompileOptions& options, std::vector<Diagnostics>& diags) {
  std::function<void(size_t, const internal::ast::PolicySet&)> validate;
  if (options.schema != nullptr) {
    validate = [&](size_t i, const internal::ast::PolicySet& ast) {
      internal::ValidatePolicySet(internal::Unwrap::Model(*options.schema), ast, &diags[i]);
    };
  }
  internal::SourcesRead out = internal::ReadPolicySources(sources, links, options, diags, validate);
  if (out.failed(diags) || options.schema == nullptr) return out;
  // Each link is validated into the diagnostics of its template's source.
  std::vector<std::vector<internal::PolicyInstance>> by_source(sources.size());
  for (const internal::PolicyInstance& instance : out.set->instances) {
    if (instance.link != nullptr) by_source[instance.policy->source].push_back(instance);
  }
  for (size_t i = 0; i < sources.size(); ++i) {
    if (by_source[i].empty()) continue;
    internal::ValidateTemplateLinks(internal::Unwrap::Model(*options.schema), by_source[i], &diags[i]);
  }
  return out;
}

}  // namespace

absl::StatusOr<Bundle> Compile(const SourceFile& source, const CompileOptions& options,
                               Diagnostics* diagnostics) {
  return Compile(source, {}, options, diagnostics);
}

absl::StatusOr<Bundle> Compile(const SourceFile& source, const std::vector<TemplateLink>& links,
                               const CompileOptions& options, Diagnostics* diagnostics) {
  // (A copy of the text: the one-source case is the several-sources case.)
  std::vector<SourceFile> sources{source};
  std::vector<Diagnostics> diags(1);
  if (diagnostics != nullptr) diags[0] = *diagnostics;
  absl::StatusOr<Bundle> bundle = Compile(sources, links, options, &diags);
  if (diagnostics != nullptr) *diagnostics = std::move(diags[0]);
  return bundle;
}

absl::StatusOr<Bundle> Compile(const std::vector<SourceFile>& sources, const std::vector<TemplateLink>& links,
                               const CompileOptions& options, std::vector<Diagnostics>* diagnostics) {
  std::vector<Diagnostics> local;
  std::vector<Diagnostics>& diags = diagnostics != nullptr ? *diagnostics : local;
  if (diags.size() < sources.size()) diags.resize(sources.size());
  internal::SourcesRead read = Read(sources, links, options, diags);
  internal::LowerOptions lower;
  // The declarations of every source, compiled by the library the options
  // name into its section.
  if (options.declarations != nullptr) {
    std::vector<internal::DeclarationFile> files;
    for (size_t i = 0; i < sources.size(); ++i) files.push_back({&sources[i], &read.asts[i].declarations, &diags[i]});
    if (std::optional<std::string> section = options.declarations->Compile(files)) {
      lower.sections.emplace_back(options.declarations->section(), *std::move(section));
    }
  } else {
    for (size_t i = 0; i < sources.size(); ++i) {
      if (read.asts[i].declarations.empty()) continue;
      const internal::ast::DeclEntry& first = read.asts[i].declarations.front();
      diags[i].Error(internal::codes::CH0809, first.span,
                     internal::Cat("`", first.head.text, "` declares, and nothing compiles declarations here"),
                     "the scheduling library compiles them: set CompileOptions::declarations to "
                     "&charter::schedule::Declarations() (charter/schedule.h)");
    }
  }
  lower.max_code_words = options.max_code_words;
  lower.max_policies = options.max_policies;
  lower.max_bundle_bytes = options.max_bundle_bytes;
  lower.max_bundle_tables = options.max_bundle_tables;
  if (options.schema != nullptr) {
    lower.typed = true;
    lower.schema_fingerprint = options.schema->Fingerprint();
  }
  std::string bytes;
  if (!read.failed(diags)) {
    std::vector<const SourceFile*> source_ptrs;
    std::vector<Diagnostics*> diag_ptrs;
    for (size_t i = 0; i < sources.size(); ++i) {
      source_ptrs.push_back(&sources[i]);
      diag_ptrs.push_back(&diags[i]);
    }
    absl::StatusOr<std::string> lowered = internal::LowerToBundle(*read.set, source_ptrs, lower, diag_ptrs);
    if (!lowered.ok()) return lowered.status();
    bytes = *std::move(lowered);
  }
  for (size_t i = 0; i < sources.size(); ++i) diags[i].Truncate(read.before[i] + options.max_errors);
  if (absl::Status first = read.FirstError(sources, diags); !first.ok()) return first;
  return Bundle::FromBytes(std::move(bytes));
}

}  // namespace charter
