// PrintDeclarations: a scheduling configuration as canonical .charter text
// (docs/scheduling.md, "The scheduling language"). Compiling the text gives
// the same tables back: declarations come in the order of the State's
// tables, every non-default setting is written, quantities and weights
// exactly.
#include <charconv>
#include <cmath>
#include <string>
#include <string_view>

#include "charter/schedule.h"
#include "common/names.h"
#include "common/strings.h"
#include "cycle/names.h"
#include "cycle/quantity.h"
#include "value/value.h"

namespace charter::schedule {
namespace {

using internal::Cat;
using internal::CatAppend;

void AppendQuoted(std::string* out, std::string_view s) {
  out->push_back('"');
  internal::AppendCedarEscaped(out, s);
  out->push_back('"');
}

// A name: bare when it is an identifier, else a string.
void AppendName(std::string* out, std::string_view s) {
  if (internal::IsBareCharterName(s)) {
    out->append(s);
  } else {
    AppendQuoted(out, s);
  }
}

std::string Name(std::string_view s) {
  std::string out;
  AppendName(&out, s);
  return out;
}

// Memory-like resources are written with binary suffixes (`64Gi`).
bool IsBytes(std::string_view r) {
  return r == "memory" || r == "ephemeral-storage" || r == "storage" || r.substr(0, 10) == "hugepages-" ||
         (r.size() > 7 && r.substr(r.size() - 7) == "/memory");
}

std::string QuantityText(const State& s, int resource, Quantity q) {
  std::string_view r = s.resources[resource];
  if (r == "cpu") return internal::schedule::FormatQuantity(q, true);
  if (IsBytes(r)) return internal::schedule::FormatQuantity(q, false);
  return Cat(q);
}

// The shortest decimal that reads back as `w` exactly, without an exponent.
std::string WeightText(double w) {
  char buf[400];
  auto [ptr, ec] = std::to_chars(buf, buf + sizeof(buf), w, std::chars_format::fixed);
  if (ec != std::errc()) return Cat(w);
  return std::string(buf, ptr);
}

void AppendGroups(std::string* out, const State& s, const std::vector<ResourceGroup>& groups) {
  for (const ResourceGroup& g : groups) {
    out->append("  resources");
    for (size_t i = 0; i < g.covered_resources.size(); ++i) {
      CatAppend(out, i == 0 ? " " : ", ", Name(s.resources[g.covered_resources[i]]));
    }
    out->append(" {\n");
    for (const FlavorQuotas& f : g.flavors) {
      CatAppend(out, "    flavor ", Name(s.flavors[f.flavor]), " {");
      for (const ResourceQuota& q : f.resources) {
        CatAppend(out, " ", Name(s.resources[q.resource]), ": ", QuantityText(s, q.resource, q.nominal));
        if (q.borrowing_limit.has_value()) CatAppend(out, " borrow ", QuantityText(s, q.resource, *q.borrowing_limit));
        if (q.lending_limit.has_value()) CatAppend(out, " lend ", QuantityText(s, q.resource, *q.lending_limit));
        out->push_back(';');
      }
      out->append(" }\n");
    }
    out->append("  }\n");
  }
}

// `// TEXT` on a line of its own at `indent`, for each line of `text`
// (none for an empty text); control characters are written as spaces, so
// that a comment stays one line.
void AppendComment(std::string* out, std::string_view indent, std::string_view text) {
  if (text.empty()) return;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) line.remove_suffix(1);
    CatAppend(out, indent, "//");
    if (!line.empty()) out->push_back(' ');
    for (char c : line) out->push_back(static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? ' ' : c);
    out->push_back('\n');
    start = end + 1;
  }
}

std::string_view Row(const std::vector<std::string>& comments, size_t i) {
  return i < comments.size() ? std::string_view(comments[i]) : std::string_view();
}

}  // namespace

std::string PrintDeclarations(const State& s) { return PrintDeclarations(s, DeclarationComments{}); }

std::string PrintDeclarations(const State& s, const DeclarationComments& comments) {
  std::string out;
  if (!comments.header.empty()) {
    AppendComment(&out, "", comments.header);
  }
  // The header stands apart: an empty line after it unless nothing follows.
  if (!out.empty()) out.push_back('\n');
  const size_t body = out.size();
  auto section = [&] {
    if (out.size() > body) out.push_back('\n');
  };
  const EngineConfig defaults;
  const bool default_engine = s.engine.fair_sharing == defaults.fair_sharing &&
                              s.engine.fair_sharing_strategies == defaults.fair_sharing_strategies;
  // With a comment (the source declared a configuration), even the
  // defaults are written: the declarations still say what it set.
  if (!default_engine || !comments.scheduler.empty()) {
    section();
    AppendComment(&out, "", comments.scheduler);
    out.append("scheduler {\n");
    if (s.engine.fair_sharing) out.append("  fair_sharing: true;\n");
    if (default_engine) out.append("  fair_sharing: false;\n");
    if (s.engine.fair_sharing_strategies != defaults.fair_sharing_strategies) {
      out.append("  fair_sharing_strategies: [");
      for (size_t i = 0; i < s.engine.fair_sharing_strategies.size(); ++i) {
        CatAppend(&out, i == 0 ? "" : ", ",
                  s.engine.fair_sharing_strategies[i] == FairSharingStrategy::kLessThanInitialShare
                      ? "LessThanInitialShare"
                      : "LessThanOrEqualToFinalShare");
      }
      out.append("];\n");
    }
    out.append("}\n");
  }
  if (!s.flavors.empty()) {
    section();
    for (size_t i = 0; i < s.flavors.size(); ++i) {
      AppendComment(&out, "", Row(comments.flavors, i));
      std::string capacity;
      for (const FlavorCapacity& c : s.capacities) {
        if (c.flavor != static_cast<int>(i)) continue;
        CatAppend(&capacity, "    ", Name(s.resources[c.resource]), ": ", QuantityText(s, c.resource, c.amount), ";\n");
      }
      if (capacity.empty()) {
        CatAppend(&out, "flavor ", Name(s.flavors[i]), ";\n");
      } else {
        CatAppend(&out, "flavor ", Name(s.flavors[i]), " {\n  capacity {\n", capacity, "  }\n}\n");
      }
    }
  }
  if (!s.priority_classes.empty()) {
    section();
    for (size_t i = 0; i < s.priority_classes.size(); ++i) {
      const PriorityClass& c = s.priority_classes[i];
      AppendComment(&out, "", Row(comments.priority_classes, i));
      CatAppend(&out, "priority_class ", Name(c.name), ": ", c.value, ";\n");
    }
  }
  // Local queues go inside their queues when the State lists them queue by
  // queue, in the queues' order (then reading the text gives that order
  // back); otherwise after the queues, each naming its queue.
  bool grouped = true;
  for (size_t i = 1; i < s.local_queues.size(); ++i) {
    grouped = grouped && s.local_queues[i - 1].cluster_queue <= s.local_queues[i].cluster_queue;
  }
  for (size_t ci = 0; ci < s.cohorts.size(); ++ci) {
    const Cohort& c = s.cohorts[ci];
    section();
    AppendComment(&out, "", Row(comments.cohorts, ci));
    CatAppend(&out, "cohort ", Name(c.name));
    if (c.parent < 0 && c.fair_weight == 1.0 && c.resource_groups.empty()) {
      out.append(";\n");
      continue;
    }
    out.append(" {\n");
    if (c.parent >= 0) CatAppend(&out, "  parent: ", Name(s.cohorts[c.parent].name), ";\n");
    if (c.fair_weight != 1.0) CatAppend(&out, "  fair_weight: ", WeightText(c.fair_weight), ";\n");
    AppendGroups(&out, s, c.resource_groups);
    out.append("}\n");
  }
  for (size_t qi = 0; qi < s.cluster_queues.size(); ++qi) {
    const ClusterQueue& q = s.cluster_queues[qi];
    section();
    AppendComment(&out, "", Row(comments.cluster_queues, qi));
    CatAppend(&out, "queue ", Name(q.name), " {\n");
    const size_t body_start = out.size();
    if (q.cohort >= 0) CatAppend(&out, "  cohort: ", Name(s.cohorts[q.cohort].name), ";\n");
    if (!q.implements.empty()) CatAppend(&out, "  implements: ", q.implements, ";\n");
    if (q.queueing_strategy == QueueingStrategy::kStrictFIFO) out.append("  queueing: StrictFIFO;\n");
    if (q.fair_weight != 1.0) CatAppend(&out, "  fair_weight: ", WeightText(q.fair_weight), ";\n");
    const Preemption& p = q.preemption;
    const Preemption no_preemption;
    if (p.within_cluster_queue != no_preemption.within_cluster_queue ||
        p.reclaim_within_cohort != no_preemption.reclaim_within_cohort ||
        p.borrow_within_cohort != no_preemption.borrow_within_cohort || p.max_priority_threshold.has_value()) {
      out.append("  preemption {\n");
      if (p.within_cluster_queue != PreemptionPolicy::kNever) {
        CatAppend(&out, "    within_queue: ", PolicyName(p.within_cluster_queue), ";\n");
      }
      if (p.reclaim_within_cohort != PreemptionPolicy::kNever) {
        CatAppend(&out, "    reclaim_within_cohort: ", PolicyName(p.reclaim_within_cohort), ";\n");
      }
      if (p.borrow_within_cohort != PreemptionPolicy::kNever) {
        CatAppend(&out, "    borrow_within_cohort: ", PolicyName(p.borrow_within_cohort), ";\n");
      }
      if (p.max_priority_threshold.has_value()) {
        CatAppend(&out, "    max_priority_threshold: ", *p.max_priority_threshold, ";\n");
      }
      out.append("  }\n");
    }
    const FlavorFungibility& f = q.flavor_fungibility;
    const FlavorFungibility no_fungibility;
    if (f.when_can_borrow != no_fungibility.when_can_borrow || f.when_can_preempt != no_fungibility.when_can_preempt ||
        f.preference != no_fungibility.preference) {
      out.append("  fungibility {\n");
      if (f.when_can_borrow != no_fungibility.when_can_borrow) {
        CatAppend(&out, "    when_can_borrow: ", FungibilityName(f.when_can_borrow), ";\n");
      }
      if (f.when_can_preempt != no_fungibility.when_can_preempt) {
        CatAppend(&out, "    when_can_preempt: ", FungibilityName(f.when_can_preempt), ";\n");
      }
      if (f.preference != FungibilityPreference::kUnset) {
        CatAppend(&out, "    preference: ",
                  f.preference == FungibilityPreference::kPreemptionOverBorrowing ? "PreemptionOverBorrowing"
                                                                                  : "BorrowingOverPreemption",
                  ";\n");
      }
      out.append("  }\n");
    }
    AppendGroups(&out, s, q.resource_groups);
    if (grouped) {
      for (size_t li = 0; li < s.local_queues.size(); ++li) {
        const LocalQueue& l = s.local_queues[li];
        if (l.cluster_queue != static_cast<int>(qi)) continue;
        AppendComment(&out, "  ", Row(comments.local_queues, li));
        out.append("  local_queue ");
        AppendName(&out, l.namespace_name.empty() ? l.name : Cat(l.namespace_name, "/", l.name));
        out.append(";\n");
      }
    }
    if (out.size() == body_start) out.pop_back();  // an empty queue is `queue q {}`, as fmt writes it
    out.append("}\n");
  }
  if (!grouped) {
    section();
    for (size_t li = 0; li < s.local_queues.size(); ++li) {
      const LocalQueue& l = s.local_queues[li];
      AppendComment(&out, "", Row(comments.local_queues, li));
      out.append("local_queue ");
      AppendName(&out, l.namespace_name.empty() ? l.name : Cat(l.namespace_name, "/", l.name));
      CatAppend(&out, ": ", Name(s.cluster_queues[l.cluster_queue].name), ";\n");
    }
  }
  if (body > 0 && out.size() == body) out.pop_back();
  return out;
}

}  // namespace charter::schedule
