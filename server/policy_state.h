// What the server decides with: the engine, the configured entities (with
// the index that joins a review's entities to them) and the schema, loaded
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

namespace charter::server {

struct PolicyFiles {
  std::string bundle;    // required
  std::string entities;  // optional: no configured entities
  // Optional; required for a bundle compiled with one. Several files are
  // read as one schema, in this order (stdlib/governance.cedarschema, then
  // stdlib/kubernetes.cedarschema).
  std::vector<std::string> schemas;
};

class PolicyState {
 public:
  // Reads, verifies and indexes everything; any fault fails the whole load
  // with a message naming the file. `join` (the configuration's) is checked
  // against the schema and the entities: every entity it names is in the
  // entity file and has the type the schema gives the attribute
  // `governance`, and every joined namespace is a configured
  // Kubernetes::Namespace, which then gets the attribute.
  static absl::StatusOr<std::shared_ptr<const PolicyState>> Load(const PolicyFiles& files,
                                                                 const GovernanceJoins& join = {});

  const Engine& engine() const { return engine_; }
  // Whether reviews' entities are read without the schema (PrepareUntypedJoin).
  bool untyped_join() const { return untyped_join_; }
  // Every configured entity: what /v1/authorize decides against.
  const Entities& entities() const { return entities_; }
  const Schema* schema() const { return schema_ ? &*schema_ : nullptr; }
  const std::string& bundle_hash() const { return bundle_hash_; }  // "sha256:<hex>"
  std::chrono::system_clock::time_point loaded_at() const { return loaded_at_; }

  // The request and the entities to decide a mapped review with: the
  // review's own entities, and the configured entities they reach through
  // parents and entity-valued attributes (and every action entity). An
  // entity the configuration defines replaces the review's entity of the
  // same uid (a User with attributes of its own, for example).
  absl::StatusOr<Entities> EntitiesFor(const MappedReview& review) const;
  absl::StatusOr<Request> RequestFor(const MappedReview& review) const;
  absl::StatusOr<Request> RequestFromJson(std::string_view json) const;
  absl::StatusOr<std::vector<Request>> RequestsFromJson(std::string_view json) const;

 private:
  PolicyState(Engine engine) : engine_(std::move(engine)) {}
  // Checks `join` and sets the joined namespaces' attribute `governance` in
  // entities_text_ (then read again into entities_).
  absl::Status Join(const GovernanceJoins& join, const std::string& entities_name);
  absl::Status Index();
  // Decides whether reviews' entities may be read without the schema (the
  // schema's cost, about 10 µs a review, is then paid once at load): when
  // the schema declares the mapping's types with the mapping's attributes,
  // and the configured entities, written with explicit references and with
  // the schema's actions, read without the schema to the very store the
  // schema made of them. The mapping writes its entities conforming.
  void PrepareUntypedJoin();

  Engine engine_;
  Entities entities_;
  std::optional<Schema> schema_;
  std::string bundle_hash_;
  std::chrono::system_clock::time_point loaded_at_;

  // The entity file's text and, for each entity in it, its JSON text and
  // the entities it refers to.
  std::string entities_text_;
  struct Node {
    std::string_view json;
    std::string type;
    std::vector<size_t> refs;
  };
  std::vector<Node> nodes_;
  absl::flat_hash_map<std::string, size_t> by_uid_;  // "type\0id" -> node
  std::vector<size_t> actions_;                       // nodes of action entities
  bool untyped_join_ = false;
  std::vector<std::string> explicit_json_;  // nodes_ with explicit references
  // ",{action},{parent},..." for each of the schema's actions, by Key()
  absl::flat_hash_map<std::string, std::string> action_json_;
};

}  // namespace charter::server

#endif  // CHARTER_SERVER_POLICY_STATE_H_
