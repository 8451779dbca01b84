// Scheduling rules: every scenario of tests/schedule/rules/*.json runs one
// cycle (or several, with `cycles`) with the rules its `expected.policies`
// names (files from the repository root), over `expected.entities` when it
// gives one, and compares the outcome with `expected`, as the Kueue
// scenarios do, plus `expected.rules`: for each workload, the ids of the
// rules its outcome names (none for a workload it does not list). The rules
// are compiled twice, typed against stdlib/governance.cedarschema and
// stdlib/scheduling.cedarschema read as one schema, and untyped (only
// untyped with `"typed": false`), and both must give the outcome.
// `expected.without_rules`, when given, is the outcome without them: what
// the rules changed. The unit tests below cover the API around it.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "charter/charter.h"
#include "charter/schedule.h"
#include "charter/schema.h"
#include "gtest/gtest.h"
#include "json/json.h"

namespace charter::schedule {
namespace {

namespace fs = std::filesystem;
namespace json = internal::json;

std::string Read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string Str(const json::Value* v) {
  return v != nullptr && v->is_string() ? std::string(v->as_string()) : std::string();
}

fs::path Source(const std::string& relative) { return fs::path(CHARTER_SOURCE_DIR) / relative; }

// stdlib's governance and scheduling schemas, read as one.
Schema StandardSchema() {
  const std::string text = Read(Source("stdlib/governance.cedarschema")) + "\n" +
                           Read(Source("stdlib/scheduling.cedarschema"));
  Diagnostics diagnostics;
  absl::StatusOr<Schema> schema = Schema::Parse(SourceFile("stdlib schemas", text), {}, &diagnostics);
  EXPECT_TRUE(schema.ok()) << schema.status();
  return *std::move(schema);
}

Engine CompileRules(const std::string& path, const Schema* schema) {
  CompileOptions options;
  options.schema = schema;
  Diagnostics diagnostics;
  SourceFile source(path, Read(Source(path)));
  absl::StatusOr<Bundle> bundle = Compile(source, options, &diagnostics);
  EXPECT_TRUE(bundle.ok()) << diagnostics.Render(source);
  absl::StatusOr<Engine> engine = Engine::Create(*std::move(bundle));
  EXPECT_TRUE(engine.ok()) << engine.status();
  return *std::move(engine);
}

// The outcome as sorted lines, with the rules each entry names.
std::multiset<std::string> Lines(const CycleResult& r) {
  std::multiset<std::string> out;
  auto rules = [](const std::vector<RuleNote>& notes) {
    std::set<std::string> ids;
    for (const RuleNote& n : notes) ids.insert(n.rule);
    std::string text;
    for (const std::string& id : ids) text += " [" + id + "]";
    return text;
  };
  for (const Admitted& a : r.admitted) {
    std::vector<std::string> parts;
    for (const PodSetFlavors& f : a.flavors) {
      for (const auto& [res, flavor] : f.flavors) parts.push_back(f.pod_set + "." + res + "=" + flavor);
    }
    std::sort(parts.begin(), parts.end());
    std::string flavors;
    for (const std::string& s : parts) flavors += s + " ";
    out.insert("admit " + a.name + " " + flavors + (a.borrowing ? "borrowing" : "") + rules(a.rules));
  }
  for (const Preempted& p : r.preempted) out.insert("preempt " + p.name + " " + std::string(ReasonName(p.reason)));
  for (const NotAdmitted& n : r.not_admitted) {
    out.insert("pending " + n.name + " " + std::string(StateName(n.state)) + rules(n.rules));
  }
  return out;
}

// The same lines from an `expected` object.
std::multiset<std::string> ExpectedLines(const json::Value& expected, bool with_rules) {
  std::multiset<std::string> out;
  std::map<std::string, std::string> rules;
  if (const json::Value* r = with_rules ? expected.Find("rules") : nullptr) {
    for (size_t i = 0; i < r->size(); ++i) {
      std::set<std::string> ids;
      for (size_t k = 0; k < r->member(i).size(); ++k) ids.insert(Str(&r->member(i).at(k)));
      std::string text;
      for (const std::string& id : ids) text += " [" + id + "]";
      rules[std::string(r->key(i))] = text;
    }
  }
  if (const json::Value* a = expected.Find("admitted")) {
    for (size_t i = 0; i < a->size(); ++i) {
      const json::Value& e = a->at(i);
      std::vector<std::string> parts;
      if (const json::Value* flavors = e.Find("flavors")) {
        for (size_t p = 0; p < flavors->size(); ++p) {
          const json::Value& m = flavors->member(p);
          for (size_t k = 0; k < m.size(); ++k) {
            parts.push_back(std::string(flavors->key(p)) + "." + std::string(m.key(k)) + "=" + Str(&m.member(k)));
          }
        }
      }
      std::sort(parts.begin(), parts.end());
      std::string flavors;
      for (const std::string& s : parts) flavors += s + " ";
      const json::Value* b = e.Find("borrowing");
      const std::string name = Str(e.Find("name"));
      out.insert("admit " + name + " " + flavors + (b != nullptr && b->as_bool() ? "borrowing" : "") + rules[name]);
    }
  }
  if (const json::Value* p = expected.Find("preempted")) {
    for (size_t i = 0; i < p->size(); ++i) {
      out.insert("preempt " + Str(p->at(i).Find("name")) + " " + Str(p->at(i).Find("reason")));
    }
  }
  if (const json::Value* n = expected.Find("not_admitted")) {
    for (size_t i = 0; i < n->size(); ++i) {
      const std::string name = Str(n->at(i).Find("name"));
      out.insert("pending " + name + " " + Str(n->at(i).Find("state")) + rules[name]);
    }
  }
  return out;
}

// Each rule an outcome names is in its message, and the JSON output parses
// and carries the same notes.
void CheckWords(const CycleResult& r) {
  auto check = [](const std::string& message, const std::vector<RuleNote>& notes) {
    for (const RuleNote& n : notes) {
      EXPECT_NE(message.find("rule `" + n.rule + "`"), std::string::npos) << message;
      if (!n.error.empty()) {
        EXPECT_NE(message.find(n.error), std::string::npos) << message;
      }
    }
  };
  for (const Admitted& a : r.admitted) check(a.message, a.rules);
  for (const NotAdmitted& n : r.not_admitted) check(n.message, n.rules);
  const std::string text = r.ToJson();  // the document views it
  absl::StatusOr<json::Document> doc = json::Parse(text);
  ASSERT_TRUE(doc.ok()) << text;
  size_t notes = 0, in_json = 0;
  for (const Admitted& a : r.admitted) notes += a.rules.size();
  for (const NotAdmitted& n : r.not_admitted) notes += n.rules.size();
  for (const char* list : {"admitted", "not_admitted"}) {
    const json::Value* entries = doc->root().Find(list);
    for (size_t i = 0; i < entries->size(); ++i) {
      if (const json::Value* rules = entries->at(i).Find("rules")) in_json += rules->size();
    }
  }
  EXPECT_EQ(notes, in_json) << r.ToJson();
}

struct RuleSetup {
  std::vector<Engine> engines;
  std::optional<Entities> entities;
};

void RunScenario(const fs::path& file, const std::string& text, const json::Value& scenario, const RuleSetup& setup) {
  const std::string id = Str(scenario.Find("id"));
  const json::Value& expected = *scenario.Find("expected");
  LoadOptions options;
  options.scenario = id;
  absl::StatusOr<State> state = LoadState(text, options);
  ASSERT_TRUE(state.ok()) << state.status();
  absl::StatusOr<SchedulingRules> rules =
      SchedulingRules::Create(setup.engines, setup.entities.has_value() ? &*setup.entities : nullptr);
  ASSERT_TRUE(rules.ok()) << rules.status();
  CycleOptions cycle;
  cycle.rules = &*rules;
  if (const json::Value* without = expected.Find("without_rules")) {
    absl::StatusOr<CycleResult> r = RunCycle(*state);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(ExpectedLines(*without, false), Lines(*r)) << "without rules:\n" << r->ToText();
  }
  const json::Value* cycles = expected.Find("cycles");
  if (cycles == nullptr) {
    absl::StatusOr<CycleResult> r = RunCycle(*state, cycle);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(ExpectedLines(expected, true), Lines(*r)) << r->ToText();
    CheckWords(*r);
    return;
  }
  for (size_t c = 0; c < cycles->size(); ++c) {
    SCOPED_TRACE("cycle " + std::to_string(c + 1));
    absl::StatusOr<CycleResult> r = RunCycle(*state, cycle);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(ExpectedLines(cycles->at(c), true), Lines(*r)) << r->ToText();
    CheckWords(*r);
    absl::StatusOr<State> next = ApplyCycle(*state, *r);
    ASSERT_TRUE(next.ok()) << next.status();
    *state = std::move(*next);
  }
}

TEST(ScheduleRules, Scenarios) {
  const Schema schema = StandardSchema();
  int count = 0;
  std::set<std::string> rules_seen;
  for (const auto& entry : fs::directory_iterator(Source("tests/schedule/rules"))) {
    if (entry.path().extension() != ".json") continue;
    const std::string text = Read(entry.path());
    absl::StatusOr<json::Document> doc = json::Parse(text);
    ASSERT_TRUE(doc.ok()) << entry.path() << ": " << doc.status();
    const json::Value* scenarios = doc->root().Find("scenarios");
    ASSERT_NE(scenarios, nullptr) << entry.path();
    for (size_t i = 0; i < scenarios->size(); ++i) {
      const json::Value& scenario = scenarios->at(i);
      const std::string id = Str(scenario.Find("id"));
      SCOPED_TRACE(entry.path().filename().string() + ": " + id);
      ASSERT_FALSE(Str(scenario.Find("explanation")).empty()) << "every scenario explains its outcome";
      const json::Value* expected = scenario.Find("expected");
      ASSERT_NE(expected, nullptr);
      const json::Value* policies = expected->Find("policies");
      ASSERT_NE(policies, nullptr) << "a rules scenario names its policies";
      const json::Value* typed_flag = expected->Find("typed");
      const bool typed = typed_flag == nullptr || typed_flag->as_bool();
      for (bool with_schema : {true, false}) {
        if (with_schema && !typed) continue;
        SCOPED_TRACE(with_schema ? "typed" : "untyped");
        RuleSetup setup;
        for (size_t p = 0; p < policies->size(); ++p) {
          setup.engines.push_back(CompileRules(Str(&policies->at(p)), with_schema ? &schema : nullptr));
        }
        if (const json::Value* e = expected->Find("entities")) {
          const std::string json_text = Read(Source(Str(e)));
          absl::StatusOr<Entities> entities =
              with_schema ? Entities::FromJson(json_text, schema, Str(e)) : Entities::FromJson(json_text, Str(e));
          ASSERT_TRUE(entities.ok()) << entities.status();
          setup.entities = *std::move(entities);
        }
        RunScenario(entry.path(), text, scenario, setup);
      }
      if (const json::Value* r = expected->Find("rules")) {
        for (size_t k = 0; k < r->size(); ++k) {
          for (size_t j = 0; j < r->member(k).size(); ++j) rules_seen.insert(Str(&r->member(k).at(j)));
        }
      }
      ++count;
    }
  }
  EXPECT_GE(count, 8);
  // Each standard rule refuses something in some scenario.
  for (const char* id : {"restricted-data-never-borrows", "interactive-never-preempted",
                         "inference-preempts-training-only-in-its-cohort", "over-fair-share-gpu-borrow-cap"}) {
    EXPECT_TRUE(rules_seen.count(id) > 0) << id;
  }
}

Engine CompileText(const std::string& text, const Schema* schema = nullptr) {
  CompileOptions options;
  options.schema = schema;
  Diagnostics diagnostics;
  SourceFile source("rules.cedar", text);
  absl::StatusOr<Bundle> bundle = Compile(source, options, &diagnostics);
  EXPECT_TRUE(bundle.ok()) << diagnostics.Render(source);
  absl::StatusOr<Engine> engine = Engine::Create(*std::move(bundle));
  EXPECT_TRUE(engine.ok()) << engine.status();
  return *std::move(engine);
}

// Five rules that the cycle consults at every decision point (any action,
// any workload) and that never refuse anything.
constexpr const char* kNeverRules = R"(
@id("never-1") forbid (principal is Scheduling::Workload, action, resource) when { principal.priority < -1000000 };
@id("never-2") forbid (principal is Scheduling::Workload, action, resource) when { principal.hasTag("never") };
@id("never-3") forbid (principal is Scheduling::Workload, action, resource)
  when { principal has dataClassification && principal.hasTag("never") };
@id("never-4") forbid (principal is Scheduling::Workload, action, resource)
  when { principal.queue.name == "no-such-queue" };
@id("never-5") forbid (principal is Scheduling::Workload, action, resource)
  when { principal.requests.hasTag("never") || principal.annotations.hasTag("never") };
)";

// Rules that refuse nothing change nothing: every Kueue scenario has the
// outcome it has without rules, word for word, though the rules are asked
// at every decision point; and so has an empty rule set.
TEST(ScheduleRules, RulesThatRefuseNothingChangeNothing) {
  const Schema schema = StandardSchema();
  absl::StatusOr<SchedulingRules> never = SchedulingRules::Create({CompileText(kNeverRules, &schema)});
  ASSERT_TRUE(never.ok()) << never.status();
  EXPECT_EQ(never->rule_ids().size(), 5u);
  const SchedulingRules none;
  EXPECT_TRUE(none.empty());
  const std::string text = Read(Source("tests/schedule/cycle/scenarios/rules.json"));
  absl::StatusOr<json::Document> doc = json::Parse(text);
  ASSERT_TRUE(doc.ok());
  const json::Value* scenarios = doc->root().Find("scenarios");
  ASSERT_NE(scenarios, nullptr);
  int count = 0;
  for (size_t i = 0; i < scenarios->size(); ++i) {
    const std::string id = Str(scenarios->at(i).Find("id"));
    SCOPED_TRACE(id);
    LoadOptions load;
    load.scenario = id;
    absl::StatusOr<State> state = LoadState(text, load);
    ASSERT_TRUE(state.ok()) << state.status();
    const json::Value* cycles = scenarios->at(i).Find("expected")->Find("cycles");
    const size_t n = cycles != nullptr ? cycles->size() : 1;
    for (size_t c = 0; c < n; ++c) {
      absl::StatusOr<CycleResult> plain = RunCycle(*state);
      ASSERT_TRUE(plain.ok()) << plain.status();
      const SchedulingRules* both[] = {&*never, &none};
      for (const SchedulingRules* rules : both) {
        CycleOptions options;
        options.rules = rules;
        absl::StatusOr<CycleResult> with = RunCycle(*state, options);
        ASSERT_TRUE(with.ok()) << with.status();
        EXPECT_EQ(plain->ToJson(), with->ToJson());
      }
      absl::StatusOr<State> next = ApplyCycle(*state, *plain);
      ASSERT_TRUE(next.ok()) << next.status();
      *state = std::move(*next);
    }
    ++count;
  }
  EXPECT_GE(count, 95);
}

TEST(ScheduleRules, RuleIdsPermitsAndDuplicates) {
  Engine rules = CompileText(R"(
@id("no-borrow") forbid (principal, action == Scheduling::Action::"borrow", resource);
@id("auth-only") forbid (principal, action == Governance::Action::"submitTask", resource);
@id("anything") forbid (principal, action, resource) when { false };
@id("useless") permit (principal, action in [Scheduling::Action::"admit", Scheduling::Action::"evict"], resource);
@id("auth-permit") permit (principal, action == Governance::Action::"viewTask", resource);
)");
  absl::StatusOr<SchedulingRules> set = SchedulingRules::Create({rules});
  ASSERT_TRUE(set.ok()) << set.status();
  // Forbids whose scope can name a scheduling action; permits that name one
  // (they cannot change what the cycle decides).
  EXPECT_EQ(set->rule_ids(), (std::vector<std::string>{"no-borrow", "anything"}));
  EXPECT_EQ(set->ignored_permits(), (std::vector<std::string>{"useless"}));
  EXPECT_FALSE(set->empty());
  // Policy sets without a rule leave the cycle without rules: it never asks them.
  absl::StatusOr<SchedulingRules> none = SchedulingRules::Create({CompileText(R"(
@id("auth-only") forbid (principal, action == Governance::Action::"submitTask", resource);
@id("useless") permit (principal, action == Scheduling::Action::"admit", resource);
)")});
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_TRUE(none->empty());
  EXPECT_TRUE(none->rule_ids().empty());
  EXPECT_EQ(none->ignored_permits(), (std::vector<std::string>{"useless"}));
  // One id in two policy sets is refused: outcomes name rules by id.
  absl::StatusOr<SchedulingRules> twice =
      SchedulingRules::Create({rules, CompileText(R"(@id("no-borrow") forbid (principal, action, resource);)")});
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(twice.status().message().find("`no-borrow`"), std::string::npos) << twice.status();
}

// A permit does not widen Kueue's decision, and an erring permit refuses
// nothing; an erring forbid refuses. Outcomes name the rule and the error.
TEST(ScheduleRules, PermitsNeverChangeOutcomesAndErringForbidsRefuse) {
  const std::string text = Read(Source("tests/schedule/rules/standard.json"));
  LoadOptions load;
  load.scenario = "restricted-data-never-borrows";
  absl::StatusOr<State> state = LoadState(text, load);
  ASSERT_TRUE(state.ok()) << state.status();
  absl::StatusOr<CycleResult> plain = RunCycle(*state);
  ASSERT_TRUE(plain.ok());
  absl::StatusOr<SchedulingRules> permits = SchedulingRules::Create({CompileText(R"(
@id("deny-all-by-default") permit (principal, action == Scheduling::Action::"borrow", resource) when { false };
@id("erring-permit") permit (principal, action, resource) when { principal.nope == 1 };
)")});
  ASSERT_TRUE(permits.ok());
  CycleOptions options;
  options.rules = &*permits;
  absl::StatusOr<CycleResult> r = RunCycle(*state, options);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(plain->ToJson(), r->ToJson());

  absl::StatusOr<SchedulingRules> erring = SchedulingRules::Create({CompileText(R"(
@id("erring-forbid") forbid (principal, action == Scheduling::Action::"borrow", resource) when { principal.nope == 1 };
)")});
  ASSERT_TRUE(erring.ok());
  options.rules = &*erring;
  r = RunCycle(*state, options);
  ASSERT_TRUE(r.ok());
  // Every workload that would borrow is refused: secret goes to spot, the
  // others do not fit.
  ASSERT_EQ(r->admitted.size(), 1u) << r->ToText();
  EXPECT_EQ(r->admitted[0].name, "secret");
  ASSERT_EQ(r->admitted[0].rules.size(), 1u);
  EXPECT_EQ(r->admitted[0].rules[0].rule, "erring-forbid");
  EXPECT_EQ(r->admitted[0].rules[0].action, "borrow");
  EXPECT_EQ(r->admitted[0].rules[0].subject, "nvidia.com/gpu in flavor on-demand");
  EXPECT_NE(r->admitted[0].rules[0].error.find("nope"), std::string::npos) << r->admitted[0].rules[0].error;
  EXPECT_NE(r->admitted[0].message.find("rule `erring-forbid` erred ("), std::string::npos) << r->admitted[0].message;
  EXPECT_NE(r->ToJson().find("\"error\":"), std::string::npos);
}

}  // namespace
}  // namespace charter::schedule
