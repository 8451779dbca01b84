// charter::Coverage (what a series of requests exercised: policies, clauses,
// sub-conditions) and charter::EvaluateExpression (one expression's value).
#include <string>
#include <vector>

#include "charter/charter.h"
#include "charter/explain.h"
#include "gtest/gtest.h"
#include "testing/status_matchers.h"

namespace charter {
namespace {

using ::charter_testing::IsOk;
using ::charter_testing::StatusIs;

constexpr char kEntities[] = R"([
  {"uid": {"type": "User", "id": "alice"}, "attrs": {"level": 2, "email": "alice@x.org"},
   "parents": [{"type": "Team", "id": "ml"}]},
  {"uid": {"type": "User", "id": "bob"}, "attrs": {"level": 0}, "parents": []},
  {"uid": {"type": "Task", "id": "t1"}, "attrs": {"gpus": 4}, "parents": []},
  {"uid": {"type": "Task", "id": "t2"}, "attrs": {"gpus": 16}, "parents": []}
])";

constexpr char kPolicies[] =
    "@id(\"a\") permit(principal, action == Action::\"view\", resource);\n"
    "@id(\"b\") permit(principal in Team::\"ml\", action, resource)\n"
    "  when { resource.gpus < 8 && principal.level > 1 };\n"
    "@id(\"c\") forbid(principal, action, resource)\n"
    "  unless { principal.level > 1 || context.urgent };\n"
    "@id(\"d\") forbid(principal, action, resource) when { principal.nope };\n";

Entities Store() {
  auto e = Entities::FromJson(kEntities);
  EXPECT_THAT(e, IsOk());
  return *std::move(e);
}

Request Req(const std::string& principal, const std::string& action, const std::string& resource,
            const std::string& context = "{}") {
  auto r = Request::FromJson("{\"principal\": {\"type\": \"User\", \"id\": \"" + principal +
                             "\"}, \"action\": {\"type\": \"Action\", \"id\": \"" + action +
                             "\"}, \"resource\": {\"type\": \"Task\", \"id\": \"" + resource +
                             "\"}, \"context\": " + context + "}");
  EXPECT_THAT(r, IsOk());
  return *std::move(r);
}

// Records every request, checking each decision against the Engine's.
Coverage RecordAll(const std::string& text, const std::vector<Request>& requests,
             const std::vector<TemplateLink>& links = {}) {
  SourceFile source("p.cedar", text);
  auto coverage = Coverage::Create(source, links);
  EXPECT_THAT(coverage, IsOk());
  auto bundle = Compile(source, links, {}, nullptr);
  EXPECT_THAT(bundle, IsOk());
  auto engine = Engine::Create(*std::move(bundle));
  EXPECT_THAT(engine, IsOk());
  Entities store = Store();
  for (const Request& r : requests) {
    EXPECT_EQ(coverage->Record(r, store).ToJson(), engine->Authorize(r, store).ToJson());
  }
  return *std::move(coverage);
}

void ExpectCounts(const ConditionCoverage& c, const std::string& expression, size_t t, size_t f, size_t e) {
  EXPECT_EQ(c.expression, expression);
  EXPECT_EQ(c.true_count, t) << expression;
  EXPECT_EQ(c.false_count, f) << expression;
  EXPECT_EQ(c.error_count, e) << expression;
}

TEST(CoverageTest, PoliciesClausesAndSubConditions) {
  Coverage c = RecordAll(kPolicies, {Req("alice", "submit", "t1"), Req("alice", "submit", "t2"),
                               Req("bob", "view", "t1", "{\"urgent\": true}")});
  EXPECT_EQ(c.requests(), 3u);
  const std::vector<PolicyCoverage>& p = c.policies();
  ASSERT_EQ(p.size(), 4u);

  EXPECT_EQ(p[0].policy_id, "a");
  EXPECT_EQ(p[0].applicable, 1u);
  EXPECT_EQ(p[0].satisfied, 1u);
  EXPECT_EQ(p[0].determining, 1u);
  EXPECT_TRUE(p[0].exercised());
  EXPECT_TRUE(p[0].clauses.empty());

  EXPECT_EQ(p[1].applicable, 2u);  // bob is not in Team::"ml"
  EXPECT_EQ(p[1].satisfied, 1u);
  ASSERT_EQ(p[1].clauses.size(), 1u);
  const ClauseCoverage& b = p[1].clauses[0];
  EXPECT_TRUE(b.when);
  ExpectCounts(b.condition, "resource.gpus < 8 && principal.level > 1", 1, 1, 0);
  EXPECT_TRUE(b.condition.covered());
  EXPECT_EQ(b.condition.where.line, 3u);
  EXPECT_EQ(b.condition.where.column, 3u);
  ASSERT_EQ(b.conditions.size(), 2u);
  ExpectCounts(b.conditions[0], "resource.gpus < 8", 1, 1, 0);
  ExpectCounts(b.conditions[1], "principal.level > 1", 1, 0, 0);  // not reached for t2
  EXPECT_FALSE(b.conditions[1].covered());
  EXPECT_EQ(b.conditions[1].where.column, 31u);

  // `unless`: the counts are of its condition, true three times (so the
  // forbid never held).
  EXPECT_EQ(p[2].applicable, 3u);
  EXPECT_EQ(p[2].satisfied, 0u);
  EXPECT_FALSE(p[2].exercised());
  ASSERT_EQ(p[2].clauses.size(), 1u);
  EXPECT_FALSE(p[2].clauses[0].when);
  ExpectCounts(p[2].clauses[0].condition, "principal.level > 1 || context.urgent", 3, 0, 0);
  ASSERT_EQ(p[2].clauses[0].conditions.size(), 2u);
  ExpectCounts(p[2].clauses[0].conditions[0], "principal.level > 1", 2, 1, 0);
  ExpectCounts(p[2].clauses[0].conditions[1], "context.urgent", 1, 0, 0);

  // A single condition has no sub-conditions; its errors are counted.
  EXPECT_EQ(p[3].errored, 3u);
  EXPECT_TRUE(p[3].exercised());
  ASSERT_EQ(p[3].clauses.size(), 1u);
  ExpectCounts(p[3].clauses[0].condition, "principal.nope", 0, 0, 3);
  EXPECT_TRUE(p[3].clauses[0].conditions.empty());
}

TEST(CoverageTest, ErrorsInSubConditions) {
  Coverage c = RecordAll(
      "@id(\"e\") permit(principal, action, resource)\n"
      "  when { principal.level > 1 && resource.owner == principal }\n"
      "  when { !(principal.level || true) };\n",
      {Req("alice", "submit", "t1"), Req("bob", "submit", "t1")});
  const ClauseCoverage& first = c.policies()[0].clauses[0];
  ExpectCounts(first.condition, "principal.level > 1 && resource.owner == principal", 0, 1, 1);
  ExpectCounts(first.conditions[0], "principal.level > 1", 1, 1, 0);
  ExpectCounts(first.conditions[1], "resource.owner == principal", 0, 0, 1);
  // Never reached: the first clause never held.
  const ClauseCoverage& second = c.policies()[0].clauses[1];
  EXPECT_FALSE(second.condition.evaluated());
  // `true` is a constant, so one sub-condition is left: none are listed.
  EXPECT_TRUE(second.conditions.empty());
}

TEST(CoverageTest, NonBooleanSubConditionIsAnError) {
  Coverage c = RecordAll("@id(\"f\") permit(principal, action, resource) when { principal.level || context.x };\n",
                   {Req("alice", "submit", "t1")});
  const ClauseCoverage& clause = c.policies()[0].clauses[0];
  ExpectCounts(clause.condition, "principal.level || context.x", 0, 0, 1);
  ExpectCounts(clause.conditions[0], "principal.level", 0, 0, 1);
  ExpectCounts(clause.conditions[1], "context.x", 0, 0, 0);
}

TEST(CoverageTest, TemplateLinksAreCountedApart) {
  std::vector<TemplateLink> links = {
      {"t", "alice-link", EntityUid{"User", "alice"}, std::nullopt},
      {"t", "bob-link", EntityUid{"User", "bob"}, std::nullopt},
  };
  Coverage c = RecordAll("@id(\"t\") permit(principal == ?principal, action, resource)\n"
                   "  when { resource.gpus < 8 || principal.level > 1 };\n",
                   {Req("alice", "submit", "t2"), Req("bob", "submit", "t1")}, links);
  ASSERT_EQ(c.policies().size(), 2u);
  EXPECT_EQ(c.policies()[0].template_id, "t");
  EXPECT_EQ(c.policies()[0].policy_id, "alice-link");
  ExpectCounts(c.policies()[0].clauses[0].conditions[0], "resource.gpus < 8", 0, 1, 0);
  ExpectCounts(c.policies()[0].clauses[0].conditions[1], "principal.level > 1", 1, 0, 0);
  ExpectCounts(c.policies()[1].clauses[0].conditions[0], "resource.gpus < 8", 1, 0, 0);
  ExpectCounts(c.policies()[1].clauses[0].conditions[1], "principal.level > 1", 0, 0, 0);
}

TEST(CoverageTest, Json) {
  Coverage c = RecordAll(kPolicies, {Req("alice", "submit", "t1")});
  std::string json = c.ToJson();
  EXPECT_EQ(json.rfind("{\"requests\":1,\"policies\":[{\"id\":\"a\",\"effect\":\"permit\",\"line\":1,"
                       "\"column\":10,\"applicable\":0,\"satisfied\":0,\"determining\":0,\"errors\":0,"
                       "\"exercised\":false,\"clauses\":[]},{\"id\":\"b\"",
                       0),
            0u)
      << json;
  EXPECT_NE(json.find("{\"kind\":\"when\",\"index\":0,\"line\":3,\"column\":3,\"expression\":"
                      "\"resource.gpus < 8 && principal.level > 1\",\"true\":1,\"false\":0,\"errors\":0,"
                      "\"covered\":false,\"conditions\":[{\"line\":3,\"column\":10,\"expression\":"
                      "\"resource.gpus < 8\",\"true\":1,\"false\":0,\"errors\":0,\"covered\":false},"),
            std::string::npos)
      << json;
}

TEST(CoverageTest, BadPolicies) {
  auto c = Coverage::Create(SourceFile("p.cedar", "permit(principal, action, resource) when { && };"), {});
  ASSERT_THAT(c, StatusIs(absl::StatusCode::kInvalidArgument, testing::StartsWith("p.cedar:1:")));
}

// ---- EvaluateExpression -----------------------------------------------------

ExpressionValue Eval(const std::string& text, const Request* request = nullptr) {
  Entities store = Store();
  auto v = EvaluateExpression(SourceFile("<repl>", text), request, store);
  EXPECT_THAT(v, IsOk());
  return v.ok() ? *std::move(v) : ExpressionValue{};
}

TEST(EvaluateExpressionTest, Values) {
  EXPECT_EQ(Eval("User::\"alice\" in Team::\"ml\"").value, "true");
  EXPECT_EQ(Eval("User::\"bob\" in Team::\"ml\"").value, "false");
  EXPECT_EQ(Eval("[1, 2].contains(2)").value, "true");
  EXPECT_EQ(Eval("User::\"alice\".level * 10").value, "20");
  EXPECT_EQ(Eval("if 1 < 2 then \"yes\" else 3").value, "\"yes\"");
  EXPECT_EQ(Eval("User::\"alice\"").value, "User::\"alice\"");
  EXPECT_EQ(Eval("decimal(\"1.50\")").value, "decimal(\"1.5000\")");
  ExpressionValue record = Eval("{b: [1, 1], a: User::\"alice\".email like \"*@x.org\"}");
  EXPECT_TRUE(record.ok);
  EXPECT_NE(record.value.find("\"a\": true"), std::string::npos) << record.value;
  EXPECT_EQ(record.attributes, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(Eval("User::\"alice\"").attributes, (std::vector<std::string>{"email", "level"}));
  EXPECT_TRUE(Eval("User::\"nobody\"").attributes.empty());
  EXPECT_TRUE(Eval("[1]").attributes.empty());
}

// The JSON encoding reads back as a request's context, to the same value.
TEST(EvaluateExpressionTest, Json) {
  EXPECT_EQ(Eval("[1, 1, \"a\\nb\"]").json, "[1, \"a\\nb\"]");
  ExpressionValue v = Eval(
      "{when: datetime(\"2025-11-03T09:00:00Z\"), who: User::\"alice\", net: ip(\"10.0.0.1\"), "
      "d: decimal(\"1.5\"), for: duration(\"1h\"), ok: true}");
  ASSERT_TRUE(v.ok);
  EXPECT_EQ(v.json,
            "{\"d\": {\"__extn\": {\"fn\": \"decimal\", \"arg\": \"1.5000\"}}, "
            "\"for\": {\"__extn\": {\"fn\": \"duration\", \"arg\": \"3600000ms\"}}, "
            "\"net\": {\"__extn\": {\"fn\": \"ip\", \"arg\": \"10.0.0.1/32\"}}, \"ok\": true, "
            "\"when\": {\"__extn\": {\"fn\": \"datetime\", \"arg\": \"2025-11-03T09:00:00Z\"}}, "
            "\"who\": {\"__entity\": {\"type\": \"User\", \"id\": \"alice\"}}}");
  Request r = Req("alice", "submit", "t1", v.json);
  EXPECT_EQ(r.ContextToCedar(), v.value);
}

TEST(EvaluateExpressionTest, WithARequest) {
  Request r = Req("alice", "submit", "t1", "{\"mfa\": true}");
  EXPECT_EQ(Eval("principal.email like \"*@x.org\" && context.mfa", &r).value, "true");
  EXPECT_EQ(Eval("resource.gpus + principal.level", &r).value, "6");
  EXPECT_EQ(Eval("action", &r).value, "Action::\"submit\"");
}

TEST(EvaluateExpressionTest, EvaluationErrors) {
  ExpressionValue v = Eval("1 + User::\"nobody\".level");
  EXPECT_FALSE(v.ok);
  EXPECT_EQ(v.error, "entity `User::\"nobody\"` does not exist");
  EXPECT_EQ(v.error_where.column, 5u);
  v = Eval("9223372036854775807 + 1");
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.error.find("overflow"), std::string::npos) << v.error;
  // No request: the first variable named is the error.
  v = Eval("true && context.mfa");
  EXPECT_FALSE(v.ok);
  EXPECT_EQ(v.error, "`context` has no value: there is no request");
  EXPECT_EQ(v.error_where.column, 9u);
}

TEST(EvaluateExpressionTest, SyntaxErrors) {
  Entities store = Store();
  Diagnostics d;
  auto v = EvaluateExpression(SourceFile("<repl>", "1 +"), nullptr, store, {}, &d);
  ASSERT_THAT(v, StatusIs(absl::StatusCode::kInvalidArgument, testing::StartsWith("<repl>:1:4:")));
  ASSERT_FALSE(d.empty());
  EXPECT_EQ(d.items()[0].code, "CH0101");
  for (const char* bad : {"", "permit(principal, action, resource);", "?principal", "a < b < c",
                          "1 2", "\"unterminated", "frob(1)"}) {
    auto r = EvaluateExpression(SourceFile("<repl>", bad), nullptr, store);
    EXPECT_THAT(r, StatusIs(absl::StatusCode::kInvalidArgument, testing::StartsWith("<repl>:1:"))) << bad;
  }
}

}  // namespace
}  // namespace charter
