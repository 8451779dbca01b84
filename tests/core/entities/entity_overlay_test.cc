// Entity stores built in code: entities added one by one, alone or on top of
// a shared base store that is read and never copied or changed.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "entities/entity_store.h"
#include "gtest/gtest.h"
#include "testing/status_matchers.h"
#include "value/value.h"

namespace charter::internal {
namespace {

using ::charter_testing::IsOk;
using ::charter_testing::StatusIs;

std::shared_ptr<const EntityStore> Base() {
  absl::StatusOr<std::unique_ptr<EntityStore>> store = EntityStore::FromJson(R"([
    {"uid": {"type": "Org", "id": "acme"}, "attrs": {}, "parents": []},
    {"uid": {"type": "Team", "id": "ml"}, "attrs": {"size": 4}, "parents": [{"type": "Org", "id": "acme"}]},
    {"uid": {"type": "Team", "id": "web"}, "attrs": {}, "parents": [{"type": "Org", "id": "acme"}]}
  ])",
                                                                             "base.json", {});
  EXPECT_THAT(store, IsOk());
  return std::shared_ptr<const EntityStore>(*std::move(store));
}

TEST(EntityOverlay, ReadsTheBaseAndAddsItsOwnAfterIt) {
  std::shared_ptr<const EntityStore> base = Base();
  std::unique_ptr<EntityStore> overlay = EntityStore::Overlay(base);
  const uint32_t base_uids = static_cast<uint32_t>(base->num_uids());
  // The base's entities keep their uids and data.
  const uint32_t ml = overlay->Find("Team", "ml");
  ASSERT_EQ(ml, base->Find("Team", "ml"));
  ASSERT_NE(overlay->data(ml), nullptr);
  EXPECT_EQ(FindField(overlay->data(ml)->attrs, "size")->i, 4);

  const EntityRef* queue = overlay->Ref("Queue", "q1");
  EXPECT_GE(queue->uid, base_uids);
  RecordField fields[] = {{"name", Value::String("q1")}, {"size", Value::Long(8)}};
  const uint32_t parents[] = {ml};
  ASSERT_THAT(overlay->Add(queue, overlay->Record(fields, true), Value::Record(nullptr, 0), parents), IsOk());
  const EntityRef* job = overlay->Ref("Job", "j1");
  const uint32_t job_parents[] = {queue->uid};
  RecordField tags[] = {{"team", Value::String("ml")}};
  ASSERT_THAT(overlay->Add(job, overlay->Record({}, true), overlay->Record(tags, false), job_parents), IsOk());

  EXPECT_EQ(overlay->Find("Job", "j1"), job->uid);
  EXPECT_EQ(overlay->size(), base->size() + 2);
  EXPECT_EQ(overlay->num_uids(), base->num_uids() + 2);
  // `in` reaches the base's hierarchy through the overlay's.
  const uint32_t acme = overlay->Find("Org", "acme");
  EXPECT_TRUE(overlay->HasAncestor(job->uid, queue->uid));
  EXPECT_TRUE(overlay->HasAncestor(job->uid, ml));
  EXPECT_TRUE(overlay->HasAncestor(job->uid, acme));
  EXPECT_FALSE(overlay->HasAncestor(job->uid, overlay->Find("Team", "web")));
  EXPECT_FALSE(overlay->HasAncestor(queue->uid, job->uid));
  EXPECT_TRUE(overlay->HasAncestor(ml, acme));
  EXPECT_FALSE(overlay->HasAncestor(ml, job->uid));
  AncestorScratch scratch;
  std::vector<uint32_t> out;
  EXPECT_TRUE(overlay->Ancestors(job->uid, 10, &scratch, &out));
  EXPECT_EQ(out.size(), 3u);
  EXPECT_FALSE(overlay->Ancestors(job->uid, 2, &scratch, &out));
  ASSERT_EQ(overlay->parents(job->uid).size(), 1u);
  EXPECT_EQ(overlay->parents(job->uid)[0], queue->uid);
  // The base's key is shared; a new key is the overlay's own.
  EXPECT_EQ(overlay->InternKey("size").data(), base->InternedKey("size")->data());
  EXPECT_EQ(base->InternedKey("name"), nullptr);
  ASSERT_NE(overlay->InternedKey("name"), nullptr);
  const Value* name = FindField(overlay->data(queue->uid)->attrs, "name");
  ASSERT_NE(name, nullptr);
  EXPECT_EQ(name->string(), "q1");
  EXPECT_TRUE(overlay->data(queue->uid)->attrs.interned_keys);
  EXPECT_EQ(FindField(overlay->data(job->uid)->tags, "team")->string(), "ml");
  // The base is unchanged.
  EXPECT_EQ(base->Find("Job", "j1"), kNoUid);
  EXPECT_EQ(base->num_uids(), base_uids);
}

TEST(EntityOverlay, KeyGenerationCountsNewKeysOnly) {
  std::unique_ptr<EntityStore> store = EntityStore::Overlay(Base());
  uint64_t g = store->key_generation();
  store->InternKey("size");  // the base's
  EXPECT_EQ(store->key_generation(), g);
  store->InternKey("fresh");
  EXPECT_EQ(store->key_generation(), g + 1);
  store->InternKey("fresh");
  EXPECT_EQ(store->key_generation(), g + 1);
}

TEST(EntityOverlay, RefusesWhatWouldBreakTheHierarchy) {
  std::shared_ptr<const EntityStore> base = Base();
  std::unique_ptr<EntityStore> store = EntityStore::Overlay(base);
  const Value empty = Value::Record(nullptr, 0);
  // An entity of the base cannot be redefined.
  const EntityRef* ml = store->Ref("Team", "ml");
  absl::Status s = store->Add(ml, empty, empty, {});
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument, testing::HasSubstr("belongs to the base store")));
  // Nor an entity added twice.
  const EntityRef* a = store->Ref("A", "a");
  ASSERT_THAT(store->Add(a, empty, empty, {}), IsOk());
  s = store->Add(a, empty, empty, {});
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument, testing::HasSubstr("already in the store")));
  // An entity named as a parent before it was added could close a cycle.
  const EntityRef* later = store->Ref("B", "later");
  const EntityRef* child = store->Ref("C", "child");
  const uint32_t p[] = {later->uid};
  ASSERT_THAT(store->Add(child, empty, empty, p), IsOk());
  s = store->Add(later, empty, empty, std::vector<uint32_t>{child->uid});
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument, testing::HasSubstr("already the parent")));
  // A parent the store does not know, or the entity itself.
  const EntityRef* d = store->Ref("D", "d");
  EXPECT_THAT(store->Add(d, empty, empty, std::vector<uint32_t>{999999}), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(store->Add(d, empty, empty, std::vector<uint32_t>{d->uid}), StatusIs(absl::StatusCode::kInvalidArgument));
  // A store read from JSON takes no entities one by one.
  std::shared_ptr<const EntityStore> json = Base();
  EntityStore& mutable_json = const_cast<EntityStore&>(*json);
  EXPECT_THAT(mutable_json.Add(mutable_json.Ref("E", "e"), empty, empty, {}), StatusIs(absl::StatusCode::kFailedPrecondition));
}

TEST(EntityOverlay, GivesDataToAUidTheBaseOnlyMentions) {
  // User::"bob" is mentioned by the base (an attribute) without data; Team::"x"
  // is a parent there without data.
  absl::StatusOr<std::unique_ptr<EntityStore>> read = EntityStore::FromJson(R"([
    {"uid": {"type": "Team", "id": "ml"}, "attrs": {}, "parents": [{"type": "Team", "id": "x"}]},
    {"uid": {"type": "Task", "id": "t"}, "attrs": {"owner": {"__entity": {"type": "User", "id": "bob"}}},
     "parents": []}
  ])",
                                                                            "base.json", {});
  ASSERT_TRUE(read.ok()) << read.status();
  std::shared_ptr<const EntityStore> base(*std::move(read));
  const uint32_t bob = base->Find("User", "bob");
  const uint32_t ml = base->Find("Team", "ml");
  const uint32_t x = base->Find("Team", "x");
  ASSERT_NE(bob, kNoUid);
  EXPECT_FALSE(base->HasChildren(bob));
  EXPECT_TRUE(base->HasChildren(x));
  EXPECT_TRUE(base->HasChildren(ml) == false);
  const Value empty = Value::Record(nullptr, 0);

  std::unique_ptr<EntityStore> store = EntityStore::Overlay(base);
  RecordField fields[] = {{"level", Value::Long(4)}};
  // A parent without data in the base cannot gain data; bob can.
  EXPECT_NE(store->Add(store->Ref("Team", "x"), empty, empty, {}).message().find("belongs to the base"),
            std::string::npos);
  ASSERT_TRUE(store->Add(&store->ref(bob), store->Record(fields, true), empty, std::vector<uint32_t>{ml}).ok());
  ASSERT_NE(store->data(bob), nullptr);
  EXPECT_EQ(FindField(store->data(bob)->attrs, "level")->i, 4);
  EXPECT_EQ(base->data(bob), nullptr);
  EXPECT_TRUE(store->HasAncestor(bob, ml));
  EXPECT_TRUE(store->HasAncestor(bob, x));
  EXPECT_FALSE(base->HasAncestor(bob, ml));
  ASSERT_EQ(store->parents(bob).size(), 1u);
  EXPECT_EQ(store->size(), base->size() + 1);
  AncestorScratch scratch;
  std::vector<uint32_t> out;
  EXPECT_TRUE(store->Ancestors(bob, 10, &scratch, &out));
  EXPECT_EQ(out.size(), 2u);
  // Twice is refused; so is a child of bob's before bob in another overlay.
  EXPECT_FALSE(store->Add(&store->ref(bob), empty, empty, {}).ok());
  const EntityRef* job = store->Ref("Job", "j");
  ASSERT_TRUE(store->Add(job, empty, empty, std::vector<uint32_t>{bob}).ok());
  EXPECT_TRUE(store->HasAncestor(job->uid, x));
  EXPECT_TRUE(store->HasChildren(bob));
  std::unique_ptr<EntityStore> other = EntityStore::Overlay(base);
  const EntityRef* early = other->Ref("Job", "early");
  ASSERT_TRUE(other->Add(early, empty, empty, std::vector<uint32_t>{bob}).ok());
  absl::Status s = other->Add(&other->ref(bob), empty, empty, {});
  EXPECT_NE(s.message().find("already the parent"), std::string::npos) << s;
  EXPECT_EQ(other->data(bob), nullptr);
  // A failed Add leaves no trace: bob may then be added.
  std::unique_ptr<EntityStore> third = EntityStore::Overlay(base);
  EXPECT_FALSE(third->Add(&third->ref(bob), empty, empty, std::vector<uint32_t>{999999}).ok());
  EXPECT_EQ(third->data(bob), nullptr);
  EXPECT_EQ(third->size(), base->size());
  EXPECT_TRUE(third->Add(&third->ref(bob), empty, empty, {}).ok());
  EXPECT_NE(third->data(bob), nullptr);
}

TEST(EntityOverlay, BuildsAStoreOfItsOwnAndStacks) {
  // Without a base, and an overlay on an overlay.
  std::unique_ptr<EntityStore> own = EntityStore::Overlay(nullptr);
  const Value empty = Value::Record(nullptr, 0);
  const EntityRef* root = own->Ref("R", "root");
  ASSERT_THAT(own->Add(root, empty, empty, {}), IsOk());
  std::shared_ptr<const EntityStore> first(std::move(own));
  std::unique_ptr<EntityStore> second = EntityStore::Overlay(first);
  const EntityRef* leaf = second->Ref("L", "leaf");
  ASSERT_THAT(second->Add(leaf, empty, empty, std::vector<uint32_t>{root->uid}), IsOk());
  EXPECT_TRUE(second->HasAncestor(leaf->uid, root->uid));
  EXPECT_EQ(second->Find("R", "root"), root->uid);
  EXPECT_EQ(second->size(), 2u);
  EXPECT_EQ(&second->ref(root->uid), root);
}

}  // namespace
}  // namespace charter::internal
