// Entities and requests read with a schema (Entities::FromJson and
// Request::FromJson with a schema): the plain forms of entity and extension
// values, conformance to the declared types with a precise error (entity,
// attribute path, position), the schema's actions in the store, and request
// checks. Every accept/reject below was checked against cedar-wasm 4.13
// (checkParseEntities and isAuthorized with the same schema); the
// differential harness tests/oracle/schema_data.js compares generated cases.
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
entity Color enum ["red", "green"];
entity User in [Team] {
  level: Long,
  manager?: User,
  addr?: ipaddr,
  budget?: decimal,
  start?: datetime,
  ttl?: duration,
  name?: String,
  admin?: Bool,
  color?: Color,
  profile?: { dept: String, floor?: Long },
  roles?: Set<String>,
  managers?: Set<User>,
} tags datetime;
entity Plain;
entity Task { owner: User };
action all;
action read in [all];
action view in [read] appliesTo {
  principal: User, resource: [Task, Color], context: { ip?: ipaddr, who?: User, limits?: { d: duration } }
};
action paint appliesTo { principal: User, resource: Color };
)";

const Schema& TheSchema() {
  static const Schema* schema = [] {
    absl::StatusOr<Schema> s = Schema::Parse(SourceFile("model.cedarschema", kSchema), {}, nullptr);
    if (!s.ok()) std::abort();
    return new Schema(*std::move(s));
  }();
  return *schema;
}

// User::"a" with these attributes (level 1 unless given) and tags.
std::string UserJson(const std::string& attrs, const std::string& tags = "{}") {
  std::string all = attrs.empty() ? R"("level": 1)" : attrs;
  if (attrs.find("\"level\"") == std::string::npos && !attrs.empty()) all = R"("level": 1, )" + attrs;
  return R"([{"uid": {"type": "User", "id": "a"}, "attrs": {)" + all + R"(}, "parents": [], "tags": )" + tags +
         "}]";
}

std::string LoadError(const std::string& json) {
  absl::StatusOr<Entities> e = Entities::FromJson(json, TheSchema());
  return e.ok() ? "" : std::string(e.status().message());
}

TEST(SchemaData, PlainFormsAreAccepted) {
  const char* accepted[] = {
      R"("manager": {"type": "User", "id": "b"})",
      R"("manager": {"__entity": {"type": "User", "id": "b"}})",
      R"("manager": {"type": "User", "id": "b", "note": 1})",
      R"("manager": ["User", "b"])",
      R"("addr": "10.0.0.1")",
      R"("addr": {"__extn": {"fn": "ip", "arg": "10.0.0.1"}})",
      R"("addr": {"fn": "ip", "arg": "10.0.0.1"})",
      R"("addr": {"__extn": {"fn": "ip", "args": ["10.0.0.1"]}})",
      R"("budget": "1.5", "start": "2024-01-01T10:00:00Z", "ttl": "1h30m")",
      R"("start": {"__extn": {"fn": "offset", "args": ["2024-01-01", "1h"]}})",
      R"("color": {"type": "Color", "id": "red"})",
      R"("profile": {"dept": "ml"})",
      R"("roles": ["a", "a"], "managers": [{"type": "User", "id": "x"}, ["User", "y"]])",
      R"("name": "x", "admin": true)",
  };
  for (const char* attrs : accepted) {
    EXPECT_EQ(LoadError(UserJson(attrs)), "") << attrs;
  }
  EXPECT_EQ(LoadError(UserJson("", R"({"t": "2024-06-01"})")), "");
  EXPECT_EQ(LoadError(R"([{"uid": {"type": "Plain", "id": "p"}, "attrs": {}, "parents": [], "tags": {}}])"), "");
  EXPECT_EQ(LoadError(R"([{"uid": {"type": "Color", "id": "green"}, "attrs": {}, "parents": []}])"), "");
}

TEST(SchemaData, FaultsNameTheEntityAndTheAttribute) {
  struct Case {
    std::string json;
    std::string message;
  };
  const Case cases[] = {
      {UserJson(R"("manager": {"type": "Team", "id": "b"})"),
       R"(entities.json:1:72: entity User::"a": attribute `manager`: expected an entity of type `User`, found `Team::"b"`)"},
      {UserJson(R"("manager": "User::\"b\"")"),
       R"(entities.json:1:72: entity User::"a": attribute `manager`: expected an entity of type `User`: an object with string `type` and `id`)"},
      {UserJson(R"("manager": {"type": "User"})"),
       R"(entities.json:1:72: entity User::"a": attribute `manager`: expected an entity of type `User`: an object with string `type` and `id`)"},
      {UserJson(R"("manager": null)"),
       R"(entities.json:1:72: entity User::"a": attribute `manager`: expected an entity of type `User`: an object with string `type` and `id`)"},
      {UserJson(R"("addr": "10.0.0.256")"),
       R"(entities.json:1:69: entity User::"a": attribute `addr`: invalid IP address `10.0.0.256`)"},
      {UserJson(R"("addr": 5)"),
       R"(entities.json:1:69: entity User::"a": attribute `addr`: expected `ipaddr`: its string, such as `10.0.0.1`, or an `__extn` object)"},
      {UserJson(R"("addr": {"__extn": {"fn": "decimal", "arg": "1.0"}})"),
       R"(entities.json:1:69: entity User::"a": attribute `addr`: expected `ipaddr`, found a decimal)"},
      {UserJson(R"("budget": "1.23456")"),
       R"(entities.json:1:71: entity User::"a": attribute `budget`: invalid decimal `1.23456`: more than 4 digits after the `.`)"},
      {R"([{"uid": {"type": "User", "id": "a"}, "attrs": {}, "parents": []}])",
       R"(entities.json:1:48: entity User::"a": lacks the required attribute `level`)"},
      {UserJson(R"("level": "1")"),
       R"(entities.json:1:58: entity User::"a": attribute `level`: expected `Long`, found a string)"},
      {UserJson(R"("extra": 2)"),
       R"(entities.json:1:61: entity User::"a": attribute `extra` is not declared in the schema)"},
      {UserJson(R"("profile": {"dept": "ml", "room": 2})"),
       R"(entities.json:1:87: entity User::"a": attribute `profile.room` is not declared in the schema)"},
      {UserJson(R"("profile": {})"),
       R"(entities.json:1:72: entity User::"a": attribute `profile`: lacks the required attribute `dept`)"},
      {UserJson(R"("roles": ["a", 1])"),
       R"(entities.json:1:76: entity User::"a": attribute `roles[1]`: expected `String`, found a long)"},
      {UserJson(R"("roles": {})"),
       R"(entities.json:1:70: entity User::"a": attribute `roles`: expected `Set<String>`, found a record)"},
      {UserJson(R"("color": {"type": "Color", "id": "blue"})"),
       R"(entities.json:1:70: entity User::"a": attribute `color`: `Color::"blue"` is not one of the values of enumerated type `Color`)"},
      {UserJson(R"("name": {"__extn": {"fn": "ip", "arg": "10.0.0.1"}})"),
       R"(entities.json:1:69: entity User::"a": attribute `name`: expected `String`, found an ipaddr)"},
      {UserJson("", R"({"t": 5})"),
       R"(entities.json:1:91: entity User::"a": tag `t`: expected `datetime`: its string, such as `2025-01-01`, or an `__extn` object)"},
      {R"([{"uid": {"type": "Plain", "id": "p"}, "attrs": {}, "parents": [], "tags": {"a": "x"}}])",
       R"(entities.json:1:77: entity Plain::"p": entity type `Plain` has no tags)"},
      {R"([{"uid": {"type": "Ghost", "id": "g"}, "attrs": {}, "parents": []}])",
       R"(entities.json:1:10: entity Ghost::"g": the schema declares no entity type `Ghost`)"},
      {R"([{"uid": {"type": "Color", "id": "blue"}, "attrs": {}, "parents": []}])",
       R"(entities.json:1:10: entity Color::"blue": `blue` is not one of the values of enumerated type `Color`)"},
      {R"([{"uid": {"type": "Color", "id": "red"}, "attrs": {"x": 1}, "parents": []}])",
       R"(entities.json:1:52: entity Color::"red": attribute `x` is not declared in the schema)"},
      {R"([{"uid": {"type": "User", "id": "a"}, "attrs": {"level": 1}, "parents": [{"type": "Task", "id": "t"}]}])",
       R"(entities.json:1:74: entity User::"a": `User` cannot be a member of `Task::"t"` according to the schema)"},
      {R"([{"uid": {"type": "Action", "id": "nope"}, "attrs": {}, "parents": []}])",
       R"(entities.json:1:10: entity Action::"nope" is not an action of the schema)"},
      {R"([{"uid": {"type": "Action", "id": "view"}, "attrs": {}, "parents": []}])",
       R"(entities.json:1:2: action Action::"view" has other groups in the entities than in the schema; leave it out of the entities to use the schema's)"},
      {R"([{"uid": {"type": "Action", "id": "view"}, "attrs": {"x": 1}, "parents": [{"type": "Action", "id": "read"}]}])",
       R"(entities.json:1:2: entity Action::"view" has attributes or tags, which the schema's actions do not have)"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(LoadError(c.json), c.message) << c.json;
  }
}

TEST(SchemaData, ActionsComeFromTheSchema) {
  // No action in the entities: `action in Action::"all"` follows the
  // schema's groups (view in read in all).
  absl::StatusOr<Entities> none = Entities::FromJson(UserJson(""), TheSchema());
  ASSERT_THAT(none, IsOk());
  // An action listed with all of its groups is the schema's.
  absl::StatusOr<Entities> listed = Entities::FromJson(
      R"([{"uid": {"type": "Action", "id": "view"}, "attrs": {}, "parents": [{"type": "Action", "id": "read"}]},
          {"uid": {"type": "Action", "id": "read"}, "attrs": {}, "parents": [{"type": "Action", "id": "all"}]}])",
      TheSchema());
  ASSERT_THAT(listed, IsOk());
  absl::StatusOr<Bundle> bundle = Compile(
      SourceFile("p.cedar", R"(permit (principal, action in Action::"all", resource);)"), {}, nullptr);
  ASSERT_THAT(bundle, IsOk());
  absl::StatusOr<Engine> engine = Engine::Create(*bundle);
  ASSERT_THAT(engine, IsOk());
  Request request = Request::Create({"User", "a"}, {"Action", "view"}, {"Task", "t"});
  EXPECT_TRUE(engine->Authorize(request, *none).allowed);
  EXPECT_TRUE(engine->Authorize(request, *listed).allowed);
  absl::StatusOr<Entities> without = Entities::FromJson(UserJson(""));
  ASSERT_THAT(without, IsOk());
  EXPECT_FALSE(engine->Authorize(request, *without).allowed);
}

std::string RequestError(const std::string& json) {
  absl::StatusOr<Request> r = Request::FromJson(json, TheSchema());
  return r.ok() ? "" : std::string(r.status().message());
}

TEST(SchemaData, Requests) {
  absl::StatusOr<Request> ok = Request::FromJson(
      R"({"principal": "User::\"a\"", "action": "Action::\"view\"", "resource": "Task::\"t\"",
          "context": {"ip": "10.1.2.3", "who": {"type": "User", "id": "b"}, "limits": {"d": "1h"}}})",
      TheSchema());
  ASSERT_THAT(ok, IsOk());
  absl::StatusOr<Bundle> bundle = Compile(SourceFile("p.cedar", R"(
    permit (principal, action, resource)
    when { context.ip.isInRange(ip("10.0.0.0/8")) && context.who == User::"b" &&
           context.limits.d == duration("60m") };)"),
                                          {}, nullptr);
  ASSERT_THAT(bundle, IsOk());
  absl::StatusOr<Engine> engine = Engine::Create(*bundle);
  ASSERT_THAT(engine, IsOk());
  EXPECT_TRUE(engine->Authorize(*ok, Entities()).allowed);

  EXPECT_EQ(RequestError(R"({"principal": "User::\"a\"", "action": "Action::\"paint\"", "resource": "Color::\"red\""})"), "");
  const std::pair<const char*, const char*> bad[] = {
      {R"({"principal": "Task::\"a\"", "action": "Action::\"view\"", "resource": "Task::\"t\""})",
       "request.json:1:15: `principal`: action `Action::\"view\"` does not apply to principals of type `Task`"},
      {R"({"principal": "User::\"a\"", "action": "Action::\"nope\"", "resource": "Task::\"t\""})",
       "request.json:1:40: `action`: the schema declares no action `Action::\"nope\"`"},
      {R"({"principal": "User::\"a\"", "action": "Action::\"read\"", "resource": "Task::\"t\""})",
       "request.json:1:15: `principal`: action `Action::\"read\"` does not apply to principals of type `User`"},
      {R"({"principal": "User::\"a\"", "action": "Action::\"view\"", "resource": "Color::\"blue\""})",
       "request.json:1:72: `resource`: `Color::\"blue\"` is not one of the values of enumerated type `Color`"},
      {R"({"principal": "User::\"a\"", "action": "Action::\"view\"", "resource": "Task::\"t\"", "context": {"x": 1}})",
       "request.json:1:99: context: attribute `x` is not declared in the schema"},
      {R"({"principal": "User::\"a\"", "action": "Action::\"view\"", "resource": "Task::\"t\"", "context": {"ip": 1}})",
       "request.json:1:105: context: attribute `ip`: expected `ipaddr`: its string, such as `10.0.0.1`, or an `__extn` object"},
      {R"({"principal": "User::\"a\"", "action": "Action::\"view\"", "resource": "Task::\"t\"", "context": {"limits": {}}})",
       "request.json:1:109: context: attribute `limits`: lacks the required attribute `d`"},
  };
  for (const auto& [json, message] : bad) EXPECT_EQ(RequestError(json), message) << json;
  absl::StatusOr<std::vector<Request>> batch = Request::ArrayFromJson(
      R"([{"principal": "User::\"a\"", "action": "Action::\"view\"", "resource": "Task::\"t\""},
          {"principal": "User::\"a\"", "action": "Action::\"view\"", "resource": "Team::\"t\""}])",
      TheSchema());
  ASSERT_THAT(batch,
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "requests.json:2:82: `resource`: action `Action::\"view\"` does not apply to resources of type `Team`"));
}

}  // namespace
}  // namespace charter
