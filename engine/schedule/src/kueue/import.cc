// ImportKueue: Kueue's declaration objects (ResourceFlavor, Cohort,
// ClusterQueue, LocalQueue, WorkloadPriorityClass; kueue.x-k8s.io v1beta2 and
// v1beta1) and the manager's Configuration (config.kueue.x-k8s.io) into the
// scheduling model. Each object is read and checked as Kueue's API (CRD
// schema, conversion, webhooks) reads it; then the references are resolved
// as Kueue's cache resolves them.
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "charter/kueue.h"
#include "charter/schedule.h"
#include "common/status_macros.h"
#include "common/strings.h"
#include "cycle/quantity.h"
#include "cycle/tree.h"
#include "kueue/document.h"
#include "kueue/fields.h"
#include "kueue/objects.h"

namespace charter::kueue {
namespace {

namespace ik = internal::kueue;
using ik::Fields;
using ik::Node;
using ik::NodeKind;
using ik::Where;
using internal::Cat;
using internal::CatAppend;

struct RawQuota {
  std::string resource;
  int64_t nominal = 0;
  std::optional<int64_t> borrowing, lending;
};

struct RawFlavorQuotas {
  std::string name;
  Where where;
  std::vector<RawQuota> quotas;
};

struct RawGroup {
  std::vector<std::string> covered;
  std::vector<RawFlavorQuotas> flavors;
};

struct RawCohort {
  std::string name, parent;
  Where where;
  std::vector<RawGroup> groups;
  double weight = 1;
  bool declared = true;
};

struct RawQueue {
  std::string name, cohort;
  Where where;
  schedule::QueueingStrategy strategy = schedule::QueueingStrategy::kBestEffortFIFO;
  std::vector<RawGroup> groups;
  schedule::Preemption preemption;
  schedule::FlavorFungibility fungibility;
  double weight = 1;
  std::string stop_policy = "None";
  std::string implements;  // the annotation charter/implements
};

struct RawLocalQueue {
  std::string namespace_name, name, cluster_queue;
  Where where;
};

class Importer {
 public:
  Importer(const ReadOptions& options, std::vector<Note>* notes) : options_(options), notes_(notes) {}

  absl::Status Read(const Source& source);
  absl::StatusOr<schedule::State> Build(schedule::DeclarationComments* origins);

 private:
  absl::Status ReadFlavor(const ik::Object& o, Fields& f);
  absl::Status ReadCohort(const ik::Object& o, Fields& f);
  absl::Status ReadClusterQueue(const ik::Object& o, Fields& f);
  absl::Status ReadLocalQueue(const ik::Object& o, Fields& f);
  absl::Status ReadPriorityClass(const ik::Object& o, Fields& f);
  absl::Status ReadConfiguration(const ik::Object& o, Fields& f);
  // Kueue's manager reads its Configuration from a ConfigMap
  // (kueue-manager-config, key controller_manager_config.yaml).
  absl::Status ReadConfigMap(const ik::Object& o, const Source& source);
  absl::Status ReadGroups(const Node& spec, Fields& f, bool has_parent, bool is_cohort, std::vector<RawGroup>* out);
  absl::Status ReadFairSharing(const Node& spec, Fields& f, double* weight);
  // Declared once across all sources.
  absl::Status Unique(std::string_view kind, const std::string& name, const Where& where);

  void Note(const Where& w, std::string_view message, bool warning = false) {
    ik::AddNote(notes_, w, message, warning);
  }

  const ReadOptions& options_;
  std::vector<kueue::Note>* notes_;
  std::vector<std::pair<std::string, Where>> flavors_;
  std::vector<RawCohort> cohorts_;
  std::vector<RawQueue> queues_;
  std::vector<RawLocalQueue> local_queues_;
  std::vector<std::pair<schedule::PriorityClass, Where>> classes_;
  std::optional<Where> configuration_;
  schedule::EngineConfig engine_;
  std::map<std::string, Where> seen_;  // "Kind/name" -> where declared
};

absl::Status Importer::Unique(std::string_view kind, const std::string& name, const Where& where) {
  auto [it, inserted] = seen_.try_emplace(Cat(kind, "/", name), where);
  if (inserted) return absl::OkStatus();
  return absl::InvalidArgumentError(where.Message(
      Cat("declared twice (first at ", it->second.source, ":", it->second.line, ":", it->second.col, ")")));
}

absl::Status Importer::Read(const Source& source) {
  ik::DocumentOptions doc_options;
  doc_options.source_name = source.name;
  doc_options.max_input_bytes = options_.max_input_bytes;
  doc_options.max_depth = options_.max_depth;
  doc_options.max_nodes = options_.max_nodes;
  ASSIGN_OR_RETURN(std::vector<Node> docs, ik::ParseDocuments(source.text, doc_options));
  ASSIGN_OR_RETURN(std::vector<ik::Object> objects, ik::Flatten(source.name, docs));
  for (const ik::Object& o : objects) {
    Fields f(source.name, o.Label());
    const Where where = f.At(*o.node);
    if (o.group == ik::kKueueGroup) {
      if (o.version != "v1beta2" && o.version != "v1beta1") {
        return f.Fail(o.At("apiVersion"),
                      Cat("Kueue serves kueue.x-k8s.io/v1beta2 and v1beta1, not `", o.version, "`"));
      }
      if (ik::IsOtherKueueKind(o.kind)) {
        Note(where, Cat("skipped: a ", o.kind, " is not a scheduling declaration"));
        continue;
      }
      if (o.kind == "ResourceFlavor") {
        RETURN_IF_ERROR(ReadFlavor(o, f));
      } else if (o.kind == "Cohort") {
        RETURN_IF_ERROR(ReadCohort(o, f));
      } else if (o.kind == "ClusterQueue") {
        RETURN_IF_ERROR(ReadClusterQueue(o, f));
      } else if (o.kind == "LocalQueue") {
        RETURN_IF_ERROR(ReadLocalQueue(o, f));
      } else if (o.kind == "WorkloadPriorityClass") {
        RETURN_IF_ERROR(ReadPriorityClass(o, f));
      } else {
        return f.Fail(o.At("kind"), Cat("Kueue has no kind `", o.kind, "` in kueue.x-k8s.io"));
      }
    } else if (o.group == ik::kConfigGroup) {
      if (o.version != "v1beta2" && o.version != "v1beta1") {
        return f.Fail(o.At("apiVersion"),
                      Cat("Kueue's configuration is config.kueue.x-k8s.io/v1beta2 or v1beta1, not `", o.version, "`"));
      }
      if (o.kind != "Configuration") {
        return f.Fail(o.At("kind"), Cat("config.kueue.x-k8s.io has only `Configuration`, not `", o.kind, "`"));
      }
      RETURN_IF_ERROR(ReadConfiguration(o, f));
    } else if (o.group.empty() && o.version == "v1" && o.kind == "ConfigMap") {
      RETURN_IF_ERROR(ReadConfigMap(o, source));
    } else {
      Note(where, Cat("skipped: ", o.group.empty() ? "" : Cat(o.group, "/"), o.version, " ", o.kind,
                      " is not one of Kueue's objects"));
    }
  }
  return absl::OkStatus();
}

absl::Status Importer::ReadConfigMap(const ik::Object& o, const Source& source) {
  Fields f(source.name, o.Label());
  const Node* data = o.node->Find("data");
  bool found = false;
  for (size_t i = 0; data != nullptr && data->is_map() && i < data->keys.size(); ++i) {
    const Node& v = data->items[i];
    if (v.kind != NodeKind::kString || v.text.find("config.kueue.x-k8s.io") == std::string::npos) continue;
    found = true;
    // Positions inside a block scalar (`|`) map line for line to the file,
    // shifted by its indentation; inside any other scalar, to the scalar.
    uint32_t indent = 0;
    bool block = false;
    {
      size_t line_start = 0;
      for (uint32_t l = 1; l < v.line && line_start != std::string_view::npos; ++l) {
        line_start = source.text.find('\n', line_start);
        if (line_start != std::string_view::npos) ++line_start;
      }
      if (line_start != std::string_view::npos) {
        size_t at = line_start;
        for (uint32_t c = 1; c < v.col && at < source.text.size(); ++c) ++at;
        block = at < source.text.size() && (source.text[at] == '|' || source.text[at] == '>');
        size_t next = source.text.find('\n', at);
        while (block && next != std::string_view::npos) {
          size_t content = next + 1;
          size_t first = source.text.find_first_not_of(' ', content);
          if (first == std::string_view::npos) break;
          if (source.text[first] == '\n') {
            next = first;
            continue;
          }
          indent = static_cast<uint32_t>(first - content);
          break;
        }
      }
    }
    ik::DocumentOptions doc_options;
    if (block) {
      doc_options.source_name = source.name;
      doc_options.line_shift = v.line;
      doc_options.col_shift = indent;
    } else {
      doc_options.source_name = Cat(source.name, ":", v.line, ":", v.col, ": ", o.Label(), " data.", data->keys[i].key);
    }
    doc_options.max_depth = options_.max_depth;
    doc_options.max_nodes = options_.max_nodes;
    absl::StatusOr<std::vector<Node>> docs = ik::ParseDocuments(v.text, doc_options);
    if (!docs.ok()) return docs.status();
    // Inside any other scalar, everything is at the scalar (an explicit
    // stack walks the tree).
    std::vector<Node*> stack;
    if (!block) {
      for (Node& d : *docs) stack.push_back(&d);
    }
    while (!stack.empty()) {
      Node* n = stack.back();
      stack.pop_back();
      n->line = v.line;
      n->col = v.col;
      for (ik::Member& m : n->keys) m.line = v.line, m.col = v.col;
      for (Node& c : n->items) stack.push_back(&c);
    }
    ASSIGN_OR_RETURN(std::vector<ik::Object> objects, ik::Flatten(source.name, *docs));
    for (const ik::Object& inner : objects) {
      Fields fi(source.name, "Configuration");
      if (inner.group != ik::kConfigGroup || inner.kind != "Configuration" ||
          (inner.version != "v1beta2" && inner.version != "v1beta1")) {
        return fi.Fail(*inner.node, Cat("`data.", data->keys[i].key,
                                        "` must hold a config.kueue.x-k8s.io/v1beta2 or v1beta1 Configuration"));
      }
      RETURN_IF_ERROR(ReadConfiguration(inner, fi));
    }
  }
  if (!found) Note(f.At(*o.node), "skipped: v1 ConfigMap holds no Kueue Configuration");
  return absl::OkStatus();
}

absl::Status Importer::ReadFlavor(const ik::Object& o, Fields& f) {
  RETURN_IF_ERROR(ik::CheckMetadata(o, false, &f));
  const Node& n = *o.node;
  RETURN_IF_ERROR(f.Check(n, "ResourceFlavor", {"apiVersion", "kind", "metadata", "spec"}));
  RETURN_IF_ERROR(Unique("ResourceFlavor", o.name, f.At(n)));
  ASSIGN_OR_RETURN(const Node* spec, f.OptMap(n, "spec", "spec"));
  if (spec != nullptr) {
    RETURN_IF_ERROR(f.Check(*spec, "spec", {"nodeLabels", "nodeTaints", "tolerations", "topologyName"}));
    std::vector<std::pair<std::string, std::string>> labels;
    RETURN_IF_ERROR(f.StringMap(*spec, "nodeLabels", "spec.nodeLabels", &labels));
    if (labels.size() > 8) return f.Fail(*spec->Find("nodeLabels"), "`spec.nodeLabels` has more than 8 labels");
    for (const auto& [k, v] : labels) {
      if (!ik::IsQualifiedName(k)) return f.Fail(*spec->Find("nodeLabels"), Cat("`spec.nodeLabels` has an invalid label key `", k, "`"));
    }
    if (!labels.empty()) {
      Note(f.At(*spec->Find("nodeLabels")), "`spec.nodeLabels` are not in the model: every pod is taken to fit the flavor's nodes");
    }
    ASSIGN_OR_RETURN(const Node* taints, f.OptSeq(*spec, "nodeTaints", "spec.nodeTaints"));
    if (taints != nullptr) {
      if (taints->items.size() > 8) return f.Fail(*taints, "`spec.nodeTaints` has more than 8 taints");
      std::set<std::pair<std::string, std::string>> seen;
      for (const Node& t : taints->items) {
        RETURN_IF_ERROR(f.Check(t, "spec.nodeTaints[]", {"key", "value", "effect", "timeAdded"}));
        ASSIGN_OR_RETURN(std::optional<std::string> key, f.OptString(t, "key", "spec.nodeTaints[].key"));
        if (!key || !ik::IsQualifiedName(*key)) return f.Fail(t, "a node taint needs a valid `key`");
        ASSIGN_OR_RETURN(std::optional<std::string> value, f.OptString(t, "value", "spec.nodeTaints[].value"));
        ASSIGN_OR_RETURN(std::optional<std::string> effect,
                         f.OptEnum(t, "effect", "spec.nodeTaints[].effect", {"NoSchedule", "PreferNoSchedule", "NoExecute"}));
        if (!effect) return f.Fail(t, "a node taint needs an `effect`");
        if (!seen.emplace(*key, *effect).second) return f.Fail(t, Cat("taint `", *key, "` with effect ", *effect, " twice"));
      }
      if (!taints->items.empty()) {
        Note(f.At(*taints), "`spec.nodeTaints` are not in the model: every workload is taken to tolerate them", true);
      }
    }
    ASSIGN_OR_RETURN(const Node* tolerations, f.OptSeq(*spec, "tolerations", "spec.tolerations"));
    if (tolerations != nullptr) {
      if (tolerations->items.size() > 8) return f.Fail(*tolerations, "`spec.tolerations` has more than 8 tolerations");
      for (const Node& t : tolerations->items) {
        RETURN_IF_ERROR(f.Check(t, "spec.tolerations[]", {"key", "operator", "value", "effect", "tolerationSeconds"}));
        ASSIGN_OR_RETURN(std::optional<std::string> op, f.OptEnum(t, "operator", "spec.tolerations[].operator", {"Equal", "Exists"}));
        ASSIGN_OR_RETURN(std::optional<std::string> key, f.OptString(t, "key", "spec.tolerations[].key"));
        ASSIGN_OR_RETURN(std::optional<std::string> value, f.OptString(t, "value", "spec.tolerations[].value"));
        ASSIGN_OR_RETURN(std::optional<std::string> effect, f.OptEnum(t, "effect", "spec.tolerations[].effect",
                                                                     {"NoSchedule", "PreferNoSchedule", "NoExecute"}));
        ASSIGN_OR_RETURN(std::optional<int64_t> seconds,
                         f.OptInt(t, "tolerationSeconds", "spec.tolerations[].tolerationSeconds", INT64_MIN, INT64_MAX));
        if (!key && op.value_or("Equal") != "Exists") return f.Fail(t, "operator must be Exists when 'key' is empty");
        if (seconds && effect.value_or("") != "NoExecute") return f.Fail(t, "effect must be 'NoExecute' when 'tolerationSeconds' is set");
        if (op.value_or("") == "Exists" && value) return f.Fail(t, "a value must be empty when 'operator' is 'Exists'");
      }
      if (!tolerations->items.empty()) {
        Note(f.At(*tolerations), "`spec.tolerations` are not in the model: they are not added to the flavor's workloads");
      }
    }
    ASSIGN_OR_RETURN(std::optional<std::string> topology, f.OptString(*spec, "topologyName", "spec.topologyName"));
    if (topology) {
      RETURN_IF_ERROR(f.DnsSubdomain(*spec->Find("topologyName"), *topology, "spec.topologyName"));
      if (labels.empty()) return f.Fail(*spec->Find("topologyName"), "at least one nodeLabel is required when topology is set");
      Note(f.At(*spec->Find("topologyName")), "topology-aware scheduling is not in the model; `spec.topologyName` is ignored", true);
    }
  }
  flavors_.emplace_back(o.name, f.At(n));
  return absl::OkStatus();
}

absl::Status Importer::ReadFairSharing(const Node& spec, Fields& f, double* weight) {
  ASSIGN_OR_RETURN(const Node* fs, f.OptMap(spec, "fairSharing", "spec.fairSharing"));
  if (fs == nullptr) return absl::OkStatus();
  RETURN_IF_ERROR(f.Check(*fs, "spec.fairSharing", {"weight"}));
  if (const Node* w = fs->Find("weight"); w != nullptr && !w->is_null()) {
    ASSIGN_OR_RETURN(*weight, f.Weight(*w, "spec.fairSharing.weight"));
  }
  return absl::OkStatus();
}

absl::Status Importer::ReadGroups(const Node& spec, Fields& f, bool has_parent, bool is_cohort,
                                  std::vector<RawGroup>* out) {
  ASSIGN_OR_RETURN(const Node* groups, f.OptSeq(spec, "resourceGroups", "spec.resourceGroups"));
  if (groups == nullptr) return absl::OkStatus();
  if (groups->items.size() > 16) return f.Fail(*groups, "`spec.resourceGroups` has more than 16 resource groups");
  std::set<std::string> seen_resources, seen_flavors;
  size_t total_flavors = 0, total_covered = 0;
  for (size_t g = 0; g < groups->items.size(); ++g) {
    const Node& gn = groups->items[g];
    const std::string path = Cat("spec.resourceGroups[", g, "]");
    RETURN_IF_ERROR(f.Check(gn, path, {"coveredResources", "flavors"}));
    RawGroup group;
    ASSIGN_OR_RETURN(const Node* covered, f.OptSeq(gn, "coveredResources", Cat(path, ".coveredResources")));
    if (covered == nullptr || covered->items.empty()) return f.Fail(gn, Cat("`", path, ".coveredResources` needs at least one resource"));
    if (covered->items.size() > 64) return f.Fail(*covered, Cat("`", path, ".coveredResources` has more than 64 resources"));
    for (size_t r = 0; r < covered->items.size(); ++r) {
      const Node& rn = covered->items[r];
      const std::string rpath = Cat(path, ".coveredResources[", r, "]");
      if (rn.kind != NodeKind::kString) return f.Fail(rn, Cat("`", rpath, "` must be a string, not ", rn.KindName()));
      if (!ik::IsQualifiedName(rn.text)) return f.Fail(rn, Cat("`", rpath, "` is not a valid resource name: `", rn.text, "`"));
      if (!seen_resources.insert(rn.text).second) return f.Fail(rn, Cat("`", rpath, "`: duplicate resource `", rn.text, "`"));
      group.covered.push_back(rn.text);
    }
    total_covered += group.covered.size();
    ASSIGN_OR_RETURN(const Node* flavors, f.OptSeq(gn, "flavors", Cat(path, ".flavors")));
    if (flavors == nullptr || flavors->items.empty()) return f.Fail(gn, Cat("`", path, ".flavors` needs at least one flavor"));
    if (flavors->items.size() > 64) return f.Fail(*flavors, Cat("`", path, ".flavors` has more than 64 flavors"));
    size_t combinations = 0;
    for (size_t i = 0; i < flavors->items.size(); ++i) {
      const Node& fn = flavors->items[i];
      const std::string fpath = Cat(path, ".flavors[", i, "]");
      RETURN_IF_ERROR(f.Check(fn, fpath, {"name", "resources"}));
      RawFlavorQuotas fq;
      fq.where = f.At(fn);
      ASSIGN_OR_RETURN(std::optional<std::string> name, f.OptString(fn, "name", Cat(fpath, ".name")));
      if (!name) return f.Fail(fn, Cat("`", fpath, "` has no `name`"));
      RETURN_IF_ERROR(f.DnsSubdomain(*fn.Find("name"), *name, Cat(fpath, ".name")));
      if (!seen_flavors.insert(*name).second) return f.Fail(*fn.Find("name"), Cat("`", fpath, ".name`: duplicate flavor `", *name, "`"));
      fq.name = *name;
      ASSIGN_OR_RETURN(const Node* resources, f.OptSeq(fn, "resources", Cat(fpath, ".resources")));
      if (resources == nullptr || resources->items.empty()) return f.Fail(fn, Cat("`", fpath, ".resources` needs at least one resource"));
      if (resources->items.size() != group.covered.size()) {
        return f.Fail(*resources, Cat("`", fpath, ".resources` has ", resources->items.size(), " resources and `", path,
                                      ".coveredResources` ", group.covered.size(),
                                      ": flavors must have the same number of resources as the coveredResources"));
      }
      combinations += resources->items.size();
      for (size_t r = 0; r < resources->items.size(); ++r) {
        const Node& qn = resources->items[r];
        const std::string qpath = Cat(fpath, ".resources[", r, "]");
        RETURN_IF_ERROR(f.Check(qn, qpath, {"name", "nominalQuota", "borrowingLimit", "lendingLimit"}));
        RawQuota q;
        ASSIGN_OR_RETURN(std::optional<std::string> rname, f.OptString(qn, "name", Cat(qpath, ".name")));
        if (!rname || *rname != group.covered[r]) {
          return f.Fail(qn.Find("name") != nullptr ? *qn.Find("name") : qn,
                        Cat("`", qpath, ".name` must match the name in coveredResources (`", group.covered[r], "`)"));
        }
        q.resource = *rname;
        const Node* nominal = qn.Find("nominalQuota");
        if (nominal == nullptr || nominal->is_null()) return f.Fail(qn, Cat("`", qpath, "` has no `nominalQuota`"));
        ASSIGN_OR_RETURN(q.nominal, f.Quantity(*nominal, q.resource, Cat(qpath, ".nominalQuota")));
        const std::string_view parent_word = is_cohort ? "parent" : "cohort";
        if (const Node* b = qn.Find("borrowingLimit"); b != nullptr && !b->is_null()) {
          ASSIGN_OR_RETURN(q.borrowing, f.Quantity(*b, q.resource, Cat(qpath, ".borrowingLimit")));
          if (!has_parent) return f.Fail(*b, Cat("`", qpath, ".borrowingLimit` must be nil when ", parent_word, " is empty"));
        }
        if (const Node* l = qn.Find("lendingLimit"); l != nullptr && !l->is_null()) {
          ASSIGN_OR_RETURN(q.lending, f.Quantity(*l, q.resource, Cat(qpath, ".lendingLimit")));
          if (!has_parent) return f.Fail(*l, Cat("`", qpath, ".lendingLimit` must be nil when ", parent_word, " is empty"));
          if (!is_cohort && *q.lending > q.nominal) {
            return f.Fail(*l, Cat("`", qpath, ".lendingLimit` must be less than or equal to the nominalQuota"));
          }
        }
        fq.quotas.push_back(std::move(q));
      }
      group.flavors.push_back(std::move(fq));
    }
    if (combinations > 512) return f.Fail(gn, Cat("number of flavor-resource combinations in `", path, "` must be ≤ 512"));
    total_flavors += group.flavors.size();
    out->push_back(std::move(group));
  }
  if (total_flavors > 256) return f.Fail(*groups, "total number of flavors across all resourceGroups must be ≤ 256");
  if (total_covered > 256) return f.Fail(*groups, "total number of covered resources across all resourceGroups must be ≤ 256");
  return absl::OkStatus();
}

absl::Status Importer::ReadCohort(const ik::Object& o, Fields& f) {
  RETURN_IF_ERROR(ik::CheckMetadata(o, false, &f));
  const Node& n = *o.node;
  RETURN_IF_ERROR(f.Check(n, "Cohort", {"apiVersion", "kind", "metadata", "spec", "status"}));
  RETURN_IF_ERROR(Unique("Cohort", o.name, f.At(n)));
  RawCohort c;
  c.name = o.name;
  c.where = f.At(n);
  ASSIGN_OR_RETURN(const Node* spec, f.OptMap(n, "spec", "spec"));
  if (spec != nullptr) {
    RETURN_IF_ERROR(f.Check(*spec, "spec", {"parentName", "resourceGroups", "fairSharing"}));
    ASSIGN_OR_RETURN(std::optional<std::string> parent, f.OptString(*spec, "parentName", "spec.parentName"));
    if (parent && !parent->empty()) {
      RETURN_IF_ERROR(f.DnsSubdomain(*spec->Find("parentName"), *parent, "spec.parentName"));
      c.parent = *parent;
    }
    RETURN_IF_ERROR(ReadFairSharing(*spec, f, &c.weight));
    RETURN_IF_ERROR(ReadGroups(*spec, f, !c.parent.empty(), true, &c.groups));
  }
  cohorts_.push_back(std::move(c));
  return absl::OkStatus();
}

absl::Status Importer::ReadClusterQueue(const ik::Object& o, Fields& f) {
  RETURN_IF_ERROR(ik::CheckMetadata(o, false, &f));
  const Node& n = *o.node;
  const bool v1 = o.version == "v1beta1";
  RETURN_IF_ERROR(f.Check(n, "ClusterQueue", {"apiVersion", "kind", "metadata", "spec", "status"}));
  RETURN_IF_ERROR(Unique("ClusterQueue", o.name, f.At(n)));
  RawQueue q;
  q.name = o.name;
  q.where = f.At(n);
  if (const Node* a = n.Find("metadata")->Find("annotations"); a != nullptr) {
    if (const Node* impl = a->Find("charter/implements"); impl != nullptr && impl->kind == NodeKind::kString) {
      q.implements = impl->text;
    }
  }
  ASSIGN_OR_RETURN(const Node* spec, f.OptMap(n, "spec", "spec"));
  if (spec == nullptr) {
    queues_.push_back(std::move(q));
    return absl::OkStatus();
  }
  if (v1) {
    RETURN_IF_ERROR(f.Check(*spec, "spec",
                            {"resourceGroups", "cohort", "queueingStrategy", "namespaceSelector", "flavorFungibility",
                             "preemption", "admissionChecks", "admissionChecksStrategy", "stopPolicy", "fairSharing",
                             "admissionScope"}));
  } else {
    RETURN_IF_ERROR(f.Check(*spec, "spec",
                            {"resourceGroups", "cohortName", "queueingStrategy", "namespaceSelector",
                             "flavorFungibility", "preemption", "admissionChecksStrategy", "stopPolicy", "fairSharing",
                             "admissionScope", "concurrentAdmissionPolicy"}));
  }
  const std::string cohort_key = v1 ? "cohort" : "cohortName";
  ASSIGN_OR_RETURN(std::optional<std::string> cohort, f.OptString(*spec, cohort_key, Cat("spec.", cohort_key)));
  if (cohort && !cohort->empty()) {
    RETURN_IF_ERROR(f.DnsSubdomain(*spec->Find(cohort_key), *cohort, Cat("spec.", cohort_key)));
    q.cohort = *cohort;
  }
  ASSIGN_OR_RETURN(std::optional<std::string> strategy,
                   f.OptEnum(*spec, "queueingStrategy", "spec.queueingStrategy", {"StrictFIFO", "BestEffortFIFO"}));
  if (strategy.value_or("BestEffortFIFO") == "StrictFIFO") q.strategy = schedule::QueueingStrategy::kStrictFIFO;
  if (const Node* sel = spec->Find("namespaceSelector"); sel != nullptr && !sel->is_null()) {
    RETURN_IF_ERROR(f.Check(*sel, "spec.namespaceSelector", {"matchLabels", "matchExpressions"}));
    std::vector<std::pair<std::string, std::string>> labels;
    RETURN_IF_ERROR(f.StringMap(*sel, "matchLabels", "spec.namespaceSelector.matchLabels", &labels));
    ASSIGN_OR_RETURN(const Node* exprs, f.OptSeq(*sel, "matchExpressions", "spec.namespaceSelector.matchExpressions"));
    if (exprs != nullptr) {
      for (const Node& e : exprs->items) {
        RETURN_IF_ERROR(f.Check(e, "spec.namespaceSelector.matchExpressions[]", {"key", "operator", "values"}));
        ASSIGN_OR_RETURN(std::optional<std::string> op, f.OptEnum(e, "operator", "spec.namespaceSelector.matchExpressions[].operator",
                                                                 {"In", "NotIn", "Exists", "DoesNotExist"}));
        if (!op) return f.Fail(e, "a label selector requirement needs an `operator`");
      }
    }
    if (!labels.empty() || (exprs != nullptr && !exprs->items.empty())) {
      Note(f.At(*sel), "`spec.namespaceSelector` is not in the model: workloads of every namespace may enter the queue");
    }
  }
  // Preemption, with Kueue's defaults for what is left out.
  if (const Node* p = spec->Find("preemption"); p != nullptr && !p->is_null()) {
    RETURN_IF_ERROR(f.Check(*p, "spec.preemption", {"reclaimWithinCohort", "borrowWithinCohort", "withinClusterQueue"}));
    ASSIGN_OR_RETURN(std::optional<std::string> reclaim, f.OptEnum(*p, "reclaimWithinCohort", "spec.preemption.reclaimWithinCohort",
                                                                  {"Never", "LowerPriority", "Any"}));
    ASSIGN_OR_RETURN(std::optional<std::string> within,
                     f.OptEnum(*p, "withinClusterQueue", "spec.preemption.withinClusterQueue",
                               {"Never", "LowerPriority", "LowerOrNewerEqualPriority"}));
    auto policy = [](const std::string& s) {
      if (s == "LowerPriority") return schedule::PreemptionPolicy::kLowerPriority;
      if (s == "LowerOrNewerEqualPriority") return schedule::PreemptionPolicy::kLowerOrNewerEqualPriority;
      if (s == "Any") return schedule::PreemptionPolicy::kAny;
      return schedule::PreemptionPolicy::kNever;
    };
    q.preemption.reclaim_within_cohort = policy(reclaim.value_or("Never"));
    q.preemption.within_cluster_queue = policy(within.value_or("Never"));
    ASSIGN_OR_RETURN(const Node* b, f.OptMap(*p, "borrowWithinCohort", "spec.preemption.borrowWithinCohort"));
    if (b != nullptr) {
      RETURN_IF_ERROR(f.Check(*b, "spec.preemption.borrowWithinCohort", {"policy", "maxPriorityThreshold"}));
      ASSIGN_OR_RETURN(std::optional<std::string> bp, f.OptEnum(*b, "policy", "spec.preemption.borrowWithinCohort.policy",
                                                               {"Never", "LowerPriority"}));
      q.preemption.borrow_within_cohort = policy(bp.value_or("Never"));
      ASSIGN_OR_RETURN(std::optional<int64_t> threshold,
                       f.OptInt(*b, "maxPriorityThreshold", "spec.preemption.borrowWithinCohort.maxPriorityThreshold",
                                INT32_MIN, INT32_MAX));
      q.preemption.max_priority_threshold = threshold;
    }
    if (q.preemption.reclaim_within_cohort == schedule::PreemptionPolicy::kNever &&
        q.preemption.borrow_within_cohort != schedule::PreemptionPolicy::kNever) {
      return f.Fail(*p, "reclaimWithinCohort=Never and borrowWithinCohort.Policy!=Never");
    }
  }
  if (const Node* ff = spec->Find("flavorFungibility"); ff != nullptr && !ff->is_null()) {
    RETURN_IF_ERROR(f.Check(*ff, "spec.flavorFungibility", {"whenCanBorrow", "whenCanPreempt", "preference"}));
    std::optional<std::string> borrow, preempt;
    if (v1) {
      ASSIGN_OR_RETURN(borrow, f.OptEnum(*ff, "whenCanBorrow", "spec.flavorFungibility.whenCanBorrow",
                                         {"MayStopSearch", "TryNextFlavor", "Borrow"}));
      ASSIGN_OR_RETURN(preempt, f.OptEnum(*ff, "whenCanPreempt", "spec.flavorFungibility.whenCanPreempt",
                                          {"MayStopSearch", "TryNextFlavor", "Preempt"}));
    } else {
      ASSIGN_OR_RETURN(borrow, f.OptEnum(*ff, "whenCanBorrow", "spec.flavorFungibility.whenCanBorrow",
                                         {"MayStopSearch", "TryNextFlavor"}));
      ASSIGN_OR_RETURN(preempt, f.OptEnum(*ff, "whenCanPreempt", "spec.flavorFungibility.whenCanPreempt",
                                          {"MayStopSearch", "TryNextFlavor"}));
    }
    // v1beta1's Borrow and Preempt convert to MayStopSearch.
    q.fungibility.when_can_borrow = borrow.value_or("MayStopSearch") == "TryNextFlavor"
                                        ? schedule::FungibilityPolicy::kTryNextFlavor
                                        : schedule::FungibilityPolicy::kMayStopSearch;
    q.fungibility.when_can_preempt = preempt.value_or("TryNextFlavor") == "TryNextFlavor"
                                         ? schedule::FungibilityPolicy::kTryNextFlavor
                                         : schedule::FungibilityPolicy::kMayStopSearch;
    ASSIGN_OR_RETURN(std::optional<std::string> pref, f.OptEnum(*ff, "preference", "spec.flavorFungibility.preference",
                                                               {"BorrowingOverPreemption", "PreemptionOverBorrowing"}));
    if (pref) {
      if (q.fungibility.when_can_borrow != schedule::FungibilityPolicy::kTryNextFlavor ||
          q.fungibility.when_can_preempt != schedule::FungibilityPolicy::kTryNextFlavor) {
        return f.Fail(*ff->Find("preference"),
                      Cat("preference \"", *pref, "\" requires both whenCanBorrow and whenCanPreempt to be TryNextFlavor"));
      }
      q.fungibility.preference = *pref == "BorrowingOverPreemption"
                                     ? schedule::FungibilityPreference::kBorrowingOverPreemption
                                     : schedule::FungibilityPreference::kPreemptionOverBorrowing;
    }
  }
  if (v1) {
    ASSIGN_OR_RETURN(const Node* checks, f.OptSeq(*spec, "admissionChecks", "spec.admissionChecks"));
    if (checks != nullptr && !checks->items.empty()) {
      Note(f.At(*checks), "admission checks are not in the model: `spec.admissionChecks` is ignored", true);
    }
  }
  if (const Node* s = spec->Find("admissionChecksStrategy"); s != nullptr && !s->is_null()) {
    RETURN_IF_ERROR(f.Check(*s, "spec.admissionChecksStrategy", {"admissionChecks"}));
    Note(f.At(*s), "admission checks are not in the model: `spec.admissionChecksStrategy` is ignored", true);
  }
  ASSIGN_OR_RETURN(std::optional<std::string> stop,
                   f.OptEnum(*spec, "stopPolicy", "spec.stopPolicy", {"None", "Hold", "HoldAndDrain"}));
  q.stop_policy = stop.value_or("None");
  RETURN_IF_ERROR(ReadFairSharing(*spec, f, &q.weight));
  if (const Node* s = spec->Find("admissionScope"); s != nullptr && !s->is_null()) {
    RETURN_IF_ERROR(f.Check(*s, "spec.admissionScope", {"admissionMode"}));
    ASSIGN_OR_RETURN(std::optional<std::string> mode,
                     f.OptEnum(*s, "admissionMode", "spec.admissionScope.admissionMode",
                               {"UsageBasedAdmissionFairSharing", "NoAdmissionFairSharing"}));
    if (mode.value_or("") == "UsageBasedAdmissionFairSharing") {
      Note(f.At(*s), "admission fair sharing is not in the model: `spec.admissionScope` is ignored", true);
    }
  }
  if (const Node* c = spec->Find("concurrentAdmissionPolicy"); c != nullptr && !c->is_null()) {
    Note(f.At(*c), "`spec.concurrentAdmissionPolicy` is not in the model; ignored", true);
  }
  RETURN_IF_ERROR(ReadGroups(*spec, f, !q.cohort.empty(), false, &q.groups));
  queues_.push_back(std::move(q));
  return absl::OkStatus();
}

absl::Status Importer::ReadLocalQueue(const ik::Object& o, Fields& f) {
  RETURN_IF_ERROR(ik::CheckMetadata(o, true, &f));
  const Node& n = *o.node;
  RETURN_IF_ERROR(f.Check(n, "LocalQueue", {"apiVersion", "kind", "metadata", "spec", "status"}));
  RETURN_IF_ERROR(Unique("LocalQueue", Cat(o.namespace_name, "/", o.name), f.At(n)));
  RawLocalQueue lq;
  lq.namespace_name = o.namespace_name;
  lq.name = o.name;
  lq.where = f.At(n);
  ASSIGN_OR_RETURN(const Node* spec, f.OptMap(n, "spec", "spec"));
  if (spec != nullptr) {
    RETURN_IF_ERROR(f.Check(*spec, "spec", {"clusterQueue", "stopPolicy", "fairSharing"}));
    ASSIGN_OR_RETURN(std::optional<std::string> cq, f.OptString(*spec, "clusterQueue", "spec.clusterQueue"));
    if (cq) {
      RETURN_IF_ERROR(f.DnsSubdomain(*spec->Find("clusterQueue"), *cq, "spec.clusterQueue"));
      lq.cluster_queue = *cq;
    }
    ASSIGN_OR_RETURN(std::optional<std::string> stop,
                     f.OptEnum(*spec, "stopPolicy", "spec.stopPolicy", {"None", "Hold", "HoldAndDrain"}));
    if (stop.value_or("None") != "None") {
      Note(f.At(*spec->Find("stopPolicy")),
           Cat("`spec.stopPolicy: ", *stop, "` is not in the model: its workloads are scheduled as if it were None"), true);
    }
    double weight = 1;
    RETURN_IF_ERROR(ReadFairSharing(*spec, f, &weight));
    if (spec->Find("fairSharing") != nullptr) {
      Note(f.At(*spec->Find("fairSharing")), "admission fair sharing is not in the model: `spec.fairSharing` is ignored");
    }
  }
  if (lq.cluster_queue.empty()) {
    Note(lq.where, "skipped: it names no `spec.clusterQueue`", true);
    return absl::OkStatus();
  }
  local_queues_.push_back(std::move(lq));
  return absl::OkStatus();
}

absl::Status Importer::ReadPriorityClass(const ik::Object& o, Fields& f) {
  RETURN_IF_ERROR(ik::CheckMetadata(o, false, &f));
  const Node& n = *o.node;
  RETURN_IF_ERROR(f.Check(n, "WorkloadPriorityClass", {"apiVersion", "kind", "metadata", "value", "description"}));
  RETURN_IF_ERROR(Unique("WorkloadPriorityClass", o.name, f.At(n)));
  ASSIGN_OR_RETURN(std::optional<int64_t> value, f.OptInt(n, "value", "value", INT32_MIN, INT32_MAX));
  if (!value) return f.Fail(n, "a WorkloadPriorityClass needs a `value`");
  ASSIGN_OR_RETURN(std::optional<std::string> description, f.OptString(n, "description", "description"));
  if (description && description->size() > 2048) return f.Fail(*n.Find("description"), "`description` is longer than 2048");
  if (description && !description->empty()) Note(f.At(*n.Find("description")), "`description` is not in the model");
  classes_.emplace_back(schedule::PriorityClass{o.name, *value}, f.At(n));
  return absl::OkStatus();
}

absl::Status Importer::ReadConfiguration(const ik::Object& o, Fields& f) {
  const Node& n = *o.node;
  f.set_object("Configuration");
  const bool v1 = o.version == "v1beta1";
  std::vector<std::string_view> keys = {"apiVersion", "kind", "namespace", "manageJobsWithoutQueueName",
                                        "managedJobsNamespaceSelector", "internalCertManagement", "waitForPodsReady",
                                        "clientConnection", "integrations", "multiKueue", "fairSharing",
                                        "admissionFairSharing", "resources", "featureGates", "objectRetentionPolicies",
                                        "webhook", "leaderElection", "metrics", "health", "pprofBindAddress",
                                        "controller", "tls"};
  keys.push_back(v1 ? "queueVisibility" : "visibilityServer");
  RETURN_IF_ERROR(f.Check(n, "Configuration", keys));
  if (configuration_) {
    return f.Fail(n, Cat("a second Configuration (the first is at ", configuration_->source, ":", configuration_->line,
                         ":", configuration_->col, ")"));
  }
  configuration_ = f.At(n);
  ASSIGN_OR_RETURN(const Node* fs, f.OptMap(n, "fairSharing", "fairSharing"));
  if (fs != nullptr) {
    RETURN_IF_ERROR(f.Check(*fs, "fairSharing", v1 ? std::vector<std::string_view>{"enable", "preemptionStrategies"}
                                                    : std::vector<std::string_view>{"preemptionStrategies"}));
    bool enabled = true;
    if (v1) {
      ASSIGN_OR_RETURN(std::optional<bool> enable, f.OptBool(*fs, "enable", "fairSharing.enable"));
      enabled = enable.value_or(false);
    }
    ASSIGN_OR_RETURN(const Node* strategies, f.OptSeq(*fs, "preemptionStrategies", "fairSharing.preemptionStrategies"));
    std::vector<schedule::FairSharingStrategy> list;
    if (strategies != nullptr) {
      for (const Node& s : strategies->items) {
        if (s.kind == NodeKind::kString && s.text == "LessThanOrEqualToFinalShare") {
          list.push_back(schedule::FairSharingStrategy::kLessThanOrEqualToFinalShare);
        } else if (s.kind == NodeKind::kString && s.text == "LessThanInitialShare") {
          list.push_back(schedule::FairSharingStrategy::kLessThanInitialShare);
        } else {
          return f.Fail(s, "a preemption strategy is `LessThanOrEqualToFinalShare` or `LessThanInitialShare`");
        }
      }
    }
    if (enabled) {
      if (list.empty()) {
        // v1beta1 converts an empty list to the default; v1beta2 requires one.
        if (!v1) return f.Fail(*fs, "`fairSharing.preemptionStrategies` must be specified");
        list = {schedule::FairSharingStrategy::kLessThanOrEqualToFinalShare,
                schedule::FairSharingStrategy::kLessThanInitialShare};
      }
      const bool ok = list.size() == 1 ||
                      (list.size() == 2 && list[0] == schedule::FairSharingStrategy::kLessThanOrEqualToFinalShare &&
                       list[1] == schedule::FairSharingStrategy::kLessThanInitialShare);
      if (!ok) {
        return f.Fail(*strategies, "`fairSharing.preemptionStrategies` must be [LessThanOrEqualToFinalShare], "
                                   "[LessThanInitialShare] or [LessThanOrEqualToFinalShare, LessThanInitialShare]");
      }
      engine_.fair_sharing = true;
      engine_.fair_sharing_strategies = std::move(list);
    }
  }
  if (const Node* afs = n.Find("admissionFairSharing"); afs != nullptr && !afs->is_null()) {
    Note(f.At(*afs), "admission fair sharing is not in the model: `admissionFairSharing` is ignored", true);
  }
  if (const Node* r = n.Find("resources"); r != nullptr && !r->is_null()) {
    Note(f.At(*r), "`resources` (excluded prefixes, transformations) is not in the model: requests are counted as written",
         true);
  }
  // The manager's own settings (ports, leader election, integrations...)
  // declare nothing about scheduling: said once, not dropped silently.
  std::string settings;
  for (size_t i = 0; i < n.keys.size(); ++i) {
    const std::string& k = n.keys[i].key;
    if (k == "apiVersion" || k == "kind" || k == "fairSharing" || k == "admissionFairSharing" || k == "resources") continue;
    CatAppend(&settings, settings.empty() ? "" : ", ", "`", k, "`");
  }
  if (!settings.empty()) {
    Note(f.At(n), Cat("the manager's own settings are not scheduling declarations and are not imported: ", settings));
  }
  return absl::OkStatus();
}

// "from FILE:LINE (Kind name)" for a declaring object; "named by Kind
// name at FILE:LINE; no KIND declares it" for a name only referred to.
std::string From(const Where& w) { return Cat("from ", w.source, ":", w.line, " (", w.object, ")"); }
std::string NamedBy(const Where& w, std::string_view kind) {
  return Cat("named by ", w.object, " at ", w.source, ":", w.line, "; no ", kind, " declares it");
}

absl::StatusOr<schedule::State> Importer::Build(schedule::DeclarationComments* origins) {
  schedule::State state;
  state.engine = engine_;
  if (configuration_) origins->scheduler = From(*configuration_);
  std::map<std::string, int> flavor_index, resource_index, cohort_index, queue_index;
  for (const auto& [name, where] : flavors_) {
    flavor_index[name] = static_cast<int>(state.flavors.size());
    state.flavors.push_back(name);
    origins->flavors.push_back(From(where));
  }
  auto resource = [&](const std::string& name) {
    auto [it, inserted] = resource_index.try_emplace(name, static_cast<int>(state.resources.size()));
    if (inserted) state.resources.push_back(name);
    return it->second;
  };
  std::vector<int64_t> totals;
  // A quota tree's sums must fit in 64 bits, as schedule::LoadState checks.
  auto convert_groups = [&](const std::vector<RawGroup>& raw, std::vector<schedule::ResourceGroup>* out,
                            bool is_cohort) -> absl::Status {
    for (const RawGroup& g : raw) {
      schedule::ResourceGroup group;
      for (const std::string& r : g.covered) group.covered_resources.push_back(resource(r));
      for (const RawFlavorQuotas& fq : g.flavors) {
        schedule::FlavorQuotas q;
        q.flavor = flavor_index.at(fq.name);
        for (const RawQuota& rq : fq.quotas) {
          schedule::ResourceQuota quota;
          quota.resource = resource(rq.resource);
          quota.nominal = rq.nominal;
          quota.borrowing_limit = rq.borrowing;
          quota.lending_limit = rq.lending;
          // Kueue lets a cohort lend more than its own quota (its subtree's);
          // the model, and so its declarations, do not: refused, not clamped.
          if (is_cohort && rq.lending && *rq.lending > rq.nominal) {
            return absl::InvalidArgumentError(fq.where.Message(
                Cat("the lending limit of `", rq.resource,
                    "` is above the cohort's nominal quota: Kueue allows it, the model does not")));
          }
          int64_t reach = 0;
          if (rq.borrowing && __builtin_add_overflow(rq.nominal, *rq.borrowing, &reach)) {
            return absl::InvalidArgumentError(fq.where.Message(
                Cat("the nominal quota and the borrowing limit of `", rq.resource, "` add up to more than 2^63-1")));
          }
          if (totals.size() <= static_cast<size_t>(quota.resource)) totals.resize(quota.resource + 1, 0);
          if (__builtin_add_overflow(totals[quota.resource], rq.nominal, &totals[quota.resource])) {
            return absl::InvalidArgumentError(
                fq.where.Message(Cat("the nominal quotas of `", rq.resource, "` add up to more than 2^63-1")));
          }
          q.resources.push_back(quota);
        }
        group.flavors.push_back(std::move(q));
      }
      out->push_back(std::move(group));
    }
    return absl::OkStatus();
  };
  // Cohorts: the declared ones, then those only named (implicit roots).
  std::vector<RawCohort> cohorts = cohorts_;
  std::set<std::string> declared;
  for (const RawCohort& c : cohorts) declared.insert(c.name);
  auto implicit = [&](const std::string& name, const Where& where) {
    if (name.empty() || declared.count(name) != 0) return;
    declared.insert(name);
    RawCohort c;
    c.name = name;
    c.where = where;
    c.declared = false;
    cohorts.push_back(std::move(c));
  };
  for (size_t i = 0; i < cohorts_.size(); ++i) implicit(cohorts_[i].parent, cohorts_[i].where);
  for (const RawQueue& q : queues_) implicit(q.cohort, q.where);
  // A cohort whose chain of parents reaches a cycle is inactive in Kueue,
  // with every queue under it.
  // Each cohort is walked once: a walk up from a cohort stops at a root (no
  // cohort on it is under a cycle), at a cohort already settled (all take
  // its answer) or at one on the walk itself (a cycle: all are in or under
  // it). Walking to the root from every cohort was quadratic in a chain.
  std::map<std::string, size_t> by_name;
  for (size_t i = 0; i < cohorts.size(); ++i) by_name[cohorts[i].name] = i;
  enum : uint8_t { kNew, kOnWalk, kFree, kCyclic };
  std::vector<uint8_t> mark(cohorts.size(), kNew);
  std::vector<size_t> walk;
  for (size_t start = 0; start < cohorts.size(); ++start) {
    walk.clear();
    uint8_t answer = kFree;
    size_t at = by_name.at(cohorts[start].name);
    while (true) {
      if (mark[at] == kFree || mark[at] == kCyclic) {
        answer = mark[at];
        break;
      }
      if (mark[at] == kOnWalk) {
        answer = kCyclic;
        break;
      }
      mark[at] = kOnWalk;
      walk.push_back(at);
      auto it = cohorts[at].parent.empty() ? by_name.end() : by_name.find(cohorts[at].parent);
      if (it == by_name.end()) break;
      at = it->second;
    }
    for (size_t w : walk) mark[w] = answer;
  }
  std::set<std::string> in_cycle;
  for (size_t i = 0; i < cohorts.size(); ++i) {
    if (mark[by_name.at(cohorts[i].name)] == kCyclic) in_cycle.insert(cohorts[i].name);
  }
  for (const RawCohort& c : cohorts) {
    if (in_cycle.count(c.name) != 0) {
      Note(c.where, Cat("cohort `", c.name, "` is in or under a cycle of parents: Kueue keeps it and its queues inactive; "
                        "left out"), true);
      continue;
    }
    cohort_index[c.name] = static_cast<int>(state.cohorts.size());
    schedule::Cohort cohort;
    cohort.name = c.name;
    cohort.fair_weight = c.weight;
    state.cohorts.push_back(std::move(cohort));
    origins->cohorts.push_back(c.declared ? From(c.where) : NamedBy(c.where, "Cohort"));
  }
  for (const RawCohort& c : cohorts) {
    auto it = cohort_index.find(c.name);
    if (it == cohort_index.end()) continue;
    schedule::Cohort& cohort = state.cohorts[it->second];
    if (!c.parent.empty()) cohort.parent = cohort_index.at(c.parent);
    for (const RawGroup& g : c.groups) {
      for (const RawFlavorQuotas& fq : g.flavors) {
        if (flavor_index.count(fq.name) == 0) {
          // Kueue's cohorts do not check their flavors; the model needs
          // each one declared.
          Note(fq.where, Cat("flavor `", fq.name, "` is declared by no ResourceFlavor; added"), true);
          flavor_index[fq.name] = static_cast<int>(state.flavors.size());
          state.flavors.push_back(fq.name);
          origins->flavors.push_back(NamedBy(fq.where, "ResourceFlavor"));
        }
      }
    }
    RETURN_IF_ERROR(convert_groups(c.groups, &cohort.resource_groups, true));
  }
  for (const RawQueue& q : queues_) {
    std::string missing;
    for (const RawGroup& g : q.groups) {
      for (const RawFlavorQuotas& fq : g.flavors) {
        if (flavor_index.count(fq.name) == 0) CatAppend(&missing, missing.empty() ? "" : ", ", "`", fq.name, "`");
      }
    }
    if (!missing.empty()) {
      Note(q.where, Cat("no ResourceFlavor declares ", missing, ": Kueue keeps the queue inactive (FlavorNotFound); left out"),
           true);
      continue;
    }
    if (q.stop_policy != "None") {
      Note(q.where, Cat("`spec.stopPolicy: ", q.stop_policy, "`: Kueue keeps the queue inactive (Stopped); left out"), true);
      continue;
    }
    if (!q.cohort.empty() && cohort_index.count(q.cohort) == 0) {
      Note(q.where, Cat("its cohort `", q.cohort, "` is in or under a cycle: Kueue keeps the queue inactive; left out"), true);
      continue;
    }
    queue_index[q.name] = static_cast<int>(state.cluster_queues.size());
    schedule::ClusterQueue cq;
    cq.name = q.name;
    cq.cohort = q.cohort.empty() ? -1 : cohort_index.at(q.cohort);
    cq.queueing_strategy = q.strategy;
    cq.preemption = q.preemption;
    cq.flavor_fungibility = q.fungibility;
    cq.fair_weight = q.weight;
    cq.implements = q.implements;
    RETURN_IF_ERROR(convert_groups(q.groups, &cq.resource_groups, false));
    state.cluster_queues.push_back(std::move(cq));
    origins->cluster_queues.push_back(From(q.where));
  }
  for (const RawLocalQueue& lq : local_queues_) {
    auto it = queue_index.find(lq.cluster_queue);
    if (it == queue_index.end()) {
      bool exists = std::any_of(queues_.begin(), queues_.end(), [&](const RawQueue& q) { return q.name == lq.cluster_queue; });
      Note(lq.where, Cat("its cluster queue `", lq.cluster_queue, "` is ", exists ? "inactive" : "not declared",
                         ": its workloads cannot be admitted; left out"), true);
      continue;
    }
    state.local_queues.push_back(schedule::LocalQueue{lq.namespace_name, lq.name, it->second});
    origins->local_queues.push_back(From(lq.where));
  }
  for (const auto& [pc, where] : classes_) {
    state.priority_classes.push_back(pc);
    origins->priority_classes.push_back(From(where));
  }
  if (std::string error = internal::schedule::QuotaCellsError(state, options_.max_quota_cells); !error.empty()) {
    return absl::InvalidArgumentError(error);
  }
  return state;
}

}  // namespace

absl::StatusOr<Imported> ImportKueue(const std::vector<Source>& sources, const ReadOptions& options) {
  Imported out;
  Importer importer(options, &out.notes);
  for (const Source& s : sources) RETURN_IF_ERROR(importer.Read(s));
  ASSIGN_OR_RETURN(out.state, importer.Build(&out.origins));
  return out;
}

}  // namespace charter::kueue
