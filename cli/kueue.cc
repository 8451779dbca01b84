// `charter import` and `charter export`: Kueue's own objects (and HyperPod's)
// in and out of the scheduling configuration.
//
//   charter import kueue FILE... [-o OUT]
//   charter import hyperpod FILE [-o OUT]
//   charter export kueue --state FILE [--scenario ID] [--api-version v1beta2|v1beta1]
//                        [--no-configuration] [-o OUT]
//   charter export hyperpod --state FILE [--scenario ID] [--cluster-arn ARN] [--name NAME] [-o OUT]
//
// Notes and warnings go to stderr, one line each; the result goes to OUT
// (written atomically) or stdout, whole or not at all. Exit 0 once written,
// 1 on any error.
//
// The declarations: `import` writes the scheduling configuration that
// Declarations() below renders, and `export` reads it with ReadInput(). Until
// the `.charter` declarations printer and the bundle's scheduling part exist,
// these are the state JSON of docs/scheduling.md (`--state`); swapping in
// the printer (PrintDeclarations) and the bundle (--bundle, --policies) is a
// change to those two functions.
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "charter/files.h"
#include "charter/kueue.h"
#include "charter/schedule.h"
#include "command.h"
#include "files.h"
#include "report.h"
#include "util.h"

namespace charter::cli {
namespace {

constexpr size_t kMaxInput = size_t{1} << 30;

struct ImportFlags {
  std::vector<std::string> files;
  std::string output;
};

struct ExportFlags {
  std::string state;
  std::string scenario;
  std::string output;
  std::string api_version = "v1beta2";
  bool no_configuration = false;
  std::string cluster_arn = "arn:aws:sagemaker:REGION:ACCOUNT:cluster/CLUSTER";
  std::string name = "charter-scheduler-config";
};

// The scheduling configuration as `charter import` writes it. The one line
// to change for the declarations printer: return PrintDeclarations(state).
std::string Declarations(const schedule::State& state) { return kueue::WriteStateJson(state); }

// The scheduling configuration `charter export` reads: today the state JSON;
// the bundle and `.charter` declarations go here too.
absl::StatusOr<schedule::State> ReadInput(const ExportFlags& flags) {
  ASSIGN_OR_RETURN(std::string text, ReadFile(flags.state, kMaxInput));
  schedule::LoadOptions options;
  options.source_name = flags.state;
  options.scenario = flags.scenario;
  return schedule::LoadState(text, options);
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
  return Write(flags.output, Declarations(imported->state));
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
  absl::StatusOr<schedule::State> state = schedule::LoadHyperPodState(*text, options);
  if (!state.ok()) return Fail(state.status());
  return Write(flags.output, Declarations(*state));
}

int RunExportKueue(const ExportFlags& flags) {
  if (absl::Status s = CheckNotAnInput(flags.output, {flags.state}, "what it exports"); !s.ok()) return Fail(s);
  absl::StatusOr<schedule::State> state = ReadInput(flags);
  if (!state.ok()) return Fail(state.status());
  kueue::ExportOptions options;
  options.version = flags.api_version == "v1beta1" ? kueue::ApiVersion::kV1beta1 : kueue::ApiVersion::kV1beta2;
  options.configuration = !flags.no_configuration;
  absl::StatusOr<kueue::Exported> out = kueue::ExportKueue(*state, options);
  if (!out.ok()) return Fail(absl::InvalidArgumentError(WithPath(flags.state, out.status().message())));
  PrintNotes(out->notes);
  return Write(flags.output, out->text);
}

int RunExportHyperPod(const ExportFlags& flags) {
  if (absl::Status s = CheckNotAnInput(flags.output, {flags.state}, "what it exports"); !s.ok()) return Fail(s);
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

void AddStateInput(CLI::App* app, ExportFlags* flags) {
  app->add_option("--state", flags->state, "The scheduling configuration (state JSON, docs/scheduling.md)")
      ->type_name("FILE")
      ->required();
  app->add_option("--scenario", flags->scenario, "The scenario to read from a file of scenarios")->type_name("ID");
  AddOutput(app, &flags->output);
}

}  // namespace

Command AddImportCommand(CLI::App& root) {
  auto flags = std::make_shared<ImportFlags>();
  CLI::App* app = root.add_subcommand("import", "Read Kueue's (or HyperPod's) objects into a scheduling configuration");
  app->require_subcommand(1);
  app->footer("Exit status: 0 once written; 1 on any error.");
  CLI::App* kueue_app = app->add_subcommand(
      "kueue", "ResourceFlavors, Cohorts, ClusterQueues, LocalQueues, WorkloadPriorityClasses, Configuration (YAML/JSON)");
  kueue_app->add_option("FILE", flags->files, "Kueue objects: YAML (several documents, kind: List) or JSON")
      ->required()
      ->type_name("FILE...");
  AddOutput(kueue_app, &flags->output);
  CLI::App* hp_app = app->add_subcommand("hyperpod", "HyperPod's ClusterSchedulerConfig and ComputeQuotas (JSON)");
  hp_app->add_option("FILE", flags->files, "{ClusterSchedulerConfig, ComputeQuotas, InstanceTypes}")
      ->required()
      ->type_name("FILE");
  AddOutput(hp_app, &flags->output);
  return Command{app, [flags, kueue_app] { return kueue_app->parsed() ? RunImportKueue(*flags) : RunImportHyperPod(*flags); }};
}

Command AddExportCommand(CLI::App& root) {
  auto flags = std::make_shared<ExportFlags>();
  CLI::App* app = root.add_subcommand("export", "Write a scheduling configuration as Kueue's (or HyperPod's) objects");
  app->require_subcommand(1);
  app->footer("Exit status: 0 once written; 1 on any error.");
  CLI::App* kueue_app = app->add_subcommand("kueue", "As Kueue objects in YAML that `kubectl apply` accepts");
  AddStateInput(kueue_app, flags.get());
  kueue_app->add_option("--api-version", flags->api_version, "kueue.x-k8s.io version: v1beta2 (default) or v1beta1")
      ->type_name("VERSION")
      ->check(OneOf({"v1beta2", "v1beta1"}));
  kueue_app->add_flag("--no-configuration", flags->no_configuration,
                      "Leave out the manager's Configuration (the ConfigMap kueue-manager-config)");
  CLI::App* hp_app = app->add_subcommand("hyperpod", "As SageMaker CreateClusterSchedulerConfig and CreateComputeQuota requests");
  AddStateInput(hp_app, flags.get());
  hp_app->add_option("--cluster-arn", flags->cluster_arn, "The ClusterArn of the requests")->type_name("ARN");
  hp_app->add_option("--name", flags->name, "The cluster scheduler config's Name")->type_name("NAME");
  return Command{app, [flags, kueue_app] { return kueue_app->parsed() ? RunExportKueue(*flags) : RunExportHyperPod(*flags); }};
}

}  // namespace charter::cli
