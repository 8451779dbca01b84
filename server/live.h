// The live page of `charter serve` (docs/server.md#the-live-page): GET /ui
// (a page and its script, /ui/app.js) shows, and GET /ui/data gives as JSON,
// the decisions of the last ten minutes per determining policy (ten-second
// periods), the loaded bundle, and the history of loads and reloads. The
// server counts here on every decision (RecentDecisions::Record) and on every
// load (LoadHistory::Add); both are thread-safe.
#ifndef CHARTER_SERVER_LIVE_H_
#define CHARTER_SERVER_LIVE_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

#include "charter/decision.h"
#include "decision_log.h"

namespace charter::server {

// Decisions per determining policy over the last kPeriods periods of
// kPeriodSeconds each. A decision counts in the row of each policy that
// determined it, else in `(no policy permits)`, `(no opinion)` or, for a
// review that did not map to a request, `(review not decided)`.
class RecentDecisions {
 public:
  static constexpr int kPeriods = 60;
  static constexpr int64_t kPeriodSeconds = 10;

  // `unix_seconds`: when it was decided.
  void Record(int64_t unix_seconds, const Decision& decision, Outcome outcome);

  // {"period_seconds":10,"periods":60,"start":T,"totals":{...},"rows":[...]}
  // for the window that ends with the period of `unix_seconds`: each row
  // {"policy":ID,"allow":N,"deny":N,"no_opinion":N,"series":{"allow":[60],
  // "deny":[60],"no_opinion":[60]}}, most decisions first, oldest period
  // first in each series.
  std::string Json(int64_t unix_seconds) const;

 private:
  using Counts = std::array<uint64_t, 3>;  // allow, deny, no opinion
  using Series = std::array<Counts, kPeriods>;
  // Makes the slot of `period` hold it, emptied when it held an older one.
  void Claim(int64_t period);

  mutable std::mutex mu_;
  std::array<int64_t, kPeriods> slot_period_{};  // the period each slot holds; 0: none yet
  std::map<std::string, Series, std::less<>> rows_;
};

// The last loads of the policy state: the one at start and each reload, with
// its outcome.
class LoadHistory {
 public:
  static constexpr size_t kKept = 20;
  void Add(int64_t unix_seconds, std::string_view why, bool ok, std::string_view bundle, size_t policies,
           std::string_view message);
  // [{"time":T,"why":W,"ok":B,"bundle":H,"policies":N,"message":M}], newest first.
  std::string Json() const;

 private:
  mutable std::mutex mu_;
  std::deque<std::string> entries_;  // each as JSON, newest first
};

// An RFC 3339 time of whole seconds (UTC).
std::string UnixTimeName(int64_t unix_seconds);

// The page and its script (fixed text; the script draws /ui/data).
std::string_view LivePageHtml();
std::string_view LivePageScript();
// The Content-Security-Policy the three answers carry: the page's own script
// and data, nothing from elsewhere (the page's icon is an empty data: URL,
// so that the browser asks for no /favicon.ico).
inline constexpr char kLivePagePolicy[] =
    "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; img-src data:";

}  // namespace charter::server

#endif  // CHARTER_SERVER_LIVE_H_
