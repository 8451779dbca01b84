// What the server decides with: the engine, the configured entities (a
// review's own are laid over them, Entities::Extend) and the schema, loaded
// together and swapped together. A PolicyState never changes once loaded;
// a reload builds a new one and installs it (server.cc), so that a request
// in flight keeps the state it started with.
#ifndef CHARTER_SERVER_POLICY_STATE_H_
#define CHARTER_SERVER_POLICY_STATE_H_

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "charter/bundle.h"
#include "charter/engine.h"
#include "charter/entities.h"
#include "charter/request.h"
#include "charter/schema.h"
#include "admission_review.h"
#include "enforcement.h"

namespace charter::server {

struct PolicyFiles {
  std::string bundle;    // the bundle, or `policies` (below)
  std::string entities;  // optional: no configured entities
  // Optional; required for a bundle compiled with one. Several files are
  // read as one schema, in this order (stdlib/governance.cedarschema, then
  // stdlib/kubernetes.cedarschema).
  std::vector<std::string> schemas;
  // What `charter admit --policies` and `charter test` have in memory
  // instead of a file: the bytes of a bundle they compiled (`bundle` then
  // names it in messages), and the entities' JSON text (inline in a test
  // file; `entities` names it).
  std::optional<std::string> bundle_bytes = std::nullopt;
  std::optional<std::string> entities_json = std::nullopt;
  // In place of `bundle`: the policy files (Cedar text, Cedar's JSON policy
  // format, .charter), compiled at each load with the schema as `charter
  // build` compiles them (`charter serve --policies`).
  std::vector<std::string> policies = {};
};

class PolicyState {
 public:
  // Reads, verifies and indexes everything; any fault fails the whole load
  // with a message naming the file. `join` (the configuration's) is checked
  // against the schema and the entities: every entity it names is in the
  // entity file and has the type the schema gives the attribute
  // `governance`, and every joined namespace is a configured
  // Kubernetes::Namespace, which then gets the attribute.
  // `enforcement` is the server's rollout mode; the policies' own
  // (`@enforcement`) are read from the bundle, and a bad one fails the load.
  static absl::StatusOr<std::shared_ptr<const PolicyState>> Load(const PolicyFiles& files,
                                                                 const GovernanceJoins& join = {},
                                                                 Enforcement enforcement = Enforcement::kDeny);

  const Engine& engine() const { return engine_; }
  // Whether reviews' entities are read without the schema (PrepareUntypedJoin).
  bool untyped_join() const { return untyped_join_; }
  // Every configured entity: what /v1/authorize decides against.
  const Entities& entities() const { return entities_; }
  const Schema* schema() const { return schema_ ? &*schema_ : nullptr; }
  const std::string& bundle_hash() const { return bundle_hash_; }  // "sha256:<hex>"
  // The rollout mode of each forbid (enforcement.h).
  const EnforcementTable& enforcement() const { return enforcement_; }
  std::chrono::system_clock::time_point loaded_at() const { return loaded_at_; }

  // The request and the entities to decide a mapped review with: the
  // review's own entities laid over the configured ones, which are neither
  // copied nor read again. A principal the configuration defines replaces
  // the review's (a User with attributes of its own, for example); another
  // entity of the review that the configuration defines must be the same
  // (Entities::Extend).
  absl::StatusOr<Entities> EntitiesFor(const MappedReview& review) const;
  // The review's entities that EntitiesFor lays over the configured ones, a
  // JSON array in Cedar's entity form (the decision log writes it, so that
  // `charter diff` lays the same over the same entity file).
  std::string ReviewEntitiesJson(const MappedReview& review) const;
  absl::StatusOr<Request> RequestFor(const MappedReview& review) const;
  absl::StatusOr<Request> RequestFromJson(std::string_view json) const;
  absl::StatusOr<std::vector<Request>> RequestsFromJson(std::string_view json) const;

 private:
  PolicyState(Engine engine) : engine_(std::move(engine)) {}
  // Checks `join` and sets the joined namespaces' attribute `governance` in
  // entities_text_ (then read again into entities_).
  absl::Status Join(const GovernanceJoins& join, const std::string& entities_name);
  // Decides whether reviews' entities may be read without the schema: when
  // the schema declares the mapping's types with exactly the mapping's
  // attributes. The mapping writes its entities conforming, with explicit
  // references, so the schema's reader would make the same values of them.
  // (The configured entities were read with the schema once, at load.)
  void PrepareUntypedJoin();

  Engine engine_;
  Entities entities_;
  std::optional<Schema> schema_;
  std::string bundle_hash_;
  EnforcementTable enforcement_;
  std::chrono::system_clock::time_point loaded_at_;

  // The entity file's text (Join writes the joined namespaces' attribute
  // into it before entities_ is read from it).
  std::string entities_text_;
  bool untyped_join_ = false;
};

}  // namespace charter::server

#endif  // CHARTER_SERVER_POLICY_STATE_H_
