// `charter authorize`: decide one request (--request-json) or a batch
// (--requests) against a policy set (--policies or --bundle) and entities.
//
//   charter authorize --policies P --entities E --request-json R [--format text|json]
//   charter authorize --bundle B  --entities E --requests RS [--format text|jsonl|json]
//
// One request exits 0 on allow, 2 on deny; a batch exits 0 once every
// request is decided. Any error exits 1 and prints nothing on stdout.
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "charter/charter.h"
#include "command.h"
#include "charter/schema.h"
#include "files.h"
#include "load.h"
#include "report.h"

namespace charter::cli {
namespace {

struct AuthorizeFlags {
  PolicySource source;
  std::string entities;
  std::string request_json;
  std::string requests;
  std::string format = "text";
  std::vector<std::string> schemas;  // --schema: validate the entities and requests against it
};

// One line of batch text output:
//   ALLOW User::"alice" Action::"viewTask" Task::"t1"  reasons: a, b  errors: p: message; q: message
std::string TextLine(const Request& request, const Decision& decision) {
  std::string line = absl::StrCat(decision.allowed ? "ALLOW" : "DENY ", " ",
                                  request.principal().ToString(), " ",
                                  request.action().ToString(), " ",
                                  request.resource().ToString());
  if (!decision.reasons.empty()) {
    absl::StrAppend(&line, "  reasons: ",
                    absl::StrJoin(decision.reasons, ", ", [](std::string* out, const std::string& id) {
                      absl::StrAppend(out, Printable(id));
                    }));
  }
  if (!decision.errors.empty()) {
    absl::StrAppend(&line, "  errors: ",
                    absl::StrJoin(decision.errors, "; ", [](std::string* out, const PolicyError& e) {
                      absl::StrAppend(out, Printable(e.policy_id), ": ", Printable(OneLine(e.message)));
                    }));
  }
  line.push_back('\n');
  return line;
}

// `source`, the policy text the engine was compiled from (with --policies),
// gives each evaluation error its line and column: in the JSON formats, and
// in the text format's warnings.
int RunSingle(const AuthorizeFlags& flags, const Engine& engine, const SourceFile* source,
              const Entities& entities, const Request& request) {
  Decision decision = engine.Authorize(request, entities);
  std::string out;
  if (flags.format == "text") {
    out = decision.allowed ? "ALLOW\n" : "DENY\n";
  } else {  // json, jsonl: one object on one line
    out = decision.ToJsonWithPositions(source) + "\n";
  }
  if (!WriteStdout(out)) return kError;
  if (flags.format == "text") {
    // The text answer has no room for them, and a skipped policy may be
    // why the answer is what it is.
    // With the policy text at hand, each says where it failed, as a
    // diagnostic would: "policies.cedar:163:8: policy `p` was skipped: ...".
    for (const PolicyError& e : decision.errors) {
      std::string where;
      if (source != nullptr && e.span.end > e.span.begin) {
        SourceFile::Position p = source->PositionOf(e.span.begin);
        where = absl::StrCat(source->name(), ":", p.line, ":", p.column, ": ");
      }
      PrintWarning(absl::StrCat(where, "policy `", Printable(e.policy_id), "` was skipped: ",
                                OneLine(e.message)));
    }
  }
  return decision.allowed ? kAllow : kDeny;
}

int RunBatch(const AuthorizeFlags& flags, const Engine& engine, const SourceFile* source,
             const Entities& entities, const std::vector<Request>& requests) {
  // Decide everything first, then write once: no partial output.
  std::string out;
  if (flags.format == "json") out.push_back('[');
  for (size_t i = 0; i < requests.size(); ++i) {
    Decision decision = engine.Authorize(requests[i], entities);
    if (flags.format == "text") {
      out += TextLine(requests[i], decision);
    } else if (flags.format == "jsonl") {
      absl::StrAppend(&out, decision.ToJsonWithPositions(source), "\n");
    } else {
      absl::StrAppend(&out, i == 0 ? "" : ",", decision.ToJsonWithPositions(source));
    }
  }
  if (flags.format == "json") out += "]\n";
  return WriteStdout(out) ? kOk : kError;
}

int RunAuthorize(const AuthorizeFlags& flags) {
  // With a schema, the entities and requests are read for the types it
  // declares and checked against it, as Cedar reads them with a schema.
  std::optional<Schema> schema;
  if (!flags.schemas.empty()) {
    absl::StatusOr<Schema> loaded = LoadSchemas(flags.schemas);
    if (!loaded.ok()) return Fail(loaded.status());  // one diagnostic a line
    schema = *std::move(loaded);
  }
  const Schema* with = schema.has_value() ? &*schema : nullptr;
  // Load every input even after one fails, so that all faults are reported
  // at once.
  std::optional<SourceFile> text;
  absl::StatusOr<Engine> engine = LoadEngine(flags.source, &text);
  absl::StatusOr<Entities> entities = LoadEntities(flags.entities, with);
  std::optional<absl::StatusOr<Request>> request;
  std::optional<absl::StatusOr<std::vector<Request>>> requests;
  absl::Status requests_status;
  if (!flags.request_json.empty()) {
    request = LoadRequest(flags.request_json, with);
    requests_status = request->status();
  } else {
    requests = LoadRequests(flags.requests, with);
    requests_status = requests->status();
  }
  bool failed = false;
  for (const absl::Status& s : {engine.status(), entities.status(), requests_status}) {
    if (!s.ok()) {
      Fail(s);
      failed = true;
    }
  }
  if (failed) return kError;
  switch (engine->FitSchema(schema.has_value() ? &*schema : nullptr)) {
    case Engine::SchemaFit::kUntyped:
    case Engine::SchemaFit::kSame: break;
    case Engine::SchemaFit::kMissing:
      PrintError(WithPath(flags.source.bundle,
                          "the bundle was compiled with a schema: pass it with --schema, so that "
                          "the entities and requests are validated against it"));
      return kError;
    case Engine::SchemaFit::kOther:
      PrintError(WithPath(flags.source.bundle,
                          absl::StrCat("the bundle was compiled with another schema (",
                                       std::string(engine->schema_fingerprint()), "); `",
                                       absl::StrJoin(flags.schemas, "` + `"), "` is ", schema->Fingerprint())));
      return kError;
  }
  const SourceFile* source = text.has_value() ? &*text : nullptr;
  if (request.has_value()) return RunSingle(flags, *engine, source, *entities, **request);
  return RunBatch(flags, *engine, source, *entities, **requests);
}

}  // namespace

Command AddAuthorizeCommand(CLI::App& root) {
  auto flags = std::make_shared<AuthorizeFlags>();
  CLI::App* app = root.add_subcommand(
      "authorize", "Decide requests against a policy set and entities");
  app->footer(
      "Exit status: 0 allow, 2 deny (one request); 0 when every request was decided (a batch); "
      "1 on any error.");

  AddPolicySourceOptions(app, &flags->source);
  AddSchemaOption(app, &flags->schemas,
                  "Schema (Cedar schema text or JSON) to check the entities and requests against");
  app->add_option("--entities", flags->entities, "Entities in Cedar's JSON format")
      ->type_name("FILE")
      ->required();
  CLI::Option* one =
      app->add_option("--request-json", flags->request_json, "One request (a JSON object)")
          ->type_name("FILE");
  CLI::Option* many =
      app->add_option("--requests", flags->requests, "A batch of requests (a JSON array)")
          ->type_name("FILE");
  one->excludes(many);
  app->add_option("--format", flags->format,
                  "Output: text (default); json, one object (an array for --requests); "
                  "jsonl, one object a line")
      ->type_name("FORMAT")
      ->check(OneOf({"text", "json", "jsonl"}));

  // Checked while parsing, so that they are reported like CLI11's own errors.
  app->callback([flags] {
    RequirePolicySource(flags->source);
    if (flags->request_json.empty() && flags->requests.empty()) {
      throw CLI::RequiredError("--request-json or --requests");
    }
  });
  return Command{app, [flags] { return RunAuthorize(*flags); }};
}

}  // namespace charter::cli
