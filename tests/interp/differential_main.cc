// The VM against the reference interpreter: reads generated cases (one JSON
// object a line, from tests/interp/gen_cases.js) and decides every request of
// every case with both, comparing the decision, the determining policies (in
// order) and the erring policies with their messages.
//
//   node tests/interp/gen_cases.js --seed S --count N | interp_differential [-|FILE]
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
#include "interp/interp.h"
#include "json/json.h"

namespace charter {
namespace {

std::string Describe(const Decision& d) { return d.ToJson(); }

bool SameDecision(const Decision& a, const Decision& b) {
  if (a.allowed != b.allowed || a.reasons != b.reasons || a.errors.size() != b.errors.size()) {
    return false;
  }
  for (size_t i = 0; i < a.errors.size(); ++i) {
    if (a.errors[i].policy_id != b.errors[i].policy_id || a.errors[i].message != b.errors[i].message) {
      return false;
    }
  }
  return true;
}

struct Totals {
  size_t cases = 0, requests = 0, evaluations = 0, rejected = 0;
  size_t allow = 0, deny = 0, forbidden = 0, errors = 0;
  size_t mismatches = 0;
};

void Report(Totals* t, const std::string& what) {
  ++t->mismatches;
  if (t->mismatches <= 20) std::cout << "MISMATCH " << what << "\n";
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
  SourceFile source("policies.cedar", field("policies"));
  absl::StatusOr<Bundle> bundle = Compile(source, links, {}, nullptr);
  absl::StatusOr<std::unique_ptr<internal::interp::PolicySet>> set =
      internal::interp::ReadPolicySet(source, links, {}, nullptr);
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
            << " policy errors; " << t.mismatches << " disagreements\n";
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
