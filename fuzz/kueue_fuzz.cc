// libFuzzer target for Kueue's objects (engine/schedule/src/kueue/): any input, as
// declarations (ImportKueue) and as Workloads (ReadKueueWorkloads), loads or
// fails with "SOURCE:LINE:COL: message" (or "SOURCE: message" for the limits);
// what imports exports, and the export imports again to the same model; the
// state JSON written loads back equal; the declarations printed (what
// `charter import kueue` writes) compile to the same configuration; a loaded
// state runs a cycle.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "charter/kueue.h"
#include "charter/schedule.h"

namespace {

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "kueue_fuzz invariant failed: %s\n", what);
    std::abort();
  }
}

bool HasSource(const absl::Status& s) {
  std::string_view m(s.message().data(), s.message().size());
  return s.code() == absl::StatusCode::kInvalidArgument && m.substr(0, 2) == "k:";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  charter::kueue::ReadOptions options;
  options.max_nodes = 20000;
  options.max_quota_cells = 1 << 16;
  absl::StatusOr<charter::kueue::Imported> in = charter::kueue::ImportKueue({{"k", input}}, options);
  if (!in.ok()) {
    Check(HasSource(in.status()), "an import error names the source");
  } else {
    const std::string json = charter::kueue::WriteStateJson(in->state);
    absl::StatusOr<charter::schedule::State> loaded = charter::schedule::LoadState(json);
    // (A cohort's lending limit above its nominal quota, which Kueue
    // allows and the model does not, is an import error.)
    Check(loaded.ok(), "the state JSON loads back");
    Check(charter::kueue::WriteStateJson(*loaded) == json, "the state JSON loads back equal");
    // The declarations `charter import kueue` writes compile to the same
    // configuration.
    const std::string printed = charter::schedule::PrintDeclarations(in->state, in->origins);
    absl::StatusOr<charter::schedule::State> compiled = charter::schedule::CompileDeclarations(
        {charter::SourceFile("k.charter", printed)}, charter::CompileOptions{}, nullptr);
    Check(compiled.ok(), "the declarations printed compile");
    Check(charter::schedule::PrintDeclarations(*compiled) == charter::schedule::PrintDeclarations(in->state),
          "the declarations printed compile to the same configuration");
    absl::StatusOr<charter::kueue::Exported> out = charter::kueue::ExportKueue(in->state);
    if (out.ok()) {
      absl::StatusOr<charter::kueue::Imported> again = charter::kueue::ImportKueue({{"k", out->text}}, options);
      Check(again.ok(), "an export imports");
      Check(charter::kueue::WriteStateJson(again->state) == json, "import, export, import: the same model");
    }
    Check(charter::kueue::ExportHyperPod(in->state).ok(), "every model has a HyperPod form");
    charter::kueue::WorkloadOptions wl;
    wl.source_name = "k";
    wl.read = options;
    charter::schedule::State state = in->state;
    absl::Status read = charter::kueue::ReadKueueWorkloads(input, wl, &state, nullptr);
    if (!read.ok()) {
      Check(HasSource(read), "a workload error names the source");
      Check(charter::kueue::WriteStateJson(state) == json, "a failed read leaves the state");
    } else if (state.admitted.size() + state.pending.size() <= 50) {
      Check(charter::schedule::RunCycle(state).ok(), "the state runs");
    }
  }
  return 0;
}
