// LoadHyperPodState: SageMaker HyperPod task governance objects (as the
// SageMaker API returns them) translated into the state JSON of
// docs/scheduling.md, which LoadState (state_json/) then reads. The mapping:
//
//   ComputeQuota team T            -> cluster queue hyperpod-ns-T-clusterqueue in cohort `hyperpod`
//   ComputeQuotaResources          -> flavor = InstanceType; nominal nvidia.com/gpu, cpu, memory
//                                     = Count × the instance's (InstanceTypes) or the explicit
//                                     Accelerators / VCpu / MemoryInGiB, the missing ones by ratio
//   Strategy DontLend              -> lending limit 0, borrowing limit 0
//   Strategy Lend                  -> borrowing limit 0
//   Strategy LendAndBorrow         -> borrowing limit ⌊nominal × BorrowLimit / 100⌋ (default 50)
//   PreemptTeamTasks               -> within_cluster_queue (LowerPriority default); reclaim Any
//   FairShareWeight                -> fair_weight (default 0)
//   PriorityClasses {Name, Weight} -> priority class Name-priority, value Weight
//   FairShare Enabled (default)    -> engine.fair_sharing
// ActivationState Disabled leaves the team out.
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "charter/schedule.h"
#include "common/status_macros.h"
#include "common/strings.h"
#include "json/json.h"
#include "state_json/load.h"

namespace charter::schedule {
namespace {

namespace json = internal::json;
using internal::Cat;
using internal::CatAppend;

struct Spec {
  double accelerators = -1, vcpu = -1, memory = -1;
};

using Spans = std::vector<std::pair<uint32_t, uint32_t>>;

// Compact JSON for a parsed value, with an explicit stack; each value and
// key written adds {its offset in `out`, its offset in the user's text}.
void Serialize(const json::Value& root, std::string* out, Spans* spans) {
  struct Item {
    const json::Value* v;
    size_t next;
  };
  std::vector<Item> stack;
  const json::Value* pending = &root;
  for (;;) {
    if (pending != nullptr) {
      const json::Value& v = *pending;
      pending = nullptr;
      spans->emplace_back(static_cast<uint32_t>(out->size()), v.offset());
      switch (v.kind()) {
        case json::Kind::kNull: *out += "null"; break;
        case json::Kind::kBool: *out += v.as_bool() ? "true" : "false"; break;
        case json::Kind::kNumber: *out += v.number_text(); break;
        case json::Kind::kString: json::AppendQuoted(out, v.as_string()); break;
        case json::Kind::kArray: *out += '['; stack.push_back({&v, 0}); break;
        case json::Kind::kObject: *out += '{'; stack.push_back({&v, 0}); break;
      }
    }
    if (stack.empty()) return;
    Item& top = stack.back();
    if (top.next == top.v->size()) {
      *out += top.v->is_array() ? ']' : '}';
      stack.pop_back();
      continue;
    }
    if (top.next > 0) *out += ',';
    if (top.v->is_object()) {
      spans->emplace_back(static_cast<uint32_t>(out->size()), top.v->key_offset(top.next));
      json::AppendQuoted(out, top.v->key(top.next));
      *out += ':';
      pending = &top.v->member(top.next);
    } else {
      pending = &top.v->at(top.next);
    }
    ++top.next;
  }
}

// The largest number read: every integer up to it is exact in a double.
constexpr double kMaxNumber = 9007199254740992.0;  // 2^53
std::string Str(const json::Value* v, std::string fallback = "") {
  return v != nullptr && v->is_string() ? std::string(v->as_string()) : fallback;
}

}  // namespace

absl::StatusOr<State> LoadHyperPodState(std::string_view text, const LoadOptions& options) {
  DeclarationComments origins;
  return LoadHyperPodState(text, options, &origins);
}

absl::StatusOr<State> LoadHyperPodState(std::string_view text, const LoadOptions& options,
                                        DeclarationComments* origins) {
  *origins = DeclarationComments{};
  if (text.size() > options.max_input_bytes) {
    return absl::InvalidArgumentError(
        Cat(options.source_name, ": the document is larger than ", options.max_input_bytes, " bytes"));
  }
  absl::StatusOr<json::Document> doc = json::Parse(text);
  if (!doc.ok()) return absl::InvalidArgumentError(Cat(options.source_name, ":", internal::ToStd(doc.status().message())));
  const json::Value& root = doc->root();
  // "from FILE:LINE (WHAT)" for a comment above a declaration.
  auto from = [&](const json::Value& at, std::string_view what) {
    const std::string line_col = json::LineCol(text, at.offset());
    return Cat("from ", options.source_name, ":", line_col.substr(0, line_col.find(':')), " (", what, ")");
  };
  auto fail = [&](const json::Value& at, std::string_view message) {
    return absl::InvalidArgumentError(Cat(options.source_name, ":", json::LineCol(text, at.offset()), ": ", message));
  };
  // A number the user wrote: absent or null gives `fallback`; anything else
  // must be a finite number in 0..2^53, or the error points at it.
  auto number = [&](const json::Value* v, std::string_view what, double fallback) -> absl::StatusOr<double> {
    if (v == nullptr || v->is_null()) return fallback;
    if (!v->is_number() || !std::isfinite(v->as_double()) || v->as_double() < 0 || v->as_double() > kMaxNumber) {
      return fail(*v, Cat(what, " must be a number from 0 to 2^53"));
    }
    return v->as_double();
  };
  auto read_spec = [&](const json::Value& s, std::string_view what) -> absl::StatusOr<Spec> {
    Spec out;
    ASSIGN_OR_RETURN(out.accelerators, number(s.Find("Accelerators"), Cat("`Accelerators` of ", what), -1));
    ASSIGN_OR_RETURN(out.vcpu, number(s.Find("VCpu"), Cat("`VCpu` of ", what), -1));
    ASSIGN_OR_RETURN(out.memory, number(s.Find("MemoryInGiB"), Cat("`MemoryInGiB` of ", what), -1));
    return out;
  };
  if (!root.is_object()) return fail(root, "the HyperPod document must be an object");
  std::map<std::string, Spec> specs;
  if (const json::Value* it = root.Find("InstanceTypes"); it != nullptr && it->is_object()) {
    for (size_t i = 0; i < it->size(); ++i) {
      const json::Value& s = it->member(i);
      if (!s.is_object()) return fail(s, Cat("instance type `", it->key(i), "` must be an object"));
      ASSIGN_OR_RETURN(specs[std::string(it->key(i))], read_spec(s, Cat("instance type `", it->key(i), "`")));
    }
  }
  bool fair = true;
  std::string classes;
  Spans class_spans, queue_spans;  // offsets relative to `classes` and `queues`
  if (const json::Value* csc = root.Find("ClusterSchedulerConfig"); csc != nullptr && csc->is_object()) {
    const json::Value* sc = csc->Find("SchedulerConfig");
    origins->scheduler = from(*csc, Cat("ClusterSchedulerConfig ", Str(csc->Find("Name"), "(unnamed)")));
    if (sc != nullptr && sc->is_object()) {
      fair = Str(sc->Find("FairShare"), "Enabled") != "Disabled";
      if (const json::Value* pcs = sc->Find("PriorityClasses"); pcs != nullptr && pcs->is_array()) {
        for (size_t i = 0; i < pcs->size(); ++i) {
          const json::Value& pc = pcs->at(i);
          std::string name = Str(pc.Find("Name"));
          const json::Value* w = pc.Find("Weight");
          if (name.empty() || w == nullptr || !w->fits_int64()) return fail(pc, "a priority class needs `Name` and an integer `Weight`");
          if (!classes.empty()) classes += ',';
          class_spans.emplace_back(static_cast<uint32_t>(classes.size()), pc.offset());
          origins->priority_classes.push_back(from(pc, Cat("ClusterSchedulerConfig priority class ", name)));
          classes += "{\"name\":";
          json::AppendQuoted(&classes, name + "-priority");
          CatAppend(&classes, ",\"value\":", w->as_int64(), "}");
        }
      }
    }
  }
  std::vector<std::string> flavors;
  std::string queues;
  const json::Value* quotas = root.Find("ComputeQuotas");
  if (quotas == nullptr || !quotas->is_array()) return fail(root, "the HyperPod document needs `ComputeQuotas`: [ComputeQuota]");
  for (size_t q = 0; q < quotas->size(); ++q) {
    const json::Value& cq = quotas->at(q);
    if (Str(cq.Find("ActivationState"), "Enabled") == "Disabled") continue;
    const json::Value* target = cq.Find("ComputeQuotaTarget");
    const std::string team = target != nullptr ? Str(target->Find("TeamName")) : "";
    if (team.empty()) return fail(cq, "a ComputeQuota needs `ComputeQuotaTarget.TeamName`");
    ASSIGN_OR_RETURN(const double weight,
                     number(target->Find("FairShareWeight"), Cat("`FairShareWeight` of team `", team, "`"), 0));
    const json::Value* config = cq.Find("ComputeQuotaConfig");
    if (config == nullptr || !config->is_object()) return fail(cq, Cat("team `", team, "` has no `ComputeQuotaConfig`"));
    std::string strategy = "LendAndBorrow";
    double borrow_percent = 50;
    if (const json::Value* rs = config->Find("ResourceSharingConfig"); rs != nullptr && rs->is_object()) {
      strategy = Str(rs->Find("Strategy"), strategy);
      ASSIGN_OR_RETURN(borrow_percent, number(rs->Find("BorrowLimit"), Cat("`BorrowLimit` of team `", team, "`"), 50));
      if (strategy != "Lend" && strategy != "DontLend" && strategy != "LendAndBorrow") {
        return fail(*rs, Cat("team `", team, "`: Strategy is `Lend`, `DontLend` or `LendAndBorrow`, not `", strategy, "`"));
      }
    }
    const std::string preempt = config->Find("PreemptTeamTasks") != nullptr ? Str(config->Find("PreemptTeamTasks")) : "LowerPriority";
    if (preempt != "LowerPriority" && preempt != "Never") return fail(*config, Cat("team `", team, "`: PreemptTeamTasks is `LowerPriority` or `Never`"));
    std::string groups;
    Spans group_spans;  // relative to `groups`
    const json::Value* res = config->Find("ComputeQuotaResources");
    for (size_t r = 0; res != nullptr && res->is_array() && r < res->size(); ++r) {
      const json::Value& rc = res->at(r);
      const std::string type = Str(rc.Find("InstanceType"));
      if (type.empty()) return fail(rc, Cat("team `", team, "`: a compute quota resource needs `InstanceType`"));
      const std::string rwhat = Cat("the ", type, " quota of team `", team, "`");
      ASSIGN_OR_RETURN(Spec want, read_spec(rc, rwhat));
      auto spec = specs.find(type);
      ASSIGN_OR_RETURN(const double count, number(rc.Find("Count"), Cat("`Count` of ", rwhat), -1));
      if (count >= 0) {
        if (spec == specs.end()) return fail(rc, Cat("team `", team, "`: `Count` of ", type, " needs its Accelerators, VCpu and MemoryInGiB in `InstanceTypes`"));
        want = Spec{count * std::max(0.0, spec->second.accelerators), count * std::max(0.0, spec->second.vcpu),
                    count * std::max(0.0, spec->second.memory)};
      } else if (spec != specs.end()) {
        // The unspecified resources follow the ratio of the first given one.
        double ratio = -1;
        if (want.accelerators >= 0 && spec->second.accelerators > 0) ratio = want.accelerators / spec->second.accelerators;
        else if (want.vcpu >= 0 && spec->second.vcpu > 0) ratio = want.vcpu / spec->second.vcpu;
        else if (want.memory >= 0 && spec->second.memory > 0) ratio = want.memory / spec->second.memory;
        if (ratio >= 0) {
          if (want.vcpu < 0) want.vcpu = std::floor(ratio * std::max(0.0, spec->second.vcpu));
          if (want.memory < 0) want.memory = std::floor(ratio * std::max(0.0, spec->second.memory));
        }
      }
      if (std::find(flavors.begin(), flavors.end(), type) == flavors.end()) {
        flavors.push_back(type);
        origins->flavors.push_back(from(rc, Cat("InstanceType ", type, " of team ", team)));
      }
      std::string quota;
      // `max`: the largest amount whose quantity (milli-cpu, bytes) fits in
      // an int64.
      auto add = [&](const char* name, double v, const char* unit, double max) -> absl::Status {
        if (v < 0) v = 0;
        v = std::floor(v);
        const bool borrows = strategy == "LendAndBorrow";
        if (v > max || (borrows && v * borrow_percent / 100 > max)) {
          return fail(rc, Cat(rwhat, ": the `", name, "` quota of ", v, unit,
                              borrows ? Cat(" with a borrow limit of ", borrow_percent, "%") : std::string(),
                              " is above ", static_cast<int64_t>(max), unit));
        }
        // INVARIANT: 0 ≤ v ≤ max ≤ 2^53, so the cast is exact.
        const int64_t n = static_cast<int64_t>(v);
        std::string limits;
        if (strategy == "DontLend") {
          limits = ",\"borrowing_limit\":0,\"lending_limit\":0";
        } else if (strategy == "Lend") {
          limits = ",\"borrowing_limit\":0";
        } else {
          limits = Cat(",\"borrowing_limit\":\"", static_cast<int64_t>(std::floor(n * borrow_percent / 100)), unit, "\"");
        }
        CatAppend(&quota, quota.empty() ? "" : ",", "\"", name, "\":{\"nominal\":\"", n, unit, "\"", limits, "}");
        return absl::OkStatus();
      };
      RETURN_IF_ERROR(add("nvidia.com/gpu", want.accelerators, "", kMaxNumber));
      RETURN_IF_ERROR(add("cpu", want.vcpu, "", kMaxNumber));
      RETURN_IF_ERROR(add("memory", want.memory, "Gi", 8589934591.0));  // 2^33 - 1 GiB: bytes within int64
      if (!groups.empty()) groups += ',';
      group_spans.emplace_back(static_cast<uint32_t>(groups.size()), rc.offset());
      groups += "{\"name\":";
      json::AppendQuoted(&groups, type);
      CatAppend(&groups, ",\"quotas\":{", quota, "}}");
    }
    if (!queues.empty()) queues += ',';
    queue_spans.emplace_back(static_cast<uint32_t>(queues.size()), cq.offset());
    origins->cluster_queues.push_back(from(cq, Cat("ComputeQuota ", Str(cq.Find("Name"), "(unnamed)"), " of team ", team)));
    queues += "{\"name\":";
    json::AppendQuoted(&queues, Cat("hyperpod-ns-", team, "-clusterqueue"));
    CatAppend(&queues, ",\"cohort\":\"hyperpod\",\"fair_weight\":", weight,
              ",\"preemption\":{\"within_cluster_queue\":\"", preempt, "\",\"reclaim_within_cohort\":\"Any\"}");
    if (!groups.empty()) {
      CatAppend(&queues, ",\"resource_groups\":[{\"covered_resources\":[\"nvidia.com/gpu\",\"cpu\",\"memory\"],\"flavors\":[");
      for (const auto& [at, user] : group_spans) queue_spans.emplace_back(static_cast<uint32_t>(queues.size()) + at, user);
      CatAppend(&queues, groups, "]}]");
    }
    queues += '}';
    queue_spans.emplace_back(static_cast<uint32_t>(queues.size()), cq.offset());
  }
  // Generated text outside any user object maps to the document.
  internal::schedule::SourceMap map{text, {{0, root.offset()}}};
  std::string state = Cat("{\"engine\":{\"fair_sharing\":", fair ? "true" : "false", "},\"resource_flavors\":[");
  for (size_t f = 0; f < flavors.size(); ++f) {
    if (f > 0) state += ',';
    json::AppendQuoted(&state, flavors[f]);
  }
  CatAppend(&state, "],\"cohorts\":[{\"name\":\"hyperpod\",\"parent\":null}],\"priority_classes\":[");
  origins->cohorts.push_back("HyperPod's one cohort: every team's queue lends and borrows in it");
  for (const auto& [at, user] : class_spans) map.spans.emplace_back(static_cast<uint32_t>(state.size()) + at, user);
  CatAppend(&state, classes, "]");
  map.spans.emplace_back(static_cast<uint32_t>(state.size()), root.offset());
  CatAppend(&state, ",\"cluster_queues\":[");
  for (const auto& [at, user] : queue_spans) map.spans.emplace_back(static_cast<uint32_t>(state.size()) + at, user);
  CatAppend(&state, queues, "]");
  if (const json::Value* w = root.Find("Workloads"); w != nullptr && w->is_object()) {
    for (const char* key : {"admitted", "pending"}) {
      if (const json::Value* list = w->Find(key); list != nullptr) {
        map.spans.emplace_back(static_cast<uint32_t>(state.size()), root.offset());
        CatAppend(&state, ",\"", key, "\":");
        Serialize(*list, &state, &map.spans);
      }
    }
  }
  map.spans.emplace_back(static_cast<uint32_t>(state.size()), root.offset());
  state += "}";
  LoadOptions translated = options;
  translated.scenario.clear();
  return internal::schedule::LoadTranslatedState(state, translated, map);
}

}  // namespace charter::schedule
