// Each construct of the policy language, evaluated end to end: the
// expected values follow Cedar's semantics (../shared/research/cedar-language.md).
#include <string>

#include "charter/charter.h"
#include "gtest/gtest.h"

namespace charter {
namespace {

constexpr char kEntities[] = R"([
  {"uid": {"type": "User", "id": "alice"},
   "attrs": {"level": 3, "name": "alice@example.com", "roles": ["admin", "dev"],
             "profile": {"team": "ml", "age": 30}, "big": 9007199254740991,
             "addr": {"__extn": {"fn": "ip", "arg": "192.168.1.7"}},
             "limit": {"__extn": {"fn": "decimal", "arg": "12.5"}},
             "since": {"__extn": {"fn": "datetime", "arg": "2024-05-01T10:00:00Z"}}},
   "parents": [{"type": "Team", "id": "ml"}],
   "tags": {"env": "prod", "tier": 2}},
  {"uid": {"type": "Team", "id": "ml"}, "attrs": {}, "parents": []},
  {"uid": {"type": "NS::Task", "id": "t1"}, "attrs": {}, "parents": []}
])";

class LanguageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto e = Entities::FromJson(kEntities);
    ASSERT_TRUE(e.ok()) << e.status();
    entities_ = *std::move(e);
  }

  // The outcome of `permit(principal, action, resource) when { EXPR };` for
  // alice: "true", "false" or "error: <message>".
  std::string Eval(const std::string& expr) {
    SourceFile source("t.cedar", "permit(principal, action, resource) when { " + expr + " };");
    Diagnostics diagnostics;
    auto bundle = Compile(source, {}, &diagnostics);
    if (!bundle.ok()) return "compile error: " + diagnostics.RenderShort(source);
    auto engine = Engine::Create(*std::move(bundle));
    if (!engine.ok()) return "verify error: " + std::string(engine.status().message());
    Request r = Request::Create({"User", "alice"}, {"Action", "view"}, {"NS::Task", "t1"});
    Decision d = engine->Authorize(r, entities_);
    if (!d.errors.empty()) return "error: " + d.errors[0].message;
    return d.allowed ? "true" : "false";
  }

  Entities entities_;
};

TEST_F(LanguageTest, Arithmetic) {
  EXPECT_EQ(Eval("1 + 2 * 3 == 7"), "true");
  EXPECT_EQ(Eval("10 - 20 == -10"), "true");
  EXPECT_EQ(Eval("-principal.level == -3"), "true");
  EXPECT_EQ(Eval("--3 == 3"), "true");
  EXPECT_EQ(Eval("9223372036854775807 + 1 == 0"),
            "error: integer overflow while attempting to add the values 9223372036854775807 and 1");
  EXPECT_EQ(Eval("-9223372036854775808 - 1 == 0").substr(0, 22), "error: integer overflo");
  EXPECT_EQ(Eval("9223372036854775807 * 2 == 0").substr(0, 22), "error: integer overflo");
  EXPECT_EQ(Eval("-(-9223372036854775808) == 0"),
            "error: integer overflow while attempting to negate the value -9223372036854775808");
  EXPECT_EQ(Eval("-9223372036854775808 == -9223372036854775807 - 1"), "true");
  EXPECT_EQ(Eval("\"a\" + 1 == 1"), "error: type error: expected long, got string");
}

TEST_F(LanguageTest, Comparisons) {
  EXPECT_EQ(Eval("1 < 2 && 2 <= 2 && 3 > 2 && 3 >= 3"), "true");
  EXPECT_EQ(Eval("2 < 1"), "false");
  EXPECT_EQ(Eval("principal.level > 5"), "false");
  EXPECT_EQ(Eval("\"a\" < \"b\""), "error: type error: expected long, got string");
  EXPECT_EQ(Eval("1 < true"), "error: type error: expected long, got bool");
}

TEST_F(LanguageTest, EqualityIsTotal) {
  EXPECT_EQ(Eval("1 == \"1\""), "false");
  EXPECT_EQ(Eval("[1, 2] == [2, 1, 1]"), "true");
  EXPECT_EQ(Eval("{a: 1, b: [true]} == {b: [true], a: 1}"), "true");
  EXPECT_EQ(Eval("{a: 1} == {a: 1, b: 2}"), "false");
  EXPECT_EQ(Eval("principal == User::\"alice\""), "true");
  EXPECT_EQ(Eval("principal != User::\"bob\""), "true");
}

TEST_F(LanguageTest, Sets) {
  EXPECT_EQ(Eval("principal.roles.contains(\"admin\")"), "true");
  EXPECT_EQ(Eval("principal.roles.contains(1)"), "false");
  EXPECT_EQ(Eval("principal.roles.containsAll([\"dev\", \"admin\"])"), "true");
  EXPECT_EQ(Eval("principal.roles.containsAll([\"dev\", \"ops\"])"), "false");
  EXPECT_EQ(Eval("principal.roles.containsAny([\"ops\", \"dev\"])"), "true");
  EXPECT_EQ(Eval("[].isEmpty() && ![1].isEmpty()"), "true");
  EXPECT_EQ(Eval("\"abc\".contains(\"a\")"), "error: type error: expected set, got string");
  EXPECT_EQ(Eval("[1].containsAll(1)"), "error: type error: expected set, got long");
  EXPECT_EQ(Eval("principal in [Team::\"ml\", Team::\"other\"]"), "true");
  EXPECT_EQ(Eval("principal in [Team::\"other\"]"), "false");
  EXPECT_EQ(Eval("principal in [Team::\"ml\", 1]"), "error: type error: expected set of entities, got long");
}

TEST_F(LanguageTest, Records) {
  EXPECT_EQ(Eval("{a: 1, \"b c\": \"x\"}[\"b c\"] == \"x\""), "true");
  EXPECT_EQ(Eval("{a: 1}.b == 1"), "error: record does not have the attribute `b`");
  EXPECT_EQ(Eval("{a: 1} has a && !({a: 1} has b)"), "true");
  EXPECT_EQ(Eval("principal.profile.team == \"ml\""), "true");
  EXPECT_EQ(Eval("principal has profile.team && !(principal has profile.nope)"), "true");
  EXPECT_EQ(Eval("principal has nope.team"), "false");
}

TEST_F(LanguageTest, Like) {
  EXPECT_EQ(Eval("principal.name like \"*@example.com\""), "true");
  EXPECT_EQ(Eval("principal.name like \"alice*\""), "true");
  EXPECT_EQ(Eval("principal.name like \"*ice@*.com\""), "true");
  EXPECT_EQ(Eval("principal.name like \"bob*\""), "false");
  EXPECT_EQ(Eval("\"a*b\" like \"a\\*b\""), "true");
  EXPECT_EQ(Eval("\"axb\" like \"a\\*b\""), "false");
  EXPECT_EQ(Eval("\"\" like \"*\""), "true");
  EXPECT_EQ(Eval("\"ab\" like \"a*b*\""), "true");
  EXPECT_EQ(Eval("\"aXbXb\" like \"a*b\""), "true");
  EXPECT_EQ(Eval("\"aa\" like \"a*a*a\""), "false");
  EXPECT_EQ(Eval("\"caf\\u{e9}\" like \"caf*\""), "true");
  EXPECT_EQ(Eval("1 like \"*\""), "error: type error: expected string, got long");
}

TEST_F(LanguageTest, Is) {
  EXPECT_EQ(Eval("principal is User"), "true");
  EXPECT_EQ(Eval("resource is NS::Task"), "true");
  EXPECT_EQ(Eval("resource is Task"), "false");
  EXPECT_EQ(Eval("principal is User in Team::\"ml\""), "true");
  EXPECT_EQ(Eval("principal is Team in 1"), "false");  // `in` is not reached
  EXPECT_EQ(Eval("principal is User in 1"), "error: type error: expected entity or set of entities, got long");
  EXPECT_EQ(Eval("1 is User"), "error: type error: expected entity, got long");
}

TEST_F(LanguageTest, Tags) {
  EXPECT_EQ(Eval("principal.hasTag(\"env\") && principal.getTag(\"env\") == \"prod\""), "true");
  EXPECT_EQ(Eval("principal.hasTag(\"nope\")"), "false");
  EXPECT_EQ(Eval("User::\"ghost\".hasTag(\"env\")"), "false");
  EXPECT_EQ(Eval("principal.getTag(\"nope\") == 1"),
            "error: `User::\"alice\"` does not have the tag `nope`");
  EXPECT_EQ(Eval("User::\"ghost\".getTag(\"env\") == 1"), "error: entity `User::\"ghost\"` does not exist");
}

TEST_F(LanguageTest, IfThenElse) {
  EXPECT_EQ(Eval("if principal.level == 3 then true else principal.nope"), "true");
  EXPECT_EQ(Eval("if 1 then true else false"), "error: type error: expected bool, got long");
  EXPECT_EQ(Eval("(if false then 1 else 2) == 2"), "true");
}

TEST_F(LanguageTest, Extensions) {
  EXPECT_EQ(Eval("ip(\"10.0.0.1\").isIpv4() && ip(\"::1\").isLoopback()"), "true");
  EXPECT_EQ(Eval("ip(\"10.1.2.3\").isInRange(ip(\"10.0.0.0/8\"))"), "true");
  EXPECT_EQ(Eval("ip(\"10.0.0.1/24\") == ip(\"10.0.0.0/24\")"), "false");
  EXPECT_EQ(Eval("decimal(\"1.0\") == decimal(\"1.00\")"), "true");
  EXPECT_EQ(Eval("decimal(\"1.5\").lessThan(decimal(\"2.25\"))"), "true");
  EXPECT_EQ(Eval("datetime(\"2024-01-01\") < datetime(\"2024-01-01T00:00:01Z\")"), "true");
  EXPECT_EQ(Eval("duration(\"1h30m\").toMinutes() == 90"), "true");
  EXPECT_EQ(Eval("datetime(\"2024-01-02T03:04:05Z\").toDate() == datetime(\"2024-01-02\")"), "true");
  EXPECT_EQ(Eval("datetime(\"2024-01-01\").offset(duration(\"1d\")) == datetime(\"2024-01-02\")"), "true");
  EXPECT_EQ(Eval("ip(\"not an ip\").isIpv4()").substr(0, 6), "error:");
  EXPECT_EQ(Eval("decimal(1) == decimal(\"1.0\")"), "error: type error: expected string, got long");
  EXPECT_EQ(Eval("duration(\"1h\") < datetime(\"2024-01-01\")"),
            "error: type error: expected duration, got datetime");
}

TEST_F(LanguageTest, ExtensionValuesFromEntityJson) {
  EXPECT_EQ(Eval("principal.addr.isInRange(ip(\"192.168.0.0/16\"))"), "true");
  EXPECT_EQ(Eval("principal.limit == decimal(\"12.50\")"), "true");
  EXPECT_EQ(Eval("principal.since > datetime(\"2024-01-01\")"), "true");
}

TEST(EntityJson, BadExtensionValuesAreErrors) {
  auto e = Entities::FromJson(R"([{"uid": {"type": "U", "id": "a"},
    "attrs": {"x": {"__extn": {"fn": "ip", "arg": "999.1.1.1"}}}, "parents": []}])");
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(std::string(e.status().message()).substr(0, 19), "entities.json:2:51:");
  e = Entities::FromJson(R"([{"uid": {"type": "U", "id": "a"},
    "attrs": {"x": {"__extn": {"fn": "nope", "arg": "1"}}}, "parents": []}])");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(std::string(e.status().message()).find("unknown extension function `nope`"), std::string::npos);
}

TEST_F(LanguageTest, LongFlatChainsCompileAndEvaluate) {
  std::string ors = "false";
  for (int i = 0; i < 20000; ++i) ors += " || false";
  EXPECT_EQ(Eval(ors + " || principal.level == 3"), "true");
  EXPECT_EQ(Eval(ors), "false");
  EXPECT_EQ(Eval(ors + " || 1"), "error: type error: expected bool, got long");
  std::string sum = "0";
  for (int i = 0; i < 20000; ++i) sum += " + 1";
  EXPECT_EQ(Eval(sum + " == 20000"), "true");
  std::string ands = "true";
  for (int i = 0; i < 20000; ++i) ands += " && true";
  EXPECT_EQ(Eval(ands + " && principal.nope"), "error: `User::\"alice\"` does not have the attribute `nope`");
}

// The set and tag methods' arity is checked when compiling; an extension
// call with the wrong arity compiles and fails when evaluated, as in Cedar.
TEST_F(LanguageTest, ArityIsCheckedWhenCompilingOrEvaluating) {
  EXPECT_NE(Eval("[1].contains()").find("`contains` takes 1 argument, 0 given"), std::string::npos);
  EXPECT_EQ(Eval("ip(\"1.2.3.4\", \"x\").isIpv4()"),
            "error: wrong number of arguments provided to extension function `ip`: expected 1, got 2");
}

TEST(Templates, LinksBecomePolicies) {
  SourceFile source("t.cedar", R"(
    @id("tpl") permit(principal == ?principal, action, resource in ?resource);
    @id("static") forbid(principal, action, resource) when { principal == User::"mallory" };
  )");
  auto links = ParseTemplateLinks(R"([
    {"template_id": "tpl", "link_id": "alice-ml", "args": {"?principal": "User::\"alice\"",
                                                           "?resource": {"type": "Team", "id": "ml"}}},
    {"template_id": "tpl", "link_id": "mallory-ml", "args": {"?principal": "User::\"mallory\"",
                                                             "?resource": "Team::\"ml\""}}])");
  ASSERT_TRUE(links.ok()) << links.status();
  auto bundle = Compile(source, *links, {}, nullptr);
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  auto engine = Engine::Create(*std::move(bundle));
  ASSERT_TRUE(engine.ok());
  EXPECT_EQ(engine->policy_ids(), (std::vector<std::string>{"static", "alice-ml", "mallory-ml"}));
  auto entities = Entities::FromJson(R"([{"uid": {"type": "Doc", "id": "d"}, "attrs": {},
                                          "parents": [{"type": "Team", "id": "ml"}]}])");
  ASSERT_TRUE(entities.ok());
  Decision d = engine->Authorize(Request::Create({"User", "alice"}, {"Action", "a"}, {"Doc", "d"}), *entities);
  EXPECT_TRUE(d.allowed);
  EXPECT_EQ(d.reasons, (std::vector<std::string>{"alice-ml"}));
  d = engine->Authorize(Request::Create({"User", "mallory"}, {"Action", "a"}, {"Doc", "d"}), *entities);
  EXPECT_FALSE(d.allowed);
  EXPECT_EQ(d.reasons, (std::vector<std::string>{"static"}));
  d = engine->Authorize(Request::Create({"User", "bob"}, {"Action", "a"}, {"Doc", "d"}), *entities);
  EXPECT_FALSE(d.allowed);
}

TEST(Templates, BadLinksAreErrors) {
  SourceFile source("t.cedar", R"(@id("tpl") permit(principal == ?principal, action, resource);)");
  auto compile = [&](const std::string& json) -> std::string {
    auto links = ParseTemplateLinks(json);
    if (!links.ok()) return std::string(links.status().message());
    auto bundle = Compile(source, *links, {}, nullptr);
    return bundle.ok() ? "ok" : std::string(bundle.status().message());
  };
  // A link read from JSON is an error at its place there (issue 15).
  EXPECT_EQ(compile(R"([{"template_id": "nope", "link_id": "l", "args": {}}])"),
            "links.json:1:2: link `l`: there is no template `nope`");
  EXPECT_EQ(compile(R"([{"template_id": "tpl", "link_id": "l", "args": {}}])"),
            "links.json:1:2: link `l`: template `tpl` needs a value for `?principal`");
  EXPECT_EQ(compile(R"([{"template_id": "tpl", "link_id": "l", "args": {"?principal": "User::\"a\"",
                        "?resource": "User::\"b\""}}])"),
            "links.json:1:2: link `l`: template `tpl` has no slot `?resource`");
  EXPECT_EQ(compile(R"([{"template_id": "tpl", "link_id": "tpl", "args": {"?principal": "User::\"a\""}}])"),
            "links.json:1:2: link `tpl`: the policy id `tpl` is already taken");
  EXPECT_EQ(compile(R"([{"template_id": "tpl", "link_id": "l", "args": {"?other": "User::\"a\""}}])"),
            "links.json:1:50: unknown slot `?other`; the slots are `?principal` and `?resource`");
  EXPECT_EQ(compile("[]"), "ok");  // a template without links decides nothing
}

}  // namespace
}  // namespace charter

namespace charter {
namespace {

TEST(JsonPolicies, CompileReadsCedarsJsonPolicyFormat) {
  SourceFile source("p.json", R"({
    "staticPolicies": {
      "allow-alice": {"effect": "permit",
        "principal": {"op": "==", "entity": {"type": "User", "id": "alice"}},
        "action": {"op": "All"}, "resource": {"op": "All"}, "conditions": []}},
    "templates": {
      "tpl": {"effect": "permit", "principal": {"op": "==", "slot": "?principal"},
        "action": {"op": "All"}, "resource": {"op": "All"},
        "conditions": [{"kind": "when", "body": {"==": {"left": {"Var": "context"},
                                                        "right": {"Value": {}}}}}]}},
    "templateLinks": [{"templateId": "tpl", "newId": "bob-link",
                       "values": {"?principal": {"type": "User", "id": "bob"}}}]})");
  Diagnostics diagnostics;
  auto bundle = Compile(source, {}, &diagnostics);
  ASSERT_TRUE(bundle.ok()) << diagnostics.Render(source);
  auto engine = Engine::Create(*std::move(bundle));
  ASSERT_TRUE(engine.ok());
  Entities none;
  Decision d = engine->Authorize(Request::Create({"User", "bob"}, {"Action", "a"}, {"R", "r"}), none);
  EXPECT_TRUE(d.allowed);
  EXPECT_EQ(d.reasons, (std::vector<std::string>{"bob-link"}));
  d = engine->Authorize(Request::Create({"User", "alice"}, {"Action", "a"}, {"R", "r"}), none);
  EXPECT_EQ(d.reasons, (std::vector<std::string>{"allow-alice"}));
  EXPECT_FALSE(engine->Authorize(Request::Create({"User", "eve"}, {"Action", "a"}, {"R", "r"}), none).allowed);
}

}  // namespace
}  // namespace charter
