// The parsed form of a request, shared by copies of a charter::Request.
#ifndef CHARTER_REQUEST_REQUEST_DATA_H_
#define CHARTER_REQUEST_REQUEST_DATA_H_

#include "charter/entities.h"
#include "common/arena.h"
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

  void Bind() {
    principal_ref = {principal.type, principal.id, kNoUid};
    action_ref = {action.type, action.id, kNoUid};
    resource_ref = {resource.type, resource.id, kNoUid};
  }
};

}  // namespace charter::internal

#endif  // CHARTER_REQUEST_REQUEST_DATA_H_
