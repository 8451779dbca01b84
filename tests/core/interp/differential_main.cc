// The VM against the reference interpreter: reads generated cases (one JSON
// object a line, from tests/core/interp/gen_cases.js) and decides every request of
// every case with both, comparing the decision, the determining policies (in
// order) and the erring policies with their messages and, where both know
// it, the span of the failing expression.
//
//   node tests/core/interp/gen_cases.js --seed S --count N | interp_differential [-|FILE]
//
// A case with a "schema" (gen_cases.js --typed) is also decided by typed code:
// its policies that validate against the schema are compiled with it and
// without it, and every request of its conforming data must get the same
// decision, determining policies and errors (with their messages) from both.
//
// Prints each disagreement (at most 20 in full), then a summary line; exits
// 1 on any disagreement or unreadable input. A case that the compiler
// rejects must be rejected by the interpreter's reader too, with the same
// message.
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "charter/charter.h"
#include "charter/schema.h"
#include "interp/interp.h"
#include "json/json.h"
#include "syntax/parser.h"

namespace charter {
namespace {

std::string Describe(const Decision& d) { return d.ToJsonWithPositions(); }

bool Known(const Span& s) { return s.begin != 0 || s.end != 0; }

bool SameDecision(const Decision& a, const Decision& b) {
  if (a.allowed != b.allowed || a.reasons != b.reasons || a.errors.size() != b.errors.size()) {
    return false;
  }
  for (size_t i = 0; i < a.errors.size(); ++i) {
    const PolicyError &x = a.errors[i], &y = b.errors[i];
    if (x.policy_id != y.policy_id || x.message != y.message) return false;
    if (Known(x.span) && Known(y.span) && (x.span.begin != y.span.begin || x.span.end != y.span.end)) {
      return false;
    }
  }
  return true;
}

struct Totals {
  size_t cases = 0, requests = 0, evaluations = 0, rejected = 0;
  size_t typed_seen = 0, typed_cases = 0, typed_policies = 0, typed_requests = 0, typed_skipped = 0;
  size_t allow = 0, deny = 0, forbidden = 0, errors = 0;
  size_t mismatches = 0;
};

void Report(Totals* t, const std::string& what) {
  ++t->mismatches;
  if (t->mismatches <= 20) std::cout << "MISMATCH " << what << "\n";
}

// The typed check of one case (see the file comment).
void RunTyped(const std::string& schema_text, const std::string& policies,
              const std::string& entities_json, const std::string& requests_json,
              const std::string& where, Totals* t) {
  SourceFile schema_source("schema.json", schema_text);
  absl::StatusOr<Schema> schema = Schema::Parse(schema_source, {}, nullptr);
  absl::StatusOr<Entities> entities = Entities::FromJson(entities_json);
  absl::StatusOr<std::vector<Request>> requests = Request::ArrayFromJson(requests_json);
  if (!schema.ok() || !entities.ok() || !requests.ok() || !ValidateEntities(*schema, *entities).ok()) {
    // The inferred schema or the data made to conform is not accepted:
    // counted, and the whole run fails if no case is left to compare.
    ++t->typed_skipped;
    return;
  }
  // The policies that validate, each with the text before it (annotations).
  SourceFile source("policies.cedar", policies);
  Diagnostics parse;
  internal::ast::PolicySet set = internal::ParsePolicySet(source, {}, &parse);
  if (!parse.empty()) return;
  std::string kept;
  uint32_t from = 0;
  for (const internal::ast::Policy& p : set.policies) {
    std::string text = policies.substr(from, p.span.end - from);
    from = p.span.end;
    Diagnostics d;
    if (Validate(*schema, SourceFile("one.cedar", text), {}, &d).ok()) {
      kept += text + "\n";
      ++t->typed_policies;
    }
  }
  if (kept.empty()) return;
  SourceFile kept_source("typed.cedar", kept);
  CompileOptions typed_options;
  typed_options.schema = &*schema;
  Diagnostics d;
  absl::StatusOr<Bundle> typed = Compile(kept_source, typed_options, &d);
  absl::StatusOr<Bundle> untyped = Compile(kept_source, {}, nullptr);
  if (!typed.ok() || !untyped.ok()) {
    Report(t, where + ": validated policies do not compile typed: " + typed.status().ToString() +
                  " / " + untyped.status().ToString() + "\n" + d.Render(kept_source));
    return;
  }
  absl::StatusOr<Engine> typed_engine = Engine::Create(*std::move(typed));
  absl::StatusOr<Engine> untyped_engine = Engine::Create(*std::move(untyped));
  if (!typed_engine.ok() || !untyped_engine.ok()) {
    Report(t, where + ": typed bundle does not verify: " + typed_engine.status().ToString());
    return;
  }
  ++t->typed_cases;
  for (size_t i = 0; i < requests->size(); ++i) {
    const Request& r = (*requests)[i];
    if (!ValidateRequest(*schema, r).ok()) continue;
    Decision a = typed_engine->Authorize(r, *entities);
    Decision b = untyped_engine->Authorize(r, *entities);
    ++t->typed_requests;
    if (!SameDecision(a, b)) {
      Report(t, where + " typed, request " + std::to_string(i) + ":\n  typed:   " + Describe(a) +
                    "\n  untyped: " + Describe(b));
    }
  }
}

// One case; returns false when the line cannot be read at all.
bool RunCase(std::string_view line, Totals* t) {
  absl::StatusOr<internal::json::Document> doc = internal::json::Parse(line);
  if (!doc.ok() || !doc->root().is_object()) {
    std::cerr << "interp_differential: unreadable case line: " << doc.status() << "\n";
    return false;
  }
  auto field = [&](std::string_view key) -> std::string {
    const internal::json::Value* v = doc->root().Find(key);
    return v != nullptr && v->is_string() ? std::string(v->as_string()) : std::string();
  };
  std::string name = field("name");
  std::string where = "case " + name + " (node tests/oracle/gen.js --seed " +
                      name.substr(0, name.find('/')) + " --index " +
                      name.substr(name.find('/') + 1) + " --features all --out DIR)";
  ++t->cases;
  std::vector<TemplateLink> links;
  if (std::string text = field("links"); !text.empty()) {
    absl::StatusOr<std::vector<TemplateLink>> parsed = ParseTemplateLinks(text);
    if (!parsed.ok()) {
      Report(t, where + ": unreadable links: " + std::string(parsed.status().message()));
      return true;
    }
    links = *std::move(parsed);
  }
  if (std::string schema = field("schema"); !schema.empty()) {
    ++t->typed_seen;
    RunTyped(schema, field("policies"), field("typed_entities"), field("typed_requests"), where, t);
  }
  SourceFile source("policies.cedar", field("policies"));
  absl::StatusOr<Bundle> bundle = Compile(source, links, {}, nullptr);
  absl::StatusOr<std::unique_ptr<internal::PolicySet>> set =
      internal::ReadLinkedPolicySet(source, links, {}, nullptr);
  if (!bundle.ok() || !set.ok()) {
    ++t->rejected;
    if (bundle.ok() || set.ok() || bundle.status().message() != set.status().message()) {
      Report(t, where + ": compiler says `" + bundle.status().ToString() + "`, interpreter says `" +
                    set.status().ToString() + "`");
    }
    return true;
  }
  absl::StatusOr<Engine> engine = Engine::Create(*std::move(bundle));
  absl::StatusOr<Entities> entities = Entities::FromJson(field("entities"));
  absl::StatusOr<std::vector<Request>> requests = Request::ArrayFromJson(field("requests"));
  for (const absl::Status& s : {engine.status(), entities.status(), requests.status()}) {
    if (!s.ok()) {
      Report(t, where + ": " + s.ToString());
      return true;
    }
  }
  for (size_t i = 0; i < requests->size(); ++i) {
    const Request& r = (*requests)[i];
    Decision vm = engine->Authorize(r, *entities);
    Decision interp = internal::interp::Authorize(**set, r, *entities);
    ++t->requests;
    t->evaluations += (*set)->instances.size();
    (vm.allowed ? t->allow : t->deny) += 1;
    if (!vm.allowed && !vm.reasons.empty()) ++t->forbidden;
    t->errors += vm.errors.size();
    if (!SameDecision(vm, interp)) {
      Report(t, where + ", request " + std::to_string(i) + ":\n  vm:          " + Describe(vm) +
                    "\n  interpreter: " + Describe(interp));
    }
  }
  return true;
}

int Main(int argc, char** argv) {
  if (argc > 2) {
    std::cerr << "usage: interp_differential [-|FILE]  (cases as JSON lines)\n";
    return 2;
  }
  std::ifstream file;
  std::istream* in = &std::cin;
  if (argc == 2 && std::string(argv[1]) != "-") {
    file.open(argv[1], std::ios::binary);
    if (!file) {
      std::cerr << "interp_differential: cannot read " << argv[1] << "\n";
      return 1;
    }
    in = &file;
  }
  Totals t;
  std::string line;
  bool ok = true;
  while (std::getline(*in, line)) {
    if (line.empty()) continue;
    ok = RunCase(line, &t) && ok;
  }
  if (t.mismatches > 20) std::cout << "... and " << (t.mismatches - 20) << " more\n";
  std::cout << t.cases << " cases (" << t.rejected << " rejected by both), " << t.requests
            << " requests, " << t.evaluations << " policy evaluations; " << t.allow << " allow, "
            << t.deny << " deny (" << t.forbidden << " by a forbid), " << t.errors
            << " policy errors; typed code: " << t.typed_cases << " cases, " << t.typed_policies
            << " policies, " << t.typed_requests << " requests (" << t.typed_skipped
            << " cases skipped); " << t.mismatches << " disagreements\n";
  if (t.typed_seen > 0 && t.typed_requests == 0) {
    std::cerr << "interp_differential: no request was decided by typed code\n";
    return 1;
  }
  if (t.cases == 0 || t.requests == 0) {
    // Nothing compared is not agreement: a generator that makes only
    // rejected cases or empty batches must fail the test.
    std::cerr << "interp_differential: no request was decided by both\n";
    return 1;
  }
  return ok && t.mismatches == 0 ? 0 : 1;
}

}  // namespace
}  // namespace charter

int main(int argc, char** argv) { return charter::Main(argc, argv); }
