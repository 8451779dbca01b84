// ReadKueueWorkloads: Kueue Workload objects (v1beta2 or v1beta1) as the
// admitted and pending workloads of a scheduling state. A pod set's per-pod
// requests are computed as Kubernetes computes a pod's effective requests
// (component-helpers' PodRequests, which Kueue calls): the sum of the
// containers and the restartable init containers (sidecars), or the largest
// init container with the sidecars started before it, whichever is more;
// pod-level requests where set; plus the pod overhead. A limit without a
// request counts as the request (Kueue's limits-as-requests defaulting).
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "charter/kueue.h"
#include "charter/kueue_history.h"
#include "charter/schedule.h"
#include "common/status_macros.h"
#include "common/strings.h"
#include "cycle/quantity.h"
#include "extensions/extensions.h"
#include "kueue/document.h"
#include "kueue/fields.h"
#include "kueue/objects.h"

namespace charter::kueue {
namespace {

namespace ik = internal::kueue;
namespace ext = internal::ext;
using ik::Fields;
using ik::Node;
using ik::NodeKind;
using internal::Cat;
using internal::schedule::SatAdd;
using Requests = std::map<std::string, int64_t>;

}  // namespace

std::optional<double> ParseTime(std::string_view t) {
  auto digits = [&](size_t at, size_t n, int* out) {
    if (at + n > t.size()) return false;
    int v = 0;
    for (size_t i = at; i < at + n; ++i) {
      if (t[i] < '0' || t[i] > '9') return false;
      v = v * 10 + (t[i] - '0');
    }
    *out = v;
    return true;
  };
  int y, mo, d, h, mi, s;
  if (!digits(0, 4, &y) || t.size() < 20 || t[4] != '-' || !digits(5, 2, &mo) || t[7] != '-' || !digits(8, 2, &d) ||
      (t[10] != 'T' && t[10] != 't' && t[10] != ' ') || !digits(11, 2, &h) || t[13] != ':' || !digits(14, 2, &mi) ||
      t[16] != ':' || !digits(17, 2, &s)) {
    return std::nullopt;
  }
  if (mo < 1 || mo > 12 || d < 1 || d > ext::DaysInMonth(y, mo) || h > 23 || mi > 59 || s > 60) return std::nullopt;
  size_t i = 19;
  double fraction = 0;
  if (i < t.size() && t[i] == '.') {
    double scale = 0.1;
    ++i;
    size_t start = i;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9') fraction += (t[i++] - '0') * scale, scale /= 10;
    if (i == start) return std::nullopt;
  }
  int offset = 0;
  if (i < t.size() && (t[i] == 'Z' || t[i] == 'z')) {
    ++i;
  } else if (i < t.size() && (t[i] == '+' || t[i] == '-')) {
    int oh, om;
    if (!digits(i + 1, 2, &oh) || i + 3 >= t.size() || t[i + 3] != ':' || !digits(i + 4, 2, &om)) return std::nullopt;
    offset = (oh * 60 + om) * 60 * (t[i] == '-' ? -1 : 1);
    i += 6;
  } else {
    return std::nullopt;
  }
  if (i != t.size()) return std::nullopt;
  return static_cast<double>(ext::DaysFromCivil(y, mo, d) * 86400 +
                             h * 3600 + mi * 60 + s - offset) +
         fraction;
}

namespace {

struct PendingWorkload {
  schedule::Workload w;
  bool admitted = false;
  std::optional<double> created, reserved;  // absolute times
  // For a history (kueue_history.h): the rest of what its status records.
  std::optional<double> admitted_at, finished;
  bool evicted = false, preempted = false;  // Evicted=True, of reason Preempted
  bool is_finished = false;  // history only: never a workload of the state
  int64_t evictions = 0, preemptions = 0;
  ik::Where where;
};

class WorkloadReader {
 public:
  WorkloadReader(const WorkloadOptions& options, const schedule::State& state, std::vector<Note>* notes,
                 bool history)
      : options_(options), state_(state), notes_(notes), history_(history) {}

  absl::Status Read(std::string_view text);
  std::vector<PendingWorkload>& workloads() { return out_; }
  const std::vector<std::string>& new_resources() const { return new_resources_; }

 private:
  absl::Status ReadWorkload(const ik::Object& o, Fields& f);
  // One container's requests (a limit stands for a missing request).
  absl::StatusOr<Requests> Container(const Node& c, Fields& f, const std::string& path);
  absl::StatusOr<Requests> PodRequests(const Node& template_node, Fields& f, const std::string& path);
  absl::StatusOr<Requests> ResourceList(const Node* list, Fields& f, const std::string& path);
  int Resource(const std::string& name);
  void Note(const ik::Where& w, std::string_view message, bool warning = false) {
    ik::AddNote(notes_, w, message, warning);
  }

  const WorkloadOptions& options_;
  const schedule::State& state_;
  std::vector<kueue::Note>* notes_;
  const bool history_;  // also read what only a history needs
  std::vector<PendingWorkload> out_;
  std::vector<std::string> new_resources_;  // resources the state does not name yet
  std::set<std::string> names_;
};

int WorkloadReader::Resource(const std::string& name) {
  for (size_t i = 0; i < state_.resources.size(); ++i) {
    if (state_.resources[i] == name) return static_cast<int>(i);
  }
  for (size_t i = 0; i < new_resources_.size(); ++i) {
    if (new_resources_[i] == name) return static_cast<int>(state_.resources.size() + i);
  }
  new_resources_.push_back(name);
  return static_cast<int>(state_.resources.size() + new_resources_.size() - 1);
}

absl::StatusOr<Requests> WorkloadReader::ResourceList(const Node* list, Fields& f, const std::string& path) {
  Requests out;
  if (list == nullptr || list->is_null()) return out;
  if (!list->is_map()) return f.Fail(*list, Cat("`", path, "` must be a map of resources, not ", list->KindName()));
  for (size_t i = 0; i < list->keys.size(); ++i) {
    const std::string& name = list->keys[i].key;
    if (!ik::IsQualifiedName(name)) return f.Fail(list->items[i], Cat("`", path, "` names an invalid resource `", name, "`"));
    ASSIGN_OR_RETURN(int64_t q, f.Quantity(list->items[i], name, Cat(path, ".", name)));
    out[name] = q;
  }
  return out;
}

absl::StatusOr<Requests> WorkloadReader::Container(const Node& c, Fields& f, const std::string& path) {
  if (!c.is_map()) return f.Fail(c, Cat("`", path, "` must be a map, not ", c.KindName()));
  const Node* resources = c.Find("resources");
  if (resources == nullptr || resources->is_null()) return Requests();
  if (!resources->is_map()) return f.Fail(*resources, Cat("`", path, ".resources` must be a map"));
  ASSIGN_OR_RETURN(Requests requests, ResourceList(resources->Find("requests"), f, Cat(path, ".resources.requests")));
  ASSIGN_OR_RETURN(Requests limits, ResourceList(resources->Find("limits"), f, Cat(path, ".resources.limits")));
  for (const auto& [name, q] : limits) requests.try_emplace(name, q);
  return requests;
}

absl::StatusOr<Requests> WorkloadReader::PodRequests(const Node& tmpl, Fields& f, const std::string& path) {
  Requests total;
  const Node* spec = tmpl.is_map() ? tmpl.Find("spec") : nullptr;
  if (spec == nullptr || spec->is_null()) return total;
  if (!spec->is_map()) return f.Fail(*spec, Cat("`", path, ".spec` must be a map"));
  auto add = [](Requests* into, const Requests& r) {
    for (const auto& [name, q] : r) (*into)[name] = SatAdd((*into)[name], q);
  };
  auto max_into = [](Requests* into, const Requests& r) {
    for (const auto& [name, q] : r) (*into)[name] = std::max((*into)[name], q);
  };
  ASSIGN_OR_RETURN(const Node* containers, f.OptSeq(*spec, "containers", Cat(path, ".spec.containers")));
  for (size_t i = 0; containers != nullptr && i < containers->items.size(); ++i) {
    ASSIGN_OR_RETURN(Requests r, Container(containers->items[i], f, Cat(path, ".spec.containers[", i, "]")));
    add(&total, r);
  }
  Requests sidecars, init_max;
  ASSIGN_OR_RETURN(const Node* inits, f.OptSeq(*spec, "initContainers", Cat(path, ".spec.initContainers")));
  for (size_t i = 0; inits != nullptr && i < inits->items.size(); ++i) {
    const std::string ipath = Cat(path, ".spec.initContainers[", i, "]");
    ASSIGN_OR_RETURN(Requests r, Container(inits->items[i], f, ipath));
    ASSIGN_OR_RETURN(std::optional<std::string> restart,
                     f.OptString(inits->items[i], "restartPolicy", Cat(ipath, ".restartPolicy")));
    if (restart.value_or("") == "Always") {
      // A sidecar runs beside the containers, and beside the init
      // containers that come after it.
      add(&total, r);
      add(&sidecars, r);
      max_into(&init_max, sidecars);
    } else {
      Requests with = sidecars;
      add(&with, r);
      max_into(&init_max, with);
    }
  }
  max_into(&total, init_max);
  // Pod-level requests (cpu and memory) stand for the containers' where set.
  if (const Node* pod = spec->Find("resources"); pod != nullptr && pod->is_map()) {
    ASSIGN_OR_RETURN(Requests requests, ResourceList(pod->Find("requests"), f, Cat(path, ".spec.resources.requests")));
    ASSIGN_OR_RETURN(Requests limits, ResourceList(pod->Find("limits"), f, Cat(path, ".spec.resources.limits")));
    for (const auto& [name, q] : limits) requests.try_emplace(name, q);
    for (const auto& [name, q] : requests) {
      if (name == "cpu" || name == "memory") total[name] = q;
    }
  }
  ASSIGN_OR_RETURN(Requests overhead, ResourceList(spec->Find("overhead"), f, Cat(path, ".spec.overhead")));
  add(&total, overhead);
  return total;
}

absl::Status WorkloadReader::Read(std::string_view text) {
  ik::DocumentOptions doc_options;
  doc_options.source_name = options_.source_name;
  doc_options.max_input_bytes = options_.read.max_input_bytes;
  doc_options.max_depth = options_.read.max_depth;
  doc_options.max_nodes = options_.read.max_nodes;
  ASSIGN_OR_RETURN(std::vector<Node> docs, ik::ParseDocuments(text, doc_options));
  ASSIGN_OR_RETURN(std::vector<ik::Object> objects, ik::Flatten(options_.source_name, docs));
  for (const ik::Object& o : objects) {
    Fields f(options_.source_name, o.Label());
    if (o.group == ik::kKueueGroup && o.kind == "Workload") {
      if (o.version != "v1beta2" && o.version != "v1beta1") {
        return f.Fail(o.At("apiVersion"),
                      Cat("Kueue serves kueue.x-k8s.io/v1beta2 and v1beta1, not `", o.version, "`"));
      }
      RETURN_IF_ERROR(ReadWorkload(o, f));
    } else {
      Note(f.At(*o.node), Cat("skipped: ", o.group.empty() ? "" : Cat(o.group, "/"), o.version, " ", o.kind,
                              " is not a Kueue Workload"));
    }
  }
  return absl::OkStatus();
}

absl::Status WorkloadReader::ReadWorkload(const ik::Object& o, Fields& f) {
  const Node& n = *o.node;
  const bool v1 = o.version == "v1beta1";
  const bool namespaced = !o.namespace_name.empty();
  RETURN_IF_ERROR(ik::CheckMetadata(o, namespaced, &f));
  RETURN_IF_ERROR(f.Check(n, "Workload", {"apiVersion", "kind", "metadata", "spec", "status"}));
  const ik::Where where = f.At(n);
  const Node& meta = *n.Find("metadata");
  PendingWorkload pw;
  pw.where = where;
  schedule::Workload& w = pw.w;
  w.name = o.name;
  if (!names_.insert(w.name).second) {
    return f.Fail(n, Cat("a second Workload named `", w.name, "` (workload names must be unique in a state)"));
  }
  ASSIGN_OR_RETURN(std::optional<std::string> uid, f.OptString(meta, "uid", "metadata.uid"));
  w.uid = uid.value_or(w.name);
  w.namespace_name = namespaced ? o.namespace_name : "default";
  RETURN_IF_ERROR(f.StringMap(meta, "labels", "metadata.labels", &w.labels));
  RETURN_IF_ERROR(f.StringMap(meta, "annotations", "metadata.annotations", &w.annotations));
  ASSIGN_OR_RETURN(std::optional<std::string> created, f.OptString(meta, "creationTimestamp", "metadata.creationTimestamp"));
  if (created) {
    pw.created = ParseTime(*created);
    if (!pw.created) return f.Fail(*meta.Find("creationTimestamp"), Cat("`metadata.creationTimestamp` is not an RFC 3339 time: `", *created, "`"));
  }
  ASSIGN_OR_RETURN(const Node* spec, f.OptMap(n, "spec", "spec"));
  if (spec == nullptr) return f.Fail(n, "the Workload has no `spec`");
  if (v1) {
    RETURN_IF_ERROR(f.Check(*spec, "spec", {"podSets", "queueName", "priorityClassName", "priority",
                                            "priorityClassSource", "active", "maximumExecutionTimeSeconds"}));
  } else {
    RETURN_IF_ERROR(f.Check(*spec, "spec", {"podSets", "queueName", "priorityClassRef", "priority", "active",
                                            "maximumExecutionTimeSeconds", "preemptionGates"}));
  }
  ASSIGN_OR_RETURN(std::optional<bool> active, f.OptBool(*spec, "active", "spec.active"));
  if (!active.value_or(true)) {
    Note(where, "skipped: `spec.active` is false (Kueue neither queues nor admits it)");
    names_.erase(w.name);
    return absl::OkStatus();
  }
  // Priority: spec.priority, as Kueue's scheduler reads it.
  ASSIGN_OR_RETURN(std::optional<int64_t> priority, f.OptInt(*spec, "priority", "spec.priority", INT32_MIN, INT32_MAX));
  std::string class_name, class_kind;
  if (v1) {
    ASSIGN_OR_RETURN(std::optional<std::string> name, f.OptString(*spec, "priorityClassName", "spec.priorityClassName"));
    ASSIGN_OR_RETURN(std::optional<std::string> source,
                     f.OptEnum(*spec, "priorityClassSource", "spec.priorityClassSource",
                               {"kueue.x-k8s.io/workloadpriorityclass", "scheduling.k8s.io/priorityclass", ""}));
    if (name && !name->empty()) {
      class_name = *name;
      class_kind = source.value_or("") == "scheduling.k8s.io/priorityclass" ? "PriorityClass"
                   : source.value_or("") == "kueue.x-k8s.io/workloadpriorityclass" ? "WorkloadPriorityClass"
                                                                                     : "";
    }
  } else if (const Node* ref = spec->Find("priorityClassRef"); ref != nullptr && !ref->is_null()) {
    RETURN_IF_ERROR(f.Check(*ref, "spec.priorityClassRef", {"group", "kind", "name"}));
    ASSIGN_OR_RETURN(std::optional<std::string> group, f.OptEnum(*ref, "group", "spec.priorityClassRef.group",
                                                                {"kueue.x-k8s.io", "scheduling.k8s.io"}));
    ASSIGN_OR_RETURN(std::optional<std::string> kind, f.OptEnum(*ref, "kind", "spec.priorityClassRef.kind",
                                                               {"WorkloadPriorityClass", "PriorityClass"}));
    ASSIGN_OR_RETURN(std::optional<std::string> name, f.OptString(*ref, "name", "spec.priorityClassRef.name"));
    if (group.value_or("") == "scheduling.k8s.io" && kind.value_or("") != "PriorityClass") {
      return f.Fail(*ref, "only the PriorityClass kind is allowed for the scheduling.k8s.io group");
    }
    if (group.value_or("") == "kueue.x-k8s.io" && kind.value_or("") != "WorkloadPriorityClass") {
      return f.Fail(*ref, "only the WorkloadPriorityClass kind is allowed for the kueue.x-k8s.io group");
    }
    if (!priority) return f.Fail(*ref, "priority should not be nil when priorityClassRef is set");
    class_name = name.value_or("");
    class_kind = kind.value_or("");
  }
  w.priority = priority.value_or(0);
  if (!class_name.empty() && class_kind == "WorkloadPriorityClass") {
    auto pc = std::find_if(state_.priority_classes.begin(), state_.priority_classes.end(),
                           [&](const schedule::PriorityClass& c) { return c.name == class_name; });
    if (pc == state_.priority_classes.end()) {
      Note(where, Cat("its WorkloadPriorityClass `", class_name, "` is not declared: its priority is `spec.priority` (",
                      w.priority, ")"), true);
    } else if (!priority) {
      w.priority = pc->value;
      w.priority_class = class_name;
    } else if (*priority == pc->value) {
      w.priority_class = class_name;
    } else {
      Note(where, Cat("`spec.priority` (", *priority, ") differs from WorkloadPriorityClass `", class_name, "` (",
                      pc->value, "), as after the class changed: Kueue uses spec.priority"));
    }
  }
  // Pod sets.
  ASSIGN_OR_RETURN(const Node* sets, f.OptSeq(*spec, "podSets", "spec.podSets"));
  if (sets == nullptr || sets->items.empty()) return f.Fail(*spec, "`spec.podSets` needs at least one pod set");
  std::vector<Requests> per_pod;
  for (size_t i = 0; i < sets->items.size(); ++i) {
    const Node& ps = sets->items[i];
    const std::string path = Cat("spec.podSets[", i, "]");
    RETURN_IF_ERROR(f.Check(ps, path, {"name", "template", "count", "minCount", "topologyRequest"}));
    schedule::PodSet set;
    ASSIGN_OR_RETURN(std::optional<std::string> name, f.OptString(ps, "name", Cat(path, ".name")));
    set.name = name.value_or("main");
    for (const schedule::PodSet& seen : w.pod_sets) {
      if (seen.name == set.name) return f.Fail(ps, Cat("two pod sets named `", set.name, "`"));
    }
    ASSIGN_OR_RETURN(std::optional<int64_t> count, f.OptInt(ps, "count", Cat(path, ".count"), 0, INT32_MAX));
    set.count = count.value_or(1);
    ASSIGN_OR_RETURN(std::optional<int64_t> min_count, f.OptInt(ps, "minCount", Cat(path, ".minCount"), 1, INT32_MAX));
    if (min_count) {
      if (*min_count > set.count) return f.Fail(*ps.Find("minCount"), "minCount should be positive and less or equal to count");
      Note(f.At(*ps.Find("minCount")), "partial admission is not in the model: `minCount` is ignored");
    }
    if (const Node* t = ps.Find("topologyRequest"); t != nullptr && !t->is_null()) {
      Note(f.At(*t), "topology-aware scheduling is not in the model: `topologyRequest` is ignored", true);
    }
    const Node* tmpl = ps.Find("template");
    Requests r;
    if (tmpl != nullptr && !tmpl->is_null()) {
      if (!tmpl->is_map()) return f.Fail(*tmpl, Cat("`", path, ".template` must be a map"));
      ASSIGN_OR_RETURN(r, PodRequests(*tmpl, f, Cat(path, ".template")));
    }
    per_pod.push_back(std::move(r));
    w.pod_sets.push_back(std::move(set));
  }
  // Status: the admission, a finished workload, reclaimable pods.
  ASSIGN_OR_RETURN(const Node* status, f.OptMap(n, "status", "status"));
  const Node* admission = nullptr;
  if (status != nullptr) {
    ASSIGN_OR_RETURN(const Node* conditions, f.OptSeq(*status, "conditions", "status.conditions"));
    for (size_t i = 0; conditions != nullptr && i < conditions->items.size(); ++i) {
      const Node& c = conditions->items[i];
      if (!c.is_map()) return f.Fail(c, "`status.conditions[]` must be a map");
      ASSIGN_OR_RETURN(std::optional<std::string> type, f.OptString(c, "type", "status.conditions[].type"));
      ASSIGN_OR_RETURN(std::optional<std::string> cstatus, f.OptString(c, "status", "status.conditions[].status"));
      if (cstatus.value_or("") != "True") continue;
      if (type.value_or("") == "Finished" && !history_) {
        Note(where, "skipped: it has finished (condition Finished)");
        names_.erase(w.name);
        return absl::OkStatus();
      }
      std::optional<double>* time = nullptr;
      if (type.value_or("") == "QuotaReserved") time = &pw.reserved;
      if (type.value_or("") == "Admitted") time = &pw.admitted_at;
      if (type.value_or("") == "Finished") time = &pw.finished;
      if (type.value_or("") == "Evicted") {
        ASSIGN_OR_RETURN(std::optional<std::string> reason, f.OptString(c, "reason", "status.conditions[].reason"));
        pw.evicted = true;
        pw.preempted = reason.value_or("") == "Preempted";
      }
      if (time != nullptr) {
        ASSIGN_OR_RETURN(std::optional<std::string> at,
                         f.OptString(c, "lastTransitionTime", "status.conditions[].lastTransitionTime"));
        if (at) {
          *time = ParseTime(*at);
          if (!*time) return f.Fail(*c.Find("lastTransitionTime"), Cat("not an RFC 3339 time: `", *at, "`"));
        }
      }
      if (type.value_or("") == "Finished") pw.is_finished = true;
    }
    // Kueue's count of evictions, by reason (v0.13 and later).
    if (history_) {
      if (const Node* stats = status->Find("schedulingStats"); stats != nullptr && stats->is_map()) {
        ASSIGN_OR_RETURN(const Node* evictions, f.OptSeq(*stats, "evictions", "status.schedulingStats.evictions"));
        for (size_t i = 0; evictions != nullptr && i < evictions->items.size(); ++i) {
          const Node& e = evictions->items[i];
          if (!e.is_map()) return f.Fail(e, "`status.schedulingStats.evictions[]` must be a map");
          ASSIGN_OR_RETURN(std::optional<std::string> reason,
                           f.OptString(e, "reason", "status.schedulingStats.evictions[].reason"));
          ASSIGN_OR_RETURN(std::optional<int64_t> count,
                           f.OptInt(e, "count", "status.schedulingStats.evictions[].count", 0, INT32_MAX));
          pw.evictions += count.value_or(0);
          if (reason.value_or("") == "Preempted") pw.preemptions += count.value_or(0);
        }
      }
      if (pw.evictions == 0 && pw.evicted) {
        // Without the counts: the Evicted condition, whose reason says why.
        pw.evictions = 1;
        pw.preemptions = pw.preempted ? 1 : 0;
      }
    }
    ASSIGN_OR_RETURN(admission, f.OptMap(*status, "admission", "status.admission"));
    ASSIGN_OR_RETURN(const Node* reclaimable, f.OptSeq(*status, "reclaimablePods", "status.reclaimablePods"));
    // (A finished workload's pods are all reclaimable; its history counts
    // what it was admitted with.)
    for (size_t i = 0; reclaimable != nullptr && !pw.is_finished && i < reclaimable->items.size(); ++i) {
      const Node& rp = reclaimable->items[i];
      RETURN_IF_ERROR(f.Check(rp, "status.reclaimablePods[]", {"name", "count"}));
      ASSIGN_OR_RETURN(std::optional<std::string> name, f.OptString(rp, "name", "status.reclaimablePods[].name"));
      ASSIGN_OR_RETURN(std::optional<int64_t> count, f.OptInt(rp, "count", "status.reclaimablePods[].count", 0, INT32_MAX));
      for (schedule::PodSet& set : w.pod_sets) {
        if (set.name == name.value_or("")) set.count = std::max<int64_t>(0, set.count - count.value_or(0));
      }
    }
  }
  auto find_queue = [&](std::string_view name) -> int {
    for (size_t i = 0; i < state_.cluster_queues.size(); ++i) {
      if (state_.cluster_queues[i].name == name) return static_cast<int>(i);
    }
    return -1;
  };
  auto set_requests = [&](size_t p, const Requests& r) {
    w.pod_sets[p].requests.clear();
    for (const auto& [name, q] : r) {
      if (q > 0) w.pod_sets[p].requests.push_back(schedule::Request{Resource(name), q, -1});
    }
  };
  if (admission != nullptr) {
    pw.admitted = true;
    RETURN_IF_ERROR(f.Check(*admission, "status.admission", {"clusterQueue", "podSetAssignments"}));
    ASSIGN_OR_RETURN(std::optional<std::string> cq, f.OptString(*admission, "clusterQueue", "status.admission.clusterQueue"));
    if (!cq) return f.Fail(*admission, "`status.admission` has no `clusterQueue`");
    w.cluster_queue = find_queue(*cq);
    if (w.cluster_queue < 0) {
      Note(where, Cat("skipped: admitted to cluster queue `", *cq, "`, which the state does not have (or holds inactive)"), true);
      names_.erase(w.name);
      return absl::OkStatus();
    }
    ASSIGN_OR_RETURN(const Node* assignments, f.OptSeq(*admission, "podSetAssignments", "status.admission.podSetAssignments"));
    if (assignments == nullptr || assignments->items.size() != w.pod_sets.size()) {
      return f.Fail(*admission, "podSetAssignments must have the same number of podSets as the spec");
    }
    for (size_t a = 0; a < assignments->items.size(); ++a) {
      const Node& psa = assignments->items[a];
      const std::string path = Cat("status.admission.podSetAssignments[", a, "]");
      RETURN_IF_ERROR(f.Check(psa, path, {"name", "flavors", "resourceUsage", "count", "topologyAssignment",
                                          "delayedTopologyRequest"}));
      ASSIGN_OR_RETURN(std::optional<std::string> name, f.OptString(psa, "name", Cat(path, ".name")));
      auto it = std::find_if(w.pod_sets.begin(), w.pod_sets.end(),
                             [&](const schedule::PodSet& s) { return s.name == name.value_or("main"); });
      if (it == w.pod_sets.end()) return f.Fail(psa, Cat("`", path, "` names an unknown pod set `", name.value_or("main"), "`"));
      const size_t p = static_cast<size_t>(it - w.pod_sets.begin());
      ASSIGN_OR_RETURN(std::optional<int64_t> count, f.OptInt(psa, "count", Cat(path, ".count"), 0, INT32_MAX));
      const int64_t admitted_count = count.value_or(it->count);
      ASSIGN_OR_RETURN(Requests usage, ResourceList(psa.Find("resourceUsage"), f, Cat(path, ".resourceUsage")));
      if (!usage.empty() && admitted_count > 0) {
        // Kueue counts an admitted pod set by its recorded usage.
        for (auto& [res, q] : usage) q = q / admitted_count + (q % admitted_count != 0 ? 1 : 0);
        per_pod[p] = usage;
      }
      it->count = std::min(it->count, admitted_count);
      set_requests(p, per_pod[p]);
      std::vector<std::pair<std::string, std::string>> flavors;
      RETURN_IF_ERROR(f.StringMap(psa, "flavors", Cat(path, ".flavors"), &flavors));
      for (schedule::Request& rq : it->requests) {
        const std::string& res = rq.resource < static_cast<int>(state_.resources.size())
                                     ? state_.resources[rq.resource]
                                     : new_resources_[rq.resource - state_.resources.size()];
        auto fl = std::find_if(flavors.begin(), flavors.end(), [&](const auto& kv) { return kv.first == res; });
        if (fl == flavors.end()) {
          return f.Fail(psa, Cat("`", path, ".flavors` assigns no flavor to `", res, "`, which the pod set requests"));
        }
        auto fi = std::find(state_.flavors.begin(), state_.flavors.end(), fl->second);
        if (fi == state_.flavors.end()) {
          Note(where, Cat("skipped: admitted with flavor `", fl->second, "`, which no ResourceFlavor of the state declares"), true);
          names_.erase(w.name);
          return absl::OkStatus();
        }
        rq.flavor = static_cast<int>(fi - state_.flavors.begin());
      }
    }
  } else {
    ASSIGN_OR_RETURN(std::optional<std::string> queue, f.OptString(*spec, "queueName", "spec.queueName"));
    if (!queue || queue->empty()) {
      Note(where, "skipped: no `spec.queueName` (Kueue does not queue it)", true);
      names_.erase(w.name);
      return absl::OkStatus();
    }
    auto lq = std::find_if(state_.local_queues.begin(), state_.local_queues.end(), [&](const schedule::LocalQueue& l) {
      return l.name == *queue && l.namespace_name == w.namespace_name;
    });
    if (lq == state_.local_queues.end()) {
      Note(f.At(*spec->Find("queueName")),
           Cat("skipped: no LocalQueue `", *queue, "` in namespace `", w.namespace_name, "` (Kueue keeps it pending)"), true);
      names_.erase(w.name);
      return absl::OkStatus();
    }
    w.cluster_queue = lq->cluster_queue;
    for (size_t p = 0; p < w.pod_sets.size(); ++p) set_requests(p, per_pod[p]);
  }
  out_.push_back(std::move(pw));
  return absl::OkStatus();
}

}  // namespace

bool LooksLikeKueueObjects(std::string_view text) {
  size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return false;
  if (text[first] != '{' && text[first] != '[') return true;  // YAML
  // JSON: a top-level `apiVersion` or `kind` (the state JSON has neither).
  ik::DocumentOptions options;
  absl::StatusOr<std::vector<Node>> docs = ik::ParseDocuments(text, options);
  if (!docs.ok() || docs->empty()) return false;
  const Node& root = docs->front();
  return root.Find("apiVersion") != nullptr || root.Find("kind") != nullptr;
}

absl::Status ReadKueueWorkloads(std::string_view text, const WorkloadOptions& options, schedule::State* state,
                                std::vector<Note>* notes) {
  return ReadKueueWorkloads(text, options, state, notes, nullptr);
}

absl::Status ReadKueueWorkloads(std::string_view text, const WorkloadOptions& options, schedule::State* state,
                                std::vector<Note>* notes, std::vector<WorkloadHistory>* history) {
  WorkloadReader reader(options, *state, notes, history != nullptr);
  RETURN_IF_ERROR(reader.Read(text));
  std::vector<PendingWorkload>& list = reader.workloads();
  for (const schedule::Workload& w : state->admitted) {
    for (const PendingWorkload& p : list) {
      if (p.w.name == w.name) return absl::InvalidArgumentError(Cat(options.source_name, ": workload `", w.name, "` is already in the state"));
    }
  }
  for (const schedule::Workload& w : state->pending) {
    for (const PendingWorkload& p : list) {
      if (p.w.name == w.name) return absl::InvalidArgumentError(Cat(options.source_name, ": workload `", w.name, "` is already in the state"));
    }
  }
  double now = 0;
  if (options.now) {
    now = *options.now;
  } else {
    bool any = false;
    for (const PendingWorkload& p : list) {
      for (const std::optional<double>& t : {p.created, p.reserved}) {
        if (t && (!any || *t > now)) now = *t, any = true;
      }
    }
  }
  // A cycle adds usages up exactly: each pod set's, and all together, must
  // fit in 64 bits (as schedule::LoadState checks).
  std::vector<int64_t> totals(state->resources.size() + reader.new_resources().size(), 0);
  for (const std::vector<schedule::Workload>* existing : {&state->admitted, &state->pending}) {
    for (const schedule::Workload& w : *existing) {
      for (const schedule::PodSet& ps : w.pod_sets) {
        for (const schedule::Request& rq : ps.requests) {
          totals[rq.resource] = internal::schedule::SatAdd(totals[rq.resource], internal::schedule::SatMul(ps.count, rq.per_pod));
        }
      }
    }
  }
  for (const PendingWorkload& p : list) {
    for (const schedule::PodSet& ps : p.w.pod_sets) {
      for (const schedule::Request& rq : ps.requests) {
        int64_t total = 0;
        if (__builtin_mul_overflow(ps.count, rq.per_pod, &total) ||
            __builtin_add_overflow(totals[rq.resource], total, &totals[rq.resource])) {
          return absl::InvalidArgumentError(
              p.where.Message(Cat("pod set `", ps.name, "`: the workloads ask for more than 2^63-1 of a resource together")));
        }
      }
    }
  }
  for (const std::string& r : reader.new_resources()) state->resources.push_back(r);
  for (PendingWorkload& p : list) {
    if (history != nullptr) {
      WorkloadHistory h;
      h.name = p.w.name;
      h.namespace_name = p.w.namespace_name;
      h.cluster_queue = p.w.cluster_queue;
      h.created = p.created;
      h.quota_reserved = p.reserved;
      h.admitted = p.admitted_at;
      h.finished = p.finished;
      h.holds_quota = p.admitted;
      h.evictions = p.evictions;
      h.preemptions = p.preemptions;
      for (const schedule::PodSet& ps : p.w.pod_sets) {
        for (const schedule::Request& rq : ps.requests) {
          if (!p.admitted || rq.flavor < 0) continue;
          auto u = std::find_if(h.usage.begin(), h.usage.end(), [&](const WorkloadHistory::Usage& x) {
            return x.flavor == rq.flavor && x.resource == rq.resource;
          });
          if (u == h.usage.end()) u = h.usage.insert(h.usage.end(), WorkloadHistory::Usage{rq.flavor, rq.resource, 0});
          u->amount += ps.count * rq.per_pod;  // INVARIANT: checked above not to overflow
        }
      }
      history->push_back(std::move(h));
    }
    if (p.is_finished) continue;
    if (p.created) p.w.created_at = *p.created - now;
    if (p.admitted && p.reserved) p.w.quota_reserved_at = *p.reserved - now;
    (p.admitted ? state->admitted : state->pending).push_back(std::move(p.w));
  }
  return absl::OkStatus();
}

}  // namespace charter::kueue
