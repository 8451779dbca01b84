// Fuzz target: arbitrary bytes as a bundle. Loading and verifying must never
// crash or hang; a bundle that passes must evaluate without crashing.
#include <cstddef>
#include <cstdint>
#include <string>

#include "charter/charter.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Copy into an aligned, exactly-sized buffer, as a mapped file would be.
  charter::Bundle bundle =
      charter::Bundle::FromBytes(std::string(reinterpret_cast<const char*>(data), size));
  absl::StatusOr<charter::Engine> engine = charter::Engine::Create(bundle);
  if (!engine.ok()) return 0;
  charter::Entities entities;
  charter::Request request =
      charter::Request::Create({"User", "alice"}, {"Action", "view"}, {"Doc", "d"});
  (void)engine->Authorize(request, entities);
  return 0;
}
