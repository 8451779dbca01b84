// Rollout modes (docs/server.md, "Rolling out"), as Gatekeeper's
// enforcementAction: a forbid may deny (`deny`, the default), only warn
// (`warn`: the review is allowed with a warning and an audit annotation
// saying what would have been denied) or only be logged (`dryrun`). A policy
// chooses with its annotation `@enforcement("warn")`; the server's mode
// (--enforcement, or the configuration's `enforcement`) is a ceiling over
// every policy's, and also decides what "no policy permits it" does to an
// admission review. A SubjectAccessReview's default deny is already "no
// opinion", so the server's mode never turns it into "allowed".
#ifndef CHARTER_SERVER_ENFORCEMENT_H_
#define CHARTER_SERVER_ENFORCEMENT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "charter/decision.h"
#include "charter/engine.h"
#include "charter/eval_context.h"

namespace charter::server {

// Ordered from the weakest: the mode of a forbid is the lesser of its own
// and the server's.
enum class Enforcement : uint8_t { kDryRun = 0, kWarn = 1, kDeny = 2 };

// "deny", "warn" or "dryrun".
absl::StatusOr<Enforcement> ParseEnforcement(std::string_view text);
std::string_view EnforcementName(Enforcement mode);

// A satisfied forbid that did not deny, or (policy empty) a default deny
// that did not: what the review would have met with every policy enforced.
struct Unenforced {
  std::string policy;  // empty: no policy permits it
  Enforcement mode;
};

// The mode of each forbid of an engine, read from its annotations once a
// bundle is loaded.
class EnforcementTable {
 public:
  EnforcementTable() = default;
  // Fails with InvalidArgument naming the policy for an `@enforcement`
  // other than deny, warn or dryrun, or on a permit (where it means nothing).
  static absl::StatusOr<EnforcementTable> FromEngine(const Engine& engine, Enforcement server);

  Enforcement server() const { return server_; }
  Enforcement For(std::string_view forbid) const;
  // Every forbid and the default deny enforced: decisions stand as made.
  bool enforces_all() const { return server_ == Enforcement::kDeny && relaxed_.empty(); }
  // "enforcement warn" or "enforcement deny; not enforced: `a` (warn), `b` (dryrun)"
  // (the forbids whose mode is not deny, by id), for the server's start.
  std::string Describe() const;

 private:
  Enforcement server_ = Enforcement::kDeny;
  absl::flat_hash_map<std::string, Enforcement> relaxed_;  // forbids annotated warn or dryrun
};

// The decision the server answers with, from the engine's last decision in
// `context`: the satisfied forbids whose mode is not deny are set aside (and
// listed in *unenforced), and for an admission review (`admission`) a
// default deny is set aside when the server's mode is not deny. The
// decision's errors stay as they were.
Decision Enforce(const EvalContext& context, const EnforcementTable& table, bool admission,
                 std::vector<Unenforced>* unenforced);

}  // namespace charter::server

#endif  // CHARTER_SERVER_ENFORCEMENT_H_
