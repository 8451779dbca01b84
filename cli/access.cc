// `charter access`: who may do what through one connection.
//
//   charter access (--bundle B | --policies P) --entities E [--schema S]
//                  --connection UID [--at DATE] [--format text|json|dot|svg]
//
// Every principal in the store that each action of each layer allows on what
// the connection reaches, with the determining policies and the memberships
// that grant it, then the findings (charter/governance.h, ReviewAccess). Without
// --schema the standard model (stdlib/governance.cedarschema) is used.
// Exits 0, or 1 on any error with nothing on stdout.
#include <ctime>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "charter/charter.h"
#include "charter/governance.h"
#include "charter/schema.h"
#include "access_picture.h"
#include "command.h"
#include "load.h"
#include "report.h"

namespace charter::cli {
namespace {

struct AccessFlags {
  PolicySource source;
  std::string entities;
  std::vector<std::string> schemas;
  std::string connection;
  std::string at;
  std::string format = "text";
};

}  // namespace

absl::StatusOr<Schema> StandardSchema() {
  SourceFile source{std::string(kStandardGovernanceSchemaName), std::string(StandardGovernanceSchemaText())};
  return Schema::Parse(source, {}, nullptr);
}

std::string TodayUtc() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

namespace {

int RunAccess(AccessFlags flags) {
  if (flags.at.empty()) flags.at = TodayUtc();
  absl::StatusOr<Schema> schema = flags.schemas.empty() ? StandardSchema() : LoadSchemas(flags.schemas);
  if (!schema.ok()) return Fail(schema.status());
  absl::StatusOr<EntityUid> connection = ParseConnectionUid(flags.connection);
  absl::StatusOr<int64_t> at = ParseReviewDate(flags.at);
  absl::StatusOr<Engine> engine = LoadEngine(flags.source);
  absl::StatusOr<Entities> entities = LoadEntities(flags.entities, &*schema);
  bool failed = false;
  if (!connection.ok()) {
    PrintError(absl::StrCat("--connection: ", connection.status().message()));
    failed = true;
  }
  if (!at.ok()) {
    PrintError(absl::StrCat("--at: ", at.status().message()));
    failed = true;
  }
  for (const absl::Status& s : {engine.status(), entities.status()}) {
    if (!s.ok()) {
      Fail(s);
      failed = true;
    }
  }
  if (failed) return kError;
  AccessOptions options;
  options.at = flags.at;
  absl::StatusOr<AccessReport> report = ReviewAccess(*engine, *entities, *schema, *connection, options);
  if (!report.ok()) {
    PrintError(WithPath(flags.entities, OneLine(report.status().message())));
    return kError;
  }
  if (flags.format == "svg") return WriteStdout(AccessSvg(*report)) ? kOk : kError;
  std::string out = flags.format == "json" ? report->ToJson() : flags.format == "dot" ? report->ToDot()
                                                                                      : report->ToText();
  return WriteStdout(Printable(out, /*keep_newlines=*/true)) ? kOk : kError;
}

}  // namespace

Command AddAccessCommand(CLI::App& root) {
  auto flags = std::make_shared<AccessFlags>();
  CLI::App* app = root.add_subcommand(
      "access", "Review who may do what through one connection, and what the model finds suspicious");
  app->footer("Exit status: 0, or 1 on any error.");
  AddPolicySourceOptions(app, &flags->source);
  app->add_option("--entities", flags->entities, "Entities in Cedar's JSON format")->type_name("FILE")->required();
  AddSchemaOption(app, &flags->schemas,
                  "Schema the entities conform to (default: the standard model, stdlib/governance.cedarschema)");
  app->add_option("--connection", flags->connection, "The connection: Governance::Connection::\"ID\" or ID")
      ->type_name("UID")
      ->required();
  app->add_option("--at", flags->at, "The date of the requests' context.now (YYYY-MM-DD; default: today, UTC)")
      ->type_name("DATE");
  app->add_option("--format", flags->format,
                  "Output: text (default), json, dot (a Graphviz graph) or svg (a picture with a legend)")
      ->type_name("FORMAT")
      ->check(OneOf({"text", "json", "dot", "svg"}));
  app->callback([flags] { RequirePolicySource(flags->source); });
  return Command{app, [flags] { return RunAccess(*flags); }};
}

}  // namespace charter::cli
