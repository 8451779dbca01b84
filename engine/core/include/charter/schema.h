// Schemas and validation: the typed model that policies, entities and
// requests are checked against before anything ships.
//
// A schema is written in Cedar's schema text or in Cedar's JSON schema
// format; either can be printed in the other:
//
//   charter::SourceFile text("model.cedarschema", R"(
//     namespace Org {
//       entity Team;
//       entity User in [Team] { level: Long, manager?: User };
//       entity Task { owner: User, labels: Set<String> } tags String;
//       action view appliesTo { principal: User, resource: Task, context: { mfa: Bool } };
//     })");
//   charter::Diagnostics diagnostics;
//   absl::StatusOr<charter::Schema> schema = charter::Schema::Parse(text, {}, &diagnostics);
//   std::string json = schema->ToJson();
//
// Validate() type-checks a policy set against the schema with the rules of
// Cedar's validator in strict mode: every entity type, action and attribute
// must exist, operands must have the right types, optional attributes need a
// `has` guard, and so on. Each fault is a diagnostic (codes CH05xx) with the
// span of the offending expression; a policy that can never apply is a
// warning.
#ifndef CHARTER_SCHEMA_H_
#define CHARTER_SCHEMA_H_

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "charter/compiler.h"
#include "charter/diagnostics.h"
#include "charter/entities.h"
#include "charter/export.h"
#include "charter/request.h"

namespace charter {

namespace internal {
class Unwrap;    // unwrap/unwrap.h
struct SchemaData;  // schema/schema_model.h
}  // namespace internal

struct SchemaOptions {
  size_t max_source_bytes = size_t{16} << 20;
  // Nesting of records, sets and namespaces, as written and (records and
  // sets) once common types are inlined; deeper input is a diagnostic.
  int max_nesting = 64;
  // Reading stops collecting diagnostics after this many.
  size_t max_errors = 100;
};

class CHARTER_API Schema {
 public:
  // Reads a schema in Cedar's schema text or, when the text starts with `{`,
  // in Cedar's JSON schema format. Faults (codes CH04xx) go to `diagnostics`
  // (which may be null); if there is any, the result is InvalidArgument
  // with the first one as "file:line:col: message".
  static absl::StatusOr<Schema> Parse(const SourceFile& source, const SchemaOptions& options,
                                      Diagnostics* diagnostics);

  // The schema in Cedar's schema text, and in Cedar's JSON schema format.
  std::string ToCedar() const;
  std::string ToJson() const;

  // "sha256:" and the SHA-256 of ToJson(): the same for the same schema,
  // whichever format it was read from and however it was laid out. A bundle
  // compiled with this schema records it (Engine::schema_fingerprint).
  std::string Fingerprint() const;

  // Every entity type (with namespaces, "NS::User") and every action, sorted.
  std::vector<std::string> EntityTypes() const;
  std::vector<EntityUid> Actions() const;
  // The attributes an entity type declares, sorted (none for a type the
  // schema does not declare).
  std::vector<std::string> Attributes(std::string_view entity_type) const;
  // The entity types some action takes as its principal (resource), each
  // once, sorted.
  std::vector<std::string> PrincipalTypes() const;
  std::vector<std::string> ResourceTypes() const;

 private:
  // The library reaches the schema through internal::Unwrap.
  friend class internal::Unwrap;

  explicit Schema(std::shared_ptr<const internal::SchemaData> data);
  std::shared_ptr<const internal::SchemaData> data_;
};

// Validates a policy set (Cedar text or JSON policy format) against a schema
// in Cedar's strict mode. Syntax faults are reported as Compile() reports
// them; validation faults get codes CH05xx. Every policy that parsed cleanly
// is validated, even when another did not, and its faults follow the syntax
// faults. Returns OK when there is no error (warnings may be present), else
// InvalidArgument with the first error as "file:line:col: message".
CHARTER_API absl::Status Validate(const Schema& schema, const SourceFile& policies,
                                  const CompileOptions& options, Diagnostics* diagnostics);
// The same for a policy set and its template links (Cedar's `--template-linked`
// form; the links of a JSON policy set's "templateLinks" are read in either
// case). Each link is validated as Cedar's validator validates one: a slot
// bound to an entity of a type the schema does not declare is an error
// (CH0521), and a link whose scope then applies to no action a warning
// (CH0530). A link that does not fit its template is an InvalidArgument with
// Compile()'s message.
CHARTER_API absl::Status Validate(const Schema& schema, const SourceFile& policies,
                                  const std::vector<TemplateLink>& links,
                                  const CompileOptions& options, Diagnostics* diagnostics);

// The types Validate() gives the expressions of a policy set's conditions
// (and of its scopes: `principal` of `principal is User`): an editor's
// hover. A policy is type-checked once for each principal type, action and
// resource type the schema lets it apply to, so an expression may have
// several (`principal` is `Org::User` for one action, `Org::Bot` for
// another). Sorted by where each starts, the longer first; an expression the
// checker gave no type (it did not check, or not past a fault) is absent.
struct ExpressionType {
  size_t begin = 0, end = 0;       // its bytes in the source
  std::vector<std::string> types;  // each once, in the order the checker found them: `Long`, `Set<String>`, `Org::User`
};
CHARTER_API std::vector<ExpressionType> ExpressionTypes(const Schema& schema, const SourceFile& policies,
                                                        const CompileOptions& options);

// Checks entities already read without a schema against it: every entity's
// type is declared, its attributes and tags have the declared types
// (required attributes present, no undeclared ones), its parents are of
// types it may be a member of, and an enumerated type's ids are among its
// values. InvalidArgument naming the first fault otherwise. To read entities
// as Cedar does with a schema (plain `{"type", "id"}` entities and extension
// strings, the schema's actions in the store), use Entities::FromJson with
// the schema instead; it checks all of this as it reads.
CHARTER_API absl::Status ValidateEntities(const Schema& schema, const Entities& entities);

// Checks a request against the schema: the action is declared, the principal
// and resource have types it applies to, and the context has the declared
// shape. InvalidArgument naming the fault otherwise. Request::FromJson with
// the schema reads a request's context for its declared type and checks the
// rest as it reads.
CHARTER_API absl::Status ValidateRequest(const Schema& schema, const Request& request);

}  // namespace charter

#endif  // CHARTER_SCHEMA_H_
