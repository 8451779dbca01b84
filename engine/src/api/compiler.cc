// charter::Compile: parse, lower, bundle.
#include "charter/compiler.h"

#include <string_view>
#include "compile/lower.h"
#include "policy_json/policy_json.h"
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
  if (diags->size() == before) {
    absl::StatusOr<std::string> lowered = internal::LowerToBundle(set, all_links, source, diags);
    if (!lowered.ok()) return lowered.status();
    bytes = *std::move(lowered);
  }
  if (diags->size() > before) {
    diags->Truncate(before + options.max_errors);
    return absl::InvalidArgumentError(diags->FirstErrorLine(source, before));
  }
  return Bundle::FromBytes(std::move(bytes));
}

}  // namespace charter
