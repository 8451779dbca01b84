// The query API: listing (ListAllowed, ForEachAllowed), residuals
// (PartialEvaluator), and the faults of a query. The differential test
// (differential_main.cc) checks both against full evaluation on generated
// cases; these pin the answers and the words on small hand-written ones.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "charter/charter.h"
#include "charter/query.h"
#include "charter/schema.h"
#include "gtest/gtest.h"
#include "testing/status_matchers.h"

namespace charter {
namespace {

using ::charter_testing::IsOk;
using ::charter_testing::StatusIs;

constexpr char kEntities[] = R"([
  {"uid": {"type": "User", "id": "alice"}, "attrs": {"level": 3}, "parents": [{"type": "Team", "id": "ml"}]},
  {"uid": {"type": "User", "id": "bob"}, "attrs": {"level": 5}, "parents": [{"type": "Team", "id": "infra"}]},
  {"uid": {"type": "Team", "id": "ml"}, "attrs": {}, "parents": []},
  {"uid": {"type": "Team", "id": "infra"}, "attrs": {}, "parents": []},
  {"uid": {"type": "Task", "id": "t1"}, "attrs": {"owner": {"__entity": {"type": "User", "id": "alice"}},
                                                  "gpus": 2},
   "parents": [{"type": "Team", "id": "ml"}], "tags": {"team": "ml", "tier": "gold"}},
  {"uid": {"type": "Task", "id": "t2"}, "attrs": {"owner": {"__entity": {"type": "User", "id": "bob"}},
                                                  "gpus": 16},
   "parents": [{"type": "Team", "id": "infra"}], "tags": {"team": "infra"}},
  {"uid": {"type": "Task", "id": "t3"}, "attrs": {"owner": {"__entity": {"type": "User", "id": "alice"}}},
   "parents": [{"type": "Team", "id": "infra"}], "tags": {"team": "ml", "frozen": "yes"}}
])";

Engine MustCompile(const std::string& text) {
  SourceFile source("test.cedar", text);
  absl::StatusOr<Bundle> bundle = Compile(source, {}, {}, nullptr);
  EXPECT_THAT(bundle, IsOk());
  absl::StatusOr<Engine> engine = Engine::Create(*std::move(bundle));
  EXPECT_THAT(engine, IsOk());
  return *std::move(engine);
}

PartialEvaluator MustRead(const std::string& text) {
  absl::StatusOr<PartialEvaluator> pe = PartialEvaluator::Create(SourceFile("test.cedar", text), {});
  EXPECT_THAT(pe, IsOk());
  return *std::move(pe);
}

Entities MustLoad() {
  absl::StatusOr<Entities> e = Entities::FromJson(kEntities, "entities.json");
  EXPECT_THAT(e, IsOk());
  return *std::move(e);
}

QueryRequest Resources(const std::string& principal, const std::string& action, const std::string& type,
                       const std::string& context = "") {
  absl::StatusOr<QueryRequest> q =
      QueryRequest::ForResources({"User", principal}, {"Action", action}, type, context);
  EXPECT_THAT(q, IsOk());
  return *std::move(q);
}

std::vector<std::string> Ids(const ListPage& page) {
  std::vector<std::string> out;
  for (const QueryMatch& m : page.matches) out.push_back(m.uid.id);
  return out;
}

constexpr char kPolicies[] = R"(
@id("team-views")
permit (principal, action == Action::"view", resource) when { principal in resource };
@id("owner-views")
permit (principal, action == Action::"view", resource) when { resource.owner == principal };
@id("no-big-tasks")
forbid (principal, action == Action::"view", resource) when { resource.gpus > 8 };
)";

TEST(ListAllowed, ListsTheAllowedResourcesWithTheirReasonsAndErrors) {
  Engine engine = MustCompile(kPolicies);
  Entities entities = MustLoad();
  absl::StatusOr<ListPage> page = ListAllowed(engine, Resources("alice", "view", "Task"), entities);
  ASSERT_THAT(page, IsOk());
  // t1: her task (`principal in resource` needs the principal under the
  // task, which no user is); t3: her task, no `gpus` (the forbid fails and
  // is skipped); t2: neither.
  EXPECT_EQ(Ids(*page), (std::vector<std::string>{"t1", "t3"}));
  EXPECT_EQ(page->matches[0].reasons, (std::vector<std::string>{"owner-views"}));
  EXPECT_EQ(page->matches[1].reasons, (std::vector<std::string>{"owner-views"}));
  ASSERT_EQ(page->matches[1].errors.size(), 1u);
  EXPECT_EQ(page->matches[1].errors[0].policy_id, "no-big-tasks");
  EXPECT_EQ(page->examined, 3u);
  EXPECT_EQ(page->next, 0u);

  // bob: t2 is his and his team's, but has 16 GPUs.
  page = ListAllowed(engine, Resources("bob", "view", "Task"), entities);
  ASSERT_THAT(page, IsOk());
  EXPECT_TRUE(page->matches.empty());
}

TEST(ListAllowed, PagesResumeWhereTheLastStopped) {
  Engine engine = MustCompile(R"(permit (principal, action, resource is Task);)");
  Entities entities = MustLoad();
  QueryRequest q = Resources("bob", "view", "Task");
  ListOptions options;
  options.limit = 2;
  absl::StatusOr<ListPage> first = ListAllowed(engine, q, entities, options);
  ASSERT_THAT(first, IsOk());
  EXPECT_EQ(Ids(*first), (std::vector<std::string>{"t1", "t2"}));
  ASSERT_NE(first->next, 0u);
  options.start = first->next;
  absl::StatusOr<ListPage> second = ListAllowed(engine, q, entities, options);
  ASSERT_THAT(second, IsOk());
  EXPECT_EQ(Ids(*second), (std::vector<std::string>{"t3"}));
  EXPECT_EQ(second->next, 0u);
}

TEST(ForEachAllowed, StreamsAndStopsWhenAsked) {
  Engine engine = MustCompile(R"(permit (principal, action, resource is Task);)");
  Entities entities = MustLoad();
  EvalContext context;
  std::vector<std::string> seen;
  absl::Status s = ForEachAllowed(
      engine, Resources("bob", "view", "Task"), entities,
      [&](const QueryMatchView& m) {
        seen.emplace_back(m.id);
        return seen.size() < 2;
      },
      &context);
  ASSERT_THAT(s, IsOk());
  EXPECT_EQ(seen, (std::vector<std::string>{"t1", "t2"}));
}

TEST(ListAllowed, WhoMayActOnAResource) {
  Engine engine = MustCompile(kPolicies);
  absl::StatusOr<QueryRequest> q = QueryRequest::ForPrincipals("User", {"Action", "view"}, {"Task", "t3"});
  ASSERT_THAT(q, IsOk());
  absl::StatusOr<ListPage> page = ListAllowed(engine, *q, MustLoad());
  ASSERT_THAT(page, IsOk());
  EXPECT_EQ(Ids(*page), (std::vector<std::string>{"alice"}));  // she owns it; bob is not under the task
}

TEST(ListAllowed, FaultsOfTheQuerySayWhatIsWrong) {
  Engine engine = MustCompile(kPolicies);
  Entities entities = MustLoad();
  absl::StatusOr<ListPage> page = ListAllowed(engine, Resources("alicia", "view", "Task"), entities);
  ASSERT_THAT(page,
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "the principal `User::\"alicia\"` is not in the entities; did you mean `User::\"alice\"`?"));
  page = ListAllowed(engine, Resources("alice", "view", "Taks"), entities);
  ASSERT_THAT(page, StatusIs(absl::StatusCode::kInvalidArgument,
                             "no entity in the entities has the resource type `Taks`; did you mean `Task`?"));
  PartialEvaluator pe = MustRead(kPolicies);
  absl::StatusOr<Residual> r = pe.Evaluate(Resources("alice", "edit", "Task"), entities);
  ASSERT_THAT(r, StatusIs(absl::StatusCode::kInvalidArgument,
                          "the action `Action::\"edit\"` is named by no policy and is not in the entities"));
  absl::StatusOr<QueryRequest> bad = QueryRequest::ForResources({"User", "alice"}, {"Action", "view"}, "not a type");
  ASSERT_THAT(bad, StatusIs(absl::StatusCode::kInvalidArgument,
                            "`not a type` is not an entity type name (the resource type)"));
  bad = QueryRequest::ForResources({"User", "alice"}, {"Action", "view"}, "Task", "{\"a\": }", nullptr, "ctx");
  ASSERT_THAT(bad, StatusIs(absl::StatusCode::kInvalidArgument, testing::StartsWith("ctx:1:7:")));
}

TEST(ListAllowed, TheSchemaChecksTheQuery) {
  absl::StatusOr<Schema> schema = Schema::Parse(SourceFile("s.cedarschema", R"(
    entity Team; entity User in [Team]; entity Task in [Team] { owner: User, gpus?: Long } tags String;
    action view appliesTo { principal: User, resource: Task };
  )"),
                                                {}, nullptr);
  ASSERT_THAT(schema, IsOk());
  absl::StatusOr<QueryRequest> q =
      QueryRequest::ForResources({"User", "alice"}, {"Action", "view"}, "Team", "", &*schema);
  ASSERT_THAT(q,
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "action `Action::\"view\"` does not apply to resources of type `Team` (it applies to `Task`)"));
  q = QueryRequest::ForResources({"User", "alice"}, {"Action", "view"}, "Tusk", "", &*schema);
  ASSERT_THAT(q, StatusIs(absl::StatusCode::kInvalidArgument, "the schema declares no entity type `Tusk`"));
  q = QueryRequest::ForResources({"User", "alice"}, {"Action", "edit"}, "Task", "", &*schema);
  ASSERT_THAT(q, StatusIs(absl::StatusCode::kInvalidArgument, "the schema declares no action `Action::\"edit\"`"));
  q = QueryRequest::ForResources({"User", "alice"}, {"Action", "view"}, "Task", "", &*schema);
  ASSERT_THAT(q, IsOk());
  EXPECT_TRUE(q->schema_checked());
}

TEST(Residual, FoldsWhatIsKnownAndKeepsForbidsAsNegations) {
  PartialEvaluator pe = MustRead(kPolicies);
  absl::StatusOr<Residual> r = pe.Evaluate(Resources("alice", "view", "Task"), MustLoad());
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->outcome(), Residual::Outcome::kDepends);
  EXPECT_EQ(r->condition(),
            "(User::\"alice\" in resource || resource.owner == User::\"alice\") && !(resource.gpus > 8)");
  EXPECT_FALSE(r->exact());  // resource.owner and resource.gpus may be missing
  EXPECT_EQ(r->policies().size(), 3u);
  EXPECT_EQ(r->policies()[2].id, "no-big-tasks");
  EXPECT_TRUE(r->policies()[2].forbid);
  EXPECT_FALSE(r->label_selector().has_value());
  // Deciding from the residual is deciding in full.
  Engine engine = MustCompile(kPolicies);
  QueryRequest q = Resources("alice", "view", "Task");
  for (const char* id : {"t1", "t2", "t3", "t9"}) {
    absl::StatusOr<Decision> d = r->Decide({"Task", id});
    ASSERT_THAT(d, IsOk());
    EXPECT_EQ(d->ToJson(), engine.Authorize(q.With({"Task", id}), MustLoad()).ToJson()) << id;
  }
  EXPECT_THAT(r->Decide({"User", "bob"}), StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(Residual, OtherActionsAndTypesFoldAway) {
  PartialEvaluator pe = MustRead(kPolicies);
  absl::StatusOr<Residual> r = pe.Evaluate(Resources("alice", "edit", "Task"), MustLoad(),
                                           ResidualOptions{.check_query = false});
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->outcome(), Residual::Outcome::kDeny);
  EXPECT_EQ(r->condition(), "false");
  EXPECT_TRUE(r->policies().empty());

  PartialEvaluator all = MustRead(R"(@id("p") permit (principal == User::"alice", action, resource is Task);)");
  r = all.Evaluate(Resources("alice", "view", "Task"), MustLoad(), ResidualOptions{.check_query = false});
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->outcome(), Residual::Outcome::kAllow);
  EXPECT_EQ(r->condition(), "true");
  EXPECT_TRUE(r->exact());
  r = all.Evaluate(Resources("bob", "view", "Task"), MustLoad(), ResidualOptions{.check_query = false});
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->outcome(), Residual::Outcome::kDeny);
}

TEST(Residual, PoliciesThatFailEverywhereAreReported) {
  PartialEvaluator pe = MustRead(R"(
    @id("bad") permit (principal, action, resource) when { principal.level + "x" == 1 };
    @id("good") permit (principal, action, resource) when { resource.owner == principal };
  )");
  absl::StatusOr<Residual> r =
      pe.Evaluate(Resources("alice", "view", "Task"), MustLoad(), ResidualOptions{.check_query = false});
  ASSERT_THAT(r, IsOk());
  ASSERT_EQ(r->errors().size(), 1u);
  EXPECT_EQ(r->errors()[0].policy_id, "bad");
  EXPECT_EQ(r->condition(), "resource.owner == User::\"alice\"");
  absl::StatusOr<Decision> d = r->Decide({"Task", "t1"});
  ASSERT_THAT(d, IsOk());
  EXPECT_TRUE(d->allowed);
  ASSERT_EQ(d->errors.size(), 1u);
  EXPECT_EQ(d->errors[0].policy_id, "bad");
}

TEST(Residual, TagTestsBecomeALabelSelector) {
  PartialEvaluator pe = MustRead(R"(
    @id("ml-sees-ml") permit (principal in Team::"ml", action == Action::"view", resource)
      when { resource.getTag("team") == "ml" && ["gold", "silver"].contains(resource.getTag("tier")) };
    @id("not-frozen") forbid (principal, action, resource) when { resource.hasTag("frozen") };
  )");
  absl::StatusOr<Residual> r = pe.Evaluate(Resources("alice", "view", "Task"), MustLoad());
  ASSERT_THAT(r, IsOk());
  ASSERT_TRUE(r->label_selector().has_value());
  EXPECT_EQ(*r->label_selector(), "team=ml,tier in (gold,silver),!frozen");
  // bob is not in the ml team: nothing may be viewed.
  r = pe.Evaluate(Resources("bob", "view", "Task"), MustLoad());
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->outcome(), Residual::Outcome::kDeny);
  EXPECT_FALSE(r->label_selector().has_value());
}

TEST(Residual, PrintsAsJsonAndAsAPolicySetThatDecidesAlike) {
  PartialEvaluator pe = MustRead(kPolicies);
  QueryRequest q = Resources("alice", "view", "Task");
  absl::StatusOr<Residual> r = pe.Evaluate(q, MustLoad());
  ASSERT_THAT(r, IsOk());
  EXPECT_NE(r->ToJson().find(R"("outcome":"depends","unknown":"resource","type":"Task")"), std::string::npos);
  EXPECT_NE(r->condition_json().find(R"({"Var":"resource"})"), std::string::npos);
  Engine text = MustCompile(r->PoliciesText());
  for (const char* id : {"t1", "t2", "t3"}) {
    EXPECT_EQ(text.Authorize(q.With({"Task", id}), MustLoad()).allowed, r->Decide({"Task", id})->allowed) << id;
  }
  absl::StatusOr<Bundle> json = Compile(SourceFile("r.json", r->PoliciesJson()), {}, {}, nullptr);
  EXPECT_THAT(json, IsOk());
}

TEST(Residual, AFoldedDatetimeBeyondDatetimeStringsPrintsAsAnOffset) {
  // The instant is year 292278994: no datetime() string names it.
  constexpr char kFar[] = R"(
    @id("far") permit (principal, action, resource)
      when { {"g": resource.gpus, "d": datetime("1970-01-01").offset(duration("106751991167d"))}.d >
             datetime("2024-01-01") };
  )";
  PartialEvaluator pe = MustRead(kFar);
  QueryRequest q = Resources("alice", "view", "Task");
  absl::StatusOr<Residual> r = pe.Evaluate(q, MustLoad(), ResidualOptions{.check_query = false});
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->PoliciesText().find("+292278994"), std::string::npos) << r->PoliciesText();
  EXPECT_NE(r->PoliciesText().find(R"(datetime("1970-01-01").offset(duration(")"), std::string::npos)
      << r->PoliciesText();
  Engine full = MustCompile(kFar);
  Engine text = MustCompile(r->PoliciesText());
  for (const char* id : {"t1", "t2", "t3"}) {
    Decision want = full.Authorize(q.With({"Task", id}), MustLoad());
    EXPECT_EQ(text.Authorize(q.With({"Task", id}), MustLoad()).ToJson(), want.ToJson()) << id;
    EXPECT_EQ(r->Decide({"Task", id})->ToJson(), want.ToJson()) << id;
  }
  EXPECT_TRUE(full.Authorize(q.With({"Task", "t1"}), MustLoad()).allowed);
}

TEST(Residual, HasWithAPathOnTheUnknownIsNotExact) {
  // `resource has gpus.x` is `resource has gpus && resource.gpus has x`,
  // which fails where gpus is a number (t1), so the condition cannot be exact.
  PartialEvaluator pe = MustRead(R"(@id("p") permit (principal, action, resource) when { resource has gpus.x };)");
  absl::StatusOr<Residual> r =
      pe.Evaluate(Resources("alice", "view", "Task"), MustLoad(), ResidualOptions{.check_query = false});
  ASSERT_THAT(r, IsOk());
  EXPECT_FALSE(r->exact());
  absl::StatusOr<std::optional<bool>> holds = r->ConditionHolds({"Task", "t1"});
  ASSERT_THAT(holds, IsOk());
  EXPECT_FALSE(holds->has_value());
  holds = r->ConditionHolds({"Task", "t3"});  // no gpus: false, no error
  ASSERT_THAT(holds, IsOk());
  EXPECT_EQ(*holds, std::optional<bool>(false));
  // A single attribute on the unknown still cannot fail.
  PartialEvaluator one = MustRead(R"(@id("p") permit (principal, action, resource) when { resource has gpus };)");
  r = one.Evaluate(Resources("alice", "view", "Task"), MustLoad(), ResidualOptions{.check_query = false});
  ASSERT_THAT(r, IsOk());
  EXPECT_TRUE(r->exact());
}

TEST(Residual, FoldedRecordsKeepTheirKeys) {
  // Once principal is fixed by the `==` before it, the record is folded to a
  // value; its keys must survive into the printed residual.
  constexpr char kRec[] = R"(
    @id("p") permit (principal, action, resource)
      when { principal == User::"alice" &&
             !(if principal.level > 9 then {"meta": {"active": true}} else {"a long key name": resource == principal}).meta.active };
  )";
  PartialEvaluator pe = MustRead(kRec);
  absl::StatusOr<QueryRequest> q = QueryRequest::ForPrincipals("User", {"Action", "view"}, {"Task", "t1"}, "");
  ASSERT_THAT(q, IsOk());
  absl::StatusOr<Residual> r = pe.Evaluate(*q, MustLoad(), ResidualOptions{.check_query = false});
  ASSERT_THAT(r, IsOk());
  EXPECT_NE(r->PoliciesText().find("a long key name"), std::string::npos) << r->PoliciesText();
  MustCompile(r->PoliciesText());
}

}  // namespace
}  // namespace charter
