// CheckImplements: a queue that `implements` an entity agrees with it
// (CH0810): every attribute of the standard model's Allocation in both
// directions, the positions on both sides, what is not checked, and the
// governance example's queues against its entities.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "charter/charter.h"
#include "charter/schedule.h"
#include "gtest/gtest.h"

namespace charter::schedule {
namespace {

struct Found {
  size_t count = 0;
  std::vector<std::string> lines;  // "LINE:COL message | help", one a fault
};

Found Check(const std::string& charter, const std::string& entities) {
  std::vector<SourceFile> sources{SourceFile("cluster.charter", charter)};
  SourceFile json("allocations.json", entities);
  std::vector<Diagnostics> diagnostics;
  absl::StatusOr<size_t> n = CheckImplements(sources, {}, json, &diagnostics);
  EXPECT_TRUE(n.ok()) << n.status();
  Found found;
  if (!n.ok()) return found;
  found.count = *n;
  EXPECT_EQ(diagnostics.size(), 1u);
  for (const Diagnostic& d : diagnostics[0].items()) {
    EXPECT_EQ(d.code, "CH0810");
    EXPECT_EQ(d.severity, Severity::kError);
    SourceFile::Position p = sources[0].PositionOf(d.span.begin);
    found.lines.push_back(std::to_string(p.line) + ":" + std::to_string(p.column) + " " + d.message + " | " + d.help);
  }
  EXPECT_EQ(found.lines.size(), found.count);
  return found;
}

// One queue in a cohort with a GPU quota; QUOTA and SETTINGS are spliced in.
std::string Queue(const std::string& quota, const std::string& settings = "", const std::string& cohort = "cohort: c;") {
  return "cohort c;\nflavor a;\nflavor b;\nqueue q {\n  " + cohort + "\n  implements: Governance::Allocation::\"x\";\n" +
         settings + "  resources \"nvidia.com/gpu\" {\n    flavor a { \"nvidia.com/gpu\": " + quota + "; }\n  }\n}\n";
}

std::string Allocation(const std::string& attrs) {
  return "[\n  {\"uid\": {\"type\": \"Governance::Allocation\", \"id\": \"x\"},\n   \"attrs\": {" + attrs +
         "}, \"parents\": []}\n]\n";
}

TEST(CheckImplements, AnAgreeingQueueHasNoFault) {
  Found f = Check(Queue("8 borrow 4", "  fair_weight: 20;\n"),
                  Allocation("\"gpus\": 8, \"borrowLimitGpus\": 4, \"lendsIdle\": true, \"fairShareWeight\": 20"));
  EXPECT_EQ(f.count, 0u);
  // No borrowLimitGpus: it borrows none; lendsIdle false: `lend 0`.
  f = Check(Queue("8 borrow 0 lend 0"), Allocation("\"gpus\": 8, \"lendsIdle\": false"));
  EXPECT_EQ(f.count, 0u);
}

TEST(CheckImplements, GpusAreTheNominalQuotasSummedOverFlavors) {
  const std::string two_flavors =
      "cohort c;\nflavor a;\nflavor b;\nqueue q {\n  cohort: c;\n  implements: Governance::Allocation::\"x\";\n"
      "  resources \"nvidia.com/gpu\" {\n    flavor a { \"nvidia.com/gpu\": 8 borrow 0; }\n"
      "    flavor b { \"nvidia.com/gpu\": 4 borrow 0; }\n  }\n}\n";
  EXPECT_EQ(Check(two_flavors, Allocation("\"gpus\": 12")).count, 0u);
  Found f = Check(two_flavors, Allocation("\"gpus\": 16"));
  ASSERT_EQ(f.count, 1u);
  EXPECT_EQ(f.lines[0],
            "8:34 cluster queue `q` guarantees 12 GPUs (`nvidia.com/gpu` in flavor `a`, `nvidia.com/gpu` in flavor `b`) "
            "where `Governance::Allocation::\"x\"` (allocations.json:2:3) says 16 (`gpus`) | its `gpus` is at "
            "allocations.json:3:14; make the queue and the entity agree");
}

TEST(CheckImplements, AQueueWithoutGpuQuota) {
  const std::string cpu_only =
      "flavor a;\nqueue q {\n  implements: Governance::Allocation::\"x\";\n  resources cpu { flavor a { cpu: 8; } }\n}\n";
  Found f = Check(cpu_only, Allocation("\"gpus\": 8"));
  ASSERT_EQ(f.count, 1u);
  EXPECT_NE(f.lines[0].find("2:1 cluster queue `q` has no GPU quota"), std::string::npos) << f.lines[0];
  // Zero GPUs agree with no GPU quota; other resource names count as GPUs.
  EXPECT_EQ(Check(cpu_only, Allocation("\"gpus\": 0")).count, 0u);
  const std::string slurm =
      "flavor a;\nqueue q {\n  implements: Governance::Allocation::\"x\";\n"
      "  resources \"gres/gpu\" { flavor a { \"gres/gpu\": 8; } }\n}\n";
  EXPECT_EQ(Check(slurm, Allocation("\"gpus\": 8")).count, 0u);
}

TEST(CheckImplements, BorrowingInBothDirections) {
  // The entity borrows none (no attribute); the queue may borrow 4.
  Found f = Check(Queue("8 borrow 4"), Allocation("\"gpus\": 8"));
  ASSERT_EQ(f.count, 1u);
  EXPECT_NE(f.lines[0].find("may borrow 4 GPUs"), std::string::npos) << f.lines[0];
  EXPECT_NE(f.lines[0].find("has no `borrowLimitGpus`: it borrows none"), std::string::npos) << f.lines[0];
  EXPECT_NE(f.lines[0].find("| the entity is at allocations.json:2:3"), std::string::npos) << f.lines[0];
  // A quota without `borrow`, in a cohort, borrows without limit.
  f = Check(Queue("8"), Allocation("\"gpus\": 8, \"borrowLimitGpus\": 4"));
  ASSERT_EQ(f.count, 1u);
  EXPECT_NE(f.lines[0].find("may borrow any number of GPUs"), std::string::npos) << f.lines[0];
  // Without a cohort, a queue borrows nothing.
  f = Check(Queue("8", "", ""), Allocation("\"gpus\": 8, \"borrowLimitGpus\": 4"));
  ASSERT_EQ(f.count, 1u);
  EXPECT_NE(f.lines[0].find("may borrow 0 GPUs (it is in no cohort)"), std::string::npos) << f.lines[0];
  EXPECT_EQ(Check(Queue("8", "", ""), Allocation("\"gpus\": 8")).count, 0u);
}

TEST(CheckImplements, LendingInBothDirections) {
  Found f = Check(Queue("8 borrow 0"), Allocation("\"gpus\": 8, \"lendsIdle\": false"));
  ASSERT_EQ(f.count, 1u);
  EXPECT_NE(f.lines[0].find("lends its idle GPUs to its cohort"), std::string::npos) << f.lines[0];
  f = Check(Queue("8 borrow 0 lend 0"), Allocation("\"gpus\": 8, \"lendsIdle\": true"));
  ASSERT_EQ(f.count, 1u);
  EXPECT_NE(f.lines[0].find("8:45 cluster queue `q` lends none of its GPUs (`lend 0`)"), std::string::npos)
      << f.lines[0];
  // Lending part of the quota is lending.
  EXPECT_EQ(Check(Queue("8 borrow 0 lend 2"), Allocation("\"gpus\": 8, \"lendsIdle\": true")).count, 0u);
}

TEST(CheckImplements, FairShareWeightIsTheFairWeight) {
  Found f = Check(Queue("8 borrow 0"), Allocation("\"gpus\": 8, \"fairShareWeight\": 50"));
  ASSERT_EQ(f.count, 1u);
  EXPECT_NE(f.lines[0].find("4:1 cluster queue `q` has fair weight 1 (the default)"), std::string::npos)
      << f.lines[0];
  f = Check(Queue("8 borrow 0", "  fair_weight: 40;\n"), Allocation("\"gpus\": 8, \"fairShareWeight\": 50"));
  ASSERT_EQ(f.count, 1u);
  EXPECT_NE(f.lines[0].find("7:16 cluster queue `q` has fair weight 40 where"), std::string::npos) << f.lines[0];
}

TEST(CheckImplements, AnEntityThatIsNotThereIsAFault) {
  Found f = Check(Queue("8"), "[]");
  ASSERT_EQ(f.count, 1u);
  EXPECT_EQ(f.lines[0],
            "6:15 cluster queue `q` implements `Governance::Allocation::\"x\"`, which allocations.json does not have | "
            "add the entity to allocations.json, or name one it has");
  // An entity without `gpus` is not an Allocation of the standard model,
  // and is not compared; the __entity form of a uid is read.
  EXPECT_EQ(Check(Queue("8"), "[{\"uid\": {\"__entity\": {\"type\": \"Governance::Allocation\", \"id\": \"x\"}}, "
                              "\"attrs\": {}, \"parents\": []}]")
                .count,
            0u);
}

TEST(CheckImplements, WhatIsNotChecked) {
  // Declarations with faults of their own: CompileDeclarations reports them.
  std::vector<SourceFile> sources{SourceFile("bad.charter", "queue q { cohort: nowhere; }\n")};
  std::vector<Diagnostics> diagnostics;
  absl::StatusOr<size_t> n = CheckImplements(sources, {}, SourceFile("e.json", "[]"), &diagnostics);
  ASSERT_TRUE(n.ok()) << n.status();
  EXPECT_EQ(*n, 0u);
  EXPECT_FALSE(diagnostics[0].has_errors());
  // Entities that are not an array, or not JSON, are an error named by file.
  n = CheckImplements(sources, {}, SourceFile("e.json", "{}"), &diagnostics);
  EXPECT_EQ(n.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(n.status().message().find("e.json:1:1"), std::string::npos) << n.status();
  n = CheckImplements(sources, {}, SourceFile("e.json", "[\n,"), &diagnostics);
  EXPECT_EQ(n.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(n.status().message().rfind("e.json:2:1", 0), 0u) << n.status();
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(CheckImplements, TheGovernanceExampleAgrees) {
  const std::string charter = ReadText("examples/governance/scheduling.charter");
  const std::string entities = ReadText("examples/governance/entities.json");
  ASSERT_FALSE(charter.empty()) << "run from the repository root";
  std::vector<SourceFile> sources{SourceFile("scheduling.charter", charter)};
  std::vector<Diagnostics> diagnostics;
  absl::StatusOr<size_t> n = CheckImplements(sources, {}, SourceFile("entities.json", entities), &diagnostics);
  ASSERT_TRUE(n.ok()) << n.status();
  EXPECT_EQ(*n, 0u) << diagnostics[0].Render(sources[0]);
  // ... and would not with the old quotas (16 borrow 16 everywhere).
  std::string old = charter;
  for (size_t at = old.find("32 borrow 16;"); at != std::string::npos; at = old.find("32 borrow 16;")) {
    old.replace(at, 13, "16 borrow 16;");
  }
  sources = {SourceFile("scheduling.charter", old)};
  diagnostics.clear();
  n = CheckImplements(sources, {}, SourceFile("entities.json", entities), &diagnostics);
  ASSERT_TRUE(n.ok()) << n.status();
  EXPECT_EQ(*n, 1u) << diagnostics[0].Render(sources[0]);
}

}  // namespace
}  // namespace charter::schedule
