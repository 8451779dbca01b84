// LoadState: the scheduling state JSON (docs/scheduling.md) into the typed
// model of charter/schedule.h. Every fault names the object and its LINE:COL.
#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "charter/schedule.h"
#include "common/diagnostic_codes.h"
#include "common/status_macros.h"
#include "common/strings.h"
#include "cycle/config_check.h"
#include "cycle/quantity.h"
#include "cycle/tree.h"
#include "json/json.h"
#include "json/json_diagnostics.h"
#include "state_json/load.h"

namespace charter::schedule {
namespace {

namespace json = internal::json;
namespace codes = internal::codes;
using internal::Cat;

void CatAppendId(std::string* out, std::string_view id) {
  if (!out->empty()) out->append(", ");
  out->append(id.empty() ? "(no id)" : std::string(id));
}

class Loader {
 public:
  Loader(std::string_view text, const LoadOptions& options,
         const internal::schedule::SourceMap* map = nullptr)
      : text_(text), options_(options), map_(map) {}

  absl::StatusOr<State> Load() {
    if (text_.size() > options_.max_input_bytes) {
      return absl::InvalidArgumentError(
          Cat(options_.source_name, ": the state is larger than ", options_.max_input_bytes, " bytes"));
    }
    json::ParseFault fault;
    absl::StatusOr<json::Document> doc = json::Parse(text_, {}, &fault);
    if (!doc.ok()) {
      // A translated state's text is generated: its positions are not the
      // user's, so the fault is reported without a diagnostic.
      if (map_ != nullptr) {
        return absl::InvalidArgumentError(
            Cat(options_.source_name, ":", internal::ToStd(doc.status().message())));
      }
      return json::ParseFaultStatus(options_.source_name, text_, fault, codes::CH0700, codes::CH0700);
    }
    ASSIGN_OR_RETURN(const json::Value* root, PickScenario(doc->root()));
    RETURN_IF_ERROR(LoadRoot(*root));
    return std::move(state_);
  }

  absl::Status LoadRoot(const json::Value& root);

  // {"admitted": [...], "pending": [...]} onto a copy of `config`.
  absl::StatusOr<State> LoadOnto(const State& config) {
    if (text_.size() > options_.max_input_bytes) {
      return absl::InvalidArgumentError(
          Cat(options_.source_name, ": the workloads are larger than ", options_.max_input_bytes, " bytes"));
    }
    json::ParseFault fault;
    absl::StatusOr<json::Document> doc = json::Parse(text_, {}, &fault);
    if (!doc.ok()) return json::ParseFaultStatus(options_.source_name, text_, fault, codes::CH0700, codes::CH0700);
    const json::Value& root = doc->root();
    if (!root.is_object()) {
      return Fail(codes::CH0701, root.offset(), "the workloads must be a JSON object {\"admitted\": [...], \"pending\": [...]}");
    }
    RETURN_IF_ERROR(CheckKeys(root, "the workloads", {"admitted", "pending"}));
    state_ = config;
    state_.admitted.clear();
    state_.pending.clear();
    auto index = [](const auto& list, auto name_of, absl::flat_hash_map<std::string, int>* out) {
      for (size_t i = 0; i < list.size(); ++i) out->try_emplace(std::string(name_of(list[i])), static_cast<int>(i));
    };
    index(state_.flavors, [](const std::string& n) -> const std::string& { return n; }, &flavors_);
    index(state_.resources, [](const std::string& n) -> const std::string& { return n; }, &resources_);
    index(state_.cohorts, [](const Cohort& c) -> const std::string& { return c.name; }, &cohorts_);
    index(state_.cluster_queues, [](const ClusterQueue& c) -> const std::string& { return c.name; }, &queues_);
    index(state_.priority_classes, [](const PriorityClass& c) -> const std::string& { return c.name; }, &classes_);
    ASSIGN_OR_RETURN(const json::Value* admitted, OptArray(root, "admitted", "the workloads"));
    RETURN_IF_ERROR(LoadWorkloads(admitted, true));
    ASSIGN_OR_RETURN(const json::Value* pending, OptArray(root, "pending", "the workloads"));
    RETURN_IF_ERROR(LoadWorkloads(pending, false));
    if (std::string error = internal::schedule::QuotaCellsError(state_, options_.max_quota_cells); !error.empty()) {
      return Fail(codes::CH0707, root.offset(), error);
    }
    return std::move(state_);
  }

 private:
  // A fault in the value (or key) at `offset` of the text, with a code of
  // common/diagnostics.def; offsets in a translated state are mapped to
  // the user's text first.
  absl::Status Fail(const char* code, uint32_t offset, std::string_view message) const {
    std::string_view text = text_;
    if (map_ != nullptr) {
      auto it = std::upper_bound(map_->spans.begin(), map_->spans.end(), std::pair<uint32_t, uint32_t>(offset, UINT32_MAX));
      offset = it == map_->spans.begin() ? 0 : std::prev(it)->second;
      text = map_->user_text;
    }
    return json::FaultStatus(options_.source_name, text, code, json::ValueSpan(text, offset), message);
  }

  absl::StatusOr<const json::Value*> PickScenario(const json::Value& root);

  absl::Status CheckKeys(const json::Value& v, std::string_view what,
                         std::initializer_list<std::string_view> allowed) const {
    if (!v.is_object()) return Fail(codes::CH0701, v.offset(), Cat(what, " must be an object"));
    for (size_t i = 0; i < v.size(); ++i) {
      std::string_view key = v.key(i);
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
        return Fail(codes::CH0703, v.key_offset(i), Cat("unknown field `", key, "` in ", what));
      }
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::string> Name(const json::Value& v, std::string_view what) const {
    const json::Value* name = v.Find("name");
    if (name == nullptr) return Fail(codes::CH0702, v.offset(), Cat(what, " has no `name`"));
    if (!name->is_string() || name->as_string().empty()) {
      return Fail(codes::CH0701, name->offset(), Cat("the name of ", what, " must be a non-empty string"));
    }
    return std::string(name->as_string());
  }

  // A string member, or `fallback` when absent or null.
  absl::StatusOr<std::string_view> OptString(const json::Value& v, std::string_view key,
                                             std::string_view what,
                                             std::string_view fallback = {}) const {
    const json::Value* m = v.Find(key);
    if (m == nullptr || m->is_null()) return fallback;
    if (!m->is_string()) return Fail(codes::CH0701, m->offset(), Cat("`", key, "` of ", what, " must be a string"));
    return m->as_string();
  }

  absl::StatusOr<const json::Value*> OptArray(const json::Value& v, std::string_view key,
                                              std::string_view what) const {
    const json::Value* m = v.Find(key);
    if (m == nullptr || m->is_null()) return nullptr;
    if (!m->is_array()) return Fail(codes::CH0701, m->offset(), Cat("`", key, "` of ", what, " must be an array"));
    return m;
  }

  // An object of strings (labels, annotations), sorted by key.
  absl::Status StringMap(const json::Value& v, std::string_view key, std::string_view what,
                         std::vector<std::pair<std::string, std::string>>* out) const {
    const json::Value* m = v.Find(key);
    if (m == nullptr || m->is_null()) return absl::OkStatus();
    if (!m->is_object()) return Fail(codes::CH0701, m->offset(), Cat("`", key, "` of ", what, " must be an object"));
    for (size_t i = 0; i < m->size(); ++i) {
      if (!m->member(i).is_string()) {
        return Fail(codes::CH0701, m->member(i).offset(),
                    Cat("`", key, "` of ", what, " maps `", m->key(i), "` to something other than a string"));
      }
      out->emplace_back(std::string(m->key(i)), std::string(m->member(i).as_string()));
    }
    std::sort(out->begin(), out->end());
    for (size_t i = 1; i < out->size(); ++i) {
      if ((*out)[i - 1].first == (*out)[i].first) {
        return Fail(codes::CH0705, m->offset(), Cat("`", key, "` of ", what, " has `", (*out)[i].first, "` twice"));
      }
    }
    return absl::OkStatus();
  }

  absl::StatusOr<double> Number(const json::Value& v, std::string_view what) const {
    if (v.is_number()) return v.as_double();
    if (v.is_string()) {
      // Quantities such as "0.5" for fair-sharing weights.
      int64_t milli = 0;
      if (internal::schedule::ParseQuantity(v.as_string(), true, &milli) ==
          internal::schedule::QuantityError::kOk) {
        return static_cast<double>(milli) / 1000.0;
      }
    }
    return Fail(codes::CH0704, v.offset(), Cat(what, " must be a non-negative number"));
  }

  absl::StatusOr<int64_t> Integer(const json::Value& v, std::string_view what) const {
    if (v.is_number() && !v.fits_int64()) {
      // 1e30 is an integer, only too large for one (issue 15: it was told
      // it "must be an integer").
      const double d = v.as_double();
      if (std::isfinite(d) && d == std::trunc(d)) {
        return Fail(codes::CH0704, v.offset(),
                    Cat(what, d > 0 ? " is too large (" : " is too small (", v.number_text(),
                        "): integers range from -2^63 to 2^63-1"));
      }
    }
    if (!v.is_number() || !v.fits_int64()) {
      return Fail(codes::CH0704, v.offset(), Cat(what, " must be an integer"));
    }
    return v.as_int64();
  }

  absl::StatusOr<std::optional<double>> Time(const json::Value& v, std::string_view key,
                                             std::string_view what) const {
    const json::Value* m = v.Find(key);
    if (m == nullptr || m->is_null()) return std::optional<double>();
    if (!m->is_number() || !std::isfinite(m->as_double())) {
      return Fail(codes::CH0704, m->offset(), Cat("`", key, "` of ", what, " must be a number of seconds or null"));
    }
    return std::optional<double>(m->as_double());
  }

  absl::StatusOr<Quantity> ParseQuantity(const json::Value& v, int resource,
                                         std::string_view what) const {
    std::string_view text;
    if (v.is_number()) {
      text = v.number_text();
    } else if (v.is_string()) {
      text = v.as_string();
    } else {
      return Fail(codes::CH0704, v.offset(), Cat(what, " must be a quantity such as 8, \"500m\" or \"16Gi\""));
    }
    int64_t out = 0;
    switch (internal::schedule::ParseQuantity(text, IsMilli(resource), &out)) {
      case internal::schedule::QuantityError::kOk: return out;
      case internal::schedule::QuantityError::kNegative:
        return Fail(codes::CH0704, v.offset(), Cat(what, " is negative (", text, ")"));
      case internal::schedule::QuantityError::kTooLarge:
        return Fail(codes::CH0704, v.offset(), Cat(what, " is too large (", text, ")"));
      case internal::schedule::QuantityError::kMalformed: break;
    }
    return Fail(codes::CH0704, v.offset(), Cat(what, " is not a quantity: `", text, "`"));
  }

  bool IsMilli(int resource) const { return state_.resources[resource] == "cpu"; }

  // A flavor's quotas (`quotas`, or `resources` as Kueue names them).
  static const json::Value* QuotasOf(const json::Value& flavor) {
    const json::Value* quotas = flavor.Find("quotas");
    return quotas != nullptr ? quotas : flavor.Find("resources");
  }

  // The CH07xx code of a fault config_check.h finds.
  static const char* CodeOf(internal::schedule::FaultKind kind) {
    switch (kind) {
      case internal::schedule::FaultKind::kDuplicate: return codes::CH0705;
      case internal::schedule::FaultKind::kUnknown: return codes::CH0706;
      case internal::schedule::FaultKind::kQuantity: return codes::CH0704;
      case internal::schedule::FaultKind::kCycle:
      case internal::schedule::FaultKind::kLendingAboveNominal:
      case internal::schedule::FaultKind::kRefused: break;
    }
    return codes::CH0707;
  }

  int Resource(std::string_view name) {
    auto [it, inserted] = resources_.try_emplace(std::string(name), static_cast<int>(state_.resources.size()));
    if (inserted) state_.resources.emplace_back(name);
    return it->second;
  }

  absl::Status LoadEngine(const json::Value& v);
  absl::Status LoadFlavors(const json::Value& v);
  absl::Status LoadPriorityClasses(const json::Value& v);
  absl::Status LoadCohorts(const json::Value& v);
  absl::Status LoadClusterQueues(const json::Value* v);
  absl::Status LoadLocalQueues(const json::Value* v);
  // The cluster queue an object names in its `cluster_queue` member.
  absl::StatusOr<int> ClusterQueueOf(const json::Value& object, std::string_view what);
  // `has_parent`: the owner is a cluster queue with a cohort, or a cohort
  // with a parent; Kueue allows borrowing and lending limits only there.
  absl::Status LoadResourceGroups(const json::Value& owner, std::string_view what, bool has_parent,
                                  std::vector<ResourceGroup>* out);
  absl::Status LoadPreemption(const json::Value& v, std::string_view what, Preemption* out);
  absl::Status LoadFungibility(const json::Value& v, std::string_view what,
                               FlavorFungibility* out);
  absl::Status LoadWorkloads(const json::Value* v, bool admitted);
  absl::StatusOr<PreemptionPolicy> Policy(const json::Value& v, std::string_view key,
                                          std::string_view what);

  std::string_view text_;
  const LoadOptions& options_;
  const internal::schedule::SourceMap* map_;
  State state_;
  // Per resource, what the workloads read so far ask for in all, and the
  // nominal quotas read so far in all.
  std::vector<int64_t> requested_;
  std::vector<int64_t> quota_total_;
  absl::flat_hash_map<std::string, int> flavors_, resources_, cohorts_, queues_, classes_,
      workloads_;
};

absl::StatusOr<const json::Value*> Loader::PickScenario(const json::Value& root) {
  if (!root.is_object()) return Fail(codes::CH0701, root.offset(), "the state must be a JSON object");
  const json::Value* scenarios = root.Find("scenarios");
  if (scenarios == nullptr) return &root;
  RETURN_IF_ERROR(CheckKeys(root, "the scenario file",
                            {"format", "kueue_source", "units", "description", "scenarios"}));
  if (!scenarios->is_array()) return Fail(codes::CH0701, scenarios->offset(), "`scenarios` must be an array");
  const json::Value* found = nullptr;
  std::string ids;
  for (size_t i = 0; i < scenarios->size(); ++i) {
    const json::Value& s = scenarios->at(i);
    if (!s.is_object()) return Fail(codes::CH0701, s.offset(), "a scenario must be an object");
    const json::Value* id = s.Find("id");
    std::string_view id_text = id != nullptr && id->is_string() ? id->as_string() : "";
    CatAppendId(&ids, id_text);
    if (options_.scenario.empty() ? scenarios->size() == 1 : id_text == options_.scenario) {
      found = &s;
    }
  }
  if (found != nullptr) return found;
  if (options_.scenario.empty()) {
    return Fail(codes::CH0707, scenarios->offset(), Cat("the file holds ", scenarios->size(),
                                         " scenarios; choose one of: ", ids));
  }
  return Fail(codes::CH0706, scenarios->offset(), Cat("no scenario `", options_.scenario, "`; the file holds: ", ids));
}

absl::Status Loader::LoadRoot(const json::Value& root) {
  RETURN_IF_ERROR(CheckKeys(root, "the state",
                            {"id", "title", "kind", "source", "explanation", "notes", "engine",
                             "resource_flavors", "cohorts", "cluster_queues", "priority_classes",
                             "local_queues", "admitted", "pending", "expected", "now"}));
  if (const json::Value* e = root.Find("engine"); e != nullptr && !e->is_null()) {
    RETURN_IF_ERROR(LoadEngine(*e));
  }
  if (const json::Value* now = root.Find("now"); now != nullptr && !now->is_null()) {
    if (!now->is_number()) return Fail(codes::CH0704, now->offset(), "`now` must be a number of seconds");
    state_.now = now->as_double();
  }
  const json::Value* flavors = root.Find("resource_flavors");
  if (flavors == nullptr) return Fail(codes::CH0702, root.offset(), "the state has no `resource_flavors`");
  RETURN_IF_ERROR(LoadFlavors(*flavors));
  if (const json::Value* pc = root.Find("priority_classes"); pc != nullptr && !pc->is_null()) {
    RETURN_IF_ERROR(LoadPriorityClasses(*pc));
  }
  if (const json::Value* c = root.Find("cohorts"); c != nullptr && !c->is_null()) {
    RETURN_IF_ERROR(LoadCohorts(*c));
  }
  const json::Value* cqs = root.Find("cluster_queues");
  if (cqs == nullptr) return Fail(codes::CH0702, root.offset(), "the state has no `cluster_queues`");
  RETURN_IF_ERROR(LoadClusterQueues(cqs));
  ASSIGN_OR_RETURN(const json::Value* local_queues, OptArray(root, "local_queues", "the state"));
  RETURN_IF_ERROR(LoadLocalQueues(local_queues));
  ASSIGN_OR_RETURN(const json::Value* admitted, OptArray(root, "admitted", "the state"));
  RETURN_IF_ERROR(LoadWorkloads(admitted, true));
  ASSIGN_OR_RETURN(const json::Value* pending, OptArray(root, "pending", "the state"));
  RETURN_IF_ERROR(LoadWorkloads(pending, false));
  if (std::string error = internal::schedule::QuotaCellsError(state_, options_.max_quota_cells);
      !error.empty()) {
    return Fail(codes::CH0707, root.offset(), error);
  }
  return absl::OkStatus();
}

absl::Status Loader::LoadEngine(const json::Value& v) {
  RETURN_IF_ERROR(CheckKeys(v, "`engine`",
                            {"fair_sharing", "fair_sharing_preemption_strategies", "feature_gates"}));
  if (const json::Value* fs = v.Find("fair_sharing"); fs != nullptr && !fs->is_null()) {
    if (!fs->is_bool()) return Fail(codes::CH0701, fs->offset(), "`fair_sharing` must be true or false");
    state_.engine.fair_sharing = fs->as_bool();
  }
  ASSIGN_OR_RETURN(const json::Value* strategies,
                   OptArray(v, "fair_sharing_preemption_strategies", "`engine`"));
  if (strategies != nullptr && strategies->size() > 0) {
    std::vector<FairSharingStrategy> list;
    for (size_t i = 0; i < strategies->size(); ++i) {
      const json::Value& s = strategies->at(i);
      std::string_view name = s.is_string() ? s.as_string() : "";
      if (name == "LessThanOrEqualToFinalShare") {
        list.push_back(FairSharingStrategy::kLessThanOrEqualToFinalShare);
      } else if (name == "LessThanInitialShare") {
        list.push_back(FairSharingStrategy::kLessThanInitialShare);
      } else {
        return Fail(codes::CH0707, s.offset(), "a fair-sharing preemption strategy is `LessThanOrEqualToFinalShare` "
                                "or `LessThanInitialShare`");
      }
    }
    if (auto fault = internal::schedule::CheckStrategies(list)) {
      return Fail(codes::CH0701, strategies->offset(), fault->message);
    }
    state_.engine.fair_sharing_strategies = std::move(list);
  }
  // Informational: an object of gates, or the sentence some tools write.
  if (const json::Value* g = v.Find("feature_gates");
      g != nullptr && !g->is_null() && !g->is_object() && !g->is_string()) {
    return Fail(codes::CH0701, g->offset(), "`feature_gates` must be an object or a string");
  }
  return absl::OkStatus();
}

absl::Status Loader::LoadFlavors(const json::Value& v) {
  if (!v.is_array()) return Fail(codes::CH0701, v.offset(), "`resource_flavors` must be an array of names");
  for (size_t i = 0; i < v.size(); ++i) {
    const json::Value& f = v.at(i);
    std::string name;
    if (f.is_string()) {
      name = std::string(f.as_string());
    } else if (f.is_object()) {
      RETURN_IF_ERROR(CheckKeys(f, "a resource flavor", {"name", "node_labels", "node_taints"}));
      ASSIGN_OR_RETURN(name, Name(f, "a resource flavor"));
    }
    if (name.empty()) return Fail(codes::CH0701, f.offset(), "a resource flavor must be a non-empty name");
    if (!flavors_.try_emplace(name, static_cast<int>(state_.flavors.size())).second) {
      return Fail(codes::CH0705, f.offset(), Cat("resource flavor `", name, "` is listed twice"));
    }
    state_.flavors.push_back(std::move(name));
  }
  return absl::OkStatus();
}

absl::Status Loader::LoadPriorityClasses(const json::Value& v) {
  if (!v.is_array()) return Fail(codes::CH0701, v.offset(), "`priority_classes` must be an array");
  for (size_t i = 0; i < v.size(); ++i) {
    const json::Value& c = v.at(i);
    RETURN_IF_ERROR(CheckKeys(c, "a priority class", {"name", "value", "description"}));
    ASSIGN_OR_RETURN(std::string name, Name(c, "a priority class"));
    std::string what = Cat("priority class `", name, "`");
    const json::Value* value = c.Find("value");
    if (value == nullptr) return Fail(codes::CH0702, c.offset(), Cat(what, " has no `value`"));
    ASSIGN_OR_RETURN(int64_t n, Integer(*value, Cat("the value of ", what)));
    if (!classes_.try_emplace(name, static_cast<int>(state_.priority_classes.size())).second) {
      return Fail(codes::CH0705, c.offset(), Cat(what, " is listed twice"));
    }
    state_.priority_classes.push_back(PriorityClass{std::move(name), n});
  }
  return absl::OkStatus();
}

absl::Status Loader::LoadCohorts(const json::Value& v) {
  if (!v.is_array()) return Fail(codes::CH0701, v.offset(), "`cohorts` must be an array");
  // Names first, so that a parent may come after its child.
  for (size_t i = 0; i < v.size(); ++i) {
    const json::Value& c = v.at(i);
    RETURN_IF_ERROR(CheckKeys(c, "a cohort", {"name", "parent", "resource_groups", "fair_weight"}));
    ASSIGN_OR_RETURN(std::string name, Name(c, "a cohort"));
    if (!cohorts_.try_emplace(name, static_cast<int>(state_.cohorts.size())).second) {
      return Fail(codes::CH0705, c.offset(), Cat("cohort `", name, "` is listed twice"));
    }
    Cohort cohort;
    cohort.name = std::move(name);
    state_.cohorts.push_back(std::move(cohort));
  }
  for (size_t i = 0; i < v.size(); ++i) {
    const json::Value& c = v.at(i);
    Cohort& cohort = state_.cohorts[i];
    std::string what = Cat("cohort `", cohort.name, "`");
    if (const json::Value* p = c.Find("parent"); p != nullptr && !p->is_null()) {
      if (!p->is_string()) return Fail(codes::CH0701, p->offset(), Cat("the parent of ", what, " must be a name or null"));
      auto it = cohorts_.find(std::string(p->as_string()));
      if (it == cohorts_.end()) {
        return Fail(codes::CH0706, p->offset(), Cat(what, " names an unknown parent cohort `", p->as_string(), "`"));
      }
      cohort.parent = it->second;
    }
    if (const json::Value* w = c.Find("fair_weight"); w != nullptr && !w->is_null()) {
      ASSIGN_OR_RETURN(cohort.fair_weight, Number(*w, Cat("the fair weight of ", what)));
      if (auto fault = internal::schedule::CheckFairWeight(cohort.fair_weight, what)) {
        return Fail(CodeOf(fault->kind), w->offset(), fault->message);
      }
    }
    RETURN_IF_ERROR(LoadResourceGroups(c, what, cohort.parent >= 0, &cohort.resource_groups));
  }
  int c = -1;
  if (std::string path = internal::schedule::CohortCyclePath(state_.cohorts, &c); !path.empty()) {
    return Fail(codes::CH0707, v.at(c).offset(), Cat("cohort `", state_.cohorts[c].name, "` is in a cycle of parents: ", path));
  }
  return absl::OkStatus();
}

absl::Status Loader::LoadResourceGroups(const json::Value& owner, std::string_view what, bool has_parent,
                                        std::vector<ResourceGroup>* out) {
  const bool is_queue = what.substr(0, 7) == "cluster";
  ASSIGN_OR_RETURN(const json::Value* groups, OptArray(owner, "resource_groups", what));
  if (groups == nullptr) return absl::OkStatus();
  // What the JSON says, read into the model; Kueue's rules over it are
  // config_check.h's, and a fault they find is pointed at its JSON here.
  for (size_t g = 0; g < groups->size(); ++g) {
    const json::Value& gv = groups->at(g);
    RETURN_IF_ERROR(CheckKeys(gv, Cat("a resource group of ", what), {"covered_resources", "flavors"}));
    ResourceGroup group;
    ASSIGN_OR_RETURN(const json::Value* res, OptArray(gv, "covered_resources", Cat("a resource group of ", what)));
    for (size_t r = 0; res != nullptr && r < res->size(); ++r) {
      const json::Value& rv = res->at(r);
      if (!rv.is_string() || rv.as_string().empty()) {
        return Fail(codes::CH0701, rv.offset(), "a covered resource must be a non-empty name");
      }
      group.covered_resources.push_back(Resource(rv.as_string()));
    }
    ASSIGN_OR_RETURN(const json::Value* fl, OptArray(gv, "flavors", Cat("a resource group of ", what)));
    for (size_t f = 0; fl != nullptr && f < fl->size(); ++f) {
      const json::Value& fv = fl->at(f);
      RETURN_IF_ERROR(CheckKeys(fv, Cat("a flavor of ", what), {"name", "quotas", "resources"}));
      ASSIGN_OR_RETURN(std::string name, Name(fv, Cat("a flavor of ", what)));
      auto it = flavors_.find(name);
      if (it == flavors_.end()) {
        return Fail(codes::CH0706, fv.offset(), Cat(what, " uses unknown resource flavor `", name,
                                     "` (not in `resource_flavors`)"));
      }
      std::string fwhat = Cat("flavor `", name, "` of ", what);
      FlavorQuotas fq;
      fq.flavor = it->second;
      const json::Value* quotas = QuotasOf(fv);
      if (quotas == nullptr || !quotas->is_object()) {
        return Fail(codes::CH0702, fv.offset(), Cat(fwhat, " needs `quotas`: {resource: {nominal, borrowing_limit, lending_limit}}"));
      }
      for (size_t q = 0; q < quotas->size(); ++q) {
        std::string_view rname = quotas->key(q);
        int r = Resource(rname);
        std::string rwhat = Cat("the `", rname, "` quota of ", fwhat);
        const json::Value& qv = quotas->member(q);
        ResourceQuota rq;
        rq.resource = r;
        if (qv.is_object()) {
          RETURN_IF_ERROR(CheckKeys(qv, rwhat, {"nominal", "borrowing_limit", "lending_limit"}));
          const json::Value* nominal = qv.Find("nominal");
          if (nominal == nullptr) return Fail(codes::CH0702, qv.offset(), Cat(rwhat, " has no `nominal`"));
          ASSIGN_OR_RETURN(rq.nominal, ParseQuantity(*nominal, r, Cat("the nominal ", rwhat.substr(4))));
          if (const json::Value* b = qv.Find("borrowing_limit"); b != nullptr && !b->is_null()) {
            ASSIGN_OR_RETURN(rq.borrowing_limit, ParseQuantity(*b, r, Cat("the borrowing limit in ", rwhat)));
          }
          if (const json::Value* l = qv.Find("lending_limit"); l != nullptr && !l->is_null()) {
            ASSIGN_OR_RETURN(rq.lending_limit, ParseQuantity(*l, r, Cat("the lending limit in ", rwhat)));
          }
        } else {
          ASSIGN_OR_RETURN(rq.nominal, ParseQuantity(qv, r, Cat("the nominal ", rwhat.substr(4))));
        }
        fq.resources.push_back(rq);
      }
      group.flavors.push_back(std::move(fq));
    }
    out->push_back(std::move(group));
  }
  std::optional<internal::schedule::ConfigFault> fault =
      internal::schedule::CheckResourceGroups(state_, *out, what, is_queue, has_parent, &quota_total_);
  if (!fault.has_value()) return absl::OkStatus();
  // The place of the fault in the JSON.
  using internal::schedule::FaultField;
  const json::Value& gv = groups->at(fault->group);
  uint32_t offset = gv.offset();
  if (fault->field == FaultField::kCoveredResource) {
    offset = gv.Find("covered_resources")->at(fault->item).offset();
  } else if (fault->flavor >= 0) {
    const json::Value& fv = gv.Find("flavors")->at(fault->flavor);
    const json::Value* quotas = QuotasOf(fv);
    const json::Value* qv = fault->quota >= 0 ? &quotas->member(fault->quota) : nullptr;
    auto field_of = [&](std::string_view key) {
      const json::Value* v = qv->is_object() ? qv->Find(key) : nullptr;
      return v != nullptr ? v->offset() : qv->offset();
    };
    switch (fault->field) {
      case FaultField::kQuotas: offset = quotas->offset(); break;
      case FaultField::kQuotaResource: offset = quotas->key_offset(fault->quota); break;
      case FaultField::kQuota: offset = qv->offset(); break;
      case FaultField::kNominal: offset = field_of("nominal"); break;
      case FaultField::kBorrowingLimit: offset = field_of("borrowing_limit"); break;
      case FaultField::kLendingLimit: offset = field_of("lending_limit"); break;
      default: offset = fv.offset(); break;
    }
  }
  return Fail(CodeOf(fault->kind), offset, fault->message);
}

absl::StatusOr<PreemptionPolicy> Loader::Policy(const json::Value& v, std::string_view key,
                                                std::string_view what) {
  ASSIGN_OR_RETURN(std::string_view name, OptString(v, key, what, "Never"));
  if (name == "Never") return PreemptionPolicy::kNever;
  if (name == "LowerPriority") return PreemptionPolicy::kLowerPriority;
  if (name == "LowerOrNewerEqualPriority") return PreemptionPolicy::kLowerOrNewerEqualPriority;
  if (name == "Any") return PreemptionPolicy::kAny;
  return Fail(codes::CH0707, v.Find(key)->offset(),
              Cat("`", key, "` of ", what, " is `Never`, `LowerPriority`, `LowerOrNewerEqualPriority` or `Any`, not `",
                  name, "`"));
}

absl::Status Loader::LoadPreemption(const json::Value& v, std::string_view what, Preemption* out) {
  std::string pwhat = Cat("the preemption of ", what);
  RETURN_IF_ERROR(CheckKeys(v, pwhat, {"within_cluster_queue", "reclaim_within_cohort", "borrow_within_cohort"}));
  ASSIGN_OR_RETURN(out->within_cluster_queue, Policy(v, "within_cluster_queue", pwhat));
  ASSIGN_OR_RETURN(out->reclaim_within_cohort, Policy(v, "reclaim_within_cohort", pwhat));
  const json::Value* b = v.Find("borrow_within_cohort");
  if (b != nullptr && !b->is_null()) {
    std::string bwhat = Cat("`borrow_within_cohort` of ", what);
    if (b->is_string()) {
      // A bare policy name.
      if (b->as_string() == "LowerPriority") {
        out->borrow_within_cohort = PreemptionPolicy::kLowerPriority;
      } else if (b->as_string() != "Never") {
        return Fail(codes::CH0707, b->offset(), Cat(bwhat, " is `Never` or `LowerPriority`"));
      }
    } else {
      RETURN_IF_ERROR(CheckKeys(*b, bwhat, {"policy", "max_priority_threshold"}));
      ASSIGN_OR_RETURN(std::string_view policy, OptString(*b, "policy", bwhat, "Never"));
      if (policy == "LowerPriority") {
        out->borrow_within_cohort = PreemptionPolicy::kLowerPriority;
      } else if (policy != "Never") {
        return Fail(codes::CH0707, b->Find("policy")->offset(), Cat("the policy of ", bwhat, " is `Never` or `LowerPriority`"));
      }
      if (const json::Value* t = b->Find("max_priority_threshold"); t != nullptr && !t->is_null()) {
        ASSIGN_OR_RETURN(int64_t n, Integer(*t, Cat("`max_priority_threshold` of ", what)));
        out->max_priority_threshold = n;
      }
    }
  }
  if (auto fault = internal::schedule::CheckPreemption(*out, what)) {
    return Fail(CodeOf(fault->kind), v.offset(), fault->message);
  }
  return absl::OkStatus();
}

absl::Status Loader::LoadFungibility(const json::Value& v, std::string_view what,
                                     FlavorFungibility* out) {
  std::string fwhat = Cat("the flavor fungibility of ", what);
  RETURN_IF_ERROR(CheckKeys(v, fwhat, {"when_can_borrow", "when_can_preempt", "preference"}));
  ASSIGN_OR_RETURN(std::string_view borrow, OptString(v, "when_can_borrow", fwhat, "MayStopSearch"));
  if (borrow == "MayStopSearch" || borrow == "Borrow") {
    out->when_can_borrow = FungibilityPolicy::kMayStopSearch;
  } else if (borrow == "TryNextFlavor") {
    out->when_can_borrow = FungibilityPolicy::kTryNextFlavor;
  } else {
    return Fail(codes::CH0707, v.Find("when_can_borrow")->offset(),
                Cat("`when_can_borrow` of ", what, " is `MayStopSearch` (alias `Borrow`) or `TryNextFlavor`"));
  }
  ASSIGN_OR_RETURN(std::string_view preempt, OptString(v, "when_can_preempt", fwhat, "TryNextFlavor"));
  if (preempt == "MayStopSearch" || preempt == "Preempt") {
    out->when_can_preempt = FungibilityPolicy::kMayStopSearch;
  } else if (preempt == "TryNextFlavor") {
    out->when_can_preempt = FungibilityPolicy::kTryNextFlavor;
  } else {
    return Fail(codes::CH0707, v.Find("when_can_preempt")->offset(),
                Cat("`when_can_preempt` of ", what, " is `MayStopSearch` (alias `Preempt`) or `TryNextFlavor`"));
  }
  ASSIGN_OR_RETURN(std::string_view pref, OptString(v, "preference", fwhat, ""));
  if (pref.empty()) {
    out->preference = FungibilityPreference::kUnset;
  } else if (pref == "BorrowingOverPreemption") {
    out->preference = FungibilityPreference::kBorrowingOverPreemption;
  } else if (pref == "PreemptionOverBorrowing") {
    out->preference = FungibilityPreference::kPreemptionOverBorrowing;
  } else {
    return Fail(codes::CH0707, v.Find("preference")->offset(),
                Cat("`preference` of ", what, " is `BorrowingOverPreemption` or `PreemptionOverBorrowing`"));
  }
  if (auto fault = internal::schedule::CheckFungibility(*out, what)) {
    return Fail(CodeOf(fault->kind), v.Find("preference")->offset(), fault->message);
  }
  return absl::OkStatus();
}

absl::Status Loader::LoadClusterQueues(const json::Value* v) {
  if (!v->is_array()) return Fail(codes::CH0701, v->offset(), "`cluster_queues` must be an array");
  for (size_t i = 0; i < v->size(); ++i) {
    const json::Value& c = v->at(i);
    RETURN_IF_ERROR(CheckKeys(c, "a cluster queue",
                              {"name", "cohort", "queueing_strategy", "resource_groups", "preemption",
                               "flavor_fungibility", "fair_weight", "namespace_selector", "implements"}));
    ClusterQueue cq;
    ASSIGN_OR_RETURN(cq.name, Name(c, "a cluster queue"));
    std::string what = Cat("cluster queue `", cq.name, "`");
    if (!queues_.try_emplace(cq.name, static_cast<int>(state_.cluster_queues.size())).second) {
      return Fail(codes::CH0705, c.offset(), Cat(what, " is listed twice"));
    }
    if (const json::Value* co = c.Find("cohort"); co != nullptr && !co->is_null()) {
      if (!co->is_string() || co->as_string().empty()) {
        return Fail(codes::CH0701, co->offset(), Cat("the cohort of ", what, " must be a name or null"));
      }
      auto it = cohorts_.find(std::string(co->as_string()));
      if (it == cohorts_.end()) {
        // A cohort that only CQs name is a root with no quota of its own.
        it = cohorts_.try_emplace(std::string(co->as_string()), static_cast<int>(state_.cohorts.size())).first;
        Cohort implicit;
        implicit.name = std::string(co->as_string());
        state_.cohorts.push_back(std::move(implicit));
      }
      cq.cohort = it->second;
    }
    ASSIGN_OR_RETURN(std::string_view strategy, OptString(c, "queueing_strategy", what, "BestEffortFIFO"));
    if (strategy == "StrictFIFO") {
      cq.queueing_strategy = QueueingStrategy::kStrictFIFO;
    } else if (strategy != "BestEffortFIFO") {
      return Fail(codes::CH0707, c.Find("queueing_strategy")->offset(),
                  Cat("the queueing strategy of ", what, " is `BestEffortFIFO` or `StrictFIFO`, not `", strategy, "`"));
    }
    if (const json::Value* p = c.Find("preemption"); p != nullptr && !p->is_null()) {
      RETURN_IF_ERROR(LoadPreemption(*p, what, &cq.preemption));
    }
    if (const json::Value* f = c.Find("flavor_fungibility"); f != nullptr && !f->is_null()) {
      RETURN_IF_ERROR(LoadFungibility(*f, what, &cq.flavor_fungibility));
    }
    if (const json::Value* w = c.Find("fair_weight"); w != nullptr && !w->is_null()) {
      ASSIGN_OR_RETURN(cq.fair_weight, Number(*w, Cat("the fair weight of ", what)));
      if (auto fault = internal::schedule::CheckFairWeight(cq.fair_weight, what)) {
        return Fail(CodeOf(fault->kind), w->offset(), fault->message);
      }
    }
    ASSIGN_OR_RETURN(std::string_view implements, OptString(c, "implements", what));
    cq.implements = std::string(implements);
    RETURN_IF_ERROR(LoadResourceGroups(c, what, cq.cohort >= 0, &cq.resource_groups));
    state_.cluster_queues.push_back(std::move(cq));
  }
  return absl::OkStatus();
}

absl::StatusOr<int> Loader::ClusterQueueOf(const json::Value& object, std::string_view what) {
  const json::Value* cq = object.Find("cluster_queue");
  if (cq == nullptr || !cq->is_string()) {
    return Fail(codes::CH0702, cq == nullptr ? object.offset() : cq->offset(), Cat(what, " needs a `cluster_queue` name"));
  }
  auto it = queues_.find(std::string(cq->as_string()));
  if (it == queues_.end()) {
    return Fail(codes::CH0706, cq->offset(), Cat(what, " names an unknown cluster queue `", cq->as_string(), "`"));
  }
  return it->second;
}

absl::Status Loader::LoadLocalQueues(const json::Value* v) {
  if (v == nullptr) return absl::OkStatus();
  for (size_t i = 0; i < v->size(); ++i) {
    const json::Value& l = v->at(i);
    RETURN_IF_ERROR(CheckKeys(l, "a local queue", {"namespace", "name", "cluster_queue"}));
    LocalQueue lq;
    ASSIGN_OR_RETURN(lq.name, Name(l, "a local queue"));
    ASSIGN_OR_RETURN(std::string_view ns, OptString(l, "namespace", Cat("local queue `", lq.name, "`")));
    lq.namespace_name = std::string(ns);
    std::string what = Cat("local queue `", lq.namespace_name, "/", lq.name, "`");
    if (auto fault = internal::schedule::CheckLocalQueueName(lq)) {
      return Fail(CodeOf(fault->kind), l.Find("name")->offset(), fault->message);
    }
    for (const LocalQueue& seen : state_.local_queues) {
      if (seen.namespace_name == lq.namespace_name && seen.name == lq.name) {
        return Fail(codes::CH0705, l.offset(), Cat(what, " is listed twice"));
      }
    }
    ASSIGN_OR_RETURN(lq.cluster_queue, ClusterQueueOf(l, what));
    state_.local_queues.push_back(std::move(lq));
  }
  return absl::OkStatus();
}

absl::Status Loader::LoadWorkloads(const json::Value* v, bool admitted) {
  if (v == nullptr) return absl::OkStatus();
  std::string_view kind = admitted ? "admitted workload" : "pending workload";
  for (size_t i = 0; i < v->size(); ++i) {
    const json::Value& w = v->at(i);
    if (admitted) {
      RETURN_IF_ERROR(CheckKeys(w, Cat("an ", kind),
                                {"name", "uid", "cluster_queue", "priority", "priority_class", "created_at",
                                 "quota_reserved_at", "pod_sets", "flavors", "local_queue", "namespace", "labels",
                                 "annotations"}));
    } else {
      RETURN_IF_ERROR(CheckKeys(w, Cat("a ", kind),
                                {"name", "uid", "cluster_queue", "priority", "priority_class", "created_at",
                                 "pod_sets", "local_queue", "inadmissible", "preempting", "namespace", "labels",
                                 "annotations"}));
    }
    Workload wl;
    ASSIGN_OR_RETURN(wl.name, Name(w, Cat("a ", kind)));
    std::string what = Cat(kind, " `", wl.name, "`");
    if (!workloads_.try_emplace(wl.name, 0).second) {
      return Fail(codes::CH0705, w.offset(), Cat("workload `", wl.name, "` is listed twice"));
    }
    ASSIGN_OR_RETURN(std::string_view uid, OptString(w, "uid", what, wl.name));
    wl.uid = std::string(uid);
    ASSIGN_OR_RETURN(wl.cluster_queue, ClusterQueueOf(w, what));
    const json::Value* prio = w.Find("priority");
    if (prio != nullptr && !prio->is_null()) {
      ASSIGN_OR_RETURN(wl.priority, Integer(*prio, Cat("the priority of ", what)));
    }
    if (const json::Value* pc = w.Find("priority_class"); pc != nullptr && !pc->is_null()) {
      if (!pc->is_string()) return Fail(codes::CH0701, pc->offset(), Cat("the priority class of ", what, " must be a name"));
      auto c = classes_.find(std::string(pc->as_string()));
      if (c == classes_.end()) {
        std::string known;
        for (const PriorityClass& k : state_.priority_classes) CatAppendId(&known, k.name);
        return Fail(codes::CH0706, pc->offset(), Cat(what, " names an unknown priority class `", pc->as_string(), "`",
                                      known.empty() ? std::string(" (none are defined)") : Cat("; defined: ", known)));
      }
      int64_t value = state_.priority_classes[c->second].value;
      if (prio != nullptr && !prio->is_null() && value != wl.priority) {
        return Fail(codes::CH0707, prio->offset(), Cat("the priority of ", what, " (", wl.priority, ") differs from its class `",
                                        pc->as_string(), "` (", value, ")"));
      }
      wl.priority = value;
      wl.priority_class = std::string(pc->as_string());
    }
    ASSIGN_OR_RETURN(std::string_view ns, OptString(w, "namespace", what));
    wl.namespace_name = std::string(ns);
    RETURN_IF_ERROR(StringMap(w, "labels", what, &wl.labels));
    RETURN_IF_ERROR(StringMap(w, "annotations", what, &wl.annotations));
    ASSIGN_OR_RETURN(wl.created_at, Time(w, "created_at", what));
    if (admitted) {
      ASSIGN_OR_RETURN(wl.quota_reserved_at, Time(w, "quota_reserved_at", what));
    } else {
      for (std::string_view flag : {"inadmissible", "preempting"}) {
        const json::Value* b = w.Find(flag);
        if (b == nullptr || b->is_null()) continue;
        if (!b->is_bool()) return Fail(codes::CH0701, b->offset(), Cat("`", flag, "` of ", what, " must be true or false"));
        (flag == "inadmissible" ? wl.inadmissible : wl.preempting) = b->as_bool();
      }
    }
    ASSIGN_OR_RETURN(const json::Value* sets, OptArray(w, "pod_sets", what));
    if (sets == nullptr || sets->size() == 0) return Fail(codes::CH0702, w.offset(), Cat(what, " has no `pod_sets`"));
    for (size_t p = 0; p < sets->size(); ++p) {
      const json::Value& ps = sets->at(p);
      RETURN_IF_ERROR(CheckKeys(ps, Cat("a pod set of ", what), {"name", "count", "requests", "min_count"}));
      PodSet set;
      ASSIGN_OR_RETURN(set.name, Name(ps, Cat("a pod set of ", what)));
      std::string swhat = Cat("pod set `", set.name, "` of ", what);
      for (const PodSet& seen : wl.pod_sets) {
        if (seen.name == set.name) return Fail(codes::CH0705, ps.offset(), Cat(what, " has two pod sets named `", set.name, "`"));
      }
      if (const json::Value* count = ps.Find("count"); count != nullptr && !count->is_null()) {
        ASSIGN_OR_RETURN(set.count, Integer(*count, Cat("the count of ", swhat)));
        if (set.count < 0) return Fail(codes::CH0704, count->offset(), Cat("the count of ", swhat, " is negative"));
      }
      const json::Value* req = ps.Find("requests");
      if (req != nullptr && !req->is_null()) {
        if (!req->is_object()) return Fail(codes::CH0701, req->offset(), Cat("the requests of ", swhat, " must be an object"));
        for (size_t r = 0; r < req->size(); ++r) {
          Request rq;
          rq.resource = Resource(req->key(r));
          for (const Request& seen : set.requests) {
            if (seen.resource == rq.resource) {
              return Fail(codes::CH0705, req->key_offset(r), Cat(swhat, " requests `", req->key(r), "` twice"));
            }
          }
          ASSIGN_OR_RETURN(rq.per_pod, ParseQuantity(req->member(r), rq.resource,
                                                     Cat("the `", req->key(r), "` request of ", swhat)));
          // A cycle adds usages up exactly: a pod set's total, and every
          // workload's together, must fit in 64 bits.
          int64_t total = 0;
          if (__builtin_mul_overflow(set.count, rq.per_pod, &total)) {
            return Fail(codes::CH0704, req->member(r).offset(),
                        Cat(swhat, " asks for ", set.count, " pods of ",
                            internal::schedule::FormatQuantity(rq.per_pod, IsMilli(rq.resource)), " `", req->key(r),
                            "` each: more than 2^63-1 in all"));
          }
          if (static_cast<size_t>(rq.resource) >= requested_.size()) requested_.resize(rq.resource + 1, 0);
          if (__builtin_add_overflow(requested_[rq.resource], total, &requested_[rq.resource])) {
            return Fail(codes::CH0704, req->member(r).offset(),
                        Cat("with ", swhat, ", the workloads ask for more than 2^63-1 of `", req->key(r),
                            "` together"));
          }
          set.requests.push_back(rq);
        }
      }
      wl.pod_sets.push_back(std::move(set));
    }
    if (admitted) {
      const json::Value* flavors = w.Find("flavors");
      if (flavors == nullptr || !flavors->is_object()) {
        return Fail(codes::CH0702, flavors == nullptr ? w.offset() : flavors->offset(),
                    Cat(what, " needs `flavors`: {pod set: {resource: flavor}}"));
      }
      for (size_t p = 0; p < flavors->size(); ++p) {
        std::string_view ps_name = flavors->key(p);
        auto set = std::find_if(wl.pod_sets.begin(), wl.pod_sets.end(),
                                [&](const PodSet& s) { return s.name == ps_name; });
        if (set == wl.pod_sets.end()) {
          return Fail(codes::CH0706, flavors->key_offset(p), Cat("`flavors` of ", what, " names an unknown pod set `", ps_name, "`"));
        }
        const json::Value& map = flavors->member(p);
        if (!map.is_object()) return Fail(codes::CH0701, map.offset(), Cat("the flavors of pod set `", ps_name, "` must be an object"));
        for (size_t r = 0; r < map.size(); ++r) {
          const json::Value& fv = map.member(r);
          if (!fv.is_string()) return Fail(codes::CH0701, fv.offset(), "a flavor must be a name");
          auto f = flavors_.find(std::string(fv.as_string()));
          if (f == flavors_.end()) {
            return Fail(codes::CH0706, fv.offset(), Cat(what, " uses unknown resource flavor `", fv.as_string(), "`"));
          }
          int res = Resource(map.key(r));
          auto rq = std::find_if(set->requests.begin(), set->requests.end(),
                                 [res](const Request& q) { return q.resource == res; });
          if (rq == set->requests.end()) {
            return Fail(codes::CH0707, map.key_offset(r), Cat("pod set `", ps_name, "` of ", what, " has a flavor for `",
                                               map.key(r), "`, which it does not request"));
          }
          rq->flavor = f->second;
        }
      }
      for (const PodSet& set : wl.pod_sets) {
        for (const Request& rq : set.requests) {
          if (rq.flavor < 0 && rq.per_pod > 0 && set.count > 0) {
            return Fail(codes::CH0707, flavors->offset(), Cat("pod set `", set.name, "` of ", what, " has no flavor for `",
                                               state_.resources[rq.resource], "`"));
          }
        }
      }
      state_.admitted.push_back(std::move(wl));
    } else {
      state_.pending.push_back(std::move(wl));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<State> LoadState(std::string_view json, const LoadOptions& options) {
  return Loader(json, options).Load();
}

absl::StatusOr<State> LoadWorkloads(const State& config, std::string_view json, const LoadOptions& options) {
  return Loader(json, options).LoadOnto(config);
}

}  // namespace charter::schedule

namespace charter::internal::schedule {

absl::StatusOr<::charter::schedule::State> LoadTranslatedState(std::string_view generated,
                                                               const ::charter::schedule::LoadOptions& options,
                                                               const SourceMap& map) {
  return ::charter::schedule::Loader(generated, options, &map).Load();
}

}  // namespace charter::internal::schedule
