// LoadHyperPodState: SageMaker HyperPod task governance objects (as the
// SageMaker API returns them) translated into the state JSON of
// docs/scheduling.md, which LoadState then reads. The mapping:
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
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "charter/schedule.h"
#include "common/status_macros.h"
#include "common/strings.h"
#include "json/json.h"

namespace charter::schedule {
namespace {

namespace json = internal::json;
using internal::Cat;
using internal::CatAppend;

struct Spec {
  double accelerators = -1, vcpu = -1, memory = -1;
};

// Compact JSON for a parsed value, with an explicit stack.
void Serialize(const json::Value& root, std::string* out) {
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
      json::AppendQuoted(out, top.v->key(top.next));
      *out += ':';
      pending = &top.v->member(top.next);
    } else {
      pending = &top.v->at(top.next);
    }
    ++top.next;
  }
}

double Num(const json::Value* v) { return v != nullptr && v->is_number() ? v->as_double() : -1; }
std::string Str(const json::Value* v, std::string fallback = "") {
  return v != nullptr && v->is_string() ? std::string(v->as_string()) : fallback;
}

}  // namespace

absl::StatusOr<State> LoadHyperPodState(std::string_view text, const LoadOptions& options) {
  absl::StatusOr<json::Document> doc = json::Parse(text);
  if (!doc.ok()) return absl::InvalidArgumentError(Cat(options.source_name, ":", internal::ToStd(doc.status().message())));
  const json::Value& root = doc->root();
  auto fail = [&](const json::Value& at, std::string_view message) {
    return absl::InvalidArgumentError(Cat(options.source_name, ":", json::LineCol(text, at.offset()), ": ", message));
  };
  if (!root.is_object()) return fail(root, "the HyperPod document must be an object");
  std::map<std::string, Spec> specs;
  if (const json::Value* it = root.Find("InstanceTypes"); it != nullptr && it->is_object()) {
    for (size_t i = 0; i < it->size(); ++i) {
      const json::Value& s = it->member(i);
      specs[std::string(it->key(i))] = Spec{Num(s.Find("Accelerators")), Num(s.Find("VCpu")), Num(s.Find("MemoryInGiB"))};
    }
  }
  bool fair = true;
  std::string classes;
  if (const json::Value* csc = root.Find("ClusterSchedulerConfig"); csc != nullptr && csc->is_object()) {
    const json::Value* sc = csc->Find("SchedulerConfig");
    if (sc != nullptr && sc->is_object()) {
      fair = Str(sc->Find("FairShare"), "Enabled") != "Disabled";
      if (const json::Value* pcs = sc->Find("PriorityClasses"); pcs != nullptr && pcs->is_array()) {
        for (size_t i = 0; i < pcs->size(); ++i) {
          const json::Value& pc = pcs->at(i);
          std::string name = Str(pc.Find("Name"));
          const json::Value* w = pc.Find("Weight");
          if (name.empty() || w == nullptr || !w->fits_int64()) return fail(pc, "a priority class needs `Name` and an integer `Weight`");
          CatAppend(&classes, classes.empty() ? "" : ",", "{\"name\":");
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
    const double weight = target->Find("FairShareWeight") != nullptr ? Num(target->Find("FairShareWeight")) : 0;
    const json::Value* config = cq.Find("ComputeQuotaConfig");
    if (config == nullptr || !config->is_object()) return fail(cq, Cat("team `", team, "` has no `ComputeQuotaConfig`"));
    std::string strategy = "LendAndBorrow";
    double borrow_percent = 50;
    if (const json::Value* rs = config->Find("ResourceSharingConfig"); rs != nullptr && rs->is_object()) {
      strategy = Str(rs->Find("Strategy"), strategy);
      if (rs->Find("BorrowLimit") != nullptr) borrow_percent = Num(rs->Find("BorrowLimit"));
      if (strategy != "Lend" && strategy != "DontLend" && strategy != "LendAndBorrow") {
        return fail(*rs, Cat("team `", team, "`: Strategy is `Lend`, `DontLend` or `LendAndBorrow`, not `", strategy, "`"));
      }
    }
    const std::string preempt = config->Find("PreemptTeamTasks") != nullptr ? Str(config->Find("PreemptTeamTasks")) : "LowerPriority";
    if (preempt != "LowerPriority" && preempt != "Never") return fail(*config, Cat("team `", team, "`: PreemptTeamTasks is `LowerPriority` or `Never`"));
    std::string groups;
    const json::Value* res = config->Find("ComputeQuotaResources");
    for (size_t r = 0; res != nullptr && res->is_array() && r < res->size(); ++r) {
      const json::Value& rc = res->at(r);
      const std::string type = Str(rc.Find("InstanceType"));
      if (type.empty()) return fail(rc, Cat("team `", team, "`: a compute quota resource needs `InstanceType`"));
      Spec want{Num(rc.Find("Accelerators")), Num(rc.Find("VCpu")), Num(rc.Find("MemoryInGiB"))};
      auto spec = specs.find(type);
      const double count = Num(rc.Find("Count"));
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
      if (std::find(flavors.begin(), flavors.end(), type) == flavors.end()) flavors.push_back(type);
      std::string quota;
      auto add = [&](const char* name, double v, const char* unit) {
        if (v < 0) v = 0;
        const int64_t n = static_cast<int64_t>(std::floor(v));
        std::string limits;
        if (strategy == "DontLend") {
          limits = ",\"borrowing_limit\":0,\"lending_limit\":0";
        } else if (strategy == "Lend") {
          limits = ",\"borrowing_limit\":0";
        } else {
          limits = Cat(",\"borrowing_limit\":\"", static_cast<int64_t>(std::floor(n * borrow_percent / 100)), unit, "\"");
        }
        CatAppend(&quota, quota.empty() ? "" : ",", "\"", name, "\":{\"nominal\":\"", n, unit, "\"", limits, "}");
      };
      add("nvidia.com/gpu", want.accelerators, "");
      add("cpu", want.vcpu, "");
      add("memory", want.memory, "Gi");
      CatAppend(&groups, groups.empty() ? "" : ",", "{\"name\":");
      json::AppendQuoted(&groups, type);
      CatAppend(&groups, ",\"quotas\":{", quota, "}}");
    }
    CatAppend(&queues, queues.empty() ? "" : ",", "{\"name\":");
    json::AppendQuoted(&queues, Cat("hyperpod-ns-", team, "-clusterqueue"));
    CatAppend(&queues, ",\"cohort\":\"hyperpod\",\"fair_weight\":", weight,
              ",\"preemption\":{\"within_cluster_queue\":\"", preempt, "\",\"reclaim_within_cohort\":\"Any\"}",
              groups.empty() ? "" : Cat(",\"resource_groups\":[{\"covered_resources\":[\"nvidia.com/gpu\",\"cpu\",\"memory\"],\"flavors\":[", groups, "]}]"),
              "}");
  }
  std::string state = Cat("{\"engine\":{\"fair_sharing\":", fair ? "true" : "false", "},\"resource_flavors\":[");
  for (size_t f = 0; f < flavors.size(); ++f) {
    if (f > 0) state += ',';
    json::AppendQuoted(&state, flavors[f]);
  }
  CatAppend(&state, "],\"cohorts\":[{\"name\":\"hyperpod\",\"parent\":null}],\"priority_classes\":[", classes,
            "],\"cluster_queues\":[", queues, "]");
  if (const json::Value* w = root.Find("Workloads"); w != nullptr && w->is_object()) {
    for (const char* key : {"admitted", "pending"}) {
      if (const json::Value* list = w->Find(key); list != nullptr) {
        CatAppend(&state, ",\"", key, "\":");
        Serialize(*list, &state);
      }
    }
  }
  state += "}";
  LoadOptions translated = options;
  translated.source_name = Cat(options.source_name, " (translated)");
  translated.scenario.clear();
  return LoadState(state, translated);
}

}  // namespace charter::schedule
