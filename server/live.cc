#include "live.h"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <utility>
#include <vector>

#include "charter_support/strings.h"
#include "json_write.h"

namespace charter::server {
namespace {

using support::Cat;

constexpr char kNoPolicyPermits[] = "(no policy permits)";
constexpr char kNoOpinion[] = "(no opinion)";
constexpr char kNotDecided[] = "(review not decided)";
constexpr const char* kOutcomeNames[3] = {"allow", "deny", "no_opinion"};

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - (a % b != 0 && (a < 0) != (b < 0)); }

size_t SlotOf(int64_t period) {
  return static_cast<size_t>(((period % RecentDecisions::kPeriods) + RecentDecisions::kPeriods) %
                             RecentDecisions::kPeriods);
}

}  // namespace

std::string UnixTimeName(int64_t unix_seconds) {
  std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                tm.tm_hour, tm.tm_min, tm.tm_sec);
  return buf;
}

void RecentDecisions::Claim(int64_t period) {
  const size_t slot = SlotOf(period);
  if (slot_period_[slot] == period) return;
  slot_period_[slot] = period;
  // The slot held an older period: empty it in every row, and forget the
  // rows left with nothing in the window (a policy removed by a reload).
  for (auto it = rows_.begin(); it != rows_.end();) {
    it->second[slot] = Counts{};
    bool any = false;
    for (const Counts& c : it->second) any = any || c[0] || c[1] || c[2];
    it = any ? std::next(it) : rows_.erase(it);
  }
}

void RecentDecisions::Record(int64_t unix_seconds, const Decision& decision, Outcome outcome) {
  const int64_t period = FloorDiv(unix_seconds, kPeriodSeconds);
  const size_t slot = SlotOf(period);
  const int o = static_cast<int>(outcome);
  bool not_decided = false;
  for (const PolicyError& e : decision.errors) not_decided = not_decided || e.policy_id == "(mapping)";
  std::lock_guard<std::mutex> lock(mu_);
  Claim(period);
  auto count = [&](std::string_view row) {
    auto it = rows_.find(row);
    if (it == rows_.end()) it = rows_.emplace(std::string(row), Series{}).first;
    ++it->second[slot][o];
  };
  if (not_decided) {
    count(kNotDecided);
  } else if (!decision.reasons.empty()) {
    for (const std::string& id : decision.reasons) count(id);
  } else {
    count(outcome == Outcome::kNoOpinion ? kNoOpinion : kNoPolicyPermits);
  }
}

std::string RecentDecisions::Json(int64_t unix_seconds) const {
  const int64_t last = FloorDiv(unix_seconds, kPeriodSeconds);
  const int64_t first = last - kPeriods + 1;
  struct Row {
    std::string_view policy;
    std::array<std::array<uint64_t, kPeriods>, 3> series{};
    std::array<uint64_t, 3> total{};
  };
  std::vector<Row> rows;
  std::array<std::array<uint64_t, kPeriods>, 3> totals{};
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [policy, series] : rows_) {
    Row r;
    r.policy = policy;
    for (int64_t p = first; p <= last; ++p) {
      const size_t slot = SlotOf(p);
      if (slot_period_[slot] != p) continue;  // a period nothing was decided in
      for (int o = 0; o < 3; ++o) {
        r.series[o][p - first] = series[slot][o];
        r.total[o] += series[slot][o];
        totals[o][p - first] += series[slot][o];
      }
    }
    if (r.total[0] + r.total[1] + r.total[2] > 0) rows.push_back(r);
  }
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    const uint64_t x = a.total[0] + a.total[1] + a.total[2], y = b.total[0] + b.total[1] + b.total[2];
    return x != y ? x > y : a.policy < b.policy;
  });
  auto series_json = [](const std::array<uint64_t, kPeriods>& s) {
    std::string out = "[";
    for (int i = 0; i < kPeriods; ++i) out += Cat(i ? "," : "", s[i]);
    return out + "]";
  };
  auto outcomes_json = [&](const std::array<std::array<uint64_t, kPeriods>, 3>& s) {
    std::string out = "{";
    for (int o = 0; o < 3; ++o) out += Cat(o ? "," : "", "\"", kOutcomeNames[o], "\":", series_json(s[o]));
    return out + "}";
  };
  std::string out = Cat("{\"period_seconds\":", kPeriodSeconds, ",\"periods\":", kPeriods, ",\"start\":",
                        Quoted(UnixTimeName(first * kPeriodSeconds)), ",\"end\":",
                        Quoted(UnixTimeName((last + 1) * kPeriodSeconds)), ",\"totals\":", outcomes_json(totals),
                        ",\"rows\":[");
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    out += Cat(i ? "," : "", "{\"policy\":", Quoted(r.policy), ",\"allow\":", r.total[0], ",\"deny\":", r.total[1],
               ",\"no_opinion\":", r.total[2], ",\"series\":", outcomes_json(r.series), "}");
  }
  return out + "]}";
}

void LoadHistory::Add(int64_t unix_seconds, std::string_view why, bool ok, std::string_view bundle, size_t policies,
                      std::string_view message) {
  std::string entry = Cat("{\"time\":", Quoted(UnixTimeName(unix_seconds)), ",\"why\":", Quoted(why),
                          ",\"ok\":", ok ? "true" : "false", ",\"bundle\":", Quoted(bundle),
                          ",\"policies\":", policies, ",\"message\":", Quoted(message), "}");
  std::lock_guard<std::mutex> lock(mu_);
  entries_.push_front(std::move(entry));
  if (entries_.size() > kKept) entries_.pop_back();
}

std::string LoadHistory::Json() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::string out = "[";
  for (size_t i = 0; i < entries_.size(); ++i) out += Cat(i ? "," : "", entries_[i]);
  return out + "]";
}

std::string_view LivePageHtml() {
  return R"html(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>charter serve</title>
<link rel="icon" href="data:,">
<style>
body{font-family:'DejaVu Sans',Verdana,sans-serif;margin:24px;color:#1a202c}
table{border-collapse:collapse;margin:8px 0 24px}
th,td{border:1px solid #cbd5e0;padding:4px 8px;text-align:left;vertical-align:middle}
td.n{text-align:right;font-variant-numeric:tabular-nums}
th{background:#edf2f7}
.legend .swatch{display:inline-block;width:12px;height:12px;margin:0 4px 0 12px;vertical-align:middle}
#loads td{white-space:nowrap}
#status{color:#4a5568}
.failed{color:#c53030}
</style>
<script src="/ui/app.js" defer></script>
</head>
<body>
<h1>charter serve</h1>
<p id="status">Loading…</p>
<p id="bundle"></p>
<h2>Decisions of the last <span id="window"></span>, per determining policy</h2>
<p class="legend"><span class="swatch" style="background:#2f855a"></span>allow<span class="swatch" style="background:#c53030"></span>deny<span class="swatch" style="background:#a0aec0"></span>no opinion
(a bar every <span id="period"></span>; each row scaled to its own busiest period)</p>
<table id="decisions">
<thead><tr><th>policy</th><th>over time</th><th>allow</th><th>deny</th><th>no opinion</th></tr></thead>
<tbody></tbody>
</table>
<section id="allocation-section" hidden>
<h2>Allocation</h2>
<p id="allocation-note"></p>
<div id="allocation"></div>
</section>
<h2>Loads of the policies</h2>
<table id="loads">
<thead><tr><th>time</th><th>why</th><th>outcome</th><th>bundle</th><th>policies</th></tr></thead>
<tbody></tbody>
</table>
<p>Served by <code>charter serve</code> at <code>/ui</code>; the same figures as JSON at <code>/ui/data</code>.</p>
</body>
</html>
)html";
}

std::string_view LivePageScript() {
  return R"js('use strict';
// Draws /ui/data every two seconds, without reloading the page. Every text
// from the server goes in as text (textContent), never as markup.
const SVG = 'http://www.w3.org/2000/svg';
const COLORS = { allow: '#2f855a', deny: '#c53030', no_opinion: '#a0aec0' };

function cell(row, text, cls) {
  const td = document.createElement('td');
  td.textContent = String(text);
  if (cls) td.className = cls;
  row.appendChild(td);
  return td;
}

function strip(series, periods) {
  const width = 360, height = 24, w = width / periods;
  let peak = 1;
  for (let i = 0; i < periods; i++) peak = Math.max(peak, series.allow[i] + series.deny[i] + series.no_opinion[i]);
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('width', width);
  svg.setAttribute('height', height);
  svg.setAttribute('class', 'strip');
  const band = document.createElementNS(SVG, 'rect');
  band.setAttribute('width', width);
  band.setAttribute('height', height);
  band.setAttribute('fill', '#f7fafc');
  svg.appendChild(band);
  for (let i = 0; i < periods; i++) {
    let base = height;
    for (const o of ['allow', 'deny', 'no_opinion']) {
      const n = series[o][i];
      if (!n) continue;
      const h = height * n / peak;
      base -= h;
      const r = document.createElementNS(SVG, 'rect');
      r.setAttribute('class', o);
      r.setAttribute('x', i * w);
      r.setAttribute('y', base);
      r.setAttribute('width', Math.max(1, w - 1));
      r.setAttribute('height', h);
      r.setAttribute('fill', COLORS[o]);
      const title = document.createElementNS(SVG, 'title');
      title.textContent = n + ' ' + o.replace('_', ' ');
      r.appendChild(title);
      svg.appendChild(r);
    }
  }
  return svg;
}

function draw(data) {
  const d = data.decisions;
  document.getElementById('window').textContent = (d.periods * d.period_seconds / 60) + ' minutes';
  document.getElementById('period').textContent = d.period_seconds + ' seconds';
  document.getElementById('bundle').textContent =
    'Serving ' + data.bundle + ' (' + data.policies + ' policies), as of ' + data.now + '.';
  const body = document.querySelector('#decisions tbody');
  const rows = [];
  for (const r of d.rows) {
    const tr = document.createElement('tr');
    tr.dataset.policy = r.policy;
    cell(tr, r.policy);
    cell(tr, '').appendChild(strip(r.series, d.periods));
    cell(tr, r.allow, 'n allow');
    cell(tr, r.deny, 'n deny');
    cell(tr, r.no_opinion, 'n no-opinion');
    rows.push(tr);
  }
  if (rows.length === 0) {
    const tr = document.createElement('tr');
    cell(tr, 'no decision in the window').colSpan = 5;
    rows.push(tr);
  }
  body.replaceChildren(...rows);
  const loads = [];
  for (const l of data.loads) {
    const tr = document.createElement('tr');
    cell(tr, l.time);
    cell(tr, l.why);
    cell(tr, l.ok ? 'loaded' : 'failed: ' + l.message, l.ok ? '' : 'failed');
    cell(tr, l.bundle);
    cell(tr, l.policies, 'n');
    loads.push(tr);
  }
  document.querySelector('#loads tbody').replaceChildren(...loads);
  drawAllocation(data.allocation);
}

// The quota tree `charter serve --workloads` draws (Charter's own SVG),
// parsed as SVG, never as HTML, and replaced only when it changed.
let allocationSvg = null;
function drawAllocation(a) {
  const section = document.getElementById('allocation-section');
  section.hidden = !a;
  if (!a) return;
  const note = document.getElementById('allocation-note');
  note.textContent = 'The quota of the policies\' queues and what ' + a.source + ' holds, read ' + a.time +
    (a.error ? '. The last read failed, so this is the one before: ' + a.error : '.');
  note.className = a.error ? 'failed' : '';
  if (a.svg === allocationSvg) return;
  allocationSvg = a.svg;
  const box = document.getElementById('allocation');
  if (!a.svg) return box.replaceChildren();
  const doc = new DOMParser().parseFromString(a.svg, 'image/svg+xml');
  if (doc.querySelector('parsererror')) return box.replaceChildren(document.createTextNode('(the picture does not parse)'));
  box.replaceChildren(document.importNode(doc.documentElement, true));
}

let updates = 0;
async function update() {
  const status = document.getElementById('status');
  try {
    const answer = await fetch('/ui/data', { cache: 'no-store' });
    if (!answer.ok) throw new Error('/ui/data answered ' + answer.status);
    draw(await answer.json());
    updates++;
    status.dataset.updates = String(updates);
    status.textContent = 'Updated ' + new Date().toISOString().replace(/\.\d+Z$/, 'Z') + ' (every 2 seconds).';
    status.className = '';
  } catch (e) {
    status.textContent = 'Not updated: ' + e.message;
    status.className = 'failed';
  }
}
update();
setInterval(update, 2000);
)js";
}

}  // namespace charter::server
