// Kueue's own Kubernetes objects in and out of the scheduling model.
//
// A cluster that runs Kueue holds its scheduling configuration as objects:
// ResourceFlavors, Cohorts, ClusterQueues, LocalQueues, WorkloadPriorityClasses
// (API group kueue.x-k8s.io, versions v1beta2 and v1beta1) and the manager's
// Configuration (config.kueue.x-k8s.io). ImportKueue reads them as `kubectl get
// -o yaml` prints them (YAML with several documents, `kind: List`, or JSON)
// into a charter::schedule::State; ExportKueue writes a State back as objects
// that `kubectl apply` accepts:
//
//   std::vector<charter::kueue::Source> files = {{"cluster.yaml", text}};
//   absl::StatusOr<charter::kueue::Imported> in = charter::kueue::ImportKueue(files);
//   for (const charter::kueue::Note& n : in->notes) log(n.message);
//   absl::StatusOr<charter::kueue::Exported> out = charter::kueue::ExportKueue(in->state);
//   write(out->text);
//
// ReadKueueWorkloads adds Kueue Workload objects to a State as the workloads
// of a cycle: one with `status.admission` holds quota with its assigned
// flavors, one without waits. ReadObjectsAsJson reads Kubernetes objects of
// any kind as JSON (for `charter admit`). ExportHyperPod writes a State as the requests
// of SageMaker HyperPod task governance (the reverse of
// schedule::LoadHyperPodState). docs/scheduling.md gives every mapping.
//
// Faults in the input are InvalidArgument errors reading
// "FILE:LINE:COL: message" that name the object (`ClusterQueue team-a`);
// what is read but has no place in the model, or is skipped, is a Note.
#ifndef CHARTER_KUEUE_H_
#define CHARTER_KUEUE_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "charter/export.h"
#include "charter/schedule.h"

namespace charter::kueue {

// One input file: its name (for messages) and its text.
struct Source {
  std::string name;
  std::string_view text;
};

// Something read that the model does not hold, a skipped object, or what a
// translation cannot express. `message` reads "FILE:LINE:COL: ..." when it
// concerns a place in an input.
struct Note {
  enum class Severity : uint8_t { kNote, kWarning };
  Severity severity = Severity::kNote;
  std::string message;
};

struct ReadOptions {
  size_t max_input_bytes = size_t{1} << 30;  // per source
  int max_depth = 100;                       // nesting of YAML/JSON values
  size_t max_nodes = size_t{1} << 22;        // values in one source
  // As schedule::LoadOptions::max_quota_cells.
  uint64_t max_quota_cells = schedule::kDefaultMaxQuotaCells;
};

struct Imported {
  schedule::State state;
  std::vector<Note> notes;
  // Where each declaration of `state` comes from, for PrintDeclarations:
  // `from cluster.yaml:12 (ClusterQueue team-a)`, or, for a cohort or flavor
  // that no object declares, the object that names it.
  schedule::DeclarationComments origins;
};

// Reads Kueue's declaration objects from every source into one State:
// flavors, cohorts (an unknown parent, or a cluster queue's cohort that no
// Cohort declares, is an implicit root, as in Kueue), cluster queues, local
// queues, priority classes and the Configuration's fair sharing. As in
// Kueue, a cluster queue that names a flavor no ResourceFlavor declares, or
// whose cohort tree has a cycle, is inactive: it is left out of the State
// (with its local queues), with a warning. Objects of other API groups and
// Kueue kinds that are not declarations (Workload, AdmissionCheck, ...) are
// skipped with a note. Kinds or versions Kueue does not have, fields its
// API does not have, and values its API validation refuses are errors.
CHARTER_API absl::StatusOr<Imported> ImportKueue(const std::vector<Source>& sources,
                                                 const ReadOptions& options = {});

enum class ApiVersion : uint8_t { kV1beta2, kV1beta1 };

struct ExportOptions {
  ApiVersion version = ApiVersion::kV1beta2;
  // Also write the manager's Configuration (config.kueue.x-k8s.io, in the
  // same version) with its fair sharing.
  bool configuration = true;
};

struct Exported {
  std::string text;  // YAML documents separated by `---`
  std::vector<Note> notes;
};

// The State's declarations as Kueue objects, every default explicit:
// ResourceFlavors, Cohorts (parents first), ClusterQueues, LocalQueues,
// WorkloadPriorityClasses, then the Configuration. Workloads are not
// written. Fails on a State that schedule::LoadState would refuse.
CHARTER_API absl::StatusOr<Exported> ExportKueue(const schedule::State& state,
                                                 const ExportOptions& options = {});

struct WorkloadOptions {
  std::string source_name = "workloads.yaml";
  // The time of the cycle, in seconds since the Unix epoch: a Workload's
  // metadata.creationTimestamp becomes created_at = creation - now, and the
  // QuotaReserved condition's time quota_reserved_at. Unset: the latest of
  // those times in the input (so that the newest workload is created at 0).
  std::optional<double> now;
  ReadOptions read;
};

// Adds Kueue Workload objects (v1beta2 or v1beta1; YAML with several
// documents, `kind: List`, or JSON) to `state` as admitted (with
// status.admission: its cluster queue and flavors) or pending workloads.
// spec.queueName resolves through the State's local queues in the
// Workload's namespace. The priority is spec.priority, or, when unset, the
// value of the WorkloadPriorityClass it names (0 without one); a Kubernetes
// PriorityClass (scheduling.k8s.io) is not in the model, so spec.priority
// alone counts, as in Kueue's scheduler. A pod set's per-pod requests are
// Kubernetes' effective pod requests: the containers' and sidecars' sum,
// or the largest init container if more, pod-level requests where set,
// plus the pod overhead; a limit without a request counts as the request.
// On error `state` is unchanged.
CHARTER_API absl::Status ReadKueueWorkloads(std::string_view text, const WorkloadOptions& options,
                                            schedule::State* state, std::vector<Note>* notes);

// A Kubernetes object of any kind, as JSON (ReadObjectsAsJson).
struct ObjectJson {
  std::string json;  // the object, one line of JSON
  std::string group;    // "" for the core group ("v1")
  std::string version;  // "v1"
  std::string kind;     // "Pod"
  std::string name, namespace_name;  // metadata's ("" when absent)
  uint32_t line = 1, column = 1;     // where the object starts in its source
};

// The Kubernetes objects of any kind in `source` (YAML with one or several
// documents, or JSON; every item of a `kind: List`, or of a typed list such
// as PodList, as kubectl prints them), each written as JSON the way the
// apiserver reads YAML: scalars typed as YAML 1.1 types them (`yes` is
// true, `0x1F` is 31, `08` is 8), and the apiVersion and kind a typed list
// gives its items written into them. JSON's own numbers are kept as written.
// `charter admit` decides these objects as the apiserver would send them to
// a webhook. Faults read "FILE:LINE:COL: message": malformed text, a
// document that is not an object, or has no apiVersion or kind, a value
// with no JSON form (`.inf`).
CHARTER_API absl::StatusOr<std::vector<ObjectJson>> ReadObjectsAsJson(const Source& source,
                                                                      const ReadOptions& options = {});

// Whether `text` looks like Kueue Workload objects rather than the state
// JSON of docs/scheduling.md: YAML, or JSON whose top level has `kind` or
// `apiVersion`.
CHARTER_API bool LooksLikeKueueObjects(std::string_view text);

// An RFC 3339 time as Kubernetes writes it (2026-01-02T03:04:05Z, with an
// optional fraction and a Z or ±hh:mm offset), in seconds since the Unix
// epoch; nullopt when `text` is not one.
CHARTER_API std::optional<double> ParseTime(std::string_view text);

// The State in the JSON form of docs/scheduling.md, which schedule::LoadState
// reads back into an equal State.
CHARTER_API std::string WriteStateJson(const schedule::State& state);

struct HyperPodExportOptions {
  // The ClusterArn that every request names.
  std::string cluster_arn = "arn:aws:sagemaker:REGION:ACCOUNT:cluster/CLUSTER";
  std::string scheduler_config_name = "charter-scheduler-config";
};

// The State as the requests of SageMaker HyperPod task governance:
// {"ClusterSchedulerConfig": CreateClusterSchedulerConfig's request,
//  "ComputeQuotas": [CreateComputeQuota's request, one a cluster queue]}.
// What HyperPod cannot express (cohort trees and cohort quota, per-resource
// borrowing limits that are not one percentage, lending limits other than
// 0 or none, reclaim and borrow-within-cohort policies, StrictFIFO, flavor
// fungibility, several resource groups) is said in a note, and the nearest
// HyperPod setting is written.
CHARTER_API absl::StatusOr<Exported> ExportHyperPod(const schedule::State& state,
                                                    const HyperPodExportOptions& options = {});

}  // namespace charter::kueue

#endif  // CHARTER_KUEUE_H_
