// charter::Explain: outcomes, deciding clauses and sub-conditions, the values
// they saw, templates, errors, and agreement with Engine::Authorize.
#include "charter/explain.h"

#include <string>

#include "charter/charter.h"
#include "gtest/gtest.h"
#include "testing/status_matchers.h"

namespace charter {
namespace {

using ::charter_testing::IsOk;
using ::charter_testing::StatusIs;

constexpr char kEntities[] = R"([
  {"uid": {"type": "User", "id": "alice"}, "attrs": {"level": 2, "team": "ml"},
   "parents": [{"type": "Team", "id": "ml"}]},
  {"uid": {"type": "Task", "id": "t1"}, "attrs": {"gpus": 4}, "parents": []}
])";

class ExplainTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto e = Entities::FromJson(kEntities);
    ASSERT_THAT(e, IsOk());
    entities_ = *std::move(e);
  }
  Explanation Why(const std::string& text, const std::vector<TemplateLink>& links = {}) {
    SourceFile source("p.cedar", text);
    Request r = Request::Create({"User", "alice"}, {"Action", "submit"}, {"Task", "t1"});
    auto why = Explain(source, links, r, entities_);
    EXPECT_THAT(why, IsOk());
    auto bundle = Compile(source, links, {}, nullptr);
    EXPECT_THAT(bundle, IsOk());
    auto engine = Engine::Create(*std::move(bundle));
    EXPECT_THAT(engine, IsOk());
    Decision vm = engine->Authorize(r, entities_);
    EXPECT_EQ(why->decision.ToJson(), vm.ToJson());
    EXPECT_EQ(why->decision.ToJsonWithPositions(&source), vm.ToJsonWithPositions(&source));
    return *std::move(why);
  }
  Entities entities_;
};

TEST_F(ExplainTest, Outcomes) {
  Explanation e = Why(
      "@id(\"a\") permit(principal, action == Action::\"view\", resource);\n"
      "@id(\"b\") permit(principal in Team::\"ml\", action, resource) when { resource.gpus < 8 };\n"
      "@id(\"c\") forbid(principal, action, resource) unless { principal.level > 1 };\n"
      "@id(\"d\") forbid(principal, action, resource) when { principal.nope };\n");
  EXPECT_TRUE(e.decision.allowed);
  ASSERT_EQ(e.policies.size(), 4u);
  EXPECT_EQ(e.policies[0].outcome, PolicyOutcome::kNotApplicable);
  EXPECT_EQ(e.policies[0].scope, "action");
  EXPECT_EQ(e.policies[1].outcome, PolicyOutcome::kSatisfied);
  EXPECT_TRUE(e.policies[1].determining);
  ASSERT_EQ(e.policies[1].conditions.size(), 1u);
  EXPECT_EQ(e.policies[1].conditions[0].expression, "resource.gpus < 8");
  EXPECT_EQ(e.policies[1].conditions[0].value, "true");
  ASSERT_EQ(e.policies[1].conditions[0].saw.size(), 2u);
  EXPECT_EQ(e.policies[1].conditions[0].saw[1].expression, "resource.gpus");
  EXPECT_EQ(e.policies[1].conditions[0].saw[1].value, "4");
  EXPECT_EQ(e.policies[2].outcome, PolicyOutcome::kNotSatisfied);
  EXPECT_FALSE(e.policies[2].clause_when);
  EXPECT_EQ(e.policies[2].clause, 0);
  EXPECT_EQ(e.policies[2].clause_where.line, 3u);
  EXPECT_EQ(e.policies[3].outcome, PolicyOutcome::kErrored);
  EXPECT_EQ(e.policies[3].error, "`User::\"alice\"` does not have the attribute `nope`");
  ASSERT_EQ(e.policies[3].conditions.size(), 1u);
  EXPECT_EQ(e.policies[3].conditions[0].expression, "principal.nope");
  EXPECT_EQ(e.policies[3].conditions[0].value, "error");
}

// Through `&&`, `||` and `if` to the operands that decided.
TEST_F(ExplainTest, DecidingSubConditions) {
  Explanation e = Why(
      "permit(principal, action, resource) when { true && (principal.level > 5 || resource.gpus > 5) };\n"
      "permit(principal, action, resource) when { false || principal.team == \"x\" && 1 == 1 };\n"
      "permit(principal, action, resource) when { if principal.level == 2 then resource.gpus == 1 else true };\n");
  ASSERT_EQ(e.policies.size(), 3u);
  auto exprs = [](const PolicyExplanation& p) {
    std::vector<std::string> out;
    for (const ExplainedCondition& c : p.conditions) out.push_back(c.expression + " = " + c.value);
    return out;
  };
  EXPECT_EQ(exprs(e.policies[0]),
            (std::vector<std::string>{"principal.level > 5 = false", "resource.gpus > 5 = false"}));
  EXPECT_EQ(exprs(e.policies[1]),
            (std::vector<std::string>{"false = false", "principal.team == \"x\" = false"}));
  EXPECT_EQ(exprs(e.policies[2]),
            (std::vector<std::string>{"principal.level == 2 = true", "resource.gpus == 1 = false"}));
}

TEST_F(ExplainTest, TemplatesAndText) {
  std::string text = "@id(\"t\") permit(principal == ?principal, action, resource);\n";
  Explanation e = Why(text, {TemplateLink{"t", "alice-link", EntityUid{"User", "alice"}, {}},
                             TemplateLink{"t", "bob-link", EntityUid{"User", "bob"}, {}}});
  ASSERT_EQ(e.policies.size(), 2u);
  EXPECT_EQ(e.policies[0].template_id, "t");
  EXPECT_EQ(e.policies[0].outcome, PolicyOutcome::kSatisfied);
  EXPECT_EQ(e.policies[1].outcome, PolicyOutcome::kNotApplicable);
  SourceFile source("p.cedar", text);
  std::string out = e.ToText(source);
  EXPECT_NE(out.find("ALLOW: permitted by `alice-link`"), std::string::npos) << out;
  EXPECT_NE(out.find("(linked from template `t`)"), std::string::npos) << out;
  EXPECT_NE(out.find("bob-link: `principal == ?principal`"), std::string::npos) << out;
  EXPECT_EQ(e.ToJson().rfind("{\"decision\":\"allow\",\"reasons\":[\"alice-link\"],\"errors\":[],"
                             "\"policies\":[{\"id\":\"alice-link\",\"effect\":\"permit\",\"template\":\"t\"",
                             0),
            0u)
      << e.ToJson();
  EXPECT_NE(e.ToText(source, true).find("\x1b["), std::string::npos);
}

// Ids, attribute names and values with control bytes are shown escaped, as
// Cedar escapes them, never raw (issue 15): the text has no control byte
// but its line breaks (and, with colour, its own escape sequences).
TEST_F(ExplainTest, ControlBytesAreEscaped) {
  std::string text =
      "@id(\"n\\0x\\u{1b}[31m\") permit(principal, action, resource) when { principal[\"\\u{1b}q\"] == 1 };\n"
      "@id(\"s\\u{7}\\ny\") permit(principal, action, resource) when { context[\"\\u{1b}c\"] };\n"
      "@id(\"o\\u{1b}k\") forbid(principal == User::\"bob\", action, resource);\n";
  Explanation e = Why(text);
  SourceFile source("p.cedar", text);
  std::string out = e.ToText(source);
  for (char c : out) EXPECT_TRUE(c == '\n' || static_cast<unsigned char>(c) >= 0x20) << out;
  EXPECT_NE(out.find("permit `n\\0x\\u{1b}[31m` was skipped"), std::string::npos) << out;
  EXPECT_NE(out.find("`s\\u{7}\\ny`"), std::string::npos) << out;
  EXPECT_NE(out.find("does not have the attribute `\\u{1b}q`"), std::string::npos) << out;
  EXPECT_NE(out.find("  o\\u{1b}k: `principal == User::\"bob\"`"), std::string::npos) << out;
}

TEST_F(ExplainTest, ErrorsAreUnderlinedWhereTheDecisionSaysTheyFailed) {
  // `&&` fails on its left operand, which is not a boolean: the Decision
  // (the VM's and the interpreter's alike) points at that operand, and so
  // does the explanation.
  const std::string text =
      "@id(\"e\") forbid(principal, action, resource) when { principal.level && true };";
  Explanation e = Why(text);
  ASSERT_EQ(e.decision.errors.size(), 1u);
  const PolicyError& error = e.decision.errors[0];
  EXPECT_EQ(text.substr(error.span.begin, error.span.end - error.span.begin), "principal.level");
  ASSERT_EQ(e.policies.size(), 1u);
  ASSERT_EQ(e.policies[0].conditions.size(), 1u);
  const ExplainedCondition& c = e.policies[0].conditions[0];
  EXPECT_EQ(c.expression, "principal.level");
  EXPECT_EQ(c.where.span.begin, error.span.begin);
  EXPECT_EQ(c.where.column, error.span.begin + 1);
  SourceFile source("p.cedar", text);
  EXPECT_NE(e.ToText(source).find(" --> p.cedar:1:" + std::to_string(error.span.begin + 1) + "\n"
                                  "  |\n"
                                  "1 | " + text + "\n"
                                  "  | " + std::string(error.span.begin, ' ') + "^^^^^^^^^^^^^^^ "
                                  "type error: expected bool, got long\n"),
            std::string::npos)
      << e.ToText(source);
}

TEST_F(ExplainTest, BadPolicyText) {
  SourceFile source("p.cedar", "permit(principal, action, resource) when { && };");
  Request r = Request::Create({"User", "alice"}, {"Action", "submit"}, {"Task", "t1"});
  auto why = Explain(source, {}, r, entities_);
  ASSERT_THAT(why, StatusIs(absl::StatusCode::kInvalidArgument, testing::StartsWith("p.cedar:")));
}

}  // namespace
}  // namespace charter
