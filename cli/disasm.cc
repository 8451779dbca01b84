// `charter disasm`: a bundle's bytecode, readable.
//
//   charter disasm BUNDLE                             # a bundle from `charter build`
//   charter disasm --policies P [--template-linked L] # compiled first
//
// The bundle is verified before it is read, so a corrupt one is an error,
// never a crash. One block a policy, one line an instruction with its
// opcode's synopsis; with --policies, each run of instructions follows the
// source line it computes.
// The instruction set is described in docs/bundle.md.
#include <memory>
#include <optional>
#include <string_view>
#include <vector>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "charter/charter.h"
#include "command.h"
#include "files.h"
#include "load.h"
#include "report.h"
#include "util.h"

namespace charter::cli {
namespace {

struct DisasmFlags {
  std::string bundle;
  std::vector<std::string> policies;
  std::string links;
};

// The listing with the source lines it comes from, objdump -S style: before
// an instruction, the policy line its expression starts on, when that is not
// the line shown last in its policy ("    ; 3 | when { context.urgent };").
// The lines come from the instructions' spans (the bundle's pc-to-span
// tables).
std::string WithSource(const Disassembly& d, const SourceFile& source) {
  std::string out;
  for (const DisassembledPolicy& p : d.policies) {
    CatAppend(&out, p.Header(), "\n");
    uint32_t shown = 0;  // the source line shown last in this policy
    for (const DisassembledInstruction& i : p.code) {
      if (i.has_span && i.span.begin < source.text().size()) {
        uint32_t n = source.PositionOf(i.span.begin).line;
        if (n != shown) {
          std::string_view text = source.Line(n);
          size_t first = text.find_first_not_of(" \t");
          text = first == std::string_view::npos ? std::string_view() : text.substr(first);
          CatAppend(&out, "    ; ", n, " | ", text, "\n");
          shown = n;
        }
      }
      CatAppend(&out, i.ToText(), "\n");
    }
  }
  return out;
}

int RunDisasm(const DisasmFlags& flags) {
  VerifyOptions options;
  absl::StatusOr<Bundle> bundle;
  std::optional<SourceFile> source;
  std::string path = flags.bundle;
  if (!flags.bundle.empty()) {
    if (absl::Status readable = CheckReadable(path); !readable.ok()) return Fail(readable);
    bundle = Bundle::FromFile(path, options.max_bundle_bytes);
    if (!bundle.ok()) {
      PrintError(WithPath(path, OneLine(bundle.status().message())));
      return kError;
    }
  } else {
    // The text compiled is the text shown (one file; several are listed
    // without their text): one read of each file.
    bundle = CompilePolicyFiles(flags.policies, flags.links, CompileOptions{}, &source);
    if (!bundle.ok()) return Fail(bundle.status());
    path = source.has_value() ? source->name() : flags.policies.front();
  }
  absl::StatusOr<Disassembly> disassembly = Disassemble(*bundle, options);
  if (!disassembly.ok()) {
    PrintError(WithPath(path, OneLine(disassembly.status().message())));
    return kError;
  }
  std::string listing = source.has_value() ? WithSource(*disassembly, *source) : disassembly->ToText();
  return WriteStdout(listing) ? kOk : kError;
}

}  // namespace

Command AddDisasmCommand(CLI::App& root) {
  auto flags = std::make_shared<DisasmFlags>();
  CLI::App* app = root.add_subcommand("disasm", "Print the bytecode of a bundle or a policy set");
  CLI::Option* bundle =
      app->add_option("BUNDLE", flags->bundle, "Bundle file (from `charter build`)")->type_name("FILE");
  CLI::Option* policies = AddPoliciesOption(app, &flags->policies, ", compiled together first");
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
