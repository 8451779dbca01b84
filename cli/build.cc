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
#include "project.h"
#include "report.h"
#include "util.h"

namespace charter::cli {
namespace {

struct BuildFlags {
  std::vector<std::string> policies;
  std::string links;
  std::vector<std::string> schemas;
  std::string output;
  bool output_flag = false;  // -o was given (if empty)
};

int RunBuild(BuildFlags flags) {
  // What the command line leaves out, from the project file (charter.json) around.
  const bool output_given = !flags.output.empty() || flags.output_flag;
  absl::StatusOr<std::optional<Project>> project =
      FillFromProject(&flags.policies, &flags.schemas, nullptr, nullptr, output_given ? nullptr : &flags.output);
  if (!project.ok()) return Fail(project.status());
  if (flags.policies.empty()) {
    PrintError(NoPoliciesMessage(*project));
    return kError;
  }
  if (flags.output.empty() && !flags.output_flag) {
    PrintError(Cat("give -o OUT: the bundle's file",
                   project->has_value() ? Cat(" (", (*project)->path, " names no \"output\")") : std::string()));
    return kError;
  }
  if (flags.output.empty()) {
    PrintError("-o: the output path is empty");
    return kError;
  }
  std::vector<std::string> inputs = flags.policies;
  inputs.push_back(flags.links);
  inputs.insert(inputs.end(), flags.schemas.begin(), flags.schemas.end());
  if (absl::Status s = CheckNotAnInput(flags.output, inputs, "the bundle"); !s.ok()) return Fail(s);
  CompileOptions options;
  std::optional<Schema> schema;
  if (!flags.schemas.empty()) {
    absl::StatusOr<Schema> loaded = LoadSchemas(flags.schemas);
    if (!loaded.ok()) return Fail(loaded.status());
    schema = *std::move(loaded);
    options.schema = &*schema;
  }
  absl::StatusOr<Bundle> bundle = CompilePolicyFiles(flags.policies, flags.links, options);
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
  AddPoliciesOption(app, &flags->policies, ", compiled together into one bundle (default: charter.json's)");
  app->add_option("--template-linked", flags->links,
                  "Template links: [{\"template_id\", \"link_id\", \"args\": {\"?principal\": ...}}]")
      ->type_name("FILE");
  AddSchemaOption(app, &flags->schemas,
                  "Schema (Cedar schema text or JSON): validate the policies against it and "
                  "compile typed code");
  CLI::Option* output = app->add_option("-o,--output", flags->output,
                                        "Bundle file to write (default: charter.json's \"output\")")
                            ->type_name("FILE");
  return Command{app, [flags, output] {
                   flags->output_flag = output->count() > 0;
                   return RunBuild(*flags);
                 }};
}

}  // namespace charter::cli
