// The parsed form of a request, shared by copies of a charter::Request.
#ifndef CHARTER_REQUEST_REQUEST_DATA_H_
#define CHARTER_REQUEST_REQUEST_DATA_H_

#include "charter/entities.h"
#include "common/arena.h"
#include "entities/entity_store.h"
#include "value/value.h"

namespace charter::internal {

struct RequestData {
  RequestData() = default;
  RequestData(const RequestData&) = delete;
  RequestData& operator=(const RequestData&) = delete;

  Arena arena;
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

}  // namespace charter::internal

#endif  // CHARTER_REQUEST_REQUEST_DATA_H_
