// Fuzz target: arbitrary bytes as Cedar schema text through FormatSchema.
// Nothing may crash; for text that formats, formatting the output again
// changes nothing, and the output reads as a schema exactly when the input
// does, to the same schema (its JSON form). A refusal by the formatter's own
// check of its output (CH0900 "the formatted text ...") is a bug: the
// printer lost or changed something.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "charter/format.h"
#include "charter/schema.h"

namespace {

std::string SchemaJson(const charter::SourceFile& source, bool* read) {
  absl::StatusOr<charter::Schema> schema = charter::Schema::Parse(source, {}, nullptr);
  *read = schema.ok();
  return schema.ok() ? schema->ToJson() : "";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  charter::SourceFile source("fuzz.cedarschema", text);
  charter::Diagnostics diagnostics;
  absl::StatusOr<std::string> once = charter::FormatSchema(source, {}, &diagnostics);
  if (!once.ok()) {
    if (diagnostics.empty() && once.status().message().empty()) std::abort();  // a refusal says why
    for (const charter::Diagnostic& d : diagnostics.items()) {
      if (d.code == "CH0900" && d.message.rfind("the formatted text", 0) == 0) std::abort();
    }
    (void)diagnostics.Render(source);
    return 0;
  }
  charter::SourceFile formatted("fuzz.cedarschema", *once);
  absl::StatusOr<std::string> twice = charter::FormatSchema(formatted, {}, nullptr);
  if (!twice.ok() || *twice != *once) std::abort();  // not a fixed point
  bool before_read = false;
  bool after_read = false;
  std::string before = SchemaJson(source, &before_read);
  std::string after = SchemaJson(formatted, &after_read);
  if (before_read != after_read || before != after) std::abort();
  return 0;
}
