// The figures and pictures of `charter report`; see pictures.h. The charts
// are plain SVG written here (docs/report.md says why): no script, no font
// or style sheet from elsewhere, every figure a text label and a <title>
// tooltip, so that the files read the same in a browser, an image viewer
// or a text editor.
#include "pictures.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "svg.h"
#include "util.h"

namespace charter::cli {
namespace {

using svg::CsvField;
using svg::DayName;
using svg::DayOf;
using svg::Duration;
using svg::Esc;
using svg::Inline;
using svg::JsonString;
using svg::kDay;
using svg::LegendItem;
using svg::Num;
using svg::Rect;
using svg::SvgOpen;
using svg::Text;
using svg::TimeName;
using svg::Wrap;

// A quantity in its resource's unit, as the scheduling language writes it:
// cpu in cores (or `500m`), memory with a binary suffix where exact.
std::string Qty(const std::string& resource, schedule::Quantity q) {
  if (resource == "cpu") return q % 1000 == 0 ? Cat(q / 1000) : Cat(q, "m");
  if (resource == "memory" && q != 0) {
    const char* suffix[] = {"Ti", "Gi", "Mi", "Ki"};
    for (int i = 0; i < 4; ++i) {
      const int64_t unit = int64_t{1} << (10 * (4 - i));
      if (q % unit == 0) return Cat(q / unit, suffix[i]);
    }
  }
  return Cat(q);
}

// Resource-hours from Kueue units times seconds: cores for cpu.
double Hours(const std::string& resource, double unit_seconds) {
  return unit_seconds / 3600 / (resource == "cpu" ? 1000 : 1);
}

std::string CohortName(const schedule::State& s, int q) {
  const int c = s.cluster_queues[q].cohort;
  return c < 0 ? std::string() : s.cohorts[c].name;
}

// A queue's quota of one flavor and resource.
struct Cell {
  int flavor = 0, resource = 0;
  schedule::ResourceQuota quota;
};

std::vector<Cell> Cells(const schedule::ClusterQueue& q) {
  std::vector<Cell> out;
  for (const schedule::ResourceGroup& g : q.resource_groups) {
    for (const schedule::FlavorQuotas& f : g.flavors) {
      for (const schedule::ResourceQuota& r : f.resources) out.push_back({f.flavor, r.resource, r});
    }
  }
  return out;
}

// What each queue's admitted workloads hold now, by (queue, flavor, resource).
std::map<std::tuple<int, int, int>, schedule::Quantity> UsageNow(const schedule::State& s) {
  std::map<std::tuple<int, int, int>, schedule::Quantity> out;
  for (const schedule::Workload& w : s.admitted) {
    for (const schedule::PodSet& ps : w.pod_sets) {
      for (const schedule::Request& r : ps.requests) {
        if (r.flavor >= 0) out[{w.cluster_queue, r.flavor, r.resource}] += ps.count * r.per_pod;
      }
    }
  }
  return out;
}

schedule::Quantity Nominal(const schedule::ClusterQueue& q, int flavor, int resource) {
  for (const Cell& c : Cells(q)) {
    if (c.flavor == flavor && c.resource == resource) return c.quota.nominal;
  }
  return 0;
}

// `total` shared among `weights` in proportion to each (largest remainder,
// ties to the earlier), so that the shares sum to `total` exactly; each
// share is at most its weight when `total` is at most their sum.
std::vector<schedule::Quantity> Share(schedule::Quantity total, const std::vector<schedule::Quantity>& weights) {
  __extension__ using Wide = __int128;  // a product of two quantities
  std::vector<schedule::Quantity> out(weights.size(), 0);
  Wide sum = 0;
  for (schedule::Quantity w : weights) sum += w;
  if (total <= 0 || sum <= 0) return out;
  std::vector<std::pair<Wide, size_t>> rest;  // remainder, index
  schedule::Quantity given = 0;
  for (size_t i = 0; i < weights.size(); ++i) {
    const Wide product = static_cast<Wide>(total) * weights[i];
    out[i] = static_cast<schedule::Quantity>(product / sum);
    given += out[i];
    rest.push_back({product % sum, i});
  }
  std::stable_sort(rest.begin(), rest.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (size_t k = 0; given < total && k < rest.size(); ++k, ++given) ++out[rest[k].second];
  return out;
}

// What each queue lends now, by (queue, flavor, resource). Kueue pools a
// cohort's idle quota and never says whose unit a borrower holds, so this
// is Charter's attribution (docs/report.md, "Who lends what"): each cohort,
// children before parents, serves what its queues borrow and what its child
// cohorts could not serve from what is idle and lendable in it (its
// queues' idle quota up to their lending limits, its own quota, what its
// child cohorts have left up to their lending limits), shared among them in
// proportion to what each offers; what a child cohort lends is then shared
// among what is left in it the same way, parents before children. What
// no cohort can serve (a state over its quota) is lent by no one.
std::map<std::tuple<int, int, int>, schedule::Quantity> LentNow(
    const schedule::State& s, const std::map<std::tuple<int, int, int>, schedule::Quantity>& used) {
  std::map<std::tuple<int, int, int>, schedule::Quantity> out;
  const size_t n = s.cohorts.size();
  if (n == 0) return out;
  std::vector<std::vector<int>> child_cohorts(n), queues(n);
  std::vector<int> roots;
  for (size_t c = 0; c < n; ++c) (s.cohorts[c].parent < 0 ? roots : child_cohorts[s.cohorts[c].parent]).push_back(static_cast<int>(c));
  for (size_t q = 0; q < s.cluster_queues.size(); ++q) {
    if (s.cluster_queues[q].cohort >= 0) queues[s.cluster_queues[q].cohort].push_back(static_cast<int>(q));
  }
  std::vector<int> preorder;  // parents before children (explicit stack: the tree is user-shaped)
  for (std::vector<int> stack(roots.rbegin(), roots.rend()); !stack.empty();) {
    const int c = stack.back();
    stack.pop_back();
    preorder.push_back(c);
    for (auto it = child_cohorts[c].rbegin(); it != child_cohorts[c].rend(); ++it) stack.push_back(*it);
  }
  // Every (flavor, resource) some queue in a cohort or some cohort has a quota of.
  std::set<std::pair<int, int>> keys;
  for (const schedule::ClusterQueue& q : s.cluster_queues) {
    if (q.cohort < 0) continue;
    for (const Cell& c : Cells(q)) keys.insert({c.flavor, c.resource});
  }
  auto cohort_quota = [&](int c, int flavor, int resource) -> const schedule::ResourceQuota* {
    for (const schedule::ResourceGroup& g : s.cohorts[c].resource_groups) {
      for (const schedule::FlavorQuotas& f : g.flavors) {
        if (f.flavor != flavor) continue;
        for (const schedule::ResourceQuota& r : f.resources) {
          if (r.resource == resource) return &r;
        }
      }
    }
    return nullptr;
  };
  for (size_t c = 0; c < n; ++c) {
    for (const schedule::ResourceGroup& g : s.cohorts[c].resource_groups) {
      for (const schedule::FlavorQuotas& f : g.flavors) {
        for (const schedule::ResourceQuota& r : f.resources) keys.insert({f.flavor, r.resource});
      }
    }
  }
  struct Lender {
    int queue = -1, child = -1;  // a queue, a child cohort, or (both -1) the cohort's own quota
    schedule::Quantity offered = 0, lent = 0;
  };
  for (const auto& [flavor, resource] : keys) {
    std::vector<std::vector<Lender>> lenders(n);
    std::vector<schedule::Quantity> unserved(n, 0), left(n, 0), passed(n, 0);
    auto share_out = [&](int c, schedule::Quantity amount, bool of_what_is_left) {
      std::vector<schedule::Quantity> weights;
      for (const Lender& l : lenders[c]) weights.push_back(of_what_is_left ? l.offered - l.lent : l.offered);
      const std::vector<schedule::Quantity> shares = Share(amount, weights);
      for (size_t i = 0; i < shares.size(); ++i) {
        lenders[c][i].lent += shares[i];
        if (lenders[c][i].child >= 0) passed[lenders[c][i].child] += shares[i];
      }
    };
    for (auto it = preorder.rbegin(); it != preorder.rend(); ++it) {  // children first
      const int c = *it;
      schedule::Quantity demand = 0, offered = 0;
      for (int q : queues[c]) {
        for (const Cell& cell : Cells(s.cluster_queues[q])) {
          if (cell.flavor != flavor || cell.resource != resource) continue;
          const auto u = used.find({q, flavor, resource});
          const schedule::Quantity usage = u == used.end() ? 0 : u->second;
          const schedule::Quantity own = std::min(usage, cell.quota.nominal);
          demand += usage - own;
          schedule::Quantity idle = cell.quota.nominal - own;
          if (cell.quota.lending_limit) idle = std::min(idle, *cell.quota.lending_limit);
          if (idle > 0) lenders[c].push_back({q, -1, idle, 0});
        }
      }
      const schedule::ResourceQuota* own_quota = cohort_quota(c, flavor, resource);
      if (own_quota != nullptr && own_quota->nominal > 0) lenders[c].push_back({-1, -1, own_quota->nominal, 0});
      for (int d : child_cohorts[c]) {
        demand += unserved[d];
        if (left[d] > 0) lenders[c].push_back({-1, d, left[d], 0});
      }
      for (const Lender& l : lenders[c]) offered += l.offered;
      const schedule::Quantity served = std::min(demand, offered);
      share_out(c, served, false);
      unserved[c] = demand - served;
      left[c] = offered - served;
      if (own_quota != nullptr && own_quota->lending_limit) left[c] = std::min(left[c], *own_quota->lending_limit);
    }
    for (const int c : preorder) {  // parents first: what a cohort lent up, from what is left in it
      // passed[c] was added to by its parent, which comes first.
      if (passed[c] > 0) share_out(c, passed[c], true);
    }
    for (size_t c = 0; c < n; ++c) {
      for (const Lender& l : lenders[c]) {
        if (l.queue >= 0 && l.lent > 0) out[{l.queue, flavor, resource}] += l.lent;
      }
    }
  }
  return out;
}

// Wait to admission and evictions of one queue.
struct Waiting {
  std::vector<double> waits;  // seconds, sorted
  int64_t evictions = 0, preemptions = 0;
  double Percentile(double p) const {
    if (waits.empty()) return 0;
    size_t rank = static_cast<size_t>(std::ceil(p * static_cast<double>(waits.size())));
    return waits[std::clamp<size_t>(rank, 1, waits.size()) - 1];
  }
};

std::vector<Waiting> ComputeWaiting(const ReportInput& in) {
  std::vector<Waiting> out(in.state->cluster_queues.size());
  for (const kueue::WorkloadHistory& h : *in.history) {
    const std::optional<double> at = h.admitted ? h.admitted : h.quota_reserved;
    // With a period, a workload counts when it was admitted in it (or, not
    // admitted, created in it).
    const std::optional<double> when = at ? at : h.created;
    if (in.period.bounded() && (!when || !in.period.Contains(*when))) continue;
    Waiting& w = out[h.cluster_queue];
    w.evictions += h.evictions;
    w.preemptions += h.preemptions;
    if (h.holds_quota && h.created && at) w.waits.push_back(std::max(0.0, *at - *h.created));
  }
  for (Waiting& w : out) std::sort(w.waits.begin(), w.waits.end());
  return out;
}

// One pending workload and what the cycle says of it.
struct PendingEntry {
  std::string name, cluster_queue, state, reason, message;
  int position = 0, queue_length = 0;
  const Prediction* prediction = nullptr;  // with --simulate
};

// "2026-03-02T15:00:00Z (in 3h)", or why there is none.
std::string PredictionText(const Prediction& p) {
  return p.at ? Cat(TimeName(*p.at), " (", p.note, ")") : Cat("none: ", p.note);
}

std::vector<PendingEntry> PendingList(const ReportInput& in) {
  std::vector<PendingEntry> out;
  for (const schedule::Admitted& a : in.cycle->admitted) {
    out.push_back({a.name, a.cluster_queue, "admitted by this cycle", a.borrowing ? "Admitted (borrowing)" : "Admitted",
                   a.message, 0, 0});
  }
  for (const schedule::NotAdmitted& n : in.cycle->not_admitted) {
    out.push_back({n.name, n.cluster_queue,
                   Cat(schedule::StateName(n.state), n.inadmissible ? ", inadmissible" : ""),
                   std::string(schedule::KueueReason(n.state)), n.message, n.position, n.queue_length});
  }
  for (const schedule::Queued& q : in.cycle->queued) {
    std::string_view reason = schedule::KueueReason(q);
    out.push_back({q.name, q.cluster_queue, q.inadmissible ? "queued, inadmissible" : "queued",
                   reason.empty() ? std::string("(its last evaluation's)") : std::string(reason), q.message, q.position,
                   q.queue_length});
  }
  if (in.predictions != nullptr) {
    for (PendingEntry& e : out) {
      auto it = in.predictions->find(e.name);
      if (it != in.predictions->end()) e.prediction = &it->second;
    }
  }
  return out;
}

// --- SVG ----------------------------------------------------------------------

constexpr char kOwnColor[] = "#2b6cb0";
constexpr char kBorrowedColor[] = "#dd6b20";
constexpr char kIdleColor[] = "#c6dcf0";
constexpr char kLentColor[] = "#f6c89f";

std::string QuotaTreeSvg(const ReportInput& in) {
  const schedule::State& s = *in.state;
  const auto now = UsageNow(s);
  const auto lent_now = LentNow(s, now);
  const double label_x = 16, bar_x = 300, bar_w = 360, text_x = 676, row_h = 24;
  std::string body;
  double y = 64;
  // Cohorts parents first, each followed by its queues; then queues without one.
  std::vector<std::vector<int>> children(s.cohorts.size());
  std::vector<int> roots;
  for (size_t c = 0; c < s.cohorts.size(); ++c) {
    (s.cohorts[c].parent < 0 ? roots : children[s.cohorts[c].parent]).push_back(static_cast<int>(c));
  }
  auto queue_rows = [&](int q, int depth) {
    const schedule::ClusterQueue& cq = s.cluster_queues[q];
    const bool in_cohort = cq.cohort >= 0;
    body += Cat("<g class=\"queue\" data-queue=\"", Esc(cq.name), "\">\n");
    y += 8;  // apart from the bars above
    body += Text(label_x + 16 * depth, y, Cat("queue ", cq.name), "font-weight=\"bold\"");
    y += row_h - 6;
    for (const Cell& c : Cells(cq)) {
      const std::string& res = s.resources[c.resource];
      const std::string& flavor = s.flavors[c.flavor];
      const schedule::Quantity used = now.count({q, c.flavor, c.resource}) ? now.at({q, c.flavor, c.resource}) : 0;
      const schedule::Quantity nominal = c.quota.nominal;
      const schedule::Quantity own = std::min(used, nominal), borrowed = used - own, idle = nominal - own;
      double top = static_cast<double>(std::max<schedule::Quantity>({used, nominal, 1}));
      if (in_cohort && c.quota.borrowing_limit) top = std::max(top, static_cast<double>(nominal + *c.quota.borrowing_limit));
      const double scale = bar_w / top;
      std::string figures = Cat("used ", Qty(res, used), " of nominal ", Qty(res, nominal), ": ", Qty(res, own), " own");
      if (borrowed > 0) figures += Cat(" + ", Qty(res, borrowed), " borrowed");
      const auto lent_at = lent_now.find({q, c.flavor, c.resource});
      const schedule::Quantity lent = lent_at == lent_now.end() ? 0 : lent_at->second;  // at most `idle`
      if (in_cohort) {
        figures += Cat("; borrow ", c.quota.borrowing_limit ? Cat("limit ", Qty(res, *c.quota.borrowing_limit)) : "no limit");
        const schedule::Quantity lendable =
            c.quota.lending_limit ? std::min(idle, *c.quota.lending_limit) : idle;
        figures += Cat("; lend ", c.quota.lending_limit ? Cat("limit ", Qty(res, *c.quota.lending_limit)) : "no limit");
        if (lent > 0) figures += Cat("; ", Qty(res, lent), " lent");
        if (lendable > lent) figures += Cat("; ", Qty(res, lendable - lent), " idle to lend");
      }
      const std::string what = Cat(cq.name, ": ", res, " in flavor ", flavor);
      body += Cat("<g class=\"bar\" data-queue=\"", Esc(cq.name), "\" data-flavor=\"", Esc(flavor),
                  "\" data-resource=\"", Esc(res), "\" data-used=\"", used, "\" data-nominal=\"", nominal,
                  "\" data-borrowed=\"", borrowed, "\" data-lent=\"", lent, "\">\n");
      body += Text(label_x + 16 * (depth + 1), y + 12, Cat(flavor, " / ", res));
      body += Rect(bar_x, y, bar_w, 16, "#f7fafc", "frame", Cat(what, ": scale 0 to ", Qty(res, static_cast<schedule::Quantity>(top))));
      body += Rect(bar_x, y, own * scale, 16, kOwnColor, "own", Cat(what, ": ", Qty(res, own), " own quota in use"));
      if (lent > 0) {
        body += Rect(bar_x + own * scale, y, lent * scale, 16, kLentColor, "lent",
                     Cat(what, ": ", Qty(res, lent), " of the nominal quota lent to the cohort's borrowers"));
      }
      body += Rect(bar_x + (own + lent) * scale, y, (idle - lent) * scale, 16, kIdleColor, "idle",
                   Cat(what, ": ", Qty(res, idle - lent), " of the nominal quota idle"));
      body += Rect(bar_x + nominal * scale, y, borrowed * scale, 16, kBorrowedColor, "borrowed",
                   Cat(what, ": ", Qty(res, borrowed), " borrowed from the cohort"));
      body += Cat("<line class=\"nominal\" x1=\"", Num(bar_x + nominal * scale), "\" y1=\"", Num(y - 3), "\" x2=\"",
                  Num(bar_x + nominal * scale), "\" y2=\"", Num(y + 19),
                  "\" stroke=\"#1a202c\" stroke-width=\"2\"><title>", Esc(Cat(what, ": nominal quota ", Qty(res, nominal))),
                  "</title></line>\n");
      if (in_cohort && c.quota.borrowing_limit) {
        const double lx = bar_x + (nominal + *c.quota.borrowing_limit) * scale;
        body += Cat("<line class=\"borrow-limit\" x1=\"", Num(lx), "\" y1=\"", Num(y - 3), "\" x2=\"", Num(lx), "\" y2=\"",
                    Num(y + 19), "\" stroke=\"#1a202c\" stroke-width=\"2\" stroke-dasharray=\"3,2\"><title>",
                    Esc(Cat(what, ": nominal plus borrowing limit ", Qty(res, nominal + *c.quota.borrowing_limit))),
                    "</title></line>\n");
      }
      body += Text(text_x, y + 12, figures, "class=\"figures\"");
      body += "</g>\n";
      y += row_h;
    }
    body += "</g>\n";
    y += 6;
  };
  // Depth-first, with an explicit stack (cohort trees are user-shaped).
  std::vector<std::pair<int, int>> stack;
  for (auto it = roots.rbegin(); it != roots.rend(); ++it) stack.push_back({*it, 0});
  while (!stack.empty()) {
    auto [c, depth] = stack.back();
    stack.pop_back();
    body += Cat("<g class=\"cohort\" data-cohort=\"", Esc(s.cohorts[c].name), "\">",
                Text(label_x + 16 * depth, y, Cat("cohort ", s.cohorts[c].name), "font-weight=\"bold\" fill=\"#4a5568\""),
                "</g>\n");
    y += row_h;
    for (size_t q = 0; q < s.cluster_queues.size(); ++q) {
      if (s.cluster_queues[q].cohort == c) queue_rows(static_cast<int>(q), depth + 1);
    }
    for (auto it = children[c].rbegin(); it != children[c].rend(); ++it) stack.push_back({*it, depth + 1});
  }
  for (size_t q = 0; q < s.cluster_queues.size(); ++q) {
    if (s.cluster_queues[q].cohort < 0) queue_rows(static_cast<int>(q), 0);
  }
  std::string out = SvgOpen(1280, static_cast<int>(y + 16), "Quota tree: nominal quota, limits and usage now");
  out += "<g class=\"legend\">\n";
  out += Text(16, 22, Cat("Quota tree", in.now > 0 ? Cat(" at ", TimeName(in.now)) : ""), "font-size=\"15\" font-weight=\"bold\"");
  out += LegendItem(16, 46, kOwnColor, "own quota in use");
  out += LegendItem(156, 46, kBorrowedColor, "borrowed from the cohort");
  out += LegendItem(336, 46, kLentColor, "lent to the cohort's borrowers");
  out += LegendItem(540, 46, kIdleColor, "idle nominal quota (lendable up to the lending limit)");
  out += LegendItem(920, 46, "", "nominal quota", true);
  out += LegendItem(1040, 46, "", "nominal + borrowing limit", true, true);
  out += "</g>\n";
  return out + body + "</svg>\n";
}

std::string WaitingSvg(const ReportInput& in, const std::vector<Waiting>& waiting,
                       const std::vector<PendingEntry>& pending) {
  const schedule::State& s = *in.state;
  double top = 1;
  for (const Waiting& w : waiting) {
    if (!w.waits.empty()) top = std::max(top, w.waits.back());
  }
  const double bar_x = 220, bar_w = 360, text_x = 596;
  std::string body;
  double y = 64;
  for (size_t q = 0; q < s.cluster_queues.size(); ++q) {
    const Waiting& w = waiting[q];
    const std::string& name = s.cluster_queues[q].name;
    std::string figures =
        w.waits.empty() ? std::string("no admission recorded")
                        : Cat("p50 ", Duration(w.Percentile(0.5)), ", p90 ", Duration(w.Percentile(0.9)), ", max ",
                              Duration(w.waits.back()), " (", w.waits.size(), " admitted)");
    figures += Cat("; ", w.evictions, " eviction", w.evictions == 1 ? "" : "s", ", ", w.preemptions, " preempted");
    body += Cat("<g class=\"wait\" data-queue=\"", Esc(name), "\" data-p50=\"", Num(w.Percentile(0.5)), "\" data-p90=\"",
                Num(w.Percentile(0.9)), "\" data-max=\"", Num(w.waits.empty() ? 0 : w.waits.back()),
                "\" data-evictions=\"", w.evictions, "\" data-preemptions=\"", w.preemptions, "\">\n");
    body += Text(16, y + 14, Cat("queue ", name), "font-weight=\"bold\"");
    const std::pair<const char*, double> bars[] = {
        {"max", w.waits.empty() ? 0 : w.waits.back()}, {"p90", w.Percentile(0.9)}, {"p50", w.Percentile(0.5)}};
    const char* colors[] = {"#fbd38d", "#ed8936", "#9c4221"};
    for (int i = 0; i < 3; ++i) {
      body += Rect(bar_x, y + 2 + 6 * i, bars[i].second / top * bar_w, 6, colors[i], bars[i].first,
                   Cat(name, ": ", bars[i].first, " wait to admission ", Duration(bars[i].second)));
    }
    body += Text(text_x, y + 14, figures, "class=\"figures\"");
    body += "</g>\n";
    y += 30;
  }
  y += 16;
  body += Text(16, y, Cat("Pending workloads (one cycle over the state of now): ", pending.size()),
               "font-size=\"15\" font-weight=\"bold\"");
  y += 22;
  for (const PendingEntry& p : pending) {
    body += Cat("<g class=\"pending\" data-workload=\"", Esc(p.name), "\" data-queue=\"", Esc(p.cluster_queue),
                "\" data-reason=\"", Esc(p.reason), "\"",
                p.prediction == nullptr ? std::string()
                                        : Cat(" data-predicted=\"", p.prediction->at ? TimeName(*p.prediction->at) : "",
                                              "\""),
                ">\n");
    body += Text(16, y, Cat(p.name, " (", p.cluster_queue, ")"), "font-weight=\"bold\"");
    body += Text(300, y, Cat(p.reason, "; ", p.state,
                             p.position > 0 ? Cat("; position ", p.position, " of ", p.queue_length) : ""));
    y += 16;
    for (const std::string& line : Wrap(p.message, 150)) {
      body += Text(32, y, line, "fill=\"#4a5568\"");
      y += 16;
    }
    if (p.prediction != nullptr) {
      body += Text(32, y, Cat("predicted admission: ", PredictionText(*p.prediction)), "class=\"prediction\"");
      y += 16;
    }
    body += "</g>\n";
    y += 6;
  }
  std::string out = SvgOpen(1280, static_cast<int>(y + 10), "Waiting: wait to admission, evictions, pending workloads");
  out += "<g class=\"legend\">\n";
  out += Text(16, 22, "Wait to admission (creation to admission) per queue", "font-size=\"15\" font-weight=\"bold\"");
  out += LegendItem(16, 46, "#9c4221", "p50");
  out += LegendItem(76, 46, "#ed8936", "p90");
  out += LegendItem(136, 46, "#fbd38d", Cat("max (the bars' scale is 0 to ", Duration(top), ")"));
  out += "</g>\n";
  return out + body + "</svg>\n";
}

std::string UsageCsv(const std::vector<UsageRow>& rows) {
  std::string out = "cluster_queue,cohort,resource,day,own_hours,borrowed_hours,total_hours\n";
  for (const UsageRow& r : rows) {
    out += Cat(CsvField(r.cluster_queue), ",", CsvField(r.cohort), ",", CsvField(r.resource), ",", r.day, ",",
               Num(r.own), ",", Num(r.borrowed), ",", Num(r.own + r.borrowed), "\n");
  }
  return out;
}

std::string UsageJson(const ReportInput& in, const std::vector<UsageRow>& rows) {
  std::string out = Cat("{\"now\":", in.now > 0 ? JsonString(TimeName(in.now)) : "null",
                        ",\"unit\":\"resource-hours (cpu in core-hours, memory in byte-hours)\",\"rows\":[");
  for (size_t i = 0; i < rows.size(); ++i) {
    const UsageRow& r = rows[i];
    out += Cat(i ? ",\n" : "\n", "{\"cluster_queue\":", JsonString(r.cluster_queue), ",\"cohort\":",
               r.cohort.empty() ? "null" : JsonString(r.cohort), ",\"resource\":", JsonString(r.resource),
               ",\"day\":\"", r.day, "\",\"own\":", Num(r.own), ",\"borrowed\":", Num(r.borrowed), "}");
  }
  return out + "\n]}\n";
}

std::string PageHead() {
  return
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      // Nothing leaves the page: no script, and no request of any kind.
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
      "<title>Charter report</title>\n<style>\n"
      "body{font-family:'DejaVu Sans',Verdana,sans-serif;margin:24px;color:#1a202c}\n"
      "table{border-collapse:collapse;margin:8px 0 24px}\n"
      "th,td{border:1px solid #cbd5e0;padding:4px 8px;text-align:left;vertical-align:top}\n"
      "td.n{text-align:right;font-variant-numeric:tabular-nums}\nth{background:#edf2f7}\n"
      ".chart{overflow-x:auto;border:1px solid #e2e8f0;margin:8px 0 24px}\n"
      "</style>\n</head>\n<body>\n<h1>Charter report</h1>\n";
}

std::string PageFoot() {
  return "<p>Written by <code>charter report</code>; docs/report.md says how each figure is computed.</p>\n"
         "</body>\n</html>\n";
}

// The period's line: what --from and --to left in.
std::string PeriodLine(const Period& period) {
  if (!period.bounded()) return "";
  return Cat("<p id=\"period\">The period: ", period.from ? TimeName(*period.from) : std::string("the beginning"),
             " to ", period.to ? TimeName(*period.to) : std::string("now"),
             " (usage, waits and decisions count within it).</p>\n");
}

// The scheduling sections of index.html.
std::string SchedulingHtml(const ReportInput& in, const std::vector<UsageRow>& rows, const std::string& quota_svg,
                           const std::string& waiting_svg, const std::vector<PendingEntry>& pending) {
  const schedule::State& s = *in.state;
  std::string out = Cat("<p id=\"as-of\">As of ", in.now > 0 ? TimeName(in.now) : std::string("(no times in the input)"), ": ",
             s.cluster_queues.size(), " cluster queues, ", s.admitted.size(), " admitted and ", s.pending.size(),
             " pending workloads, ", in.history->size(), " workloads with a history.</p>\n");
  out += "<h2>Quota tree</h2>\n<div class=\"chart\" id=\"quota-tree\">\n" + Inline(quota_svg) + "</div>\n";
  // Per team: the period's totals.
  std::map<std::pair<std::string, std::string>, std::pair<double, double>> totals;
  std::map<std::pair<std::string, std::string>, double> cohort_borrowed;
  std::string first_day, last_day;
  for (const UsageRow& r : rows) {
    auto& t = totals[{r.cluster_queue, r.resource}];
    t.first += r.own;
    t.second += r.borrowed;
    if (!r.cohort.empty()) cohort_borrowed[{r.cohort, r.resource}] += r.borrowed;
    if (first_day.empty() || r.day < first_day) first_day = r.day;
    if (r.day > last_day) last_day = r.day;
  }
  out += Cat("<h2>Usage per team</h2>\n<p>Resource-hours from ", first_day.empty() ? "-" : first_day, " to ",
             last_day.empty() ? "-" : last_day,
             " (UTC days; cpu in core-hours, memory in byte-hours), split into own quota and borrowed; by day in "
             "usage.csv and usage.json.</p>\n");
  out += "<table id=\"teams\">\n<tr><th>cluster queue</th><th>cohort</th><th>resource</th><th>own</th>"
         "<th>borrowed</th><th>total</th></tr>\n";
  for (const auto& [key, t] : totals) {
    int q = 0;
    for (size_t i = 0; i < s.cluster_queues.size(); ++i) {
      if (s.cluster_queues[i].name == key.first) q = static_cast<int>(i);
    }
    out += Cat("<tr data-queue=\"", Esc(key.first), "\" data-resource=\"", Esc(key.second), "\"><td>", Esc(key.first),
               "</td><td>", Esc(CohortName(s, q)), "</td><td>", Esc(key.second), "</td><td class=\"n\">", Num(t.first),
               "</td><td class=\"n\">", Num(t.second), "</td><td class=\"n\">", Num(t.first + t.second), "</td></tr>\n");
  }
  if (totals.empty()) out += "<tr><td colspan=\"6\">no admitted workload in the input</td></tr>\n";
  out += "</table>\n";
  // The most borrowed resource of each cohort.
  std::map<std::string, std::pair<std::string, double>> most;
  for (const auto& [key, hours] : cohort_borrowed) {
    auto& m = most[key.first];
    if (hours > m.second) m = {key.second, hours};
  }
  out += "<h3>Most borrowed resource per cohort</h3>\n<table id=\"most-borrowed\">\n"
         "<tr><th>cohort</th><th>resource</th><th>borrowed</th></tr>\n";
  bool any = false;
  for (const auto& [cohort, m] : most) {
    if (m.second <= 0) continue;
    any = true;
    out += Cat("<tr><td>", Esc(cohort), "</td><td>", Esc(m.first), "</td><td class=\"n\">", Num(m.second), "</td></tr>\n");
  }
  if (!any) out += "<tr><td colspan=\"3\">nothing borrowed in the period</td></tr>\n";
  out += "</table>\n";
  out += "<h2>Waiting</h2>\n<div class=\"chart\" id=\"waiting\">\n" + Inline(waiting_svg) + "</div>\n";
  out += Cat("<h2>Pending workloads</h2>\n<p>What one scheduling cycle over the state of now says of each, as "
         "<code>charter schedule</code> says it",
         in.predictions != nullptr ? Cat("; with the admission time a simulation predicts (--simulate: each queue's "
                                         "run times learned from the workloads that finished)")
                                   : std::string(),
         ".</p>\n<table id=\"pending\">\n<tr><th>workload</th><th>cluster queue</th>"
         "<th>Kueue reason</th><th>state</th><th>position</th><th>why</th>",
         in.predictions != nullptr ? "<th>predicted admission</th>" : "", "</tr>\n");
  for (const PendingEntry& p : pending) {
    out += Cat("<tr data-workload=\"", Esc(p.name), "\"><td>", Esc(p.name), "</td><td>", Esc(p.cluster_queue), "</td><td>",
               Esc(p.reason), "</td><td>", Esc(p.state), "</td><td class=\"n\">",
               p.position > 0 ? Cat(p.position, " of ", p.queue_length) : "", "</td><td>", Esc(p.message), "</td>",
               p.prediction != nullptr ? Cat("<td class=\"prediction\">", Esc(PredictionText(*p.prediction)), "</td>")
                                       : std::string(),
               "</tr>\n");
  }
  if (pending.empty()) out += "<tr><td colspan=\"7\">no pending workload</td></tr>\n";
  out += "</table>\n";
  return out;
}

}  // namespace

std::vector<UsageRow> ComputeUsage(const ReportInput& in) {
  const schedule::State& s = *in.state;
  // Per (queue, flavor, resource): the changes of usage over time.
  std::map<std::tuple<int, int, int>, std::vector<std::pair<double, double>>> events;
  int64_t first_day = INT64_MAX;
  for (const kueue::WorkloadHistory& h : *in.history) {
    std::optional<double> from = h.quota_reserved ? h.quota_reserved : h.admitted;
    if (!h.holds_quota || !from) continue;
    // Usage counts within the period: clipped to it.
    from = std::max(*from, in.period.from.value_or(*from));
    const double to = std::min({h.finished.value_or(in.now), in.now, in.period.to.value_or(in.now)});
    if (!(to > *from)) continue;
    first_day = std::min(first_day, DayOf(*from));
    for (const kueue::WorkloadHistory::Usage& u : h.usage) {
      auto& e = events[{h.cluster_queue, u.flavor, u.resource}];
      e.push_back({*from, static_cast<double>(u.amount)});
      e.push_back({to, -static_cast<double>(u.amount)});
    }
  }
  // Unit-seconds, own and borrowed, per (queue, resource, day).
  std::map<std::tuple<int, int, int64_t>, std::pair<double, double>> sums;
  for (auto& [key, e] : events) {
    const auto [q, flavor, resource] = key;
    const double nominal = static_cast<double>(Nominal(s.cluster_queues[q], flavor, resource));
    std::sort(e.begin(), e.end());
    double used = 0;
    for (size_t i = 0; i + 1 < e.size(); ++i) {
      used += e[i].second;
      double a = e[i].first;
      const double b = e[i + 1].first;
      const double own = std::min(std::max(used, 0.0), nominal), borrowed = std::max(used - nominal, 0.0);
      while (a < b) {
        const int64_t day = DayOf(a);
        const double end = std::min(b, static_cast<double>(day + 1) * kDay);
        auto& sum = sums[{q, resource, day}];
        sum.first += own * (end - a);
        sum.second += borrowed * (end - a);
        a = end;
      }
    }
  }
  std::set<std::pair<int, int>> used_pairs;
  for (const auto& [key, sum] : sums) {
    if (sum.first > 0 || sum.second > 0) used_pairs.insert({std::get<0>(key), std::get<1>(key)});
  }
  std::vector<UsageRow> rows;
  if (used_pairs.empty()) return rows;
  // The last day: now's, or the period's last when it ends before now.
  const int64_t last_day =
      in.period.to && *in.period.to <= in.now ? DayOf(*in.period.to) - (*in.period.to == DayOf(*in.period.to) * kDay)
                                             : DayOf(in.now);
  for (const auto& [q, resource] : used_pairs) {
    for (int64_t day = first_day; day <= last_day; ++day) {
      UsageRow r;
      r.cluster_queue = s.cluster_queues[q].name;
      r.cohort = CohortName(s, q);
      r.resource = s.resources[resource];
      r.day = DayName(day);
      auto it = sums.find({q, resource, day});
      if (it != sums.end()) {
        r.own = Hours(r.resource, it->second.first);
        r.borrowed = Hours(r.resource, it->second.second);
      }
      rows.push_back(std::move(r));
    }
  }
  std::sort(rows.begin(), rows.end(), [](const UsageRow& a, const UsageRow& b) {
    return std::tie(a.cluster_queue, a.resource, a.day) < std::tie(b.cluster_queue, b.resource, b.day);
  });
  return rows;
}

std::string QuotaTreePicture(const ReportInput& in) { return QuotaTreeSvg(in); }

std::vector<ReportFile> RenderReport(const ReportInput& in) {
  std::vector<ReportFile> files;
  std::string page = PageHead() + PeriodLine(in.period);
  if (in.state != nullptr) {
    const std::vector<UsageRow> rows = ComputeUsage(in);
    const std::vector<Waiting> waiting = ComputeWaiting(in);
    const std::vector<PendingEntry> pending = PendingList(in);
    files.push_back({"quota-tree.svg", QuotaTreeSvg(in)});
    files.push_back({"waiting.svg", WaitingSvg(in, waiting, pending)});
    files.push_back({"usage.csv", UsageCsv(rows)});
    files.push_back({"usage.json", UsageJson(in, rows)});
    page += SchedulingHtml(in, rows, files[0].text, files[1].text, pending);
  }
  if (in.decisions != nullptr) {
    DecisionCharts charts = RenderDecisions(*in.decisions, in.period);
    page += charts.html_section;
    files.push_back({"decisions.svg", std::move(charts.svg)});
    files.push_back({"decisions.csv", std::move(charts.csv)});
  }
  files.push_back({"index.html", page + PageFoot()});
  return files;
}

std::string ClusterQueueTable(const schedule::State& after) {
  // Per queue: its workloads, and per resource (summed over flavors) the
  // usage and the nominal quota.
  const size_t n = after.cluster_queues.size();
  std::vector<int64_t> pending(n, 0), admitted(n, 0);
  for (const schedule::Workload& w : after.pending) ++pending[w.cluster_queue];
  for (const schedule::Workload& w : after.admitted) ++admitted[w.cluster_queue];
  std::vector<int> resources;  // those some queue has a quota for, in the state's order
  for (size_t r = 0; r < after.resources.size(); ++r) {
    for (const schedule::ClusterQueue& q : after.cluster_queues) {
      bool has = false;
      for (const Cell& c : Cells(q)) has = has || c.resource == static_cast<int>(r);
      if (has) {
        resources.push_back(static_cast<int>(r));
        break;
      }
    }
  }
  const auto used = UsageNow(after);
  std::vector<std::vector<std::string>> table;
  std::vector<std::string> header = {"NAME", "COHORT", "PENDING WORKLOADS", "ADMITTED WORKLOADS"};
  for (int r : resources) header.push_back(Cat(after.resources[r], " (USED/NOMINAL)"));
  table.push_back(header);
  for (size_t q = 0; q < n; ++q) {
    const schedule::ClusterQueue& cq = after.cluster_queues[q];
    std::vector<std::string> row = {cq.name, cq.cohort < 0 ? "-" : after.cohorts[cq.cohort].name, Cat(pending[q]),
                                    Cat(admitted[q])};
    for (int r : resources) {
      schedule::Quantity u = 0, nominal = 0;
      for (const Cell& c : Cells(cq)) {
        if (c.resource == r) nominal += c.quota.nominal;
      }
      for (const auto& [key, amount] : used) {
        if (std::get<0>(key) == static_cast<int>(q) && std::get<2>(key) == r) u += amount;
      }
      row.push_back(Cat(Qty(after.resources[r], u), "/", Qty(after.resources[r], nominal)));
    }
    table.push_back(std::move(row));
  }
  std::vector<size_t> width(header.size(), 0);
  for (const auto& row : table) {
    for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  }
  std::string out;
  for (const auto& row : table) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line += std::string(width[i] - row[i].size() + 3, ' ');
    }
    out += line + "\n";
  }
  return out;
}

}  // namespace charter::cli
