// `charter diff`: which decisions a new policy set (and, optionally, new
// entities) would change. Every request is decided with the old policy set
// and with the new one, and each request whose decision flips, or on which
// a policy newly fails, is reported with both explanations, grouped by the
// policies responsible (those determining or failing on one side only).
//
//   charter diff --old (BUNDLE|POLICIES) --new (BUNDLE|POLICIES) --entities E [--new-entities E2]
//       (--requests R | --decision-log L) [--schema S ...] [--format text|json] [--fail-on-change]
//
// --old and --new each take a bundle (from `charter build`) or policy text;
// a file is read as a bundle when it carries the bundle's identifier.
// --decision-log reads the JSON lines `charter serve --decision-log` writes
// and replays them exactly: each line's `request` over the entities E with
// the line's own `entities` laid over them (Entities::Extend, as the server
// did), and the old side must decide as the line says it was decided. A
// line that cannot be replayed (masked context, no entities, a review that
// did not map, an old side that decides otherwise) is named with the
// reason and counted apart, never as unchanged. Exits 0, or 2 with
// --fail-on-change when a decision changed, a policy newly fails or a line
// was not replayed; 1 on any error.
#include <algorithm>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "charter/charter.h"
#include "charter/json.h"
#include "charter/schema.h"
#include "command.h"
#include "files.h"
#include "load.h"
#include "decision_log.h"
#include "report.h"

namespace charter::cli {
namespace {

inline constexpr int kChanged = 2;

struct DiffFlags {
  std::vector<std::string> old_policies, new_policies;
  std::string entities, new_entities;
  std::string requests, decision_log;
  std::vector<std::string> schemas;
  std::string format = "text";
  bool fail_on_change = false;
};

// A request with where it was read from ("requests.json #3", "log.jsonl:12").
struct Input {
  Input(Request r, std::string w, size_t line = 0) : request(std::move(r)), where(std::move(w)), line_no(line) {}
  Request request;
  std::string where;
  size_t line_no = 0;  // of a decision log's line
  // From a decision log: what the line says was decided, which the old side
  // must decide again.
  bool logged = false;
  bool subject_access_review = false;  // answered allowed, denied or no opinion
  std::string decision;                // "allow", "deny", "no opinion"
  std::vector<std::string> reasons, error_policies;  // sorted
  std::string bundle;
  // The line's entities (a JSON array, a view into the log's text) and the
  // characters before them on the line; empty: none to lay over.
  std::string_view entities;
  size_t entities_column = 0;
};

// A decision-log line that is not decided again, and why.
struct Skipped {
  std::string where, reason;
  size_t line_no = 0;
};

struct Inputs {
  // The decision log's text, which the inputs' views point into (held by
  // pointer, so that moving the Inputs never moves it).
  std::unique_ptr<const std::string> text;
  std::vector<Input> inputs;
  std::vector<Skipped> skipped;
};

// One file read as a bundle when it carries the bundle's file identifier
// ("CHTR" at byte 4), else policy text: files, directories, `-`.
PolicySource SourceOf(const std::vector<std::string>& paths) {
  PolicySource source;
  if (paths.size() == 1 && paths[0] != kStdinPath) {
    std::ifstream in(paths[0], std::ios::binary);
    char head[8] = {};
    if (in.read(head, sizeof head) && std::string_view(head + 4, 4) == "CHTR") {
      source.bundle = paths[0];
      return source;
    }
  }
  source.policies = paths;
  return source;
}

absl::StatusOr<Engine> LoadSide(const std::vector<std::string>& paths, const Schema* schema) {
  const std::string path = absl::StrJoin(paths, " + ");
  PolicySource source = SourceOf(paths);
  absl::StatusOr<Engine> engine = LoadEngine(source);
  if (!engine.ok()) return engine;
  switch (engine->FitSchema(schema)) {
    case Engine::SchemaFit::kUntyped:
    case Engine::SchemaFit::kSame: return engine;
    case Engine::SchemaFit::kMissing:
      return absl::InvalidArgumentError(WithPath(path, "the bundle was compiled with a schema: pass it with --schema"));
    case Engine::SchemaFit::kOther:
      return absl::InvalidArgumentError(WithPath(
          path, absl::StrCat("the bundle was compiled with another schema (", std::string(engine->schema_fingerprint()),
                             "); the --schema file is ", schema->Fingerprint())));
  }
  return engine;
}

// `text` (on one line, after `column` characters of it) padded with spaces
// to where it stands on the line, so that a fault's column is the line's.
std::string Padded(std::string_view text, size_t column) { return std::string(column, ' ') + std::string(text); }

std::string Sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) absl::StrAppend(&out, i ? ", " : "", Printable(v[i]));
  return out;
}

// The requests of a decision log (decision_log.h reads a line): each line's
// `request`, with what the line says was decided and the entities laid
// over the configured ones for it. Faults (a line that is not a log line, a
// request that does not read) at their line and column; a line that cannot
// be decided again as it was is skipped, with the reason.
absl::StatusOr<Inputs> LoadDecisionLog(const std::string& path, const Schema* schema) {
  absl::StatusOr<std::string> text = ReadFile(path, kMaxRequestsBytes);
  if (!text.ok()) return text.status();
  Inputs out;
  out.text = std::make_unique<const std::string>(*std::move(text));
  std::string errors;
  size_t line_no = 0;
  size_t faults = 0;
  std::string_view all = *out.text;
  for (size_t start = 0; start < all.size();) {
    size_t end = all.find('\n', start);
    if (end == std::string_view::npos) end = all.size();
    std::string_view line = all.substr(start, end - start);
    start = end + 1;
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    std::string where = absl::StrCat(path, ":", line_no);
    auto fault = [&](std::string message) {
      if (++faults <= 20) absl::StrAppend(&errors, errors.empty() ? "" : "\n", OneLine(message));
    };
    auto skip = [&](std::string reason) { out.skipped.push_back(Skipped{where, std::move(reason), line_no}); };
    absl::StatusOr<server::LoggedDecision> logged = server::ReadDecisionLogLine(line);
    if (!logged.ok()) {
      fault(OnLine(path, line_no, std::string(logged.status().message())));
      continue;
    }
    if (!logged->mapping_error.empty()) {
      skip(absl::StrCat("the review was not decided: it did not map to a request (",
                        Printable(OneLine(logged->mapping_error)), ")"));
      continue;
    }
    if (!logged->masked.empty()) {
      skip(absl::StrCat("`", Printable(logged->masked.front()),
                        "` is masked in the line (decisionLog.maskContext): its value was not logged"));
      continue;
    }
    if (logged->request_begin == std::string_view::npos) {
      fault(absl::StrCat(path, ":", line_no, ":1: a decision-log line is a JSON object with a `request` object"));
      continue;
    }
    std::string padded = Padded(line.substr(logged->request_begin, logged->request_end - logged->request_begin),
                                CharactersBefore(line, logged->request_begin));
    absl::StatusOr<Request> r = schema != nullptr ? Request::FromJson(padded, *schema, path)
                                                  : Request::FromJson(padded, path);
    if (!r.ok()) {
      fault(OnLine(path, line_no, std::string(r.status().message())));
      continue;
    }
    bool review = logged->endpoint == "admission" || logged->endpoint == "authorization";
    bool sar = logged->endpoint == "authorization";
    if (!logged->decision.has_value()) {
      skip("the line has no `decision`: the old side cannot be checked against it");
      continue;
    }
    const std::string& d = *logged->decision;
    if (d != "allow" && d != "deny" && !(sar && d == "no opinion")) {
      skip(absl::StrCat("the line's `decision` is `", Printable(d), "`, not ",
                        sar ? "allow, deny or no opinion" : "allow or deny"));
      continue;
    }
    if (review && !logged->has_entities) {
      skip("the line does not carry the review's entities (a log written before they were): "
           "its request would be decided over other entities");
      continue;
    }
    if (review && logged->entities_begin == std::string_view::npos) {
      skip("the line's `entities` is null: the review's entities were not logged");
      continue;
    }
    Input input{*std::move(r), where, line_no};
    input.logged = true;
    input.subject_access_review = sar;
    input.decision = d;
    input.reasons = logged->reasons;
    std::sort(input.reasons.begin(), input.reasons.end());
    input.error_policies = logged->error_policies;
    std::sort(input.error_policies.begin(), input.error_policies.end());
    input.bundle = logged->bundle;
    // A line of /v1/authorize has none of its own: "[]".
    std::string_view entities_text;
    if (logged->entities_begin != std::string_view::npos) {
      entities_text = line.substr(logged->entities_begin, logged->entities_end - logged->entities_begin);
    }
    if (!entities_text.empty() && entities_text != "[]") {
      input.entities = entities_text;
      input.entities_column = CharactersBefore(line, logged->entities_begin);
    }
    out.inputs.push_back(std::move(input));
  }
  if (faults > 20) absl::StrAppend(&errors, "\n", path, ": ", faults - 20, " more faulty lines");
  if (!errors.empty()) return absl::InvalidArgumentError(errors);
  return out;
}

absl::StatusOr<Inputs> LoadInputs(const DiffFlags& flags, const Schema* schema) {
  if (!flags.decision_log.empty()) return LoadDecisionLog(flags.decision_log, schema);
  absl::StatusOr<std::vector<Request>> requests = LoadRequests(flags.requests, schema);
  if (!requests.ok()) return requests.status();
  Inputs out;
  out.inputs.reserve(requests->size());
  for (size_t i = 0; i < requests->size(); ++i) {
    out.inputs.emplace_back(std::move((*requests)[i]), absl::StrCat(flags.requests, " #", i + 1));
  }
  return out;
}

// The store a logged request was decided over: `base` with the line's
// entities laid over it, as the server laid them; a fault at its column.
absl::StatusOr<Entities> LaidOver(const Entities& base, const Input& input, const Schema* schema,
                                  const std::string& path, size_t line_no) {
  absl::StatusOr<Entities> laid = schema != nullptr ? base.Extend(input.entities, *schema, path)
                                                    : base.Extend(input.entities, path);
  if (laid.ok()) return laid;
  // Again, where the entities stand on the line, for the fault's column.
  std::string padded = Padded(input.entities, input.entities_column);
  absl::StatusOr<Entities> again = schema != nullptr ? base.Extend(padded, *schema, path) : base.Extend(padded, path);
  const absl::Status& s = again.ok() ? laid.status() : again.status();
  return absl::Status(s.code(), OnLine(path, line_no, std::string(s.message())));
}

// The policies a decision names: determining and failing.
std::vector<std::string> Named(const Decision& d) {
  std::vector<std::string> ids = d.reasons;
  for (const PolicyError& e : d.errors) ids.push_back(e.policy_id);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

struct Change {
  const Input* input;
  Decision old_decision, new_decision;
  server::Outcome old_outcome, new_outcome;
  bool flipped = false;
};

std::string Explain(const Decision& d, server::Outcome outcome) {
  std::string out(server::OutcomeName(outcome));
  if (!d.reasons.empty()) {
    out += "  reasons: ";
    for (size_t i = 0; i < d.reasons.size(); ++i) absl::StrAppend(&out, i > 0 ? ", " : "", Printable(d.reasons[i]));
  }
  if (!d.errors.empty()) {
    out += "  errors: ";
    for (size_t i = 0; i < d.errors.size(); ++i) {
      absl::StrAppend(&out, i > 0 ? "; " : "", Printable(d.errors[i].policy_id), ": ",
                      Printable(OneLine(d.errors[i].message)));
    }
  }
  return out;
}

std::string Transition(const Change& c) {
  if (!c.flipped) return "new error";
  return absl::StrCat(std::string(server::OutcomeName(c.old_outcome)), " -> ",
                      std::string(server::OutcomeName(c.new_outcome)));
}

// Why the old side does not decide a logged request as the line says it
// was decided; empty when it does.
std::string Mismatch(const Input& input, const Decision& old_decision, server::Outcome old_outcome) {
  std::vector<std::string> reasons = old_decision.reasons, errors;
  for (const PolicyError& e : old_decision.errors) errors.push_back(e.policy_id);
  std::sort(reasons.begin(), reasons.end());
  std::sort(errors.begin(), errors.end());
  if (server::OutcomeName(old_outcome) == input.decision && reasons == input.reasons &&
      errors == input.error_policies) {
    return "";
  }
  auto side = [](std::string_view decision, const std::vector<std::string>& r, const std::vector<std::string>& e) {
    std::string out(decision);
    if (!r.empty()) absl::StrAppend(&out, " (", Sorted(r), ")");
    if (!e.empty()) absl::StrAppend(&out, " with errors in ", Sorted(e));
    return out;
  };
  return absl::StrCat("--old decides ", side(server::OutcomeName(old_outcome), reasons, errors),
                      " where the log says ", side(input.decision, input.reasons, input.error_policies),
                      ": --old or --entities is not what the server decided with",
                      input.bundle.empty() ? "" : absl::StrCat(" (bundle ", Printable(input.bundle), ")"));
}

int RunDiff(const DiffFlags& flags) {
  std::optional<Schema> schema;
  if (!flags.schemas.empty()) {
    absl::StatusOr<Schema> loaded = LoadSchemas(flags.schemas);
    if (!loaded.ok()) return Fail(loaded.status());
    schema = *std::move(loaded);
  }
  const Schema* with = schema.has_value() ? &*schema : nullptr;
  bool failed = false;
  auto check = [&](const absl::Status& s) {
    if (!s.ok()) {
      Fail(s);
      failed = true;
    }
  };
  absl::StatusOr<Engine> old_engine = LoadSide(flags.old_policies, with);
  check(old_engine.status());
  absl::StatusOr<Engine> new_engine = LoadSide(flags.new_policies, with);
  check(new_engine.status());
  absl::StatusOr<Entities> old_entities = LoadEntities(flags.entities, with);
  check(old_entities.status());
  std::optional<absl::StatusOr<Entities>> new_entities;
  if (!flags.new_entities.empty()) {
    new_entities = LoadEntities(flags.new_entities, with);
    check(new_entities->status());
  }
  absl::StatusOr<Inputs> loaded = LoadInputs(flags, with);
  check(loaded.status());
  if (failed) return kError;
  const Entities& after = new_entities.has_value() ? **new_entities : *old_entities;
  const std::vector<Input>& inputs = loaded->inputs;
  std::vector<Skipped>& skipped = loaded->skipped;
  // Every request and every line, decided again or not.
  const size_t requests = inputs.size() + skipped.size();

  // One evaluation context a side; a Decision is made only for what is
  // reported, and for a logged request, to check the old side against it.
  EvalContext old_context, new_context;
  std::vector<Change> changes;
  size_t allow_to_deny = 0, deny_to_allow = 0, deny_no_opinion = 0, new_errors = 0;
  std::string errors;
  for (const Input& input : inputs) {
    std::optional<Entities> old_laid, new_laid;
    if (!input.entities.empty()) {
      absl::StatusOr<Entities> o = LaidOver(*old_entities, input, with, flags.decision_log, input.line_no);
      if (!o.ok()) {
        skipped.push_back(Skipped{input.where,
                                  absl::StrCat("the line's entities do not lay over --entities: ",
                                               Printable(OneLine(o.status().message()))),
                                  input.line_no});
        continue;
      }
      old_laid = *std::move(o);
      absl::StatusOr<Entities> n = LaidOver(after, input, with, flags.decision_log, input.line_no);
      if (!n.ok()) {
        skipped.push_back(Skipped{input.where,
                                  absl::StrCat("the line's entities do not lay over --new-entities: ",
                                               Printable(OneLine(n.status().message()))),
                                  input.line_no});
        continue;
      }
      new_laid = *std::move(n);
    }
    const Entities& old_store = old_laid.has_value() ? *old_laid : *old_entities;
    const Entities& new_store = new_laid.has_value() ? *new_laid : after;
    bool o = old_engine->Authorize(input.request, old_store, &old_context);
    std::optional<Decision> old_decision;
    server::Outcome old_outcome = o ? server::Outcome::kAllow : server::Outcome::kDeny;
    if (input.logged) {
      old_decision = old_context.ToDecision();
      old_outcome = server::OutcomeOf(*old_decision, input.subject_access_review);
      if (std::string why = Mismatch(input, *old_decision, old_outcome); !why.empty()) {
        skipped.push_back(Skipped{input.where, std::move(why), input.line_no});
        continue;
      }
    }
    bool n = new_engine->Authorize(input.request, new_store, &new_context);
    bool newly_failing = false;
    for (const PolicyErrorView& e : new_context.errors()) {
      bool before = false;
      for (const PolicyErrorView& x : old_context.errors()) before = before || x.policy_id == e.policy_id;
      newly_failing = newly_failing || !before;
    }
    std::optional<Decision> new_decision;
    server::Outcome new_outcome = n ? server::Outcome::kAllow : server::Outcome::kDeny;
    if (input.subject_access_review && !n) {
      new_decision = new_context.ToDecision();
      new_outcome = server::OutcomeOf(*new_decision, true);
    }
    if (old_outcome == new_outcome && !newly_failing) continue;
    if (!old_decision.has_value()) old_decision = old_context.ToDecision();
    if (!new_decision.has_value()) new_decision = new_context.ToDecision();
    Change c{&input, *std::move(old_decision), *std::move(new_decision), old_outcome, new_outcome,
             old_outcome != new_outcome};
    if (o && !n) ++allow_to_deny;
    if (!o && n) ++deny_to_allow;
    if (!o && !n && c.flipped) ++deny_no_opinion;
    if (newly_failing) ++new_errors;
    changes.push_back(std::move(c));
  }
  // In the log's order.
  std::stable_sort(skipped.begin(), skipped.end(),
                   [](const Skipped& a, const Skipped& b) { return a.line_no < b.line_no; });

  // Grouped by the policies responsible: those named on one side only.
  std::map<std::vector<std::string>, std::vector<const Change*>> groups;
  for (const Change& c : changes) {
    std::vector<std::string> a = Named(c.old_decision), b = Named(c.new_decision), key;
    std::set_symmetric_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(key));
    groups[key].push_back(&c);
  }

  size_t changed = allow_to_deny + deny_to_allow + deny_no_opinion;
  bool log = !flags.decision_log.empty();
  std::string out;
  if (flags.format == "json") {
    absl::StrAppend(&out, "{\"summary\":{\"requests\":", requests, ",\"changed\":", changed,
                    ",\"allowToDeny\":", allow_to_deny, ",\"denyToAllow\":", deny_to_allow,
                    ",\"denyNoOpinion\":", deny_no_opinion, ",\"newErrors\":", new_errors,
                    ",\"notReplayed\":", skipped.size(), "},\"groups\":[");
    bool first_group = true;
    for (const auto& [policies, members] : groups) {
      out += first_group ? "{\"policies\":[" : ",{\"policies\":[";
      first_group = false;
      for (size_t i = 0; i < policies.size(); ++i) {
        if (i > 0) out += ",";
        AppendJsonQuoted(&out, policies[i]);
      }
      out += "],\"changes\":[";
      for (size_t i = 0; i < members.size(); ++i) {
        const Change& c = *members[i];
        out += i > 0 ? ",{\"input\":" : "{\"input\":";
        AppendJsonQuoted(&out, c.input->where);
        out += ",\"principal\":";
        AppendUidJson(&out, c.input->request.principal());
        out += ",\"action\":";
        AppendUidJson(&out, c.input->request.action());
        out += ",\"resource\":";
        AppendUidJson(&out, c.input->request.resource());
        absl::StrAppend(&out, ",\"change\":\"", Transition(c), "\",\"old\":", c.old_decision.ToJson(),
                        ",\"new\":", c.new_decision.ToJson(), "}");
      }
      out += "]}";
    }
    out += "],\"notReplayed\":[";
    for (size_t i = 0; i < skipped.size(); ++i) {
      out += i > 0 ? ",{\"input\":" : "{\"input\":";
      AppendJsonQuoted(&out, skipped[i].where);
      out += ",\"reason\":";
      AppendJsonQuoted(&out, skipped[i].reason);
      out += "}";
    }
    out += "]}\n";
  } else {
    absl::StrAppend(&out, requests, " requests: ", changed, " changed (", allow_to_deny, " allow -> deny, ",
                    deny_to_allow, " deny -> allow",
                    deny_no_opinion > 0 ? absl::StrCat(", ", deny_no_opinion, " between deny and no opinion") : "",
                    "), ", new_errors, " with a newly failing policy",
                    log ? absl::StrCat(", ", skipped.size(), " not replayed") : "", "\n");
    for (const auto& [policies, members] : groups) {
      out += "\n";
      if (policies.empty()) {
        out += "(no policy named on one side only)";
      } else {
        for (size_t i = 0; i < policies.size(); ++i) absl::StrAppend(&out, i > 0 ? ", " : "", Printable(policies[i]));
      }
      absl::StrAppend(&out, ": ", members.size(), members.size() == 1 ? " request\n" : " requests\n");
      for (const Change* c : members) {
        const Request& r = c->input->request;
        absl::StrAppend(&out, "  ", Transition(*c), "  ", Printable(r.principal().ToString()), " ",
                        Printable(r.action().ToString()), " ", Printable(r.resource().ToString()), "  (",
                        Printable(c->input->where), ")\n");
        absl::StrAppend(&out, "    old: ", Explain(c->old_decision, c->old_outcome), "\n");
        absl::StrAppend(&out, "    new: ", Explain(c->new_decision, c->new_outcome), "\n");
      }
    }
    if (!skipped.empty()) {
      absl::StrAppend(&out, "\nnot replayed: ", skipped.size(), skipped.size() == 1 ? " line\n" : " lines\n");
      for (const Skipped& k : skipped) absl::StrAppend(&out, "  ", Printable(k.where), ": ", k.reason, "\n");
    }
  }
  if (!WriteStdout(out)) return kError;
  return flags.fail_on_change && (!changes.empty() || !skipped.empty()) ? kChanged : kOk;
}

}  // namespace

Command AddDiffCommand(CLI::App& root) {
  auto flags = std::make_shared<DiffFlags>();
  CLI::App* app = root.add_subcommand("diff", "Report the decisions a new policy set would change");
  app->footer(
      "--old and --new each take a bundle or policy text. Exit status: 0; 2 with --fail-on-change "
      "when a decision changed, a policy newly fails or a decision-log line was not replayed; 1 on any error.");
  for (auto [name, side, what] : {std::tuple{"--old", &flags->old_policies, "The policy set in force"},
                                  std::tuple{"--new", &flags->new_policies, "The policy set to compare"}}) {
    app->add_option(name, *side,
                    std::string(what) + ": a bundle, or policy files (a directory: its .cedar and .charter "
                    "files; - for stdin), given again for more")
        ->type_name("PATH")
        ->expected(1)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
        ->allow_extra_args(false)
        ->required();
  }
  AddSchemaOption(app, &flags->schemas,
                  "Schema (Cedar schema text or JSON) to check the entities and requests against");
  app->add_option("--entities", flags->entities, "Entities in Cedar's JSON format")->type_name("FILE")->required();
  app->add_option("--new-entities", flags->new_entities, "Entities for the new side (default: --entities)")
      ->type_name("FILE");
  CLI::Option* requests =
      app->add_option("--requests", flags->requests, "Requests (a JSON array)")->type_name("FILE");
  CLI::Option* log = app->add_option("--decision-log", flags->decision_log,
                                     "Requests from the JSON lines of `charter serve --decision-log`, replayed "
                                     "over --entities with each line's own entities")
                         ->type_name("FILE");
  requests->excludes(log);
  app->add_option("--format", flags->format, "Output: text (default) or json (one object)")
      ->type_name("FORMAT")
      ->check(OneOf({"text", "json"}));
  app->add_flag("--fail-on-change", flags->fail_on_change,
                "Exit 2 when a decision changed or a policy newly fails");
  app->callback([flags] {
    if (flags->requests.empty() && flags->decision_log.empty()) {
      throw CLI::RequiredError("--requests or --decision-log");
    }
  });
  return Command{app, [flags] { return RunDiff(*flags); }};
}

}  // namespace charter::cli
