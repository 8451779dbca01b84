// `charter check`: report every fault in policy files at once.
//
//   charter check --policies FILE...
//
// Each file is parsed and compiled; every diagnostic is rendered the way
// the compiler renders them (file:line:col, the source line, an underline,
// the help line), colour only on a terminal. A file without errors prints
// "FILE: ok" on stdout. Exit 1 if any file has an error or cannot be read.
//
// Validation against a schema (charter::Validate, issue 4) is to slot in as
// one more stage of CheckFile: its diagnostics join the same list.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "charter/charter.h"
#include "command.h"
#include "common/strings.h"
#include "files.h"
#include "report.h"

namespace charter::cli {
namespace {

struct CheckFlags {
  std::vector<std::string> policies;
};

struct FileReport {
  size_t errors = 0;
  size_t warnings = 0;
  std::string rendered;  // the diagnostics, rendered
};

// Compiles one file and collects its diagnostics. A file that cannot be read
// is one error, reported on stderr here.
absl::StatusOr<FileReport> CheckFile(const std::string& path, bool color) {
  CompileOptions options;
  absl::StatusOr<std::string> text = ReadFile(path, options.max_source_bytes);
  if (!text.ok()) return text.status();
  SourceFile source(path, *std::move(text));
  Diagnostics diagnostics;
  absl::StatusOr<Bundle> bundle = Compile(source, options, &diagnostics);
  FileReport report;
  for (const Diagnostic& d : diagnostics.items()) {
    if (d.severity == Severity::kWarning) {
      ++report.warnings;
    } else {
      ++report.errors;
    }
  }
  if (!bundle.ok() && report.errors == 0) {
    // A failure without a diagnostic (a limit, a link): one line.
    return absl::Status(bundle.status().code(), WithPath(path, OneLine(bundle.status().message())));
  }
  report.rendered = diagnostics.Render(source, color);
  return report;
}

std::string Plural(size_t n, const char* one, const char* many) {
  return internal::Cat(n, " ", n == 1 ? one : many);
}

int RunCheck(const CheckFlags& flags) {
  bool color = isatty(STDERR_FILENO) != 0 && getenv("NO_COLOR") == nullptr;
  bool failed = false;
  std::string out;
  for (const std::string& path : flags.policies) {
    absl::StatusOr<FileReport> report = CheckFile(path, color);
    if (!report.ok()) {
      Fail(report.status());
      failed = true;
      continue;
    }
    if (!report->rendered.empty()) {
      std::fflush(stdout);
      std::fwrite(report->rendered.data(), 1, report->rendered.size(), stderr);
      std::fflush(stderr);
    }
    if (report->errors > 0) {
      failed = true;
      PrintError(internal::Cat(path, ": ", Plural(report->errors, "error", "errors"),
                               report->warnings > 0
                                   ? internal::Cat(", ", Plural(report->warnings, "warning",
                                                                "warnings"))
                                   : std::string()));
    } else {
      internal::CatAppend(&out, path, ": ok",
                          report->warnings > 0
                              ? internal::Cat(" (", Plural(report->warnings, "warning", "warnings"),
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
  app->add_option("--policies", flags->policies, "Cedar policy files")
      ->type_name("FILE...")
      ->required()
      ->expected(1, -1);
  return Command{app, [flags] { return RunCheck(*flags); }};
}

}  // namespace charter::cli
