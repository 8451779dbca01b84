// LoadState over a generated state JSON (LoadHyperPodState's translation),
// with errors reported at the user's own text: every fault in the generated
// text is mapped back to the user value it came from.
#ifndef CHARTER_STATE_JSON_LOAD_H_
#define CHARTER_STATE_JSON_LOAD_H_

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "charter/schedule.h"

namespace charter::internal::schedule {

struct SourceMap {
  std::string_view user_text;  // errors read "options.source_name:LINE:COL" in it
  // {offset in the generated text, offset in user_text}, sorted by the
  // first: a generated offset maps through the last span at or before it.
  std::vector<std::pair<uint32_t, uint32_t>> spans;
};

absl::StatusOr<::charter::schedule::State> LoadTranslatedState(std::string_view generated,
                                                               const ::charter::schedule::LoadOptions& options,
                                                               const SourceMap& map);

}  // namespace charter::internal::schedule

#endif  // CHARTER_STATE_JSON_LOAD_H_
