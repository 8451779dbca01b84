// Fuzz target: arbitrary bytes as policy text. Compiling must never crash,
// and whatever compiles must pass the verifier and evaluate without crashing
// (the compiler only writes bundles that the verifier accepts). The syntax
// layer's lexer must make the tokens ANTLR's generated lexer makes, and its
// fast reader of declarations read what it reads as the full parser does.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>

#include "charter/charter.h"
#include "syntax/parser.h"

namespace {

const charter::Entities& FuzzEntities() {
  static const charter::Entities* entities = [] {
    auto e = charter::Entities::FromJson(R"([
      {"uid": {"type": "User", "id": "alice"}, "attrs": {"team": "ml", "level": 3, "ok": true,
        "tags": ["a", "b"], "rec": {"x": 1}}, "parents": [{"type": "Team", "id": "ml"}]},
      {"uid": {"type": "Team", "id": "ml"}, "attrs": {}, "parents": []}])");
    if (!e.ok()) std::abort();
    return new charter::Entities(*std::move(e));
  }();
  return *entities;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  charter::SourceFile source("fuzz.cedar", std::string(reinterpret_cast<const char*>(data), size));
  if (!charter::internal::LexerDifference(source.text()).empty()) std::abort();
  std::optional<std::string> declarations = charter::internal::DeclarationParseDifference(source.text());
  if (declarations.has_value() && !declarations->empty()) std::abort();
  charter::Diagnostics diagnostics;
  absl::StatusOr<charter::Bundle> bundle = charter::Compile(source, {}, &diagnostics);
  if (!bundle.ok()) {
    if (diagnostics.empty()) std::abort();  // a failure always says why
    (void)diagnostics.Render(source);
    return 0;
  }
  absl::StatusOr<charter::Engine> engine = charter::Engine::Create(*std::move(bundle));
  if (!engine.ok()) std::abort();  // the compiler wrote a bundle the verifier refuses
  charter::Request request =
      charter::Request::Create({"User", "alice"}, {"Action", "view"}, {"Team", "ml"});
  (void)engine->Authorize(request, FuzzEntities());
  return 0;
}
