// Every kind of finding the governance reviews report is pinned by a golden
// test over the governance example, and documented: each @id of the standard
// audit rules (stdlib/audit.cedar, as the library ships them) is a finding,
// with the rule's severity, in some `charter audit` golden
// (tests/cli/golden/audit*.golden), and each kind of AccessFindingKinds() is
// one in some `charter access` golden (access*.golden); docs/governance.md
// lists every rule and kind in its tables. A rule or kind added without a
// golden that shows it, or without its line in the docs, fails here.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "charter/governance.h"
#include "charter/schema.h"
#include "gtest/gtest.h"
#include "testing/status_matchers.h"

namespace charter {
namespace {

using ::charter_testing::IsOk;

std::string Read(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The text of every golden file whose name starts with `prefix`, and their names.
std::string Goldens(std::string_view prefix, std::vector<std::string>* names) {
  std::string all;
  const std::filesystem::path dir = std::filesystem::path(CHARTER_SOURCE_DIR) / "tests/cli/golden";
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::string name = entry.path().filename().string();
    if (name.starts_with(prefix) && name.ends_with(".golden")) {
      names->push_back(name);
      all += Read(entry.path());
    }
  }
  std::sort(names->begin(), names->end());
  return all;
}

// A finding as the text reports print it: "  SEVERITY  ID: ".
std::string Printed(std::string_view severity, std::string_view id) {
  return "  " + std::string(severity) + "  " + std::string(id) + ": ";
}

std::string Joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

TEST(GovernanceFindingsGolden, EveryStandardAuditRuleFiresInAnAuditGolden) {
  SourceFile schema_source{std::string(kStandardGovernanceSchemaName), std::string(StandardGovernanceSchemaText())};
  absl::StatusOr<Schema> schema = Schema::Parse(schema_source, {}, nullptr);
  ASSERT_THAT(schema, IsOk());
  absl::StatusOr<AuditRules> rules = AuditRules::Standard(*schema);
  ASSERT_THAT(rules, IsOk());
  ASSERT_GE(rules->rules().size(), 20u) << "the standard audit rules were not read";
  // The rules the library ships are those of stdlib/audit.cedar.
  EXPECT_EQ(std::string(StandardAuditRulesText()), Read(std::filesystem::path(CHARTER_SOURCE_DIR) / "stdlib/audit.cedar"));
  std::vector<std::string> names;
  const std::string goldens = Goldens("audit", &names);
  ASSERT_FALSE(names.empty()) << "no audit golden";
  const std::string docs = Read(std::filesystem::path(CHARTER_SOURCE_DIR) / "docs/governance.md");
  for (const AuditRule& rule : rules->rules()) {
    EXPECT_NE(goldens.find(Printed(rule.severity, rule.id)), std::string::npos)
        << rule.source << ": rule " << rule.id << " (" << rule.severity << ") fires in none of " << Joined(names);
    EXPECT_NE(docs.find("| `" + rule.id + "` | " + rule.severity + " |"), std::string::npos)
        << rule.source << ": docs/governance.md does not list rule " << rule.id << " with its severity";
  }
}

TEST(GovernanceFindingsGolden, EveryAccessFindingKindIsInAnAccessGolden) {
  ASSERT_GE(AccessFindingKinds().size(), 8u);
  std::vector<std::string> names;
  const std::string goldens = Goldens("access", &names);
  ASSERT_FALSE(names.empty()) << "no access golden";
  const std::string docs = Read(std::filesystem::path(CHARTER_SOURCE_DIR) / "docs/governance.md");
  for (const AccessFindingKind& kind : AccessFindingKinds()) {
    EXPECT_NE(goldens.find(Printed(kind.severity, kind.kind)), std::string::npos)
        << "access finding " << kind.kind << " (" << kind.severity << ") is in none of " << Joined(names);
    EXPECT_NE(docs.find("| `" + std::string(kind.kind) + "` | " + std::string(kind.severity) + " |"),
              std::string::npos)
        << "docs/governance.md does not list access finding " << kind.kind << " with its severity";
  }
}

}  // namespace
}  // namespace charter
