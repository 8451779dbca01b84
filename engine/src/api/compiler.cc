// charter::Compile: parse, lower, bundle.
#include "charter/compiler.h"

#include "absl/strings/str_cat.h"
#include "compile/lower.h"
#include "syntax/parser.h"

namespace charter {

absl::StatusOr<Bundle> Compile(const SourceFile& source, const CompileOptions& options,
                               Diagnostics* diagnostics) {
  return Compile(source, {}, options, diagnostics);
}

absl::StatusOr<Bundle> Compile(const SourceFile& source, const std::vector<TemplateLink>& links,
                               const CompileOptions& options, Diagnostics* diagnostics) {
  Diagnostics local;
  Diagnostics* diags = diagnostics != nullptr ? diagnostics : &local;
  size_t before = diags->size();
  internal::ast::PolicySet set = internal::ParsePolicySet(source, options, diags);
  std::string bytes;
  if (diags->size() == before) {
    absl::StatusOr<std::string> lowered = internal::LowerToBundle(set, links, source, diags);
    if (!lowered.ok()) return lowered.status();
    bytes = *std::move(lowered);
  }
  if (diags->size() > before) {
    diags->Truncate(before + options.max_errors);
    Diagnostics first;
    first.Add(diags->items()[before]);
    std::string line = first.RenderShort(source);
    if (!line.empty() && line.back() == '\n') line.pop_back();
    return absl::InvalidArgumentError(line);
  }
  return Bundle::FromBytes(std::move(bytes));
}

}  // namespace charter
