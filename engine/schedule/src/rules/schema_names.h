// The names of stdlib/scheduling.cedarschema that the cycle's entities and
// contexts use: entity types, attributes, actions, context fields, and the
// labels that carry the governance model's workload type and data
// classification. tests/schedule/rules keeps this file and the schema in
// step (every attribute the cycle writes is declared, and every declared
// attribute is written).
#ifndef CHARTER_RULES_SCHEMA_NAMES_H_
#define CHARTER_RULES_SCHEMA_NAMES_H_

#include <string_view>

namespace charter::internal::schedule::names {

// Entity types.
inline constexpr std::string_view kActionType = "Scheduling::Action";
inline constexpr std::string_view kCohortType = "Scheduling::Cohort";
inline constexpr std::string_view kQueueType = "Scheduling::ClusterQueue";
inline constexpr std::string_view kNamespaceType = "Scheduling::Namespace";
inline constexpr std::string_view kPriorityClassType = "Scheduling::PriorityClass";
inline constexpr std::string_view kWorkloadEntityType = "Scheduling::Workload";
inline constexpr std::string_view kRequestsType = "Scheduling::Requests";
inline constexpr std::string_view kAnnotationsType = "Scheduling::Annotations";
inline constexpr std::string_view kWorkloadTypeType = "Governance::WorkloadType";
inline constexpr std::string_view kDataClassificationType = "Governance::DataClassification";

// Actions.
inline constexpr std::string_view kAdmit = "admit";
inline constexpr std::string_view kBorrow = "borrow";
inline constexpr std::string_view kPreempt = "preempt";
inline constexpr std::string_view kEvict = "evict";

// Entity attributes.
inline constexpr std::string_view kName = "name";
inline constexpr std::string_view kParent = "parent";
inline constexpr std::string_view kCohort = "cohort";
inline constexpr std::string_view kImplements = "implements";
inline constexpr std::string_view kQueueingStrategy = "queueingStrategy";
inline constexpr std::string_view kFairWeight = "fairWeight";
inline constexpr std::string_view kValue = "value";
inline constexpr std::string_view kQueue = "queue";
inline constexpr std::string_view kNamespace = "namespace";
inline constexpr std::string_view kPriority = "priority";
inline constexpr std::string_view kPriorityClass = "priorityClass";
inline constexpr std::string_view kWorkloadType = "workloadType";
inline constexpr std::string_view kDataClassification = "dataClassification";
inline constexpr std::string_view kRequests = "requests";
inline constexpr std::string_view kPods = "pods";
inline constexpr std::string_view kAnnotations = "annotations";
inline constexpr std::string_view kAdmitted = "admitted";

// Context fields.
inline constexpr std::string_view kBorrowing = "borrowing";
inline constexpr std::string_view kPreempting = "preempting";
inline constexpr std::string_view kFlavors = "flavors";
inline constexpr std::string_view kFlavor = "flavor";
inline constexpr std::string_view kResource = "resource";
inline constexpr std::string_view kRequested = "requested";
inline constexpr std::string_view kUsage = "usage";
inline constexpr std::string_view kNominal = "nominal";
inline constexpr std::string_view kBorrowed = "borrowed";
inline constexpr std::string_view kBorrowingLimit = "borrowingLimit";
inline constexpr std::string_view kLevel = "level";
inline constexpr std::string_view kFairSharing = "fairSharing";
inline constexpr std::string_view kShare = "share";
inline constexpr std::string_view kAverageShare = "averageShare";
inline constexpr std::string_view kReason = "reason";

// Every key of an entity attribute record or a context record.
inline constexpr std::string_view kRecordKeys[] = {
    kName,        kParent,      kCohort,     kImplements,      kQueueingStrategy, kFairWeight, kValue,
    kQueue,       kNamespace,   kPriority,   kPriorityClass,   kWorkloadType,     kDataClassification,
    kRequests,    kPods,        kAnnotations, kAdmitted,       kBorrowing,        kPreempting, kFlavors,
    kFlavor,      kResource,    kRequested,  kUsage,           kNominal,          kBorrowed,   kBorrowingLimit,
    kLevel,       kFairSharing, kShare,      kAverageShare,    kReason,
};

// The labels (or annotations) that give a workload the governance model's
// workload type and data classification, and the values those have
// (stdlib/governance.cedarschema's enumerations).
inline constexpr std::string_view kWorkloadTypeLabel = "charter.dev/workload-type";
inline constexpr std::string_view kDataClassificationLabel = "charter.dev/data-classification";
inline constexpr std::string_view kWorkloadTypes[] = {"training", "fine-tuning", "evaluation", "inference", "notebook"};
inline constexpr std::string_view kDataClassifications[] = {"public", "internal", "confidential", "restricted"};

}  // namespace charter::internal::schedule::names

#endif  // CHARTER_RULES_SCHEMA_NAMES_H_
