// `charter diff`: which decisions a new policy set (and, optionally, new
// entities) would change. Every request is decided with the old policy set
// and with the new one, and each request whose decision flips, or on which
// a policy newly fails, is reported with both explanations, grouped by the
// policies responsible (those determining or failing on one side only).
//
//   charter diff --old (BUNDLE|POLICIES) --new (BUNDLE|POLICIES) --entities E [--new-entities E2]
//       (--requests R | --decision-log L) [--schema S] [--format text|json] [--fail-on-change]
//
// --old and --new each take a bundle (from `charter build`) or policy text;
// a file is read as a bundle when it carries the bundle's identifier.
// --decision-log reads the JSON lines `charter serve --decision-log` writes
// (each line's `request`). Exits 0, or 2 with --fail-on-change when a
// decision changed or a policy newly fails; 1 on any error.
#include <algorithm>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "charter/charter.h"
#include "charter/json.h"
#include "charter/schema.h"
#include "command.h"
#include "files.h"
#include "load.h"
#include "report.h"

namespace charter::cli {
namespace {

inline constexpr int kChanged = 2;

struct DiffFlags {
  std::string old_policies, new_policies;
  std::string entities, new_entities;
  std::string requests, decision_log;
  std::string schema;
  std::string format = "text";
  bool fail_on_change = false;
};

// A request with where it was read from ("requests.json #3", "log.jsonl:12").
struct Input {
  Request request;
  std::string where;
};

// A policy file read as a bundle when it carries the bundle's file
// identifier ("CHTR" at byte 4), else as policy text.
PolicySource SourceOf(const std::string& path) {
  PolicySource source;
  std::ifstream in(path, std::ios::binary);
  char head[8] = {};
  bool bundle = in.read(head, sizeof head) && std::string_view(head + 4, 4) == "CHTR";
  (bundle ? source.bundle : source.policies) = path;
  return source;
}

absl::StatusOr<Engine> LoadSide(const std::string& path, const Schema* schema) {
  PolicySource source = SourceOf(path);
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

// The end (one past the closing brace) of the JSON object starting at
// `begin` in valid JSON text.
size_t ObjectEnd(std::string_view text, size_t begin) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = begin; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      if (--depth == 0) return i + 1;
    }
  }
  return text.size();
}

// "PATH:1:COL: ..." of a message about one line, made "PATH:LINE:COL: ...".
std::string OnLine(const std::string& path, size_t line, const std::string& message) {
  std::string prefix = path + ":1:";
  std::string at = path + ":" + std::to_string(line) + ":";
  if (message.compare(0, prefix.size(), prefix) == 0) return at + message.substr(prefix.size());
  if (message.compare(0, 2, "1:") == 0) return at + message.substr(2);
  return at + " " + message;
}

// The requests of a decision log: each line's `request`, read as a request
// object, with its faults at their line and column.
absl::StatusOr<std::vector<Input>> LoadDecisionLog(const std::string& path, const Schema* schema) {
  absl::StatusOr<std::string> text = ReadFile(path, kMaxRequestsBytes);
  if (!text.ok()) return text.status();
  std::vector<Input> out;
  std::string errors;
  size_t line_no = 0;
  size_t faults = 0;
  std::string_view all = *text;
  for (size_t start = 0; start < all.size();) {
    size_t end = all.find('\n', start);
    if (end == std::string_view::npos) end = all.size();
    std::string_view line = all.substr(start, end - start);
    start = end + 1;
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    auto fault = [&](std::string message) {
      if (++faults <= 20) absl::StrAppend(&errors, errors.empty() ? "" : "\n", OneLine(message));
    };
    absl::StatusOr<JsonDocument> doc = JsonDocument::Parse(line);
    if (!doc.ok()) {
      fault(OnLine(path, line_no, std::string(doc.status().message())));
      continue;
    }
    std::optional<JsonValue> request = doc->root().Find("request");
    if (!doc->root().is_object() || !request.has_value() || !request->is_object()) {
      fault(absl::StrCat(path, ":", line_no, ":1: a decision-log line is a JSON object with a `request` object"));
      continue;
    }
    // The request's own text, where it stands on the line: whatever comes
    // before it becomes one space a character, so that a fault's column is
    // the column on the line.
    size_t begin = request->offset();
    std::string padded;
    for (size_t i = 0; i < begin; ++i) {
      if ((static_cast<unsigned char>(line[i]) & 0xC0) != 0x80) padded.push_back(' ');
    }
    padded.append(line.substr(begin, ObjectEnd(line, begin) - begin));
    absl::StatusOr<Request> r = schema != nullptr ? Request::FromJson(padded, *schema, path)
                                                  : Request::FromJson(padded, path);
    if (!r.ok()) {
      fault(OnLine(path, line_no, std::string(r.status().message())));
      continue;
    }
    out.push_back(Input{*std::move(r), absl::StrCat(path, ":", line_no)});
  }
  if (faults > 20) absl::StrAppend(&errors, "\n", path, ": ", faults - 20, " more faulty lines");
  if (!errors.empty()) return absl::InvalidArgumentError(errors);
  return out;
}

absl::StatusOr<std::vector<Input>> LoadInputs(const DiffFlags& flags, const Schema* schema) {
  if (!flags.decision_log.empty()) return LoadDecisionLog(flags.decision_log, schema);
  absl::StatusOr<std::vector<Request>> requests = LoadRequests(flags.requests, schema);
  if (!requests.ok()) return requests.status();
  std::vector<Input> out;
  out.reserve(requests->size());
  for (size_t i = 0; i < requests->size(); ++i) {
    out.push_back(Input{std::move((*requests)[i]), absl::StrCat(flags.requests, " #", i + 1)});
  }
  return out;
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
  bool flipped = false;
};

std::string Explain(const Decision& d) {
  std::string out = d.allowed ? "allow" : "deny";
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
  return c.old_decision.allowed ? "allow -> deny" : "deny -> allow";
}

int RunDiff(const DiffFlags& flags) {
  std::optional<Schema> schema;
  if (!flags.schema.empty()) {
    absl::StatusOr<Schema> loaded = LoadSchema(flags.schema);
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
  absl::StatusOr<std::vector<Input>> inputs = LoadInputs(flags, with);
  check(inputs.status());
  if (failed) return kError;
  const Entities& after = new_entities.has_value() ? **new_entities : *old_entities;

  // One evaluation context a side; a Decision is made only for what is reported.
  EvalContext old_context, new_context;
  std::vector<Change> changes;
  size_t allow_to_deny = 0, deny_to_allow = 0, new_errors = 0;
  for (const Input& input : *inputs) {
    bool o = old_engine->Authorize(input.request, *old_entities, &old_context);
    bool n = new_engine->Authorize(input.request, after, &new_context);
    bool newly_failing = false;
    for (const PolicyErrorView& e : new_context.errors()) {
      bool before = false;
      for (const PolicyErrorView& x : old_context.errors()) before = before || x.policy_id == e.policy_id;
      newly_failing = newly_failing || !before;
    }
    if (o == n && !newly_failing) continue;
    Change c{&input, old_context.ToDecision(), new_context.ToDecision(), o != n};
    if (o && !n) ++allow_to_deny;
    if (!o && n) ++deny_to_allow;
    if (newly_failing) ++new_errors;
    changes.push_back(std::move(c));
  }

  // Grouped by the policies responsible: those named on one side only.
  std::map<std::vector<std::string>, std::vector<const Change*>> groups;
  for (const Change& c : changes) {
    std::vector<std::string> a = Named(c.old_decision), b = Named(c.new_decision), key;
    std::set_symmetric_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(key));
    groups[key].push_back(&c);
  }

  size_t changed = allow_to_deny + deny_to_allow;
  std::string out;
  if (flags.format == "json") {
    absl::StrAppend(&out, "{\"summary\":{\"requests\":", inputs->size(), ",\"changed\":", changed,
                    ",\"allowToDeny\":", allow_to_deny, ",\"denyToAllow\":", deny_to_allow,
                    ",\"newErrors\":", new_errors, "},\"groups\":[");
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
        AppendJsonQuoted(&out, c.input->request.principal().ToString());
        out += ",\"action\":";
        AppendJsonQuoted(&out, c.input->request.action().ToString());
        out += ",\"resource\":";
        AppendJsonQuoted(&out, c.input->request.resource().ToString());
        absl::StrAppend(&out, ",\"change\":\"", Transition(c), "\",\"old\":", c.old_decision.ToJson(),
                        ",\"new\":", c.new_decision.ToJson(), "}");
      }
      out += "]}";
    }
    out += "]}\n";
  } else {
    absl::StrAppend(&out, inputs->size(), " requests: ", changed, " changed (", allow_to_deny, " allow -> deny, ",
                    deny_to_allow, " deny -> allow), ", new_errors, " with a newly failing policy\n");
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
        absl::StrAppend(&out, "    old: ", Explain(c->old_decision), "\n");
        absl::StrAppend(&out, "    new: ", Explain(c->new_decision), "\n");
      }
    }
  }
  if (!WriteStdout(out)) return kError;
  return flags.fail_on_change && !changes.empty() ? kChanged : kOk;
}

}  // namespace

Command AddDiffCommand(CLI::App& root) {
  auto flags = std::make_shared<DiffFlags>();
  CLI::App* app = root.add_subcommand("diff", "Report the decisions a new policy set would change");
  app->footer(
      "--old and --new each take a bundle or policy text. Exit status: 0; 2 with --fail-on-change "
      "when a decision changed or a policy newly fails; 1 on any error.");
  app->add_option("--old", flags->old_policies, "The policy set in force: a bundle or a Cedar policy file")
      ->type_name("FILE")
      ->required();
  app->add_option("--new", flags->new_policies, "The policy set to compare: a bundle or a Cedar policy file")
      ->type_name("FILE")
      ->required();
  app->add_option("--schema", flags->schema,
                  "Schema (Cedar schema text or JSON) to check the entities and requests against")
      ->type_name("FILE");
  app->add_option("--entities", flags->entities, "Entities in Cedar's JSON format")->type_name("FILE")->required();
  app->add_option("--new-entities", flags->new_entities, "Entities for the new side (default: --entities)")
      ->type_name("FILE");
  CLI::Option* requests =
      app->add_option("--requests", flags->requests, "Requests (a JSON array)")->type_name("FILE");
  CLI::Option* log = app->add_option("--decision-log", flags->decision_log,
                                     "Requests from the JSON lines of `charter serve --decision-log`")
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
