// Names given on the command line (`charter query --principal alice
// --resource-type Project --action view`), read in short form wherever the
// schema and the entities make it unambiguous: an entity type by its last
// components (`Project` for `Governance::Project`), an entity by its id
// alone when one known entity has it, an action by its id. A name that
// several could mean is an error that lists them; one that nothing means,
// an error with the nearest known name ("did you mean").
#ifndef CHARTER_CLI_NAMES_H_
#define CHARTER_CLI_NAMES_H_

#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "charter/charter.h"
#include "charter/schema.h"

namespace charter::cli {

class NameScope {
 public:
  // The names the schema declares and the entities hold; either may be null.
  NameScope(const Schema* schema, const Entities* entities);

  // An entity uid: `Type::"id"` (a type known, or written short: its last
  // components), or a bare id (`alice`) that one known entity has. A
  // `Type::"id"` of a type nothing here knows is taken as written. Errors
  // start with `flag`.
  absl::StatusOr<EntityUid> Uid(const std::string& flag, const std::string& text) const;
  // An action: `Ns::Action::"view"`, `Action::"view"` or `view`.
  absl::StatusOr<EntityUid> Action(const std::string& flag, const std::string& text) const;
  // An entity type, fully qualified or short; an unknown one is taken as
  // written when nothing is known.
  absl::StatusOr<std::string> Type(const std::string& flag, const std::string& text) const;

 private:
  // The known types `written` can be short for (itself, or those ending in
  // `::written`).
  std::vector<std::string> TypesFor(const std::string& written, bool actions) const;
  absl::StatusOr<EntityUid> Resolve(const std::string& flag, const std::string& text, bool action) const;

  bool has_schema_ = false;
  std::set<std::string> types_;        // entity types, actions' types apart
  std::set<std::string> action_types_;  // `Ns::Action`
  std::vector<EntityUid> uids_;         // known entities
  std::vector<EntityUid> actions_;      // known actions
};

}  // namespace charter::cli

#endif  // CHARTER_CLI_NAMES_H_
