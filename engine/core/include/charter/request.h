// Request: who (principal) wants to do what (action) to which resource, in
// which context. The JSON form, used by the CLI and the oracle, is
//
//   {"principal": {"type": "User", "id": "alice"},
//    "action": "Action::\"submitTask\"",
//    "resource": {"type": "Task", "id": "t1"},
//    "context": {"mfa": true}}
//
// where each entity reference is either an object with "type" and "id" (or
// Cedar's {"__entity": {...}} escape) or a string in Cedar's `Type::"id"` form.
#ifndef CHARTER_REQUEST_H_
#define CHARTER_REQUEST_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "charter/entities.h"
#include "charter/export.h"
#include "charter/value.h"

namespace charter {

namespace internal {
class Unwrap;    // unwrap/unwrap.h
struct RequestData;  // request/request_data.h
}  // namespace internal

class Engine;
class Schema;

class CHARTER_API Request {
 public:
  // A request with an empty context.
  static Request Create(EntityUid principal, EntityUid action, EntityUid resource);
  // A request with a context given as a JSON object in Cedar's value
  // encoding ({"mfa": true, "team": {"__entity": {...}}}); empty text is an
  // empty context. With a schema (which must outlive the call), the request
  // is checked and its context read as FromJson with a schema does. Errors
  // are InvalidArgument with "SOURCE_NAME:LINE:COL: " in front, pointing
  // into the context's text.
  static absl::StatusOr<Request> Create(EntityUid principal, EntityUid action, EntityUid resource,
                                        std::string_view context_json, const Schema* schema = nullptr,
                                        std::string_view source_name = "context.json");
  // A request whose context is a record built in code (Value::Record), the
  // same request as Create with the context's JSON (Value::ToJson) gives,
  // with the same checks, without writing or reading any text. Errors are
  // InvalidArgument "SOURCE_NAME: ...".
  static absl::StatusOr<Request> Create(EntityUid principal, EntityUid action, EntityUid resource,
                                        const Value& context, const Schema* schema = nullptr,
                                        std::string_view source_name = "context");
  // One request object. Errors are InvalidArgument with
  // "SOURCE_NAME:LINE:COL: " in front.
  static absl::StatusOr<Request> FromJson(std::string_view json,
                                          std::string_view source_name = "request.json");
  // A JSON array of request objects.
  static absl::StatusOr<std::vector<Request>> ArrayFromJson(
      std::string_view json, std::string_view source_name = "requests.json");

  // The same with a schema, as Cedar reads a request with one: the action
  // must be declared and apply to the principal's and the resource's types
  // (ids of enumerated types among their values), and the context is read
  // for the action's declared context type: exactly its attributes, each of
  // its type, entities and extension values in their plain forms allowed
  // (see Entities::FromJson with a schema).
  static absl::StatusOr<Request> FromJson(std::string_view json, const Schema& schema,
                                          std::string_view source_name = "request.json");
  static absl::StatusOr<std::vector<Request>> ArrayFromJson(
      std::string_view json, const Schema& schema, std::string_view source_name = "requests.json");

  const EntityUid& principal() const;
  const EntityUid& action() const;
  const EntityUid& resource() const;
  // The context as a Cedar record literal: {"mfa": true}.
  std::string ContextToCedar() const;

 private:
  // The library reaches the data through internal::Unwrap.
  friend class internal::Unwrap;

  explicit Request(std::shared_ptr<const internal::RequestData> data);
  std::shared_ptr<const internal::RequestData> data_;
};

}  // namespace charter

#endif  // CHARTER_REQUEST_H_
