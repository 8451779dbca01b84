// `charter disasm`: a bundle's bytecode, readable.
//
//   charter disasm BUNDLE                             # a bundle from `charter build`
//   charter disasm --policies P [--template-linked L] # compiled first
//
// The bundle is verified before it is read, so a corrupt one is an error,
// never a crash. One block a policy, one line an instruction; the
// instruction set is described in docs/bundle.md.
#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "bytecode/disasm.h"
#include "charter/charter.h"
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

int RunDisasm(const DisasmFlags& flags) {
  VerifyOptions options;
  absl::StatusOr<Bundle> bundle;
  const std::string& path = flags.bundle.empty() ? flags.policies : flags.bundle;
  if (!flags.bundle.empty()) {
    if (absl::Status readable = CheckReadable(path); !readable.ok()) return Fail(readable);
    bundle = Bundle::FromFile(path, options.max_bundle_bytes);
    if (!bundle.ok()) {
      PrintError(WithPath(path, OneLine(bundle.status().message())));
      return kError;
    }
  } else {
    bundle = CompilePolicyFile(flags.policies, flags.links);
    if (!bundle.ok()) return Fail(bundle.status());
  }
  absl::StatusOr<const internal::fb::Bundle*> root = internal::VerifyBundle(bundle->bytes(), options);
  if (!root.ok()) {
    PrintError(WithPath(path, OneLine(root.status().message())));
    return kError;
  }
  return WriteStdout(internal::Disassemble(*root)) ? kOk : kError;
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
