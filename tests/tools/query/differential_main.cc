// Listing and residuals against full evaluation, on generated cases (one JSON
// object a line, from tests/core/interp/gen_cases.js: the conformance generator's
// policy sets, entity stores and requests). For every request of every case
// and for both directions (the resource unknown, then the principal), with
// the candidates being every entity of the unknown's type in the store plus
// the request's own entity on that side:
//
//   - listing: ListAllowed equals Engine::Authorize of each candidate in the
//     store (uids in order, determining policies, errors with messages),
//     whole and a page of one at a time;
//   - residual: Residual::Decide of each candidate equals Engine::Authorize
//     (decision, determining policies, erring policies with messages);
//   - the combined condition: where it evaluates, it is the decision; an
//     `exact` residual always evaluates;
//   - the label selector, where there is one, selects exactly the allowed
//     candidates (their tags as labels);
//   - the residual policy set, printed as Cedar text and as Cedar's JSON
//     policy format and compiled by Charter, decides every candidate as the
//     original set does (decision, reasons, erring policies).
//
//   node tests/core/interp/gen_cases.js --seed S --count N | query_differential [-|FILE]
//
// Prints each disagreement (at most 20 in full) and a summary line; exits 1
// on any disagreement or unreadable input.
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "unwrap/unwrap.h"
#include "charter/charter.h"
#include "charter/query.h"
#include "json/json.h"
#include "json/json_diagnostics.h"
#include "query/label_selector.h"

namespace charter {
namespace {

std::string Describe(const Decision& d) { return d.ToJson(); }

bool SameDecision(const Decision& a, const Decision& b) {
  if (a.allowed != b.allowed || a.reasons != b.reasons || a.errors.size() != b.errors.size()) return false;
  for (size_t i = 0; i < a.errors.size(); ++i) {
    if (a.errors[i].policy_id != b.errors[i].policy_id || a.errors[i].message != b.errors[i].message) return false;
  }
  return true;
}

struct Totals {
  size_t cases = 0, rejected = 0, queries = 0, candidates = 0, allowed = 0, listed = 0;
  size_t depends = 0, exact = 0, undecided = 0, selectors = 0, selector_checks = 0, compiled = 0;
  size_t mismatches = 0;
};

void Report(Totals* t, const std::string& what) {
  ++t->mismatches;
  if (t->mismatches <= 20) std::cout << "MISMATCH " << what << "\n";
}

// The tags of `uid` as labels: strings as themselves, other values as
// values equal to no string.
std::map<std::string, std::optional<std::string>> Labels(const Entities& entities, const EntityUid& uid) {
  std::map<std::string, std::optional<std::string>> labels;
  const internal::EntityStore& store = internal::Unwrap::Store(entities);
  uint32_t u = store.Find(uid.type, uid.id);
  const internal::EntityData* data = u == internal::kNoUid ? nullptr : store.data(u);
  if (data == nullptr) return labels;
  for (uint32_t i = 0; i < data->tags.size; ++i) {
    const internal::Value& v = data->tags.fields[i].value;
    labels[std::string(data->tags.fields[i].key)] =
        v.type == internal::Type::kString ? std::optional<std::string>(std::string(v.string())) : std::nullopt;
  }
  return labels;
}

// The raw JSON text of each request's context ("" when it has none).
std::vector<std::string> Contexts(const std::string& requests_json) {
  std::vector<std::string> out;
  absl::StatusOr<internal::json::Document> doc = internal::json::Parse(requests_json);
  if (!doc.ok() || !doc->root().is_array()) return out;
  for (size_t i = 0; i < doc->root().size(); ++i) {
    const internal::json::Value* c = doc->root().at(i).Find("context");
    if (c == nullptr) {
      out.emplace_back();
      continue;
    }
    Span s = internal::json::ValueSpan(requests_json, *c);
    out.push_back(requests_json.substr(s.begin, s.end - s.begin));
  }
  return out;
}

// The decision of `compiled` (a residual policy set compiled by Charter).
std::optional<Engine> CompileResidual(const std::string& text, const std::string& name) {
  SourceFile source(name, text);
  absl::StatusOr<Bundle> bundle = Compile(source, {}, {}, nullptr);
  if (!bundle.ok()) return std::nullopt;
  absl::StatusOr<Engine> engine = Engine::Create(*std::move(bundle));
  if (!engine.ok()) return std::nullopt;
  return *std::move(engine);
}

void CheckQuery(const std::string& where, const Engine& engine, const PartialEvaluator& pe,
                const Entities& entities, const QueryRequest& query, const EntityUid& own, Totals* t) {
  ++t->queries;
  const std::string& type = query.unknown_type();
  std::vector<EntityUid> candidates;
  for (const EntityUid& u : entities.Uids()) {
    if (u.type == type) candidates.push_back(u);
  }
  size_t stored = candidates.size();
  bool own_stored = false;
  for (const EntityUid& u : candidates) own_stored = own_stored || u == own;
  if (!own_stored) candidates.push_back(own);

  std::vector<Decision> full;
  for (const EntityUid& u : candidates) {
    full.push_back(engine.Authorize(query.With(u), entities));
    t->allowed += full.back().allowed;
  }
  t->candidates += candidates.size();

  // Listing, whole and a page of one at a time.
  ListOptions all;
  all.check_query = false;
  absl::StatusOr<ListPage> page = ListAllowed(engine, query, entities, all);
  if (!page.ok()) {
    Report(t, where + ": ListAllowed failed: " + std::string(page.status().message()));
    return;
  }
  std::vector<QueryMatch> expected;
  for (size_t i = 0; i < stored; ++i) {
    if (full[i].allowed) expected.push_back(QueryMatch{candidates[i], full[i].reasons, full[i].errors});
  }
  auto same_matches = [&](const std::vector<QueryMatch>& got) {
    if (got.size() != expected.size()) return false;
    for (size_t i = 0; i < got.size(); ++i) {
      Decision a{true, got[i].reasons, got[i].errors}, b{true, expected[i].reasons, expected[i].errors};
      if (!(got[i].uid == expected[i].uid) || !SameDecision(a, b)) return false;
    }
    return true;
  };
  if (!same_matches(page->matches) || page->next != 0) {
    Report(t, where + ": the listing differs from authorizing each candidate");
  }
  t->listed += page->matches.size();
  std::vector<QueryMatch> paged;
  ListOptions one = all;
  one.limit = 1;
  for (size_t guard = 0; guard <= stored + 1; ++guard) {
    absl::StatusOr<ListPage> p = ListAllowed(engine, query, entities, one);
    if (!p.ok()) break;
    for (QueryMatch& m : p->matches) paged.push_back(std::move(m));
    if (p->next == 0) break;
    one.start = p->next;
  }
  if (!same_matches(paged)) Report(t, where + ": the listing a page of one at a time differs");

  // The residual.
  ResidualOptions ro;
  ro.check_query = false;
  absl::StatusOr<Residual> r = pe.Evaluate(query, entities, ro);
  if (!r.ok()) {
    Report(t, where + ": Evaluate failed: " + std::string(r.status().message()));
    return;
  }
  if (r->outcome() == Residual::Outcome::kDepends) ++t->depends;
  if (r->exact()) ++t->exact;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const EntityUid& u = candidates[i];
    absl::StatusOr<Decision> d = r->Decide(u);
    if (!d.ok() || !SameDecision(*d, full[i])) {
      Report(t, where + ": the residual decides " + u.ToString() + " as " +
                    (d.ok() ? Describe(*d) : std::string(d.status().message())) + ", not " + Describe(full[i]) +
                    "\n  residual:\n" + r->PoliciesText());
      return;
    }
    absl::StatusOr<std::optional<bool>> holds = r->ConditionHolds(u);
    if (!holds.ok()) {
      Report(t, where + ": ConditionHolds failed");
    } else if (!holds->has_value()) {
      ++t->undecided;
      if (r->exact()) Report(t, where + ": an exact condition failed to evaluate on " + u.ToString() + ": `" + r->condition() + "`");
    } else if (**holds != full[i].allowed) {
      Report(t, where + ": the condition `" + r->condition() + "` is " + (**holds ? "true" : "false") + " on " +
                    u.ToString() + ", whose decision is " + Describe(full[i]));
    }
    bool outcome_ok = r->outcome() == Residual::Outcome::kDepends ||
                      (r->outcome() == Residual::Outcome::kAllow) == full[i].allowed;
    if (!outcome_ok) Report(t, where + ": the outcome disagrees with the decision on " + u.ToString());
  }
  if (const std::optional<std::string>& sel = r->label_selector(); sel.has_value()) {
    ++t->selectors;
    for (size_t i = 0; i < candidates.size(); ++i) {
      ++t->selector_checks;
      if (internal::residual::SelectorMatches(*sel, Labels(entities, candidates[i])) != full[i].allowed) {
        Report(t, where + ": the label selector `" + *sel + "` disagrees on " + candidates[i].ToString());
      }
    }
  }
  // The residual policy set, compiled, as text and as JSON.
  for (const auto& [name, text] : {std::pair<std::string, std::string>{"residual.cedar", r->PoliciesText()},
                                   std::pair<std::string, std::string>{"residual.json", r->PoliciesJson()}}) {
    std::optional<Engine> compiled = CompileResidual(text, name);
    if (!compiled.has_value()) {
      Report(t, where + ": " + name + " does not compile:\n" + text);
      continue;
    }
    ++t->compiled;
    for (size_t i = 0; i < candidates.size(); ++i) {
      Decision d = compiled->Authorize(query.With(candidates[i]), entities);
      if (!SameDecision(d, full[i])) {
        Report(t, where + ": " + name + " decides " + candidates[i].ToString() + " as " + Describe(d) + ", not " +
                      Describe(full[i]) + "\n" + text);
        break;
      }
    }
  }
}

int Run(std::istream& in) {
  Totals t;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    absl::StatusOr<internal::json::Document> doc = internal::json::Parse(line);
    if (!doc.ok()) {
      std::cout << "unreadable case: " << doc.status() << "\n";
      return 1;
    }
    const internal::json::Value& c = doc->root();
    auto field = [&](std::string_view key) {
      const internal::json::Value* v = c.Find(key);
      return v != nullptr && v->is_string() ? std::string(v->as_string()) : std::string();
    };
    std::string name = field("name");
    ++t.cases;
    std::vector<TemplateLink> links;
    if (std::string l = field("links"); !l.empty()) {
      absl::StatusOr<std::vector<TemplateLink>> parsed = ParseTemplateLinks(l, "links.json");
      if (!parsed.ok()) {
        ++t.rejected;
        continue;
      }
      links = *std::move(parsed);
    }
    SourceFile source("policies.cedar", field("policies"));
    absl::StatusOr<Bundle> bundle = Compile(source, links, {}, nullptr);
    absl::StatusOr<PartialEvaluator> pe = PartialEvaluator::Create(source, links);
    absl::StatusOr<Entities> entities = Entities::FromJson(field("entities"));
    std::string requests_json = field("requests");
    absl::StatusOr<std::vector<Request>> requests = Request::ArrayFromJson(requests_json);
    if (!bundle.ok() || !entities.ok() || !requests.ok()) {
      ++t.rejected;
      if (bundle.ok() != pe.ok()) Report(&t, name + ": the compiler and the partial evaluator disagree on reading");
      continue;
    }
    if (!pe.ok()) {
      Report(&t, name + ": PartialEvaluator::Create failed: " + std::string(pe.status().message()));
      continue;
    }
    absl::StatusOr<Engine> engine = Engine::Create(*std::move(bundle));
    if (!engine.ok()) {
      Report(&t, name + ": the bundle does not verify");
      continue;
    }
    std::vector<std::string> contexts = Contexts(requests_json);
    for (size_t i = 0; i < requests->size(); ++i) {
      const Request& q = (*requests)[i];
      std::string context = i < contexts.size() ? contexts[i] : "";
      std::string where = name + " request " + std::to_string(i);
      absl::StatusOr<QueryRequest> by_resource =
          QueryRequest::ForResources(q.principal(), q.action(), q.resource().type, context);
      absl::StatusOr<QueryRequest> by_principal =
          QueryRequest::ForPrincipals(q.principal().type, q.action(), q.resource(), context);
      if (!by_resource.ok() || !by_principal.ok()) {
        Report(&t, where + ": the query is refused: " +
                       std::string((by_resource.ok() ? by_principal : by_resource).status().message()));
        continue;
      }
      CheckQuery(where + " (resource unknown)", *engine, *pe, *entities, *by_resource, q.resource(), &t);
      CheckQuery(where + " (principal unknown)", *engine, *pe, *entities, *by_principal, q.principal(), &t);
    }
  }
  std::cout << "query differential: " << t.cases << " cases (" << t.rejected << " rejected), " << t.queries
            << " queries, " << t.candidates << " candidates (" << t.allowed << " allowed, " << t.listed
            << " listed), " << t.depends << " residuals depending on the unknown, " << t.exact << " exact, "
            << t.undecided << " condition evaluations undecided, " << t.selectors << " label selectors ("
            << t.selector_checks << " checks), " << t.compiled << " residual sets compiled; " << t.mismatches
            << " mismatches\n";
  if (t.queries == 0) {
    std::cout << "no query was checked\n";
    return 1;
  }
  return t.mismatches == 0 ? 0 : 1;
}

}  // namespace
}  // namespace charter

int main(int argc, char** argv) {
  std::string path = argc > 1 ? argv[1] : "-";
  if (path == "-") return charter::Run(std::cin);
  std::ifstream in(path);
  if (!in) {
    std::cerr << "cannot open " << path << "\n";
    return 1;
  }
  return charter::Run(in);
}
