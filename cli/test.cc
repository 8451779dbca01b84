// `charter test`: run policy tests (docs/testing.md).
//
//   charter test DIR|FILE... [--coverage]
//
// A test file (`*.test.json`, or any file named on the command line) names
// the policies and entities and lists cases: a request and its expected
// decision, optionally the expected determining policies and erring
// policies. Each case prints PASS or FAIL (with a diff), then a summary
// `N passed, N failed`; exit 1 if any case fails or a file cannot be run.
// --coverage lists the policies that no case exercised (none of the cases
// had it among its determining or erring policies).
#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "charter/charter.h"
#include "command.h"
#include "common/strings.h"
#include "files.h"
#include "common/status_macros.h"
#include "json/json.h"
#include "load.h"
#include "report.h"

namespace charter::cli {
namespace {

namespace json = internal::json;
using internal::Cat;
using internal::CatAppend;

struct TestFlags {
  std::vector<std::string> paths;
  bool coverage = false;
};

// The end of the JSON value that starts at `begin` in `text`.
size_t ValueEnd(std::string_view text, size_t begin) {
  size_t i = begin;
  int depth = 0;
  while (i < text.size()) {
    char c = text[i];
    if (c == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\') ++i;
      }
      ++i;
      if (depth == 0) return i;
      continue;
    }
    if (c == '{' || c == '[') ++depth;
    if (c == '}' || c == ']') {
      if (--depth == 0) return i + 1;
    }
    if (depth == 0 && (c == ',' || c == '}' || c == ']' || c == ' ' || c == '\n')) return i;
    ++i;
  }
  return i;
}

std::string_view Raw(std::string_view text, const json::Value& v) {
  return text.substr(v.offset(), ValueEnd(text, v.offset()) - v.offset());
}

std::string Resolve(const std::string& test_file, std::string_view path) {
  std::filesystem::path p(path);
  if (p.is_absolute()) return p.string();
  return (std::filesystem::path(test_file).parent_path() / p).lexically_normal().string();
}

// An expected `reasons` or `errors` list: an array of policy ids, nothing
// else (a misspelt shape must not pass as an empty list).
absl::StatusOr<std::vector<std::string>> PolicyIds(const std::string& path, size_t case_number,
                                                   std::string_view key, const json::Value& v) {
  std::vector<std::string> out;
  bool ok = v.is_array();
  for (size_t i = 0; ok && i < v.size(); ++i) {
    ok = v.at(i).is_string();
    if (ok) out.emplace_back(v.at(i).as_string());
  }
  if (!ok) {
    return absl::InvalidArgumentError(
        Cat(path, ": case ", case_number, ": \"", key, "\" must be an array of policy ids"));
  }
  return out;
}

std::string List(const std::vector<std::string>& ids) {
  std::string out = "[";
  for (size_t i = 0; i < ids.size(); ++i) CatAppend(&out, i ? ", " : "", ids[i]);
  return out + "]";
}

struct Totals {
  size_t passed = 0;
  size_t failed = 0;
  bool broken = false;
  // policy file -> its policy ids (in order, as the engine has them) and
  // those exercised
  std::map<std::string, std::vector<std::string>> policies;
  std::map<std::string, std::set<std::string>> exercised;
};

absl::Status RunFile(const std::string& path, Totals* totals, std::string* out) {
  absl::StatusOr<std::string> text = ReadFile(path, size_t{256} << 20);
  if (!text.ok()) return text.status();
  absl::StatusOr<json::Document> doc = json::Parse(*text);
  if (!doc.ok()) return absl::InvalidArgumentError(WithPath(path, doc.status().message()));
  const json::Value& root = doc->root();
  const json::Value* policies = root.Find("policies");
  const json::Value* entities = root.Find("entities");
  const json::Value* cases = root.Find("cases");
  if (!root.is_object() || policies == nullptr || !policies->is_string() || cases == nullptr ||
      !cases->is_array()) {
    return absl::InvalidArgumentError(
        Cat(path, ": a test file is an object with \"policies\" (a path), \"cases\" (an array) "
                  "and optionally \"entities\" (a path or an array)"));
  }
  std::string policy_path = Resolve(path, policies->as_string());
  PolicySource source;
  source.policies = policy_path;
  ASSIGN_OR_RETURN(Engine engine, LoadEngine(source));
  Entities store;
  if (entities != nullptr && entities->is_string()) {
    ASSIGN_OR_RETURN(store, LoadEntities(Resolve(path, entities->as_string())));
  } else if (entities != nullptr) {
    absl::StatusOr<Entities> inline_store = Entities::FromJson(Raw(*text, *entities), path);
    if (!inline_store.ok()) return absl::InvalidArgumentError(WithPath(path, inline_store.status().message()));
    store = *std::move(inline_store);
  }
  std::set<std::string>& exercised = totals->exercised[policy_path];
  totals->policies.emplace(policy_path, engine.policy_ids());
  for (size_t i = 0; i < cases->size(); ++i) {
    const json::Value& c = cases->at(i);
    const json::Value* name = c.Find("name");
    const json::Value* request = c.Find("request");
    const json::Value* decision = c.Find("decision");
    std::string label = name != nullptr && name->is_string() ? std::string(name->as_string())
                                                              : Cat(path, " case ", i + 1);
    if (request == nullptr || decision == nullptr || !decision->is_string() ||
        (decision->as_string() != "allow" && decision->as_string() != "deny")) {
      return absl::InvalidArgumentError(
          Cat(path, ": case ", i + 1, ": needs \"request\" and \"decision\" (\"allow\" or \"deny\")"));
    }
    absl::StatusOr<Request> r = Request::FromJson(Raw(*text, *request), path);
    if (!r.ok()) return absl::InvalidArgumentError(WithPath(path, r.status().message()));
    Decision d = engine.Authorize(*r, store);
    std::vector<std::string> errs;
    for (const PolicyError& e : d.errors) errs.push_back(e.policy_id);
    for (const std::string& id : d.reasons) exercised.insert(id);
    for (const std::string& id : errs) exercised.insert(id);
    std::string diff;
    std::string got = d.allowed ? "allow" : "deny";
    if (got != decision->as_string()) {
      CatAppend(&diff, "    -decision: ", decision->as_string(), "\n    +decision: ", got, "\n");
    }
    if (const json::Value* reasons = c.Find("reasons"); reasons != nullptr) {
      ASSIGN_OR_RETURN(std::vector<std::string> want, PolicyIds(path, i + 1, "reasons", *reasons));
      if (want != d.reasons) {
        CatAppend(&diff, "    -reasons: ", List(want), "\n    +reasons: ", List(d.reasons), "\n");
      }
    }
    if (const json::Value* errors = c.Find("errors"); errors != nullptr) {
      ASSIGN_OR_RETURN(std::vector<std::string> want, PolicyIds(path, i + 1, "errors", *errors));
      if (want != errs) {
        CatAppend(&diff, "    -errors: ", List(want), "\n    +errors: ", List(errs), "\n");
      }
    }
    if (diff.empty()) {
      ++totals->passed;
      CatAppend(out, "PASS ", label, "\n");
    } else {
      ++totals->failed;
      CatAppend(out, "FAIL ", label, "\n", diff);
    }
  }
  return absl::OkStatus();
}

// Test files: the paths named, and the `*.test.json` files in named directories.
std::vector<std::string> TestFiles(const std::vector<std::string>& paths) {
  std::vector<std::string> files;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (std::filesystem::is_directory(p, ec)) {
      std::vector<std::string> found;
      for (const auto& e : std::filesystem::recursive_directory_iterator(p, ec)) {
        std::string name = e.path().filename().string();
        if (name.size() > 10 && name.substr(name.size() - 10) == ".test.json") found.push_back(e.path().string());
      }
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
    } else {
      files.push_back(p);
    }
  }
  return files;
}

int RunTest(const TestFlags& flags) {
  std::vector<std::string> files = TestFiles(flags.paths);
  if (files.empty()) {
    PrintError(Cat(List(flags.paths), ": no *.test.json files"));
    return kError;
  }
  Totals totals;
  for (const std::string& f : files) {
    std::string out;
    absl::Status s = RunFile(f, &totals, &out);
    if (!WriteStdout(out)) return kError;
    if (!s.ok()) {
      Fail(s);
      totals.broken = true;
    }
  }
  std::string summary;
  if (flags.coverage) {
    for (const auto& [policy_path, exercised] : totals.exercised) {
      const std::vector<std::string>& ids = totals.policies[policy_path];
      std::vector<std::string> missed;
      for (const std::string& id : ids) {
        if (exercised.count(id) == 0) missed.push_back(id);
      }
      CatAppend(&summary, "coverage: ", policy_path, ": ", ids.size() - missed.size(), " of ",
                ids.size(), " policies exercised\n");
      for (const std::string& id : missed) CatAppend(&summary, "  never exercised: ", id, "\n");
    }
  }
  CatAppend(&summary, totals.passed, " passed, ", totals.failed, " failed\n");
  if (!WriteStdout(summary)) return kError;
  return totals.failed > 0 || totals.broken ? kError : kOk;
}

}  // namespace

Command AddTestCommand(CLI::App& root) {
  auto flags = std::make_shared<TestFlags>();
  CLI::App* app = root.add_subcommand("test", "Run policy tests (*.test.json; see docs/testing.md)");
  app->add_option("PATH", flags->paths, "Test files, or directories searched for *.test.json")
      ->type_name("DIR|FILE...")
      ->required();
  app->add_flag("--coverage", flags->coverage, "Report the policies no test exercised");
  return Command{app, [flags] { return RunTest(*flags); }};
}

}  // namespace charter::cli
