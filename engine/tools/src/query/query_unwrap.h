// How the tools library's query code reaches what a QueryRequest holds (the
// core's Unwrap for the core's objects, and QueryRequest's data). A user
// of the library cannot include this header.
#ifndef CHARTER_QUERY_QUERY_UNWRAP_H_
#define CHARTER_QUERY_QUERY_UNWRAP_H_

#include <memory>
#include <utility>

#include "unwrap/unwrap.h"
#include "charter/query.h"
#include "request/request_data.h"

namespace charter::internal {

class QueryUnwrap : public Unwrap {
 public:
  using Unwrap::Data;
  static const RequestData& Data(const QueryRequest& q) { return *q.data_; }
  static const std::shared_ptr<const RequestData>& SharedData(const QueryRequest& q) { return q.data_; }
  static QueryRequest MakeQuery(std::shared_ptr<const RequestData> data, QueryRequest::Unknown unknown,
                                bool schema_checked) {
    return QueryRequest(std::move(data), unknown, schema_checked);
  }
};

}  // namespace charter::internal

#endif  // CHARTER_QUERY_QUERY_UNWRAP_H_
