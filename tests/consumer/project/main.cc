// A user's program against the installed Charter: compiles one policy
// through the public API and checks one allowed and one denied request.
// Exits 0 when both decisions are right, 1 otherwise.
#include <iostream>
#include <string>
#include <utility>

#include "charter/charter.h"
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
  return ok ? 0 : 1;
}
