// Scheduling declarations (.charter text, docs/scheduling.md) -> the
// scheduling configuration of charter/schedule.h. Every name is resolved and
// every value checked; Kueue's rules are cycle/config_check.h's (the JSON
// loader's too), their faults pointed at the declarations. Each fault is a
// CH08xx diagnostic in the file it is in.
//
//   std::vector<DeclarationFile> files = {{&source, &set.declarations, &diagnostics}};
//   schedule::State config;
//   if (Declare(files, {}, &config) && !diagnostics.has_errors()) use(config);
#ifndef CHARTER_LANGUAGE_DECLARE_H_
#define CHARTER_LANGUAGE_DECLARE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "ast/ast.h"
#include "ast/declarations.h"
#include "charter/diagnostics.h"
#include "charter/schedule.h"

namespace charter::internal {

// Where the parts of one cohort or cluster queue are, for Kueue's rules
// (and for the check of a queue against the entity it implements).
struct QuotaAt {
  Span resource, value, nominal, borrow, lend;
  Span borrow_value, lend_value;  // the limits' quantities alone
};
struct FlavorAt {
  Span name;
  std::vector<QuotaAt> quotas;
};
struct GroupAt {
  Span head;
  std::vector<Span> covered;
  std::vector<FlavorAt> flavors;
};
struct ObjectAt {
  size_t file = 0;
  Span head;
  Span parent;
  Span weight;
  Span preemption;
  Span preference;
  Span implements;  // the entity a queue's `implements` names
  std::vector<GroupAt> groups;
  bool ok = true;  // no fault of its own, so Kueue's rules are checked over it
};

// Where a flavor's declared capacity of one resource is.
struct CapacityAt {
  size_t file = 0;
  Span flavor;  // the flavor's declaration (`flavor "p5"`)
  Span resource, value;
};

struct DeclareOptions {
  uint64_t max_quota_cells = ::charter::schedule::kDefaultMaxQuotaCells;
  // When set, where each cluster queue's parts are, in the order of the
  // configuration's cluster_queues.
  std::vector<ObjectAt>* queue_places = nullptr;
};

// Where SPAN of files[file] is, for a help line about files[from]: "line 3"
// in the same file, "other.charter:3:1" in another, "elsewhere" for a file
// without its text.
std::string PlaceOf(const std::vector<DeclarationFile>& files, size_t file, Span span, size_t from);

// Reads the declarations of every file into one configuration: the engine
// settings, flavors, resources, cohorts, cluster queues, priority classes
// and local queues of *out (its workloads are left alone). Declarations may
// refer to each other in any order and across files. Returns whether the
// files declare anything; *out is whole only when no file got an error.
bool Declare(const std::vector<DeclarationFile>& files, const DeclareOptions& options,
             ::charter::schedule::State* out);

// What only the whole configuration shows (language/whole.cc), for one that
// Declare read without an error: nominal quotas above a flavor's declared
// capacity (CH0811), borrowing limits above what a cohort tree can lend
// (CH0812), one resource in different units in one tree (CH0813), lending
// limits no queue can borrow from (CH0814). Each fault goes to the
// diagnostics of the file it is in; its help names the other places.
void CheckWhole(const std::vector<DeclarationFile>& files, const ::charter::schedule::State& state,
                const std::vector<ObjectAt>& cohorts, const std::vector<ObjectAt>& queues,
                const std::vector<CapacityAt>& capacities);

}  // namespace charter::internal

#endif  // CHARTER_LANGUAGE_DECLARE_H_
