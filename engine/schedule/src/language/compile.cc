// The declarations compiler that charter::Compile calls (CompileOptions::
// declarations), which writes the configuration into the bundle's
// `scheduling` section (section/bundle_table.h; section/configuration.cc
// reads it back), and CompileDeclarations, which reads the configuration
// without a bundle.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ast/declarations.h"
#include "charter/compiler.h"
#include "charter/schedule.h"
#include "language/declare.h"
#include "policy_set/policy_set.h"
#include "section/bundle_table.h"

namespace charter::schedule {
namespace {

class SchedulingDeclarations final : public DeclarationCompiler {
 public:
  std::string_view section() const override { return internal::schedule::kSchedulingSection; }
  std::optional<std::string> Compile(const std::vector<internal::DeclarationFile>& files) const override {
    State config;
    if (!internal::Declare(files, {}, &config)) return std::nullopt;
    return internal::schedule::WriteSchedulingSection(config);
  }
};

}  // namespace

const DeclarationCompiler& Declarations() {
  // Stateless and immutable: one for every caller.
  static const SchedulingDeclarations kDeclarations;
  return kDeclarations;
}

absl::StatusOr<State> CompileDeclarations(const std::vector<SourceFile>& sources, const CompileOptions& options,
                                          std::vector<Diagnostics>* diagnostics) {
  std::vector<Diagnostics> local;
  std::vector<Diagnostics>& diags = diagnostics != nullptr ? *diagnostics : local;
  if (diags.size() < sources.size()) diags.resize(sources.size());
  std::vector<internal::ast::PolicySet> asts(sources.size());
  std::vector<size_t> before;
  std::vector<TemplateLink> links;
  std::vector<internal::DeclarationFile> files;
  for (size_t i = 0; i < sources.size(); ++i) {
    before.push_back(diags[i].size());
    asts[i] = internal::ReadPolicySource(sources[i], options, &diags[i], 0, &links);
    files.push_back({&sources[i], &asts[i].declarations, &diags[i]});
  }
  State state;
  internal::Declare(files, {}, &state);
  for (size_t i = 0; i < sources.size(); ++i) diags[i].Truncate(before[i] + options.max_errors);
  for (size_t i = 0; i < sources.size(); ++i) {
    if (std::string first = diags[i].FirstErrorLine(sources[i], before[i]); !first.empty()) {
      return absl::InvalidArgumentError(first);
    }
  }
  return state;
}

}  // namespace charter::schedule
