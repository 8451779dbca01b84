// Each construct of the policy language, evaluated end to end by the public
// Engine: the cases of language_cases.h (which the reference interpreter
// decides too, tests/core/interp), long chains, arity, templates and JSON policies.
#include <string>

#include "charter/charter.h"
#include "gtest/gtest.h"
#include "testing/status_matchers.h"
#include "tests/core/api/language_cases.h"

namespace charter {
namespace {

using ::charter_testing::IsOk;
using ::charter_testing::StatusIs;

class LanguageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto e = Entities::FromJson(cases::kLanguageEntities);
    ASSERT_THAT(e, IsOk());
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

TEST_F(LanguageTest, EveryCase) {
  for (const cases::LanguageCase& c : cases::kLanguageCases) {
    EXPECT_EQ(Eval(c.condition), c.outcome) << c.condition;
  }
}

TEST(EntityJson, BadExtensionValuesAreErrors) {
  auto e = Entities::FromJson(R"([{"uid": {"type": "U", "id": "a"},
    "attrs": {"x": {"__extn": {"fn": "ip", "arg": "999.1.1.1"}}}, "parents": []}])");
  ASSERT_THAT(e, StatusIs(absl::StatusCode::kInvalidArgument, testing::StartsWith("entities.json:2:51:")));
  e = Entities::FromJson(R"([{"uid": {"type": "U", "id": "a"},
    "attrs": {"x": {"__extn": {"fn": "nope", "arg": "1"}}}, "parents": []}])");
  ASSERT_THAT(e, StatusIs(absl::StatusCode::kInvalidArgument,
                          testing::HasSubstr("unknown extension function `nope`")));
}

TEST_F(LanguageTest, LongFlatChainsCompileAndEvaluate) {
  for (const auto& [condition, outcome] : cases::LongChainCases()) EXPECT_EQ(Eval(condition), outcome);
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
  ASSERT_THAT(links, IsOk());
  auto bundle = Compile(source, *links, {}, nullptr);
  ASSERT_THAT(bundle, IsOk());
  auto engine = Engine::Create(*std::move(bundle));
  ASSERT_THAT(engine, IsOk());
  EXPECT_EQ(engine->policy_ids(), (std::vector<std::string>{"static", "alice-ml", "mallory-ml"}));
  auto entities = Entities::FromJson(R"([{"uid": {"type": "Doc", "id": "d"}, "attrs": {},
                                          "parents": [{"type": "Team", "id": "ml"}]}])");
  ASSERT_THAT(entities, IsOk());
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
  ASSERT_THAT(bundle, IsOk()) << diagnostics.Render(source);
  auto engine = Engine::Create(*std::move(bundle));
  ASSERT_THAT(engine, IsOk());
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
