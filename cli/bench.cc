// `charter bench`: how long the engine takes to decide requests, with the
// policy set, the entity store and the requests already loaded.
//
//   charter bench (--policies P | --bundle B) --entities E --requests RS
//                 [--iterations N] [--format text|json]
//
// Everything is loaded once (each load is timed and reported on its own),
// then one untimed pass over the requests warms the caches, then N timed
// passes decide every request in the file. Every decision is made with one
// reusable EvalContext, the allocation-free path a service would use. `ns_per_request` is the total
// time of those passes divided by the decisions made; nothing else is inside
// the timed loop; `cpu_ns_per_request` is the thread's CPU time over the
// same passes, the steadier figure on a shared machine. A second set of N passes times each call on its own for
// the median and p99 latency, which therefore include one clock read.
//
// --format json prints one object on one line:
//   {"ns_per_request":412.5,"requests":27,"iterations":100,...}
// Any error exits 1 and prints nothing on stdout.
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "charter/charter.h"
#include "command.h"
#include "files.h"
#include "load.h"
#include "report.h"

namespace charter::cli {
namespace {

using Clock = std::chrono::steady_clock;

// Without --iterations: as many timed passes as fit in about this long
// (at least kMinAutoIterations, at most kMaxAutoIterations).
constexpr double kAutoBudgetNs = 1e9;
constexpr int64_t kMinAutoIterations = 3;
constexpr int64_t kMaxAutoIterations = 1'000'000;
constexpr size_t kMaxLatencySamples = 4'000'000;
constexpr int kEntityLoads = 5;
constexpr double kEntityLoadBudgetNs = 5e8;

struct BenchFlags {
  PolicySource source;
  std::string entities;
  std::string requests;
  int64_t iterations = 0;  // 0: chosen from the warm-up pass
  std::string format = "text";
};

// CPU time of this thread: unlike the wall clock, it leaves out the time
// the thread waited for a core, which on a busy machine is most of it.
double ThreadCpuNs() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e9 + static_cast<double>(t.tv_nsec);
}

double NsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::nano>(Clock::now() - start).count();
}

// The value at fraction q (0..1) of sorted `v`, nearest rank.
double Quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  size_t rank = static_cast<size_t>(q * static_cast<double>(sorted.size() - 1) + 0.5);
  return sorted[std::min(rank, sorted.size() - 1)];
}

struct Loads {
  double policies_ns = 0;  // read + compile + verify, or map + verify
  double entities_ns = 0;  // Entities::FromJson only (the file is read first)
  double entities_cpu_ns = 0;  // the same, in this thread's CPU time
  int entities_loads = 0;      // loads the two figures are the median of
  size_t entities_bytes = 0;
  double requests_ns = 0;  // read + parse
};

struct Results {
  size_t requests = 0;
  int64_t iterations = 0;
  int64_t latency_passes = 0;
  double ns_per_request = 0;
  double cpu_ns_per_request = 0;  // thread CPU time over the same passes
  double pass_min = 0, pass_median = 0, pass_max = 0;  // per-pass ns per request
  double latency_median = 0, latency_p99 = 0, latency_max = 0;
  double clock_ns = 0;  // the cost of one clock read, included in each latency
  size_t allowed = 0, denied = 0, with_errors = 0;  // per pass
  size_t evaluated = 0;  // policies run (those the scope index kept), per pass
};

// The engine's answers must not be optimised away: each pass folds them
// into a value that is printed.
size_t DecideAll(const Engine& engine, const Entities& entities,
                 const std::vector<Request>& requests, EvalContext* context) {
  size_t allowed = 0;
  for (const Request& request : requests) {
    allowed += engine.Authorize(request, entities, context) ? 1 : 0;
  }
  return allowed;
}

double ClockReadNs() {
  constexpr int kReads = 10'000;
  Clock::time_point start = Clock::now();
  Clock::time_point last = start;
  for (int i = 0; i < kReads; ++i) last = Clock::now();
  return std::chrono::duration<double, std::nano>(last - start).count() / kReads;
}

absl::StatusOr<Results> Measure(const BenchFlags& flags, const Engine& engine,
                                const Entities& entities, const std::vector<Request>& requests) {
  Results r;
  r.requests = requests.size();
  const double n = static_cast<double>(requests.size());

  // Warm-up (it also grows the context), and the decisions the output reports.
  EvalContext context;
  Clock::time_point warm_start = Clock::now();
  for (const Request& request : requests) {
    (engine.Authorize(request, entities, &context) ? r.allowed : r.denied) += 1;
    r.with_errors += context.errors().empty() ? 0 : 1;
    r.evaluated += context.policies_evaluated();
  }
  double warm_ns = NsSince(warm_start);

  r.iterations = flags.iterations;
  if (r.iterations == 0) {
    double passes = kAutoBudgetNs / std::max(warm_ns, 1.0);
    r.iterations = std::clamp(static_cast<int64_t>(passes), kMinAutoIterations, kMaxAutoIterations);
  }

  // Throughput: whole passes, no clock inside.
  std::vector<double> pass_ns;
  pass_ns.reserve(static_cast<size_t>(r.iterations));
  size_t sink = 0;
  double total_ns = 0;
  double cpu_start = ThreadCpuNs();
  for (int64_t i = 0; i < r.iterations; ++i) {
    Clock::time_point start = Clock::now();
    sink += DecideAll(engine, entities, requests, &context);
    double ns = NsSince(start);
    total_ns += ns;
    pass_ns.push_back(ns / n);
  }
  const double decisions = n * static_cast<double>(r.iterations);
  r.cpu_ns_per_request = (ThreadCpuNs() - cpu_start) / decisions;
  r.ns_per_request = total_ns / decisions;
  std::sort(pass_ns.begin(), pass_ns.end());
  r.pass_min = pass_ns.front();
  r.pass_median = Quantile(pass_ns, 0.5);
  r.pass_max = pass_ns.back();

  // Latency: every call timed on its own, in as many passes again (fewer if
  // that would keep more than kMaxLatencySamples).
  r.clock_ns = ClockReadNs();
  r.latency_passes = std::min<int64_t>(
      r.iterations, std::max<int64_t>(1, static_cast<int64_t>(kMaxLatencySamples / requests.size())));
  std::vector<double> latencies;
  latencies.reserve(requests.size() * static_cast<size_t>(r.latency_passes));
  for (int64_t i = 0; i < r.latency_passes; ++i) {
    Clock::time_point before = Clock::now();
    for (const Request& request : requests) {
      bool allowed = engine.Authorize(request, entities, &context);
      Clock::time_point after = Clock::now();
      sink += allowed ? 1 : 0;
      latencies.push_back(std::chrono::duration<double, std::nano>(after - before).count());
      before = after;
    }
  }
  std::sort(latencies.begin(), latencies.end());
  r.latency_median = Quantile(latencies, 0.5);
  r.latency_p99 = Quantile(latencies, 0.99);
  r.latency_max = latencies.back();

  // Every pass must make the decisions of the first.
  if (sink != r.allowed * static_cast<size_t>(r.iterations + r.latency_passes)) {
    return absl::InternalError("internal error: the decisions changed between passes");
  }
  return r;
}

std::string Num(double v) { return absl::StrFormat("%.1f", v); }

std::string Json(const Results& r, const Loads& loads, const Engine& engine,
                 const Entities& entities, const BenchFlags& flags) {
  return absl::StrCat(
      "{\"ns_per_request\":", Num(r.ns_per_request), ",\"requests\":", r.requests,
      ",\"iterations\":", r.iterations, ",\"cpu_ns_per_request\":", Num(r.cpu_ns_per_request),
      ",\"pass_ns_per_request\":{\"min\":", Num(r.pass_min), ",\"median\":", Num(r.pass_median),
      ",\"max\":", Num(r.pass_max), "}",
      ",\"latency_ns\":{\"median\":", Num(r.latency_median), ",\"p99\":", Num(r.latency_p99),
      ",\"max\":", Num(r.latency_max), ",\"clock\":", Num(r.clock_ns),
      ",\"passes\":", r.latency_passes, "}",
      ",\"policies\":", engine.policy_count(), ",\"entities\":", entities.size(),
      ",\"decisions\":{\"allow\":", r.allowed, ",\"deny\":", r.denied,
      ",\"with_errors\":", r.with_errors, "}",
      ",\"policies_evaluated_per_request\":", Num(static_cast<double>(r.evaluated) / static_cast<double>(r.requests)),
      ",\"load_ns\":{\"", flags.source.bundle.empty() ? "compile" : "bundle", "\":",
      Num(loads.policies_ns), ",\"entities\":", Num(loads.entities_ns),
      ",\"requests\":", Num(loads.requests_ns), "}",
      ",\"load_cpu_ns\":{\"entities\":", Num(loads.entities_cpu_ns), "}",
      ",\"entity_loads\":", loads.entities_loads,
      ",\"entities_bytes\":", loads.entities_bytes, ",\"entities_mb_per_s\":",
      Num(loads.entities_ns > 0 ? static_cast<double>(loads.entities_bytes) * 1e3 /
                                      loads.entities_ns
                                : 0),
      "}\n");
}

std::string Ms(double ns) { return absl::StrFormat("%.3f ms", ns / 1e6); }

std::string Text(const Results& r, const Loads& loads, const Engine& engine,
                 const Entities& entities, const BenchFlags& flags) {
  double mb_per_s =
      loads.entities_ns > 0 ? static_cast<double>(loads.entities_bytes) * 1e3 / loads.entities_ns
                            : 0;
  return absl::StrCat(
      "policies     ", engine.policy_count(), "\n",
      "entities     ", entities.size(), "\n",
      "requests     ", r.requests, " (", r.allowed, " allow, ", r.denied, " deny, ",
      r.with_errors, " with errors; ",
      Num(static_cast<double>(r.evaluated) / static_cast<double>(r.requests)),
      " policies evaluated a request)\n",
      "iterations   ", r.iterations, "\n",
      "ns/request   ", Num(r.ns_per_request), " (passes: min ", Num(r.pass_min), ", median ",
      Num(r.pass_median), ", max ", Num(r.pass_max), "; CPU ", Num(r.cpu_ns_per_request), ")\n",
      "latency      median ", Num(r.latency_median), " ns, p99 ", Num(r.latency_p99),
      " ns, max ", Num(r.latency_max), " ns (each call timed; a clock read is ",
      Num(r.clock_ns), " ns)\n",
      "load         ", flags.source.bundle.empty() ? "compile " : "bundle ", Ms(loads.policies_ns),
      ", entities ", Ms(loads.entities_ns), " (CPU ", Ms(loads.entities_cpu_ns), "; ",
      loads.entities_bytes, " bytes, ", Num(mb_per_s), " MB/s), requests ", Ms(loads.requests_ns), "\n");
}

absl::StatusOr<Entities> TimedLoadEntities(const std::string& path, Loads* loads) {
  EntitiesOptions options;
  absl::StatusOr<std::string> json = ReadFile(path, options.max_input_bytes);
  if (!json.ok()) return json.status();
  loads->entities_bytes = json->size();
  // The first load also pays for the process's first touch of its memory;
  // the figure is the median of up to kEntityLoads loads (as many as fit in
  // kEntityLoadBudgetNs after the first), the cost of a load in a warm process.
  std::vector<double> wall, cpu;
  absl::StatusOr<Entities> entities;
  double spent = 0;
  for (int i = 0; i < kEntityLoads && (i == 0 || spent < kEntityLoadBudgetNs); ++i) {
    double cpu_start = ThreadCpuNs();
    Clock::time_point start = Clock::now();
    absl::StatusOr<Entities> loaded = Entities::FromJson(*json, path, options);
    wall.push_back(NsSince(start));
    cpu.push_back(ThreadCpuNs() - cpu_start);
    spent += wall.back();
    if (!loaded.ok()) {
      const absl::Status& s = loaded.status();
      return absl::Status(s.code(), WithPath(path, OneLine(s.message())));
    }
    if (i == 0) entities = std::move(loaded);
  }
  std::sort(wall.begin(), wall.end());
  std::sort(cpu.begin(), cpu.end());
  loads->entities_ns = Quantile(wall, 0.5);
  loads->entities_cpu_ns = Quantile(cpu, 0.5);
  loads->entities_loads = static_cast<int>(wall.size());
  return entities;
}

int RunBench(const BenchFlags& flags) {
  // Load every input even after one fails, so that all faults are reported
  // at once.
  Loads loads;
  Clock::time_point start = Clock::now();
  absl::StatusOr<Engine> engine = LoadEngine(flags.source);
  loads.policies_ns = NsSince(start);
  absl::StatusOr<Entities> entities = TimedLoadEntities(flags.entities, &loads);
  start = Clock::now();
  absl::StatusOr<std::vector<Request>> requests = LoadRequests(flags.requests);
  loads.requests_ns = NsSince(start);
  absl::Status requests_status = requests.status();
  if (requests.ok() && requests->empty()) {
    requests_status = absl::InvalidArgumentError(
        WithPath(flags.requests, "no requests to time (the array is empty)"));
  }
  bool failed = false;
  for (const absl::Status& s : {engine.status(), entities.status(), requests_status}) {
    if (!s.ok()) {
      Fail(s);
      failed = true;
    }
  }
  if (failed) return kError;

  absl::StatusOr<Results> results = Measure(flags, *engine, *entities, *requests);
  if (!results.ok()) return Fail(results.status());
  std::string out = flags.format == "json"
                        ? Json(*results, loads, *engine, *entities, flags)
                        : Text(*results, loads, *engine, *entities, flags);
  return WriteStdout(out) ? kOk : kError;
}

}  // namespace

Command AddBenchCommand(CLI::App& root) {
  auto flags = std::make_shared<BenchFlags>();
  CLI::App* app = root.add_subcommand(
      "bench", "Time decisions against a policy set and entities loaded once");
  app->footer(
      "Loads everything once, warms up with one pass over the requests, then times N passes "
      "(evaluation only). Exit status 0, or 1 on any error.");

  AddPolicySourceOptions(app, &flags->source);
  app->add_option("--entities", flags->entities, "Entities in Cedar's JSON format")
      ->type_name("FILE")
      ->required();
  app->add_option("--requests", flags->requests, "The requests to time (a JSON array)")
      ->type_name("FILE")
      ->required();
  app->add_option("--iterations", flags->iterations,
                  "Timed passes over the requests (default: as many as fit in about 1 s)")
      ->type_name("N")
      ->check(WholeNumber(1, kMaxAutoIterations * 1000));
  app->add_option("--format", flags->format,
                  "Output: text (default); json, one object on one line")
      ->type_name("FORMAT")
      ->check(OneOf({"text", "json"}));

  app->callback([flags] {
    RequirePolicySource(flags->source);
  });
  return Command{app, [flags] { return RunBench(*flags); }};
}

}  // namespace charter::cli
