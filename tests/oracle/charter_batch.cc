// The Charter side of the long conformance campaign: one process answers
// many generated cases through the public API, the same calls
// `charter authorize --requests … --format jsonl` makes, without a process
// start and three files per case (which cost the campaign more than Charter
// itself).
//
// Input, repeated until end of input: a header line
//   case P E R L
// (decimal byte counts) followed by P bytes of policy text, E bytes of
// entity JSON, R bytes of request-array JSON and L bytes of template-link
// JSON (L = 0: no links). Output for each case: `ok N` and N lines, each
// Decision::ToJson() of one request; or one line `error MESSAGE` when any
// input is refused. A malformed header ends the process with status 2.
#include <cstdio>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "charter/charter.h"
#include "charter/compiler.h"
#include "charter/diagnostics.h"
#include "charter/engine.h"
#include "charter/entities.h"
#include "charter/request.h"

namespace {

std::string OneLine(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return text;
}

bool ReadExactly(size_t n, std::string* out) {
  out->resize(n);
  return n == 0 || std::fread(out->data(), 1, n, stdin) == n;
}

// Everything the CLI would print as an error, collapsed to one line.
std::string Answer(const std::string& policies, const std::string& entities_json,
                   const std::string& requests_json, const std::string& links_json) {
  std::vector<charter::TemplateLink> links;
  if (!links_json.empty()) {
    absl::StatusOr<std::vector<charter::TemplateLink>> parsed =
        charter::ParseTemplateLinks(links_json, "links.json");
    if (!parsed.ok()) return "error " + OneLine(std::string(parsed.status().message()));
    links = *std::move(parsed);
  }
  charter::SourceFile source("policies.cedar", policies);
  charter::Diagnostics diagnostics;
  absl::StatusOr<charter::Bundle> bundle =
      charter::Compile(source, links, charter::CompileOptions{}, &diagnostics);
  if (!bundle.ok()) {
    std::string why = diagnostics.items().empty() ? std::string(bundle.status().message())
                                                  : diagnostics.RenderShort(source);
    return "error " + OneLine(why);
  }
  absl::StatusOr<charter::Engine> engine = charter::Engine::Create(*std::move(bundle));
  if (!engine.ok()) return "error bundle does not verify: " + OneLine(std::string(engine.status().message()));
  absl::StatusOr<charter::Entities> entities =
      charter::Entities::FromJson(entities_json, "entities.json");
  if (!entities.ok()) return "error " + OneLine(std::string(entities.status().message()));
  absl::StatusOr<std::vector<charter::Request>> requests =
      charter::Request::ArrayFromJson(requests_json, "requests.json");
  if (!requests.ok()) return "error " + OneLine(std::string(requests.status().message()));
  std::string out = "ok " + std::to_string(requests->size());
  for (const charter::Request& request : *requests) {
    out += '\n';
    out += engine->Authorize(request, *entities).ToJson();
  }
  return out;
}

}  // namespace

int main() {
  char line[256];
  std::string policies, entities, requests, links;
  while (std::fgets(line, sizeof line, stdin) != nullptr) {
    unsigned long p = 0, e = 0, r = 0, l = 0;
    if (std::sscanf(line, "case %lu %lu %lu %lu", &p, &e, &r, &l) != 4) {
      std::fprintf(stderr, "charter_batch: malformed header: %s", line);
      return 2;
    }
    if (!ReadExactly(p, &policies) || !ReadExactly(e, &entities) || !ReadExactly(r, &requests) ||
        !ReadExactly(l, &links)) {
      std::fprintf(stderr, "charter_batch: input ends inside a case\n");
      return 2;
    }
    std::string answer = Answer(policies, entities, requests, links);
    answer += '\n';
    std::fwrite(answer.data(), 1, answer.size(), stdout);
    std::fflush(stdout);
  }
  return 0;
}
