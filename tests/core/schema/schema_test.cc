// Schema reading (Cedar text and JSON), writing (both directions, round
// trips), and every schema diagnostic with its code, message and underline.
#include <string>

#include "charter/schema.h"
#include "gtest/gtest.h"
#include "testing/status_matchers.h"

namespace charter {
namespace {

using ::charter_testing::IsOk;
using ::charter_testing::StatusIs;

constexpr char kText[] = R"(// A schema with every construct.
type Profile = { dept: String, "cost center"?: Long };
@doc("people")
entity User in [Team] = { level: Long, manager?: User, profile: Profile, addr: ipaddr } tags String;
entity Team, Org;
entity Color enum ["red", "green"];
action read;
action view, "list all" in [read] appliesTo {
  principal: [User, Team],
  resource: Team,
  context: { mfa: Bool, at?: datetime }
};
namespace Acme {
  entity Doc in [Team] { owner: User, labels: Set<String> };
  action approve in [Action::"read"] appliesTo { principal: User, resource: Doc };
}
)";

absl::StatusOr<Schema> Parse(const std::string& text, Diagnostics* d) {
  return Schema::Parse(SourceFile("s.cedarschema", text), {}, d);
}

TEST(Schema, ReadsEveryConstruct) {
  Diagnostics d;
  absl::StatusOr<Schema> s = Parse(kText, &d);
  ASSERT_THAT(s, IsOk()) << d.Render(SourceFile("s.cedarschema", kText));
  EXPECT_EQ(s->EntityTypes(),
            (std::vector<std::string>{"Acme::Doc", "Color", "Org", "Team", "User"}));
  std::vector<EntityUid> actions = s->Actions();
  ASSERT_EQ(actions.size(), 4u);
  EXPECT_EQ(actions[0].type, "Acme::Action");
  EXPECT_EQ(actions[0].id, "approve");
}

TEST(Schema, RoundTripsThroughBothFormats) {
  absl::StatusOr<Schema> s = Parse(kText, nullptr);
  ASSERT_THAT(s, IsOk());
  std::string json = s->ToJson();
  Diagnostics d;
  absl::StatusOr<Schema> from_json = Parse(json, &d);
  ASSERT_THAT(from_json, IsOk()) << json << d.Render(SourceFile("j", json));
  EXPECT_EQ(from_json->EntityTypes(), s->EntityTypes());
  EXPECT_EQ(from_json->ToJson(), json);
  std::string text = s->ToCedar();
  absl::StatusOr<Schema> from_text = Parse(text, &d);
  ASSERT_THAT(from_text, IsOk()) << text;
  EXPECT_EQ(from_text->ToCedar(), text);
  EXPECT_EQ(from_text->ToJson(), json);
  EXPECT_NE(json.find("\"memberOfTypes\": [\"Team\"]"), std::string::npos) << json;
  EXPECT_NE(json.find("\"enum\": [\"red\", \"green\"]"), std::string::npos) << json;
  EXPECT_NE(text.find("entity Color enum [\"red\", \"green\"];"), std::string::npos) << text;
  EXPECT_NE(text.find("@doc(\"people\")"), std::string::npos) << text;
  // Reserved words are quoted when written back as attribute names.
  absl::StatusOr<Schema> reserved = Parse("entity User { \"if\": Bool, \"in\"?: Long };", nullptr);
  ASSERT_THAT(reserved, IsOk());
  EXPECT_NE(reserved->ToCedar().find("\"if\": Bool"), std::string::npos) << reserved->ToCedar();
}

struct Case {
  std::string text;
  const char* code;
  const char* message;
  const char* underlined;
};

// Every schema diagnostic: the first one of each text, with its code, its
// exact message and the exact text it underlines. (tests/core/schema/
// diagnostic_coverage_test.cc checks that every CH04xx code the engine
// emits has an entry of this form here or a rendering in
// docs/diagnostics.md.)
TEST(Schema, EveryDiagnostic) {
  const std::string many_nested = [] {
    std::string t = "entity User { a: ";
    for (int i = 0; i < 70; ++i) t += "Set<";
    t += "Long";
    for (int i = 0; i < 70; ++i) t += ">";
    return t + " };";
  }();
  const std::string many_nested_json = [] {
    std::string t = R"({"": {"entityTypes": {"U": {"shape": {"type": "Record", "attributes": {"a": )";
    for (int i = 0; i < 70; ++i) t += R"({"type": "Set", "element": )";
    t += R"({"type": "Long"})";
    for (int i = 0; i < 70; ++i) t += "}";
    return t + "}}}}, \"actions\": {}}}";
  }();
  const Case cases[] = {
      // Text syntax.
      {"entity User {", "CH0401", "unexpected end of the schema", "{"},
      {"entity User = { a: Long } junk;", "CH0401", "unexpected `junk`", "junk"},
      {"entity \"User\";", "CH0401", "unexpected string", "\"User\""},
      {"entity User { if: Bool };", "CH0401", "`if` is a reserved identifier", "if"},
      {"namespace A { namespace B { } }", "CH0401", "namespaces cannot be nested", "namespace"},
      {"action a in [A::B];", "CH0401", "`A::B` is not an action reference", "A::B"},
      {"type A::B = Long;", "CH0401", "a common type name cannot be qualified", "::"},
      {"entity U; action a appliesTo { principal: U, principal: U, resource: U };", "CH0401",
       "`principal` is declared twice in `appliesTo`", "principal"},
      {"entity U; action a appliesTo { resource: U, context: {}, context: {}, principal: U };", "CH0401",
       "`context` is declared twice in `appliesTo`", "context"},
      {"entity U; action a appliesTo { };", "CH0401", "unexpected `}`", "}"},
      {"entity U; action a appliesTo { principal: [U] };", "CH0401", "`appliesTo` lacks `resource`",
       "{ principal: [U] }"},
      {"entity U; action a appliesTo { resource: U };", "CH0401", "`appliesTo` lacks `principal`",
       "{ resource: U }"},
      {"entity U; action a appliesTo { principal: [], resource: U };", "CH0401",
       "`principal` lists no entity type", "principal: []"},
      {"entity U; action a appliesTo { principal: U, resource: [ ] };", "CH0401",
       "`resource` lists no entity type", "resource: [ ]"},
      // Tokens.
      {"entity User { a: \"x }", "CH0402", "unterminated string literal", "\"x }"},
      {"entity User { \"a\\q\": Long };", "CH0402", "invalid escape `\\q` in a string", "\\q"},
      {"entity User { \"a\\x80\": Long };", "CH0402", "invalid `\\x` escape in a string", "\\x80"},
      {"entity User { \"a\\u{110000}\": Long };", "CH0402", "invalid `\\u` escape in a string", "\\u{110000"},
      {"entity User # ;", "CH0402", "unexpected character `#`", "#"},
      {"entity User { \"a\xff\": Long };", "CH0402", "schema text is not valid UTF-8", "\xff"},
      // Names declared twice.
      {"entity User;\nentity User;", "CH0403", "entity type `User` is declared twice", "User"},
      {"type A = Long;\ntype A = String;", "CH0403", "common type `A` is declared twice", "A"},
      {"action view;\naction \"view\";", "CH0403", "action `Action::\"view\"` is declared twice", "\"view\""},
      {"entity User { a: Long, a: String };", "CH0403", "attribute `a` is declared twice", "a"},
      // Undeclared names.
      {"entity User { a: Lng };", "CH0404", "undeclared type `Lng`", "Lng"},
      {"entity User { a: __cedar::Lng };", "CH0404", "unknown type `__cedar::Lng`", "__cedar::Lng"},
      {R"({"": {"entityTypes": {"U": {"shape": {"type": "Record", "attributes": {"a": {"type": "Extension", "name": "ip"}}}}}, "actions": {}}})",
       "CH0404", "unknown extension type `ip`", R"("Extension")"},
      {R"({"": {"entityTypes": {"U": {"shape": {"type": "Record", "attributes": {"a": {"type": "Entity", "name": "G"}}}}}, "actions": {}}})",
       "CH0404", "undeclared entity type `G`", R"("Entity")"},
      {"entity User in [Grp];", "CH0405", "undeclared entity type `Grp` in `in`", "Grp"},
      {"entity User; action a appliesTo { principal: User, resource: Doc };", "CH0405",
       "undeclared entity type `Doc` in `resource`", "Doc"},
      {"action view in [read];", "CH0406", "undeclared action `Action::\"read\"` in `in`", "read"},
      // Cycles and reserved names.
      {"type A = B;\ntype B = A;", "CH0407", "common type `A` refers to itself", "A"},
      {"action a in [b];\naction b in [a];", "CH0407", "action `Action::\"a\"` is in itself", "a"},
      {"type Long = String;", "CH0408", "`Long` is reserved and cannot be a common type name", "Long"},
      {"namespace __cedar { entity U; }", "CH0408", "`__cedar` is reserved and cannot be a namespace",
       "namespace __cedar { entity U; }"},
      {"entity __cedarX;", "CH0408", "`__cedarX` is reserved and cannot be an entity type name", "__cedarX"},
      // Shapes and contexts.
      {"type T = Long;\nentity User = T;", "CH0409", "the shape of an entity type must be a record, not `Long`", "T"},
      {"type C = Set<String>;\nentity U;\naction a appliesTo { principal: U, resource: U, context: C };", "CH0409",
       "the context of an action must be a record, not `Set<String>`", "C"},
      // The JSON format.
      {R"({"": {"entityTypes": {}, "actions": {}, "bogus": 1}})", "CH0410", "unknown field `bogus` in a namespace",
       R"("bogus")"},
      {R"({"": 5})", "CH0410", "a namespace must be a JSON object", "5"},
      {R"({"": {"entityTypes": [], "actions": {}}})", "CH0410", "`entityTypes` must be a JSON object", "["},
      {R"({"": {"entityTypes": {"U": {"memberOfTypes": "G"}}, "actions": {}}})", "CH0410",
       "`memberOfTypes` must be a JSON array", R"("G")"},
      {R"({"": {"entityTypes": {"U": {"memberOfTypes": [5]}}, "actions": {}}})", "CH0410",
       "an entity type name must be a string", "5"},
      {R"({"": {"actions": {}}})", "CH0410", "the empty namespace lacks `entityTypes`", R"("")"},
      {R"({"A": {"entityTypes": {}}})", "CH0410", "namespace `A` lacks `actions`", R"("A")"},
      {R"({"": {"entityTypes": {"C": {"enum": []}}, "actions": {}}})", "CH0410", "`enum` needs at least one choice",
       "["},
      {R"({"": {"entityTypes": {"C": {"enum": ["a"], "memberOfTypes": []}}, "actions": {}}})", "CH0410",
       "an enumerated entity type has no `shape`, `tags` or `memberOfTypes`", R"("C")"},
      {R"({"": {"entityTypes": {}, "actions": {"a": {"memberOf": [{"type": "Action"}]}}}})", "CH0410",
       "an action reference needs an `id`", "{"},
      {R"({"": {"entityTypes": {"U": {}}, "actions": {"a": {"appliesTo": {"principalTypes": ["U"]}}}}})", "CH0410",
       "`appliesTo` lacks `resourceTypes`", "{"},
      {R"({"": {"entityTypes": {"U": {"shape": {"attributes": {}}}}, "actions": {}}})", "CH0410",
       "a type needs a `type` field", "{"},
      {R"({"": {"entityTypes": {"U": {"shape": {"type": "Record", "attributes": {}, "additionalAttributes": 1}}}, "actions": {}}})",
       "CH0410", "`additionalAttributes` must be true or false", "1"},
      {R"({"": {"entityTypes": {"U": {"shape": {"type": "Record", "attributes": {}, "additionalAttributes": true}}}, "actions": {}}})",
       "CH0410", "records with `additionalAttributes: true` are not supported", "true"},
      {R"({"": {"entityTypes": {"U": {"shape": {"type": "Record", "attributes": {"a": {"type": "Long", "required": 1}}}}}, "actions": {}}})",
       "CH0410", "`required` must be true or false", "1"},
      {R"({"": {"entityTypes": {"U": {"shape": {"type": "Record", "attributes": {"a": {"type": "Set"}}}}}, "actions": {}}})",
       "CH0410", "a `Set` type needs an `element`", "{"},
      {R"({"": {"entityTypes": {"U": {"shape": {"type": "Record", "attributes": {"a": {"type": "Entity"}}}}}, "actions": {}}})",
       "CH0410", "a type of kind `Entity` needs a `name`", "{"},
      {"[]", "CH0401", "unexpected `[`", "["},
      {R"({"": {"entityTypes": {}, "actions": {}})", "CH0411", "unexpected end of input", "}"},
      {R"({"": {"entityTypes": {}, "actions": {}}} x)", "CH0411", "expected end of input after the value", "x"},
      // Limits.
      {many_nested, "CH0412", "schema nested deeper than 64 levels", "Set"},
      {many_nested_json, "CH0412", "schema nested deeper than 64 levels", "{"},
  };
  for (const Case& c : cases) {
    Diagnostics d;
    absl::StatusOr<Schema> s = Parse(c.text, &d);
    EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument)) << c.text;
    ASSERT_FALSE(d.empty()) << c.text;
    const Diagnostic& x = d.items()[0];
    EXPECT_EQ(x.code, c.code) << c.text << "\n" << x.message;
    EXPECT_EQ(x.message, c.message) << c.text;
    EXPECT_EQ(c.text.substr(x.span.begin, x.span.end - x.span.begin), c.underlined) << c.text;
  }
}

TEST(Schema, SourceLimit) {
  SchemaOptions options;
  options.max_source_bytes = 16;
  Diagnostics d;
  std::string text = "entity User; entity Group;";
  EXPECT_THAT(Schema::Parse(SourceFile("s.cedarschema", text), options, &d), StatusIs(absl::StatusCode::kInvalidArgument));
  ASSERT_EQ(d.size(), 1u);
  const Diagnostic& x = d.items()[0];
  EXPECT_EQ(x.code, "CH0412");
  EXPECT_EQ(x.message, "schema is 26 bytes, more than the limit of 16");
  EXPECT_EQ(text.substr(x.span.begin, x.span.end - x.span.begin), "e");
}

TEST(Schema, NestingLimit) {
  std::string deep = "entity User { a: ";
  for (int i = 0; i < 100; ++i) deep += "Set<";
  deep += "Long";
  for (int i = 0; i < 100; ++i) deep += ">";
  deep += " };";
  Diagnostics d;
  EXPECT_THAT(Parse(deep, &d), StatusIs(absl::StatusCode::kInvalidArgument));
  ASSERT_FALSE(d.empty());
  EXPECT_EQ(d.items()[0].code, "CH0412");
}

}  // namespace
}  // namespace charter

namespace charter {
namespace {

constexpr char kModel[] = R"(
entity Team;
entity User in [Team] { level: Long, manager?: User };
entity Doc in [Team] { owner: User };
action view appliesTo { principal: User, resource: Doc, context: { mfa: Bool } };
)";

TEST(SchemaData, EntitiesAndRequestsConform) {
  absl::StatusOr<Schema> schema = Schema::Parse(SourceFile("m", kModel), {}, nullptr);
  ASSERT_THAT(schema, IsOk());
  absl::StatusOr<Entities> good = Entities::FromJson(R"([
    {"uid": {"type": "User", "id": "a"}, "attrs": {"level": 1}, "parents": [{"type": "Team", "id": "t"}]},
    {"uid": {"type": "Doc", "id": "d"}, "attrs": {"owner": {"__entity": {"type": "User", "id": "a"}}}, "parents": []}])");
  ASSERT_THAT(good, IsOk());
  EXPECT_THAT(ValidateEntities(*schema, *good), IsOk());
  const std::pair<const char*, const char*> bad[] = {
      {R"([{"uid": {"type": "User", "id": "a"}, "attrs": {}, "parents": []}])",
       "entity User::\"a\": `attrs` lacks the required attribute `level`"},
      {R"([{"uid": {"type": "User", "id": "a"}, "attrs": {"level": "x"}, "parents": []}])",
       "entity User::\"a\": `attrs.level` should be `Long` but is a string"},
      {R"([{"uid": {"type": "User", "id": "a"}, "attrs": {"level": 1, "x": 1}, "parents": []}])",
       "entity User::\"a\": `attrs` has the undeclared attribute `x`"},
      {R"([{"uid": {"type": "Doc", "id": "d"}, "attrs": {"owner": {"__entity": {"type": "User", "id": "a"}}}, "parents": [{"type": "User", "id": "a"}]}])",
       "entity Doc::\"d\": `Doc` cannot be a member of `User::\"a\"`"},
      {R"([{"uid": {"type": "Ghost", "id": "g"}, "attrs": {}, "parents": []}])",
       "entity Ghost::\"g\": undeclared entity type `Ghost`"},
  };
  for (const auto& [json, message] : bad) {
    absl::StatusOr<Entities> e = Entities::FromJson(json);
    ASSERT_THAT(e, IsOk());
    absl::Status s = ValidateEntities(*schema, *e);
    EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument, message)) << json;
  }
  absl::StatusOr<Request> ok = Request::FromJson(
      R"({"principal": "User::\"a\"", "action": "Action::\"view\"", "resource": "Doc::\"d\"", "context": {"mfa": true}})");
  ASSERT_THAT(ok, IsOk());
  EXPECT_THAT(ValidateRequest(*schema, *ok), IsOk());
  absl::StatusOr<Request> wrong = Request::FromJson(
      R"({"principal": "Doc::\"d\"", "action": "Action::\"view\"", "resource": "Doc::\"d\"", "context": {"mfa": true}})");
  EXPECT_THAT(ValidateRequest(*schema, *wrong),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "request: action `Action::\"view\"` does not apply to principals of type `Doc`"));
  absl::StatusOr<Request> ctx = Request::FromJson(
      R"({"principal": "User::\"a\"", "action": "Action::\"view\"", "resource": "Doc::\"d\"", "context": {}})");
  EXPECT_THAT(ValidateRequest(*schema, *ctx), StatusIs(absl::StatusCode::kInvalidArgument,
                                                       "request: `context` lacks the required attribute `mfa`"));
}

}  // namespace
}  // namespace charter

#include <fstream>
#include <sstream>

namespace charter {
namespace {

std::string ReadRepoFile(const char* path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The standard governance model reads, round-trips, and its rules validate
// cleanly against it (cedar-wasm agrees; see docs/model.md).
TEST(Stdlib, GovernanceModelAndRulesValidate) {
  std::string text = ReadRepoFile("stdlib/governance.cedarschema");
  ASSERT_FALSE(text.empty()) << "run from the repository root";
  SourceFile source("stdlib/governance.cedarschema", text);
  Diagnostics d;
  absl::StatusOr<Schema> schema = Schema::Parse(source, {}, &d);
  ASSERT_THAT(schema, IsOk()) << d.Render(source);
  EXPECT_THAT(Schema::Parse(SourceFile("json", schema->ToJson()), {}, nullptr), IsOk());
  SourceFile rules("stdlib/governance.cedar", ReadRepoFile("stdlib/governance.cedar"));
  Diagnostics v;
  EXPECT_THAT(Validate(*schema, rules, {}, &v), IsOk()) << v.Render(rules);
  EXPECT_TRUE(v.empty()) << v.Render(rules);
}

}  // namespace
}  // namespace charter
