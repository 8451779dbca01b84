// The front door: the format chosen from the content, the links of a JSON
// set before the caller's, instances in the compiler's order, and the faults
// of linking, worded as the compiler words them.
#include "policy_set/policy_set.h"

#include <string>
#include <vector>

#include "charter/compiler.h"
#include "gtest/gtest.h"
#include "testing/status_matchers.h"

namespace charter::internal {
namespace {

using ::charter_testing::IsOk;
using ::charter_testing::StatusIs;

constexpr char kText[] =
    "@id(\"t\") permit(principal == ?principal, action, resource);\n"
    "@id(\"s\") forbid(principal, action, resource);\n";

std::vector<std::string> Ids(const PolicySet& set) {
  std::vector<std::string> ids;
  for (const PolicyInstance& p : set.instances) ids.push_back(p.id);
  return ids;
}

TEST(PolicySetTest, TextAndLinks) {
  SourceFile source("p.cedar", kText);
  TemplateLink a{"t", "a", EntityUid{"User", "alice"}, std::nullopt};
  TemplateLink b{"t", "b", EntityUid{"User", "bob"}, std::nullopt};
  Diagnostics diags;
  std::unique_ptr<PolicySet> set = ReadPolicySet(source, {a, b}, {}, &diags);
  EXPECT_TRUE(diags.empty());
  EXPECT_EQ(set->format, PolicyFormat::kText);
  ASSERT_THAT(set->linked, IsOk());
  EXPECT_EQ(Ids(*set), (std::vector<std::string>{"s", "a", "b"}));
  EXPECT_EQ(set->instances[2].link, &set->links[1]);
  EXPECT_EQ(set->instances[2].principal_slot.id, "bob");
}

TEST(PolicySetTest, JsonIsChosenFromTheContent) {
  SourceFile source("p.json", R"(  {"staticPolicies": {}, "templates": {"t": {
    "effect": "permit", "principal": {"op": "==", "slot": "?principal"},
    "action": {"op": "All"}, "resource": {"op": "All"}, "conditions": []}},
    "templateLinks": [{"templateId": "t", "newId": "j",
                       "values": {"?principal": {"type": "User", "id": "a"}}}]})");
  TemplateLink mine{"t", "mine", EntityUid{"User", "b"}, std::nullopt};
  Diagnostics diags;
  std::unique_ptr<PolicySet> set = ReadPolicySet(source, {mine}, {}, &diags);
  EXPECT_TRUE(diags.empty());
  EXPECT_EQ(set->format, PolicyFormat::kJson);
  EXPECT_EQ(Ids(*set), (std::vector<std::string>{"j", "mine"}));
}

TEST(PolicySetTest, TextOnlyRecognisesJsonWithoutReadingIt) {
  SourceFile source("p.json", "\n {\"not\": \"read\"");
  Diagnostics diags;
  std::unique_ptr<PolicySet> set = ReadPolicySet(source, {}, {}, &diags, PolicyFormats::kTextOnly);
  EXPECT_EQ(set->format, PolicyFormat::kJson);
  EXPECT_TRUE(diags.empty());
  EXPECT_TRUE(set->ast.policies.empty());
}

TEST(PolicySetTest, NoLinkingAfterAnError) {
  SourceFile source("p.cedar", std::string(kText) + "permit(principal, action, resource) when { && };");
  Diagnostics diags;
  TemplateLink bad{"nope", "x", std::nullopt, std::nullopt};
  std::unique_ptr<PolicySet> set = ReadPolicySet(source, {bad}, {}, &diags);
  EXPECT_TRUE(diags.has_errors());
  EXPECT_THAT(set->linked, IsOk());
  EXPECT_TRUE(set->instances.empty());
  EXPECT_EQ(set->ast.policies.size(), 2u);  // the policies that parsed, for a validator
  absl::StatusOr<std::unique_ptr<PolicySet>> linked = ReadLinkedPolicySet(source, {bad}, {}, nullptr);
  ASSERT_THAT(linked, StatusIs(absl::StatusCode::kInvalidArgument, testing::StartsWith("p.cedar:3:")));
}

TEST(PolicySetTest, LinkFaults) {
  SourceFile source("p.cedar", kText);
  auto fault = [&](const TemplateLink& link) {
    std::unique_ptr<PolicySet> set = ReadPolicySet(source, {link}, {}, nullptr);
    // The instances stop before the link that does not fit.
    EXPECT_EQ(Ids(*set), std::vector<std::string>{"s"});
    absl::StatusOr<std::unique_ptr<PolicySet>> linked = ReadLinkedPolicySet(source, {link}, {}, nullptr);
    EXPECT_EQ(linked.status().message(), set->linked.message());
    // The compiler reports the same fault.
    absl::StatusOr<Bundle> bundle = Compile(source, {link}, {}, nullptr);
    EXPECT_EQ(bundle.status().message(), set->linked.message());
    return std::string(set->linked.message());
  };
  EXPECT_EQ(fault({"u", "x", EntityUid{"User", "a"}, std::nullopt}),
            "link `x`: there is no template `u`");
  EXPECT_EQ(fault({"t", "s", EntityUid{"User", "a"}, std::nullopt}),
            "link `s`: the policy id `s` is already taken");
  EXPECT_EQ(fault({"t", "x", std::nullopt, std::nullopt}),
            "link `x`: template `t` needs a value for `?principal`");
  EXPECT_EQ(fault({"t", "x", EntityUid{"User", "a"}, EntityUid{"Doc", "d"}}),
            "link `x`: template `t` has no slot `?resource`");
}

}  // namespace
}  // namespace charter::internal
