// Typed code (a policy set compiled with a schema) decides as untyped code
// does on inputs that conform to the schema: allow, deny, the determining
// policies and every error with its message (overflow, a missing entity).
// Built twice by tests/core/vm/CMakeLists.txt: computed-goto and switch dispatch.
#include <string>
#include <vector>

#include "charter/charter.h"
#include "charter/schema.h"
#include "gtest/gtest.h"
#include "testing/status_matchers.h"

namespace charter {
namespace {

using ::charter_testing::IsOk;
using ::charter_testing::StatusIs;

constexpr char kSchema[] = R"(
entity Team;
entity User in [Team] { age: Long, active: Bool, score: Long };
entity Task { priority: Long, owner: User };
action view appliesTo { principal: User, resource: Task, context: { mfa: Bool, level: Long } };
)";

constexpr char kPolicies[] = R"(
@id("adults") permit (principal, action == Action::"view", resource)
  when { principal.age > 17 && principal.active };
@id("owner") permit (principal is User, action, resource is Task)
  when { resource.owner == principal || !context.mfa };
@id("arith") forbid (principal, action, resource)
  when { principal.score * 1000000000000 - context.level >= 10 && -resource.priority <= -5 };
@id("if") permit (principal in Team::"ml", action, resource)
  when { if context.mfa then principal.age < 90 else principal.age >= 21 };
)";

constexpr char kEntities[] = R"([
 {"uid": {"type": "User", "id": "alice"}, "attrs": {"age": 30, "active": true, "score": 1},
  "parents": [{"type": "Team", "id": "ml"}]},
 {"uid": {"type": "User", "id": "bob"}, "attrs": {"age": 12, "active": false, "score": 9223373},
  "parents": []},
 {"uid": {"type": "User", "id": "carol"}, "attrs": {"age": 95, "active": true, "score": 0},
  "parents": [{"type": "Team", "id": "ml"}]},
 {"uid": {"type": "Task", "id": "t1"}, "attrs": {"priority": 7, "owner": {"__entity": {"type": "User", "id": "alice"}}},
  "parents": []},
 {"uid": {"type": "Task", "id": "t2"}, "attrs": {"priority": 1, "owner": {"__entity": {"type": "User", "id": "bob"}}},
  "parents": []}
])";

TEST(Typed, SameDecisionsAsUntypedOnConformingInputs) {
  SourceFile schema_source("model.cedarschema", kSchema);
  Diagnostics diagnostics;
  absl::StatusOr<Schema> schema = Schema::Parse(schema_source, {}, &diagnostics);
  ASSERT_THAT(schema, IsOk()) << diagnostics.Render(schema_source);
  SourceFile source("policies.cedar", kPolicies);
  CompileOptions typed_options;
  typed_options.schema = &*schema;
  absl::StatusOr<Bundle> typed = Compile(source, typed_options, &diagnostics);
  ASSERT_THAT(typed, IsOk()) << diagnostics.Render(source);
  absl::StatusOr<Bundle> untyped = Compile(source, {}, &diagnostics);
  ASSERT_THAT(untyped, IsOk());
  absl::StatusOr<Engine> typed_engine = Engine::Create(*std::move(typed));
  absl::StatusOr<Engine> untyped_engine = Engine::Create(*std::move(untyped));
  ASSERT_THAT(typed_engine, IsOk());
  ASSERT_THAT(untyped_engine, IsOk());
  EXPECT_EQ(typed_engine->schema_fingerprint(), schema->Fingerprint());
  EXPECT_TRUE(untyped_engine->schema_fingerprint().empty());
  // What a tool that loads the bundle makes of the schema it is given.
  SourceFile other_source("other.cedarschema", "entity User;");
  absl::StatusOr<Schema> other = Schema::Parse(other_source, {}, &diagnostics);
  ASSERT_THAT(other, IsOk());
  EXPECT_EQ(typed_engine->FitSchema(&*schema), Engine::SchemaFit::kSame);
  EXPECT_EQ(typed_engine->FitSchema(nullptr), Engine::SchemaFit::kMissing);
  EXPECT_EQ(typed_engine->FitSchema(&*other), Engine::SchemaFit::kOther);
  EXPECT_EQ(untyped_engine->FitSchema(nullptr), Engine::SchemaFit::kUntyped);
  EXPECT_EQ(untyped_engine->FitSchema(&*schema), Engine::SchemaFit::kUntyped);

  absl::StatusOr<Entities> entities = Entities::FromJson(kEntities);
  ASSERT_THAT(entities, IsOk());
  ASSERT_THAT(ValidateEntities(*schema, *entities), IsOk());
  int allowed = 0, errors = 0;
  for (const char* principal : {"alice", "bob", "carol", "dave"}) {  // dave: not in the store
    for (const char* task : {"t1", "t2"}) {
      for (bool mfa : {true, false}) {
        for (int level : {-10, 5}) {
          std::string json = std::string(R"({"principal": "User::\")") + principal +
                             R"(\"", "action": "Action::\"view\"", "resource": "Task::\")" + task +
                             R"(\"", "context": {"mfa": )" + (mfa ? "true" : "false") +
                             ", \"level\": " + std::to_string(level) + "}}";
          absl::StatusOr<Request> request = Request::FromJson(json);
          ASSERT_THAT(request, IsOk());
          ASSERT_THAT(ValidateRequest(*schema, *request), IsOk()) << json;
          Decision a = typed_engine->Authorize(*request, *entities);
          Decision b = untyped_engine->Authorize(*request, *entities);
          EXPECT_EQ(a.ToJson(), b.ToJson()) << json;
          allowed += a.allowed;
          errors += static_cast<int>(a.errors.size());
        }
      }
    }
  }
  // Both outcomes and errors (bob's overflow, dave's absence) were seen.
  EXPECT_GT(allowed, 0);
  EXPECT_GT(errors, 0);
}

TEST(Typed, APolicySetThatDoesNotValidateDoesNotCompile) {
  SourceFile schema_source("model.cedarschema", kSchema);
  absl::StatusOr<Schema> schema = Schema::Parse(schema_source, {}, nullptr);
  ASSERT_THAT(schema, IsOk());
  SourceFile source("bad.cedar", "permit (principal, action, resource) when { principal.age && true };");
  CompileOptions options;
  options.schema = &*schema;
  Diagnostics diagnostics;
  absl::StatusOr<Bundle> bundle = Compile(source, options, &diagnostics);
  ASSERT_THAT(bundle,
              StatusIs(absl::StatusCode::kInvalidArgument, "bad.cedar:1:45: expected `Bool`, found `Long`"));
  ASSERT_FALSE(diagnostics.empty());
  EXPECT_EQ(diagnostics.items()[0].code, "CH0510");
}

TEST(Typed, FingerprintIsTheSameForTheSameSchemaInEitherFormat) {
  absl::StatusOr<Schema> text = Schema::Parse(SourceFile("a.cedarschema", kSchema), {}, nullptr);
  ASSERT_THAT(text, IsOk());
  absl::StatusOr<Schema> json = Schema::Parse(SourceFile("a.json", text->ToJson()), {}, nullptr);
  ASSERT_THAT(json, IsOk());
  EXPECT_EQ(text->Fingerprint(), json->Fingerprint());
  EXPECT_EQ(text->Fingerprint().rfind("sha256:", 0), 0u);
  EXPECT_EQ(text->Fingerprint().size(), 7u + 64u);
  absl::StatusOr<Schema> other =
      Schema::Parse(SourceFile("b.cedarschema", std::string(kSchema) + "entity Extra;"), {}, nullptr);
  ASSERT_THAT(other, IsOk());
  EXPECT_NE(text->Fingerprint(), other->Fingerprint());
}

}  // namespace
}  // namespace charter
