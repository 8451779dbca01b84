// A user's program against Charter: compiles one policy through the public
// API and checks one allowed and one denied request, then reaches the rest
// of the public API once each (schemas and the standard governance model,
// explain, formatting, entity references, scheduling), so that a libcharter
// that fails to export any of it fails to link this program.
// Exits 0 when every check holds, 1 otherwise.
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <utility>

#include "charter/charter.h"
#include "charter/format.h"
#include "charter/schedule.h"
#include "charter/schema.h"
#include "charter/version.h"

namespace {

bool Check(const charter::Engine& engine, const charter::Entities& entities,
           const std::string& principal, bool want_allowed) {
  charter::Request request = charter::Request::Create(
      {"User", principal}, {"Action", "view"}, {"Photo", "vacation.jpg"});
  charter::Decision decision = engine.Authorize(request, entities);
  bool right = decision.allowed == want_allowed;
  std::cout << (right ? "ok   " : "FAIL ") << principal << ": " << decision.ToJson() << "\n";
  return right;
}

bool Expect(bool holds, const std::string& what) {
  std::cout << (holds ? "ok   " : "FAIL ") << what << "\n";
  return holds;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The standard governance model as installed (or in the source tree, for a
// subproject): its rules validate against its schema and compile.
bool CheckStdlib() {
  const std::string dir = CONSUMER_STDLIB_DIR;
  charter::SourceFile schema_file("governance.cedarschema", ReadFile(dir + "/governance.cedarschema"));
  charter::SourceFile rules("governance.cedar", ReadFile(dir + "/governance.cedar"));
  if (!Expect(!schema_file.text().empty() && !rules.text().empty(), "stdlib found in " + dir)) return false;
  charter::Diagnostics diagnostics;
  absl::StatusOr<charter::Schema> schema = charter::Schema::Parse(schema_file, {}, &diagnostics);
  if (!Expect(schema.ok(), "stdlib schema parses")) {
    std::cerr << diagnostics.Render(schema_file);
    return false;
  }
  absl::Status valid = charter::Validate(*schema, rules, {}, &diagnostics);
  if (!Expect(valid.ok(), "stdlib rules validate")) {
    std::cerr << diagnostics.Render(rules);
    return false;
  }
  return Expect(charter::Compile(rules, {}, &diagnostics).ok(), "stdlib rules compile");
}

bool CheckExplainAndFormat(const charter::SourceFile& source, const charter::Entities& entities) {
  charter::EntityUid alice{"User", "alice"};
  bool ok = Expect(alice.ToString() == "User::\"alice\"", "EntityUid::ToString");
  charter::Request request =
      charter::Request::Create(alice, {"Action", "view"}, {"Photo", "vacation.jpg"});
  absl::StatusOr<charter::Explanation> explanation = charter::Explain(source, {}, request, entities);
  ok = Expect(explanation.ok() && explanation->decision.allowed &&
                  explanation->ToJson().find("\"policies\"") != std::string::npos &&
                  !explanation->ToText(source).empty(),
              "Explain") &&
       ok;
  absl::StatusOr<std::string> formatted = charter::FormatPolicies(source, {}, nullptr);
  ok = Expect(formatted.ok() && formatted->find("permit") != std::string::npos, "FormatPolicies") && ok;
  return ok;
}

bool CheckSchedule() {
  const char* state_json = R"({
    "resource_flavors": ["default"],
    "cluster_queues": [{"name": "team-a", "resource_groups": [{"covered_resources": ["cpu"],
      "flavors": [{"name": "default", "quotas": {"cpu": {"nominal": 10}}}]}]}],
    "admitted": [],
    "pending": [{"name": "w", "cluster_queue": "team-a", "created_at": 0,
                 "pod_sets": [{"name": "main", "count": 1, "requests": {"cpu": 4}}]}]})";
  absl::StatusOr<charter::schedule::State> state = charter::schedule::LoadState(state_json);
  if (!Expect(state.ok(), "schedule::LoadState")) {
    std::cerr << state.status() << "\n";
    return false;
  }
  absl::StatusOr<charter::schedule::CycleResult> result = charter::schedule::RunCycle(*state);
  if (!Expect(result.ok() && result->admitted.size() == 1, "schedule::RunCycle admits the workload")) return false;
  return Expect(result->ToJson().find("\"admitted\"") != std::string::npos && !result->ToText().empty() &&
                    charter::schedule::ApplyCycle(*state, *result).ok(),
                "CycleResult::ToJson, ToText and ApplyCycle");
}

}  // namespace

int main() {
  std::cout << "charter " << charter::Version() << " (header " << CHARTER_VERSION << ")\n";
  charter::SourceFile source("consumer.cedar",
                             R"(permit(principal == User::"alice", action, resource);)");
  charter::Diagnostics diagnostics;
  absl::StatusOr<charter::Bundle> bundle = charter::Compile(source, {}, &diagnostics);
  if (!bundle.ok()) {
    std::cerr << "compile: " << bundle.status() << "\n" << diagnostics.Render(source);
    return 1;
  }
  absl::StatusOr<charter::Engine> engine = charter::Engine::Create(*std::move(bundle));
  if (!engine.ok()) {
    std::cerr << "engine: " << engine.status() << "\n";
    return 1;
  }
  charter::Entities entities;
  bool ok = Check(*engine, entities, "alice", true);
  ok = Check(*engine, entities, "bob", false) && ok;
  ok = CheckExplainAndFormat(source, entities) && ok;
  ok = CheckStdlib() && ok;
  ok = CheckSchedule() && ok;
  return ok ? 0 : 1;
}
