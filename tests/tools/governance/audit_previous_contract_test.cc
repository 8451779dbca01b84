// Audit fills context.previousContract (stdlib/governance.cedarschema,
// AuditContext) with the connection's contract in the previous snapshot, so
// that rules compare a contract with what it was: every attribute, entities
// and datetimes included. The governance example is the previous snapshot,
// tests/cli/golden/audit-later.json (the example three months on) the
// current one.
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "charter/governance.h"
#include "charter/schema.h"
#include "gtest/gtest.h"
#include "testing/status_matchers.h"

namespace charter {
namespace {

using ::charter_testing::IsOk;

std::string Read(const std::string& path) {
  std::ifstream in(std::string(CHARTER_SOURCE_DIR) + "/" + path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

constexpr std::string_view kRules = R"(
@id("cost-owner-was")
@severity("low")
@message("{context.previousContract.costOwner}")
forbid (principal, action == Governance::Action::"reviewConnection", resource)
when {
  context has previousContract &&
  context.previousContract has costOwner &&
  resource.contract has costOwner &&
  context.previousContract.costOwner != resource.contract.costOwner
};

@id("same-review-date")
@severity("low")
@message("{context.previousContract.reviewDate}")
forbid (principal, action == Governance::Action::"reviewConnection", resource)
when {
  context has previousContract &&
  context.previousContract.reviewDate == resource.contract.reviewDate &&
  context.previousContract.approvedWorkloadTypes.containsAll(resource.contract.approvedWorkloadTypes) &&
  context.previousContract.schedulingPolicy.queueing == resource.contract.schedulingPolicy.queueing
};

@id("has-previous-contract")
@severity("low")
@message("-")
forbid (principal, action == Governance::Action::"reviewConnection", resource)
when { context has previousContract };
)";

class AuditPreviousContract : public ::testing::Test {
 protected:
  void SetUp() override {
    SourceFile schema_source{std::string(kStandardGovernanceSchemaName),
                             std::string(StandardGovernanceSchemaText())};
    absl::StatusOr<Schema> schema = Schema::Parse(schema_source, {}, nullptr);
    ASSERT_THAT(schema, IsOk());
    schema_.emplace(*std::move(schema));
    absl::StatusOr<Entities> previous =
        Entities::FromJson(Read("examples/governance/entities.json"), *schema_, "entities.json");
    ASSERT_THAT(previous, IsOk());
    previous_.emplace(*std::move(previous));
    absl::StatusOr<Entities> current =
        Entities::FromJson(Read("tests/cli/golden/audit-later.json"), *schema_, "audit-later.json");
    ASSERT_THAT(current, IsOk());
    current_.emplace(*std::move(current));
    absl::StatusOr<AuditRules> rules = AuditRules::Create(SourceFile("rules.cedar", std::string(kRules)), *schema_);
    ASSERT_THAT(rules, IsOk());
    rules_.emplace(*std::move(rules));
  }

  // connection id -> rule -> message
  std::map<std::string, std::map<std::string, std::string>> Findings(const Entities* previous) {
    AuditOptions options;
    options.at = "2026-04-15";
    absl::StatusOr<AuditReport> report = Audit(*schema_, *current_, previous, {&*rules_}, options);
    EXPECT_THAT(report, IsOk());
    std::map<std::string, std::map<std::string, std::string>> out;
    if (!report.ok()) return out;
    for (const AuditConnection& c : report->connections) {
      EXPECT_TRUE(c.errors.empty()) << c.uid.id << ": " << c.errors.front().message;
      for (const AuditFinding& f : c.findings) out[c.uid.id][f.rule] = f.message;
    }
    return out;
  }

  std::optional<Schema> schema_;
  std::optional<Entities> previous_, current_;
  std::optional<AuditRules> rules_;
};

TEST_F(AuditPreviousContract, IsTheContractInThePreviousSnapshot) {
  auto findings = Findings(&*previous_);
  // nlp/gpu-east's cost owner was olivia; it is erin now.
  EXPECT_EQ(findings["nlp/gpu-east"]["cost-owner-was"], "olivia");
  size_t changed_owner = 0, has_previous = 0, same_date = 0;
  for (const auto& [conn, rules] : findings) {
    changed_owner += rules.count("cost-owner-was");
    has_previous += rules.count("has-previous-contract");
    same_date += rules.count("same-review-date");
  }
  EXPECT_EQ(changed_owner, 1u);
  // Every connection of the store that the previous snapshot has: all but
  // vision/gpu-central, which is new, and vision/gpu-east-2024, which only a
  // namespace names.
  EXPECT_EQ(has_previous, 9u);
  EXPECT_FALSE(findings["vision/gpu-central"].contains("has-previous-contract"));
  EXPECT_FALSE(findings["vision/gpu-east-2024"].contains("has-previous-contract"));
  // Datetimes, entity sets and nested records come through as they were:
  // every review date is unchanged, and only nlp/slurm-west approves fewer
  // workload types (none), which the previous ones still contain.
  EXPECT_EQ(same_date, 9u);
  EXPECT_EQ(findings["speech/gpu-east"]["same-review-date"], "2025-09-30");
}

TEST_F(AuditPreviousContract, IsAbsentWithoutAPreviousSnapshot) {
  auto findings = Findings(nullptr);
  for (const auto& [conn, rules] : findings) EXPECT_TRUE(rules.empty()) << conn;
}

}  // namespace
}  // namespace charter
