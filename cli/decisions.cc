#include "decisions.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <array>
#include <map>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "charter/kueue.h"
#include "decision_log.h"
#include "files.h"
#include "report.h"
#include "svg.h"
#include "util.h"

namespace charter::cli {
namespace {

using svg::CsvField;
using svg::DayName;
using svg::DayOf;
using svg::Esc;
using svg::kDay;
using svg::LegendItem;
using svg::Num;
using svg::Rect;
using svg::SvgOpen;
using svg::Text;
using svg::TimeName;

// The rows of the chart that are not a policy.
constexpr char kNoPolicyPermits[] = "(no policy permits)";
constexpr char kNotDecided[] = "(review not decided)";
constexpr char kNoOpinion[] = "(no opinion)";

constexpr char kAllowColor[] = "#2f855a";
constexpr char kDenyColor[] = "#c53030";
constexpr char kNoOpinionColor[] = "#a0aec0";

// At most this many rows in the chart, and of each ranking in the page.
constexpr size_t kMaxRows = 20;
constexpr size_t kMaxRanked = 10;

enum Outcome { kAllowed, kDenied, kNoOpinionGiven, kOutcomes };
constexpr const char* kOutcomeNames[kOutcomes] = {"allow", "deny", "no opinion"};

// The periods the chart counts by: an hour over a span of two days at most,
// a day over three months at most, else weeks (or runs of weeks, so that
// there are at most 120 bars).
struct Buckets {
  double origin = 0, width = 3600;
  size_t count = 1;
  size_t Of(double t) const {
    const double i = std::floor((t - origin) / width);
    return static_cast<size_t>(std::clamp(i, 0.0, static_cast<double>(count - 1)));
  }
  std::string Name(size_t i) const {
    const double start = origin + width * static_cast<double>(i);
    if (width < kDay) return TimeName(start).substr(0, 13) + ":00Z";
    if (width == kDay) return DayName(DayOf(start));
    return Cat("week of ", DayName(DayOf(start)));
  }
  // "an hour", "a day", "a week", "a run of 2 weeks".
  std::string PerUnit() const {
    if (width < kDay) return "an hour";
    if (width == kDay) return "a day";
    return width == 7 * kDay ? std::string("a week") : Cat("a run of ", Num(width / (7 * kDay)), " weeks");
  }
};

Buckets MakeBuckets(double first, double last) {
  Buckets b;
  const double span = last - first;
  if (span <= 2 * kDay) {
    b.width = 3600;
  } else if (span <= 92 * kDay) {
    b.width = kDay;
  } else {
    b.width = 7 * kDay * std::max(1.0, std::ceil(span / (7 * kDay) / 120));
  }
  b.origin = b.width <= kDay ? std::floor(first / b.width) * b.width : static_cast<double>(DayOf(first)) * kDay;
  b.count = static_cast<size_t>(std::floor((last - b.origin) / b.width)) + 1;
  return b;
}

struct Row {
  std::string name;
  std::vector<std::array<int64_t, kOutcomes>> counts;  // a bucket each
  std::array<int64_t, kOutcomes> total{};
  int64_t Sum() const { return total[kAllowed] + total[kDenied] + total[kNoOpinionGiven]; }
};

Outcome OutcomeOf(const DecisionEvent& e) {
  if (e.decision == "allow") return kAllowed;
  if (e.decision == "deny") return kDenied;
  return kNoOpinionGiven;
}

// The rows an event counts in: each determining policy, else what decided.
std::vector<std::string> RowsOf(const DecisionEvent& e) {
  if (e.not_decided) return {kNotDecided};
  if (!e.reasons.empty()) return e.reasons;
  if (e.decision == "no opinion") return {kNoOpinion};
  return {kNoPolicyPermits};
}

// Names ranked by count, most first, then by name; at most kMaxRanked.
std::vector<std::pair<std::string, int64_t>> Ranked(const std::map<std::string, int64_t>& counts) {
  std::vector<std::pair<std::string, int64_t>> out(counts.begin(), counts.end());
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  if (out.size() > kMaxRanked) out.resize(kMaxRanked);
  return out;
}

std::string Share(int64_t part, int64_t whole) {
  return whole == 0 ? std::string("-") : Cat(Num(100.0 * static_cast<double>(part) / static_cast<double>(whole)), "%");
}

std::string Plural(int64_t n, std::string_view one, std::string_view many) { return Cat(n, " ", n == 1 ? one : many); }

}  // namespace

absl::StatusOr<double> ReadPeriodEnd(const std::string& flag, const std::string& text, bool is_end) {
  const bool date = text.size() == 10 && text[4] == '-' && text[7] == '-';
  std::optional<double> t = kueue::ParseTime(date ? text + "T00:00:00Z" : text);
  if (!t) {
    return absl::InvalidArgumentError(
        Cat(flag, ": `", Printable(text), "` is neither a date (YYYY-MM-DD) nor an RFC 3339 time"));
  }
  return date && is_end ? *t + kDay : *t;
}

absl::StatusOr<std::vector<DecisionEvent>> ReadDecisionLogs(const std::vector<std::string>& paths, size_t max_bytes) {
  std::vector<DecisionEvent> out;
  std::string errors;
  size_t faults = 0;
  auto fault = [&](std::string message) {
    if (++faults <= 20) errors += Cat(errors.empty() ? "" : "\n", message);
  };
  for (const std::string& path : paths) {
    absl::StatusOr<std::string> text = ReadInput(path, max_bytes);
    if (!text.ok()) return text.status();
    const std::string name = InputName(path);
    std::string_view all = *text;
    size_t line_no = 0;
    for (size_t start = 0; start < all.size();) {
      size_t end = all.find('\n', start);
      if (end == std::string_view::npos) end = all.size();
      const std::string_view line = all.substr(start, end - start);
      start = end + 1;
      ++line_no;
      if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
      absl::StatusOr<server::LoggedDecision> logged = server::ReadDecisionLogLine(line);
      if (!logged.ok()) {
        fault(OnLine(name, line_no, std::string(logged.status().message())));
        continue;
      }
      if (logged->time.empty()) {
        fault(Cat(name, ":", line_no, ":1: the line has no `time`: the report places each decision in time"));
        continue;
      }
      std::optional<double> t = kueue::ParseTime(logged->time);
      if (!t) {
        fault(Cat(name, ":", line_no, ":", CharactersBefore(line, logged->time_offset) + 1, ": `time` is `",
                  Printable(logged->time), "`, not an RFC 3339 time"));
        continue;
      }
      if (!logged->decision || (*logged->decision != "allow" && *logged->decision != "deny" &&
                                *logged->decision != "no opinion")) {
        fault(Cat(name, ":", line_no, ":1: the line's `decision` is ",
                  logged->decision ? Cat("`", Printable(*logged->decision), "`") : std::string("missing"),
                  ", not allow, deny or no opinion"));
        continue;
      }
      DecisionEvent e;
      e.time = *t;
      e.decision = *logged->decision;
      e.reasons = std::move(logged->reasons);
      e.errors = std::move(logged->error_policies);
      e.not_decided = !logged->mapping_error.empty();
      out.push_back(std::move(e));
    }
  }
  if (faults > 20) errors += Cat("\n", faults - 20, " more faulty lines");
  if (!errors.empty()) return absl::InvalidArgumentError(errors);
  return out;
}

DecisionCharts RenderDecisions(const std::vector<DecisionEvent>& all, const Period& period) {
  std::vector<const DecisionEvent*> events;
  for (const DecisionEvent& e : all) {
    if (period.Contains(e.time)) events.push_back(&e);
  }
  const size_t outside = all.size() - events.size();
  double first = period.from.value_or(0), last = period.to ? *period.to - 1e-6 : 0;
  if (!period.from || !period.to) {
    double lo = INFINITY, hi = -INFINITY;
    for (const DecisionEvent* e : events) {
      lo = std::min(lo, e->time);
      hi = std::max(hi, e->time);
    }
    if (events.empty()) lo = hi = period.from.value_or(period.to.value_or(0));
    if (!period.from) first = lo;
    if (!period.to) last = hi;
  }
  const Buckets buckets = MakeBuckets(first, std::max(first, last));

  std::map<std::string, Row> rows;
  std::array<int64_t, kOutcomes> totals{};
  int64_t not_decided = 0;
  std::map<std::string, int64_t> denials, erred;
  for (const DecisionEvent* e : events) {
    const Outcome o = OutcomeOf(*e);
    const size_t b = buckets.Of(e->time);
    ++totals[o];
    not_decided += e->not_decided;
    for (const std::string& name : RowsOf(*e)) {
      Row& r = rows[name];
      if (r.counts.empty()) {
        r.name = name;
        r.counts.resize(buckets.count);
      }
      ++r.counts[b][o];
      ++r.total[o];
      if (o == kDenied) ++denials[name];
    }
    for (const std::string& p : e->errors) ++erred[p];
  }
  std::vector<const Row*> order;
  for (const auto& [name, r] : rows) order.push_back(&r);
  std::sort(order.begin(), order.end(), [](const Row* a, const Row* b) {
    return a->Sum() != b->Sum() ? a->Sum() > b->Sum() : a->name < b->name;
  });

  DecisionCharts out;
  // decisions.csv: every row, every period with a decision.
  out.csv = "period_start,policy,decision,count\n";
  for (size_t b = 0; b < buckets.count; ++b) {
    for (const auto& [name, r] : rows) {
      for (int o = 0; o < kOutcomes; ++o) {
        if (r.counts[b][o] == 0) continue;
        out.csv += Cat(TimeName(buckets.origin + buckets.width * static_cast<double>(b)), ",", CsvField(name), ",",
                       CsvField(kOutcomeNames[o]), ",", r.counts[b][o], "\n");
      }
    }
  }

  // decisions.svg.
  const size_t shown = std::min(order.size(), kMaxRows);
  const double label_x = 16, chart_x = 300, row_h = 34, bar_max = 24;
  const double bar_w = std::clamp(720.0 / static_cast<double>(buckets.count), 3.0, 24.0);
  const double chart_w = bar_w * static_cast<double>(buckets.count);
  const double text_x = chart_x + std::max(chart_w, 200.0) + 16;
  std::string body;
  double y = 76;
  for (size_t i = 0; i < shown; ++i) {
    const Row& r = *order[i];
    int64_t peak = 1;
    for (const auto& c : r.counts) peak = std::max(peak, c[kAllowed] + c[kDenied] + c[kNoOpinionGiven]);
    body += Cat("<g class=\"policy-row\" data-policy=\"", Esc(r.name), "\" data-allow=\"", r.total[kAllowed],
                "\" data-deny=\"", r.total[kDenied], "\" data-no-opinion=\"", r.total[kNoOpinionGiven], "\">\n");
    body += Text(label_x, y + row_h / 2 + 4, r.name.size() > 40 ? r.name.substr(0, 39) + "…" : r.name,
                 "font-weight=\"bold\"");
    // The row's baseline and its band, so that periods without a decision show.
    body += Cat("<rect class=\"band\" x=\"", Num(chart_x), "\" y=\"", Num(y + row_h - 4 - bar_max), "\" width=\"",
                Num(chart_w), "\" height=\"", Num(bar_max), "\" fill=\"#f7fafc\"/>\n");
    body += Cat("<line x1=\"", Num(chart_x), "\" y1=\"", Num(y + row_h - 4), "\" x2=\"", Num(chart_x + chart_w),
                "\" y2=\"", Num(y + row_h - 4), "\" stroke=\"#cbd5e0\"/>\n");
    for (size_t b = 0; b < buckets.count; ++b) {
      double base = y + row_h - 4;
      const char* colors[kOutcomes] = {kAllowColor, kDenyColor, kNoOpinionColor};
      for (int o = 0; o < kOutcomes; ++o) {
        const int64_t n = r.counts[b][o];
        if (n == 0) continue;
        const double h = bar_max * static_cast<double>(n) / static_cast<double>(peak);
        base -= h;
        body += Rect(chart_x + bar_w * static_cast<double>(b), base, std::max(1.0, bar_w - 1), h, colors[o],
                     kOutcomeNames[o], Cat(r.name, ", ", buckets.Name(b), ": ", Plural(n, "decision", "decisions"), " ",
                                          kOutcomeNames[o]));
      }
    }
    body += Text(text_x, y + row_h / 2 + 4,
                 Cat(r.total[kAllowed], " allow, ", r.total[kDenied], " deny",
                     r.total[kNoOpinionGiven] ? Cat(", ", r.total[kNoOpinionGiven], " no opinion") : "", " (peak ", peak,
                     " ", buckets.PerUnit(), ")"),
                 "class=\"figures\"");
    body += "</g>\n";
    y += row_h;
  }
  if (order.size() > shown) {
    body += Text(label_x, y + 16, Cat("and ", order.size() - shown, " more (decisions.csv has every row)"),
                 "fill=\"#4a5568\"");
    y += 24;
  }
  if (events.empty()) {
    body += Text(label_x, y + 16, "no decision in the period", "fill=\"#4a5568\"");
    y += 24;
  } else {
    body += Text(chart_x, y + 16, buckets.Name(0), "fill=\"#4a5568\" class=\"axis\"");
    if (buckets.count > 1) {
      body += Text(chart_x + chart_w, y + 16, buckets.Name(buckets.count - 1),
                   "fill=\"#4a5568\" class=\"axis\" text-anchor=\"end\"");
    }
    y += 24;
  }
  const int width = static_cast<int>(text_x + 340);
  out.svg = SvgOpen(width, static_cast<int>(y + 10), "Authorization decisions per policy over time");
  out.svg += "<g class=\"legend\">\n";
  out.svg += Text(16, 22, Cat("Decisions per determining policy, a bar ", buckets.PerUnit(), " (", events.size(),
                              " decisions)"),
                  "font-size=\"15\" font-weight=\"bold\"");
  out.svg += LegendItem(16, 48, kAllowColor, "allow");
  out.svg += LegendItem(86, 48, kDenyColor, "deny");
  out.svg += LegendItem(150, 48, kNoOpinionColor, "no opinion");
  out.svg += Text(260, 48, "each row scaled to its own peak; a decision with two determining policies counts in both",
                  "fill=\"#4a5568\"");
  out.svg += "</g>\n" + body + "</svg>\n";

  // The page's section.
  const int64_t total = totals[kAllowed] + totals[kDenied] + totals[kNoOpinionGiven];
  std::string& h = out.html_section;
  h += "<h2>Authorization</h2>\n";
  h += Cat("<p id=\"decision-summary\">", Plural(total, "decision", "decisions"));
  if (!events.empty()) {
    h += Cat(" from ", TimeName(buckets.origin), " to ",
             TimeName(buckets.origin + buckets.width * static_cast<double>(buckets.count)));
  }
  h += Cat(": ", totals[kAllowed], " allowed, ", totals[kDenied], " denied, ", totals[kNoOpinionGiven], " no opinion",
           not_decided ? Cat(" (", not_decided, " not decided: the review did not map to a request)") : "",
           outside ? Cat("; ", Plural(static_cast<int64_t>(outside), "line", "lines"), " outside the period left out")
                   : "",
           ". By period and policy in decisions.csv.</p>\n");
  h += "<div class=\"chart\" id=\"decisions\">\n" + svg::Inline(out.svg) + "</div>\n";
  h += "<h3>Top denial reasons</h3>\n<table id=\"denials\">\n<tr><th>reason</th><th>denials</th>"
       "<th>of all denials</th></tr>\n";
  for (const auto& [name, n] : Ranked(denials)) {
    h += Cat("<tr data-reason=\"", Esc(name), "\"><td>", Esc(name), "</td><td class=\"n\">", n, "</td><td class=\"n\">",
             Share(n, totals[kDenied]), "</td></tr>\n");
  }
  if (denials.empty()) h += "<tr><td colspan=\"3\">no denial in the period</td></tr>\n";
  h += "</table>\n<h3>Policies that erred</h3>\n<table id=\"erred\">\n<tr><th>policy</th><th>decisions it erred "
       "in</th></tr>\n";
  for (const auto& [name, n] : Ranked(erred)) {
    h += Cat("<tr data-policy=\"", Esc(name), "\"><td>", Esc(name), "</td><td class=\"n\">", n, "</td></tr>\n");
  }
  if (erred.empty()) h += "<tr><td colspan=\"2\">no policy erred in the period</td></tr>\n";
  h += "</table>\n";
  return out;
}

}  // namespace charter::cli
