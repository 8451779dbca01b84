// charter::Compile: read (policy_set/), validate, declare, lower, bundle.
//
// Sources are read one by one (each its own AST and diagnostics), validated
// one by one (Cedar validates a policy alone), then their policies form one
// policy set, linked once, and their declarations go to the declarations
// compiler the options name (the scheduling library's makes them one
// configuration, in a section of the bundle). A fault goes to the
// diagnostics of the source it is in.
#include "charter/compiler.h"

#include <memory>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
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

size_t ErrorsSince(const Diagnostics& diags, size_t before) {
  size_t n = 0;
  for (size_t i = before; i < diags.size(); ++i) n += diags.items()[i].severity == Severity::kError;
  return n;
}

// What reading several sources gives: each source's AST (kept, since the
// declarations stay in it), and the policy set they form.
struct ReadSources {
  std::vector<internal::ast::PolicySet> asts;
  std::unique_ptr<internal::PolicySet> set = std::make_unique<internal::PolicySet>();
  std::vector<size_t> before;  // each source's diagnostics count before reading
};

// Reads, validates (with a schema) and links the sources' policies into
// one set; the declarations stay in `asts`.
ReadSources Read(const std::vector<SourceFile>& sources, const std::vector<TemplateLink>& links,
                 const CompileOptions& options, std::vector<Diagnostics>& diags) {
  ReadSources out;
  out.asts.resize(sources.size());
  size_t next_index = 0;
  for (size_t i = 0; i < sources.size(); ++i) {
    out.before.push_back(diags[i].size());
    out.asts[i] = internal::ReadPolicySource(sources[i], options, &diags[i], next_index, &out.set->links);
    next_index += out.asts[i].policies.size();
    if (options.schema != nullptr && diags[i].size() == out.before[i]) {
      internal::ValidatePolicySet(internal::Unwrap::Model(*options.schema), out.asts[i], &diags[i]);
    }
  }
  // One policy set: ids are unique across the sources.
  absl::flat_hash_map<std::string, size_t> ids;
  for (size_t i = 0; i < sources.size(); ++i) {
    for (internal::ast::Policy& p : out.asts[i].policies) {
      auto [it, inserted] = ids.try_emplace(p.id, i);
      if (!inserted) {
        diags[i].Error(internal::codes::CH0125, p.span, internal::Cat("duplicate policy id `", p.id, "`"),
                       internal::Cat("`", p.id, "` is also a policy of ", sources[it->second].name(),
                                     ": every policy's `@id` must be unique in the policy set"));
        continue;
      }
      p.source = static_cast<uint32_t>(i);
      out.set->ast.policies.push_back(std::move(p));
    }
    out.asts[i].policies.clear();
  }
  out.set->links.insert(out.set->links.end(), links.begin(), links.end());
  for (size_t i = 0; i < sources.size(); ++i) {
    if (ErrorsSince(diags[i], out.before[i]) > 0) return out;
  }
  out.set->linked = internal::LinkTemplates(out.set->ast, out.set->links, &out.set->instances);
  if (options.schema != nullptr) {
    // Each link is validated into the diagnostics of its template's source.
    std::vector<std::vector<internal::PolicyInstance>> by_source(sources.size());
    for (const internal::PolicyInstance& instance : out.set->instances) {
      if (instance.link != nullptr) by_source[instance.policy->source].push_back(instance);
    }
    for (size_t i = 0; i < sources.size(); ++i) {
      if (by_source[i].empty()) continue;
      internal::ValidateTemplateLinks(internal::Unwrap::Model(*options.schema), by_source[i], &diags[i]);
    }
  }
  return out;
}

// The first error of any source, as "file:line:col: message".
absl::Status FirstError(const std::vector<SourceFile>& sources, const std::vector<Diagnostics>& diags,
                        const std::vector<size_t>& before) {
  for (size_t i = 0; i < sources.size(); ++i) {
    if (ErrorsSince(diags[i], before[i]) > 0) {
      return absl::InvalidArgumentError(diags[i].FirstErrorLine(sources[i], before[i]));
    }
  }
  return absl::OkStatus();
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
  ReadSources read = Read(sources, links, options, diags);
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
  bool failed = false;
  for (size_t i = 0; i < sources.size(); ++i) failed = failed || ErrorsSince(diags[i], read.before[i]) > 0;
  std::string bytes;
  if (!failed) {
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
  if (absl::Status first = FirstError(sources, diags, read.before); !first.ok()) return first;
  return Bundle::FromBytes(std::move(bytes));
}

}  // namespace charter
