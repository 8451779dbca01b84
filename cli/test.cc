// `charter test`: run policy tests (docs/testing.md).
//
//   charter test DIR|FILE... [--coverage] [--format text|json]
//
// A test file (`*.test.json`, or any file named on the command line) names
// the policies and entities and lists cases: a request and its expected
// decision, optionally the expected determining policies and erring
// policies; or an admission case: a Kubernetes object or review (a file, or
// inline) decided as `charter admit` decides it, with the file's schemas and
// the server's configuration; or a scheduling case: workloads (a file, or
// inline) run through one or more scheduling cycles of the policies'
// declarations and scheduling rules, with the expected admitted, pending and
// preempted workloads, pending reasons and rules. Each case prints PASS or
// FAIL (with a diff), then a summary
// `N passed, N failed`; exit 1 if any case fails or a file cannot be run.
// --coverage reports the policies that no case exercised (none of the cases
// had it among its determining or erring policies), and the `when`/`unless`
// conditions and their sub-conditions that no case saw both true and false
// (charter::Coverage, beside the Engine that decides the cases), and the
// scheduling rules that no scheduling case saw refuse or err.
#include <algorithm>
#include <charconv>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "charter/charter.h"
#include "charter/explain.h"
#include "charter/prove.h"
#include "charter/schedule.h"
#include "admission.h"
#include "command.h"
#include "files.h"
#include "load.h"
#include "names.h"
#include "prove.h"
#include "project.h"
#include "report.h"
#include "schedule.h"
#include "util.h"

namespace charter::cli {
namespace {


struct TestFlags {
  std::vector<std::string> paths;
  bool coverage = false;
  std::string format = "text";
  // --invariant NAME: only these invariants (by name; an unnamed one by its
  // number from 1), and no cases.
  std::vector<std::string> invariants;
};

// The end of the JSON value that starts at `begin` in `text` (a value the
// parser accepted).
size_t ValueEnd(std::string_view text, size_t begin) {
  size_t i = begin;
  int depth = 0;
  while (i < text.size()) {
    char c = text[i];
    if (c == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\') ++i;
      }
      ++i;
      if (depth == 0) return i;
      continue;
    }
    if (c == '{' || c == '[') ++depth;
    if (c == '}' || c == ']') {
      if (--depth == 0) return i + 1;
    }
    if (depth == 0 && (c == ',' || c == '}' || c == ']' || c == ' ' || c == '\t' || c == '\r' ||
                       c == '\n')) {
      return i;
    }
    ++i;
  }
  return i;
}

std::string_view Raw(std::string_view text, const JsonValue& v) {
  return text.substr(v.offset(), ValueEnd(text, v.offset()) - v.offset());
}

// The value `v` of `text` at its own place: everything before it blanked
// (line breaks kept, every other character one space), so that a reader's
// "LINE:COL" is a position in the test file. Only built to report an error.
std::string InPlace(std::string_view text, const JsonValue& v) {
  std::string out;
  for (size_t i = 0; i < v.offset(); ++i) {
    char c = text[i];
    if (c == '\n' || c == '\r') {
      out.push_back(c);
    } else if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) {
      out.push_back(' ');
    }
  }
  out.append(Raw(text, v));
  return out;
}

// Parses an inline value with `parse` (Entities::FromJson, Request::FromJson);
// on failure, parses it again at its place in the file for the position.
template <typename T, typename Parse>
absl::StatusOr<T> ParseInline(const std::string& path, std::string_view text, const JsonValue& v,
                              Parse parse) {
  absl::StatusOr<T> parsed = parse(Raw(text, v));
  if (parsed.ok()) return parsed;
  absl::StatusOr<T> again = parse(InPlace(text, v));
  const absl::Status& status = again.ok() ? parsed.status() : again.status();
  return absl::InvalidArgumentError(WithPath(path, OneLine(status.message())));
}

std::string Resolve(const std::string& test_file, std::string_view path) {
  std::filesystem::path p(path);
  if (p.is_absolute()) return p.string();
  return (std::filesystem::path(test_file).parent_path() / p).lexically_normal().string();
}

// A fault in a test file, at the value it is about: "FILE:LINE:COL: message".
absl::Status Fault(const std::string& path, std::string_view text, uint32_t offset,
                   std::string_view message) {
  return absl::InvalidArgumentError(Cat(path, ":", JsonLineCol(text, offset), ": ", message));
}

// An expected `reasons` or `errors` list: an array of policy ids, nothing
// else (a misspelt shape must not pass as an empty list).
absl::StatusOr<std::vector<std::string>> PolicyIds(const std::string& path, std::string_view text,
                                                   size_t case_number, std::string_view key,
                                                   const JsonValue& v) {
  std::vector<std::string> out;
  bool ok = v.is_array();
  for (size_t i = 0; ok && i < v.size(); ++i) {
    ok = v.at(i).is_string();
    if (ok) out.emplace_back(v.at(i).as_string());
  }
  if (!ok) {
    return Fault(path, text, v.offset(),
                 Cat("case ", case_number, ": \"", key, "\" must be an array of policy ids"));
  }
  return out;
}

// Policy files named by a test file: a path (a string) or a non-empty
// array of them, each relative to the test file; `message` says what else.
absl::StatusOr<std::vector<std::string>> PolicyPaths(const std::string& path, std::string_view text,
                                                     const JsonValue& v, std::string_view message) {
  std::vector<std::string> out;
  bool ok = v.is_string() || (v.is_array() && v.size() > 0);
  if (v.is_string()) out.push_back(Resolve(path, v.as_string()));
  for (size_t i = 0; ok && v.is_array() && i < v.size(); ++i) {
    ok = v.at(i).is_string();
    if (ok) out.push_back(Resolve(path, v.at(i).as_string()));
  }
  if (!ok) return Fault(path, text, v.offset(), message);
  return out;
}

// Members of an object that are not among `known`: an error at the first,
// so that a misspelt member cannot pass silently.
absl::Status KnownMembers(const std::string& path, std::string_view text, const JsonValue& object,
                          std::initializer_list<std::string_view> known, std::string_view what) {
  for (size_t i = 0; i < object.size(); ++i) {
    std::string_view key = object.key(i);
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    std::string list;
    for (std::string_view k : known) CatAppend(&list, list.empty() ? "" : ", ", "\"", k, "\"");
    return Fault(path, text, object.key_offset(i),
                 Cat(what, " has no member \"", key, "\" (it has ", list, ")"));
  }
  return absl::OkStatus();
}

std::string List(const std::vector<std::string>& ids) {
  std::string out = "[";
  for (size_t i = 0; i < ids.size(); ++i) CatAppend(&out, i ? ", " : "", Printable(ids[i]));
  return out + "]";
}

void JsonList(std::string* out, const std::vector<std::string>& ids) {
  *out += "[";
  for (size_t i = 0; i < ids.size(); ++i) {
    if (i > 0) *out += ",";
    AppendJsonQuoted(out, ids[i]);
  }
  *out += "]";
}

// A policy file under test: compiled for the Engine that decides the cases,
// and read for the coverage (with --coverage) of every case that uses it.
struct PolicyFile {
  std::unique_ptr<Engine> engine;
  std::optional<Coverage> coverage;
  absl::Status status;  // why it could not be loaded
  // Several files compiled as one policy set: their policy coverage is not
  // computed (Coverage reads one policy file).
  bool several = false;
};

// The scheduling rules of a policy set, and those some scheduling case saw
// change an outcome (refused, or erred).
struct RuleCoverage {
  std::vector<std::string> rules;
  std::set<std::string> exercised;
};

struct Totals {
  size_t passed = 0;
  size_t failed = 0;
  bool broken = false;
  std::map<std::string, PolicyFile> policies;  // by path (several: joined with ", ")
  std::map<std::string, RuleCoverage> rules;   // likewise, for the sets that scheduling cases ran
  std::string json_files;                      // --format json: the "files" array's members
  std::vector<std::string> errors;             // files that could not be run
  std::set<std::string> invariants_run;        // the --invariant NAMEs that matched one
};

// The key of a policy set in Totals: its files, joined with ", ".
std::string PolicyKey(const std::vector<std::string>& paths) {
  std::string key;
  for (const std::string& p : paths) CatAppend(&key, key.empty() ? "" : ", ", p);
  return key;
}

PolicyFile& LoadPolicyFile(const std::vector<std::string>& paths, bool coverage, Totals* totals) {
  auto [it, fresh] = totals->policies.try_emplace(PolicyKey(paths));
  PolicyFile& file = it->second;
  if (!fresh) return file;
  CompileOptions options;
  if (paths.size() > 1) {
    file.several = true;
    absl::StatusOr<Bundle> bundle = CompilePolicyFiles(paths, "", options);
    if (!bundle.ok()) {
      file.status = bundle.status();
      return file;
    }
    absl::StatusOr<Engine> engine = Engine::Create(*std::move(bundle));
    if (!engine.ok()) {
      file.status = absl::InternalError(Cat(PolicyKey(paths), ": internal error: the compiled bundle does not verify: ",
                                            OneLine(engine.status().message())));
      return file;
    }
    file.engine = std::make_unique<Engine>(*std::move(engine));
    return file;
  }
  const std::string& path = paths.front();
  absl::StatusOr<std::string> text = ReadFile(path, options.max_source_bytes);
  if (!text.ok()) {
    file.status = text.status();
    return file;
  }
  SourceFile source(path, *std::move(text));
  absl::StatusOr<Bundle> bundle = CompilePolicySource(source, {}, options);
  if (!bundle.ok()) {
    file.status = bundle.status();
    return file;
  }
  absl::StatusOr<Engine> engine = Engine::Create(*std::move(bundle));
  if (!engine.ok()) {
    file.status = absl::InternalError(WithPath(path, Cat("internal error: the compiled bundle does not verify: ",
                                                         OneLine(engine.status().message()))));
    return file;
  }
  file.engine = std::make_unique<Engine>(*std::move(engine));
  if (coverage) {
    InputStage stage(path, "preparing the coverage");
    absl::StatusOr<Coverage> c = Coverage::Create(source, {}, options);
    if (!c.ok()) {
      file.status = absl::InvalidArgumentError(WithPath(path, OneLine(c.status().message())));
      file.engine.reset();
      return file;
    }
    file.coverage.emplace(*std::move(c));
  }
  return file;
}

// An admission case: its object or review (`admit`: a file, relative to the
// test file, or inline), by `as` in `groups` for a plain object (default the
// cluster administrator), decided as `charter admit` decides it.
absl::StatusOr<server::ReviewDecision> RunAdmissionCase(const std::string& path, std::string_view text,
                                                        size_t number, const JsonValue& admit, const JsonValue& c,
                                                        const Admission& admission) {
  server::Requester who;
  if (std::optional<JsonValue> as = c.Find("as")) {
    if (!as->is_string() || as->as_string().empty()) {
      return Fault(path, text, as->offset(), Cat("case ", number, ": \"as\" must be a user name (a string)"));
    }
    who.username = std::string(as->as_string());
    who.groups.clear();
  }
  if (std::optional<JsonValue> groups = c.Find("groups")) {
    bool ok = groups->is_array() && c.Find("as").has_value();
    for (size_t i = 0; ok && i < groups->size(); ++i) {
      ok = groups->at(i).is_string();
      if (ok) who.groups.emplace_back(groups->at(i).as_string());
    }
    if (!ok) {
      return Fault(path, text, groups->offset(),
                   Cat("case ", number, ": \"groups\" must be an array of group names, with \"as\""));
    }
  }
  if (c.Find("as") && std::find(who.groups.begin(), who.groups.end(), "system:authenticated") == who.groups.end()) {
    who.groups.push_back("system:authenticated");  // as `charter admit --as` and the apiserver
  }
  absl::StatusOr<std::vector<AdmissionInput>> inputs;
  if (admit.is_string()) {
    std::string file = Resolve(path, admit.as_string());
    absl::StatusOr<std::string> read = ReadFile(file, size_t{256} << 20);
    if (!read.ok()) return read.status();
    inputs = ReadAdmissionInputs(file, *read, who);
  } else if (admit.is_object()) {
    inputs = ReadAdmissionInputs(path, InPlace(text, admit), who);
  } else {
    return Fault(path, text, admit.offset(),
                 Cat("case ", number, ": \"admit\" must be the path of an object or review (a string), or an object"));
  }
  if (!inputs.ok()) return inputs.status();
  if (inputs->size() != 1) {
    return Fault(path, text, admit.offset(),
                 Cat("case ", number, ": \"admit\" holds ", inputs->size(), " objects; a case decides one"));
  }
  server::ReviewDecision d = Decide(admission, inputs->front());
  if (d.outcome == server::ReviewDecision::kMalformed) {
    return absl::InvalidArgumentError(Cat(inputs->front().where, ": case ", number, ": ",
                                          AboutObject(inputs->front(), OneLine(d.error.message()))));
  }
  return d;
}

// What a scheduling case starts from: the policy set's scheduling
// configuration (its declarations, if any) and its scheduling rules over the file's
// entities. Built at the file's first scheduling case.
struct ScheduleSetup {
  std::optional<schedule::State> config;  // none: the cases give whole states
  schedule::SchedulingRules rules;
};

absl::StatusOr<ScheduleSetup> LoadScheduleSetup(const Engine& engine, const Entities& entities) {
  ASSIGN_OR_RETURN(std::optional<schedule::State> config, schedule::ReadConfiguration(engine));
  ASSIGN_OR_RETURN(schedule::SchedulingRules rules, schedule::SchedulingRules::Create({engine}, &entities));
  for (const std::string& id : rules.ignored_permits()) {
    PrintWarning(Cat("permit `", Printable(id),
                     "` names a scheduling action; scheduling rules only forbid, so it has no effect"));
  }
  return ScheduleSetup{std::move(config), std::move(rules)};
}

// A scheduling case's outcome after its cycles: who is admitted and who
// pending at the end, who was preempted on the way, each workload's reason
// (`admitted`, the pending state of the last cycle it was a head in, or
// `queued` when it never was), and the rules that changed its outcomes.
struct ScheduleOutcome {
  std::vector<std::string> admitted, pending, preempted;  // sorted
  std::map<std::string, std::string> reasons;
  std::map<std::string, std::set<std::string>> rules;
};

// What a scheduling case expects; each part is checked when given.
struct ScheduleExpectation {
  std::optional<std::vector<std::string>> admitted, pending, preempted;  // sorted
  std::optional<std::map<std::string, std::string>> reasons;
  std::optional<std::map<std::string, std::vector<std::string>>> rules;  // each sorted
};

// An array of strings (workload names, rule ids), sorted.
absl::StatusOr<std::vector<std::string>> SortedNames(const std::string& path, std::string_view text, size_t number,
                                                     std::string_view key, std::string_view what, const JsonValue& v) {
  std::vector<std::string> out;
  bool ok = v.is_array();
  for (size_t i = 0; ok && i < v.size(); ++i) {
    ok = v.at(i).is_string();
    if (ok) out.emplace_back(v.at(i).as_string());
  }
  if (!ok) return Fault(path, text, v.offset(), Cat("case ", number, ": \"", key, "\" must be an array of ", what));
  std::sort(out.begin(), out.end());
  return out;
}

absl::StatusOr<ScheduleExpectation> ReadScheduleExpectation(const std::string& path, std::string_view text,
                                                            size_t number, const JsonValue& c) {
  ScheduleExpectation want;
  if (std::optional<JsonValue> v = c.Find("admitted")) {
    ASSIGN_OR_RETURN(want.admitted, SortedNames(path, text, number, "admitted", "workload names", *v));
  }
  if (std::optional<JsonValue> v = c.Find("pending")) {
    ASSIGN_OR_RETURN(want.pending, SortedNames(path, text, number, "pending", "workload names", *v));
  }
  if (std::optional<JsonValue> v = c.Find("preempted")) {
    ASSIGN_OR_RETURN(want.preempted, SortedNames(path, text, number, "preempted", "workload names", *v));
  }
  if (std::optional<JsonValue> v = c.Find("reasons")) {
    bool ok = v->is_object();
    std::map<std::string, std::string> reasons;
    for (size_t i = 0; ok && i < v->size(); ++i) {
      ok = v->member(i).is_string();
      if (ok) reasons[std::string(v->key(i))] = std::string(v->member(i).as_string());
    }
    if (!ok) {
      return Fault(path, text, v->offset(),
                   Cat("case ", number, ": in a scheduling case, \"reasons\" must be an object from workload names ",
                       "to reasons (\"admitted\", \"queued\" or a pending state such as \"no_fit\")"));
    }
    want.reasons = std::move(reasons);
  }
  if (std::optional<JsonValue> v = c.Find("rules")) {
    if (!v->is_object()) {
      return Fault(path, text, v->offset(),
                   Cat("case ", number, ": \"rules\" must be an object from workload names to arrays of rule ids"));
    }
    std::map<std::string, std::vector<std::string>> rules;
    for (size_t i = 0; i < v->size(); ++i) {
      ASSIGN_OR_RETURN(rules[std::string(v->key(i))],
                       SortedNames(path, text, number, "rules", "rule ids, for each workload", v->member(i)));
    }
    want.rules = std::move(rules);
  }
  if (!want.admitted && !want.pending && !want.preempted && !want.reasons && !want.rules) {
    return Fault(path, text, c.offset(),
                 Cat("case ", number, ": a scheduling case expects something: \"admitted\", \"pending\", ",
                     "\"preempted\", \"reasons\" or \"rules\""));
  }
  return want;
}

constexpr int kMaxCaseCycles = 1000;

// Runs a scheduling case: its workloads (`schedule`: a file, relative to the
// test file, or inline) onto the policies' configuration, or a whole state
// (`state`: the same), then `cycles` cycles (default 1; 0: until nothing
// changes, at most kMaxCaseCycles), each applied as `charter simulate`
// applies it, with the policies' scheduling rules. `key` names the policies.
absl::StatusOr<ScheduleOutcome> RunScheduleCase(const std::string& path, std::string_view text, size_t number,
                                                const JsonValue& c, const JsonValue& workloads, bool whole_state,
                                                const std::string& key, const ScheduleSetup& setup,
                                                RuleCoverage* coverage) {
  std::string now;
  if (std::optional<JsonValue> v = c.Find("now")) {
    if (!v->is_string()) {
      return Fault(path, text, v->offset(), Cat("case ", number, ": \"now\" must be an RFC 3339 time (a string)"));
    }
    now = std::string(v->as_string());
  }
  int cycles = 1;
  if (std::optional<JsonValue> v = c.Find("cycles")) {
    std::string_view raw = Raw(text, *v);
    auto [end, ec] = std::from_chars(raw.data(), raw.data() + raw.size(), cycles);
    if (!v->is_number() || ec != std::errc() || end != raw.data() + raw.size() || cycles < 0 ||
        cycles > kMaxCaseCycles) {
      return Fault(path, text, v->offset(),
                   Cat("case ", number, ": \"cycles\" must be a whole number from 0 (until nothing changes) to ",
                       kMaxCaseCycles));
    }
  }
  const char* member = whole_state ? "state" : "schedule";
  if (whole_state && setup.config.has_value()) {
    return Fault(path, text, workloads.offset(),
                 Cat("case ", number, ": a state holds a configuration, and so do the declarations of ", key,
                     ": give the workloads alone with \"schedule\""));
  }
  if (!whole_state && !setup.config.has_value()) {
    return Fault(path, text, workloads.offset(),
                 Cat("case ", number, ": the policies (", key, ") declare no scheduling configuration (no `flavor`, ",
                     "`cohort` or `queue` in a .charter file) to schedule on; give a whole state with \"state\""));
  }
  if (whole_state && c.Find("now")) {
    return Fault(path, text, c.Find("now")->offset(),
                 Cat("case ", number, ": \"now\" goes with Kueue Workload objects in \"schedule\""));
  }
  // The state, or the workloads onto the configuration, from `source` (its
  // faults named by `name`).
  auto load = [&](const std::string& name, std::string_view source) -> absl::StatusOr<schedule::State> {
    if (!whole_state) return WorkloadsOnto(*setup.config, name, source, now);
    schedule::LoadOptions options;
    options.source_name = name;
    return schedule::LoadState(source, options);
  };
  absl::StatusOr<schedule::State> start;
  std::string which;  // after a fault in the workloads: which case's
  if (workloads.is_string()) {
    std::string file = Resolve(path, workloads.as_string());
    ASSIGN_OR_RETURN(std::string read, ReadFile(file, size_t{256} << 20));
    start = load(file, read);
    which = Cat(" (the ", member, " of case ", number, " of ", path, ")");
  } else if (workloads.is_object() || (!whole_state && workloads.is_array())) {
    // Inline: its faults at their place in the test file.
    start = load(path, InPlace(text, workloads));
    which = Cat(" (case ", number, ")");
  } else {
    return Fault(path, text, workloads.offset(),
                 whole_state ? Cat("case ", number, ": \"state\" must be the path of a state file (a string), or ",
                                   "the state inline")
                             : Cat("case ", number, ": \"schedule\" must be the path of a workloads file (a string), ",
                                   "or the workloads inline"));
  }
  if (!start.ok()) return absl::InvalidArgumentError(Cat(OneLine(start.status().message()), which));
  schedule::State state = *std::move(start);
  schedule::CycleOptions options;
  options.rules = &setup.rules;
  ScheduleOutcome outcome;
  std::set<std::string> preempted;
  auto note_rules = [&](const std::string& workload, const std::vector<schedule::RuleNote>& notes) {
    for (const schedule::RuleNote& n : notes) {
      outcome.rules[workload].insert(n.rule);
      coverage->exercised.insert(n.rule);
    }
  };
  const int limit = cycles > 0 ? cycles : kMaxCaseCycles;
  for (int n = 0; n < limit; ++n) {
    absl::StatusOr<schedule::CycleResult> result = schedule::RunCycle(state, options);
    if (!result.ok()) {
      return absl::InvalidArgumentError(Cat(path, ": case ", number, ": cycle ", n + 1, ": ",
                                            OneLine(result.status().message())));
    }
    for (const schedule::Admitted& a : result->admitted) note_rules(a.name, a.rules);
    for (const schedule::NotAdmitted& na : result->not_admitted) {
      outcome.reasons[na.name] = std::string(schedule::StateName(na.state));
      note_rules(na.name, na.rules);
    }
    for (const schedule::Preempted& p : result->preempted) preempted.insert(p.name);
    const bool stable = schedule::IsStable(state, *result);
    absl::StatusOr<schedule::State> after = schedule::ApplyCycle(state, *result);
    if (!after.ok()) {
      return absl::InvalidArgumentError(Cat(path, ": case ", number, ": cycle ", n + 1, ": ",
                                            OneLine(after.status().message())));
    }
    state = *std::move(after);
    if (cycles == 0 && stable) break;
  }
  for (const schedule::Workload& w : state.admitted) {
    outcome.admitted.push_back(w.name);
    outcome.reasons[w.name] = "admitted";
  }
  for (const schedule::Workload& w : state.pending) {
    outcome.pending.push_back(w.name);
    outcome.reasons.try_emplace(w.name, "queued");
  }
  std::sort(outcome.admitted.begin(), outcome.admitted.end());
  std::sort(outcome.pending.begin(), outcome.pending.end());
  outcome.preempted.assign(preempted.begin(), preempted.end());
  return outcome;
}

std::string ReasonsText(const std::map<std::string, std::string>& reasons) {
  std::string out = "{";
  for (const auto& [w, r] : reasons) CatAppend(&out, out.size() > 1 ? ", " : "", Printable(w), ": ", Printable(r));
  return out + "}";
}

std::string RulesText(const std::map<std::string, std::vector<std::string>>& rules) {
  std::string out = "{";
  for (const auto& [w, ids] : rules) CatAppend(&out, out.size() > 1 ? ", " : "", Printable(w), ": ", List(ids));
  return out + "}";
}

// A scheduling case's diff ("" when it passed): each expected part against
// the outcome, the reasons and rules of the workloads the case names.
std::string ScheduleDiff(const ScheduleExpectation& want, const ScheduleOutcome& got) {
  std::string diff;
  auto lists = [&](std::string_view key, const std::optional<std::vector<std::string>>& w,
                   const std::vector<std::string>& g) {
    if (w.has_value() && *w != g) CatAppend(&diff, "    -", key, ": ", List(*w), "\n    +", key, ": ", List(g), "\n");
  };
  lists("admitted", want.admitted, got.admitted);
  lists("pending", want.pending, got.pending);
  lists("preempted", want.preempted, got.preempted);
  if (want.reasons.has_value()) {
    std::map<std::string, std::string> actual;
    for (const auto& [w, r] : *want.reasons) {
      auto it = got.reasons.find(w);
      actual[w] = it == got.reasons.end() ? "(no such workload)" : it->second;
    }
    if (actual != *want.reasons) {
      CatAppend(&diff, "    -reasons: ", ReasonsText(*want.reasons), "\n    +reasons: ", ReasonsText(actual), "\n");
    }
  }
  if (want.rules.has_value()) {
    std::map<std::string, std::vector<std::string>> actual;
    for (const auto& [w, ids] : *want.rules) {
      auto it = got.rules.find(w);
      actual[w] = it == got.rules.end() ? std::vector<std::string>{}
                                        : std::vector<std::string>(it->second.begin(), it->second.end());
    }
    if (actual != *want.rules) {
      CatAppend(&diff, "    -rules: ", RulesText(*want.rules), "\n    +rules: ", RulesText(actual), "\n");
    }
  }
  return diff;
}

void JsonReasons(std::string* out, const std::map<std::string, std::string>& reasons) {
  *out += "{";
  bool first = true;
  for (const auto& [w, r] : reasons) {
    if (!first) *out += ",";
    first = false;
    AppendJsonQuoted(out, w);
    *out += ":";
    AppendJsonQuoted(out, r);
  }
  *out += "}";
}

template <typename Ids>
void JsonRules(std::string* out, const std::map<std::string, Ids>& rules) {
  *out += "{";
  bool first = true;
  for (const auto& [w, ids] : rules) {
    if (!first) *out += ",";
    first = false;
    AppendJsonQuoted(out, w);
    *out += ":";
    JsonList(out, std::vector<std::string>(ids.begin(), ids.end()));
  }
  *out += "}";
}

// --format json: a scheduling case's "expected" (the parts given) and
// "actual" (every part).
void ScheduleCaseJson(std::string* out, const ScheduleExpectation& want, const ScheduleOutcome& got) {
  *out += ",\"expected\":{";
  bool first = true;
  auto member = [&](std::string_view key) {
    CatAppend(out, first ? "\"" : ",\"", key, "\":");
    first = false;
  };
  if (want.admitted) member("admitted"), JsonList(out, *want.admitted);
  if (want.pending) member("pending"), JsonList(out, *want.pending);
  if (want.preempted) member("preempted"), JsonList(out, *want.preempted);
  if (want.reasons) member("reasons"), JsonReasons(out, *want.reasons);
  if (want.rules) member("rules"), JsonRules(out, *want.rules);
  *out += "},\"actual\":{\"admitted\":";
  JsonList(out, got.admitted);
  *out += ",\"pending\":";
  JsonList(out, got.pending);
  *out += ",\"preempted\":";
  JsonList(out, got.preempted);
  *out += ",\"reasons\":";
  JsonReasons(out, got.reasons);
  *out += ",\"rules\":";
  JsonRules(out, got.rules);
  *out += "}";
}

absl::Status RunInvariants(const std::string& path, std::string_view text, JsonValue invariants,
                           const std::vector<std::string>& policy_paths, const std::vector<std::string>& schema_paths,
                           const TestFlags& flags, Totals* totals, std::string* out, std::string* json_cases);

absl::Status RunFile(const std::string& path, const TestFlags& flags, Totals* totals, std::string* out,
                     std::string* json_cases) {
  absl::StatusOr<std::string> read = ReadFile(path, size_t{256} << 20);
  if (!read.ok()) return read.status();
  const std::string& text = *read;
  absl::StatusOr<JsonDocument> doc = JsonDocument::Parse(text);
  if (!doc.ok()) {
    return absl::InvalidArgumentError(
        Cat(path, ":", doc.status().message(), " (a test file is JSON: see docs/testing.md)"));
  }
  JsonValue root = doc->root();
  std::optional<JsonValue> policies = root.Find("policies");
  std::optional<JsonValue> entities = root.Find("entities");
  std::optional<JsonValue> cases = root.Find("cases");
  std::optional<JsonValue> schemas = root.Find("schemas");
  std::optional<JsonValue> config = root.Find("config");
  std::optional<JsonValue> invariants = root.Find("invariants");
  // Each fault in the file's structure at the value (or member) it is about.
  constexpr std::string_view kShape =
      "a test file is an object with \"policies\" (a path, or an array of paths), \"cases\" (an array) "
      "and optionally \"entities\" (a path or an array), or \"invariants\" (an array) with \"schemas\"";
  if (!root.is_object()) return Fault(path, text, root.offset(), kShape);
  RETURN_IF_ERROR(
      KnownMembers(path, text, root, {"policies", "entities", "schemas", "config", "cases", "invariants"},
                   "a test file"));
  if (policies == std::nullopt) return Fault(path, text, root.offset(), Cat(kShape, "; it has no \"policies\""));
  ASSIGN_OR_RETURN(const std::vector<std::string> policy_paths,
                   PolicyPaths(path, text, *policies,
                               "\"policies\" must be the path of a policy file (a string), or an array of them "
                               "compiled as one policy set"));
  if (cases == std::nullopt && invariants == std::nullopt) {
    return Fault(path, text, root.offset(), Cat(kShape, "; it has no \"cases\""));
  }
  if (cases != std::nullopt && !cases->is_array()) {
    return Fault(path, text, cases->offset(), "\"cases\" must be an array of test cases");
  }
  if (entities != std::nullopt && !entities->is_string() && !entities->is_array()) {
    return Fault(path, text, entities->offset(),
                 "\"entities\" must be the path of an entity file (a string) or an array of entities");
  }
  std::vector<std::string> schema_paths;
  if (schemas != std::nullopt) {
    bool ok = schemas->is_string() || schemas->is_array();
    if (schemas->is_string()) schema_paths.push_back(Resolve(path, schemas->as_string()));
    for (size_t i = 0; ok && schemas->is_array() && i < schemas->size(); ++i) {
      ok = schemas->at(i).is_string();
      if (ok) schema_paths.push_back(Resolve(path, schemas->at(i).as_string()));
    }
    if (!ok || schema_paths.empty()) {
      return Fault(path, text, schemas->offset(),
                   "\"schemas\" must be the path of a schema file (a string) or an array of them");
    }
  }
  if (config != std::nullopt && !config->is_string()) {
    return Fault(path, text, config->offset(), "\"config\" must be the path of a `charter serve` configuration file");
  }
  // A file of invariants alone, or only the invariants --invariant names.
  if (!flags.invariants.empty() && invariants == std::nullopt) return absl::OkStatus();
  if (cases == std::nullopt || !flags.invariants.empty()) {
    return RunInvariants(path, text, *invariants, policy_paths, schema_paths, flags, totals, out, json_cases);
  }
  const std::string policy_key = PolicyKey(policy_paths);
  PolicyFile& policy_file = LoadPolicyFile(policy_paths, flags.coverage, totals);
  if (!policy_file.status.ok()) return policy_file.status;
  // With schemas, a configuration or an admission case, every case is
  // decided as `charter serve` and `charter admit` decide: the policies
  // compiled with the schemas, the entities and requests read with them.
  bool admission_cases = schemas != std::nullopt || config != std::nullopt;
  for (size_t i = 0; i < cases->size(); ++i) {
    admission_cases = admission_cases || (cases->at(i).is_object() && cases->at(i).Find("admit"));
  }
  std::optional<Admission> admission;
  Entities store;
  if (admission_cases) {
    AdmissionSetup setup;
    setup.policies = policy_paths;
    setup.schemas = schema_paths;
    if (config != std::nullopt) setup.config = Resolve(path, config->as_string());
    if (entities != std::nullopt && entities->is_string()) {
      setup.entities = Resolve(path, entities->as_string());
    } else if (entities != std::nullopt) {
      setup.entities = path;
      setup.entities_json = InPlace(text, *entities);  // faults at their place in the test file
    }
    InputStage stage(path, "loading its policies, schemas and entities");
    ASSIGN_OR_RETURN(admission, LoadAdmission(setup));
  } else if (entities != std::nullopt && entities->is_string()) {
    ASSIGN_OR_RETURN(store, LoadEntities(Resolve(path, entities->as_string())));
  } else if (entities != std::nullopt) {
    InputStage stage(path, "loading its entities");
    ASSIGN_OR_RETURN(store, ParseInline<Entities>(path, text, *entities, [&](std::string_view piece) {
                       return Entities::FromJson(piece, path);
                     }));
  }
  const Engine& engine = admission ? admission->state->engine() : *policy_file.engine;
  const Entities& configured = admission ? admission->state->entities() : store;
  std::optional<Entities> admission_entities;  // an admission case's: the review's over the configured
  std::optional<ScheduleSetup> schedule_setup;  // at the first scheduling case
  for (size_t i = 0; i < cases->size(); ++i) {
    JsonValue c = cases->at(i);
    size_t number = i + 1;
    if (!c.is_object()) return Fault(path, text, c.offset(), Cat("case ", number, " is not an object"));
    std::optional<JsonValue> name = c.Find("name");
    if (name != std::nullopt && !name->is_string()) {
      return Fault(path, text, name->offset(), Cat("case ", number, ": \"name\" must be a string"));
    }
    std::string label = name != std::nullopt ? std::string(name->as_string()) : Cat(path, " case ", number);
    std::optional<JsonValue> workloads = c.Find("schedule");
    const bool whole_state = !workloads.has_value() && c.Find("state").has_value();
    if (whole_state) workloads = c.Find("state");
    if (workloads.has_value()) {
      RETURN_IF_ERROR(KnownMembers(path, text, c,
                                   {"name", whole_state ? "state" : "schedule", "now", "cycles", "admitted", "pending",
                                    "preempted", "reasons", "rules"},
                                   Cat("case ", number, " (a scheduling case)")));
      ASSIGN_OR_RETURN(ScheduleExpectation want, ReadScheduleExpectation(path, text, number, c));
      if (!schedule_setup.has_value()) {
        InputStage stage(path, "reading its scheduling configuration and rules");
        absl::StatusOr<ScheduleSetup> setup = LoadScheduleSetup(engine, configured);
        if (!setup.ok()) {
          return Fault(path, text, workloads->offset(), Cat("case ", number, ": ", OneLine(setup.status().message())));
        }
        schedule_setup = *std::move(setup);
      }
      RuleCoverage& rule_coverage = totals->rules[policy_key];
      if (rule_coverage.rules.empty()) rule_coverage.rules = schedule_setup->rules.rule_ids();
      ASSIGN_OR_RETURN(ScheduleOutcome got, RunScheduleCase(path, text, number, c, *workloads, whole_state, policy_key,
                                                            *schedule_setup, &rule_coverage));
      std::string diff = ScheduleDiff(want, got);
      bool passed = diff.empty();
      ++(passed ? totals->passed : totals->failed);
      CatAppend(out, passed ? "PASS " : "FAIL ", Printable(label), "\n", diff);
      if (flags.format == "json") {
        *json_cases += json_cases->empty() ? "{\"name\":" : ",{\"name\":";
        AppendJsonQuoted(json_cases, label);
        CatAppend(json_cases, ",\"passed\":", passed ? "true" : "false");
        ScheduleCaseJson(json_cases, want, got);
        *json_cases += "}";
      }
      continue;
    }
    RETURN_IF_ERROR(KnownMembers(path, text, c,
                                 {"name", "request", "admit", "as", "groups", "decision", "reasons", "errors",
                                  "schedule", "state"},
                                 Cat("case ", number)));
    std::optional<JsonValue> request = c.Find("request");
    std::optional<JsonValue> admit = c.Find("admit");
    std::optional<JsonValue> decision = c.Find("decision");
    if ((request == std::nullopt) == (admit == std::nullopt) || decision == std::nullopt || !decision->is_string() ||
        (decision->as_string() != "allow" && decision->as_string() != "deny")) {
      return Fault(path, text, decision != std::nullopt ? decision->offset() : c.offset(),
                   Cat("case ", number, ": needs \"request\" or \"admit\", and \"decision\" (\"allow\" or \"deny\"); ",
                       "or \"schedule\" or \"state\" (a scheduling case)"));
    }
    std::optional<std::vector<std::string>> want_reasons, want_errors;
    if (std::optional<JsonValue> v = c.Find("reasons"); v != std::nullopt) {
      ASSIGN_OR_RETURN(want_reasons, PolicyIds(path, text, number, "reasons", *v));
    }
    if (std::optional<JsonValue> v = c.Find("errors"); v != std::nullopt) {
      ASSIGN_OR_RETURN(want_errors, PolicyIds(path, text, number, "errors", *v));
    }
    Decision d;
    std::optional<Request> r;
    const Entities* decided_with = &configured;
    if (request != std::nullopt) {
      for (std::string_view key : {"as", "groups"}) {
        if (std::optional<JsonValue> v = c.Find(key)) {
          return Fault(path, text, v->offset(), Cat("case ", number, ": \"", key, "\" goes with \"admit\""));
        }
      }
      const Schema* schema = admission ? admission->state->schema() : nullptr;
      ASSIGN_OR_RETURN(r, ParseInline<Request>(path, text, *request, [&](std::string_view piece) {
                         return schema ? Request::FromJson(piece, *schema, path) : Request::FromJson(piece, path);
                       }));
      d = engine.Authorize(*r, configured);
    } else {
      ASSIGN_OR_RETURN(server::ReviewDecision decided, RunAdmissionCase(path, text, number, *admit, c, *admission));
      d = std::move(decided.decision);
      r = std::move(decided.request);
      if (decided.entities) admission_entities = std::move(decided.entities);
      decided_with = admission_entities ? &*admission_entities : nullptr;
    }
    if (policy_file.coverage.has_value() && r.has_value() && decided_with != nullptr) {
      Decision traced = policy_file.coverage->Record(*r, *decided_with);
      if (traced.ToJson() != d.ToJson()) {
        return absl::InternalError(Cat(path, ": case ", number, ": internal error: the coverage tracer decided ",
                                       traced.ToJson(), ", the engine ", d.ToJson()));
      }
    }
    std::vector<std::string> errs;
    for (const PolicyError& e : d.errors) errs.push_back(e.policy_id);
    std::string diff;
    std::string got = d.allowed ? "allow" : "deny";
    if (got != decision->as_string()) {
      CatAppend(&diff, "    -decision: ", decision->as_string(), "\n    +decision: ", got, "\n");
    }
    if (want_reasons.has_value() && *want_reasons != d.reasons) {
      CatAppend(&diff, "    -reasons: ", List(*want_reasons), "\n    +reasons: ", List(d.reasons), "\n");
    }
    if (want_errors.has_value() && *want_errors != errs) {
      CatAppend(&diff, "    -errors: ", List(*want_errors), "\n    +errors: ", List(errs), "\n");
    }
    bool passed = diff.empty();
    ++(passed ? totals->passed : totals->failed);
    // (The name comes from the test file: its control characters escaped.)
    CatAppend(out, passed ? "PASS " : "FAIL ", Printable(label), "\n", diff);
    if (flags.format == "json") {
      *json_cases += json_cases->empty() ? "{\"name\":" : ",{\"name\":";
      AppendJsonQuoted(json_cases, label);
      CatAppend(json_cases, ",\"passed\":", passed ? "true" : "false", ",\"expected\":{\"decision\":\"",
                decision->as_string(), "\"");
      if (want_reasons.has_value()) {
        *json_cases += ",\"reasons\":";
        JsonList(json_cases, *want_reasons);
      }
      if (want_errors.has_value()) {
        *json_cases += ",\"errors\":";
        JsonList(json_cases, *want_errors);
      }
      CatAppend(json_cases, "},\"actual\":{\"decision\":\"", got, "\",\"reasons\":");
      JsonList(json_cases, d.reasons);
      *json_cases += ",\"errors\":";
      JsonList(json_cases, errs);
      *json_cases += "}}";
    }
  }
  if (invariants != std::nullopt) {
    return RunInvariants(path, text, *invariants, policy_paths, schema_paths, flags, totals, out, json_cases);
  }
  return absl::OkStatus();
}

// The invariants of a test file (docs/testing.md, "Invariants"): each a
// property `charter prove` proves of the file's policies, over every store
// and request the schemas allow, optionally of one signature's principal
// type, action (or action group) and resource type, and only where a
// condition holds. PASS when it holds for every signature; FAIL, with each
// signature that does not hold (and its counterexample) or is unknown,
// otherwise: unknown is never a pass.
absl::Status RunInvariants(const std::string& path, std::string_view text, JsonValue invariants,
                           const std::vector<std::string>& policy_paths, const std::vector<std::string>& schema_paths,
                           const TestFlags& flags, Totals* totals, std::string* out, std::string* json_cases) {
  if (!invariants.is_array()) return Fault(path, text, invariants.offset(), "\"invariants\" must be an array");
  if (schema_paths.empty()) {
    return Fault(path, text, invariants.offset(),
                 "invariants are proved over every store and request a schema allows: the file needs \"schemas\"");
  }
  absl::StatusOr<Schema> schema = LoadSchemas(schema_paths);
  if (!schema.ok()) return schema.status();
  NameScope names(&*schema, nullptr);
  std::vector<SourceFile> policies;
  for (const std::string& p : policy_paths) {
    absl::StatusOr<std::string> read = ReadInput(p, size_t{256} << 20);
    if (!read.ok()) return read.status();
    policies.emplace_back(InputName(p), *std::move(read));
  }
  for (size_t i = 0; i < invariants.size(); ++i) {
    JsonValue v = invariants.at(i);
    const size_t number = i + 1;
    const std::string what = Cat("invariant ", number);
    if (!v.is_object()) return Fault(path, text, v.offset(), Cat(what, " is not an object"));
    RETURN_IF_ERROR(KnownMembers(path, text, v,
                                 {"name", "property", "principal", "action", "resource", "where", "within"}, what));
    // Each member a string (`within`: a string or an array of them).
    std::map<std::string, std::string> given;
    for (std::string_view key : {"name", "property", "principal", "action", "resource", "where"}) {
      std::optional<JsonValue> m = v.Find(key);
      if (m == std::nullopt) continue;
      if (!m->is_string()) return Fault(path, text, m->offset(), Cat(what, ": \"", key, "\" must be a string"));
      given[std::string(key)] = std::string(m->as_string());
    }
    const std::string label = given.count("name") ? given["name"] : Cat(path, " ", what);
    if (!flags.invariants.empty()) {
      const std::string selector = given.count("name") ? given["name"] : std::to_string(number);
      if (std::find(flags.invariants.begin(), flags.invariants.end(), selector) == flags.invariants.end()) continue;
      totals->invariants_run.insert(selector);
    }
    std::optional<JsonValue> property_value = v.Find("property");
    if (property_value == std::nullopt) {
      return Fault(path, text, v.offset(), Cat(what, ": needs \"property\""));
    }
    std::optional<ProofProperty> property = ProofPropertyFromName(given["property"]);
    constexpr std::string_view kProperties =
        "always-denies, always-allows, never-errors; with \"within\", implies, equivalent or disjoint";
    if (!property || IsPolicyProperty(*property) || *property == ProofProperty::kCompare) {
      return Fault(path, text, property_value->offset(),
                   Cat(what, ": \"property\" must be one of ", kProperties));
    }
    std::optional<JsonValue> within = v.Find("within");
    if (IsTwoSetProperty(*property) != within.has_value()) {
      return Fault(path, text, within ? within->offset() : property_value->offset(),
                   Cat(what, ": \"within\" (the policies the file's are compared with) goes with implies, "
                             "equivalent and disjoint, and only with them"));
    }
    ProveOptions options;
    std::string scope_principal = "principal", scope_action = "action", scope_resource = "resource";
    if (given.count("principal")) {
      absl::StatusOr<std::string> t = names.Type(Cat(what, ": \"principal\""), given["principal"]);
      if (!t.ok()) return Fault(path, text, v.Find("principal")->offset(), std::string(t.status().message()));
      options.principal_type = *t;
      scope_principal = Cat("principal is ", *t);
    }
    if (given.count("resource")) {
      absl::StatusOr<std::string> t = names.Type(Cat(what, ": \"resource\""), given["resource"]);
      if (!t.ok()) return Fault(path, text, v.Find("resource")->offset(), std::string(t.status().message()));
      options.resource_type = *t;
      scope_resource = Cat("resource is ", *t);
    }
    if (given.count("action")) {
      absl::StatusOr<EntityUid> a = names.Action(Cat(what, ": \"action\""), given["action"]);
      if (!a.ok()) return Fault(path, text, v.Find("action")->offset(), std::string(a.status().message()));
      options.action = *a;
      scope_action = Cat("action in ", a->ToString());
    }
    if (given.count("where")) {
      // The condition as a policy of its own, over the invariant's scope:
      // the property is asked of the requests it allows.
      // (The condition alone on line 2: a fault in it is at `where:2:COLUMN`.)
      options.where.emplace_back("where", Cat("@id(\"where\") permit (", scope_principal, ", ", scope_action, ", ",
                                              scope_resource, ") when {\n", given["where"], "\n};\n"));
    }
    absl::StatusOr<std::vector<ProofAnswer>> answers;
    if (within.has_value()) {
      std::vector<SourceFile> bound;
      ASSIGN_OR_RETURN(const std::vector<std::string> bound_paths,
                       PolicyPaths(path, text, *within,
                                   Cat(what, ": \"within\" must be the path of a policy file, or an array of them")));
      for (const std::string& p : bound_paths) {
        absl::StatusOr<std::string> read = ReadInput(p, size_t{256} << 20);
        if (!read.ok()) return read.status();
        bound.emplace_back(InputName(p), *std::move(read));
      }
      // `implies`: the file's policies allow only what `within` allows.
      answers = ProveChange(*property, bound, policies, *schema, options);
    } else {
      answers = Prove(*property, policies, *schema, options);
    }
    if (!answers.ok()) {
      return Fault(path, text, v.offset(), Cat(what, ": ", OneLine(answers.status().message())));
    }
    // The worst answer is the invariant's.
    ProofResult result = ProofResult::kHolds;
    std::string detail;
    for (const ProofAnswer& a : *answers) {
      if (a.result == ProofResult::kHolds) continue;
      if (result != ProofResult::kDoesNotHold) result = a.result;
      detail += "    " + ProofAnswerText(a, "    ");
    }
    const bool passed = result == ProofResult::kHolds;
    ++(passed ? totals->passed : totals->failed);
    CatAppend(out, passed ? "PASS " : "FAIL ", "invariant ", Printable(label), ": ", ProofResultName(result),
              passed ? Cat(" (", answers->size(), answers->size() == 1 ? " signature)" : " signatures)") : "", "\n",
              detail);
    if (flags.format == "json") {
      *json_cases += json_cases->empty() ? "{\"name\":" : ",{\"name\":";
      AppendJsonQuoted(json_cases, label);
      CatAppend(json_cases, ",\"passed\":", passed ? "true" : "false", ",\"invariant\":{\"property\":\"",
                ProofPropertyName(*property), "\",\"result\":\"", ProofResultName(result), "\",\"answers\":[");
      for (size_t k = 0; k < answers->size(); ++k) {
        CatAppend(json_cases, k ? "," : "", ProofAnswerJson((*answers)[k]));
      }
      *json_cases += "]}}";
    }
  }
  return absl::OkStatus();
}

// Test files: the paths named, and the `*.test.json` files in named directories.
std::vector<std::string> TestFiles(const std::vector<std::string>& paths) {
  std::vector<std::string> files;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (std::filesystem::is_directory(p, ec)) {
      std::vector<std::string> found;
      for (const auto& e : std::filesystem::recursive_directory_iterator(p, ec)) {
        std::string name = e.path().filename().string();
        if (name.size() > 10 && name.substr(name.size() - 10) == ".test.json") found.push_back(e.path().string());
      }
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
    } else {
      files.push_back(p);
    }
  }
  return files;
}

// "never true", "never false", ...: what a condition missed; empty when it
// was seen both true and false.
std::string Missed(const ConditionCoverage& c) {
  if (c.covered()) return "";
  if (!c.evaluated()) return "was never evaluated";
  if (c.true_count == 0 && c.false_count == 0) return Cat("always failed to evaluate (", c.error_count, c.error_count == 1 ? " time)" : " times)");
  return c.true_count == 0 ? "was never true" : "was never false";
}

// The coverage report of one policy file, for people.
std::string CoverageText(const std::string& path, const Coverage& coverage) {
  const std::vector<PolicyCoverage>& policies = coverage.policies();
  std::vector<std::string> missed;
  for (const PolicyCoverage& p : policies) {
    if (!p.exercised()) missed.push_back(p.policy_id);
  }
  std::string out = Cat("coverage: ", path, ": ", policies.size() - missed.size(), " of ", policies.size(),
                        " policies exercised\n");
  for (const std::string& id : missed) CatAppend(&out, "  never exercised: ", Printable(id), "\n");
  size_t total = 0, covered = 0;
  std::string gaps;
  auto where = [&](const SourceRange& r) { return Cat(path, ":", r.line, ":", r.column); };
  for (const PolicyCoverage& p : policies) {
    for (const ClauseCoverage& clause : p.clauses) {
      const char* kind = clause.when ? "when" : "unless";
      ++total;
      if (clause.condition.covered()) ++covered;
      std::string missed_clause = Missed(clause.condition);
      if (!missed_clause.empty()) {
        CatAppend(&gaps, "  ", where(clause.condition.where), ": ", Printable(p.policy_id), ": its `",
                  kind, "` condition ", missed_clause, "\n");
      }
      for (const ConditionCoverage& c : clause.conditions) {
        ++total;
        if (c.covered()) ++covered;
        // Under a clause never evaluated, its parts say nothing more.
        if (!clause.condition.evaluated() || c.covered()) continue;
        std::string text = c.expression.size() > 60 ? Cat(c.expression.substr(0, 57), "...") : c.expression;
        CatAppend(&gaps, "  ", where(c.where), ": ", Printable(p.policy_id), ": `", Printable(text), "` ",
                  Missed(c), "\n");
      }
    }
  }
  if (total > 0) {
    CatAppend(&out, "coverage: ", path, ": ", covered, " of ", total,
              " conditions seen both true and false (`when`/`unless` conditions and their sub-conditions)\n",
              gaps);
  }
  return out;
}

// The scheduling rules of one policy set that no scheduling case saw change
// an outcome (refuse, or err).
std::string RuleCoverageText(const std::string& key, const RuleCoverage& rc) {
  std::vector<std::string> missed;
  for (const std::string& id : rc.rules) {
    if (!rc.exercised.count(id)) missed.push_back(id);
  }
  std::string out = Cat("coverage: ", key, ": ", rc.rules.size() - missed.size(), " of ", rc.rules.size(),
                        " scheduling rules exercised (refused or erred in some scheduling case)\n");
  for (const std::string& id : missed) CatAppend(&out, "  never exercised: ", Printable(id), "\n");
  return out;
}

int RunTest(TestFlags flags) {
  if (flags.paths.empty()) {
    // No PATH: the tests of the project file (charter.json) around.
    absl::StatusOr<std::optional<Project>> project = FillFromProject(nullptr, nullptr, nullptr, &flags.paths, nullptr);
    if (!project.ok()) return Fail(project.status());
    if (flags.paths.empty()) {
      PrintError(project->has_value() ? Cat((*project)->path, ": names no tests; give PATH")
                                      : Cat("give PATH (test files or directories), or run inside a project with a ",
                                            kProjectFileName, " naming its tests"));
      return kError;
    }
  }
  std::vector<std::string> files = TestFiles(flags.paths);
  if (files.empty()) {
    PrintError(Cat(List(flags.paths), ": no *.test.json files"));
    return kError;
  }
  bool json_output = flags.format == "json";
  Totals totals;
  std::string json = "{\"files\":[";
  for (size_t i = 0; i < files.size(); ++i) {
    const std::string& f = files[i];
    std::string out, cases;
    absl::Status s = RunFile(f, flags, &totals, &out, &cases);
    if (json_output) {
      CatAppend(&json, i == 0 ? "" : ",", "{\"file\":");
      AppendJsonQuoted(&json, f);
      CatAppend(&json, ",\"cases\":[", cases, "]");
      if (!s.ok()) {
        json += ",\"error\":";
        AppendJsonQuoted(&json, OneLine(s.message()));
      }
      json += "}";
    } else if (!WriteStdout(out)) {
      return kError;
    }
    if (!s.ok()) {
      Fail(s);
      totals.broken = true;
    }
  }
  CatAppend(&json, "],\"passed\":", totals.passed, ",\"failed\":", totals.failed);
  std::string summary;
  if (flags.coverage) {
    json += ",\"coverage\":[";
    bool first = true;
    for (const auto& [path, file] : totals.policies) {
      if (file.several && file.engine != nullptr) {
        CatAppend(&summary, "coverage: ", path,
                  ": policy coverage not computed (it reads one policy file; these are several)\n");
      }
      if (!file.coverage.has_value()) continue;
      summary += CoverageText(path, *file.coverage);
      CatAppend(&json, first ? "" : ",", "{\"policies_file\":");
      AppendJsonQuoted(&json, path);
      std::string c = file.coverage->ToJson();
      CatAppend(&json, ",", std::string_view(c).substr(1));
      first = false;
    }
    json += "],\"scheduling_rules\":[";
    first = true;
    for (const auto& [key, rc] : totals.rules) {
      summary += RuleCoverageText(key, rc);
      CatAppend(&json, first ? "" : ",", "{\"policies\":");
      AppendJsonQuoted(&json, key);
      json += ",\"rules\":[";
      for (size_t i = 0; i < rc.rules.size(); ++i) {
        CatAppend(&json, i ? "," : "", "{\"id\":");
        AppendJsonQuoted(&json, rc.rules[i]);
        CatAppend(&json, ",\"exercised\":", rc.exercised.count(rc.rules[i]) ? "true" : "false", "}");
      }
      json += "]}";
      first = false;
    }
    json += "]";
  }
  json += "}\n";
  CatAppend(&summary, totals.passed, " passed, ", totals.failed, " failed\n");
  for (const std::string& name : flags.invariants) {
    if (totals.invariants_run.count(name) == 0) {
      std::string where;
      for (const std::string& f : files) CatAppend(&where, where.empty() ? "" : ", ", f);
      PrintError(Cat(where, ": no invariant `", name, "` (an invariant's name, or an unnamed one's number)"));
      totals.broken = true;
    }
  }
  if (!WriteStdout(json_output ? json : summary)) return kError;
  return totals.failed > 0 || totals.broken ? kError : kOk;
}

}  // namespace

Command AddTestCommand(CLI::App& root) {
  auto flags = std::make_shared<TestFlags>();
  CLI::App* app = root.add_subcommand("test", "Run policy tests (*.test.json; see docs/testing.md)");
  app->footer("Exit status: 0 when every case passes, 1 otherwise.");
  app->add_option("PATH", flags->paths,
                  "Test files, or directories searched for *.test.json (default: the tests charter.json names)")
      ->type_name("DIR|FILE...");
  app->add_flag("--coverage", flags->coverage,
                "Report the policies, and the when/unless conditions, that no case exercised");
  app->add_option("--format", flags->format, "Output: text (default) or json (one object)")
      ->type_name("FORMAT")
      ->check(OneOf({"text", "json"}));
  app->add_option("--invariant", flags->invariants,
                  "Run only this invariant (its name, or an unnamed one's number from 1), not the cases; "
                  "give it again for more")
      ->type_name("NAME")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->allow_extra_args(false);
  return Command{app, [flags] { return RunTest(*flags); }};
}

}  // namespace charter::cli
