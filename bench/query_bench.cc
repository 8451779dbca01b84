// The benchmarks behind the targets of issue 20 (docs/performance.md,
// "Listing, residuals and diff (issue 20)"), over a store from
// bench/gen/governance.h: 10,000 entities (about 4,900 tasks), 1,000
// policies compiled against the standard schema, entities read with it.
//
//   BM_ListTasks/W            charter::ListAllowed: the tasks member W may view
//                             (W = 0: a contributor, m100; W = 1: a project
//                             owner, m0), every match with its reasons
//   BM_ForEachAllowedTasks/W  charter::ForEachAllowed, the same with one reused
//                             EvalContext (the streaming form)
//   BM_Residual/A             charter::PartialEvaluator::Evaluate for member m100
//                             and an unknown task: A = 0 viewTask, 1 cancelTask,
//                             2 submitTask (with context.now)
//   BM_DiffDecide             what `charter diff` does for each request, over
//                             100,000 decision-log requests: decided with the
//                             old and the tightened set, one EvalContext a side,
//                             and a Decision made for each changed one
//   BM_DiffReadLog            what `charter diff --decision-log` does to read
//                             them: each line parsed, its `request` read
//                             against the schema
//
// The whole `charter diff` process is timed with farm-bench
// (docs/performance.md gives the command).
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/gen/governance.h"
#include "benchmark/benchmark.h"
#include "charter/charter.h"
#include "charter/json.h"
#include "charter/query.h"
#include "charter/governance.h"
#include "charter/schema.h"

namespace {

constexpr size_t kLoggedRequests = 100'000;

struct Setup {
  std::string error;
  charter::bench::GovernanceWorld world;
  std::unique_ptr<charter::Schema> schema;
  std::unique_ptr<charter::Entities> entities;
  std::unique_ptr<charter::Engine> engine, tightened;
  std::unique_ptr<charter::PartialEvaluator> partial;
  std::vector<std::string_view> lines;    // of the decision log
  std::vector<charter::Request> requests;  // read from them
};

std::unique_ptr<charter::Engine> Build(const std::string& text, const charter::Schema& schema, std::string* error) {
  charter::Diagnostics diagnostics;
  charter::CompileOptions options;
  options.schema = &schema;
  absl::StatusOr<charter::Bundle> bundle =
      charter::Compile(charter::SourceFile("generated.cedar", text), options, &diagnostics);
  if (!bundle.ok()) {
    *error = absl::StrCat("compile: ", bundle.status().ToString());
    return nullptr;
  }
  absl::StatusOr<charter::Engine> engine = charter::Engine::Create(*std::move(bundle));
  if (!engine.ok()) {
    *error = absl::StrCat("engine: ", engine.status().ToString());
    return nullptr;
  }
  return std::make_unique<charter::Engine>(*std::move(engine));
}

// The request of a decision-log line, read as `charter diff` reads it (the
// `request` member, the line's last).
absl::StatusOr<charter::Request> ReadLine(std::string_view line, const charter::Schema& schema) {
  absl::StatusOr<charter::JsonDocument> doc = charter::JsonDocument::Parse(line);
  if (!doc.ok()) return doc.status();
  std::optional<charter::JsonValue> request = doc->root().Find("request");
  if (!request.has_value() || !request->is_object()) {
    return absl::InvalidArgumentError("a decision-log line without a `request` object");
  }
  size_t begin = request->offset();
  size_t end = line.rfind('}');
  return charter::Request::FromJson(line.substr(begin, end - begin), schema, "decision-log.jsonl");
}

const Setup& Get() {
  static Setup* s = [] {
    auto* setup = new Setup;
    charter::bench::GovernanceOptions options;
    options.requests = kLoggedRequests;
    setup->world = charter::bench::GenerateGovernance(options);
    charter::SourceFile schema_source{std::string(charter::kStandardGovernanceSchemaName),
                                      std::string(charter::StandardGovernanceSchemaText())};
    absl::StatusOr<charter::Schema> schema = charter::Schema::Parse(schema_source, {}, nullptr);
    if (!schema.ok()) {
      setup->error = absl::StrCat("schema: ", schema.status().ToString());
      return setup;
    }
    setup->schema = std::make_unique<charter::Schema>(*std::move(schema));
    absl::StatusOr<charter::Entities> e =
        charter::Entities::FromJson(setup->world.entities, *setup->schema, "entities.json");
    if (!e.ok()) {
      setup->error = absl::StrCat("entities: ", e.status().ToString());
      return setup;
    }
    setup->entities = std::make_unique<charter::Entities>(*std::move(e));
    setup->engine = Build(setup->world.policies, *setup->schema, &setup->error);
    if (setup->engine == nullptr) return setup;
    setup->tightened = Build(setup->world.tightened, *setup->schema, &setup->error);
    if (setup->tightened == nullptr) return setup;
    charter::CompileOptions compile;
    compile.schema = setup->schema.get();
    absl::StatusOr<charter::PartialEvaluator> pe =
        charter::PartialEvaluator::Create(charter::SourceFile("generated.cedar", setup->world.policies), {}, compile);
    if (!pe.ok()) {
      setup->error = absl::StrCat("partial evaluator: ", pe.status().ToString());
      return setup;
    }
    setup->partial = std::make_unique<charter::PartialEvaluator>(*std::move(pe));
    std::string_view all = setup->world.decision_log;
    for (size_t start = 0; start < all.size();) {
      size_t end = all.find('\n', start);
      if (end == std::string_view::npos) end = all.size();
      setup->lines.push_back(all.substr(start, end - start));
      start = end + 1;
    }
    for (std::string_view line : setup->lines) {
      absl::StatusOr<charter::Request> r = ReadLine(line, *setup->schema);
      if (!r.ok()) {
        setup->error = absl::StrCat("decision log: ", r.status().ToString());
        return setup;
      }
      setup->requests.push_back(*std::move(r));
    }
    return setup;
  }();
  return *s;
}

charter::EntityUid Member(int64_t which) {
  return {"Governance::Member", which == 0 ? "m100" : "m0"};
}

void BM_ListTasks(benchmark::State& state) {
  const Setup& s = Get();
  if (!s.error.empty()) {
    state.SkipWithError(s.error.c_str());
    return;
  }
  absl::StatusOr<charter::QueryRequest> q = charter::QueryRequest::ForResources(
      Member(state.range(0)), {"Governance::Action", "viewTask"}, "Governance::Task", "", s.schema.get());
  if (!q.ok()) {
    state.SkipWithError(q.status().ToString().c_str());
    return;
  }
  size_t matches = 0, examined = 0;
  for (auto _ : state) {
    absl::StatusOr<charter::ListPage> page = charter::ListAllowed(*s.engine, *q, *s.entities);
    if (!page.ok()) {
      state.SkipWithError(page.status().ToString().c_str());
      return;
    }
    matches = page->matches.size();
    examined = page->examined;
    benchmark::DoNotOptimize(page);
  }
  state.counters["tasks"] = static_cast<double>(s.world.task_count);
  state.counters["examined"] = static_cast<double>(examined);
  state.counters["matches"] = static_cast<double>(matches);
}
BENCHMARK(BM_ListTasks)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

void BM_ForEachAllowedTasks(benchmark::State& state) {
  const Setup& s = Get();
  if (!s.error.empty()) {
    state.SkipWithError(s.error.c_str());
    return;
  }
  absl::StatusOr<charter::QueryRequest> q = charter::QueryRequest::ForResources(
      Member(state.range(0)), {"Governance::Action", "viewTask"}, "Governance::Task", "", s.schema.get());
  if (!q.ok()) {
    state.SkipWithError(q.status().ToString().c_str());
    return;
  }
  charter::EvalContext context;
  size_t matches = 0;
  for (auto _ : state) {
    matches = 0;
    absl::Status status = charter::ForEachAllowed(
        *s.engine, *q, *s.entities,
        [&](const charter::QueryMatchView& m) {
          benchmark::DoNotOptimize(m.id.data());
          ++matches;
          return true;
        },
        &context);
    if (!status.ok()) {
      state.SkipWithError(status.ToString().c_str());
      return;
    }
  }
  state.counters["matches"] = static_cast<double>(matches);
}
BENCHMARK(BM_ForEachAllowedTasks)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

void BM_Residual(benchmark::State& state) {
  const Setup& s = Get();
  if (!s.error.empty()) {
    state.SkipWithError(s.error.c_str());
    return;
  }
  static constexpr const char* kActions[] = {"viewTask", "cancelTask", "submitTask"};
  const char* action = kActions[state.range(0)];
  std::string context = state.range(0) == 2
                            ? R"({"now": {"__extn": {"fn": "datetime", "arg": "2026-01-15T09:00:00Z"}}})"
                            : "";
  absl::StatusOr<charter::QueryRequest> q = charter::QueryRequest::ForResources(
      Member(0), {"Governance::Action", action}, "Governance::Task", context, s.schema.get());
  if (!q.ok()) {
    state.SkipWithError(q.status().ToString().c_str());
    return;
  }
  size_t policies = 0, condition = 0;
  for (auto _ : state) {
    absl::StatusOr<charter::Residual> r = s.partial->Evaluate(*q, *s.entities);
    if (!r.ok()) {
      state.SkipWithError(r.status().ToString().c_str());
      return;
    }
    policies = r->policies().size();
    condition = r->condition().size();
    benchmark::DoNotOptimize(r);
  }
  state.SetLabel(action);
  state.counters["residual_policies"] = static_cast<double>(policies);
  state.counters["condition_bytes"] = static_cast<double>(condition);
}
BENCHMARK(BM_Residual)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMicrosecond);

void BM_DiffDecide(benchmark::State& state) {
  const Setup& s = Get();
  if (!s.error.empty()) {
    state.SkipWithError(s.error.c_str());
    return;
  }
  charter::EvalContext old_context, new_context;
  size_t changed = 0, allowed = 0;
  for (auto _ : state) {
    std::vector<charter::Decision> changes;
    changed = allowed = 0;
    for (const charter::Request& r : s.requests) {
      bool o = s.engine->Authorize(r, *s.entities, &old_context);
      bool n = s.tightened->Authorize(r, *s.entities, &new_context);
      allowed += o;
      bool newly_failing = false;
      for (const charter::PolicyErrorView& e : new_context.errors()) {
        bool before = false;
        for (const charter::PolicyErrorView& x : old_context.errors()) before = before || x.policy_id == e.policy_id;
        newly_failing = newly_failing || !before;
      }
      if (o == n && !newly_failing) continue;
      ++changed;
      changes.push_back(old_context.ToDecision());
      changes.push_back(new_context.ToDecision());
    }
    benchmark::DoNotOptimize(changes);
  }
  state.counters["requests"] = static_cast<double>(s.requests.size());
  state.counters["old_allowed"] = static_cast<double>(allowed);
  state.counters["changed_or_erring"] = static_cast<double>(changed);
}
BENCHMARK(BM_DiffDecide)->Unit(benchmark::kMillisecond);

void BM_DiffReadLog(benchmark::State& state) {
  const Setup& s = Get();
  if (!s.error.empty()) {
    state.SkipWithError(s.error.c_str());
    return;
  }
  for (auto _ : state) {
    std::vector<charter::Request> requests;
    requests.reserve(s.lines.size());
    for (std::string_view line : s.lines) {
      absl::StatusOr<charter::Request> r = ReadLine(line, *s.schema);
      if (!r.ok()) {
        state.SkipWithError(r.status().ToString().c_str());
        return;
      }
      requests.push_back(*std::move(r));
    }
    benchmark::DoNotOptimize(requests);
  }
  state.counters["lines"] = static_cast<double>(s.lines.size());
  state.counters["bytes"] = static_cast<double>(s.world.decision_log.size());
}
BENCHMARK(BM_DiffReadLog)->Unit(benchmark::kMillisecond);

}  // namespace
