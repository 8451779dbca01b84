// The entity store: Cedar's JSON entity format -> uids, attributes, tags and
// the precomputed transitive ancestors; malformed or inconsistent input is an
// InvalidArgument error naming the file and line:col.
#include <algorithm>
#include <random>
#include "entities/entity_store.h"

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "unwrap/unwrap.h"
#include "charter/diagnostics.h"
#include "charter/entities.h"
#include "charter/schema.h"
#include "gtest/gtest.h"
#include "testing/status_matchers.h"
#include "value/value.h"

namespace charter::internal {
namespace {

using ::charter_testing::IsOk;
using ::charter_testing::StatusIs;

using Store = std::unique_ptr<EntityStore>;

absl::StatusOr<Store> Load(std::string_view json, const EntitiesOptions& options = {}) {
  return EntityStore::FromJson(json, "entities.json", options);
}

Store MustLoad(std::string_view json) {
  absl::StatusOr<Store> store = Load(json);
  EXPECT_THAT(store, IsOk());
  if (!store.ok()) return std::make_unique<EntityStore>();
  return *std::move(store);
}

// The error message of a load that must fail with InvalidArgument.
std::string LoadError(std::string_view json, const EntitiesOptions& options = {}) {
  absl::StatusOr<Store> store = Load(json, options);
  EXPECT_THAT(store, StatusIs(absl::StatusCode::kInvalidArgument)) << json;
  if (store.ok()) return "";
  return std::string(store.status().message());
}

// The entity's data, or a test failure and nullptr.
const EntityData* Data(const EntityStore& store, std::string_view type, std::string_view id) {
  uint32_t uid = store.Find(type, id);
  EXPECT_NE(uid, kNoUid) << type << "::" << id;
  if (uid == kNoUid) return nullptr;
  return store.data(uid);
}

const Value* Attr(const EntityStore& store, std::string_view type, std::string_view id,
                  std::string_view attr) {
  const EntityData* d = Data(store, type, id);
  if (d == nullptr) return nullptr;
  return FindField(d->attrs, attr);
}

std::string AttrsText(const EntityStore& store, std::string_view type, std::string_view id) {
  const EntityData* d = Data(store, type, id);
  return d == nullptr ? "<none>" : ToCedar(d->attrs);
}

// The number of distinct transitive ancestors of (type, id).
size_t NumAncestors(const EntityStore& store, std::string_view type, std::string_view id) {
  AncestorScratch scratch;
  std::vector<uint32_t> out;
  EXPECT_TRUE(store.Ancestors(store.Find(type, id), 1 << 20, &scratch, &out));
  std::sort(out.begin(), out.end());
  EXPECT_TRUE(std::adjacent_find(out.begin(), out.end()) == out.end()) << "ancestors are unique";
  return out.size();
}

bool InAncestors(const EntityStore& store, std::string_view t1, std::string_view i1,
                 std::string_view t2, std::string_view i2) {
  uint32_t a = store.Find(t1, i1);
  uint32_t b = store.Find(t2, i2);
  EXPECT_NE(a, kNoUid);
  EXPECT_NE(b, kNoUid);
  return store.HasAncestor(a, b);
}

// ---------------------------------------------------------------------------
// Well-formed input

TEST(EntityStore, UidAttrsParentsTags) {
  Store store = MustLoad(R"([
    {"uid": {"type": "User", "id": "alice"},
     "attrs": {"team": "ml", "level": 3, "active": true, "nick": ""},
     "parents": [{"type": "Group", "id": "admins"}],
     "tags": {"dept": "r&d", "cost": 7}}
  ])");
  EXPECT_EQ(store->size(), 1u);
  EXPECT_EQ(store->num_uids(), 2u);  // alice and her parent
  uint32_t alice = store->Find("User", "alice");
  ASSERT_NE(alice, kNoUid);
  EXPECT_EQ(store->ref(alice).type, "User");
  EXPECT_EQ(store->ref(alice).id, "alice");
  EXPECT_EQ(store->ref(alice).uid, alice);
  const EntityData* d = store->data(alice);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(ToCedar(d->attrs), R"({"active": true, "level": 3, "nick": "", "team": "ml"})");
  EXPECT_EQ(ToCedar(d->tags), R"({"cost": 7, "dept": "r&d"})");
  ASSERT_NE(FindField(d->attrs, "level"), nullptr);
  EXPECT_EQ(FindField(d->attrs, "level")->type, Type::kLong);
  EXPECT_EQ(FindField(d->attrs, "level")->i, 3);
  EXPECT_EQ(FindField(d->attrs, "team")->string(), "ml");
  EXPECT_TRUE(FindField(d->attrs, "active")->b);
  EXPECT_EQ(FindField(d->attrs, "missing"), nullptr);
  EXPECT_EQ(FindField(d->attrs, "dept"), nullptr);  // tags are not attributes

  uint32_t admins = store->Find("Group", "admins");
  ASSERT_NE(admins, kNoUid);
  EXPECT_EQ(store->data(admins), nullptr);  // a mere parent has no data
  EXPECT_TRUE(store->HasAncestor(alice, admins));
  EXPECT_FALSE(store->HasAncestor(admins, alice));
  EXPECT_EQ(NumAncestors(*store, "User", "alice"), 1u);

  EXPECT_EQ(store->Find("User", "bob"), kNoUid);
  EXPECT_EQ(store->Find("Group", "alice"), kNoUid);  // uids are (type, id) pairs
  EXPECT_EQ(store->data(kNoUid), nullptr);
}

TEST(EntityStore, EmptyArrayAndEmptyStore) {
  Store store = MustLoad(" [ ] ");
  EXPECT_EQ(store->size(), 0u);
  EXPECT_EQ(store->num_uids(), 0u);
  EntityStore empty;
  EXPECT_EQ(empty.Find("User", "a"), kNoUid);
  EXPECT_EQ(empty.size(), 0u);
}

TEST(EntityStore, TagsAreOptional) {
  Store store = MustLoad(R"([{"uid": {"type": "User", "id": "a"}, "attrs": {}, "parents": []}])");
  const EntityData* d = Data(*store, "User", "a");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->tags.type, Type::kRecord);
  EXPECT_EQ(d->tags.size, 0u);
  EXPECT_EQ(d->attrs.type, Type::kRecord);
  EXPECT_EQ(d->attrs.size, 0u);
  EXPECT_EQ(NumAncestors(*store, "User", "a"), 0u);
}

TEST(EntityStore, NamespacedTypesAndOddIds) {
  Store store = MustLoad(R"([
    {"uid": {"type": "A::B::User", "id": ""}, "attrs": {}, "parents": []},
    {"uid": {"type": "_T1", "id": "a \"quoted\" \u00e9 id"}, "attrs": {}, "parents": []}
  ])");
  EXPECT_EQ(store->size(), 2u);
  EXPECT_NE(store->data(store->Find("A::B::User", "")), nullptr);
  EXPECT_NE(store->data(store->Find("_T1", "a \"quoted\" \xC3\xA9 id")), nullptr);
  EXPECT_EQ(store->Find("B::User", ""), kNoUid);
}

TEST(EntityStore, EntityEscapesInUidParentsAndAttributes) {
  Store store = MustLoad(R"([
    {"uid": {"__entity": {"type": "User", "id": "alice"}},
     "attrs": {"manager": {"__entity": {"type": "User", "id": "bob"}},
               "friends": [{"__entity": {"type": "User", "id": "bob"}},
                           {"__entity": {"id": "carol", "type": "User"}}],
               "pair": {"type": "User", "id": "dave"}},
     "parents": [{"__entity": {"type": "Group", "id": "g"}}, {"type": "Group", "id": "h"}]},
    {"uid": {"type": "User", "id": "bob"}, "attrs": {}, "parents": []}
  ])");
  EXPECT_EQ(store->size(), 2u);
  uint32_t bob = store->Find("User", "bob");
  ASSERT_NE(bob, kNoUid);
  const Value* manager = Attr(*store, "User", "alice", "manager");
  ASSERT_NE(manager, nullptr);
  ASSERT_EQ(manager->type, Type::kEntity);
  EXPECT_EQ(manager->entity->type, "User");
  EXPECT_EQ(manager->entity->id, "bob");
  EXPECT_EQ(manager->entity->uid, bob);  // interned: the same uid as the entity
  const Value* friends = Attr(*store, "User", "alice", "friends");
  ASSERT_NE(friends, nullptr);
  ASSERT_EQ(friends->type, Type::kSet);
  EXPECT_EQ(friends->size, 2u);
  EXPECT_EQ(ToCedar(*friends), R"([User::"bob", User::"carol"])");
  // An entity named only in an attribute has a uid but no data.
  uint32_t carol = store->Find("User", "carol");
  ASSERT_NE(carol, kNoUid);
  EXPECT_EQ(store->data(carol), nullptr);
  // Without `__entity`, `{"type", "id"}` in an attribute is just a record.
  const Value* pair = Attr(*store, "User", "alice", "pair");
  ASSERT_NE(pair, nullptr);
  EXPECT_EQ(pair->type, Type::kRecord);
  EXPECT_EQ(store->Find("User", "dave"), kNoUid);
  EXPECT_TRUE(InAncestors(*store, "User", "alice", "Group", "g"));
  EXPECT_TRUE(InAncestors(*store, "User", "alice", "Group", "h"));
}

TEST(EntityStore, EntityEscapeInTags) {
  Store store = MustLoad(R"([
    {"uid": {"type": "Doc", "id": "d"}, "attrs": {}, "parents": [],
     "tags": {"owner": {"__entity": {"type": "User", "id": "u"}}}}
  ])");
  const EntityData* d = Data(*store, "Doc", "d");
  ASSERT_NE(d, nullptr);
  const Value* owner = FindField(d->tags, "owner");
  ASSERT_NE(owner, nullptr);
  ASSERT_EQ(owner->type, Type::kEntity);
  EXPECT_EQ(owner->entity->uid, store->Find("User", "u"));
}

// ---------------------------------------------------------------------------
// The hierarchy

TEST(EntityStoreHierarchy, TransitiveAncestors) {
  // a -> b -> c -> d, listed child first; d has no entity of its own.
  Store store = MustLoad(R"([
    {"uid": {"type": "T", "id": "a"}, "attrs": {}, "parents": [{"type": "T", "id": "b"}]},
    {"uid": {"type": "T", "id": "b"}, "attrs": {}, "parents": [{"type": "T", "id": "c"}]},
    {"uid": {"type": "T", "id": "c"}, "attrs": {}, "parents": [{"type": "T", "id": "d"}]}
  ])");
  EXPECT_EQ(store->size(), 3u);
  EXPECT_EQ(store->num_uids(), 4u);
  EXPECT_TRUE(InAncestors(*store, "T", "a", "T", "b"));
  EXPECT_TRUE(InAncestors(*store, "T", "a", "T", "c"));
  EXPECT_TRUE(InAncestors(*store, "T", "a", "T", "d"));
  EXPECT_TRUE(InAncestors(*store, "T", "b", "T", "d"));
  EXPECT_TRUE(InAncestors(*store, "T", "c", "T", "d"));
  EXPECT_FALSE(InAncestors(*store, "T", "d", "T", "a"));
  EXPECT_FALSE(InAncestors(*store, "T", "c", "T", "b"));
  EXPECT_FALSE(InAncestors(*store, "T", "b", "T", "a"));
  // Not reflexive: `e in e` is the evaluator's business.
  EXPECT_FALSE(InAncestors(*store, "T", "a", "T", "a"));
  EXPECT_EQ(NumAncestors(*store, "T", "a"), 3u);
  EXPECT_EQ(NumAncestors(*store, "T", "b"), 2u);
  EXPECT_EQ(NumAncestors(*store, "T", "c"), 1u);
}

TEST(EntityStoreHierarchy, ParentListedBeforeChild) {
  Store store = MustLoad(R"([
    {"uid": {"type": "Org", "id": "o"}, "attrs": {}, "parents": []},
    {"uid": {"type": "Team", "id": "t"}, "attrs": {}, "parents": [{"type": "Org", "id": "o"}]},
    {"uid": {"type": "User", "id": "u"}, "attrs": {}, "parents": [{"type": "Team", "id": "t"}]}
  ])");
  EXPECT_TRUE(InAncestors(*store, "User", "u", "Org", "o"));
  EXPECT_TRUE(InAncestors(*store, "User", "u", "Team", "t"));
  EXPECT_FALSE(InAncestors(*store, "Org", "o", "User", "u"));
}

TEST(EntityStoreHierarchy, ADatalessParentEndsTheChain) {
  // m is only a parent: whatever its own parents would be, they are unknown,
  // so nothing is above it.
  Store store = MustLoad(R"([
    {"uid": {"type": "U", "id": "x"}, "attrs": {}, "parents": [{"type": "G", "id": "m"}]},
    {"uid": {"type": "G", "id": "top"}, "attrs": {}, "parents": []}
  ])");
  EXPECT_TRUE(InAncestors(*store, "U", "x", "G", "m"));
  EXPECT_FALSE(InAncestors(*store, "U", "x", "G", "top"));
  EXPECT_FALSE(InAncestors(*store, "G", "m", "G", "top"));
  EXPECT_EQ(store->data(store->Find("G", "m")), nullptr);
}

TEST(EntityStoreHierarchy, DiamondAndDuplicateParents) {
  Store store = MustLoad(R"([
    {"uid": {"type": "T", "id": "a"}, "attrs": {},
     "parents": [{"type": "T", "id": "b"}, {"type": "T", "id": "c"}, {"type": "T", "id": "b"}]},
    {"uid": {"type": "T", "id": "b"}, "attrs": {}, "parents": [{"type": "T", "id": "d"}]},
    {"uid": {"type": "T", "id": "c"}, "attrs": {}, "parents": [{"type": "T", "id": "d"}]},
    {"uid": {"type": "T", "id": "d"}, "attrs": {}, "parents": [{"type": "T", "id": "e"}]}
  ])");
  const EntityData* a = Data(*store, "T", "a");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(NumAncestors(*store, "T", "a"), 4u);  // b, c, d, e once each
  EXPECT_TRUE(InAncestors(*store, "T", "a", "T", "e"));
  EXPECT_FALSE(InAncestors(*store, "T", "b", "T", "c"));
}

// The short walk (limit up to kSmallAncestorWalk, no mark per uid) and the
// marked walk give the same ancestors, and the short one stops at its limit.
TEST(EntityStoreHierarchy, ShortAndLongAncestorWalksAgree) {
  Store store = MustLoad(R"([
    {"uid": {"type": "U", "id": "a"}, "attrs": {},
     "parents": [{"type": "G", "id": "b"}, {"type": "G", "id": "c"}]},
    {"uid": {"type": "G", "id": "b"}, "attrs": {}, "parents": [{"type": "G", "id": "d"}]},
    {"uid": {"type": "G", "id": "c"}, "attrs": {},
     "parents": [{"type": "G", "id": "d"}, {"type": "G", "id": "e"}]},
    {"uid": {"type": "G", "id": "d"}, "attrs": {}, "parents": [{"type": "G", "id": "e"}]},
    {"uid": {"type": "G", "id": "e"}, "attrs": {}, "parents": []}
  ])");
  for (uint32_t uid = 0; uid < store->num_uids(); ++uid) {
    AncestorScratch scratch;
    std::vector<uint32_t> small, large;
    EXPECT_TRUE(store->Ancestors(uid, EntityStore::kSmallAncestorWalk, &scratch, &small));
    EXPECT_TRUE(store->Ancestors(uid, EntityStore::kSmallAncestorWalk + 1, &scratch, &large));
    std::sort(small.begin(), small.end());
    std::sort(large.begin(), large.end());
    EXPECT_EQ(small, large) << "uid " << uid;
  }
  AncestorScratch scratch;
  std::vector<uint32_t> out;
  EXPECT_FALSE(store->Ancestors(store->Find("U", "a"), 3, &scratch, &out));  // a has 4
  EXPECT_EQ(out.size(), 3u);
  EXPECT_TRUE(store->Ancestors(store->Find("U", "a"), 4, &scratch, &out));
  EXPECT_EQ(out.size(), 4u);
}

TEST(EntityStoreHierarchy, SameIdDifferentTypes) {
  Store store = MustLoad(R"([
    {"uid": {"type": "User", "id": "x"}, "attrs": {}, "parents": [{"type": "Group", "id": "x"}]},
    {"uid": {"type": "Group", "id": "x"}, "attrs": {"k": 1}, "parents": []}
  ])");
  EXPECT_EQ(store->size(), 2u);
  EXPECT_TRUE(InAncestors(*store, "User", "x", "Group", "x"));
  EXPECT_EQ(AttrsText(*store, "Group", "x"), R"({"k": 1})");
  EXPECT_EQ(AttrsText(*store, "User", "x"), "{}");
}

TEST(EntityStoreHierarchy, CycleIsAnError) {
  EXPECT_EQ(LoadError(R"([
  {"uid": {"type": "T", "id": "a"}, "attrs": {}, "parents": [{"type": "T", "id": "b"}]},
  {"uid": {"type": "T", "id": "b"}, "attrs": {}, "parents": [{"type": "T", "id": "a"}]}
])"),
            "entities.json:3:3: the entity hierarchy has a cycle through T::\"a\"");
}

TEST(EntityStoreHierarchy, SelfParentIsACycle) {
  EXPECT_EQ(LoadError(R"([{"uid": {"type": "T", "id": "me"}, "attrs": {},
                          "parents": [{"type": "T", "id": "me"}]}])"),
            "entities.json:1:2: the entity hierarchy has a cycle through T::\"me\"");
}

TEST(EntityStoreHierarchy, LongerCycleIsAnError) {
  std::string message = LoadError(R"([
  {"uid": {"type": "T", "id": "ok"}, "attrs": {}, "parents": [{"type": "T", "id": "a"}]},
  {"uid": {"type": "T", "id": "a"}, "attrs": {}, "parents": [{"type": "T", "id": "b"}]},
  {"uid": {"type": "T", "id": "b"}, "attrs": {}, "parents": [{"type": "T", "id": "c"}]},
  {"uid": {"type": "T", "id": "c"}, "attrs": {}, "parents": [{"type": "T", "id": "a"}]}
])");
  EXPECT_EQ(message, "entities.json:5:3: the entity hierarchy has a cycle through T::\"a\"");
}

TEST(EntityStoreHierarchy, LongChain) {
  // Every entity stores all its ancestors, so a chain costs n*n/2 entries:
  // keep it modest.
  const int kDepth = 2000;
  std::string json = "[";
  for (int i = 0; i < kDepth; ++i) {
    if (i > 0) json += ",";
    json += R"({"uid":{"type":"T","id":")" + std::to_string(i) +
            R"("},"attrs":{},"parents":[{"type":"T","id":")" + std::to_string(i + 1) + R"("}]})";
  }
  json += "]";
  absl::StatusOr<Store> store = Load(json);
  ASSERT_THAT(store, IsOk());
  EXPECT_EQ((*store)->size(), static_cast<size_t>(kDepth));
  EXPECT_TRUE(InAncestors(**store, "T", "0", "T", std::to_string(kDepth)));
  EXPECT_TRUE(InAncestors(**store, "T", "1000", "T", "1999"));
  EXPECT_FALSE(InAncestors(**store, "T", "1999", "T", "1000"));
  EXPECT_EQ(NumAncestors(**store, "T", "0"), static_cast<size_t>(kDepth));
  // A cycle closed at the far end of the chain is still found.
  std::string cyclic = json.substr(0, json.size() - 1) +
                       R"(,{"uid":{"type":"T","id":"2000"},"attrs":{},"parents":[{"type":"T","id":"0"}]}])";
  std::string message = LoadError(cyclic);
  EXPECT_NE(message.find("the entity hierarchy has a cycle through T::"), std::string::npos)
      << message;
}

// ---------------------------------------------------------------------------
// Duplicates

TEST(EntityStoreDuplicates, IdenticalDuplicatesAreAccepted) {
  Store store = MustLoad(R"([
    {"uid": {"type": "U", "id": "a"}, "attrs": {"x": 1, "y": [1, 2]},
     "parents": [{"type": "G", "id": "g"}, {"type": "G", "id": "h"}]},
    {"parents": [{"type": "G", "id": "h"}, {"type": "G", "id": "g"}],
     "attrs": {"y": [2, 1], "x": 1}, "uid": {"__entity": {"type": "U", "id": "a"}}, "tags": {}}
  ])");
  EXPECT_EQ(store->size(), 1u);
  EXPECT_EQ(AttrsText(*store, "U", "a"), R"({"x": 1, "y": [1, 2]})");
  EXPECT_TRUE(InAncestors(*store, "U", "a", "G", "h"));
}

TEST(EntityStoreDuplicates, DifferentAttrsAreAnError) {
  EXPECT_EQ(LoadError(R"([
  {"uid": {"type": "U", "id": "a"}, "attrs": {"x": 1}, "parents": []},
    {"uid": {"type": "U", "id": "a"}, "attrs": {"x": 2}, "parents": []}
])"),
            "entities.json:3:5: entity U::\"a\" appears twice with different contents");
}

TEST(EntityStoreDuplicates, DifferentParentsOrTagsAreAnError) {
  EXPECT_EQ(LoadError(R"([{"uid": {"type": "U", "id": "a"}, "attrs": {}, "parents": []},
{"uid": {"type": "U", "id": "a"}, "attrs": {}, "parents": [{"type": "G", "id": "g"}]}])"),
            "entities.json:2:1: entity U::\"a\" appears twice with different contents");
  EXPECT_EQ(LoadError(R"([{"uid": {"type": "U", "id": "a\"b"}, "attrs": {}, "parents": []},
{"uid": {"type": "U", "id": "a\"b"}, "attrs": {}, "parents": [], "tags": {"t": ""}}])"),
            "entities.json:2:1: entity U::\"a\\\"b\" appears twice with different contents");
}

// ---------------------------------------------------------------------------
// Values

TEST(EntityStoreValues, Int64Limits) {
  Store store = MustLoad(R"([{"uid": {"type": "U", "id": "a"}, "parents": [],
    "attrs": {"max": 9223372036854775807, "min": -9223372036854775808, "zero": -0}}])");
  const Value* max = Attr(*store, "U", "a", "max");
  const Value* min = Attr(*store, "U", "a", "min");
  const Value* zero = Attr(*store, "U", "a", "zero");
  ASSERT_NE(max, nullptr);
  ASSERT_NE(min, nullptr);
  ASSERT_NE(zero, nullptr);
  EXPECT_EQ(max->type, Type::kLong);
  EXPECT_EQ(max->i, std::numeric_limits<int64_t>::max());
  EXPECT_EQ(min->type, Type::kLong);
  EXPECT_EQ(min->i, std::numeric_limits<int64_t>::min());
  EXPECT_EQ(zero->i, 0);
}

TEST(EntityStoreValues, IntegerTooLarge) {
  EXPECT_EQ(LoadError(R"([{"uid": {"type": "U", "id": "a"}, "parents": [],
    "attrs": {"n": 9223372036854775808}}])"),
            "entities.json:2:20: integer `9223372036854775808` does not fit in 64 bits");
  EXPECT_EQ(LoadError(R"([{"uid": {"type": "U", "id": "a"}, "parents": [],
    "attrs": {"n": [-9223372036854775809]}}])"),
            "entities.json:2:21: integer `-9223372036854775809` does not fit in 64 bits");
}

TEST(EntityStoreValues, NonIntegerNumbers) {
  EXPECT_EQ(LoadError(R"([{"uid": {"type": "U", "id": "a"}, "parents": [], "attrs": {"n": 1.5}}])"),
            "entities.json:1:66: `1.5` is not an integer; only integers are values");
  EXPECT_EQ(LoadError(R"([{"uid": {"type": "U", "id": "a"}, "parents": [], "attrs": {"n": 1e3}}])"),
            "entities.json:1:66: `1e3` is not an integer; only integers are values");
  EXPECT_EQ(LoadError(R"([{"uid": {"type": "U", "id": "a"}, "parents": [], "tags": {"n": 2.0},
                          "attrs": {}}])"),
            "entities.json:1:65: `2.0` is not an integer; only integers are values");
}

TEST(EntityStoreValues, NullIsNotAValue) {
  EXPECT_EQ(LoadError(R"([{"uid": {"type": "U", "id": "a"}, "parents": [], "attrs": {"n": null}}])"),
            "entities.json:1:66: `null` is not a value");
}

TEST(EntityStoreValues, SetsAreDeduplicated) {
  Store store = MustLoad(R"([{"uid": {"type": "U", "id": "a"}, "parents": [],
    "attrs": {"s": [1, 1, 2, "a", "a", [1, 2], [2, 1, 1], {"k": 1}, {"k": 1}, true, true,
                    {"__entity": {"type": "U", "id": "a"}}, {"__entity": {"type": "U", "id": "a"}}],
              "empty": []}}])");
  const Value* s = Attr(*store, "U", "a", "s");
  ASSERT_NE(s, nullptr);
  ASSERT_EQ(s->type, Type::kSet);
  EXPECT_EQ(s->size, 7u);
  EXPECT_EQ(ToCedar(*s), R"([1, 2, "a", [1, 2], {"k": 1}, true, U::"a"])");
  const Value* empty = Attr(*store, "U", "a", "empty");
  ASSERT_NE(empty, nullptr);
  EXPECT_EQ(empty->type, Type::kSet);
  EXPECT_EQ(empty->size, 0u);
}

TEST(EntityStoreValues, RecordsAreSortedAndSearchable) {
  Store store = MustLoad(R"([{"uid": {"type": "U", "id": "a"}, "parents": [],
    "attrs": {"zeta": 1, "alpha": {"y": "Y", "x": "X", "": 0}, "Beta": 2, "m\u00e9": 3, "m": 4}}])");
  const EntityData* d = Data(*store, "U", "a");
  ASSERT_NE(d, nullptr);
  ASSERT_EQ(d->attrs.size, 5u);
  // Byte order: uppercase before lowercase, a prefix before its extensions.
  EXPECT_EQ(d->attrs.fields[0].key, "Beta");
  EXPECT_EQ(d->attrs.fields[1].key, "alpha");
  EXPECT_EQ(d->attrs.fields[2].key, "m");
  EXPECT_EQ(d->attrs.fields[3].key, "m\xC3\xA9");
  EXPECT_EQ(d->attrs.fields[4].key, "zeta");
  for (std::string_view key : {"Beta", "alpha", "m", "m\xC3\xA9", "zeta"}) {
    const Value* v = FindField(d->attrs, key);
    ASSERT_NE(v, nullptr) << key;
  }
  EXPECT_EQ(FindField(d->attrs, "zeta")->i, 1);
  EXPECT_EQ(FindField(d->attrs, "m")->i, 4);
  EXPECT_EQ(FindField(d->attrs, "m\xC3\xA9")->i, 3);
  EXPECT_EQ(FindField(d->attrs, "beta"), nullptr);
  EXPECT_EQ(FindField(d->attrs, "mu"), nullptr);
  EXPECT_EQ(FindField(d->attrs, ""), nullptr);
  const Value* alpha = FindField(d->attrs, "alpha");
  ASSERT_EQ(alpha->type, Type::kRecord);
  EXPECT_EQ(ToCedar(*alpha), R"({"": 0, "x": "X", "y": "Y"})");
  ASSERT_NE(FindField(*alpha, "x"), nullptr);
  EXPECT_EQ(FindField(*alpha, "x")->string(), "X");
  ASSERT_NE(FindField(*alpha, ""), nullptr);
  EXPECT_EQ(FindField(*alpha, "")->i, 0);
}

TEST(EntityStoreValues, StringsWithEscapes) {
  Store store = MustLoad(R"([{"uid": {"type": "U", "id": "a"}, "parents": [],
    "attrs": {"s": "tab\there \"q\" \u00e9 \ud83d\ude00 nul\u0000end"}}])");
  const Value* s = Attr(*store, "U", "a", "s");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->string(),
            std::string("tab\there \"q\" \xC3\xA9 \xF0\x9F\x98\x80 nul\0end", 28));
}

TEST(EntityStoreValues, ExtensionValues) {
  auto store = MustLoad(R"([{"uid": {"type": "U", "id": "a"}, "parents": [],
    "attrs": {"ip": {"__extn": {"fn": "ip", "arg": "10.0.0.1"}},
              "d": {"__extn": {"fn": "decimal", "args": ["1.5"]}}}}])");
  const Value* d = Attr(*store, "U", "a", "d");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->type, Type::kDecimal);
  EXPECT_EQ(d->i, 15000);
  ASSERT_NE(Attr(*store, "U", "a", "ip"), nullptr);
  EXPECT_EQ(Attr(*store, "U", "a", "ip")->type, Type::kIp);
  EXPECT_EQ(LoadError(R"([{"uid": {"type": "U", "id": "a"}, "parents": [],
    "attrs": {"ip": {"__extn": {"fn": "ip", "arg": 1}}}}])"),
            "entities.json:2:52: the argument of `ip` must be a string");
  EXPECT_EQ(LoadError(R"([{"uid": {"type": "U", "id": "a"}, "parents": [],
    "attrs": {"ip": {"__extn": {"fn": "ip", "args": ["10.0.0.1", "10.0.0.2"]}}}}])"),
            "entities.json:2:32: `ip` takes 1 argument, 2 given");
  EXPECT_EQ(LoadError(R"([{"uid": {"type": "U", "id": "a"}, "parents": [],
    "attrs": {"ip": {"__extn": {"fn": "ipaddr", "arg": "10.0.0.1"}}}}])"),
            "entities.json:2:32: unknown extension function `ipaddr`; expected `ip`, `decimal`, "
            "`datetime` or `duration`");
  EXPECT_EQ(LoadError(R"([{"uid": {"type": "U", "id": "a"}, "parents": [],
    "attrs": {"u": {"__extn": {"fn": "unknown", "arg": "x"}}}}])"),
            "entities.json:2:31: `unknown` values are for partial evaluation, which Charter does not do");
  EXPECT_EQ(LoadError(R"([{"uid": {"type": "U", "id": "a"}, "parents": [],
    "attrs": {"e": {"__expr": "1 + 1"}}}])"),
            "entities.json:2:20: the `__expr` escape is not supported");
}

// Cedar's reading of `__extn` and `__entity` (its CedarValueJson), checked
// against cedar-wasm 4.13: other keys beside `fn` and `arg`, or `type` and
// `id`, are ignored; `arg` wins over `args`; any extension function may be
// called, its arguments read as values; an object that does not have the
// escape's shape is an ordinary record.
TEST(EntityStoreValues, EscapesAsCedarReadsThem) {
  auto store = MustLoad(R"([{"uid": {"type": "U", "id": "a"}, "parents": [], "attrs": {
    "ip": {"__extn": {"fn": "ip", "arg": "10.0.0.1", "note": 1}},
    "both": {"__extn": {"fn": "decimal", "arg": "1.5", "args": ["2.5"]}},
    "v4": {"__extn": {"fn": "isIpv4", "arg": {"__extn": {"fn": "ip", "arg": "10.0.0.1"}}}},
    "later": {"__extn": {"fn": "offset", "args": [{"__extn": {"fn": "datetime", "arg": "2024-01-01"}},
                                                  {"__extn": {"fn": "duration", "arg": "1h"}}]}},
    "days": {"__extn": {"fn": "toDays", "arg": {"__extn": {"fn": "duration", "arg": "2d"}}}},
    "ref": {"__entity": {"type": "U", "id": "b", "note": 1}},
    "fn only": {"__extn": {"fn": "ip"}},
    "type only": {"__entity": {"type": "U"}},
    "two keys": {"__entity": {"type": "U", "id": "b"}, "x": 1}}}])");
  EXPECT_EQ(Attr(*store, "U", "a", "ip")->type, Type::kIp);
  EXPECT_EQ(Attr(*store, "U", "a", "both")->i, 15000);
  EXPECT_EQ(Attr(*store, "U", "a", "v4")->type, Type::kBool);
  EXPECT_TRUE(Attr(*store, "U", "a", "v4")->b);
  EXPECT_EQ(Attr(*store, "U", "a", "later")->type, Type::kDatetime);
  EXPECT_EQ(Attr(*store, "U", "a", "later")->i, 1704067200000 + 3600000);
  EXPECT_EQ(Attr(*store, "U", "a", "days")->type, Type::kLong);
  EXPECT_EQ(Attr(*store, "U", "a", "days")->i, 2);
  EXPECT_EQ(Attr(*store, "U", "a", "ref")->type, Type::kEntity);
  EXPECT_EQ(Attr(*store, "U", "a", "fn only")->type, Type::kRecord);
  EXPECT_EQ(Attr(*store, "U", "a", "type only")->type, Type::kRecord);
  EXPECT_EQ(Attr(*store, "U", "a", "two keys")->type, Type::kRecord);
  EXPECT_EQ(LoadError(R"([{"uid": {"type": "U", "id": "a"}, "parents": [],
    "attrs": {"b": {"__extn": {"fn": "isInRange", "args": ["10.0.0.1", "10.0.0.0/8"]}}}}])"),
            "entities.json:2:31: `isInRange`: type error: expected ipaddr, got string");
}

TEST(EntityStoreValues, DeepNestingWithinTheLimit) {
  // attrs is one level; 63 arrays inside it reach max_nesting = 64.
  std::string json = R"([{"uid": {"type": "U", "id": "a"}, "parents": [], "attrs": {"n": )" +
                     std::string(63, '[') + std::string(63, ']') + "}}]";
  Store store = MustLoad(json);
  EXPECT_EQ(store->size(), 1u);
}

TEST(EntityStoreValues, DeepNestingBeyondTheLimit) {
  const std::string head = R"([{"uid": {"type": "U", "id": "a"}, "parents": [], "attrs": {"n": )";
  std::string json = head + std::string(64, '[') + std::string(64, ']') + "}}]";
  std::string message = LoadError(json);
  EXPECT_EQ(message, "entities.json:1:" + std::to_string(head.size() + 64) +
                         ": values are nested too deeply");
  // Records count as well.
  std::string records = head;
  for (int i = 0; i < 64; ++i) records += R"({"r": )";
  records += "1" + std::string(64, '}') + "}}]";
  EXPECT_EQ(LoadError(records).substr(0, 16), "entities.json:1:");
  EXPECT_NE(LoadError(records).find("values are nested too deeply"), std::string::npos);
}

TEST(EntityStoreValues, VeryDeepNestingIsRejectedWithoutCrashing) {
  const std::string head = R"([{"uid": {"type": "U", "id": "a"}, "parents": [], "attrs": {"n": )";
  std::string json = head + std::string(100000, '[') + std::string(100000, ']') + "}}]";
  std::string message = LoadError(json);
  EXPECT_EQ(message.substr(0, 16), "entities.json:1:") << message;
  EXPECT_NE(message.find("nesting deeper than"), std::string::npos) << message;
}

TEST(EntityStoreValues, CustomMaxNesting) {
  EntitiesOptions options;
  options.max_nesting = 2;
  const std::string head = R"([{"uid": {"type": "U", "id": "a"}, "parents": [], "attrs": {"n": )";
  absl::StatusOr<Store> ok = Load(head + "[1]}}]", options);
  EXPECT_THAT(ok, IsOk());
  EXPECT_EQ(LoadError(head + "[[1]]}}]", options),
            "entities.json:1:" + std::to_string(head.size() + 2) +
                ": values are nested too deeply");
}

// ---------------------------------------------------------------------------
// Malformed entities

TEST(EntityStoreErrors, RootMustBeAnArray) {
  EXPECT_EQ(LoadError(R"({"uid": {}})"),
            "entities.json:1:1: entities must be a JSON array of entity objects");
  EXPECT_EQ(LoadError("\n  7"), "entities.json:2:3: entities must be a JSON array of entity objects");
}

TEST(EntityStoreErrors, EntityMustBeAnObject) {
  EXPECT_EQ(LoadError(R"([{"uid": {"type": "U", "id": "a"}, "attrs": {}, "parents": []}, "U::\"b\""])"),
            "entities.json:1:65: an entity must be a JSON object");
}

TEST(EntityStoreErrors, MissingFields) {
  EXPECT_EQ(LoadError(R"([{"attrs": {}, "parents": []}])"), "entities.json:1:2: an entity lacks `uid`");
  EXPECT_EQ(LoadError(R"([ {"uid": {"type": "U", "id": "a"}, "parents": []}])"),
            "entities.json:1:3: an entity lacks `attrs`");
  EXPECT_EQ(LoadError(R"([{"uid": {"type": "U", "id": "a"}, "attrs": {}}])"),
            "entities.json:1:2: an entity lacks `parents`");
}

// Cedar ignores keys it does not know, in an entity and in a uid; a uid may
// also be a two-string array.
TEST(EntityStoreErrors, UnknownKeys) {
  EXPECT_EQ(LoadError(R"([{"uid": {"type": "U", "id": "a"}, "attrs": {}, "parent": []}])"),
            "entities.json:1:2: an entity lacks `parents`");
  EXPECT_EQ(LoadError(R"([{"uid": {"type": "U", "id": "a"}, "attrs": {}, "parents": [{"type": "G", "Id": "g"}]}])"),
            "entities.json:1:61: a parent lacks `id`");
  auto store = MustLoad(R"([{"uid": {"type": "U", "id": "a", "x": 1}, "attrs": {}, "parents": [["G", "g"]],
                             "note": "ignored"},
                            {"uid": {"__entity": {"type": "U", "id": "b", "x": 1}}, "attrs": {}, "parents": []}])");
  EXPECT_EQ(store->size(), 2u);
  uint32_t a = store->Find("U", "a");
  ASSERT_NE(a, kNoUid);
  EXPECT_TRUE(store->HasAncestor(a, store->Find("G", "g")));
  EXPECT_EQ(LoadError(R"([{"uid": ["U", "a", "b"], "attrs": {}, "parents": []}])"),
            "entities.json:1:10: an entity's `uid` must be an object with `type` and `id`");
}

// An action's parents are actions, with a schema or without one.
TEST(EntityStoreErrors, ActionParents) {
  EXPECT_EQ(LoadError(R"([{"uid": {"type": "Action", "id": "a"}, "attrs": {}, "parents": [{"type": "U", "id": "u"}]}])"),
            "entities.json:1:66: action Action::\"a\" cannot have the parent U::\"u\", which is not an action");
  EXPECT_THAT(Load(R"([{"uid": {"type": "NS::Action", "id": "a"}, "attrs": {}, "parents": [{"type": "Action", "id": "g"}]}])"), IsOk());
}

TEST(EntityStoreErrors, BadUids) {
  EXPECT_EQ(LoadError(R"([{"uid": {"type": "U"}, "attrs": {}, "parents": []}])"),
            "entities.json:1:10: an entity's `uid` lacks `id`");
  EXPECT_EQ(LoadError(R"([{"uid": {"id": "a"}, "attrs": {}, "parents": []}])"),
            "entities.json:1:10: an entity's `uid` lacks `type`");
  EXPECT_EQ(LoadError(R"([{"uid": {"type": "U", "id": 5}, "attrs": {}, "parents": []}])"),
            "entities.json:1:30: the `id` of an entity's `uid` must be a string");
  EXPECT_EQ(LoadError(R"([{"uid": {"type": ["U"], "id": "a"}, "attrs": {}, "parents": []}])"),
            "entities.json:1:19: the `type` of an entity's `uid` must be a string");
  EXPECT_EQ(LoadError(R"([{"uid": "U::\"a\"", "attrs": {}, "parents": []}])"),
            "entities.json:1:10: an entity's `uid` must be an object with `type` and `id`");
  EXPECT_EQ(LoadError(R"([{"uid": {"__entity": "U::\"a\""}, "attrs": {}, "parents": []}])"),
            "entities.json:1:10: an entity's `uid` must be an object with `type` and `id`");
  EXPECT_EQ(LoadError(R"([{"uid": {"__expr": "U::\"a\"", "type": "U", "id": "a"}, "attrs": {}, "parents": []}])"),
            "entities.json:1:10: an entity's `uid`: the `__expr` escape is not supported");
  EXPECT_EQ(LoadError(R"([{"uid": {"type": "U", "id": "a"}, "attrs": {}, "parents": ["G::\"g\""]}])"),
            "entities.json:1:61: a parent must be an object with `type` and `id`");
}

TEST(EntityStoreErrors, BadTypeNames) {
  for (std::string_view name : {"", "1U", "U::", "::U", "U:::V", "U V", "U-V", "U::2", "if", "NS::in",
                                "__cedar", "__cedar::U", "true"}) {
    std::string json = R"([{"uid": {"type": ")" + std::string(name) +
                       R"(", "id": "a"}, "attrs": {}, "parents": []}])";
    EXPECT_EQ(LoadError(json),
              "entities.json:1:19: `" + std::string(name) + "` is not a valid entity type name")
        << name;
  }
}

TEST(EntityStoreErrors, WrongShapes) {
  EXPECT_EQ(LoadError(R"([{"uid": {"type": "U", "id": "a"}, "attrs": [], "parents": []}])"),
            "entities.json:1:45: `attrs` must be a JSON object");
  EXPECT_EQ(LoadError(R"([{"uid": {"type": "U", "id": "a"}, "attrs": {}, "parents": {}}])"),
            "entities.json:1:60: `parents` must be a JSON array");
  EXPECT_EQ(LoadError(R"([{"uid": {"type": "U", "id": "a"}, "attrs": {}, "parents": [], "tags": 1}])"),
            "entities.json:1:72: `tags` must be a JSON object");
}

TEST(EntityStoreErrors, MalformedJson) {
  std::string message = LoadError("[\n  {\"uid\": }\n]");
  EXPECT_EQ(message.substr(0, 19), "entities.json:2:11:") << message;
  message = LoadError("[\n  {\"uid\": {\"type\": \"U\", \"id\": \"a\"}, \"attrs\": {},\n   \"parents\": [] \n");
  EXPECT_EQ(message.substr(0, 18), "entities.json:4:1:") << message;
  message = LoadError("");
  EXPECT_EQ(message.substr(0, 18), "entities.json:1:1:") << message;
  // Columns count characters, not bytes.
  message = LoadError("[{\"uid\": {\"type\": \"U\", \"id\": \"\xC3\xA9\xC3\xA9\"} x");
  EXPECT_EQ(message.substr(0, 19), "entities.json:1:36:") << message;
}

TEST(EntityStoreErrors, DuplicateJsonKeys) {
  std::string message =
      LoadError(R"([{"uid": {"type": "U", "id": "a"}, "attrs": {"x": 1, "x": 2}, "parents": []}])");
  EXPECT_EQ(message, "entities.json:1:54: duplicate key `x`");
}

TEST(EntityStoreErrors, SourceNameAndInputLimit) {
  absl::StatusOr<Store> s = EntityStore::FromJson("{}", "data/my.json", {});
  ASSERT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument,
                          "data/my.json:1:1: entities must be a JSON array of entity objects"));
  EntitiesOptions options;
  options.max_input_bytes = 4;
  EXPECT_EQ(LoadError("[   ]", options), "entities.json: 5 bytes, more than the limit of 4");
  EXPECT_THAT(Load("[ ]", options), IsOk());
}

// ---------------------------------------------------------------------------
// The public wrapper

TEST(Entities, PublicFromJson) {
  absl::StatusOr<Entities> e = Entities::FromJson(
      R"([{"uid": {"type": "User", "id": "a"}, "attrs": {}, "parents": [{"type": "G", "id": "g"}]}])");
  ASSERT_THAT(e, IsOk());
  EXPECT_EQ(e->size(), 1u);
  const internal::EntityStore& store = internal::Unwrap::Store(*e);
  EXPECT_TRUE(store.HasAncestor(store.Find("User", "a"), store.Find("G", "g")));
  absl::StatusOr<Entities> bad = Entities::FromJson("[1]");
  ASSERT_THAT(bad, StatusIs(absl::StatusCode::kInvalidArgument, "entities.json:1:2: an entity must be a JSON object"));
  EXPECT_EQ(Entities().size(), 0u);
  EXPECT_EQ((EntityUid{"NS::User", "a\"b"}).ToString(), "NS::User::\"a\\\"b\"");
}

}  // namespace
}  // namespace charter::internal

namespace charter::internal {
namespace {

// A 100,000-deep parent chain: the old full ancestor lists would need
// 5 billion entries; intervals need one an entity.
TEST(EntityStore, DeepChainIsCheap) {
  constexpr int kDepth = 100000;
  std::string json = "[";
  for (int i = 0; i < kDepth; ++i) {
    json += "{\"uid\":{\"type\":\"N\",\"id\":\"" + std::to_string(i) +
            "\"},\"attrs\":{},\"parents\":[";
    if (i + 1 < kDepth) json += "{\"type\":\"N\",\"id\":\"" + std::to_string(i + 1) + "\"}";
    json += i + 1 < kDepth ? "]}," : "]}]";
  }
  Store store = MustLoad(json);
  EXPECT_TRUE(InAncestors(*store, "N", "0", "N", "99999"));
  EXPECT_TRUE(InAncestors(*store, "N", "500", "N", "501"));
  EXPECT_FALSE(InAncestors(*store, "N", "501", "N", "500"));
  EXPECT_FALSE(InAncestors(*store, "N", "7", "N", "7"));
}

// Entities with several parents need more intervals; past the limit the
// uids without room keep none, and `in` on them walks up.
TEST(EntityStore, AncestorIntervalLimit) {
  const char* dag = R"([
    {"uid": {"type": "T", "id": "a"}, "attrs": {}, "parents": [{"type": "T", "id": "p"}, {"type": "T", "id": "q"}]},
    {"uid": {"type": "T", "id": "b"}, "attrs": {}, "parents": [{"type": "T", "id": "q"}, {"type": "T", "id": "r"}]},
    {"uid": {"type": "T", "id": "c"}, "attrs": {}, "parents": [{"type": "T", "id": "p"}, {"type": "T", "id": "r"}]}
  ])";
  Store store = MustLoad(dag);
  for (const char* child : {"a", "b", "c"}) {
    for (const char* parent : {"p", "q", "r"}) {
      bool want = (std::string(child) == "a" && std::string(parent) != "r") ||
                  (std::string(child) == "b" && std::string(parent) != "p") ||
                  (std::string(child) == "c" && std::string(parent) != "q");
      EXPECT_EQ(InAncestors(*store, "T", child, "T", parent), want) << child << " in " << parent;
    }
  }
  // With room for four intervals, most uids keep none and `in` walks up
  // from the entity: the same answers.
  EntitiesOptions options;
  options.max_ancestor_intervals = 4;
  auto limited = EntityStore::FromJson(dag, "dag.json", options);
  ASSERT_THAT(limited, IsOk());
  for (const char* child : {"a", "b", "c", "p", "q", "r"}) {
    for (const char* parent : {"a", "b", "c", "p", "q", "r"}) {
      EXPECT_EQ(InAncestors(**limited, "T", child, "T", parent), InAncestors(*store, "T", child, "T", parent))
          << child << " in " << parent;
    }
  }
}

// A random hierarchy (each entity under up to three earlier ones), indexed
// whole and with room for a few intervals (most uids then walk): `in`
// agrees with the closure computed here, for every pair.
TEST(EntityStore, AncestorWalkAgreesWithClosure) {
  constexpr int kN = 300;
  std::mt19937 rng(11);
  std::vector<std::vector<int>> parents(kN);
  std::string json = "[";
  for (int i = 0; i < kN; ++i) {
    json += i == 0 ? "" : ",";
    json += "{\"uid\":{\"type\":\"T\",\"id\":\"" + std::to_string(i) + "\"},\"attrs\":{},\"parents\":[";
    int k = i == 0 ? 0 : static_cast<int>(rng() % 4);
    for (int j = 0; j < k; ++j) {
      int p = static_cast<int>(rng() % i);
      if (std::find(parents[i].begin(), parents[i].end(), p) != parents[i].end()) continue;
      json += parents[i].empty() ? "" : ",";
      json += "{\"type\":\"T\",\"id\":\"" + std::to_string(p) + "\"}";
      parents[i].push_back(p);
    }
    json += "]}";
  }
  json += "]";
  std::vector<std::vector<bool>> below(kN, std::vector<bool>(kN, false));  // below[a][b]: b is an ancestor of a
  for (int a = 0; a < kN; ++a) {
    for (int p : parents[a]) {
      below[a][p] = true;
      for (int q = 0; q < kN; ++q) below[a][q] = below[a][q] || below[p][q];
    }
  }
  Store whole = MustLoad(json);
  EntitiesOptions options;
  options.max_ancestor_intervals = 40;
  auto walking = EntityStore::FromJson(json, "dag.json", options);
  ASSERT_THAT(walking, IsOk());
  for (int a = 0; a < kN; ++a) {
    for (int b = 0; b < kN; ++b) {
      std::string ia = std::to_string(a), ib = std::to_string(b);
      ASSERT_EQ(InAncestors(*whole, "T", ia, "T", ib), below[a][b]) << a << " in " << b;
      ASSERT_EQ(InAncestors(**walking, "T", ia, "T", ib), below[a][b]) << a << " in " << b << " (walking)";
    }
  }
}

namespace diagnostics_test {

// A fault in entity JSON as a Diagnostic: its code, its message, and the
// text its span underlines.
struct Fault {
  std::string code;
  std::string message;
  std::string underlined;
};

Fault FaultOf(std::string_view json, const absl::Status& status) {
  EXPECT_THAT(status, StatusIs(absl::StatusCode::kInvalidArgument)) << json;
  std::optional<Diagnostic> d = DiagnosticOf(status);
  EXPECT_TRUE(d.has_value()) << status;
  if (!d.has_value()) return {};
  EXPECT_LE(d->span.begin, d->span.end);
  EXPECT_LE(d->span.end, json.size());
  // The status message is the diagnostic's first line, as it always was.
  Diagnostics one;
  one.Add(*d);
  EXPECT_EQ(std::string(status.message()) + "\n",
            one.RenderShort(SourceFile("entities.json", std::string(json))));
  return {d->code, d->message, std::string(json.substr(d->span.begin, d->span.end - d->span.begin))};
}

void ExpectFault(std::string_view json, const Fault& want, const EntitiesOptions& options = {}) {
  absl::StatusOr<Store> store = Load(json, options);
  Fault got = FaultOf(json, store.status());
  EXPECT_EQ(got.code, want.code) << json;
  EXPECT_EQ(got.message, want.message) << json;
  EXPECT_EQ(got.underlined, want.underlined) << json;
}

TEST(EntityStoreDiagnostics, EachFaultHasACodeAndASpan) {
  ExpectFault(R"([{"uid": {"type": "U", "id": "a"},}])", {"CH0600", "trailing comma before `}`", ","});
  EntitiesOptions shallow;
  shallow.max_nesting = 1;
  ExpectFault(R"([{"uid": {"type": "U", "id": "a"}, "attrs": {"a": {"b": [1]}}, "parents": []}])",
              {"CH0601", "values are nested too deeply", R"({"b": [1]})"}, shallow);
  ExpectFault(R"({"uid": {}})", {"CH0602", "entities must be a JSON array of entity objects", R"({"uid": {}})"});
  ExpectFault(R"([{"uid": {"type": "U", "id": "a"}, "attrs": {}}])",
              {"CH0603", "an entity lacks `parents`", R"({"uid": {"type": "U", "id": "a"}, "attrs": {}})"});
  ExpectFault(R"([{"uid": {"type": "if", "id": "a"}, "attrs": {}, "parents": []}])",
              {"CH0605", "`if` is not a valid entity type name", R"("if")"});
  ExpectFault(R"([{"uid": {"type": "U", "id": "a"}, "attrs": {"n": 1.5}, "parents": []}])",
              {"CH0606", "`1.5` is not an integer; only integers are values", "1.5"});
  ExpectFault(R"([{"uid": {"type": "U", "id": "a"}, "attrs": {}, "parents": [{"type": "U", "id": "a"}]}])",
              {"CH0607", "the entity hierarchy has a cycle through U::\"a\"",
               R"({"uid": {"type": "U", "id": "a"}, "attrs": {}, "parents": [{"type": "U", "id": "a"}]})"});
}

TEST(EntityStoreDiagnostics, SchemaFaults) {
  Diagnostics schema_diagnostics;
  absl::StatusOr<Schema> schema =
      Schema::Parse(SourceFile("schema.cedarschema", "entity User { level: Long };"), {}, &schema_diagnostics);
  ASSERT_THAT(schema, IsOk());
  std::string_view json = R"([{"uid": {"type": "User", "id": "a"}, "attrs": {"level": "high"}, "parents": []}])";
  absl::StatusOr<Entities> entities = Entities::FromJson(json, *schema);
  Fault got = FaultOf(json, entities.status());
  EXPECT_EQ(got.code, "CH0608");
  EXPECT_EQ(got.message, "entity User::\"a\": attribute `level`: expected `Long`, found a string");
  EXPECT_EQ(got.underlined, R"("high")");
  // An undeclared attribute underlines its key.
  json = R"([{"uid": {"type": "User", "id": "a"}, "attrs": {"level": 1, "rank": 2}, "parents": []}])";
  got = FaultOf(json, Entities::FromJson(json, *schema).status());
  EXPECT_EQ(got.code, "CH0608");
  EXPECT_EQ(got.underlined, R"("rank")");
}

TEST(EntityStoreDiagnostics, OtherStatusesCarryNone) {
  EXPECT_FALSE(DiagnosticOf(absl::OkStatus()).has_value());
  EXPECT_FALSE(DiagnosticOf(absl::InvalidArgumentError("entities.json:1:1: x")).has_value());
  EntitiesOptions tiny;
  tiny.max_input_bytes = 2;
  // A limit is a status of its own, without a position.
  absl::StatusOr<Store> store = Load("[ ]   ", tiny);
  EXPECT_THAT(store, StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_FALSE(DiagnosticOf(store.status()).has_value());
}

}  // namespace diagnostics_test

}  // namespace
}  // namespace charter::internal
