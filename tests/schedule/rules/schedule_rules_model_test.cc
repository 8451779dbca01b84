// The entities and contexts the scheduling cycle builds for its rules
// conform to stdlib/scheduling.cedarschema (read with
// stdlib/governance.cedarschema): every entity of every scenario's state is
// checked by ValidateEntities, and typed rules read each context field and
// find the figures of the moment.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "charter/charter.h"
#include "charter/schedule.h"
#include "charter/schema.h"
#include "gtest/gtest.h"
#include "json/json.h"
#include "rules/rules.h"
#include "unwrap/unwrap.h"

namespace charter::schedule {
namespace {

namespace fs = std::filesystem;
namespace json = internal::json;

std::string Read(const std::string& relative) {
  std::ifstream in(fs::path(CHARTER_SOURCE_DIR) / relative, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

Schema StandardSchema() {
  Diagnostics diagnostics;
  absl::StatusOr<Schema> schema = Schema::Parse(
      SourceFile("stdlib schemas", Read("stdlib/governance.cedarschema") + "\n" + Read("stdlib/scheduling.cedarschema")),
      {}, &diagnostics);
  EXPECT_TRUE(schema.ok()) << schema.status();
  return *std::move(schema);
}

TEST(ScheduleRulesModel, EveryEntityTheCycleBuildsConforms) {
  const Schema schema = StandardSchema();
  absl::StatusOr<Entities> governance = Entities::FromJson(Read("examples/governance/entities.json"), schema);
  ASSERT_TRUE(governance.ok()) << governance.status();
  int states = 0;
  for (const char* file : {"tests/schedule/cycle/scenarios/rules.json", "tests/schedule/rules/standard.json",
                           "tests/schedule/rules/special.json"}) {
    const std::string text = Read(file);
    absl::StatusOr<json::Document> doc = json::Parse(text);
    ASSERT_TRUE(doc.ok());
    const json::Value* scenarios = doc->root().Find("scenarios");
    for (size_t i = 0; i < scenarios->size(); ++i) {
      LoadOptions options;
      options.scenario = std::string(scenarios->at(i).Find("id")->as_string());
      SCOPED_TRACE(options.scenario);
      absl::StatusOr<State> state = LoadState(text, options);
      ASSERT_TRUE(state.ok()) << state.status();
      std::shared_ptr<const internal::EntityStore> store =
          internal::schedule::BuildCycleEntities(*state, internal::Unwrap::SharedStore(*governance));
      const Entities built = internal::Unwrap::MakeEntities(store);
      EXPECT_GT(built.size(), governance->size());
      absl::Status valid = ValidateEntities(schema, built);
      EXPECT_TRUE(valid.ok()) << valid;
      ++states;
    }
  }
  EXPECT_GT(states, 100);
}

// Typed rules (validated against the schema) that hold exactly when each
// context field has the value the state gives: their refusals, one per
// action, show every field is there with its type and its figure.
TEST(ScheduleRulesModel, ContextsCarryTheFiguresOfTheMoment) {
  const Schema schema = StandardSchema();
  CompileOptions options;
  options.schema = &schema;
  SourceFile source("figures.cedar", R"(
@id("borrow-figures") forbid (principal, action == Scheduling::Action::"borrow", resource)
when {
  principal.name == "stuck" && resource.name == "team-c" && resource.queueingStrategy == "BestEffortFIFO" &&
  resource.fairWeight == decimal("1.0") && resource has cohort && resource.cohort.name == "ml" && !(resource has implements) &&
  context.flavor == "on-demand" && context.resource == "nvidia.com/gpu" && context.requested == 3 &&
  context.usage == 0 && context.nominal == 2 && context.borrowed == 1 && context.level == 1 &&
  !context.fairSharing && !(context has share) && !(context has averageShare) && !(context has borrowingLimit) &&
  principal.requests.hasTag("nvidia.com/gpu") && principal.requests.getTag("nvidia.com/gpu") == 3 && principal.pods == 3 && !principal.admitted &&
  principal has dataClassification && principal.dataClassification == Governance::DataClassification::"restricted" &&
  !(principal has workloadType) && principal.priority == 0 && principal.queue == resource &&
  principal in Scheduling::Cohort::"ml"
};
@id("admit-figures") forbid (principal, action == Scheduling::Action::"admit", resource)
when {
  principal.name == "secret" && context.borrowing && !context.preempting && context.flavors == ["on-demand"] &&
  resource has implements && resource.implements == Governance::Allocation::"vision"
};
)");
  Diagnostics diagnostics;
  absl::StatusOr<Bundle> bundle = Compile(source, options, &diagnostics);
  ASSERT_TRUE(bundle.ok()) << diagnostics.Render(source);
  absl::StatusOr<Engine> engine = Engine::Create(*std::move(bundle));
  ASSERT_TRUE(engine.ok());
  absl::StatusOr<SchedulingRules> rules = SchedulingRules::Create({*engine});
  ASSERT_TRUE(rules.ok());
  LoadOptions load;
  load.scenario = "restricted-data-never-borrows";
  absl::StatusOr<State> state = LoadState(Read("tests/schedule/rules/standard.json"), load);
  ASSERT_TRUE(state.ok());
  CycleOptions cycle;
  cycle.rules = &*rules;
  absl::StatusOr<CycleResult> r = RunCycle(*state, cycle);
  ASSERT_TRUE(r.ok());
  std::vector<std::string> refused;
  for (const NotAdmitted& n : r->not_admitted) {
    for (const RuleNote& note : n.rules) {
      EXPECT_TRUE(note.error.empty()) << note.error;
      refused.push_back(n.name + ":" + note.rule);
    }
  }
  std::sort(refused.begin(), refused.end());
  EXPECT_EQ(refused, (std::vector<std::string>{"secret:admit-figures", "stuck:borrow-figures"})) << r->ToText();
}

// With fair sharing, the borrow context has the shares: team-a's 313 (10
// borrowed of 32 lendable, rounded up) against a mean of 104.
TEST(ScheduleRulesModel, FairSharingShares) {
  const Schema schema = StandardSchema();
  CompileOptions options;
  options.schema = &schema;
  SourceFile source("shares.cedar", R"(
@id("shares") forbid (principal, action == Scheduling::Action::"borrow", resource)
when { context.fairSharing && context has share && context.share == 313 &&
       context has averageShare && context.averageShare == 104 };
)");
  Diagnostics diagnostics;
  absl::StatusOr<Bundle> bundle = Compile(source, options, &diagnostics);
  ASSERT_TRUE(bundle.ok()) << diagnostics.Render(source);
  absl::StatusOr<Engine> engine = Engine::Create(*std::move(bundle));
  ASSERT_TRUE(engine.ok());
  absl::StatusOr<SchedulingRules> rules = SchedulingRules::Create({*engine});
  ASSERT_TRUE(rules.ok());
  LoadOptions load;
  load.scenario = "over-fair-share-gpu-borrow-cap";
  absl::StatusOr<State> state = LoadState(Read("tests/schedule/rules/standard.json"), load);
  ASSERT_TRUE(state.ok());
  CycleOptions cycle;
  cycle.rules = &*rules;
  absl::StatusOr<CycleResult> r = RunCycle(*state, cycle);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->not_admitted.size(), 1u) << r->ToText();
  EXPECT_EQ(r->not_admitted[0].name, "a2");
  ASSERT_EQ(r->admitted.size(), 1u);
  EXPECT_EQ(r->admitted[0].name, "b2");
}

}  // namespace
}  // namespace charter::schedule
