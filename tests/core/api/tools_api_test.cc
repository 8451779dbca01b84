// The public API of the core that tools use (the `charter` command is written
// with it alone): entity listing and lookup, what a schema declares, a
// request's context, and the JSON reader. Disassembly, the tools' own, is
// tested in tests/tools/disassemble/.
#include <algorithm>
#include <optional>
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

TEST(EntitiesListing, UidsFindAndKnownUids) {
  absl::StatusOr<Entities> e = Entities::FromJson(R"([
    {"uid": {"type": "User", "id": "a\"b"}, "attrs": {"level": 3}, "parents": [{"type": "Team", "id": "ml"}],
     "tags": {"k": "v"}},
    {"uid": {"type": "User", "id": "c"}, "attrs": {}, "parents": []}
  ])");
  ASSERT_THAT(e, IsOk());
  std::vector<EntityUid> uids = e->Uids();
  ASSERT_EQ(uids.size(), 2u);
  EXPECT_EQ(uids[0].ToString(), "User::\"a\\\"b\"");
  EXPECT_EQ(uids[1].ToString(), "User::\"c\"");
  // Team::"ml" is named as a parent only: known, but without data.
  std::vector<EntityUid> known = e->KnownUids();
  EXPECT_EQ(known.size(), 3u);
  EXPECT_FALSE(e->Find(EntityUid{"Team", "ml"}).has_value());

  std::optional<EntityInfo> a = e->Find(EntityUid{"User", "a\"b"});
  ASSERT_TRUE(a.has_value());
  ASSERT_EQ(a->parents.size(), 1u);
  EXPECT_EQ(a->parents[0].ToString(), "Team::\"ml\"");
  EXPECT_NE(a->attrs.find("level"), std::string::npos) << a->attrs;
  EXPECT_NE(a->tags.find("\"v\""), std::string::npos) << a->tags;
  std::optional<EntityInfo> c = e->Find(EntityUid{"User", "c"});
  ASSERT_TRUE(c.has_value());
  EXPECT_TRUE(c->parents.empty());
  EXPECT_EQ(c->attrs, "{}");
  EXPECT_EQ(c->tags, "");
}

TEST(SchemaLookup, AttributesAndTheTypesActionsTake) {
  SourceFile text("s.cedarschema", R"(
    entity Team;
    entity User in [Team] { level: Long, manager?: User };
    entity Task { owner: User };
    action view appliesTo { principal: User, resource: Task };
    action edit appliesTo { principal: [User, Team], resource: Task };)");
  absl::StatusOr<Schema> schema = Schema::Parse(text, {}, nullptr);
  ASSERT_THAT(schema, IsOk());
  EXPECT_EQ(schema->Attributes("User"), (std::vector<std::string>{"level", "manager"}));
  EXPECT_TRUE(schema->Attributes("Team").empty());
  EXPECT_TRUE(schema->Attributes("Nope").empty());
  // `view` and `edit` both take User and Task: each type once, sorted.
  EXPECT_EQ(schema->PrincipalTypes(), (std::vector<std::string>{"Team", "User"}));
  EXPECT_EQ(schema->ResourceTypes(), (std::vector<std::string>{"Task"}));
}

TEST(RequestContext, AsCedar) {
  absl::StatusOr<Request> r = Request::FromJson(
      R"({"principal": "User::\"a\"", "action": "Action::\"v\"", "resource": "Task::\"t\"",
          "context": {"mfa": true}})");
  ASSERT_THAT(r, IsOk());
  EXPECT_NE(r->ContextToCedar().find("mfa"), std::string::npos) << r->ContextToCedar();
  EXPECT_EQ(Request::Create({"User", "a"}, {"Action", "v"}, {"Task", "t"}).ContextToCedar(), "{}");
}

TEST(Json, ReadsWithPositions) {
  std::string text = "{\"a\": [1, \"x\"],\n \"b\": {\"c\": true}}";
  absl::StatusOr<JsonDocument> doc = JsonDocument::Parse(text);
  ASSERT_THAT(doc, IsOk());
  JsonValue root = doc->root();
  ASSERT_TRUE(root.is_object());
  ASSERT_EQ(root.size(), 2u);
  EXPECT_EQ(root.key(1), "b");
  EXPECT_EQ(JsonLineCol(text, root.key_offset(1)), "2:2");
  std::optional<JsonValue> a = root.Find("a");
  ASSERT_TRUE(a.has_value());
  ASSERT_TRUE(a->is_array());
  EXPECT_TRUE(a->at(0).is_number());
  EXPECT_EQ(a->at(1).as_string(), "x");
  EXPECT_TRUE(root.member(1).Find("c")->as_bool());
  EXPECT_FALSE(root.Find("z").has_value());
  EXPECT_FALSE(a->Find("a").has_value());  // not an object

  absl::StatusOr<JsonDocument> bad = JsonDocument::Parse("{\"a\": 1,}");
  ASSERT_THAT(bad, StatusIs(absl::StatusCode::kInvalidArgument, "1:8: trailing comma before `}`"));
  std::string quoted;
  AppendJsonQuoted(&quoted, "a\"b\n");
  EXPECT_EQ(quoted, "\"a\\\"b\\n\"");
}

TEST(Json, AMovedFromDocumentIsNull) {
  absl::StatusOr<JsonDocument> doc = JsonDocument::Parse("{\"a\": 1}");
  ASSERT_THAT(doc, IsOk());
  JsonDocument taken = *std::move(doc);
  EXPECT_TRUE(taken.root().is_object());
  // NOLINTNEXTLINE(bugprone-use-after-move): what a moved-from document answers
  EXPECT_TRUE(doc->root().is_null());
  EXPECT_EQ(doc->root().size(), 0u);
  EXPECT_FALSE(doc->root().Find("a").has_value());
}

}  // namespace
}  // namespace charter
