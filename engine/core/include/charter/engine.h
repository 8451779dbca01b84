// Engine: a verified, immutable policy set ready to decide requests. It is
// cheap to copy (copies share the program) and safe to call from any number
// of threads at once.
//
//   absl::StatusOr<charter::Engine> engine = charter::Engine::Create(bundle);
//   charter::Decision d = engine->Authorize(request, entities);
#ifndef CHARTER_ENGINE_H_
#define CHARTER_ENGINE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "charter/bundle.h"
#include "charter/decision.h"
#include "charter/entities.h"
#include "charter/eval_context.h"
#include "charter/export.h"
#include "charter/request.h"

namespace charter {

namespace internal {
class Unwrap;  // unwrap/unwrap.h
class Program;
}  // namespace internal

struct VerifyOptions {
  size_t max_bundle_bytes = size_t{1} << 30;
  size_t max_depth = 64;             // FlatBuffers table nesting
  size_t max_tables = 10'000'000;    // FlatBuffers tables in one bundle
  size_t max_policies = 1'000'000;
  size_t max_code_words = 1 << 20;   // instructions in one policy
  // Limits on what a bundle's code may do while it decides a request (its
  // code runs untrusted too). Past one, the policy that crosses it errs, as
  // any evaluation error: it is skipped and reported in the Decision.
  // Sets and records the code nests one in another (values read from the
  // request or the entities count as none: their readers bound their
  // nesting). At most 65,535.
  size_t max_value_depth = 1000;
  // Bytes of sets and records the code of one decision may build, all its
  // policies together.
  size_t max_decision_bytes = size_t{128} << 20;
  // Steps the code of one decision may take comparing, hashing and looking
  // up values (`==`, `in` a set, building sets, `contains`, `containsAll`,
  // `containsAny`), all its policies together: one step a value visited, a
  // set or record and each of its elements (two scalars compare for free).
  // Sets the code builds may share their elements, and a walk visits what
  // they share again each time.
  uint64_t max_decision_work = uint64_t{1} << 26;
};

class Schema;  // charter/schema.h

// A policy of an engine as its source wrote it: its id, its effect and its
// annotations (`@key("value")`, in source order; `@id` among them when the
// source gave one).
struct PolicyInfo {
  std::string id;
  bool forbid = false;
  std::vector<std::pair<std::string, std::string>> annotations;
};

class CHARTER_API Engine {
 public:
  // Verifies the bundle (the FlatBuffers Verifier, then Charter's bytecode
  // verifier) and builds an engine from it. A corrupt or hostile bundle is an
  // InvalidArgument error saying what is wrong.
  static absl::StatusOr<Engine> Create(Bundle bundle, const VerifyOptions& options = {});

  Decision Authorize(const Request& request, const Entities& entities) const;
  // The same decision, written to `context` (read it there); returns
  // whether the request is allowed. Once the context has grown to the
  // policy set, the call allocates nothing.
  bool Authorize(const Request& request, const Entities& entities, EvalContext* context) const;

  size_t policy_count() const;
  // For a typed bundle (compiled with CompileOptions::schema), the schema's
  // fingerprint (Schema::Fingerprint); empty otherwise. A typed engine
  // decides as Cedar does for entities and requests that conform to that
  // schema: validate them with ValidateEntities and ValidateRequest.
  std::string_view schema_fingerprint() const;
  // Whether entities and requests read with `schema` (null: none given)
  // suit this engine: a typed bundle decides as Cedar does only for inputs
  // read with the schema it was compiled with. Every tool that loads a
  // bundle and a schema asks this, and refuses kMissing and kOther.
  enum class SchemaFit : uint8_t {
    kUntyped,  // compiled without a schema: any schema, or none, will do
    kSame,     // typed, and `schema` is its schema
    kMissing,  // typed, and no schema given
    kOther,    // typed, and `schema` is another one
  };
  SchemaFit FitSchema(const Schema* schema) const;
  // Policy ids in policy-set order.
  std::vector<std::string> policy_ids() const;
  // The policies, in policy-set order, with their effects and annotations.
  std::vector<PolicyInfo> policies() const;

  // The bytes of the bundle's section `name`, or nullopt when it has none:
  // what a library above the core compiled from the sources' declarations
  // (CompileOptions::declarations) and reads back itself, verifying them as
  // it reads. The scheduling library's is charter::schedule::ReadConfiguration's
  // (charter/schedule.h). The bytes live as long as the engine's program.
  std::optional<std::string_view> section(std::string_view name) const;

 private:
  // The library reaches the program through internal::Unwrap.
  friend class internal::Unwrap;
  explicit Engine(std::shared_ptr<const internal::Program> program);
  std::shared_ptr<const internal::Program> program_;
};

}  // namespace charter

#endif  // CHARTER_ENGINE_H_
