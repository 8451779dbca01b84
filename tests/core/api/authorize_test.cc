// End to end through the public API: text -> bundle -> verified engine ->
// decisions, with Cedar's decision rules.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

#include "charter/charter.h"
#include "gtest/gtest.h"
#include "testing/status_matchers.h"

namespace charter {
namespace {

using ::charter_testing::IsOk;

constexpr char kEntities[] = R"([
  {"uid": {"type": "User", "id": "alice"}, "attrs": {"team": "ml", "level": 3, "active": true,
                                                   "manager": {"__entity": {"type": "User", "id": "bob"}}},
   "parents": [{"type": "Team", "id": "ml"}]},
  {"uid": {"type": "User", "id": "bob"}, "attrs": {"team": "infra", "level": 5, "active": false},
   "parents": [{"type": "Team", "id": "infra"}]},
  {"uid": {"type": "Team", "id": "ml"}, "attrs": {}, "parents": [{"type": "Org", "id": "acme"}]},
  {"uid": {"type": "Team", "id": "infra"}, "attrs": {}, "parents": [{"type": "Org", "id": "acme"}]},
  {"uid": {"type": "Action", "id": "submitTask"}, "attrs": {}, "parents": [{"type": "Action", "id": "write"}]},
  {"uid": {"type": "Task", "id": "t1"}, "attrs": {"owner": {"__entity": {"type": "User", "id": "alice"}}},
   "parents": [{"type": "Namespace", "id": "ml-ns"}]}
])";

Engine MustCompile(const std::string& text) {
  SourceFile source("test.cedar", text);
  Diagnostics diagnostics;
  absl::StatusOr<Bundle> bundle = Compile(source, {}, &diagnostics);
  EXPECT_THAT(bundle, IsOk()) << diagnostics.Render(source);
  absl::StatusOr<Engine> engine = Engine::Create(*std::move(bundle));
  EXPECT_THAT(engine, IsOk());
  return *std::move(engine);
}

Entities MustLoad() {
  absl::StatusOr<Entities> e = Entities::FromJson(kEntities, "entities.json");
  EXPECT_THAT(e, IsOk());
  return *std::move(e);
}

Request Req(std::string p, std::string a, std::string r) {
  auto split = [](const std::string& s) {
    size_t at = s.find(':');
    return EntityUid{s.substr(0, at), s.substr(at + 1)};
  };
  return Request::Create(split(p), split(a), split(r));
}

TEST(Authorize, DefaultDeny) {
  Engine engine = MustCompile("");
  Decision d = engine.Authorize(Req("User:alice", "Action:submitTask", "Task:t1"), MustLoad());
  EXPECT_FALSE(d.allowed);
  EXPECT_TRUE(d.reasons.empty());
  EXPECT_EQ(d.ToJson(), R"({"decision":"deny","reasons":[],"errors":[]})");
}

TEST(Authorize, ScopeEqualityAndMembership) {
  Engine engine = MustCompile(R"(
    permit(principal == User::"alice", action == Action::"submitTask", resource);
    @id("team-in-org")
    permit(principal in Org::"acme", action in Action::"write", resource in Namespace::"ml-ns");
  )");
  Entities entities = MustLoad();
  Decision d = engine.Authorize(Req("User:alice", "Action:submitTask", "Task:t1"), entities);
  EXPECT_TRUE(d.allowed);
  EXPECT_EQ(d.reasons, (std::vector<std::string>{"policy0", "team-in-org"}));
  d = engine.Authorize(Req("User:bob", "Action:submitTask", "Task:t1"), entities);
  EXPECT_TRUE(d.allowed);
  EXPECT_EQ(d.reasons, (std::vector<std::string>{"team-in-org"}));
  d = engine.Authorize(Req("User:carol", "Action:submitTask", "Task:t1"), entities);
  EXPECT_FALSE(d.allowed);
}

TEST(Authorize, ForbidWins) {
  Engine engine = MustCompile(R"(
    permit(principal, action, resource);
    forbid(principal, action, resource) when { principal.active == false };
  )");
  Entities entities = MustLoad();
  Decision d = engine.Authorize(Req("User:bob", "Action:submitTask", "Task:t1"), entities);
  EXPECT_FALSE(d.allowed);
  EXPECT_EQ(d.reasons, (std::vector<std::string>{"policy1"}));
  d = engine.Authorize(Req("User:alice", "Action:submitTask", "Task:t1"), entities);
  EXPECT_TRUE(d.allowed);
  EXPECT_EQ(d.reasons, (std::vector<std::string>{"policy0"}));
}

TEST(Authorize, TheContextListsEverySatisfiedPolicy) {
  Engine engine = MustCompile(R"(
    @id("all") permit(principal, action, resource);
    @id("inactive") forbid(principal, action, resource) when { principal.active == false };
    @id("ml") permit(principal, action, resource) when { principal.team == "ml" };
    @id("infra") forbid(principal, action, resource) when { principal.team == "infra" };
    @id("never") forbid(principal, action, resource) when { false };
  )");
  Entities entities = MustLoad();
  EvalContext context;
  // bob: both forbids and one permit; the forbids decide, the permit is still listed.
  EXPECT_FALSE(engine.Authorize(Req("User:bob", "Action:submitTask", "Task:t1"), entities, &context));
  EXPECT_EQ(std::vector<std::string_view>(context.satisfied_forbids().begin(), context.satisfied_forbids().end()),
            (std::vector<std::string_view>{"inactive", "infra"}));
  EXPECT_EQ(std::vector<std::string_view>(context.satisfied_permits().begin(), context.satisfied_permits().end()),
            (std::vector<std::string_view>{"all"}));
  EXPECT_EQ(std::vector<std::string_view>(context.reasons().begin(), context.reasons().end()),
            (std::vector<std::string_view>{"inactive", "infra"}));
  // alice: no forbid; both permits.
  EXPECT_TRUE(engine.Authorize(Req("User:alice", "Action:submitTask", "Task:t1"), entities, &context));
  EXPECT_TRUE(context.satisfied_forbids().empty());
  EXPECT_EQ(std::vector<std::string_view>(context.satisfied_permits().begin(), context.satisfied_permits().end()),
            (std::vector<std::string_view>{"all", "ml"}));
}

TEST(Authorize, PoliciesCarryTheirEffectsAndAnnotations) {
  Engine engine = MustCompile(R"(
    @owner("team-a") @id("p") permit(principal, action, resource);
    @enforcement("warn") @id("f") forbid(principal, action, resource);
    forbid(principal, action, resource);
  )");
  std::vector<PolicyInfo> policies = engine.policies();
  ASSERT_EQ(policies.size(), 3u);
  EXPECT_EQ(policies[0].id, "p");
  EXPECT_FALSE(policies[0].forbid);
  EXPECT_EQ(policies[0].annotations,
            (std::vector<std::pair<std::string, std::string>>{{"owner", "team-a"}, {"id", "p"}}));
  EXPECT_EQ(policies[1].id, "f");
  EXPECT_TRUE(policies[1].forbid);
  EXPECT_EQ(policies[1].annotations,
            (std::vector<std::pair<std::string, std::string>>{{"enforcement", "warn"}, {"id", "f"}}));
  EXPECT_EQ(policies[2].id, "policy2");
  EXPECT_TRUE(policies[2].forbid);
  EXPECT_TRUE(policies[2].annotations.empty());
}

TEST(Authorize, ErroringPolicyIsSkippedAndReported) {
  Engine engine = MustCompile(R"(
    @id("needs-level") forbid(principal, action, resource) when { principal.missing == 1 };
    @id("all") permit(principal, action, resource);
  )");
  Decision d = engine.Authorize(Req("User:alice", "Action:submitTask", "Task:t1"), MustLoad());
  EXPECT_TRUE(d.allowed);
  ASSERT_EQ(d.errors.size(), 1u);
  EXPECT_EQ(d.errors[0].policy_id, "needs-level");
  EXPECT_NE(d.errors[0].message.find("`missing`"), std::string::npos) << d.errors[0].message;
}

// The text an error's span covers.
std::string Covered(const std::string& text, Span span) {
  return text.substr(span.begin, span.end - span.begin);
}

TEST(Authorize, ErrorsCarryTheSpanOfTheFailingExpression) {
  const std::string text = R"(@id("missing") permit(principal, action, resource) when { principal.missing == 1 };
@id("arith") permit(principal, action, resource) when { principal.level + "a" == 2 };
@id("left") permit(principal, action, resource) when { principal.level && true };
@id("right") permit(principal, action, resource) when { true && principal.team };
@id("if") permit(principal, action, resource) when { if principal.team then true else false };
@id("body") permit(principal, action, resource) when { true } unless { principal.level };
@id("call") permit(principal, action, resource) when { ip("10.0.0.1").isInRange(principal.team) };
)";
  Engine engine = MustCompile(text);
  Decision d = engine.Authorize(Req("User:alice", "Action:submitTask", "Task:t1"), MustLoad());
  ASSERT_EQ(d.errors.size(), 7u) << d.ToJson();
  std::vector<std::pair<std::string, std::string>> got;
  for (const PolicyError& e : d.errors) got.emplace_back(e.policy_id, Covered(text, e.span));
  EXPECT_EQ(got, (std::vector<std::pair<std::string, std::string>>{
                     {"missing", "principal.missing"},
                     {"arith", R"(principal.level + "a")"},
                     {"left", "principal.level"},
                     {"right", "principal.team"},
                     {"if", "principal.team"},
                     {"body", "principal.level"},
                     {"call", R"(ip("10.0.0.1").isInRange(principal.team))"},
                 }));
  // The same spans without allocating, through a context.
  EvalContext context;
  engine.Authorize(Req("User:alice", "Action:submitTask", "Task:t1"), MustLoad(), &context);
  ASSERT_EQ(context.errors().size(), 7u);
  for (size_t i = 0; i < 7; ++i) {
    EXPECT_EQ(context.errors()[i].span.begin, d.errors[i].span.begin);
    EXPECT_EQ(context.errors()[i].span.end, d.errors[i].span.end);
  }
  // ToJson leaves them out; ToJsonWithPositions gives offsets, and with the
  // source the line and column.
  Decision one;
  one.errors = {d.errors[1]};
  EXPECT_EQ(one.ToJson(),
            R"({"decision":"deny","reasons":[],"errors":[{"policy":"arith","message":"type error: expected long, got string"}]})");
  uint32_t begin = d.errors[1].span.begin, end = d.errors[1].span.end;
  EXPECT_EQ(one.ToJsonWithPositions(),
            absl::StrCat(R"({"decision":"deny","reasons":[],"errors":[{"policy":"arith","message":"type error: expected long, got string","begin":)",
                         begin, R"(,"end":)", end, "}]}"));
  SourceFile source("test.cedar", text);
  EXPECT_EQ(one.ToJsonWithPositions(&source),
            absl::StrCat(R"({"decision":"deny","reasons":[],"errors":[{"policy":"arith","message":"type error: expected long, got string","begin":)",
                         begin, R"(,"end":)", end, R"(,"line":2,"column":57}]})"));
}

TEST(Authorize, ConditionsWithAttributesAndLogic) {
  Engine engine = MustCompile(R"(
    permit(principal, action, resource)
      when { resource.owner == principal && principal["team"] == "ml" }
      unless { principal.level == 5 };
    permit(principal, action, resource)
      when { principal has manager && principal.manager.team == "infra" };
    permit(principal, action, resource)
      when { if principal.active then principal != resource.owner else false };
  )");
  Entities entities = MustLoad();
  Decision d = engine.Authorize(Req("User:alice", "Action:submitTask", "Task:t1"), entities);
  EXPECT_TRUE(d.allowed);
  EXPECT_EQ(d.reasons, (std::vector<std::string>{"policy0", "policy1"}));
  d = engine.Authorize(Req("User:bob", "Action:submitTask", "Task:t1"), entities);
  EXPECT_FALSE(d.allowed);
  EXPECT_TRUE(d.errors.empty()) << d.ToJson();
}

TEST(Authorize, NonBooleanConditionIsATypeError) {
  Engine engine = MustCompile(R"(permit(principal, action, resource) when { principal.level };)");
  Decision d = engine.Authorize(Req("User:alice", "Action:submitTask", "Task:t1"), MustLoad());
  EXPECT_FALSE(d.allowed);
  ASSERT_EQ(d.errors.size(), 1u);
  EXPECT_EQ(d.errors[0].message, "type error: expected bool, got long");
}

TEST(Authorize, ShortCircuitSkipsErrors) {
  Engine engine = MustCompile(R"(
    permit(principal, action, resource) when { false && principal.nope };
    permit(principal, action, resource) when { true || principal.nope };
    permit(principal, action, resource) when { false } when { principal.nope };
  )");
  Decision d = engine.Authorize(Req("User:alice", "Action:submitTask", "Task:t1"), MustLoad());
  EXPECT_TRUE(d.errors.empty()) << d.ToJson();
  EXPECT_EQ(d.reasons, (std::vector<std::string>{"policy1"}));
}

TEST(Authorize, ActionInList) {
  Engine engine = MustCompile(R"(
    permit(principal, action in [Action::"viewTask", Action::"write"], resource);
  )");
  Entities entities = MustLoad();
  EXPECT_TRUE(engine.Authorize(Req("User:x", "Action:submitTask", "Task:t1"), entities).allowed);
  EXPECT_TRUE(engine.Authorize(Req("User:x", "Action:viewTask", "Task:t1"), entities).allowed);
  EXPECT_FALSE(engine.Authorize(Req("User:x", "Action:cancelTask", "Task:t1"), entities).allowed);
}

TEST(Authorize, RequestFromJsonWithContext) {
  Engine engine = MustCompile(R"(
    permit(principal, action, resource) when { context.mfa == true && context.ticket.id == "T-1" };
  )");
  absl::StatusOr<Request> r = Request::FromJson(R"({
    "principal": "User::\"alice\"", "action": {"type": "Action", "id": "submitTask"},
    "resource": {"__entity": {"type": "Task", "id": "t1"}},
    "context": {"mfa": true, "ticket": {"id": "T-1"}}})");
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->principal(), (EntityUid{"User", "alice"}));
  EXPECT_TRUE(engine.Authorize(*r, MustLoad()).allowed);
}

TEST(Authorize, EnginesAreCopiesOfOneProgram) {
  Engine a = MustCompile(R"(@id("p") permit(principal, action, resource);)");
  Engine b = a;
  EXPECT_EQ(b.policy_ids(), (std::vector<std::string>{"p"}));
  EXPECT_EQ(b.policy_count(), 1u);
}

}  // namespace
}  // namespace charter
