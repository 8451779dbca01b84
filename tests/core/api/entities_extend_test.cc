// Entities::Extend: a few entities laid over a loaded store, through the
// public API. The decisions over an extension must be those over one store
// read from all the JSON at once (checked on the governance example, every
// request, each of its entity types moved in turn to the extension), and
// what an overlay cannot hold is refused with a position.
#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "charter/charter.h"
#include "charter/schema.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "absl/strings/match.h"
#include "json/json.h"

namespace charter {
namespace {

using ::testing::HasSubstr;

std::string Read(const std::string& path) {
  std::ifstream in(std::string(CHARTER_SOURCE_DIR) + "/" + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Engine MustCompile(const std::string& name, const std::string& text) {
  SourceFile source(name, text);
  Diagnostics diagnostics;
  absl::StatusOr<Bundle> bundle = Compile(source, {}, &diagnostics);
  EXPECT_TRUE(bundle.ok()) << diagnostics.Render(source);
  absl::StatusOr<Engine> engine = Engine::Create(*std::move(bundle));
  EXPECT_TRUE(engine.ok()) << engine.status();
  return *std::move(engine);
}

Schema MustSchema(const std::string& path) {
  SourceFile source(path, Read(path));
  Diagnostics diagnostics;
  absl::StatusOr<Schema> schema = Schema::Parse(source, {}, &diagnostics);
  EXPECT_TRUE(schema.ok()) << diagnostics.Render(source);
  return *std::move(schema);
}

constexpr char kBase[] = R"([
  {"uid": {"type": "Org", "id": "acme"}, "attrs": {}, "parents": []},
  {"uid": {"type": "Team", "id": "ml"}, "attrs": {"size": 4}, "parents": [{"type": "Org", "id": "acme"}]},
  {"uid": {"type": "User", "id": "alice"}, "attrs": {"level": 3}, "parents": [{"type": "Team", "id": "ml"}, {"type": "Group", "id": "ghost"}]}
])";

Entities MustBase() {
  absl::StatusOr<Entities> base = Entities::FromJson(kBase, "base.json");
  EXPECT_TRUE(base.ok()) << base.status();
  return *std::move(base);
}

// One entity of a JSON array: its text, uid and parents.
struct EntityText {
  std::string text;
  EntityUid uid;
  std::vector<EntityUid> parents;
};

EntityUid UidAt(const internal::json::Value& v) {
  return EntityUid{std::string(v.Find("type")->as_string()), std::string(v.Find("id")->as_string())};
}

// The entities of `text` (a JSON array of entity objects, uids as objects),
// each with its own text.
std::vector<EntityText> Split(const std::string& text) {
  absl::StatusOr<internal::json::Document> doc = internal::json::Parse(text);
  EXPECT_TRUE(doc.ok()) << doc.status();
  const internal::json::Value& root = doc->root();
  std::vector<EntityText> out;
  for (size_t i = 0; i < root.size(); ++i) {
    const internal::json::Value& e = root.at(i);
    size_t end = i + 1 < root.size() ? root.at(i + 1).offset() : text.rfind(']');
    std::string slice = text.substr(e.offset(), end - e.offset());
    while (!slice.empty() && (slice.back() == ',' || std::isspace(static_cast<unsigned char>(slice.back())))) {
      slice.pop_back();
    }
    EntityText t{slice, UidAt(*e.Find("uid")), {}};
    const internal::json::Value& parents = *e.Find("parents");
    for (size_t k = 0; k < parents.size(); ++k) t.parents.push_back(UidAt(parents.at(k)));
    out.push_back(std::move(t));
  }
  return out;
}

std::string Join(const std::vector<const EntityText*>& entities) {
  std::string out = "[";
  for (const EntityText* e : entities) out += (out.size() > 1 ? ",\n" : "") + e->text;
  return out + "]";
}

TEST(EntitiesExtend, DecidesAsOneStoreReadAtOnce) {
  Engine engine = MustCompile("policies.cedar", Read("examples/governance/policies.cedar"));
  const std::string all_text = Read("examples/governance/entities.json");
  const std::vector<EntityText> all = Split(all_text);
  const std::string requests_text = Read("examples/governance/requests.json");
  absl::StatusOr<std::vector<Request>> requests = Request::ArrayFromJson(requests_text, "requests.json");
  ASSERT_TRUE(requests.ok()) << requests.status();
  ASSERT_GT(requests->size(), 20u);
  absl::StatusOr<Entities> whole = Entities::FromJson(all_text, "entities.json");
  ASSERT_TRUE(whole.ok()) << whole.status();
  ASSERT_EQ(all.size(), whole->size());

  std::vector<std::string> types;
  for (const EntityText& e : all) {
    if (std::find(types.begin(), types.end(), e.uid.type) == types.end()) types.push_back(e.uid.type);
  }
  ASSERT_GT(types.size(), 10u);
  size_t allowed = 0, denied = 0, moved_entities = 0;
  for (const std::string& moved : types) {
    // Every entity of type `moved`, and each entity with a parent among
    // them, goes to the extension (the base's hierarchy cannot gain an
    // entity's data).
    std::vector<bool> in_extension(all.size(), false);
    for (size_t i = 0; i < all.size(); ++i) in_extension[i] = all[i].uid.type == moved;
    for (bool changed = true; changed;) {
      changed = false;
      for (size_t i = 0; i < all.size(); ++i) {
        if (in_extension[i]) continue;
        for (const EntityUid& p : all[i].parents) {
          for (size_t j = 0; j < all.size(); ++j) {
            if (in_extension[j] && all[j].uid == p && !in_extension[i]) in_extension[i] = changed = true;
          }
        }
      }
    }
    // An entity the base names as a parent (of an entity that went back)
    // is refused by Extend, naming it: it goes back too.
    absl::StatusOr<Entities> extended = absl::UnknownError("not tried");
    absl::StatusOr<Entities> base = absl::UnknownError("not tried");
    for (int attempt = 0; attempt <= static_cast<int>(all.size()); ++attempt) {
      std::vector<const EntityText*> b, x;
      for (size_t i = 0; i < all.size(); ++i) (in_extension[i] ? x : b).push_back(&all[i]);
      base = Entities::FromJson(Join(b), "base.json");
      ASSERT_TRUE(base.ok()) << moved << ": " << base.status();
      extended = base->Extend(Join(x), "extension.json");
      if (extended.ok()) break;
      bool found = false;
      for (size_t i = 0; i < all.size(); ++i) {
        if (in_extension[i] && absl::StrContains(extended.status().message(),
                                                 "entity " + all[i].uid.ToString() + " is a parent among")) {
          in_extension[i] = false;
          found = true;
        }
      }
      ASSERT_TRUE(found) << moved << ": " << extended.status();
    }
    ASSERT_TRUE(extended.ok()) << moved << ": " << extended.status();
    moved_entities += extended->size() - base->size();
    EXPECT_EQ(extended->size(), whole->size()) << moved;
    for (const Request& r : *requests) {
      Decision expected = engine.Authorize(r, *whole);
      Decision got = engine.Authorize(r, *extended);
      EXPECT_EQ(got.ToJson(), expected.ToJson()) << moved << ": " << r.principal().ToString() << " "
                                                 << r.action().ToString() << " " << r.resource().ToString();
      (expected.allowed ? allowed : denied)++;
    }
  }
  // Both answers occur, and most entities were read as an extension at
  // least once, so the comparison could tell the stores apart.
  EXPECT_GT(allowed, 0u);
  EXPECT_GT(denied, 0u);
  EXPECT_GT(moved_entities, all.size());
}

TEST(EntitiesExtend, ParentsComeFromEitherStoreAndTheBaseStaysAsItWas) {
  Entities base = MustBase();
  Engine engine = MustCompile("p.cedar", R"(
    permit(principal in Org::"acme", action == Action::"read", resource in Team::"ml")
      when { resource.owner.level >= 3 };)");
  absl::StatusOr<Entities> extended = base.Extend(R"([
    {"uid": {"type": "Task", "id": "t2"}, "attrs": {"owner": {"__entity": {"type": "User", "id": "alice"}}},
     "parents": [{"type": "Task", "id": "t1"}]},
    {"uid": {"type": "Task", "id": "t1"}, "attrs": {"owner": {"__entity": {"type": "User", "id": "alice"}}},
     "parents": [{"type": "Team", "id": "ml"}]},
    {"uid": {"type": "User", "id": "alice"}, "attrs": {"level": 3},
     "parents": [{"type": "Group", "id": "ghost"}, {"type": "Team", "id": "ml"}]}
  ])",
                                                  "request.json");
  ASSERT_TRUE(extended.ok()) << extended.status();
  EXPECT_EQ(extended->size(), 5u);  // alice again, the same, is accepted once
  EXPECT_EQ(base.size(), 3u);
  EXPECT_FALSE(base.Find({"Task", "t1"}).has_value());
  ASSERT_TRUE(extended->Find({"Task", "t2"}).has_value());
  EXPECT_EQ(extended->Find({"Task", "t2"})->parents.size(), 1u);
  // t2 is in Team::"ml" through t1 (extension) and Team::"ml" (base); alice
  // is in Org::"acme" through the base alone.
  Decision d = engine.Authorize(Request::Create({"User", "alice"}, {"Action", "read"}, {"Task", "t2"}), *extended);
  EXPECT_TRUE(d.allowed) << d.ToJson();
  d = engine.Authorize(Request::Create({"User", "alice"}, {"Action", "read"}, {"Task", "t2"}), base);
  EXPECT_FALSE(d.allowed) << d.ToJson();
  // An extension of an extension.
  absl::StatusOr<Entities> again = extended->Extend(
      R"([{"uid": {"type": "Task", "id": "t3"}, "attrs": {"owner": {"__entity": {"type": "User", "id": "alice"}}},
           "parents": [{"type": "Task", "id": "t2"}]}])",
      "more.json");
  ASSERT_TRUE(again.ok()) << again.status();
  d = engine.Authorize(Request::Create({"User", "alice"}, {"Action", "read"}, {"Task", "t3"}), *again);
  EXPECT_TRUE(d.allowed) << d.ToJson();
  EXPECT_EQ(again->size(), 6u);
  EXPECT_EQ(extended->size(), 5u);
}

TEST(EntitiesExtend, RefusesWhatTheBaseHoldsOtherwiseWithAPosition) {
  Entities base = MustBase();
  absl::StatusOr<Entities> other = base.Extend(R"([
  {"uid": {"type": "Team", "id": "ml"}, "attrs": {"size": 5}, "parents": [{"type": "Org", "id": "acme"}]}
])",
                                               "request.json");
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(other.status().message()),
              HasSubstr("request.json:2:3: entity Team::\"ml\" is already among the entities it extends, with "
                        "different contents"));
  absl::StatusOr<Entities> other_parents = base.Extend(
      R"([{"uid": {"type": "Team", "id": "ml"}, "attrs": {"size": 4}, "parents": []}])", "request.json");
  ASSERT_FALSE(other_parents.ok());
  EXPECT_THAT(std::string(other_parents.status().message()), HasSubstr("with different contents"));
  // Group::"ghost" is a parent in the base, without data of its own.
  absl::StatusOr<Entities> named = base.Extend(
      R"([{"uid": {"type": "Group", "id": "ghost"}, "attrs": {}, "parents": []}])", "request.json");
  ASSERT_FALSE(named.ok());
  EXPECT_THAT(std::string(named.status().message()),
              HasSubstr("request.json:1:2: entity Group::\"ghost\" is a parent among the entities it extends"));
  absl::StatusOr<Entities> cycle = base.Extend(R"([
  {"uid": {"type": "Task", "id": "a"}, "attrs": {}, "parents": [{"type": "Task", "id": "b"}]},
  {"uid": {"type": "Task", "id": "b"}, "attrs": {}, "parents": [{"type": "Task", "id": "a"}]}
])",
                                               "request.json");
  ASSERT_FALSE(cycle.ok());
  EXPECT_THAT(std::string(cycle.status().message()), HasSubstr("the entity hierarchy has a cycle through"));
  absl::StatusOr<Entities> malformed = base.Extend(R"([{"uid": {"type": "Task", "id": "a"}}])", "request.json");
  ASSERT_FALSE(malformed.ok());
  EXPECT_THAT(std::string(malformed.status().message()), HasSubstr("request.json:1:2: an entity lacks `attrs`"));
  EntitiesOptions small;
  small.max_input_bytes = 10;
  absl::StatusOr<Entities> big = base.Extend("[                    ]", "request.json", small);
  ASSERT_FALSE(big.ok());
  EXPECT_THAT(std::string(big.status().message()), HasSubstr("more than the limit of 10"));
  // Nothing of a refused extension reached the base.
  EXPECT_EQ(base.size(), 3u);
  EXPECT_FALSE(base.Find({"Task", "a"}).has_value());
}

TEST(EntitiesExtend, GivesDataToAnEntityTheBaseOnlyMentions) {
  // The task's owner, User::"bob", is mentioned by the base and has no data
  // there: a request that brings bob (with his team) decides with him.
  absl::StatusOr<Entities> base = Entities::FromJson(R"([
    {"uid": {"type": "Team", "id": "ml"}, "attrs": {}, "parents": []},
    {"uid": {"type": "Task", "id": "t1"}, "attrs": {"owner": {"__entity": {"type": "User", "id": "bob"}}},
     "parents": []}
  ])",
                                                     "base.json");
  ASSERT_TRUE(base.ok()) << base.status();
  Engine engine = MustCompile("p.cedar", R"(
    permit(principal in Team::"ml", action == Action::"read", resource)
      when { resource.owner.level >= 3 && resource.owner in Team::"ml" };)");
  Request read = Request::Create({"User", "bob"}, {"Action", "read"}, {"Task", "t1"});
  Decision d = engine.Authorize(read, *base);
  EXPECT_FALSE(d.allowed) << d.ToJson();
  absl::StatusOr<Entities> with_bob = base->Extend(
      R"([{"uid": {"type": "User", "id": "bob"}, "attrs": {"level": 4}, "parents": [{"type": "Team", "id": "ml"}]}])",
      "request.json");
  ASSERT_TRUE(with_bob.ok()) << with_bob.status();
  EXPECT_EQ(with_bob->size(), 3u);
  ASSERT_TRUE(with_bob->Find({"User", "bob"}).has_value());
  EXPECT_EQ(with_bob->Find({"User", "bob"})->attrs, "{\"level\": 4}");
  d = engine.Authorize(read, *with_bob);
  EXPECT_TRUE(d.allowed) << d.ToJson();
  // The base is as it was, and bob may be given other data in another
  // extension of it, but not twice in one.
  EXPECT_FALSE(base->Find({"User", "bob"}).has_value());
  absl::StatusOr<Entities> low = base->Extend(
      R"([{"uid": {"type": "User", "id": "bob"}, "attrs": {"level": 1}, "parents": [{"type": "Team", "id": "ml"}]}])",
      "request.json");
  ASSERT_TRUE(low.ok()) << low.status();
  EXPECT_FALSE(engine.Authorize(read, *low).allowed);
  absl::StatusOr<Entities> twice = with_bob->Extend(
      R"([{"uid": {"type": "User", "id": "bob"}, "attrs": {"level": 1}, "parents": []}])", "request.json");
  ASSERT_FALSE(twice.ok());
  EXPECT_THAT(std::string(twice.status().message()), HasSubstr("with different contents"));
  // An extension of the extension sees bob's data and hierarchy.
  absl::StatusOr<Entities> more = with_bob->Extend(
      R"([{"uid": {"type": "Task", "id": "t2"}, "attrs": {"owner": {"__entity": {"type": "User", "id": "bob"}}},
           "parents": [{"type": "User", "id": "bob"}]}])",
      "request.json");
  ASSERT_TRUE(more.ok()) << more.status();
  d = engine.Authorize(Request::Create({"User", "bob"}, {"Action", "read"}, {"Task", "t2"}), *more);
  EXPECT_TRUE(d.allowed) << d.ToJson();
  Engine in_bob = MustCompile("q.cedar", R"(permit(principal, action, resource in Team::"ml");)");
  EXPECT_TRUE(in_bob.Authorize(Request::Create({"User", "bob"}, {"Action", "read"}, {"Task", "t2"}), *more).allowed);
}

TEST(EntitiesExtend, WithASchemaChecksTheNewEntitiesAndKeepsTheSchemasActions) {
  Schema schema = MustSchema("stdlib/governance.cedarschema");
  const std::string base_text = Read("examples/governance/entities.json");
  absl::StatusOr<Entities> base = Entities::FromJson(base_text, schema, "entities.json");
  ASSERT_TRUE(base.ok()) << base.status();
  // A member with an attribute of the wrong type.
  absl::StatusOr<Entities> wrong = base->Extend(
      R"([{"uid": {"type": "Governance::Member", "id": "zed"}, "attrs": {"name": 7}, "parents": []}])", schema,
      "request.json");
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(wrong.status().message()), HasSubstr("request.json:1:"));
  EXPECT_THAT(std::string(wrong.status().message()), HasSubstr("Governance::Member::\"zed\""));
  // An entity that FromJson with the schema accepts when joined to the
  // base's text is accepted, and gives the same entity.
  const std::vector<EntityText> all = Split(base_text);
  const EntityText* task = nullptr;
  for (const EntityText& e : all) {
    if (e.uid.type == "Governance::Task") task = &e;
  }
  ASSERT_NE(task, nullptr);
  EntityText renamed = *task;
  const std::string quoted_id = "\"" + task->uid.id + "\"";
  renamed.text.replace(renamed.text.find(quoted_id), quoted_id.size(), "\"fresh-task\"");
  absl::StatusOr<Entities> fresh = base->Extend(Join({&renamed}), schema, "request.json");
  ASSERT_TRUE(fresh.ok()) << fresh.status();
  std::vector<const EntityText*> joined_list;
  for (const EntityText& e : all) joined_list.push_back(&e);
  joined_list.push_back(&renamed);
  absl::StatusOr<Entities> joined = Entities::FromJson(Join(joined_list), schema, "all.json");
  ASSERT_TRUE(joined.ok()) << joined.status();
  EXPECT_EQ(fresh->size(), joined->size());
  ASSERT_TRUE(fresh->Find({"Governance::Task", "fresh-task"}).has_value());
  EXPECT_EQ(fresh->Find({"Governance::Task", "fresh-task"})->attrs,
            joined->Find({"Governance::Task", "fresh-task"})->attrs);
  // Over an empty store, the schema's actions join the extension.
  absl::StatusOr<Entities> alone = Entities().Extend(Join({&renamed}), schema, "request.json");
  ASSERT_TRUE(alone.ok()) << alone.status();
  absl::StatusOr<Entities> alone_joined = Entities::FromJson(Join({&renamed}), schema, "request.json");
  ASSERT_TRUE(alone_joined.ok()) << alone_joined.status();
  EXPECT_EQ(alone->size(), alone_joined->size());
  EXPECT_GT(alone->size(), 1u);
}

}  // namespace
}  // namespace charter
