// `charter build`: compile a policy set into a bundle file.
//
//   charter build --policies P [--policies P ...] [--schema S [--schema S ...]] -o OUT
//
// The policy files (Cedar text, Cedar's JSON policy format, .charter text
// with scheduling declarations) are compiled together: one policy set, one
// scheduling configuration. With --schema the policies are validated
// against the schema first and compiled into a typed bundle that records the
// schema's fingerprint.
//
// The bundle is verified before it is written, and written atomically
// (a temporary file renamed into place): OUT is either untouched or whole.
#include <sys/stat.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "charter/charter.h"
#include "charter/schema.h"
#include "command.h"
#include "files.h"
#include "load.h"
#include "report.h"

namespace charter::cli {
namespace {

struct BuildFlags {
  std::vector<std::string> policies;
  std::string links;
  std::vector<std::string> schemas;
  std::string output;
};

int RunBuild(const BuildFlags& flags) {
  if (flags.output.empty()) {
    PrintError("-o: the output path is empty");
    return kError;
  }
  std::vector<std::string> inputs = flags.policies;
  inputs.push_back(flags.links);
  inputs.insert(inputs.end(), flags.schemas.begin(), flags.schemas.end());
  for (const std::string& input : inputs) {
    if (!input.empty() && SameFile(input, flags.output)) {
      PrintError(absl::StrCat(flags.output, ": is an input of this build (", input,
                              "): refusing to overwrite it with the bundle"));
      return kError;
    }
  }
  CompileOptions options;
  std::optional<Schema> schema;
  if (!flags.schemas.empty()) {
    absl::StatusOr<Schema> loaded = LoadSchemas(flags.schemas);
    if (!loaded.ok()) return Fail(loaded.status());
    schema = *std::move(loaded);
    options.schema = &*schema;
  }
  absl::StatusOr<Bundle> bundle = flags.policies.size() == 1
                                      ? CompilePolicyFile(flags.policies[0], flags.links, options)
                                      : CompilePolicyFiles(flags.policies, flags.links, options);
  if (!bundle.ok()) return Fail(bundle.status());
  if (absl::StatusOr<Engine> engine = Engine::Create(*bundle); !engine.ok()) {
    PrintError(WithPath(flags.policies[0],
                        absl::StrCat("internal error: the compiled bundle does not verify: ",
                                     OneLine(engine.status().message()))));
    return kError;
  }
  if (absl::Status written = bundle->WriteFile(flags.output); !written.ok()) {
    PrintError(WithPath(flags.output, OneLine(written.message())));
    return kError;
  }
  return kOk;
}

}  // namespace

Command AddBuildCommand(CLI::App& root) {
  auto flags = std::make_shared<BuildFlags>();
  CLI::App* app = root.add_subcommand("build", "Compile a policy set into a bundle file");
  app->add_option("--policies", flags->policies,
                  "Policy file: Cedar text or JSON, or .charter text with scheduling declarations; "
                  "give it again for more files, compiled together")
      ->type_name("FILE")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->required();
  app->add_option("--template-linked", flags->links,
                  "Template links: [{\"template_id\", \"link_id\", \"args\": {\"?principal\": ...}}]")
      ->type_name("FILE");
  app->add_option("--schema", flags->schemas,
                  "Schema (Cedar schema text or JSON): validate the policies against it and "
                  "compile typed code; give it again for more files, read as one schema "
                  "(Cedar schema text)")
      ->type_name("FILE")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app->add_option("-o,--output", flags->output, "Bundle file to write")
      ->type_name("FILE")
      ->required();
  return Command{app, [flags] { return RunBuild(*flags); }};
}

}  // namespace charter::cli
