// An embedder that only authorizes: it links charter::core and nothing else
// (tests/layering/authorize_only_test.sh checks that no libyaml and no
// scheduling or tools code is in it). Prints "allow deny".
#include <cstdio>
#include <string>

#include "charter/compiler.h"
#include "charter/engine.h"
#include "charter/entities.h"
#include "charter/request.h"

namespace {

bool Decide(const charter::Engine& engine, const charter::Entities& entities, const char* principal) {
  absl::StatusOr<charter::Request> request = charter::Request::FromJson(
      std::string(R"({"principal": {"type": "User", "id": ")") + principal +
      R"("}, "action": {"type": "Action", "id": "read"}, "resource": {"type": "Doc", "id": "plan"}})");
  if (!request.ok()) {
    std::fprintf(stderr, "request: %s\n", std::string(request.status().message()).c_str());
    return false;
  }
  return engine.Authorize(*request, entities).allowed;
}

}  // namespace

int main() {
  charter::SourceFile source("policies.cedar",
                             "permit (principal == User::\"alice\", action == Action::\"read\", resource);");
  absl::StatusOr<charter::Bundle> bundle = charter::Compile(source, {}, nullptr);
  if (!bundle.ok()) {
    std::fprintf(stderr, "compile: %s\n", std::string(bundle.status().message()).c_str());
    return 1;
  }
  absl::StatusOr<charter::Engine> engine = charter::Engine::Create(*bundle);
  absl::StatusOr<charter::Entities> entities = charter::Entities::FromJson("[]");
  if (!engine.ok() || !entities.ok()) return 1;
  std::printf("%s %s\n", Decide(*engine, *entities, "alice") ? "allow" : "deny",
              Decide(*engine, *entities, "bob") ? "allow" : "deny");
  return 0;
}
