// `charter disasm`: a bundle's bytecode, readable.
//
//   charter disasm BUNDLE                             # a bundle from `charter build`
//   charter disasm --policies P [--template-linked L] # compiled first
//
// The bundle is verified before it is read, so a corrupt one is an error,
// never a crash. One block a policy, one line an instruction; with
// --policies, each run of instructions follows the source line it computes.
// The instruction set is described in docs/bundle.md.
#include <cstdlib>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "bytecode/disasm.h"
#include "charter/charter.h"
#include "common/strings.h"
#include "command.h"
#include "files.h"
#include "load.h"
#include "report.h"
#include "verify/verifier.h"

namespace charter::cli {
namespace {

struct DisasmFlags {
  std::string bundle;
  std::string policies;
  std::string links;
};

// The listing with the source lines it comes from, objdump -S style: before
// an instruction, the policy line its expression starts on, when that is not
// the line shown last ("    ; 3 | when { context.urgent };"). The lines
// come from the bundle's pc-to-span tables.
std::string WithSource(const std::string& listing, const internal::fb::Bundle* bundle,
                       const SourceFile& source) {
  std::string out;
  int policy = -1;
  uint32_t shown = 0;  // the source line shown last in this policy
  const internal::fb::Policy* p = nullptr;
  size_t start = 0;
  while (start < listing.size()) {
    size_t end = listing.find('\n', start);
    if (end == std::string::npos) end = listing.size();
    std::string_view line(listing.data() + start, end - start);
    start = end + 1;
    if (line.rfind("policy ", 0) == 0) {
      ++policy;
      shown = 0;
      p = bundle->policies()->Get(static_cast<uint32_t>(policy));
    } else if (p != nullptr && p->pc_spans() != nullptr && line.size() > 2 && line[2] >= '0' && line[2] <= '9') {
      uint32_t pc = static_cast<uint32_t>(std::strtoul(std::string(line.substr(2, 8)).c_str(), nullptr, 10));
      for (const internal::fb::PcSpan* span : *p->pc_spans()) {
        if (span->pc() != pc || span->begin() >= source.text().size()) continue;
        uint32_t n = source.PositionOf(span->begin()).line;
        if (n != shown) {
          std::string_view text = source.Line(n);
          size_t first = text.find_first_not_of(" \t");
          text = first == std::string_view::npos ? std::string_view() : text.substr(first);
          internal::CatAppend(&out, "    ; ", n, " | ", text, "\n");
          shown = n;
        }
        break;
      }
    }
    internal::CatAppend(&out, line, "\n");
  }
  return out;
}

int RunDisasm(const DisasmFlags& flags) {
  VerifyOptions options;
  absl::StatusOr<Bundle> bundle;
  std::optional<SourceFile> source;
  const std::string& path = flags.bundle.empty() ? flags.policies : flags.bundle;
  if (!flags.bundle.empty()) {
    if (absl::Status readable = CheckReadable(path); !readable.ok()) return Fail(readable);
    bundle = Bundle::FromFile(path, options.max_bundle_bytes);
    if (!bundle.ok()) {
      PrintError(WithPath(path, OneLine(bundle.status().message())));
      return kError;
    }
  } else {
    // The text compiled is the text shown: one read of each file.
    CompileOptions compile;
    absl::StatusOr<std::vector<TemplateLink>> links = LoadTemplateLinks(flags.links, compile.max_source_bytes);
    if (!links.ok()) return Fail(links.status());
    absl::StatusOr<std::string> text = ReadFile(flags.policies, compile.max_source_bytes);
    if (!text.ok()) return Fail(text.status());
    source.emplace(flags.policies, *std::move(text));
    bundle = CompilePolicySource(*source, *links, compile);
    if (!bundle.ok()) return Fail(bundle.status());
  }
  absl::StatusOr<const internal::fb::Bundle*> root = internal::VerifyBundle(bundle->bytes(), options);
  if (!root.ok()) {
    PrintError(WithPath(path, OneLine(root.status().message())));
    return kError;
  }
  std::string listing = internal::Disassemble(*root);
  if (source.has_value()) listing = WithSource(listing, *root, *source);
  return WriteStdout(listing) ? kOk : kError;
}

}  // namespace

Command AddDisasmCommand(CLI::App& root) {
  auto flags = std::make_shared<DisasmFlags>();
  CLI::App* app = root.add_subcommand("disasm", "Print the bytecode of a bundle or a policy set");
  CLI::Option* bundle =
      app->add_option("BUNDLE", flags->bundle, "Bundle file (from `charter build`)")->type_name("FILE");
  CLI::Option* policies =
      app->add_option("--policies", flags->policies, "Cedar policy file, compiled first")
          ->type_name("FILE");
  bundle->excludes(policies);
  app->add_option("--template-linked", flags->links,
                  "Template links for --policies: [{\"template_id\", \"link_id\", \"args\": {...}}]")
      ->type_name("FILE")
      ->needs(policies);
  app->callback([flags] {
    if (flags->bundle.empty() && flags->policies.empty()) throw CLI::RequiredError("BUNDLE or --policies");
  });
  return Command{app, [flags] { return RunDisasm(*flags); }};
}

}  // namespace charter::cli
