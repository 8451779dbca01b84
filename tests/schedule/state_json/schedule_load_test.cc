// LoadState's errors on bad input, and exact quantity parsing.
#include <optional>
#include <string>

#include "charter/diagnostics.h"
#include "charter/schedule.h"
#include "cycle/quantity.h"
#include "gtest/gtest.h"

namespace charter::schedule {
namespace {

std::string Base(const std::string& cohorts, const std::string& queue_extra, const std::string& workloads) {
  return R"({"resource_flavors": ["default"], "priority_classes": [{"name": "high", "value": 10}],
  "cohorts": )" + cohorts + R"(,
  "cluster_queues": [{"name": "team-a", "cohort": "ml", )" + queue_extra + R"(
    "resource_groups": [{"covered_resources": ["cpu", "memory"], "flavors": [{"name": "default",
      "quotas": {"cpu": {"nominal": "8"}, "memory": {"nominal": "16Gi"}}}]}]}],
  )" + workloads + "}";
}

std::string Error(const std::string& text) {
  absl::StatusOr<State> s = LoadState(text);
  if (s.ok()) return "ok";
  return std::string(s.status().message());
}

TEST(ScheduleLoad, GoodState) {
  absl::StatusOr<State> s = LoadState(Base("[]", "", R"("pending": [{"name": "w", "cluster_queue": "team-a",
    "priority_class": "high", "pod_sets": [{"name": "main", "count": 2, "requests": {"cpu": "500m", "memory": "1.5Gi"}}]}])"));
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ(s->pending.size(), 1u);
  EXPECT_EQ(s->pending[0].priority, 10);
  EXPECT_EQ(s->pending[0].pod_sets[0].requests[0].per_pod, 500);  // milli-cpu
  EXPECT_EQ(s->pending[0].pod_sets[0].requests[1].per_pod, int64_t{3} << 29);
  ASSERT_EQ(s->cohorts.size(), 1u);  // implicit root
  EXPECT_EQ(s->cluster_queues[0].resource_groups[0].flavors[0].resources[1].nominal, int64_t{16} << 30);
}

TEST(ScheduleLoad, Errors) {
  EXPECT_EQ(Error("{"), "state.json:1:2: unexpected end of input");
  EXPECT_EQ(Error(Base("[]", "", R"("pending": [{"name": "w", "cluster_queue": "team-x", "pod_sets": [{"name": "m"}]}])")),
            "state.json:6:46: pending workload `w` names an unknown cluster queue `team-x`");
  EXPECT_EQ(Error(Base(R"([{"name": "ml", "parent": "x"}, {"name": "x", "parent": "ml"}])", "", R"("pending": [])")),
            "state.json:2:15: cohort `ml` is in a cycle of parents: ml -> x -> ml");
  EXPECT_EQ(Error(Base(R"([{"name": "ml", "parent": "nope"}])", "", R"("pending": [])")),
            "state.json:2:40: cohort `ml` names an unknown parent cohort `nope`");
  EXPECT_EQ(Error(Base("[]", "", R"("pending": [{"name": "w", "cluster_queue": "team-a", "priority_class": "urgent", "pod_sets": [{"name": "m"}]}])")),
            "state.json:6:74: pending workload `w` names an unknown priority class `urgent`; defined: high");
  EXPECT_EQ(Error(Base("[]", "", R"("pending": [{"name": "w", "cluster_queue": "team-a", "pod_sets": [{"name": "m", "requests": {"cpu": "-1"}}]}])")),
            "state.json:6:103: the `cpu` request of pod set `m` of pending workload `w` is negative (-1)");
  EXPECT_EQ(Error(Base("[]", "", R"("pending": [{"name": "w", "cluster_queue": "team-a", "pod_sets": [{"name": "m", "requests": {"cpu": "8x"}}]}])")),
            "state.json:6:103: the `cpu` request of pod set `m` of pending workload `w` is not a quantity: `8x`");
  EXPECT_EQ(Error(Base("[]", R"("colour": 1,)", R"("pending": [])")),
            "state.json:3:57: unknown field `colour` in a cluster queue");
  EXPECT_EQ(Error(Base("[]", "", R"("admitted": [{"name": "w", "cluster_queue": "team-a", "pod_sets": [{"name": "m", "requests": {"cpu": 1}}], "flavors": {"m": {"cpu": "gold"}}}])")),
            "state.json:6:135: admitted workload `w` uses unknown resource flavor `gold`");
  std::string lending = Base("[]", "", R"("pending": [])");
  lending.replace(lending.find(R"({"nominal": "8"})"), 16, R"({"nominal": "8", "lending_limit": 9})");
  EXPECT_EQ(Error(lending),
            "state.json:5:59: the lending limit in the `cpu` quota of flavor `default` of cluster queue `team-a` (9) is above its nominal quota (8)");
}


// One queue `team-a` in cohort `ml` and one pending workload `w`; Bad()
// replaces `from` by `to` (once) and returns the load error.
const char kBase[] = R"({"resource_flavors": ["default"], "cohorts": [{"name": "ml", "parent": null}],
"cluster_queues": [{"name": "team-a", "cohort": "ml", "resource_groups": [{"covered_resources": ["cpu"], "flavors": [{"name": "default", "quotas": {"cpu": {"nominal": 8}}}]}]}],
"pending": [{"name": "w", "cluster_queue": "team-a", "pod_sets": [{"name": "m", "count": 1, "requests": {"cpu": 1}}]}]})";

std::string Bad(const std::string& from, const std::string& to) {
  std::string text = kBase;
  const size_t at = text.find(from);
  if (at == std::string::npos) return "the test's `from` is not in the base state: " + from;
  text.replace(at, from.size(), to);
  LoadOptions options;
  options.source_name = "s.json";
  absl::StatusOr<State> s = LoadState(text, options);
  return s.ok() ? "ok" : std::string(s.status().message());
}

// Each fault is a Diagnostic with a code of its kind and a span: the value
// (or key) at fault, as `from` -> `to` in kBase makes it.
TEST(ScheduleLoad, EachFaultIsADiagnostic) {
  struct Case {
    std::string from, to, code, underlined;
  };
  const Case cases[] = {
      {"{\"resource_flavors\"", "{,\"resource_flavors\"", "CH0700", ","},
      {"[\"default\"]", "\"default\"", "CH0701", "\"default\""},
      {"\"cluster_queue\": \"team-a\", ", "", "CH0702", "{\"name\": \"w\", \"pod_sets\": [{\"name\": \"m\", \"count\": 1, \"requests\": {\"cpu\": 1}}]}"},
      {"\"cohort\": \"ml\"", "\"cohort\": \"ml\", \"colour\": 1", "CH0703", "\"colour\""},
      {"\"count\": 1", "\"count\": -1", "CH0704", "-1"},
      {"[\"default\"]", "[\"default\", \"default\"]", "CH0705", "\"default\""},
      {"\"cluster_queue\": \"team-a\"", "\"cluster_queue\": \"team-x\"", "CH0706", "\"team-x\""},
      {"\"parent\": null", "\"parent\": \"ml\"", "CH0707", "{\"name\": \"ml\", \"parent\": \"ml\"}"},
  };
  for (const Case& c : cases) {
    std::string text = kBase;
    const size_t at = text.find(c.from);
    ASSERT_NE(at, std::string::npos) << c.from;
    text.replace(at, c.from.size(), c.to);
    absl::StatusOr<State> s = LoadState(text);
    ASSERT_FALSE(s.ok()) << c.code;
    std::optional<Diagnostic> d = DiagnosticOf(s.status());
    ASSERT_TRUE(d.has_value()) << s.status();
    EXPECT_EQ(d->code, c.code) << s.status();
    ASSERT_LE(d->span.end, text.size());
    EXPECT_EQ(text.substr(d->span.begin, d->span.end - d->span.begin), c.underlined) << s.status();
  }
}

// Every kind of bad input the issue lists, and the other objects Kueue's
// validation refuses: each error names the object and points at it.
TEST(ScheduleLoad, EachErrorNamesTheObject) {
  EXPECT_EQ(Bad("", ""), "ok");
  // Malformed JSON and wrong shapes.
  EXPECT_EQ(Bad(R"("pending": [)", R"("pending": [,)"), "s.json:3:13: expected a value");
  {
    absl::StatusOr<State> s = LoadState(R"({"resource_flavors": [], "cluster_queues": 3})");
    EXPECT_EQ(std::string(s.status().message()), "state.json:1:44: `cluster_queues` must be an array");
  }
  EXPECT_EQ(Bad(R"("name": "w", )", R"("name": "w", "colour": 1, )"), "s.json:3:27: unknown field `colour` in a pending workload");
  // Unknown queues, cohorts, flavors, priority classes.
  EXPECT_EQ(Bad(R"("cluster_queue": "team-a")", R"("cluster_queue": "team-z")"),
            "s.json:3:44: pending workload `w` names an unknown cluster queue `team-z`");
  EXPECT_EQ(Bad(R"("parent": null)", R"("parent": "org")"), "s.json:1:72: cohort `ml` names an unknown parent cohort `org`");
  EXPECT_EQ(Bad(R"("name": "default", "quotas")", R"("name": "gold", "quotas")"),
            "s.json:2:118: cluster queue `team-a` uses unknown resource flavor `gold` (not in `resource_flavors`)");
  EXPECT_EQ(Bad(R"("cluster_queue": "team-a", )", R"("cluster_queue": "team-a", "priority_class": "urgent", )"),
            "s.json:3:72: pending workload `w` names an unknown priority class `urgent` (none are defined)");
  // Cohort cycles.
  EXPECT_EQ(Bad(R"({"name": "ml", "parent": null})", R"({"name": "ml", "parent": "org"}, {"name": "org", "parent": "ml"})"),
            "s.json:1:47: cohort `ml` is in a cycle of parents: ml -> org -> ml");
  // Negative and malformed quantities.
  EXPECT_EQ(Bad(R"("nominal": 8)", R"("nominal": -8)"),
            "s.json:2:168: the nominal `cpu` quota of flavor `default` of cluster queue `team-a` is negative (-8)");
  EXPECT_EQ(Bad(R"("nominal": 8)", R"("nominal": "8Q")"),
            "s.json:2:168: the nominal `cpu` quota of flavor `default` of cluster queue `team-a` is not a quantity: `8Q`");
  EXPECT_EQ(Bad(R"("count": 1)", R"("count": -2)"), "s.json:3:90: the count of pod set `m` of pending workload `w` is negative");
  EXPECT_EQ(Bad(R"("requests": {"cpu": 1})", R"("requests": {"cpu": "-500m"})"),
            "s.json:3:113: the `cpu` request of pod set `m` of pending workload `w` is negative (-500m)");
  // Quantities beyond 64 bits together (issue 15: a count of 10^18
  // saturated silently and the cycle then misjudged preemption).
  {
    std::string got = Bad(R"("count": 1)", R"("count": 1000000000000000000)");
    EXPECT_NE(got.find("pod set `m` of pending workload `w` asks for 1000000000000000000 pods of 1 `cpu` each: "
                       "more than 2^63-1 in all"), std::string::npos) << got;
    EXPECT_EQ(got.rfind("s.json:3:", 0), 0u) << got;
  }
  EXPECT_NE(Bad(R"("nominal": 8)", R"("nominal": 8, "borrowing_limit": 9223372036854775)")
                .find("the nominal quota and the borrowing limit add up to more than 2^63-1"),
            std::string::npos);
  // Limits: a lending limit above the nominal quota, and limits where
  // Kueue allows none.
  EXPECT_EQ(Bad(R"({"nominal": 8})", R"({"nominal": 8, "lending_limit": 9})"),
            "s.json:2:188: the lending limit in the `cpu` quota of flavor `default` of cluster queue `team-a` (9) is above its "
            "nominal quota (8)");
  EXPECT_EQ(Bad(R"("cohort": "ml", )", "").find("ok"), 0u);
  {
    std::string text = kBase;
    text.replace(text.find(R"("cohort": "ml", )"), 16, "");
    text.replace(text.find(R"({"nominal": 8})"), 14, R"({"nominal": 8, "borrowing_limit": 2})");
    LoadOptions options;
    options.source_name = "s.json";
    absl::StatusOr<State> s = LoadState(text, options);
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(std::string(s.status().message()),
              "s.json:2:174: the borrowing limit in the `cpu` quota of flavor `default` of cluster queue `team-a` needs a "
              "cohort: Kueue allows borrowing and lending limits only in a cluster queue of a cohort");
  }
  EXPECT_EQ(Bad(R"({"name": "ml", "parent": null})",
                R"({"name": "ml", "parent": null, "resource_groups": [{"covered_resources": ["cpu"], "flavors": [{"name": "default", )"
                R"("quotas": {"cpu": {"nominal": 4, "lending_limit": 1}}}]}]})"),
            "s.json:1:211: the lending limit in the `cpu` quota of flavor `default` of cohort `ml` needs a parent cohort: "
            "Kueue allows borrowing and lending limits only in a cohort with a parent");
  // Resource groups.
  EXPECT_EQ(Bad(R"("covered_resources": ["cpu"])", R"("covered_resources": ["cpu", "memory"])"),
            "s.json:2:158: flavor `default` of cluster queue `team-a` has no quota for covered resource `memory`");
  EXPECT_EQ(Bad(R"("quotas": {"cpu": {"nominal": 8}})", R"("quotas": {"cpu": {"nominal": 8}, "gpu": 1})"),
            "s.json:2:172: flavor `default` of cluster queue `team-a` has a quota for `gpu`, which its resource group does "
            "not cover");
  // Policies Kueue refuses.
  EXPECT_EQ(Bad(R"("cohort": "ml", )", R"("cohort": "ml", "preemption": {"borrow_within_cohort": {"policy": "LowerPriority"}}, )"),
            "s.json:2:69: cluster queue `team-a` sets `borrow_within_cohort` while `reclaim_within_cohort` is Never (Kueue "
            "refuses this combination)");
  EXPECT_EQ(Bad(R"("cohort": "ml", )", R"("cohort": "ml", "flavor_fungibility": {"preference": "PreemptionOverBorrowing"}, )"),
            "s.json:2:92: `preference` of cluster queue `team-a` needs `when_can_borrow` and `when_can_preempt` both "
            "`TryNextFlavor` (Kueue refuses it otherwise)");
  EXPECT_EQ(Bad(R"("cohort": "ml", )", R"("cohort": "ml", "queueing_strategy": "LIFO", )"),
            "s.json:2:76: the queueing strategy of cluster queue `team-a` is `BestEffortFIFO` or `StrictFIFO`, not `LIFO`");
  EXPECT_EQ(Bad(R"("name": "team-a")", R"("name": "team-a", "fair_weight": -1)"),
            "s.json:2:54: the fair weight of cluster queue `team-a` is negative");
  // A count that is an integer too large for one is told so (issue 15: 1e30
  // "must be an integer"); a fraction is not an integer.
  EXPECT_EQ(Bad(R"("count": 1)", R"("count": 1e30)"),
            "s.json:3:90: the count of pod set `m` of pending workload `w` is too large (1e30): integers range from "
            "-2^63 to 2^63-1");
  EXPECT_EQ(Bad(R"("count": 1)", R"("count": -1e30)"),
            "s.json:3:90: the count of pod set `m` of pending workload `w` is too small (-1e30): integers range from "
            "-2^63 to 2^63-1");
  EXPECT_EQ(Bad(R"("count": 1)", R"("count": 1.5)"),
            "s.json:3:90: the count of pod set `m` of pending workload `w` must be an integer");
  // `engine.feature_gates` is informational: an object, or a string as
  // other tools write it (issue 15); nothing else.
  EXPECT_EQ(Bad(R"("pending": [)", R"("engine": {"feature_gates": {"TopologyAwareScheduling": true}}, "pending": [)"), "ok");
  EXPECT_EQ(Bad(R"("pending": [)", R"("engine": {"feature_gates": "PartialAdmission=true,LendingLimit=true"}, "pending": [)"),
            "ok");
  EXPECT_EQ(Bad(R"("pending": [)", R"("engine": {"feature_gates": 3}, "pending": [)"),
            "s.json:3:29: `feature_gates` must be an object or a string");
  // Duplicates.
  EXPECT_EQ(Bad(R"({"name": "ml", "parent": null})", R"({"name": "ml", "parent": null}, {"name": "ml", "parent": null})"),
            "s.json:1:79: cohort `ml` is listed twice");
  EXPECT_EQ(Bad(R"("pending": [)", R"("pending": [{"name": "w", "cluster_queue": "team-a", "pod_sets": [{"name": "m"}]},)"),
            "s.json:3:83: workload `w` is listed twice");
}

TEST(ScheduleQuantity, Exact) {
  using internal::schedule::ParseQuantity;
  using internal::schedule::QuantityError;
  int64_t v = 0;
  EXPECT_EQ(ParseQuantity("8", true, &v), QuantityError::kOk);
  EXPECT_EQ(v, 8000);
  EXPECT_EQ(ParseQuantity("500m", true, &v), QuantityError::kOk);
  EXPECT_EQ(v, 500);
  EXPECT_EQ(ParseQuantity("1.5", false, &v), QuantityError::kOk);
  EXPECT_EQ(v, 2);  // rounded up, as Kueue's Value()
  EXPECT_EQ(ParseQuantity("16Gi", false, &v), QuantityError::kOk);
  EXPECT_EQ(v, int64_t{16} << 30);
  EXPECT_EQ(ParseQuantity("1e3", false, &v), QuantityError::kOk);
  EXPECT_EQ(v, 1000);
  EXPECT_EQ(ParseQuantity("2k", false, &v), QuantityError::kOk);
  EXPECT_EQ(v, 2000);
  EXPECT_EQ(ParseQuantity("1n", true, &v), QuantityError::kOk);
  EXPECT_EQ(v, 1);
  EXPECT_EQ(ParseQuantity("1E", false, &v), QuantityError::kOk);  // exa, 10^18
  EXPECT_EQ(v, 1'000'000'000'000'000'000);
  EXPECT_EQ(ParseQuantity("9.2E", false, &v), QuantityError::kOk);
  EXPECT_EQ(v, 9'200'000'000'000'000'000);
  EXPECT_EQ(ParseQuantity("9.3E", false, &v), QuantityError::kTooLarge);  // above INT64_MAX
  EXPECT_EQ(ParseQuantity("1E", true, &v), QuantityError::kTooLarge);     // 10^21 milli-units
  EXPECT_EQ(ParseQuantity("1E2", false, &v), QuantityError::kOk);         // still an exponent
  EXPECT_EQ(v, 100);
  EXPECT_EQ(ParseQuantity("1e", false, &v), QuantityError::kMalformed);
  EXPECT_EQ(ParseQuantity("-1", false, &v), QuantityError::kNegative);
  EXPECT_EQ(ParseQuantity("9Ei", true, &v), QuantityError::kTooLarge);
  EXPECT_EQ(ParseQuantity("1e100000", false, &v), QuantityError::kTooLarge);
  EXPECT_EQ(ParseQuantity("", false, &v), QuantityError::kMalformed);
  EXPECT_EQ(ParseQuantity("1Ki2", false, &v), QuantityError::kMalformed);
  EXPECT_EQ(internal::schedule::FormatQuantity(1500, true), "1500m");
  EXPECT_EQ(internal::schedule::FormatQuantity(int64_t{16} << 30, false), "16Gi");
}

}  // namespace
}  // namespace charter::schedule
