// Fuzz target: arbitrary bytes as .charter text and as .cedar text through
// FormatPolicies. Nothing may crash; for text that formats, formatting the
// output again changes nothing, and the output compiles exactly when the
// input does, to a bundle with the same code and the same scheduling
// configuration (source positions aside). A refusal by the formatter's own
// check of its output (CH0900 "the formatted text ...") is a bug: the
// printer lost or changed something.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "charter/charter.h"
#include "charter/disassembly.h"
#include "charter/format.h"
#include "charter/schedule.h"

namespace {

// What a bundle holds apart from source positions.
std::string BundleContents(const charter::SourceFile& source, bool* compiled) {
  charter::CompileOptions options;
  options.declarations = &charter::schedule::Declarations();
  absl::StatusOr<charter::Bundle> bundle = charter::Compile(source, options, nullptr);
  *compiled = bundle.ok();
  if (!bundle.ok()) return "";
  absl::StatusOr<charter::Disassembly> code = charter::Disassemble(*bundle);
  absl::StatusOr<charter::Engine> engine = charter::Engine::Create(*bundle);
  if (!code.ok() || !engine.ok()) std::abort();  // the compiler wrote a bundle the verifier refuses
  std::string out = code->ToText();
  absl::StatusOr<std::optional<charter::schedule::State>> config = charter::schedule::ReadConfiguration(*engine);
  if (!config.ok()) std::abort();  // the compiler wrote a section its reader refuses
  if (config->has_value()) out += charter::schedule::PrintDeclarations(**config);
  return out;
}

void Check(const char* name, const std::string& text) {
  charter::SourceFile source(name, text);
  charter::Diagnostics diagnostics;
  absl::StatusOr<std::string> once = charter::FormatPolicies(source, {}, &diagnostics);
  if (!once.ok()) {
    if (diagnostics.empty() && once.status().message().empty()) std::abort();  // a refusal says why
    for (const charter::Diagnostic& d : diagnostics.items()) {
      if (d.code == "CH0900" && d.message.rfind("the formatted text", 0) == 0) std::abort();
    }
    (void)diagnostics.Render(source);
    return;
  }
  charter::SourceFile formatted(name, *once);
  absl::StatusOr<std::string> twice = charter::FormatPolicies(formatted, {}, nullptr);
  if (!twice.ok() || *twice != *once) std::abort();  // not a fixed point
  bool before_compiled = false;
  bool after_compiled = false;
  std::string before = BundleContents(source, &before_compiled);
  std::string after = BundleContents(formatted, &after_compiled);
  if (before_compiled != after_compiled || before != after) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  Check("fuzz.charter", text);
  Check("fuzz.cedar", text);
  return 0;
}
