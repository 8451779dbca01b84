// What the parts of the query stage share: completing a query into a
// request, and the checks that turn a mistyped query into an error instead
// of an empty answer.
#ifndef CHARTER_QUERY_QUERY_INTERNAL_H_
#define CHARTER_QUERY_QUERY_INTERNAL_H_

#include <memory>
#include <string_view>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "charter/query.h"
#include "entities/entity_store.h"
#include "request/request_data.h"

namespace charter::internal {

// The request with `uid` on the query's unknown side (it keeps the query's
// data, which holds its context, alive).
std::shared_ptr<const RequestData> CompleteRequest(const std::shared_ptr<const RequestData>& query,
                                                   QueryRequest::Unknown unknown, const EntityUid& uid);

// The checks of a query against the store (see query.h, "Listing"):
// InvalidArgument saying what is wrong and, where a near name exists,
// "; did you mean ...?". `names_action` says whether the policies name an
// action; it is asked only when the schema did not check the query and
// the store does not hold the action.
absl::Status CheckQuery(const QueryRequest& query, const EntityStore& store,
                        absl::FunctionRef<bool(std::string_view type, std::string_view id)> names_action);

// The uids of the store with data whose type is `type`, in the store's order.
template <typename F>
void ForEachOfType(const EntityStore& store, std::string_view type, F&& f) {
  for (uint32_t uid = 0; uid < store.num_uids(); ++uid) {
    if (store.ref(uid).type == type && store.data(uid) != nullptr) {
      if (!f(uid)) return;
    }
  }
}

}  // namespace charter::internal

#endif  // CHARTER_QUERY_QUERY_INTERNAL_H_
