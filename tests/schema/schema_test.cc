// Schema reading (Cedar text and JSON), writing (both directions, round
// trips), and every schema diagnostic with its code, message and underline.
#include <string>

#include "charter/schema.h"
#include "gtest/gtest.h"

namespace charter {
namespace {

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
  ASSERT_TRUE(s.ok()) << d.Render(SourceFile("s.cedarschema", kText));
  EXPECT_EQ(s->EntityTypes(),
            (std::vector<std::string>{"Acme::Doc", "Color", "Org", "Team", "User"}));
  std::vector<EntityUid> actions = s->Actions();
  ASSERT_EQ(actions.size(), 4u);
  EXPECT_EQ(actions[0].type, "Acme::Action");
  EXPECT_EQ(actions[0].id, "approve");
}

TEST(Schema, RoundTripsThroughBothFormats) {
  absl::StatusOr<Schema> s = Parse(kText, nullptr);
  ASSERT_TRUE(s.ok());
  std::string json = s->ToJson();
  Diagnostics d;
  absl::StatusOr<Schema> from_json = Parse(json, &d);
  ASSERT_TRUE(from_json.ok()) << json << d.Render(SourceFile("j", json));
  EXPECT_EQ(from_json->EntityTypes(), s->EntityTypes());
  EXPECT_EQ(from_json->ToJson(), json);
  std::string text = s->ToCedar();
  absl::StatusOr<Schema> from_text = Parse(text, &d);
  ASSERT_TRUE(from_text.ok()) << text;
  EXPECT_EQ(from_text->ToCedar(), text);
  EXPECT_EQ(from_text->ToJson(), json);
  EXPECT_NE(json.find("\"memberOfTypes\": [\"Team\"]"), std::string::npos) << json;
  EXPECT_NE(json.find("\"enum\": [\"red\", \"green\"]"), std::string::npos) << json;
  EXPECT_NE(text.find("entity Color enum [\"red\", \"green\"];"), std::string::npos) << text;
  EXPECT_NE(text.find("@doc(\"people\")"), std::string::npos) << text;
  // Reserved words are quoted when written back as attribute names.
  absl::StatusOr<Schema> reserved = Parse("entity User { \"if\": Bool, \"in\"?: Long };", nullptr);
  ASSERT_TRUE(reserved.ok());
  EXPECT_NE(reserved->ToCedar().find("\"if\": Bool"), std::string::npos) << reserved->ToCedar();
}

struct Case {
  const char* text;
  const char* code;
  const char* message;
  const char* underlined;
};

TEST(Schema, EveryDiagnostic) {
  const Case cases[] = {
      {"entity User {", "CH0401", "unexpected the end of the schema", "{"},
      {"entity User = { a: Long } junk;", "CH0401", "unexpected `junk`", "junk"},
      {"entity \"User\";", "CH0401", "unexpected a string", "\"User\""},
      {"entity User { a: \"x }", "CH0402", "unterminated string literal", "\"x }"},
      {"entity User { \"a\\q\": Long };", "CH0402", "invalid escape `\\q` in a string", "\\q"},
      {"entity User { if: Bool };", "CH0401", "`if` is a reserved identifier", "if"},
      {"entity User # ;", "CH0402", "unexpected character `#`", "#"},
      {"entity User;\nentity User;", "CH0403", "entity type `User` is declared twice", "User"},
      {"entity User { a: Long, a: String };", "CH0403", "attribute `a` is declared twice", "a"},
      {"entity User { a: Lng };", "CH0404", "undeclared type `Lng`", "Lng"},
      {"entity User in [Grp];", "CH0405", "undeclared entity type `Grp` in `in`", "Grp"},
      {"action view in [read];", "CH0406", "undeclared action `Action::\"read\"` in `in`", "read"},
      {"type A = B;\ntype B = A;", "CH0407", "common type `A` refers to itself", "A"},
      {"type Long = String;", "CH0408", "`Long` is reserved and cannot be a common type name", "Long"},
      {"type T = Long;\nentity User = T;", "CH0409", "the shape of an entity type must be a record, not `Long`", "T"},
      {"{\"\": {\"entityTypes\": {}, \"actions\": {}, \"bogus\": 1}}", "CH0410",
       "unknown field `bogus` in a namespace", "\"bogus\""},
      {"{\"\": {\"entityTypes\": {}, \"actions\": {}}", "CH0411", "", nullptr},
  };
  for (const Case& c : cases) {
    Diagnostics d;
    absl::StatusOr<Schema> s = Parse(c.text, &d);
    EXPECT_FALSE(s.ok()) << c.text;
    ASSERT_FALSE(d.empty()) << c.text;
    const Diagnostic& x = d.items()[0];
    EXPECT_EQ(x.code, c.code) << c.text << "\n" << x.message;
    if (*c.message != '\0') EXPECT_EQ(x.message, c.message) << c.text;
    if (c.underlined != nullptr) {
      EXPECT_EQ(std::string(c.text).substr(x.span.begin, x.span.end - x.span.begin), c.underlined)
          << c.text;
    }
  }
}

TEST(Schema, NestingLimit) {
  std::string deep = "entity User { a: ";
  for (int i = 0; i < 100; ++i) deep += "Set<";
  deep += "Long";
  for (int i = 0; i < 100; ++i) deep += ">";
  deep += " };";
  Diagnostics d;
  EXPECT_FALSE(Parse(deep, &d).ok());
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
  ASSERT_TRUE(schema.ok());
  absl::StatusOr<Entities> good = Entities::FromJson(R"([
    {"uid": {"type": "User", "id": "a"}, "attrs": {"level": 1}, "parents": [{"type": "Team", "id": "t"}]},
    {"uid": {"type": "Doc", "id": "d"}, "attrs": {"owner": {"__entity": {"type": "User", "id": "a"}}}, "parents": []}])");
  ASSERT_TRUE(good.ok()) << good.status();
  EXPECT_TRUE(ValidateEntities(*schema, *good).ok());
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
    ASSERT_TRUE(e.ok()) << e.status();
    absl::Status s = ValidateEntities(*schema, *e);
    EXPECT_EQ(std::string(s.message()), message) << json;
  }
  absl::StatusOr<Request> ok = Request::FromJson(
      R"({"principal": "User::\"a\"", "action": "Action::\"view\"", "resource": "Doc::\"d\"", "context": {"mfa": true}})");
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_TRUE(ValidateRequest(*schema, *ok).ok());
  absl::StatusOr<Request> wrong = Request::FromJson(
      R"({"principal": "Doc::\"d\"", "action": "Action::\"view\"", "resource": "Doc::\"d\"", "context": {"mfa": true}})");
  EXPECT_EQ(std::string(ValidateRequest(*schema, *wrong).message()),
            "request: action `Action::\"view\"` does not apply to principals of type `Doc`");
  absl::StatusOr<Request> ctx = Request::FromJson(
      R"({"principal": "User::\"a\"", "action": "Action::\"view\"", "resource": "Doc::\"d\"", "context": {}})");
  EXPECT_EQ(std::string(ValidateRequest(*schema, *ctx).message()),
            "request: `context` lacks the required attribute `mfa`");
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
  ASSERT_TRUE(schema.ok()) << d.Render(source);
  EXPECT_TRUE(Schema::Parse(SourceFile("json", schema->ToJson()), {}, nullptr).ok());
  SourceFile rules("stdlib/governance.cedar", ReadRepoFile("stdlib/governance.cedar"));
  Diagnostics v;
  EXPECT_TRUE(Validate(*schema, rules, {}, &v).ok()) << v.Render(rules);
  EXPECT_TRUE(v.empty()) << v.Render(rules);
}

}  // namespace
}  // namespace charter
