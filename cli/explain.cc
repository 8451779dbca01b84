// `charter explain`: why one request gets its decision.
//
//   charter explain --policies P... --entities E --request-json R [--template-linked L]
//                   [--format text|json]
//
// Prints the decision, then every policy whose scope matches the request
// with the clause and sub-conditions that decided it, underlined in the
// source with the values they saw (text; coloured on a terminal), or the
// same as one JSON object. Exits 0 on allow, 2 on deny, 1 on any error
// (with nothing on stdout), like `charter authorize` on one request.
#include <unistd.h>

#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "charter/charter.h"
#include "command.h"
#include "files.h"
#include "load.h"
#include "report.h"

namespace charter::cli {
namespace {

struct ExplainFlags {
  std::vector<std::string> policies;
  std::string links;
  std::string entities;
  std::string request_json;
  std::string format = "text";
};

bool ColorOnStdout() {
  const char* term = std::getenv("TERM");
  return isatty(STDOUT_FILENO) == 1 && std::getenv("NO_COLOR") == nullptr &&
         (term == nullptr || std::string(term) != "dumb");
}

int RunExplain(const ExplainFlags& flags) {
  // Every input is loaded, so that all faults are reported at once. The
  // policies are compiled too: whatever `authorize` refuses, explain refuses.
  CompileOptions options;
  absl::StatusOr<std::vector<SourceFile>> sources = ReadPolicyFiles(flags.policies, options.max_source_bytes);
  absl::StatusOr<std::vector<TemplateLink>> links =
      LoadTemplateLinks(flags.links, options.max_source_bytes);
  absl::Status policies_status = !sources.ok() ? sources.status() : links.status();
  if (policies_status.ok()) {
    // The text explained is the text compiled: one read of each file.
    policies_status = CompilePolicySources(*sources, *links, options).status();
  }
  absl::StatusOr<Entities> entities = LoadEntities(flags.entities);
  absl::StatusOr<Request> request = LoadRequest(flags.request_json);
  bool failed = false;
  for (const absl::Status& s : {policies_status, entities.status(), request.status()}) {
    if (!s.ok()) {
      Fail(s);
      failed = true;
    }
  }
  if (failed) return kError;
  ExplainOptions explain_options;
  explain_options.compile = options;
  absl::StatusOr<Explanation> why = Explain(*sources, *links, *request, *entities, explain_options);
  if (!why.ok()) {
    // (Faults in the text were reported by the compile above; what is left
    // names its own place.)
    PrintError(sources->size() == 1 ? WithPath((*sources)[0].name(), OneLine(why.status().message()))
                                    : OneLine(why.status().message()));
    return kError;
  }
  std::string out = flags.format == "json" ? why->ToJson() + "\n" : why->ToText(*sources, ColorOnStdout());
  if (!WriteStdout(out)) return kError;
  return why->decision.allowed ? kAllow : kDeny;
}

}  // namespace

Command AddExplainCommand(CLI::App& root) {
  auto flags = std::make_shared<ExplainFlags>();
  CLI::App* app = root.add_subcommand(
      "explain", "Explain why a request is allowed or denied, policy by policy");
  app->footer("Exit status: 0 allow, 2 deny, 1 on any error.");
  AddPoliciesOption(app, &flags->policies)->required();
  app->add_option("--template-linked", flags->links,
                  "Template links: [{\"template_id\", \"link_id\", \"args\": {...}}]")
      ->type_name("FILE");
  app->add_option("--entities", flags->entities, "Entities in Cedar's JSON format")
      ->type_name("FILE")
      ->required();
  app->add_option("--request-json", flags->request_json, "The request (a JSON object)")
      ->type_name("FILE")
      ->required();
  app->add_option("--format", flags->format,
                  "Output: text (default; coloured on a terminal) or json (one object)")
      ->type_name("FORMAT")
      ->check(OneOf({"text", "json"}));
  return Command{app, [flags] { return RunExplain(*flags); }};
}

}  // namespace charter::cli
