// Several schema files read as one schema (header-only, for the tools: the
// CLI's `build`, `schedule` and `serve`, and the server): their Cedar schema
// text is joined and read once, so that a declaration of one file may name
// the types of another (stdlib/kubernetes.cedarschema names
// stdlib/governance.cedarschema's). Each fault is reported in the file it
// is in, as "file:line:col: message", one line each.
//
// The fingerprint of the schema (Schema::Fingerprint) depends on the order
// of the files: a bundle compiled with `--schema A --schema B` is served
// with the same files in the same order.
#ifndef CHARTER_SUPPORT_SCHEMA_FILES_H_
#define CHARTER_SUPPORT_SCHEMA_FILES_H_

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "charter/diagnostics.h"
#include "charter/schema.h"

namespace charter::support {

namespace schema_files_internal {
inline std::string OneLine(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return text;
}
}  // namespace schema_files_internal

// One file is Schema::Parse of it, in either format; several are joined as
// Cedar schema text (a file in the JSON format among several is refused).
inline absl::StatusOr<Schema> ParseSchemaFiles(const std::vector<SourceFile>& files) {
  using schema_files_internal::OneLine;
  if (files.empty()) return absl::InvalidArgumentError("no schema file");
  Diagnostics diagnostics;
  if (files.size() == 1) {
    absl::StatusOr<Schema> schema = Schema::Parse(files[0], {}, &diagnostics);
    if (schema.ok() || diagnostics.empty()) return schema;
    std::string lines;
    for (const Diagnostic& d : diagnostics.items()) {
      Diagnostics one;
      one.Add(d);
      lines += (lines.empty() ? "" : "\n") + OneLine(one.RenderShort(files[0]));
    }
    return absl::InvalidArgumentError(lines);
  }
  std::string joined, names;
  std::vector<uint32_t> starts;
  for (const SourceFile& f : files) {
    size_t first = f.text().find_first_not_of(" \t\r\n");
    if (first != std::string::npos && f.text()[first] == '{') {
      return absl::InvalidArgumentError(
          f.name() + ": several schemas are joined as Cedar schema text; this one is in the JSON format");
    }
    starts.push_back(static_cast<uint32_t>(joined.size()));
    joined += f.text();
    joined += "\n";
    names += (names.empty() ? "" : " + ") + f.name();
  }
  absl::StatusOr<Schema> schema = Schema::Parse(SourceFile(names, joined), {}, &diagnostics);
  if (schema.ok()) return schema;
  std::string lines;
  for (const Diagnostic& d : diagnostics.items()) {
    size_t i = 0;
    while (i + 1 < starts.size() && starts[i + 1] <= d.span.begin) ++i;
    Diagnostic local = d;
    local.span.begin -= starts[i];
    local.span.end = std::min<uint32_t>(d.span.end - starts[i], static_cast<uint32_t>(files[i].text().size()));
    if (local.span.begin > local.span.end) local.span.begin = local.span.end;
    Diagnostics one;
    one.Add(local);
    lines += (lines.empty() ? "" : "\n") + OneLine(one.RenderShort(files[i]));
  }
  return absl::InvalidArgumentError(lines.empty() ? std::string(schema.status().message()) : lines);
}

}  // namespace charter::support

#endif  // CHARTER_SUPPORT_SCHEMA_FILES_H_
