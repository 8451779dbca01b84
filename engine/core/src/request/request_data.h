// The parsed form of a request, shared by copies of a charter::Request.
#ifndef CHARTER_REQUEST_REQUEST_DATA_H_
#define CHARTER_REQUEST_REQUEST_DATA_H_

#include <memory>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "charter/entities.h"
#include "charter/value.h"
#include "common/arena.h"
#include "entities/entity_store.h"
#include "value/value.h"

namespace charter::internal {

struct RequestData {
  RequestData() = default;
  RequestData(const RequestData&) = delete;
  RequestData& operator=(const RequestData&) = delete;

  // Most contexts are small: a few hundred bytes, not the 64 KB block an
  // entity store starts with.
  Arena arena{512};
  EntityUid principal, action, resource;
  // INVARIANT: these view the strings above; RequestData never moves.
  EntityRef principal_ref, action_ref, resource_ref;
  Value context = Value::Record(nullptr, 0);
  // EntityKeyHash of principal, action and resource (for the scope index).
  uint64_t key_hashes[3] = {0, 0, 0};

  void Bind() {
    principal_ref = {principal.type, principal.id, kNoUid};
    action_ref = {action.type, action.id, kNoUid};
    resource_ref = {resource.type, resource.id, kNoUid};
    key_hashes[0] = EntityKeyHash(principal.type, principal.id);
    key_hashes[1] = EntityKeyHash(action.type, action.id);
    key_hashes[2] = EntityKeyHash(resource.type, resource.id);
  }
};

struct SchemaModel;

// A request from JSON ({"principal", "action", "resource", "context"}), or a
// JSON array of them; with `schema`, checked against it and its context read
// by the action's declared types. A fault is the InvalidArgument status,
// with its Diagnostic, that charter::Request::FromJson returns.
absl::StatusOr<std::shared_ptr<RequestData>> ReadRequestJson(std::string_view json, std::string_view source_name,
                                                             const SchemaModel* schema);
absl::StatusOr<std::vector<std::shared_ptr<RequestData>>> ReadRequestArrayJson(std::string_view json,
                                                                               std::string_view source_name,
                                                                               const SchemaModel* schema);

// A request from its three uids and a context given as a JSON object (empty
// text: no context), checked and read as ReadRequestJson does; faults point
// into the context text, named `source_name`.
absl::StatusOr<std::shared_ptr<RequestData>> MakeRequest(EntityUid principal, EntityUid action,
                                                         EntityUid resource, std::string_view context_json,
                                                         std::string_view source_name,
                                                         const SchemaModel* schema);

// The same with a context built in code (a record), read as its JSON is.
absl::StatusOr<std::shared_ptr<RequestData>> MakeRequest(EntityUid principal, EntityUid action,
                                                         EntityUid resource, const charter::Value& context,
                                                         std::string_view source_name,
                                                         const SchemaModel* schema);

}  // namespace charter::internal

#endif  // CHARTER_REQUEST_REQUEST_DATA_H_
