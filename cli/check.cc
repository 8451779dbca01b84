// `charter check`: report every fault in policy files at once.
//
//   charter check --policies PATH... [--schema FILE]... [--template-linked LINKS]
//                 [--entities FILE]
//
// A PATH is a policy file, a directory (its .cedar and .charter files,
// sorted by name) or - (standard input); several schema files are read as
// one (LoadSchemas).
//
// Each file is parsed and compiled and, with --schema, validated against the
// schema in Cedar's strict mode (charter::Validate). Every diagnostic is
// rendered the way the compiler renders them (file:line:col, the source
// line, an underline, the help line), colour only on a terminal: the syntax
// faults and the checks' first, then the validation faults of every policy
// that parsed. With --template-linked (one policy file), the links are
// linked into it and, with --schema, each is validated as Cedar validates a
// link. Compiling checks the limits of the bundle (CH0202 to CH0205), with
// a schema those of the typed bundle `charter build --schema` makes. Each
// file is checked on its own (files given together need not form one
// policy set). With --entities, each queue of a file's scheduling
// declarations that `implements` an entity is checked against it
// (schedule::CheckImplements, CH0810). A file without errors prints "FILE: ok" on stdout. Exit 1 if the
// schema, the links or any file has an error or cannot be read.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "charter/charter.h"
#include "charter/schedule.h"
#include "charter/schema.h"
#include "command.h"
#include "files.h"
#include "load.h"
#include "project.h"
#include "report.h"
#include "util.h"

namespace charter::cli {
namespace {

struct CheckFlags {
  std::vector<std::string> policies;
  std::vector<std::string> schemas;  // --schema: validate the policies against them, read as one
  std::string links;   // --template-linked: links into the one policy file
  std::string entities;  // --entities: the queues' `implements` checked against them
};

struct FileReport {
  size_t errors = 0;
  size_t warnings = 0;
  std::string rendered;  // the diagnostics, rendered
};

std::string Plural(size_t n, const char* one, const char* many) {
  return Cat(n, " ", n == 1 ? one : many);
}

// "N errors" or "N errors, M warnings".
std::string Counts(const FileReport& report) {
  return Cat(Plural(report.errors, "error", "errors"),
                       report.warnings > 0
                           ? Cat(", ", Plural(report.warnings, "warning", "warnings"))
                           : std::string());
}

void Count(const Diagnostics& diagnostics, FileReport* report) {
  for (const Diagnostic& d : diagnostics.items()) {
    if (d.severity == Severity::kWarning) {
      ++report->warnings;
    } else {
      ++report->errors;
    }
  }
}

// Writes rendered diagnostics to stderr, after whatever stdout holds.
void WriteRendered(const std::string& rendered) {
  if (rendered.empty()) return;
  std::fflush(stdout);
  std::fwrite(rendered.data(), 1, rendered.size(), stderr);
  std::fflush(stderr);
}

// Reads the schema. Its faults are rendered and reported here; nullopt then.
// Several files are read as one (LoadSchemas), their faults a line each.
std::optional<Schema> LoadSchema(const std::vector<std::string>& paths, bool color) {
  if (paths.size() > 1) {
    absl::StatusOr<Schema> schemas = LoadSchemas(paths);
    if (schemas.ok()) return *std::move(schemas);
    Fail(schemas.status());
    return std::nullopt;
  }
  const std::string& path = paths.front();
  SchemaOptions options;
  absl::StatusOr<std::string> text = ReadFile(path, options.max_source_bytes);
  if (!text.ok()) {
    Fail(text.status());
    return std::nullopt;
  }
  SourceFile source(path, *std::move(text));
  InputStage stage(path, "loading the schema");
  Diagnostics diagnostics;
  absl::StatusOr<Schema> schema = Schema::Parse(source, options, &diagnostics);
  if (schema.ok()) return *std::move(schema);
  FileReport report;
  Count(diagnostics, &report);
  if (report.errors == 0) {
    Fail(absl::Status(schema.status().code(), WithPath(path, OneLine(schema.status().message()))));
    return std::nullopt;
  }
  WriteRendered(diagnostics.Render(source, color));
  PrintError(Cat(path, ": ", Counts(report)));
  return std::nullopt;
}

// Whether every diagnostic is a limit of the bundle (CH0202 to CH0205).
bool OnlyLimits(const Diagnostics& diagnostics) {
  for (const Diagnostic& d : diagnostics.items()) {
    if (d.code != "CH0202" && d.code != "CH0203" && d.code != "CH0204" && d.code != "CH0205") return false;
  }
  return !diagnostics.empty();
}

// Compiles one file and, given a schema, validates it; collects every
// diagnostic. A file that cannot be read is one error, reported on stderr
// here.
absl::StatusOr<FileReport> CheckFile(const std::string& path, const std::vector<TemplateLink>& links,
                                     const Schema* schema, const SourceFile* entities, bool color) {
  const CompileOptions options = WithDeclarations({});
  absl::StatusOr<std::string> text = ReadInput(path, options.max_source_bytes);
  if (!text.ok()) return text.status();
  SourceFile source(InputName(path), *std::move(text));
  std::optional<InputStage> stage;
  stage.emplace(path, "compiling the policies");
  Diagnostics diagnostics;
  absl::StatusOr<Bundle> bundle = Compile(source, links, options, &diagnostics);
  if (schema != nullptr && !bundle.ok() && OnlyLimits(diagnostics)) {
    // `charter build --schema` compiles typed code, which is shorter: the
    // limits that count are the typed bundle's. (When the file does not
    // validate, build stops before, and the untyped ones stay.)
    CompileOptions typed = options;
    typed.schema = schema;
    Diagnostics again;
    absl::StatusOr<Bundle> typed_bundle = Compile(source, links, typed, &again);
    if (typed_bundle.ok()) {
      diagnostics = Diagnostics();
      bundle = *std::move(typed_bundle);
    } else if (OnlyLimits(again)) {
      diagnostics = std::move(again);
    }
  }
  FileReport report;
  Count(diagnostics, &report);
  if (!bundle.ok() && report.errors == 0) {
    // A failure without a diagnostic (a limit, a link): one line.
    return NamedUnlessAtALink(path, links, bundle.status());
  }
  if (schema != nullptr) {
    // Validate reports the syntax faults again, which Compile has already
    // given; only its own (CH05xx) are added.
    stage.reset();
    stage.emplace(path, "validating the policies");
    Diagnostics validation;
    (void)Validate(*schema, source, links, options, &validation);
    Diagnostics added;
    for (const Diagnostic& d : validation.items()) {
      if (d.code.rfind("CH05", 0) == 0) {
        added.Add(d);
        diagnostics.Add(d);
      }
    }
    Count(added, &report);
  }
  if (entities != nullptr && bundle.ok()) {
    // The queues against the entities they implement (a file with faults
    // of its own is not: its configuration is not whole).
    stage.reset();
    stage.emplace(path, "checking the queues against the entities");
    std::vector<Diagnostics> agreement;
    absl::StatusOr<size_t> faults = schedule::CheckImplements({source}, options, *entities, &agreement);
    if (!faults.ok()) return faults.status();
    if (!agreement.empty()) {
      Count(agreement[0], &report);
      for (const Diagnostic& d : agreement[0].items()) diagnostics.Add(d);
    }
  }
  report.rendered = diagnostics.Render(source, color);
  return report;
}

int RunCheck(CheckFlags flags) {
  // What the command line leaves out, from the project file (charter.json) around.
  absl::StatusOr<std::optional<Project>> project =
      FillFromProject(&flags.policies, &flags.schemas, &flags.entities, nullptr, nullptr);
  if (!project.ok()) return Fail(project.status());
  if (flags.policies.empty()) {
    PrintError(NoPoliciesMessage(*project));
    return kError;
  }
  bool color = isatty(STDERR_FILENO) != 0 && getenv("NO_COLOR") == nullptr;
  bool failed = false;
  std::optional<Schema> schema;
  if (!flags.schemas.empty()) {
    schema = LoadSchema(flags.schemas, color);
    // Without a schema the files are still compiled, so that their faults
    // are reported too.
    if (!schema.has_value()) failed = true;
  }
  absl::StatusOr<std::vector<std::string>> paths = ExpandPolicyPaths(flags.policies, /*files_apart=*/true);
  if (!paths.ok()) return Fail(paths.status());
  std::vector<TemplateLink> links;
  if (!flags.links.empty()) {
    if (paths->size() != 1) {
      PrintError("--template-linked links into one policy file: give --policies one FILE with it");
      return kError;
    }
    absl::StatusOr<std::vector<TemplateLink>> loaded =
        LoadTemplateLinks(flags.links, CompileOptions{}.max_source_bytes);
    if (!loaded.ok()) return Fail(loaded.status());
    links = *std::move(loaded);
  }
  // The entities are read as every command reads them (with the schema,
  // when one was read), then their text is what the queues are checked
  // against.
  std::optional<SourceFile> entities;
  if (!flags.entities.empty()) {
    absl::StatusOr<Entities> store = LoadEntities(flags.entities, schema.has_value() ? &*schema : nullptr);
    if (!store.ok()) return Fail(store.status());
    absl::StatusOr<std::string> text = ReadFile(flags.entities, EntitiesOptions{}.max_input_bytes);
    if (!text.ok()) return Fail(text.status());
    entities.emplace(flags.entities, *std::move(text));
  }
  std::vector<absl::StatusOr<FileReport>> reports;
  for (const std::string& path : *paths) {
    reports.push_back(CheckFile(path, links, schema.has_value() ? &*schema : nullptr,
                                entities.has_value() ? &*entities : nullptr, color));
  }
  std::string out;
  for (size_t i = 0; i < paths->size(); ++i) {
    const std::string path = InputName((*paths)[i]);
    absl::StatusOr<FileReport>& report = reports[i];
    if (!report.ok()) {
      Fail(report.status());
      failed = true;
      continue;
    }
    WriteRendered(report->rendered);
    if (report->errors > 0) {
      failed = true;
      PrintError(Cat(path, ": ", Counts(*report)));
    } else if (flags.schemas.empty() || schema.has_value()) {
      // (Not "ok" when the schema it was to be validated against failed.)
      CatAppend(&out, path, ": ok",
                          report->warnings > 0
                              ? Cat(" (", Plural(report->warnings, "warning", "warnings"),
                                              ")")
                              : std::string(),
                          "\n");
      if (!WriteStdout(out)) return kError;
      out.clear();
    }
  }
  return failed ? kError : kOk;
}

}  // namespace

Command AddCheckCommand(CLI::App& root) {
  auto flags = std::make_shared<CheckFlags>();
  CLI::App* app = root.add_subcommand(
      "check", "Report every error in policy files, with the source underlined");
  // Several values an occurrence (`--policies a.cedar b.cedar`): check
  // takes no positional argument that they could swallow.
  app->add_option("--policies", flags->policies,
                  "Policy files (Cedar text or JSON, .charter), directories (their .cedar and .charter files, "
                  "sorted), or - for stdin; each checked on its own")
      ->type_name("PATH...")
      ->expected(1, -1);
  AddSchemaOption(app, &flags->schemas,
                  "Schema (Cedar schema text or JSON) to validate the policies against, in "
                  "Cedar's strict mode");
  app->add_option("--template-linked", flags->links,
                  "Template links for the one --policies file: [{\"template_id\", \"link_id\", "
                  "\"args\": {...}}]; with --schema each link is validated")
      ->type_name("FILE");
  app->add_option("--entities", flags->entities,
                  "Entities (Cedar's JSON) that the queues' `implements` name: each queue is checked against "
                  "its Allocation (GPUs, borrowing, lending, fair weight)")
      ->type_name("FILE");
  app->footer(
      "Without --policies (or --schema), those of the charter.json in the working directory or above. "
      "Exit status: 0 when every file is free of errors; 1 otherwise.");
  return Command{app, [flags] { return RunCheck(*flags); }};
}

}  // namespace charter::cli
