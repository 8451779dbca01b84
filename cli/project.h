// A project file, `charter.json`, at a project's root: the policies,
// schemas, entities and tests of the project, so that `charter check`,
// `test`, `build` and `repl` run with no flags anywhere inside it. JSON (read
// with the library's own reader, charter/json.h) rather than TOML: no
// dependency more, and every other input of Charter is JSON already.
//
//   {"policies": ["policies.cedar", "scheduling.charter"],
//    "schemas": ["../../stdlib/governance.cedarschema"],
//    "entities": "entities.json",
//    "tests": ["governance.test.json"],
//    "output": "governance.chb"}
//
// Each value is a path or an array of paths, relative to the file's
// directory; "policies" may name directories, as --policies does. A flag
// given on the command line replaces the file's value for it.
#ifndef CHARTER_CLI_PROJECT_H_
#define CHARTER_CLI_PROJECT_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace charter::cli {

inline constexpr char kProjectFileName[] = "charter.json";

struct Project {
  std::string path;  // the file, as reached from the working directory
  // Paths as reached from the working directory.
  std::vector<std::string> policies;
  std::vector<std::string> schemas;
  std::string entities;
  std::vector<std::string> tests;
  std::string output;  // `charter build`'s bundle
};

// The nearest charter.json in the working directory or above it; nullopt
// when there is none. A file that cannot be read, or holds a fault, is an
// error naming its line:col.
absl::StatusOr<std::optional<Project>> FindProject();

// Fills each of the flags left empty from the project found (FindProject),
// if any. Returns the project (nullopt if none).
absl::StatusOr<std::optional<Project>> FillFromProject(std::vector<std::string>* policies,
                                                       std::vector<std::string>* schemas, std::string* entities,
                                                       std::vector<std::string>* tests, std::string* output);

// The error of a command that needs policies and got none, from its flags
// or from the project (nullopt: no project found).
std::string NoPoliciesMessage(const std::optional<Project>& project);

}  // namespace charter::cli

#endif  // CHARTER_CLI_PROJECT_H_
