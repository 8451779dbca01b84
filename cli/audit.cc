// `charter audit`: the lifecycle review of every connection contract, and
// `charter audit record`: a review written into a contract.
//
//   charter audit --entities E [--previous OLD] [--at DATE] [--within DAYS]
//                 [--rules R]... [--format text|json] [--fail-on low|medium|high]
//                 [--policies S.charter]...
//   charter audit record --entities E --connection UID --decision keep|revoke
//                 --by MEMBER [--note TEXT] [--at DATE] [--next DATE] [--expect FINGERPRINT]
//
// The entities (and the previous snapshot) are read against the standard
// model, stdlib/governance.cedarschema; the standard rules
// (stdlib/audit.cedar) run first, then each --rules file. With --policies,
// the queues of those .charter files that `implement` the entities'
// Allocations are checked against them (schedule::CheckImplements): a
// queue that disagrees is a CH0810 diagnostic and an error. `audit` exits 0,
// or 3 when --fail-on is given and a finding is at or above it, or 1 on any
// error. `record` replaces the entity file by the new text in one rename:
// on any error the file is as it was.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "charter/charter.h"
#include "charter/files.h"
#include "charter/governance.h"
#include "charter/schedule.h"
#include "charter/schema.h"
#include "command.h"
#include "files.h"
#include "load.h"
#include "report.h"

namespace charter::cli {
namespace {

// `audit --fail-on` found what it was told to fail on.
constexpr int kFindings = 3;

struct AuditFlags {
  std::string entities;
  std::string previous;
  std::string at;
  int64_t within = 30;
  std::vector<std::string> rules;
  std::vector<std::string> policies;  // .charter files whose queues implement the entities
  std::string format = "text";
  std::string fail_on;
};

struct RecordFlags {
  std::string entities;
  std::string connection;
  std::string decision;
  std::string by;
  std::string note;
  std::string at;
  std::string next;
  std::string expect;
};

constexpr size_t kMaxEntitiesBytes = size_t{1} << 30;

int RunAudit(AuditFlags flags) {
  if (flags.at.empty()) flags.at = TodayUtc();
  absl::StatusOr<Schema> schema = StandardSchema();
  if (!schema.ok()) return Fail(schema.status());
  bool failed = false;
  if (absl::StatusOr<int64_t> at = ParseReviewDate(flags.at); !at.ok()) {
    PrintError(absl::StrCat("--at: ", at.status().message()));
    failed = true;
  }
  absl::StatusOr<std::string> text = ReadFile(flags.entities, kMaxEntitiesBytes);
  std::optional<Entities> current;
  if (!text.ok()) {
    Fail(text.status());
    failed = true;
  } else {
    InputStage stage(flags.entities, "loading entities");
    absl::StatusOr<Entities> e = Entities::FromJson(*text, *schema, flags.entities);
    if (!e.ok()) {
      Fail(e.status());
      failed = true;
    } else {
      current.emplace(*std::move(e));
    }
  }
  std::optional<Entities> previous;
  if (!flags.previous.empty()) {
    absl::StatusOr<Entities> p = LoadEntities(flags.previous, &*schema);
    if (!p.ok()) {
      Fail(p.status());
      failed = true;
    } else {
      previous.emplace(*std::move(p));
    }
  }
  std::vector<AuditRules> rule_sets;
  absl::StatusOr<AuditRules> standard = AuditRules::Standard(*schema);
  if (!standard.ok()) return Fail(standard.status());
  rule_sets.push_back(*std::move(standard));
  for (const std::string& path : flags.rules) {
    absl::StatusOr<std::string> rules_text = ReadFile(path, kMaxEntitiesBytes);
    if (!rules_text.ok()) {
      Fail(rules_text.status());
      failed = true;
      continue;
    }
    SourceFile source(path, *std::move(rules_text));
    Diagnostics diagnostics;
    absl::StatusOr<AuditRules> rs = AuditRules::Create(source, *schema, &diagnostics);
    if (!rs.ok()) {
      PrintError(WithPath(path, OneLine(rs.status().message())));
      failed = true;
      continue;
    }
    rule_sets.push_back(*std::move(rs));
  }
  if (failed) return kError;
  std::vector<const AuditRules*> rules;
  for (const AuditRules& r : rule_sets) rules.push_back(&r);
  AuditOptions options;
  options.at = flags.at;
  options.within_days = flags.within;
  options.entities_name = flags.entities;
  options.entities_fingerprint = ContentFingerprint(*text);
  options.previous_name = flags.previous;
  absl::StatusOr<AuditReport> report =
      Audit(*schema, *current, previous ? &*previous : nullptr, rules, options);
  if (!report.ok()) return Fail(report.status());
  std::string out = flags.format == "json" ? report->ToJson() : report->ToText();
  if (!WriteStdout(Printable(out, /*keep_newlines=*/true))) return kError;
  // The queues that implement the entities' Allocations must agree with
  // them, as `charter check --entities` checks (CH0810).
  const SourceFile entities(flags.entities, *text);
  const bool color = isatty(STDERR_FILENO) != 0 && getenv("NO_COLOR") == nullptr;
  absl::StatusOr<std::vector<std::string>> paths =
      flags.policies.empty() ? std::vector<std::string>{} : ExpandPolicyPaths(flags.policies, /*files_apart=*/true);
  if (!paths.ok()) return Fail(paths.status());
  for (const std::string& path : *paths) {
    const CompileOptions compile = WithDeclarations({});
    absl::StatusOr<std::string> policy_text = ReadInput(path, compile.max_source_bytes);
    if (!policy_text.ok()) {
      Fail(policy_text.status());
      failed = true;
      continue;
    }
    std::vector<SourceFile> sources{SourceFile(InputName(path), *std::move(policy_text))};
    std::vector<Diagnostics> diagnostics;
    absl::StatusOr<schedule::State> declared = schedule::CompileDeclarations(sources, compile, &diagnostics);
    if (declared.ok()) {
      diagnostics.clear();
      absl::StatusOr<size_t> faults = schedule::CheckImplements(sources, compile, entities, &diagnostics);
      if (!faults.ok()) {
        Fail(faults.status());
        failed = true;
        continue;
      }
    }
    if (!diagnostics.empty() && diagnostics[0].has_errors()) {
      std::fflush(stdout);
      std::string rendered = diagnostics[0].Render(sources[0], color);
      std::fwrite(rendered.data(), 1, rendered.size(), stderr);
      PrintError(absl::StrCat(InputName(path), ": the queues do not agree with ", flags.entities));
      failed = true;
    }
  }
  if (failed) return kError;
  return !flags.fail_on.empty() && report->AnyAtLeast(flags.fail_on) ? kFindings : kOk;
}

int RunRecord(RecordFlags flags) {
  if (flags.at.empty()) flags.at = TodayUtc();
  absl::StatusOr<Schema> schema = StandardSchema();
  if (!schema.ok()) return Fail(schema.status());
  bool failed = false;
  absl::StatusOr<EntityUid> connection = ParseConnectionUid(flags.connection);
  if (!connection.ok()) {
    PrintError(absl::StrCat("--connection: ", connection.status().message()));
    failed = true;
  }
  absl::StatusOr<EntityUid> by = ParseConnectionUid(flags.by, "Governance::Member");
  if (!by.ok()) {
    PrintError(absl::StrCat("--by: ", by.status().message()));
    failed = true;
  }
  for (const auto& [flag, value] : {std::pair<const char*, const std::string*>{"--at", &flags.at}, {"--next", &flags.next}}) {
    if (value->empty()) continue;
    if (absl::StatusOr<int64_t> d = ParseReviewDate(*value); !d.ok()) {
      PrintError(absl::StrCat(flag, ": ", d.status().message()));
      failed = true;
    }
  }
  absl::StatusOr<std::string> text = ReadFile(flags.entities, kMaxEntitiesBytes);
  if (!text.ok()) {
    Fail(text.status());
    failed = true;
  }
  if (failed) return kError;
  if (!flags.expect.empty() && ContentFingerprint(*text) != flags.expect) {
    PrintError(absl::StrCat(flags.entities, ": the file changed since it was audited (", flags.expect, "); it is now ",
                            ContentFingerprint(*text), ": audit it again"));
    return kError;
  }
  ReviewRecord record{*connection, flags.decision, *by, flags.note, flags.at, flags.next};
  absl::StatusOr<std::string> updated = RecordReview(*text, flags.entities, *schema, record);
  if (!updated.ok()) {
    PrintError(OneLine(updated.status().message()));
    return kError;
  }
  // The file must still be what was read: another writer meanwhile loses
  // nothing, this review is refused instead.
  absl::StatusOr<std::string> again = ReadFile(flags.entities, kMaxEntitiesBytes);
  if (!again.ok() || *again != *text) {
    PrintError(absl::StrCat(flags.entities, ": the file changed while the review was being recorded; nothing written"));
    return kError;
  }
  if (absl::Status s = WriteFileAtomically(flags.entities, *updated); !s.ok()) return Fail(s);
  std::string done = absl::StrCat("recorded ", flags.decision, " of ", connection->id, " by ", by->id, " on ", flags.at,
                                  flags.decision == "keep" && !flags.next.empty() ? ", next review " + flags.next : "",
                                  " in ", flags.entities, "\n");
  return WriteStdout(Printable(done, true)) ? kOk : kError;
}

}  // namespace

Command AddAuditCommand(CLI::App& root) {
  auto flags = std::make_shared<AuditFlags>();
  auto record = std::make_shared<RecordFlags>();
  CLI::App* app = root.add_subcommand("audit", "Review every connection contract: reviews due, owners, changes, revocations");
  app->footer(
      "Exit status: 0, 3 when --fail-on finds a finding at or above its severity, 1 on any error.\n"
      "Run `charter audit record --help` to write a review into a contract.");
  app->add_option("--entities", flags->entities, "Entities in Cedar's JSON format (the standard model)")
      ->type_name("FILE");
  app->add_option("--previous", flags->previous, "An older snapshot of the entities: report what changed since")
      ->type_name("FILE");
  app->add_option("--at", flags->at, "Today, for the audit (YYYY-MM-DD; default: today, UTC)")->type_name("DATE");
  app->add_option("--within", flags->within, "Report reviews due within this many days (default 30)")
      ->type_name("DAYS")
      ->check(WholeNumber(0, 36500));
  app->add_option("--rules", flags->rules, "More audit rules (Cedar forbids with @id, @severity, @message)")
      ->type_name("FILE");
  app->add_option("--format", flags->format, "Output: text (default) or json")
      ->type_name("FORMAT")
      ->check(OneOf({"text", "json"}));
  app->add_option("--fail-on", flags->fail_on, "Exit 3 when a finding is at or above this severity")
      ->type_name("SEVERITY")
      ->check(OneOf({"low", "medium", "high"}));
  app->add_option("--policies", flags->policies,
                  ".charter file (or a directory of them, or - for standard input) whose queues implement the "
                  "entities' Allocations: each must agree with its Allocation, as `charter check --entities` "
                  "checks; give it again for more")
      ->type_name("FILE")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);

  CLI::App* rec = app->add_subcommand("record", "Write a review into a connection's contract in the entity file");
  rec->footer("Exit status: 0, or 1 on any error (the file is then untouched).");
  rec->add_option("--entities", record->entities, "The entity file to write the review into")
      ->type_name("FILE")
      ->required();
  rec->add_option("--connection", record->connection, "The connection: Governance::Connection::\"ID\" or ID")
      ->type_name("UID")
      ->required();
  rec->add_option("--decision", record->decision, "keep, or revoke (nothing goes through it since)")
      ->type_name("DECISION")
      ->required()
      ->check(OneOf({"keep", "revoke"}));
  rec->add_option("--by", record->by, "The member who reviewed it: Governance::Member::\"ID\" or ID")
      ->type_name("MEMBER")
      ->required();
  rec->add_option("--note", record->note, "Why")->type_name("TEXT");
  rec->add_option("--at", record->at, "The review's date (YYYY-MM-DD; default: today, UTC)")->type_name("DATE");
  rec->add_option("--next", record->next, "keep: the next review's date (default: a year later)")->type_name("DATE");
  rec->add_option("--expect", record->expect,
                  "Refuse unless the file's fingerprint is this one (what `charter audit` printed)")
      ->type_name("FINGERPRINT");
  app->callback([flags, rec] {
    if (!rec->parsed() && flags->entities.empty()) throw CLI::RequiredError("--entities");
  });
  return Command{app, [flags, record, rec] { return rec->parsed() ? RunRecord(*record) : RunAudit(*flags); }};
}

}  // namespace charter::cli
