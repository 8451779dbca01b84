// The benchmarks behind the targets of issue 19 (docs/performance.md,
// "Governance reviews (issue 19)"), over stores from bench/gen/governance.h:
//
//   BM_Access/T           charter::ReviewAccess for one connection (p1/c2) of a
//                         10,000-entity store with 1,000 policies; T = 1: the
//                         policies compiled against the standard schema (a
//                         typed bundle, `charter build --schema`), T = 0: untyped
//                         (`charter access --policies`)
//   BM_AccessText/T       the same and the report's text, as the command prints it
//   BM_AccessBruteForce   the same review deciding every principal of every row
//                         (AccessOptions::brute_force), for comparison
//   BM_Audit              charter::Audit of 1,000 connections (a 20,000-entity
//                         store) with the previous snapshot and the standard rules
//   BM_AuditText          the same and the report's text
//   BM_AuditNoPrevious    the same without --previous
//   BM_AuditLoad          what `charter audit` does before auditing: the schema
//                         parsed, both snapshots read against it, the standard
//                         rules compiled
//
// The whole processes are timed with farm-bench (docs/performance.md gives the
// commands); `charter_governance_workload` writes the same stores as files.
#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "bench/gen/governance.h"
#include "benchmark/benchmark.h"
#include "charter/charter.h"
#include "charter/governance.h"
#include "charter/schema.h"

namespace {

constexpr const char* kAt = "2026-01-15";

absl::StatusOr<charter::Schema> StandardSchema() {
  charter::SourceFile source{std::string(charter::kStandardGovernanceSchemaName),
                             std::string(charter::StandardGovernanceSchemaText())};
  return charter::Schema::Parse(source, {}, nullptr);
}

struct Setup {
  std::string error;
  charter::bench::GovernanceWorld world;
  std::unique_ptr<charter::Schema> schema;
  std::unique_ptr<charter::Entities> entities, previous;
  std::unique_ptr<charter::Engine> typed, untyped;
};

std::unique_ptr<charter::Engine> Build(const std::string& text, const charter::Schema* schema, std::string* error) {
  charter::Diagnostics diagnostics;
  charter::CompileOptions options;
  options.schema = schema;
  absl::StatusOr<charter::Bundle> bundle =
      charter::Compile(charter::SourceFile("generated.cedar", text), options, &diagnostics);
  if (!bundle.ok()) {
    *error = absl::StrCat("compile", schema ? " (typed)" : "", ": ", bundle.status().ToString());
    return nullptr;
  }
  absl::StatusOr<charter::Engine> engine = charter::Engine::Create(*std::move(bundle));
  if (!engine.ok()) {
    *error = absl::StrCat("engine: ", engine.status().ToString());
    return nullptr;
  }
  return std::make_unique<charter::Engine>(*std::move(engine));
}

void Load(Setup* s, const charter::bench::GovernanceOptions& options, bool engines) {
  s->world = charter::bench::GenerateGovernance(options);
  absl::StatusOr<charter::Schema> schema = StandardSchema();
  if (!schema.ok()) {
    s->error = absl::StrCat("schema: ", schema.status().ToString());
    return;
  }
  s->schema = std::make_unique<charter::Schema>(*std::move(schema));
  absl::StatusOr<charter::Entities> e = charter::Entities::FromJson(s->world.entities, *s->schema, "entities.json");
  absl::StatusOr<charter::Entities> p = charter::Entities::FromJson(s->world.previous, *s->schema, "previous.json");
  if (!e.ok() || !p.ok()) {
    s->error = absl::StrCat("entities: ", (!e.ok() ? e.status() : p.status()).ToString());
    return;
  }
  s->entities = std::make_unique<charter::Entities>(*std::move(e));
  s->previous = std::make_unique<charter::Entities>(*std::move(p));
  if (!engines) return;
  s->typed = Build(s->world.policies, s->schema.get(), &s->error);
  if (s->typed == nullptr) return;
  s->untyped = Build(s->world.policies, nullptr, &s->error);
}

// 10,000 entities, 1,000 policies: 50 projects of two teams, each connected
// to two of four clusters.
const Setup& AccessSetup() {
  static Setup* s = [] {
    auto* setup = new Setup;
    charter::bench::GovernanceOptions options;
    Load(setup, options, /*engines=*/true);
    return setup;
  }();
  return *s;
}

// 1,000 connections: 500 projects of two teams, each connected to two of
// four clusters; 5,000 members; 20,000 entities.
const Setup& AuditSetup() {
  static Setup* s = [] {
    auto* setup = new Setup;
    charter::bench::GovernanceOptions options;
    options.projects = 500;
    options.members = 5'000;
    options.entities = 20'000;
    Load(setup, options, /*engines=*/false);
    return setup;
  }();
  return *s;
}

// Kubernetes, with all three owners, reviewed on time, not revoked.
const charter::EntityUid kConnection{"Governance::Connection", "p1/c2"};

void AccessCase(benchmark::State& state, bool text, bool brute_force) {
  const Setup& s = AccessSetup();
  if (!s.error.empty()) {
    state.SkipWithError(s.error.c_str());
    return;
  }
  const charter::Engine& engine = state.range(0) != 0 ? *s.typed : *s.untyped;
  charter::AccessOptions options;
  options.at = kAt;
  options.brute_force = brute_force;
  size_t rows = 0, decided = 0, combinations = 0, findings = 0, bytes = 0;
  for (auto _ : state) {
    absl::StatusOr<charter::AccessReport> report =
        charter::ReviewAccess(engine, *s.entities, *s.schema, kConnection, options);
    if (!report.ok()) {
      state.SkipWithError(report.status().ToString().c_str());
      return;
    }
    if (text) {
      std::string out = report->ToText();
      bytes = out.size();
      benchmark::DoNotOptimize(out);
    }
    rows = report->rows.size();
    decided = report->decided;
    combinations = report->combinations;
    findings = report->findings.size();
    benchmark::DoNotOptimize(report);
  }
  state.counters["entities"] = static_cast<double>(s.world.entity_count);
  state.counters["policies"] = static_cast<double>(s.world.policy_count);
  state.counters["rows"] = static_cast<double>(rows);
  state.counters["decided"] = static_cast<double>(decided);
  state.counters["combinations"] = static_cast<double>(combinations);
  state.counters["findings"] = static_cast<double>(findings);
  if (text) state.counters["text_bytes"] = static_cast<double>(bytes);
}

void BM_Access(benchmark::State& state) { AccessCase(state, false, false); }
void BM_AccessText(benchmark::State& state) { AccessCase(state, true, false); }
void BM_AccessBruteForce(benchmark::State& state) { AccessCase(state, false, true); }
BENCHMARK(BM_Access)->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AccessText)->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AccessBruteForce)->Arg(1)->Unit(benchmark::kMillisecond);

void AuditCase(benchmark::State& state, bool with_previous, bool text) {
  const Setup& s = AuditSetup();
  if (!s.error.empty()) {
    state.SkipWithError(s.error.c_str());
    return;
  }
  absl::StatusOr<charter::AuditRules> rules = charter::AuditRules::Standard(*s.schema);
  if (!rules.ok()) {
    state.SkipWithError(rules.status().ToString().c_str());
    return;
  }
  charter::AuditOptions options;
  options.at = kAt;
  options.within_days = 30;
  options.entities_name = "entities.json";
  if (with_previous) options.previous_name = "previous.json";
  size_t connections = 0, findings = 0;
  for (auto _ : state) {
    absl::StatusOr<charter::AuditReport> report =
        charter::Audit(*s.schema, *s.entities, with_previous ? s.previous.get() : nullptr, {&*rules}, options);
    if (!report.ok()) {
      state.SkipWithError(report.status().ToString().c_str());
      return;
    }
    if (text) {
      std::string out = report->ToText();
      benchmark::DoNotOptimize(out);
    }
    connections = report->connections.size();
    findings = report->Count("low") + report->Count("medium") + report->Count("high");
    benchmark::DoNotOptimize(report);
  }
  state.counters["entities"] = static_cast<double>(s.world.entity_count);
  state.counters["connections"] = static_cast<double>(connections);
  state.counters["findings"] = static_cast<double>(findings);
}

void BM_Audit(benchmark::State& state) { AuditCase(state, true, false); }
void BM_AuditText(benchmark::State& state) { AuditCase(state, true, true); }
void BM_AuditNoPrevious(benchmark::State& state) { AuditCase(state, false, false); }
BENCHMARK(BM_Audit)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AuditText)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AuditNoPrevious)->Unit(benchmark::kMillisecond);

void BM_AuditLoad(benchmark::State& state) {
  const Setup& s = AuditSetup();
  if (!s.error.empty()) {
    state.SkipWithError(s.error.c_str());
    return;
  }
  for (auto _ : state) {
    absl::StatusOr<charter::Schema> schema = StandardSchema();
    absl::StatusOr<charter::Entities> e = charter::Entities::FromJson(s.world.entities, *schema, "entities.json");
    absl::StatusOr<charter::Entities> p = charter::Entities::FromJson(s.world.previous, *schema, "previous.json");
    absl::StatusOr<charter::AuditRules> rules = charter::AuditRules::Standard(*schema);
    if (!e.ok() || !p.ok() || !rules.ok()) {
      state.SkipWithError("load failed");
      return;
    }
    benchmark::DoNotOptimize(e);
    benchmark::DoNotOptimize(p);
    benchmark::DoNotOptimize(rules);
  }
  state.counters["bytes"] = static_cast<double>(s.world.entities.size() + s.world.previous.size());
}
BENCHMARK(BM_AuditLoad)->Unit(benchmark::kMillisecond);

}  // namespace
