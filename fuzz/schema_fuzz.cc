// Fuzz target: schema text or JSON -> Schema::Parse; when it reads, both
// writers, re-reading what they wrote, and validating a fixed policy set
// against it. Nothing may crash, and a written schema must read again.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "charter/schema.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  charter::SourceFile source("fuzz.cedarschema", text);
  charter::Diagnostics d;
  absl::StatusOr<charter::Schema> schema = charter::Schema::Parse(source, {}, &d);
  (void)d.Render(source);
  if (!schema.ok()) return 0;
  for (const std::string& written : {schema->ToCedar(), schema->ToJson()}) {
    if (!charter::Schema::Parse(charter::SourceFile("again", written), {}, nullptr).ok()) abort();
  }
  charter::SourceFile policies(
      "p.cedar",
      "permit (principal, action, resource) when { principal has a && principal.a == 1 };\n"
      "forbid (principal is User, action in [Action::\"view\"], resource) "
      "when { resource.hasTag(\"k\") && resource.getTag(\"k\") like \"*\" || context.x.contains(1) };");
  (void)charter::Validate(*schema, policies, {}, nullptr);
  return 0;
}
