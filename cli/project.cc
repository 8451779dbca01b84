// charter.json: found upward from the working directory, read with the
// library's JSON reader.
#include "project.h"

#include <filesystem>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "charter/json.h"
#include "charter_support/nearest.h"
#include "files.h"
#include "report.h"
#include "util.h"

namespace charter::cli {
namespace {

constexpr const char* kKeys[] = {"policies", "schemas", "entities", "tests", "output"};

absl::Status Fault(const Project& p, const std::string& text, uint32_t offset, const std::string& message) {
  return absl::InvalidArgumentError(Cat(p.path, ":", JsonLineCol(text, offset), ": ", message));
}

// `dir` joined to a path of the file; absolute paths stay.
std::string Resolve(const std::string& dir, std::string_view path) {
  std::filesystem::path p(path);
  if (p.is_absolute() || dir.empty()) return p.lexically_normal().string();
  return (std::filesystem::path(dir) / p).lexically_normal().string();
}

}  // namespace

absl::StatusOr<std::optional<Project>> FindProject() {
  std::error_code error;
  std::filesystem::path dir = std::filesystem::current_path(error);
  if (error) return std::optional<Project>();
  std::string up;  // the way from the working directory to `dir`
  for (int depth = 0; depth < 256; ++depth) {
    if (std::filesystem::is_regular_file(dir / kProjectFileName, error)) break;
    if (!dir.has_parent_path() || dir.parent_path() == dir) return std::optional<Project>();
    dir = dir.parent_path();
    up += "../";
  }
  if (!std::filesystem::is_regular_file(dir / kProjectFileName, error)) return std::optional<Project>();
  Project project;
  project.path = up + kProjectFileName;
  ASSIGN_OR_RETURN(std::string text, ReadFile(project.path, size_t{1} << 20));
  absl::StatusOr<JsonDocument> doc = JsonDocument::Parse(text);
  if (!doc.ok()) return absl::InvalidArgumentError(WithPath(project.path, OneLine(doc.status().message())));
  JsonValue root = doc->root();
  if (!root.is_object()) return Fault(project, text, root.offset(), "a project file is a JSON object");
  for (size_t i = 0; i < root.size(); ++i) {
    std::string key(root.key(i));
    JsonValue v = root.member(i);
    bool known = false;
    for (const char* k : kKeys) known = known || key == k;
    if (!known) {
      std::string nearest = support::NearestName(key, kKeys);
      return Fault(project, text, root.key_offset(i),
                   Cat("unknown key `", Printable(key), "`",
                       nearest.empty() ? std::string("; the keys are policies, schemas, entities, tests and output")
                                       : Cat("; did you mean `", nearest, "`?")));
    }
    std::vector<std::string> paths;
    if (v.is_string()) {
      paths.push_back(Resolve(up, v.as_string()));
    } else if (v.is_array() && key != "entities" && key != "output") {
      for (size_t j = 0; j < v.size(); ++j) {
        if (!v.at(j).is_string()) return Fault(project, text, v.at(j).offset(), Cat("`", key, "`: a path is a string"));
        paths.push_back(Resolve(up, v.at(j).as_string()));
      }
    } else {
      return Fault(project, text, v.offset(),
                   Cat("`", key, "` is ", key == "entities" || key == "output" ? "a path (a string)"
                                                                               : "a path or an array of paths"));
    }
    if (key == "policies") project.policies = std::move(paths);
    if (key == "schemas") project.schemas = std::move(paths);
    if (key == "tests") project.tests = std::move(paths);
    if (key == "entities") project.entities = paths[0];
    if (key == "output") project.output = paths[0];
  }
  return std::optional<Project>(std::move(project));
}

absl::StatusOr<std::optional<Project>> FillFromProject(std::vector<std::string>* policies,
                                                       std::vector<std::string>* schemas, std::string* entities,
                                                       std::vector<std::string>* tests, std::string* output) {
  ASSIGN_OR_RETURN(std::optional<Project> project, FindProject());
  if (!project.has_value()) return project;
  if (policies != nullptr && policies->empty()) *policies = project->policies;
  if (schemas != nullptr && schemas->empty()) *schemas = project->schemas;
  if (entities != nullptr && entities->empty()) *entities = project->entities;
  if (tests != nullptr && tests->empty()) *tests = project->tests;
  if (output != nullptr && output->empty()) *output = project->output;
  return project;
}

std::string NoPoliciesMessage(const std::optional<Project>& project) {
  return project.has_value()
             ? Cat(project->path, ": names no policies; give --policies")
             : Cat("give --policies, or run inside a project with a ", kProjectFileName, " naming its policies");
}

}  // namespace charter::cli
