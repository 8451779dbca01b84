// `charter fmt`: rewrite policy files (.cedar, and .charter with their
// scheduling declarations) and schema files (.cedarschema) in canonical
// layout, keeping comments. A file is taken as a schema by its extension.
//
//   charter fmt FILE...            # formatted text on stdout
//   charter fmt --check FILE...    # list files that would change; exit 1 if any
//   charter fmt -w FILE...         # rewrite changed files in place, atomically
//
// Each file is handled on its own: a file that cannot be read or does not
// parse is reported (one line a fault) and the others are still listed
// (--check) or rewritten (-w); the exit status is then 1. Without either
// flag the texts are printed only when every file was formatted. A file the
// formatter cannot print whole (CH0900), or one in Cedar's JSON policy or
// schema format, is refused in the same way and never rewritten.
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "charter/charter.h"
#include "charter/format.h"
#include "command.h"
#include "files.h"
#include "report.h"
#include "util.h"

namespace charter::cli {
namespace {

struct FmtFlags {
  std::vector<std::string> files;
  bool check = false;
  bool write = false;
};

struct Formatted {
  std::string path;
  std::string original;
  std::string text;
};

int RunFmt(const FmtFlags& flags) {
  FormatOptions options;
  std::vector<Formatted> results;
  std::string errors;
  for (const std::string& path : flags.files) {
    std::string_view name = path;
    bool schema = name.ends_with(".cedarschema") || name.ends_with(".cedarschema.json");
    absl::StatusOr<std::string> text =
        ReadFile(path, schema ? options.schema.max_source_bytes : options.parse.max_source_bytes);
    if (!text.ok()) {
      CatAppend(&errors, errors.empty() ? "" : "\n", text.status().message());
      continue;
    }
    SourceFile source(path, *text);
    Diagnostics diagnostics;
    absl::StatusOr<std::string> formatted = schema ? FormatSchema(source, options, &diagnostics)
                                                   : FormatPolicies(source, options, &diagnostics);
    if (!formatted.ok()) {
      bool any = false;
      for (const Diagnostic& d : diagnostics.items()) {
        if (d.severity != Severity::kError) continue;
        Diagnostics one;
        one.Add(d);
        CatAppend(&errors, errors.empty() ? "" : "\n", OneLine(one.RenderShort(source)));
        any = true;
      }
      if (!any) {
        CatAppend(&errors, errors.empty() ? "" : "\n",
                            WithPath(path, OneLine(formatted.status().message())));
      }
      continue;
    }
    results.push_back({path, *std::move(text), *std::move(formatted)});
  }
  bool failed = !errors.empty();
  if (flags.check) {
    std::string out;
    size_t changed = 0;
    for (const Formatted& f : results) {
      if (f.text == f.original) continue;
      CatAppend(&out, f.path, "\n");
      ++changed;
    }
    if (!WriteStdout(out)) return kError;
    if (failed) PrintError(errors);
    if (changed == 0) return failed ? kError : kOk;
    PrintError(Cat(changed, changed == 1 ? " file is" : " files are",
                             " not formatted (`charter fmt -w` rewrites them)"));
    return kError;
  }
  if (flags.write) {
    for (const Formatted& f : results) {
      if (f.text == f.original) continue;
      if (absl::Status s = WriteFileAtomically(f.path, f.text); !s.ok()) {
        CatAppend(&errors, errors.empty() ? "" : "\n", OneLine(s.message()));
        failed = true;
      }
    }
    if (failed) PrintError(errors);
    return failed ? kError : kOk;
  }
  // On stdout, the files' texts one after the other: only when every file
  // was formatted, since a concatenation without one would mislead.
  if (failed) {
    PrintError(errors);
    return kError;
  }
  std::string out;
  for (const Formatted& f : results) out += f.text;
  return WriteStdout(out) ? kOk : kError;
}

}  // namespace

Command AddFmtCommand(CLI::App& root) {
  auto flags = std::make_shared<FmtFlags>();
  CLI::App* app = root.add_subcommand(
      "fmt", "Format policy and schema files in canonical layout, keeping comments");
  app->add_option("FILE", flags->files, "Policy and schema files (.cedar, .charter, .cedarschema)")
      ->type_name("FILE...")
      ->required();
  CLI::Option* check =
      app->add_flag("--check", flags->check, "List the files that are not formatted; exit 1 if any");
  app->add_flag("-w,--write", flags->write, "Rewrite the files in place (atomically)")
      ->excludes(check);
  return Command{app, [flags] { return RunFmt(*flags); }};
}

}  // namespace charter::cli
