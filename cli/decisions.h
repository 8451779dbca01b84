// The authorization part of `charter report` (docs/report.md): decision
// logs (the JSON lines `charter serve --decision-log` writes) read as
// events, counted per policy over time, and drawn: decisions.svg (a row a
// policy, a stacked bar of its decisions a period), decisions.csv, and the
// report page's section with the top denial reasons and the policies that
// erred.
#ifndef CHARTER_CLI_DECISIONS_H_
#define CHARTER_CLI_DECISIONS_H_

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace charter::cli {

// The period a report covers: [from, to), seconds since the Unix epoch;
// either end open.
struct Period {
  std::optional<double> from, to;
  bool Contains(double t) const { return (!from || t >= *from) && (!to || t < *to); }
  bool bounded() const { return from.has_value() || to.has_value(); }
};

// Reads `--from`/`--to`: a date (YYYY-MM-DD, UTC: its first moment, or for
// `is_end` the first moment of the next day, so that `--to 2026-03-02`
// includes that day) or an RFC 3339 time. Fails with "FLAG: ..." otherwise.
absl::StatusOr<double> ReadPeriodEnd(const std::string& flag, const std::string& text, bool is_end);

// One line of a decision log, as the report counts it.
struct DecisionEvent {
  double time = 0;                   // the line's `time`
  std::string decision;              // allow, deny or no opinion
  std::vector<std::string> reasons;  // the determining policies
  std::vector<std::string> errors;   // the policies that erred
  bool not_decided = false;          // an error of `(mapping)`: the review did not map to a request
};

// Every line of the files, in order. A fault names PATH:LINE:COL (a line
// that is not a decision-log line, one without a `time` or a `decision`, a
// time that is not RFC 3339); up to 20 are reported together.
absl::StatusOr<std::vector<DecisionEvent>> ReadDecisionLogs(const std::vector<std::string>& paths, size_t max_bytes);

// What the report writes of the events in `period`.
struct DecisionCharts {
  std::string svg;           // decisions.svg
  std::string csv;           // decisions.csv
  std::string html_section;  // the "Authorization" section of index.html
};
DecisionCharts RenderDecisions(const std::vector<DecisionEvent>& events, const Period& period);

}  // namespace charter::cli

#endif  // CHARTER_CLI_DECISIONS_H_
