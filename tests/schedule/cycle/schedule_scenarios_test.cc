// Runs every scenario in tests/schedule/cycle/scenarios/*.json (the format of
// docs/scheduling.md: a state plus `expected`) through one cycle and compares
// the outcome with `expected`: the admitted workloads with their flavors and
// borrowing, the preempted ones with their reasons, and each head left
// pending with its state (and queue state where the scenario gives one).
// A scenario whose `expected` holds `cycles` is a simulation: each cycle is
// compared in turn, applied with ApplyCycle, and `final` lists the workloads
// admitted and pending at the end (and whether the last cycle was stable).
// Each scenario runs a second time from its configuration written as .charter
// declarations and compiled into a bundle, with the same outcome.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "charter/charter.h"
#include "charter/schedule.h"
#include "gtest/gtest.h"
#include "json/json.h"
#include "json/json_diagnostics.h"

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

// "name flavors borrowing" lines, sorted, for a readable diff.
std::string FlavorsText(const json::Value* flavors) {
  std::vector<std::string> parts;
  if (flavors != nullptr) {
    for (size_t p = 0; p < flavors->size(); ++p) {
      const json::Value& m = flavors->member(p);
      for (size_t r = 0; r < m.size(); ++r) {
        parts.push_back(std::string(flavors->key(p)) + "." + std::string(m.key(r)) + "=" + Str(&m.member(r)));
      }
    }
  }
  std::sort(parts.begin(), parts.end());
  std::string out;
  for (const std::string& s : parts) out += s + " ";
  return out;
}

// Compares one cycle's outcome with an `expected` object (admitted with
// flavors and borrowing, preempted with reasons, not_admitted with states and
// queue states where given).
void CheckOutcome(const json::Value& expected, const CycleResult& result) {
  std::multiset<std::string> want, got;
  if (const json::Value* a = expected.Find("admitted")) {
    for (size_t i = 0; i < a->size(); ++i) {
      const json::Value& e = a->at(i);
      const json::Value* b = e.Find("borrowing");
      want.insert("admit " + Str(e.Find("name")) + " " + FlavorsText(e.Find("flavors")) +
                  (b != nullptr && b->as_bool() ? "borrowing" : ""));
    }
  }
  for (const Admitted& a : result.admitted) {
    std::vector<std::string> parts;
    for (const PodSetFlavors& f : a.flavors) {
      for (const auto& [res, flavor] : f.flavors) parts.push_back(f.pod_set + "." + res + "=" + flavor);
    }
    std::sort(parts.begin(), parts.end());
    std::string flavors;
    for (const std::string& s : parts) flavors += s + " ";
    got.insert("admit " + a.name + " " + flavors + (a.borrowing ? "borrowing" : ""));
  }
  if (const json::Value* p = expected.Find("preempted")) {
    for (size_t i = 0; i < p->size(); ++i) {
      want.insert("preempt " + Str(p->at(i).Find("name")) + " " + Str(p->at(i).Find("reason")));
    }
  }
  for (const Preempted& p : result.preempted) got.insert("preempt " + p.name + " " + std::string(ReasonName(p.reason)));
  std::map<std::string, std::string> queue_states;
  if (const json::Value* n = expected.Find("not_admitted")) {
    for (size_t i = 0; i < n->size(); ++i) {
      const json::Value& e = n->at(i);
      want.insert("pending " + Str(e.Find("name")) + " " + Str(e.Find("state")));
      std::string qs = Str(e.Find("queue_state"));
      if (!qs.empty()) queue_states[Str(e.Find("name"))] = qs;
    }
  }
  for (const NotAdmitted& n : result.not_admitted) {
    got.insert("pending " + n.name + " " + std::string(StateName(n.state)));
    auto it = queue_states.find(n.name);
    if (it != queue_states.end()) {
      EXPECT_EQ(it->second, n.inadmissible ? "inadmissible" : "active") << n.name << ": " << n.message;
    }
  }
  EXPECT_EQ(want, got) << "outcome:\n" << result.ToText();
  // Every entry explains itself in words.
  for (const Admitted& a : result.admitted) EXPECT_FALSE(a.message.empty());
  for (const Preempted& p : result.preempted) EXPECT_FALSE(p.message.empty());
  for (const NotAdmitted& n : result.not_admitted) EXPECT_FALSE(n.message.empty());
  // The JSON output parses.
  EXPECT_TRUE(json::Parse(result.ToJson()).ok());
}

std::multiset<std::string> Names(const json::Value* list) {
  std::multiset<std::string> out;
  if (list != nullptr) {
    for (size_t i = 0; i < list->size(); ++i) out.insert(Str(&list->at(i)));
  }
  return out;
}

void CheckScenario(const fs::path& file, const std::string& text, const json::Value& scenario) {
  const std::string id = Str(scenario.Find("id"));
  SCOPED_TRACE(file.filename().string() + ": " + id + ": " + Str(scenario.Find("explanation")));
  ASSERT_FALSE(Str(scenario.Find("explanation")).empty()) << "every scenario explains its arithmetic";
  LoadOptions options;
  options.source_name = file.filename().string();
  options.scenario = id;
  absl::StatusOr<State> state = LoadState(text, options);
  ASSERT_TRUE(state.ok()) << state.status();
  const json::Value* expected = scenario.Find("expected");
  ASSERT_NE(expected, nullptr);
  const json::Value* cycles = expected->Find("cycles");
  if (cycles == nullptr) {
    absl::StatusOr<CycleResult> result = RunCycle(*state);
    ASSERT_TRUE(result.ok()) << result.status();
    CheckOutcome(*expected, *result);
    return;
  }
  // A simulation: each cycle's outcome, applied before the next, then the
  // workloads holding quota and waiting at the end, and whether the last
  // cycle changed nothing.
  bool stable = false;
  for (size_t c = 0; c < cycles->size(); ++c) {
    SCOPED_TRACE("cycle " + std::to_string(c + 1));
    absl::StatusOr<CycleResult> result = RunCycle(*state);
    ASSERT_TRUE(result.ok()) << result.status();
    CheckOutcome(cycles->at(c), *result);
    stable = IsStable(*state, *result);
    absl::StatusOr<State> next = ApplyCycle(*state, *result);
    ASSERT_TRUE(next.ok()) << next.status();
    *state = std::move(*next);
  }
  const json::Value* final_state = expected->Find("final");
  ASSERT_NE(final_state, nullptr) << "a simulation gives its `final` state";
  std::multiset<std::string> admitted, pending;
  for (const Workload& w : state->admitted) admitted.insert(w.name);
  for (const Workload& w : state->pending) pending.insert(w.name);
  EXPECT_EQ(Names(final_state->Find("admitted")), admitted);
  EXPECT_EQ(Names(final_state->Find("pending")), pending);
  if (const json::Value* s = final_state->Find("stable")) {
    EXPECT_EQ(s->as_bool(), stable);
  }
}

TEST(ScheduleScenarios, AllFiles) {
  const fs::path dir = fs::path(CHARTER_SOURCE_DIR) / "tests/schedule/cycle/scenarios";
  int count = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;
    const std::string text = Read(entry.path());
    absl::StatusOr<json::Document> doc = json::Parse(text);
    ASSERT_TRUE(doc.ok()) << entry.path() << ": " << doc.status();
    const json::Value* scenarios = doc->root().Find("scenarios");
    ASSERT_NE(scenarios, nullptr) << entry.path();
    for (size_t i = 0; i < scenarios->size(); ++i) {
      CheckScenario(entry.path(), text, scenarios->at(i));
      ++count;
    }
  }
  EXPECT_GE(count, 20);
}

// The scenario's workloads, {"admitted": [...], "pending": [...]}, cut from
// its text.
std::string WorkloadsJson(const std::string& text, const json::Value& scenario) {
  std::string out = "{";
  for (const char* key : {"admitted", "pending"}) {
    const json::Value* list = scenario.Find(key);
    if (list == nullptr) continue;
    Span span = internal::json::ValueSpan(text, *list);
    if (out.size() > 1) out += ", ";
    out += "\"" + std::string(key) + "\": " + text.substr(span.begin, span.end - span.begin);
  }
  return out + "}";
}

// Every scenario again, its configuration written as .charter declarations
// (PrintDeclarations), compiled into a bundle, read back from the verified
// engine, with the scenario's workloads added (LoadWorkloads): each cycle's
// outcome is the one of the JSON state, word for word.
TEST(ScheduleScenarios, SameOutcomeFromDeclarationsInABundle) {
  const fs::path dir = fs::path(CHARTER_SOURCE_DIR) / "tests/schedule/cycle/scenarios";
  int count = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;
    const std::string text = Read(entry.path());
    absl::StatusOr<json::Document> doc = json::Parse(text);
    ASSERT_TRUE(doc.ok()) << doc.status();
    const json::Value* scenarios = doc->root().Find("scenarios");
    ASSERT_NE(scenarios, nullptr);
    for (size_t i = 0; i < scenarios->size(); ++i) {
      const json::Value& scenario = scenarios->at(i);
      const std::string id = Str(scenario.Find("id"));
      SCOPED_TRACE(id);
      LoadOptions options;
      options.scenario = id;
      absl::StatusOr<State> from_json = LoadState(text, options);
      ASSERT_TRUE(from_json.ok()) << from_json.status();
      const std::string declarations = PrintDeclarations(*from_json);
      std::vector<SourceFile> sources{SourceFile(id + ".charter", declarations)};
      std::vector<Diagnostics> diagnostics;
      CompileOptions compile;
      compile.declarations = &Declarations();
      absl::StatusOr<Bundle> bundle = Compile(sources, {}, compile, &diagnostics);
      ASSERT_TRUE(bundle.ok()) << bundle.status() << "\n" << declarations;
      absl::StatusOr<Engine> engine = Engine::Create(*bundle);
      ASSERT_TRUE(engine.ok()) << engine.status();
      absl::StatusOr<std::optional<State>> config = ReadConfiguration(*engine);
      ASSERT_TRUE(config.ok() && config->has_value()) << config.status();
      absl::StatusOr<State> from_bundle = LoadWorkloads(**config, WorkloadsJson(text, scenario));
      ASSERT_TRUE(from_bundle.ok()) << from_bundle.status();
      EXPECT_EQ(from_bundle->resources, from_json->resources);
      EXPECT_EQ(PrintDeclarations(*from_bundle), declarations);
      const json::Value* cycles = scenario.Find("expected")->Find("cycles");
      const size_t n = cycles == nullptr ? 1 : cycles->size();
      State a = *std::move(from_json);
      State b = *std::move(from_bundle);
      for (size_t c = 0; c < n; ++c) {
        absl::StatusOr<CycleResult> ra = RunCycle(a);
        absl::StatusOr<CycleResult> rb = RunCycle(b);
        ASSERT_TRUE(ra.ok() && rb.ok()) << ra.status() << rb.status();
        EXPECT_EQ(ra->ToJson(), rb->ToJson()) << "cycle " << c + 1 << "\n" << declarations;
        absl::StatusOr<State> na = ApplyCycle(a, *ra);
        absl::StatusOr<State> nb = ApplyCycle(b, *rb);
        ASSERT_TRUE(na.ok() && nb.ok());
        a = *std::move(na);
        b = *std::move(nb);
      }
      ++count;
    }
  }
  EXPECT_GE(count, 95);
}

// Kueue's borrowWithinCohort.maxPriorityThreshold: a candidate whose
// priority is at or below it may be evicted while the preemptor borrows; one
// above it may not (b1 has priority 0).
TEST(ScheduleScenarios, MaxPriorityThresholdIsInclusive) {
  LoadOptions options;
  options.scenario = "reclaim-while-borrowing";
  const std::string rules = Read(fs::path(CHARTER_SOURCE_DIR) / "tests/schedule/cycle/scenarios/rules.json");
  for (int64_t threshold : {0, 5, -1}) {
    absl::StatusOr<State> state = LoadState(rules, options);
    ASSERT_TRUE(state.ok()) << state.status();
    state->cluster_queues[0].preemption.max_priority_threshold = threshold;
    absl::StatusOr<CycleResult> r = RunCycle(*state);
    ASSERT_TRUE(r.ok()) << r.status();
    if (threshold >= 0) {
      ASSERT_EQ(r->preempted.size(), 1u) << "threshold " << threshold << "\n" << r->ToText();
      EXPECT_EQ(r->preempted[0].reason, PreemptionReason::kInCohortReclaimWhileBorrowing);
    } else {
      EXPECT_TRUE(r->preempted.empty()) << r->ToText();
    }
  }
}


// tests/schedule/README.md's audit table names every scenario, and names no
// scenario that does not exist.
TEST(ScheduleScenarios, AuditTableNamesEveryScenario) {
  const std::string readme = Read(fs::path(CHARTER_SOURCE_DIR) / "tests/schedule/README.md");
  const size_t table = readme.find("## Audit");
  ASSERT_NE(table, std::string::npos);
  std::set<std::string> named;
  for (size_t at = readme.find('`', table); at != std::string::npos; at = readme.find('`', at)) {
    const size_t end = readme.find('`', at + 1);
    if (end == std::string::npos) break;
    named.insert(readme.substr(at + 1, end - at - 1));
    at = end + 1;
  }
  std::set<std::string> ids;
  const std::string rules = Read(fs::path(CHARTER_SOURCE_DIR) / "tests/schedule/cycle/scenarios/rules.json");
  absl::StatusOr<json::Document> doc = json::Parse(rules);
  ASSERT_TRUE(doc.ok());
  const json::Value* scenarios = doc->root().Find("scenarios");
  ASSERT_NE(scenarios, nullptr);
  for (size_t i = 0; i < scenarios->size(); ++i) ids.insert(Str(scenarios->at(i).Find("id")));
  for (const std::string& id : ids) EXPECT_TRUE(named.count(id) > 0) << "README.md's audit table does not name " << id;
  // Backticked words shaped like scenario ids (lowercase, with a dash) must
  // be scenarios.
  for (const std::string& word : named) {
    const bool id_like = word.find('-') != std::string::npos && word.find_first_of(" ./:_()") == std::string::npos &&
                         std::all_of(word.begin(), word.end(), [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; });
    if (id_like) {
      EXPECT_TRUE(ids.count(word) > 0) << "README.md names `" << word << "`, which is no scenario";
    }
  }
}

}  // namespace
}  // namespace charter::schedule
