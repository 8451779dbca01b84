// WriteStateJson: the scheduling model in the state JSON of
// docs/scheduling.md, which schedule::LoadState (load.cc) reads back.
#include <cstdio>
#include <string>

#include "charter/kueue.h"
#include "charter/schedule.h"
#include "common/strings.h"
#include "cycle/names.h"
#include "cycle/quantity.h"
#include "json/json.h"

namespace charter::kueue {
namespace {

using internal::Cat;
using internal::CatAppend;

std::string Number(double v) {
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%.17g", v);
  return buffer;
}

void Str(std::string* out, std::string_view s) { internal::json::AppendQuoted(out, s); }


void Groups(std::string* out, const schedule::State& s, const std::vector<schedule::ResourceGroup>& groups) {
  *out += "\"resource_groups\":[";
  for (size_t g = 0; g < groups.size(); ++g) {
    if (g > 0) *out += ",";
    *out += "{\"covered_resources\":[";
    for (size_t r = 0; r < groups[g].covered_resources.size(); ++r) {
      if (r > 0) *out += ",";
      Str(out, s.resources[groups[g].covered_resources[r]]);
    }
    *out += "],\"flavors\":[";
    for (size_t f = 0; f < groups[g].flavors.size(); ++f) {
      const schedule::FlavorQuotas& fq = groups[g].flavors[f];
      if (f > 0) *out += ",";
      *out += "{\"name\":";
      Str(out, s.flavors[fq.flavor]);
      *out += ",\"quotas\":{";
      for (size_t q = 0; q < fq.resources.size(); ++q) {
        const schedule::ResourceQuota& rq = fq.resources[q];
        const bool milli = s.resources[rq.resource] == "cpu";
        if (q > 0) *out += ",";
        Str(out, s.resources[rq.resource]);
        CatAppend(out, ":{\"nominal\":\"", internal::schedule::FormatQuantity(rq.nominal, milli), "\"");
        if (rq.borrowing_limit) {
          CatAppend(out, ",\"borrowing_limit\":\"", internal::schedule::FormatQuantity(*rq.borrowing_limit, milli), "\"");
        }
        if (rq.lending_limit) {
          CatAppend(out, ",\"lending_limit\":\"", internal::schedule::FormatQuantity(*rq.lending_limit, milli), "\"");
        }
        *out += "}";
      }
      *out += "}}";
    }
    *out += "]}";
  }
  *out += "]";
}

void Pairs(std::string* out, std::string_view key, const std::vector<std::pair<std::string, std::string>>& pairs) {
  if (pairs.empty()) return;
  CatAppend(out, ",\"", key, "\":{");
  for (size_t i = 0; i < pairs.size(); ++i) {
    if (i > 0) *out += ",";
    Str(out, pairs[i].first);
    *out += ":";
    Str(out, pairs[i].second);
  }
  *out += "}";
}

void Workloads(std::string* out, const schedule::State& s, const std::vector<schedule::Workload>& list, bool admitted) {
  for (size_t i = 0; i < list.size(); ++i) {
    const schedule::Workload& w = list[i];
    *out += i > 0 ? ",\n  {" : "\n  {";
    *out += "\"name\":";
    Str(out, w.name);
    if (w.uid != w.name) {
      *out += ",\"uid\":";
      Str(out, w.uid);
    }
    *out += ",\"cluster_queue\":";
    Str(out, s.cluster_queues[w.cluster_queue].name);
    CatAppend(out, ",\"priority\":", w.priority);
    if (!w.priority_class.empty()) {
      *out += ",\"priority_class\":";
      Str(out, w.priority_class);
    }
    if (!w.namespace_name.empty()) {
      *out += ",\"namespace\":";
      Str(out, w.namespace_name);
    }
    Pairs(out, "labels", w.labels);
    Pairs(out, "annotations", w.annotations);
    if (w.created_at) CatAppend(out, ",\"created_at\":", Number(*w.created_at));
    if (admitted && w.quota_reserved_at) CatAppend(out, ",\"quota_reserved_at\":", Number(*w.quota_reserved_at));
    if (!admitted && w.inadmissible) *out += ",\"inadmissible\":true";
    if (!admitted && w.preempting) *out += ",\"preempting\":true";
    *out += ",\"pod_sets\":[";
    for (size_t p = 0; p < w.pod_sets.size(); ++p) {
      const schedule::PodSet& ps = w.pod_sets[p];
      if (p > 0) *out += ",";
      *out += "{\"name\":";
      Str(out, ps.name);
      CatAppend(out, ",\"count\":", ps.count, ",\"requests\":{");
      for (size_t r = 0; r < ps.requests.size(); ++r) {
        if (r > 0) *out += ",";
        Str(out, s.resources[ps.requests[r].resource]);
        CatAppend(out, ":\"",
                  internal::schedule::FormatQuantity(ps.requests[r].per_pod, s.resources[ps.requests[r].resource] == "cpu"),
                  "\"");
      }
      *out += "}}";
    }
    *out += "]";
    if (admitted) {
      *out += ",\"flavors\":{";
      bool first_set = true;
      for (const schedule::PodSet& ps : w.pod_sets) {
        if (!first_set) *out += ",";
        first_set = false;
        Str(out, ps.name);
        *out += ":{";
        bool first = true;
        for (const schedule::Request& rq : ps.requests) {
          if (rq.flavor < 0) continue;
          if (!first) *out += ",";
          first = false;
          Str(out, s.resources[rq.resource]);
          *out += ":";
          Str(out, s.flavors[rq.flavor]);
        }
        *out += "}";
      }
      *out += "}";
    }
    *out += "}";
  }
}

}  // namespace

std::string WriteStateJson(const schedule::State& s) {
  std::string out = Cat("{\n\"engine\":{\"fair_sharing\":", s.engine.fair_sharing ? "true" : "false",
                        ",\"fair_sharing_preemption_strategies\":[");
  for (size_t i = 0; i < s.engine.fair_sharing_strategies.size(); ++i) {
    CatAppend(&out, i > 0 ? "," : "", "\"",
              s.engine.fair_sharing_strategies[i] == schedule::FairSharingStrategy::kLessThanOrEqualToFinalShare
                  ? "LessThanOrEqualToFinalShare"
                  : "LessThanInitialShare",
              "\"");
  }
  out += "]},\n\"resource_flavors\":[";
  for (size_t i = 0; i < s.flavors.size(); ++i) {
    if (i > 0) out += ",";
    Str(&out, s.flavors[i]);
  }
  out += "],\n\"priority_classes\":[";
  for (size_t i = 0; i < s.priority_classes.size(); ++i) {
    out += i > 0 ? ",{\"name\":" : "{\"name\":";
    Str(&out, s.priority_classes[i].name);
    CatAppend(&out, ",\"value\":", s.priority_classes[i].value, "}");
  }
  out += "],\n\"cohorts\":[";
  for (size_t i = 0; i < s.cohorts.size(); ++i) {
    const schedule::Cohort& c = s.cohorts[i];
    out += i > 0 ? ",\n  {\"name\":" : "\n  {\"name\":";
    Str(&out, c.name);
    out += ",\"parent\":";
    if (c.parent >= 0) Str(&out, s.cohorts[c.parent].name); else out += "null";
    CatAppend(&out, ",\"fair_weight\":", Number(c.fair_weight), ",");
    Groups(&out, s, c.resource_groups);
    out += "}";
  }
  out += "],\n\"cluster_queues\":[";
  for (size_t i = 0; i < s.cluster_queues.size(); ++i) {
    const schedule::ClusterQueue& q = s.cluster_queues[i];
    out += i > 0 ? ",\n  {\"name\":" : "\n  {\"name\":";
    Str(&out, q.name);
    out += ",\"cohort\":";
    if (q.cohort >= 0) Str(&out, s.cohorts[q.cohort].name); else out += "null";
    CatAppend(&out, ",\"queueing_strategy\":\"",
              q.queueing_strategy == schedule::QueueingStrategy::kStrictFIFO ? "StrictFIFO" : "BestEffortFIFO", "\"");
    CatAppend(&out, ",\"preemption\":{\"within_cluster_queue\":\"", schedule::PolicyName(q.preemption.within_cluster_queue),
              "\",\"reclaim_within_cohort\":\"", schedule::PolicyName(q.preemption.reclaim_within_cohort),
              "\",\"borrow_within_cohort\":{\"policy\":\"", schedule::PolicyName(q.preemption.borrow_within_cohort), "\"");
    if (q.preemption.max_priority_threshold) {
      CatAppend(&out, ",\"max_priority_threshold\":", *q.preemption.max_priority_threshold);
    }
    CatAppend(&out, "}},\"flavor_fungibility\":{\"when_can_borrow\":\"",
              schedule::FungibilityName(q.flavor_fungibility.when_can_borrow),
              "\",\"when_can_preempt\":\"",
              schedule::FungibilityName(q.flavor_fungibility.when_can_preempt),
              "\"");
    if (q.flavor_fungibility.preference != schedule::FungibilityPreference::kUnset) {
      CatAppend(&out, ",\"preference\":\"",
                q.flavor_fungibility.preference == schedule::FungibilityPreference::kBorrowingOverPreemption
                    ? "BorrowingOverPreemption"
                    : "PreemptionOverBorrowing",
                "\"");
    }
    CatAppend(&out, "},\"fair_weight\":", Number(q.fair_weight));
    if (!q.implements.empty()) {
      out += ",\"implements\":";
      Str(&out, q.implements);
    }
    out += ",";
    Groups(&out, s, q.resource_groups);
    out += "}";
  }
  out += "],\n\"local_queues\":[";
  for (size_t i = 0; i < s.local_queues.size(); ++i) {
    const schedule::LocalQueue& l = s.local_queues[i];
    out += i > 0 ? ",\n  {\"namespace\":" : "\n  {\"namespace\":";
    Str(&out, l.namespace_name);
    out += ",\"name\":";
    Str(&out, l.name);
    out += ",\"cluster_queue\":";
    Str(&out, s.cluster_queues[l.cluster_queue].name);
    out += "}";
  }
  out += "],\n\"admitted\":[";
  Workloads(&out, s, s.admitted, true);
  out += "],\n\"pending\":[";
  Workloads(&out, s, s.pending, false);
  out += "]";
  if (s.now != 0) CatAppend(&out, ",\n\"now\":", Number(s.now));
  out += "\n}\n";
  return out;
}

}  // namespace charter::kueue
