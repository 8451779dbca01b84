// `charter import` and `charter export`: Kueue's own objects (and HyperPod's)
// in and out of the scheduling language.
//
//   charter import kueue FILE... [-o OUT.charter] [--format charter|state]
//   charter import hyperpod FILE [-o OUT.charter] [--format charter|state]
//   charter export kueue (--bundle B | --policies FILE... | --state FILE [--scenario ID])
//                        [--api-version v1beta2|v1beta1] [--no-configuration] [-o OUT]
//   charter export hyperpod (--bundle B | --policies FILE... | --state FILE [--scenario ID])
//                           [--cluster-arn ARN] [--name NAME] [-o OUT]
//
// Notes and warnings go to stderr, one line each; the result goes to OUT
// (written atomically; never one of the inputs) or stdout, whole or not at
// all. Exit 0 once written, 1 on any error.
//
// `import` writes `.charter` declarations through the one printer
// (schedule::PrintDeclarations), each declaration under a comment naming the
// object it comes from, in the layout `charter fmt` leaves; `--format state`
// writes the state JSON of docs/scheduling.md instead. `export` reads the
// configuration a bundle declares (its scheduling section, as `charter
// schedule --bundle` does), the declarations of policy files compiled as
// `charter build` compiles them, or a state file.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "charter/files.h"
#include "charter/kueue.h"
#include "charter/schedule.h"
#include "command.h"
#include "files.h"
#include "load.h"
#include "report.h"
#include "util.h"

namespace charter::cli {
namespace {

constexpr size_t kMaxInput = size_t{1} << 30;

struct ImportFlags {
  std::vector<std::string> files;
  std::string output;
  std::string format = "charter";
};

struct ExportFlags {
  std::string state;
  std::string bundle;
  std::vector<std::string> policies;
  std::string scenario;
  std::string output;
  std::string api_version = "v1beta2";
  bool no_configuration = false;
  std::string cluster_arn = "arn:aws:sagemaker:REGION:ACCOUNT:cluster/CLUSTER";
  std::string name = "charter-scheduler-config";

  // What the configuration is read from, for messages.
  std::string Source() const {
    if (!bundle.empty()) return bundle;
    if (!state.empty()) return state;
    return policies.size() == 1 ? policies[0] : std::string("the policy files");
  }
  std::vector<std::string> Inputs() const {
    std::vector<std::string> inputs = policies;
    inputs.push_back(state);
    inputs.push_back(bundle);
    return inputs;
  }
};

// The scheduling configuration as `charter import` writes it: `.charter`
// declarations, each under the comment `origins` gives it, or with
// `--format state` the state JSON.
// The declarations are read back as `charter build` reads them before they
// are written: text that would not build is an error, never an output.
absl::StatusOr<std::string> Declarations(const ImportFlags& flags, const schedule::State& state,
                                         schedule::DeclarationComments origins, const std::string& command) {
  if (flags.format == "state") return kueue::WriteStateJson(state);
  origins.header = absl::StrCat("Scheduling declarations written by `charter ", command,
                                "`; each names the object it comes from.");
  std::string text = schedule::PrintDeclarations(state, origins);
  // Named as a .charter file, as `charter build` must read it.
  const bool charter_name = flags.output.size() > 8 && flags.output.substr(flags.output.size() - 8) == ".charter";
  if (!flags.output.empty() && flags.output != "-" && !charter_name) {
    PrintWarning(absl::StrCat(Printable(flags.output),
                              ": not named *.charter, so `charter build` and the other commands read it as Cedar "
                              "text; name it *.charter"));
  }
  const std::vector<SourceFile> sources = {SourceFile(charter_name ? flags.output : "import.charter", text)};
  absl::StatusOr<schedule::State> back = schedule::CompileDeclarations(sources, CompileOptions{}, nullptr);
  if (!back.ok()) {
    return absl::InternalError(
        absl::StrCat("the declarations `", command, "` would write do not compile: ", back.status().message()));
  }
  return text;
}

// The scheduling configuration `charter export` reads: a state file, or the
// declarations of a bundle or of policy files.
absl::StatusOr<schedule::State> ReadInput(const ExportFlags& flags) {
  if (!flags.state.empty()) {
    ASSIGN_OR_RETURN(std::string text, ReadFile(flags.state, kMaxInput));
    schedule::LoadOptions options;
    options.source_name = flags.state;
    options.scenario = flags.scenario;
    return schedule::LoadState(text, options);
  }
  ASSIGN_OR_RETURN(Engine engine, LoadEngineFrom(flags.bundle, flags.policies));
  ASSIGN_OR_RETURN(std::optional<schedule::State> config, schedule::ReadConfiguration(engine));
  if (!config.has_value()) {
    return absl::InvalidArgumentError(absl::StrCat(
        flags.Source(), flags.bundle.empty() && flags.policies.size() > 1 ? " declare" : " declares",
        " no scheduling configuration (no `flavor`, `cohort` or `queue` in a .charter file)"));
  }
  return *std::move(config);
}

void PrintNotes(const std::vector<kueue::Note>& notes) {
  for (const kueue::Note& n : notes) {
    if (n.severity == kueue::Note::Severity::kWarning) {
      PrintWarning(Printable(n.message));
    } else {
      PrintNote(Printable(n.message));
    }
  }
}

// Writes to -o (atomically; RunImport*/RunExport* have refused an -o that is
// one of their inputs), or to stdout.
int Write(const std::string& output, const std::string& text) {
  if (output.empty() || output == "-") return WriteStdout(text) ? kOk : kError;
  if (absl::Status s = WriteFileAtomically(output, text); !s.ok()) return Fail(s);
  return kOk;
}

int RunImportKueue(const ImportFlags& flags) {
  if (absl::Status s = CheckNotAnInput(flags.output, flags.files, "what it imports"); !s.ok()) return Fail(s);
  std::vector<std::string> texts;
  texts.reserve(flags.files.size());
  for (const std::string& f : flags.files) {
    absl::StatusOr<std::string> text = ReadFile(f, kMaxInput);
    if (!text.ok()) return Fail(text.status());
    texts.push_back(*std::move(text));
  }
  std::vector<kueue::Source> sources;
  for (size_t i = 0; i < flags.files.size(); ++i) sources.push_back({flags.files[i], texts[i]});
  absl::StatusOr<kueue::Imported> imported = kueue::ImportKueue(sources);
  if (!imported.ok()) return Fail(imported.status());
  PrintNotes(imported->notes);
  absl::StatusOr<std::string> text = Declarations(flags, imported->state, imported->origins, "import kueue");
  if (!text.ok()) return Fail(text.status());
  return Write(flags.output, *text);
}

int RunImportHyperPod(const ImportFlags& flags) {
  if (absl::Status s = CheckNotAnInput(flags.output, flags.files, "what it imports"); !s.ok()) return Fail(s);
  if (flags.files.size() != 1) {
    PrintError("import hyperpod: give one file holding ClusterSchedulerConfig, ComputeQuotas and InstanceTypes");
    return kError;
  }
  absl::StatusOr<std::string> text = ReadFile(flags.files[0], kMaxInput);
  if (!text.ok()) return Fail(text.status());
  schedule::LoadOptions options;
  options.source_name = flags.files[0];
  schedule::DeclarationComments origins;
  absl::StatusOr<schedule::State> state = schedule::LoadHyperPodState(*text, options, &origins);
  if (!state.ok()) return Fail(state.status());
  if (flags.format != "state" && (!state->admitted.empty() || !state->pending.empty())) {
    PrintNote(absl::StrCat(Printable(flags.files[0]),
                           ": its Workloads are not declarations and are left out (`--format state` keeps them)"));
  }
  absl::StatusOr<std::string> out = Declarations(flags, *state, std::move(origins), "import hyperpod");
  if (!out.ok()) return Fail(out.status());
  return Write(flags.output, *out);
}

int RunExportKueue(const ExportFlags& flags) {
  if (absl::Status s = CheckNotAnInput(flags.output, flags.Inputs(), "what it exports"); !s.ok()) return Fail(s);
  absl::StatusOr<schedule::State> state = ReadInput(flags);
  if (!state.ok()) return Fail(state.status());
  kueue::ExportOptions options;
  options.version = flags.api_version == "v1beta1" ? kueue::ApiVersion::kV1beta1 : kueue::ApiVersion::kV1beta2;
  options.configuration = !flags.no_configuration;
  absl::StatusOr<kueue::Exported> out = kueue::ExportKueue(*state, options);
  if (!out.ok()) return Fail(absl::InvalidArgumentError(WithPath(flags.Source(), out.status().message())));
  PrintNotes(out->notes);
  return Write(flags.output, out->text);
}

int RunExportHyperPod(const ExportFlags& flags) {
  if (absl::Status s = CheckNotAnInput(flags.output, flags.Inputs(), "what it exports"); !s.ok()) return Fail(s);
  absl::StatusOr<schedule::State> state = ReadInput(flags);
  if (!state.ok()) return Fail(state.status());
  kueue::HyperPodExportOptions options;
  options.cluster_arn = flags.cluster_arn;
  options.scheduler_config_name = flags.name;
  absl::StatusOr<kueue::Exported> out = kueue::ExportHyperPod(*state, options);
  if (!out.ok()) return Fail(out.status());
  PrintNotes(out->notes);
  return Write(flags.output, out->text);
}

void AddOutput(CLI::App* app, std::string* output) {
  app->add_option("-o,--output", *output, "Write here (atomically) instead of stdout")->type_name("OUT");
}

void AddImportFormat(CLI::App* app, ImportFlags* flags) {
  app->add_option("--format", flags->format,
                  "Output: charter (default; .charter declarations) or state (the state JSON of docs/scheduling.md)")
      ->type_name("FORMAT")
      ->check(OneOf({"charter", "state"}));
}

// Exactly one of --bundle, --policies and --state.
void AddInput(CLI::App* app, ExportFlags* flags) {
  CLI::Option* bundle =
      app->add_option("--bundle", flags->bundle, "A bundle (charter build) whose scheduling declarations to export")
          ->type_name("FILE");
  CLI::Option* policies = AddPoliciesOption(
      app, &flags->policies, " (.charter declarations), compiled together as `charter build` does");
  CLI::Option* state =
      app->add_option("--state", flags->state, "A state file (state JSON, docs/scheduling.md)")->type_name("FILE");
  bundle->excludes(policies)->excludes(state);
  policies->excludes(state);
  app->add_option("--scenario", flags->scenario, "The scenario to read from a file of scenarios")
      ->type_name("ID")
      ->needs(state);
  AddOutput(app, &flags->output);
  app->callback([flags] {
    if (flags->bundle.empty() && flags->policies.empty() && flags->state.empty()) {
      throw CLI::RequiredError("--bundle, --policies or --state");
    }
  });
}

}  // namespace

Command AddImportCommand(CLI::App& root) {
  auto flags = std::make_shared<ImportFlags>();
  CLI::App* app = root.add_subcommand("import", "Read Kueue's (or HyperPod's) objects into .charter scheduling declarations");
  app->require_subcommand(1);
  app->footer("Exit status: 0 once written; 1 on any error.");
  CLI::App* kueue_app = app->add_subcommand(
      "kueue", "ResourceFlavors, Cohorts, ClusterQueues, LocalQueues, WorkloadPriorityClasses, Configuration (YAML/JSON)");
  kueue_app->add_option("FILE", flags->files, "Kueue objects: YAML (several documents, kind: List) or JSON")
      ->required()
      ->type_name("FILE...");
  AddOutput(kueue_app, &flags->output);
  AddImportFormat(kueue_app, flags.get());
  CLI::App* hp_app = app->add_subcommand("hyperpod", "HyperPod's ClusterSchedulerConfig and ComputeQuotas (JSON)");
  hp_app->add_option("FILE", flags->files, "{ClusterSchedulerConfig, ComputeQuotas, InstanceTypes}")
      ->required()
      ->type_name("FILE");
  AddOutput(hp_app, &flags->output);
  AddImportFormat(hp_app, flags.get());
  return Command{app, [flags, kueue_app] { return kueue_app->parsed() ? RunImportKueue(*flags) : RunImportHyperPod(*flags); }};
}

Command AddExportCommand(CLI::App& root) {
  auto flags = std::make_shared<ExportFlags>();
  CLI::App* app = root.add_subcommand("export", "Write scheduling declarations as Kueue's (or HyperPod's) objects");
  app->require_subcommand(1);
  app->footer("Exit status: 0 once written; 1 on any error.");
  CLI::App* kueue_app = app->add_subcommand("kueue", "As Kueue objects in YAML that `kubectl apply` accepts");
  AddInput(kueue_app, flags.get());
  kueue_app->add_option("--api-version", flags->api_version, "kueue.x-k8s.io version: v1beta2 (default) or v1beta1")
      ->type_name("VERSION")
      ->check(OneOf({"v1beta2", "v1beta1"}));
  kueue_app->add_flag("--no-configuration", flags->no_configuration,
                      "Leave out the manager's Configuration (the ConfigMap kueue-manager-config)");
  CLI::App* hp_app = app->add_subcommand("hyperpod", "As SageMaker CreateClusterSchedulerConfig and CreateComputeQuota requests");
  AddInput(hp_app, flags.get());
  hp_app->add_option("--cluster-arn", flags->cluster_arn, "The ClusterArn of the requests")->type_name("ARN");
  hp_app->add_option("--name", flags->name, "The cluster scheduler config's Name")->type_name("NAME");
  return Command{app, [flags, kueue_app] { return kueue_app->parsed() ? RunExportKueue(*flags) : RunExportHyperPod(*flags); }};
}

}  // namespace charter::cli
