// The policy state (server/policy_state.h): a review's entities laid over the
// entity file, every uid form the entity reader takes in it.
#include "policy_state.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "charter/compiler.h"
#include "charter/diagnostics.h"
#include "gtest/gtest.h"
#include "admission_review.h"

namespace charter::server {
namespace {

namespace fs = std::filesystem;

class PolicyStateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("charter-policy-state-test-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& text) {
    std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }

  fs::path dir_;
};

// An admission review of a Pod by alice, in the group `g1`.
constexpr char kReview[] =
    R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u1",)"
    R"("kind":{"group":"","version":"v1","kind":"Pod"},"name":"p","namespace":"ns","operation":"CREATE",)"
    R"("userInfo":{"username":"alice","groups":["g1"]},"object":{"spec":{}}}})";

// The forms of docs/entities.md: ["T", "id"], {"type", "id"} with another
// key beside them, and {"__entity": ["T", "id"]}. The group g1 reaches
// `admins` through them only.
TEST_F(PolicyStateTest, EveryUidFormOfTheEntityFileIsIndexedAndJoined) {
  SourceFile source("policies.cedar",
                    R"(@id("admins") permit (principal in Kubernetes::Group::"admins", action, resource);)");
  Diagnostics diagnostics;
  absl::StatusOr<Bundle> bundle = Compile(source, {}, &diagnostics);
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  std::string bundle_path = (dir_ / "policies.bundle").string();
  ASSERT_TRUE(bundle->WriteFile(bundle_path).ok());
  std::string entities = Write("entities.json", R"([
    {"uid": ["Kubernetes::Group", "g1"], "attrs": {}, "parents": [["Kubernetes::Group", "staff"]]},
    {"uid": {"type": "Kubernetes::Group", "id": "staff", "note": "ignored"}, "attrs": {},
     "parents": [{"__entity": ["Kubernetes::Group", "admins"]}]},
    {"uid": {"__entity": {"type": "Kubernetes::Group", "id": "admins"}}, "attrs": {}, "parents": []}
  ])");
  absl::StatusOr<std::shared_ptr<const PolicyState>> state = PolicyState::Load({bundle_path, entities, {}});
  ASSERT_TRUE(state.ok()) << state.status();
  absl::StatusOr<MappedReview> review = MapAdmissionReview(kReview, MappingOptions{});
  ASSERT_TRUE(review.ok()) << review.status();
  absl::StatusOr<Entities> store = (*state)->EntitiesFor(*review);
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_TRUE(store->Find({"Kubernetes::Group", "admins"}).has_value())
      << "the group reached through array-form and escaped parents is joined";
  absl::StatusOr<Request> request = (*state)->RequestFor(*review);
  ASSERT_TRUE(request.ok()) << request.status();
  Decision d = (*state)->engine().Authorize(*request, *store);
  EXPECT_TRUE(d.allowed);
  EXPECT_EQ(d.reasons, std::vector<std::string>{"admins"});
}

// The review's store is the whole file with the review's entities over it:
// an entity a policy names by literal is there, a configured principal is
// the configuration's, and the file is not changed by a review.
TEST_F(PolicyStateTest, AReviewSeesTheWholeFileAndTheConfiguredPrincipal) {
  SourceFile source("policies.cedar", R"(
    @id("literal") permit (principal, action, resource) when { Kubernetes::Namespace::"other".open };
    @id("level") permit (principal, action, resource) when { principal has level && principal.level == 5 };
  )");
  Diagnostics diagnostics;
  absl::StatusOr<Bundle> bundle = Compile(source, {}, &diagnostics);
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  std::string bundle_path = (dir_ / "policies.bundle").string();
  ASSERT_TRUE(bundle->WriteFile(bundle_path).ok());
  std::string entities = Write("entities.json", R"([
    {"uid": {"type": "Kubernetes::Namespace", "id": "other"}, "attrs": {"open": true}, "parents": []},
    {"uid": {"type": "Kubernetes::User", "id": "alice"}, "attrs": {"level": 5}, "parents": []}
  ])");
  absl::StatusOr<std::shared_ptr<const PolicyState>> state = PolicyState::Load({bundle_path, entities, {}});
  ASSERT_TRUE(state.ok()) << state.status();
  absl::StatusOr<MappedReview> review = MapAdmissionReview(kReview, MappingOptions{});
  ASSERT_TRUE(review.ok()) << review.status();
  absl::StatusOr<Entities> store = (*state)->EntitiesFor(*review);
  ASSERT_TRUE(store.ok()) << store.status();
  absl::StatusOr<Request> request = (*state)->RequestFor(*review);
  ASSERT_TRUE(request.ok()) << request.status();
  Decision d = (*state)->engine().Authorize(*request, *store);
  EXPECT_TRUE(d.allowed) << d.ToJson();
  std::vector<std::string> reasons = d.reasons;
  std::sort(reasons.begin(), reasons.end());
  EXPECT_EQ(reasons, (std::vector<std::string>{"level", "literal"})) << d.ToJson();
  EXPECT_TRUE(d.errors.empty()) << d.ToJson();
  // The review's own entities are in the review's store only: the pod, its
  // Kubernetes::Annotations and alice's Kubernetes::Extra (alice is the
  // configuration's).
  EXPECT_EQ(store->size(), (*state)->entities().size() + 3);
  EXPECT_TRUE(store->Contains({"Kubernetes::Pod", "ns/p"}) || store->Contains({"Kubernetes::Pod", "p"}));
  EXPECT_EQ(store->Find({"Kubernetes::User", "alice"})->attrs, "{\"level\": 5}");
  EXPECT_EQ((*state)->entities().size(), 2u);
}

}  // namespace
}  // namespace charter::server
