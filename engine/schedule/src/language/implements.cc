// CheckImplements: a queue that `implements` an entity of the typed model
// agrees with it (docs/scheduling.md, "A queue and its Allocation"). The
// standard model's Allocation (stdlib/governance.cedarschema) says how many
// GPUs a team is guaranteed (`gpus`), how many more it may borrow
// (`borrowLimitGpus`; none when absent, as the webhook's policies read it),
// whether it lends what it does not use (`lendsIdle`) and its fair-share
// weight (`fairShareWeight`, HyperPod's 0 to 100, Kueue's fair weight). The
// queue says the same in Kueue's terms; each attribute the entity has is
// compared with the queue, and a difference is a CH0810 error at the
// queue's text that names the entity's place in the entities' JSON.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "ast/declarations.h"
#include "charter/compiler.h"
#include "charter/diagnostics.h"
#include "charter/entities.h"
#include "charter/json.h"
#include "charter/schedule.h"
#include "common/diagnostic_codes.h"
#include "common/strings.h"
#include "language/declare.h"
#include "policy_set/policy_set.h"

namespace charter::schedule {
namespace {

using internal::Cat;
using internal::CatAppend;
using internal::ObjectAt;

// Where an entity of the entities' JSON is, and its attributes.
struct EntityAt {
  uint32_t offset = 0;
  std::optional<JsonValue> attrs;
};

// The uid of one element of Cedar's JSON entities: {"type", "id"} or
// {"__entity": {"type", "id"}}; nullopt for anything else.
std::optional<std::pair<std::string, std::string>> UidOf(const JsonValue& element) {
  std::optional<JsonValue> uid = element.Find("uid");
  if (!uid.has_value()) return std::nullopt;
  if (std::optional<JsonValue> inner = uid->Find("__entity")) uid = inner;
  std::optional<JsonValue> type = uid->Find("type");
  std::optional<JsonValue> id = uid->Find("id");
  if (!type.has_value() || !id.has_value() || !type->is_string() || !id->is_string()) return std::nullopt;
  return std::make_pair(std::string(type->as_string()), std::string(id->as_string()));
}

// A GPU resource: `nvidia.com/gpu`, `amd.com/gpu`, Slurm's `gres/gpu`, `gpu`.
bool IsGpu(std::string_view resource) {
  return resource == "gpu" || (resource.size() > 4 && resource.substr(resource.size() - 4) == "/gpu");
}

// The GPU quotas of a queue, with their places.
struct GpuQuota {
  const ResourceQuota* quota;
  const internal::QuotaAt* at;
  std::string name;  // "`nvidia.com/gpu` in flavor `p5.48xlarge`"
};

class Checker {
 public:
  Checker(const State& state, const SourceFile& entities, std::vector<Diagnostics>* diagnostics)
      : state_(state), entities_(entities), diagnostics_(*diagnostics) {}

  size_t Run(const JsonValue& root, const std::vector<ObjectAt>& places) {
    for (size_t i = 0; i < root.size(); ++i) {
      JsonValue element = root.at(i);
      std::optional<std::pair<std::string, std::string>> uid = UidOf(element);
      if (!uid.has_value()) continue;
      EntityAt at{element.offset(), element.Find("attrs")};
      // (Entities::FromJson refuses two different entities with one uid;
      // the first place is the one to name.)
      entities_at_.try_emplace(Cat(uid->first, "\n", uid->second), at);
    }
    for (size_t q = 0; q < state_.cluster_queues.size() && q < places.size(); ++q) {
      const ClusterQueue& cq = state_.cluster_queues[q];
      if (!cq.implements.empty()) Check(cq, places[q]);
    }
    return faults_;
  }

 private:
  void Fault(const ObjectAt& at, Span span, std::string message, std::string help) {
    if (span.end == 0) span = at.head;
    diagnostics_[at.file].Error(internal::codes::CH0810, span, std::move(message), std::move(help));
    ++faults_;
  }

  std::string Where(uint32_t offset) const { return Cat(entities_.name(), ":", JsonLineCol(entities_.text(), offset)); }

  void Check(const ClusterQueue& cq, const ObjectAt& at) {
    absl::StatusOr<EntityUid> uid = EntityUid::Parse(cq.implements);
    if (!uid.ok()) return;  // (the declarations' reader writes only valid ones)
    const std::string queue = Cat("cluster queue `", cq.name, "`");
    auto it = entities_at_.find(Cat(uid->type, "\n", uid->id));
    if (it == entities_at_.end()) {
      Fault(at, at.implements, Cat(queue, " implements `", cq.implements, "`, which ", entities_.name(), " does not have"),
            Cat("add the entity to ", entities_.name(), ", or name one it has"));
      return;
    }
    const EntityAt& entity = it->second;
    const std::string who = Cat("`", cq.implements, "` (", Where(entity.offset), ")");
    if (!entity.attrs.has_value()) return;
    std::vector<GpuQuota> gpus;
    for (size_t g = 0; g < cq.resource_groups.size() && g < at.groups.size(); ++g) {
      const ResourceGroup& group = cq.resource_groups[g];
      for (size_t f = 0; f < group.flavors.size() && f < at.groups[g].flavors.size(); ++f) {
        const FlavorQuotas& fq = group.flavors[f];
        for (size_t r = 0; r < fq.resources.size() && r < at.groups[g].flavors[f].quotas.size(); ++r) {
          const std::string& resource = state_.resources[fq.resources[r].resource];
          if (!IsGpu(resource)) continue;
          gpus.push_back({&fq.resources[r], &at.groups[g].flavors[f].quotas[r],
                          Cat("`", resource, "` in flavor `", state_.flavors[fq.flavor], "`")});
        }
      }
    }
    const Span first_nominal = gpus.empty() ? at.head : gpus[0].at->nominal;
    auto attr = [&](std::string_view name) -> std::optional<std::pair<JsonValue, uint32_t>> {
      for (size_t i = 0; i < entity.attrs->size(); ++i) {
        if (entity.attrs->key(i) == name) return std::make_pair(entity.attrs->member(i), entity.attrs->key_offset(i));
      }
      return std::nullopt;
    };
    auto help = [&](std::string_view name, uint32_t offset) {
      return Cat("its `", name, "` is at ", Where(offset), "; make the queue and the entity agree");
    };
    auto where_gpus = [&] {
      std::string s;
      for (size_t i = 0; i < gpus.size(); ++i) CatAppend(&s, i == 0 ? "" : ", ", gpus[i].name);
      return s;
    };

    // gpus: the nominal quota of every GPU resource, summed. An entity
    // without it is not an Allocation of the standard model, and is not
    // compared.
    {
      std::optional<std::pair<JsonValue, uint32_t>> a = attr("gpus");
      if (!a.has_value()) return;
      if (std::optional<int64_t> want = Long(a->first)) {
        int64_t have = 0;
        for (const GpuQuota& g : gpus) have += g.quota->nominal;
        if (gpus.empty() && *want != 0) {
          Fault(at, at.head,
                Cat(queue, " has no GPU quota (a resource `nvidia.com/gpu`, `gpu` or `.../gpu`) where ", who,
                    " guarantees ", *want, " (`gpus`)"),
                help("gpus", a->second));
        } else if (have != *want) {
          Fault(at, first_nominal,
                Cat(queue, " guarantees ", have, " GPUs (", where_gpus(), ") where ", who, " says ", *want,
                    " (`gpus`)"),
                help("gpus", a->second));
        }
      }
    }
    if (gpus.empty()) return;

    // borrowLimitGpus: none when absent. Without a cohort a queue borrows
    // nothing; with one, a quota without `borrow` borrows without limit.
    {
      std::optional<std::pair<JsonValue, uint32_t>> a = attr("borrowLimitGpus");
      std::optional<int64_t> want = a.has_value() ? Long(a->first) : std::optional<int64_t>(0);
      if (want.has_value()) {
        std::optional<int64_t> have = 0;  // nullopt: unlimited
        const GpuQuota* unlimited = nullptr;
        if (cq.cohort >= 0) {
          for (const GpuQuota& g : gpus) {
            if (!g.quota->borrowing_limit.has_value()) {
              have = std::nullopt;
              unlimited = &g;
              break;
            }
            *have += *g.quota->borrowing_limit;
          }
        }
        const std::string says = a.has_value() ? Cat("says ", *want, " (`borrowLimitGpus`)")
                                               : std::string("has no `borrowLimitGpus`: it borrows none");
        const std::string h = a.has_value() ? help("borrowLimitGpus", a->second)
                                            : Cat("the entity is at ", Where(entity.offset),
                                                  "; write `borrow 0`, or give the entity a `borrowLimitGpus`");
        if (!have.has_value()) {
          Fault(at, unlimited->at->nominal,
                Cat(queue, " may borrow any number of GPUs (", unlimited->name, " has no `borrow` limit) where ", who,
                    " ", says),
                h);
        } else if (*have != *want) {
          Span span = gpus[0].at->borrow.end > 0 ? gpus[0].at->borrow : gpus[0].at->value;
          Fault(at, span,
                Cat(queue, " may borrow ", *have, " GPUs",
                    cq.cohort < 0 ? " (it is in no cohort)" : Cat(" (", where_gpus(), ")"), " where ", who, " ",
                    says),
                h);
        }
      }
    }

    // lendsIdle: whether the queue lends its unused GPUs to its cohort.
    if (auto a = attr("lendsIdle"); a.has_value() && a->first.is_bool()) {
      const bool want = a->first.as_bool();
      bool lends = false;
      for (const GpuQuota& g : gpus) {
        if (cq.cohort >= 0 && (!g.quota->lending_limit.has_value() || *g.quota->lending_limit > 0)) lends = true;
      }
      if (lends != want) {
        Span span = gpus[0].at->lend.end > 0 ? gpus[0].at->lend : gpus[0].at->value;
        Fault(at, span,
              want ? Cat(queue, " lends none of its GPUs",
                         cq.cohort < 0 ? " (it is in no cohort)" : " (`lend 0`)", " where ", who,
                         " says it lends them when idle (`lendsIdle: true`)")
                   : Cat(queue, " lends its idle GPUs to its cohort (no `lend 0`) where ", who,
                         " says it does not (`lendsIdle: false`)"),
              help("lendsIdle", a->second));
      }
    }

    // fairShareWeight: the queue's fair weight (HyperPod's weight is Kueue's).
    if (auto a = attr("fairShareWeight"); a.has_value()) {
      if (std::optional<int64_t> want = Long(a->first)) {
        if (cq.fair_weight != static_cast<double>(*want)) {
          Fault(at, at.weight.end > 0 ? at.weight : at.head,
                Cat(queue, " has fair weight ", cq.fair_weight, at.weight.end > 0 ? "" : " (the default)", " where ",
                    who, " says ", *want, " (`fairShareWeight`)"),
                help("fairShareWeight", a->second));
        }
      }
    }
  }

  // An integer JSON number, read from its text.
  std::optional<int64_t> Long(const JsonValue& v) const {
    if (!v.is_number()) return std::nullopt;
    std::string_view text = std::string_view(entities_.text()).substr(v.offset());
    bool negative = !text.empty() && text[0] == '-';
    size_t i = negative ? 1 : 0;
    uint64_t n = 0;
    size_t digits = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      if (n > (uint64_t{1} << 62)) return std::nullopt;
      n = n * 10 + static_cast<uint64_t>(text[i] - '0');
      ++i, ++digits;
    }
    if (digits == 0 || (i < text.size() && (text[i] == '.' || text[i] == 'e' || text[i] == 'E'))) return std::nullopt;
    return negative ? -static_cast<int64_t>(n) : static_cast<int64_t>(n);
  }

  const State& state_;
  const SourceFile& entities_;
  std::vector<Diagnostics>& diagnostics_;
  absl::flat_hash_map<std::string, EntityAt> entities_at_;
  size_t faults_ = 0;
};

}  // namespace

absl::StatusOr<size_t> CheckImplements(const std::vector<SourceFile>& sources, const CompileOptions& options,
                                       const SourceFile& entities, std::vector<Diagnostics>* diagnostics) {
  std::vector<Diagnostics> local;
  std::vector<Diagnostics>& diags = diagnostics != nullptr ? *diagnostics : local;
  if (diags.size() < sources.size()) diags.resize(sources.size());
  absl::StatusOr<JsonDocument> doc = JsonDocument::Parse(entities.text());
  if (!doc.ok()) {
    return absl::InvalidArgumentError(Cat(entities.name(), ":", doc.status().message()));
  }
  if (!doc->root().is_array()) {
    return absl::InvalidArgumentError(Cat(entities.name(), ":1:1: the entities are a JSON array"));
  }
  std::vector<internal::ast::PolicySet> asts(sources.size());
  std::vector<TemplateLink> links;
  std::vector<internal::DeclarationFile> files;
  std::vector<Diagnostics> reading(sources.size());
  for (size_t i = 0; i < sources.size(); ++i) {
    asts[i] = internal::ReadPolicySource(sources[i], options, &reading[i], 0, &links);
    files.push_back({&sources[i], &asts[i].declarations, &reading[i]});
  }
  State state;
  std::vector<ObjectAt> places;
  internal::DeclareOptions declare;
  declare.queue_places = &places;
  internal::Declare(files, declare, &state);
  // Declarations with faults of their own are CompileDeclarations' to
  // report; the check needs a whole configuration.
  for (const Diagnostics& d : reading) {
    if (d.has_errors()) return size_t{0};
  }
  return Checker(state, entities, &diags).Run(doc->root(), places);
}

}  // namespace charter::schedule
