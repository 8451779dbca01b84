// The checks of the whole scheduling configuration (language/whole.cc):
// nominal quotas above a flavor's declared capacity (CH0811), borrowing
// limits above what a cohort tree can lend (CH0812), mixed units in a tree
// (CH0813), lending limits nobody can borrow from (CH0814), each with its
// severity, message, exact position and the other places in its help; the
// `capacity` clause through print and the bundle; and every shipped
// .charter file free of them.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "charter/charter.h"
#include "charter/schedule.h"
#include "gtest/gtest.h"

namespace charter::schedule {
namespace {

// One diagnostic: "CODE LINE:COL `UNDERLINED`" (W for a warning).
struct Found {
  std::vector<std::string> faults;
  std::vector<std::string> messages;
  std::vector<std::string> helps;
};

Found Check(const std::string& text) {
  std::vector<SourceFile> sources{SourceFile("cluster.charter", text)};
  std::vector<Diagnostics> diagnostics;
  (void)CompileDeclarations(sources, {}, &diagnostics);
  Found found;
  for (const Diagnostic& d : diagnostics[0].items()) {
    SourceFile::Position p = sources[0].PositionOf(d.span.begin);
    found.faults.push_back(std::string(d.severity == Severity::kWarning ? "W " : "E ") + d.code + " " +
                           std::to_string(p.line) + ":" + std::to_string(p.column) + " `" +
                           text.substr(d.span.begin, d.span.end - d.span.begin) + "`");
    found.messages.push_back(d.message);
    found.helps.push_back(d.help);
  }
  return found;
}

using Faults = std::vector<std::string>;

// --- CH0811: capacity --------------------------------------------------------

const char kCapacity[] = R"(flavor p5 {
  capacity { "nvidia.com/gpu": 16; cpu: 192; }
}
cohort org;
queue a { cohort: org; resources "nvidia.com/gpu", cpu { flavor p5 { "nvidia.com/gpu": 12; cpu: 96; } } }
queue b { cohort: org; resources "nvidia.com/gpu", cpu { flavor p5 { "nvidia.com/gpu": 8; cpu: 96; } } }
)";

TEST(CheckWhole, NominalQuotasAboveTheCapacity) {
  Found f = Check(kCapacity);
  ASSERT_EQ(f.faults, (Faults{"E CH0811 2:32 `16`"}));
  EXPECT_EQ(f.messages[0],
            "the nominal quotas of `nvidia.com/gpu` in flavor `p5` add up to 20, more than the flavor's capacity (16)");
  EXPECT_EQ(f.helps[0],
            "the quotas: cluster queue `a` 12 (line 5), cluster queue `b` 8 (line 6); Kueue would admit workloads "
            "its nodes cannot hold");
}

TEST(CheckWhole, CapacityCountsEveryTreeAndCohortQuotas) {
  // A lone queue and a cohort's own quota draw on the same nodes.
  Found f = Check(R"(flavor f { capacity { cpu: 10; } }
cohort org { resources cpu { flavor f { cpu: 4; } } }
queue a { cohort: org; resources cpu { flavor f { cpu: 4; } } }
queue lone { resources cpu { flavor f { cpu: 3; } } }
)");
  ASSERT_EQ(f.faults, (Faults{"E CH0811 1:28 `10`"}));
  EXPECT_EQ(f.helps[0],
            "the quotas: cohort `org` 4 (line 2), cluster queue `a` 4 (line 3), cluster queue `lone` 3 (line 4); Kueue "
            "would admit workloads its nodes cannot hold");
  // Exactly full, and a resource without a declared capacity: no fault.
  EXPECT_EQ(Check(R"(flavor f { capacity { cpu: 11; } }
cohort org { resources cpu, memory { flavor f { cpu: 4; memory: 1Ti; } } }
queue a { cohort: org; resources cpu { flavor f { cpu: 4; } } }
queue lone { resources cpu { flavor f { cpu: 3; } } }
)")
                .faults,
            Faults{});
}

TEST(CheckWhole, CapacityIsRead) {
  Found f = Check("flavor f { capacity { cpu: 1; cpu: 2; } }\nflavor g { capacity: 3; }\nflavor h { size: 3; }\n");
  EXPECT_EQ(f.faults, (Faults{"E CH0804 1:31 `cpu`", "E CH0803 2:12 `capacity: 3;`", "E CH0802 3:12 `size`"}));
  f = Check("flavor f { capacity { cpu: lots; memory: -1; } }\n");
  EXPECT_EQ(f.faults, (Faults{"E CH0803 1:28 `lots`", "E CH0801 1:42 `-1`"}));
}

// The clause in the State, through PrintDeclarations and the bundle.
TEST(CheckWhole, AnOverCommitIsAnError) {
  std::vector<SourceFile> sources{SourceFile("cluster.charter", kCapacity)};
  absl::StatusOr<State> s = CompileDeclarations(sources, {}, nullptr);
  EXPECT_FALSE(s.ok());
}

TEST(CheckWhole, CapacityInPrintAndBundle) {
  const std::string text = R"(flavor "p5.48xlarge" { capacity { "nvidia.com/gpu": 64; memory: 2Ti; } }
flavor spot;
queue a { resources "nvidia.com/gpu" { flavor "p5.48xlarge" { "nvidia.com/gpu": 8; } } }
)";
  std::vector<SourceFile> sources{SourceFile("cluster.charter", text)};
  absl::StatusOr<State> s = CompileDeclarations(sources, {}, nullptr);
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ(s->capacities.size(), 2u);
  EXPECT_EQ(s->capacities[0].flavor, 0);
  EXPECT_EQ(s->resources[s->capacities[0].resource], "nvidia.com/gpu");
  EXPECT_EQ(s->capacities[0].amount, 64);
  EXPECT_EQ(s->capacities[1].amount, int64_t{2} << 40);
  const std::string printed = PrintDeclarations(*s, {});
  EXPECT_NE(printed.find("flavor \"p5.48xlarge\" {\n  capacity {\n    \"nvidia.com/gpu\": 64;\n    memory: 2Ti;\n  }\n}\n"
                         "flavor spot;\n"),
            std::string::npos)
      << printed;
  std::vector<SourceFile> again{SourceFile("printed.charter", printed)};
  absl::StatusOr<State> back = CompileDeclarations(again, {}, nullptr);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(PrintDeclarations(*back, {}), printed);
  // The bundle's scheduling section.
  CompileOptions options;
  options.declarations = &Declarations();
  std::vector<Diagnostics> d;
  absl::StatusOr<Bundle> bundle = Compile(sources, {}, options, &d);
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  absl::StatusOr<Engine> engine = Engine::Create(*bundle);
  ASSERT_TRUE(engine.ok()) << engine.status();
  absl::StatusOr<std::optional<State>> config = ReadConfiguration(*engine);
  ASSERT_TRUE(config.ok()) << config.status();
  ASSERT_TRUE(config->has_value());
  EXPECT_EQ(PrintDeclarations(**config, {}), printed);
}

// --- CH0812: borrowing ----------------------------------------------------------

TEST(CheckWhole, BorrowingLimitAboveWhatTheTreeLends) {
  Found f = Check(R"(flavor f;
cohort org;
queue a { cohort: org; resources cpu { flavor f { cpu: 8 borrow 6; } } }
queue b { cohort: org; resources cpu { flavor f { cpu: 8 lend 4; } } }
)");
  ASSERT_EQ(f.faults, (Faults{"W CH0812 3:65 `6`"}));
  EXPECT_EQ(f.messages[0],
            "the borrowing limit in the `cpu` quota of flavor `f` of cluster queue `a` (6) is more than cohort tree "
            "`org` can ever lend it (4)");
  EXPECT_EQ(f.helps[0],
            "the tree's other quotas of it: cluster queue `b` `8 lend 4` (line 4); the limit never binds: write "
            "`borrow 4` or remove it");
  // Up to what can be lent: no fault.
  EXPECT_EQ(Check(R"(flavor f;
cohort org;
queue a { cohort: org; resources cpu { flavor f { cpu: 8 borrow 4; } } }
queue b { cohort: org; resources cpu { flavor f { cpu: 8 lend 4; } } }
)")
                .faults,
            Faults{});
}

TEST(CheckWhole, BorrowingLimitWithNothingToBorrow) {
  Found f = Check(R"(flavor f;
flavor g;
cohort org;
queue a { cohort: org; resources cpu { flavor f { cpu: 8 borrow 2; } } }
queue b { cohort: org; resources cpu { flavor g { cpu: 8; } } }
)");
  ASSERT_EQ(f.faults, (Faults{"W CH0812 4:65 `2`"}));
  EXPECT_EQ(f.messages[0],
            "the borrowing limit in the `cpu` quota of flavor `f` of cluster queue `a` (2) has no effect: nothing in "
            "cohort tree `org` can lend it");
  // `borrow 0` says what it means.
  EXPECT_EQ(Check(R"(flavor f;
cohort org;
queue a { cohort: org; resources cpu { flavor f { cpu: 8 borrow 0; } } }
queue b { cohort: org; resources cpu { flavor f { cpu: 8; } } }
)")
                .faults,
            Faults{});
  // A tree of one queue may have others declared elsewhere (Kueue's cohorts
  // are open): its limits are not judged.
  EXPECT_EQ(Check(R"(flavor f;
cohort org;
queue a { cohort: org; resources cpu { flavor f { cpu: 8 borrow 2 lend 4; } } }
)")
                .faults,
            Faults{});
}

TEST(CheckWhole, BorrowingInAHierarchy) {
  // The root's own quota (10) and a sibling cohort's lendable part (6 of
  // 16) are what `a` can borrow: 16; the cohort `team` in between has a
  // borrowing limit of its own (20, more than the 16 it can get).
  const std::string text = R"(flavor f;
cohort root { resources cpu { flavor f { cpu: 10; } } }
cohort team { parent: root; resources cpu { flavor f { cpu: 0 borrow 20; } } }
cohort other { parent: root; resources cpu { flavor f { cpu: 16 lend 6; } } }
queue a { cohort: team; resources cpu { flavor f { cpu: 4 borrow 17; } } }
queue c { cohort: other; resources cpu { flavor f { cpu: 0; } } }
)";
  Found f = Check(text);
  EXPECT_EQ(f.faults, (Faults{"W CH0812 3:70 `20`", "W CH0812 5:66 `17`"}));
  EXPECT_EQ(f.messages[1],
            "the borrowing limit in the `cpu` quota of flavor `f` of cluster queue `a` (17) is more than cohort tree "
            "`root` can ever lend it (16)");
  EXPECT_EQ(f.messages[0],
            "the borrowing limit in the `cpu` quota of flavor `f` of cohort `team` (20) is more than cohort tree "
            "`root` can ever lend it (16)");
}

// --- CH0813: units --------------------------------------------------------------

TEST(CheckWhole, MixedUnitsInACohort) {
  // kubernetes/kubernetes#139677: a device count beside bytes.
  Found f = Check(R"(flavor f;
cohort org;
queue a { cohort: org; resources "gpu.memory" { flavor f { "gpu.memory": 20096Mi; } } }
queue b { cohort: org; resources "gpu.memory" { flavor f { "gpu.memory": 1; } } }
)");
  ASSERT_EQ(f.faults, (Faults{"W CH0813 4:74 `1`"}));
  EXPECT_EQ(f.messages[0],
            "`1` in the `gpu.memory` quota of flavor `f` of cluster queue `b` is written with no suffix where cohort "
            "tree `org` writes `gpu.memory` with binary suffixes (Ki, Mi, Gi, Ti)");
  EXPECT_EQ(f.helps[0],
            "such as `20096Mi` (line 3); a quantity without a suffix counts units (bytes, for memory), so mixed units "
            "let a queue lend or borrow far more or less than meant: write every `gpu.memory` of the tree in one unit");
}

TEST(CheckWhole, UnitsOfLimitsAndTheMajority) {
  // Decimal beside binary, in a limit; the majority is binary.
  Found f = Check(R"(flavor f;
cohort org;
queue a { cohort: org; resources memory { flavor f { memory: 64Gi lend 64G; } } }
queue b { cohort: org; resources memory { flavor f { memory: "32Gi" borrow 0; } } }
)");
  EXPECT_EQ(f.faults, (Faults{"W CH0813 3:72 `64G`"}));
  // One unit, zeros, CPU's millicores, another tree: no fault.
  EXPECT_EQ(Check(R"(flavor f;
cohort org;
cohort other;
queue a { cohort: org; resources cpu, memory { flavor f { cpu: 500m; memory: 64Gi borrow 0; } } }
queue b { cohort: org; resources cpu, memory { flavor f { cpu: 8; memory: 0; } } }
queue c { cohort: other; resources memory { flavor f { memory: 1000; } } }
)")
                .faults,
            Faults{});
}

TEST(CheckWhole, MilliOfMemory) {
  Found f = Check("flavor f;\nqueue a { resources memory { flavor f { memory: 500m; } } }\n");
  ASSERT_EQ(f.faults, (Faults{"W CH0813 2:49 `500m`"}));
  EXPECT_EQ(f.messages[0],
            "`500m` in the `memory` quota of flavor `f` of cluster queue `a` counts thousandths: Kubernetes' `m` is "
            "milli, not mega");
}

// --- CH0814: lending ------------------------------------------------------------

TEST(CheckWhole, LendingToNoOne) {
  Found f = Check(R"(flavor f;
flavor g;
cohort org;
queue a { cohort: org; resources cpu { flavor f { cpu: 8 lend 4; } } }
queue b { cohort: org; resources cpu { flavor g { cpu: 8; } } }
)");
  ASSERT_EQ(f.faults, (Faults{"W CH0814 4:63 `4`"}));
  EXPECT_EQ(f.messages[0],
            "the lending limit in the `cpu` quota of flavor `f` of cluster queue `a` has no effect: no other queue of "
            "cohort tree `org` has `cpu` in flavor `f` to borrow it");
  // With fair sharing the limit changes the borrowers' shares: no fault.
  EXPECT_EQ(Check(R"(scheduler { fair_sharing: true; }
flavor f;
flavor g;
cohort org;
queue a { cohort: org; resources cpu { flavor f { cpu: 8 lend 4; } } }
queue b { cohort: org; resources cpu { flavor g { cpu: 8; } } }
)")
                .faults,
            Faults{});
  // `lend 0`, and a borrower with a zero quota: no fault.
  EXPECT_EQ(Check(R"(flavor f;
cohort org;
queue a { cohort: org; resources cpu { flavor f { cpu: 8 lend 0; } } }
queue b { cohort: org; resources cpu { flavor f { cpu: 8 lend 2; } } }
queue c { cohort: org; resources cpu { flavor f { cpu: 0; } } }
)")
                .faults,
            Faults{});
}

TEST(CheckWhole, WhatKueueRefusesIsReportedOnce) {
  // Kueue's own rules (CH0807, CH0808) stop the declarations; the checks of
  // the whole do not run over them.
  EXPECT_EQ(Check("flavor f;\nqueue a { resources cpu { flavor f { cpu: 8 borrow 1; } } }\n").faults,
            (Faults{"E CH0808 2:45 `borrow 1`"}));
  EXPECT_EQ(Check("flavor f;\ncohort c;\nqueue a { cohort: c; resources cpu { flavor f { cpu: 8 lend 9; } } }\n")
                .faults,
            (Faults{"E CH0807 3:56 `lend 9`"}));
}

// Across files: the help names the other file's place.
TEST(CheckWhole, PlacesInOtherFiles) {
  std::vector<SourceFile> sources{
      SourceFile("flavors.charter", "flavor f { capacity { cpu: 4; } }\ncohort org;\n"),
      SourceFile("teams.charter", "queue a { cohort: org; resources cpu { flavor f { cpu: 8; } } }\n")};
  std::vector<Diagnostics> diagnostics;
  (void)CompileDeclarations(sources, {}, &diagnostics);
  ASSERT_EQ(diagnostics[0].size(), 1u);
  EXPECT_EQ(diagnostics[0].items()[0].code, "CH0811");
  EXPECT_EQ(diagnostics[0].items()[0].help,
            "the quotas: cluster queue `a` 8 (teams.charter:1:56); Kueue would admit workloads its nodes cannot hold");
  EXPECT_TRUE(diagnostics[1].empty());
}

// Every .charter file the project ships (examples/) declares a configuration
// no check faults; the formatter's corpus (whose files need not be whole)
// has none of these faults. (docs/ are checked by docs_examples_test, whose
// console sessions would show them.)
TEST(CheckWhole, ShippedFilesAreClean) {
  size_t files = 0;
  for (const char* dir : {"examples", "fuzz/corpus/format"}) {
    const bool shipped = std::string(dir) == "examples";
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
      if (e.path().extension() != ".charter") continue;
      std::ifstream in(e.path());
      std::stringstream text;
      text << in.rdbuf();
      std::vector<SourceFile> sources{SourceFile(e.path().string(), text.str())};
      std::vector<Diagnostics> diagnostics;
      (void)CompileDeclarations(sources, {}, &diagnostics);
      for (const Diagnostic& d : diagnostics[0].items()) {
        const bool whole = d.code == "CH0811" || d.code == "CH0812" || d.code == "CH0813" || d.code == "CH0814";
        if (shipped || whole) ADD_FAILURE() << e.path() << ": " << d.code << " " << d.message;
      }
      files += shipped ? 1 : 0;
    }
  }
  EXPECT_GE(files, 1u);
}

}  // namespace
}  // namespace charter::schedule
