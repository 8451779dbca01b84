// `charter prove`: a property of a policy set (or of a change between two)
// over every entity store and request the schema allows, per request
// signature, through the prover (charter/prove.h, docs/proving.md).
//
//   charter prove PROPERTY (--policies FILE... | --bundle B) --schema S... [--principal-type T]
//       [--action A] [--resource-type R] [--where CONDITION] [--format text|json] [--timeout MS]
//   charter prove (vacuous|shadowed|redundant|overridden) (--policies FILE... | --bundle B) --schema S...
//       [--policy ID] [filters]
//   charter prove (implies|equivalent|disjoint|compare) --old A --new B --schema S... [filters]
// (A and B: files, directories or bundles.)
//
// Exit 0 when the property holds for every signature, 2 when it does not
// hold for one, 3 when one is unknown (and none does not hold), 1 on any error.
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "charter/charter.h"
#include "charter/json.h"
#include "charter/prove.h"
#include "charter/schema.h"
#include "command.h"
#include "files.h"
#include "load.h"
#include "names.h"
#include "prove.h"
#include "report.h"

namespace charter::cli {
namespace {

inline constexpr int kDoesNotHold = 2;
inline constexpr int kUnknown = 3;
inline constexpr size_t kMaxPolicyBytes = size_t{1} << 30;

struct ProveFlags {
  std::string property;
  PolicySource source;
  std::vector<std::string> old_policies, new_policies;
  std::vector<std::string> schemas;
  std::string principal_type, action, resource_type;
  std::string policy;
  std::string where;
  std::string format = "text";
  uint32_t timeout_ms = 10000;
};

bool IsBundle(const std::string& path) {
  if (path == kStdinPath) return false;
  std::ifstream probe(path, std::ios::binary);
  char head[8] = {};
  return probe.read(head, sizeof head) && std::string_view(head + 4, 4) == "CHTR";
}

// A bundle's policies: the sources it was compiled from, read from the paths
// it recorded, which must compile to the bundle's very bytes (a bundle holds
// compiled code, not the text the prover reads).
absl::Status ReadBundle(const std::string& path, const char* flag, const Schema& schema,
                        std::vector<SourceFile>* out) {
  absl::StatusOr<Bundle> bundle = Bundle::FromFile(path);
  if (!bundle.ok()) return absl::InvalidArgumentError(absl::StrCat(flag, ": ", path, ": ", bundle.status().message()));
  absl::StatusOr<std::vector<std::string>> names = BundleSources(*bundle);
  if (!names.ok()) return absl::InvalidArgumentError(absl::StrCat(flag, ": ", path, ": ", names.status().message()));
  if (names->empty()) {
    return absl::InvalidArgumentError(absl::StrCat(flag, ": ", path, " records no policy source"));
  }
  for (const std::string& name : *names) {
    if (name == "<stdin>") {
      return absl::InvalidArgumentError(absl::StrCat(
          flag, ": ", path, " was compiled from standard input, whose text cannot be read again: give --policies"));
    }
    if (!std::ifstream(name).good()) {
      return absl::InvalidArgumentError(absl::StrCat(flag, ": ", path, " was compiled from ", name,
                                                     ", which cannot be read from the current directory: run "
                                                     "where the bundle was built, or give the policy files"));
    }
  }
  // Typed (compiled with the schema) or not: one of the two must give the
  // bundle's bytes.
  bool same = false;
  for (bool typed : {true, false}) {
    CompileOptions options;
    if (typed) options.schema = &schema;
    absl::StatusOr<Bundle> again = CompilePolicyFiles(*names, "", options);
    if (again.ok() && again->bytes() == bundle->bytes()) {
      same = true;
      break;
    }
  }
  if (!same) {
    std::string listed;
    for (const std::string& n : *names) absl::StrAppend(&listed, listed.empty() ? "" : ", ", n);
    return absl::InvalidArgumentError(absl::StrCat(
        flag, ": ", path, ": its sources (", listed,
        ", read from the current directory) do not compile to the bundle; rebuild it, or give the policy files"));
  }
  for (const std::string& name : *names) {
    absl::StatusOr<std::string> text = ReadInput(name, kMaxPolicyBytes);
    if (!text.ok()) return text.status();
    out->emplace_back(InputName(name), *std::move(text));
  }
  return absl::OkStatus();
}

// Policy files, directories or bundles.
absl::StatusOr<std::vector<SourceFile>> ReadPolicies(const std::vector<std::string>& given, const char* flag,
                                                     const Schema& schema) {
  std::vector<SourceFile> out;
  std::vector<std::string> texts;
  for (const std::string& g : given) {
    if (IsBundle(g)) {
      absl::Status read = ReadBundle(g, flag, schema, &out);
      if (!read.ok()) return read;
    } else {
      texts.push_back(g);
    }
  }
  if (texts.empty()) return out;
  absl::StatusOr<std::vector<std::string>> paths = ExpandPolicyPaths(texts);
  if (!paths.ok()) return paths.status();
  for (const std::string& path : *paths) {
    if (IsBundle(path)) {
      absl::Status read = ReadBundle(path, flag, schema, &out);
      if (!read.ok()) return read;
      continue;
    }
    absl::StatusOr<std::string> text = ReadInput(path, kMaxPolicyBytes);
    if (!text.ok()) return text.status();
    out.emplace_back(InputName(path), *std::move(text));
  }
  return out;
}

std::string Json(std::string_view s) {
  std::string out;
  AppendJsonQuoted(&out, s);
  return out;
}

}  // namespace

std::string ProofAnswerJson(const ProofAnswer& a) {
  // A policy answer without a signature is about every one asked for.
  std::string signature = a.signature.principal_type.empty()
                              ? "null"
                              : absl::StrCat("{\"principalType\":", Json(a.signature.principal_type),
                                             ",\"action\":", Json(a.signature.action.ToString()),
                                             ",\"resourceType\":", Json(a.signature.resource_type), "}");
  std::string out = absl::StrCat("{", a.policy.empty() ? "" : absl::StrCat("\"policy\":", Json(a.policy), ","),
                                 "\"signature\":", signature, ",\"result\":", Json(ProofResultName(a.result)),
                                 ",\"reason\":", Json(a.reason));
  if (!a.counterexamples.empty()) {
    const Counterexample& c = a.counterexamples.front();
    absl::StrAppend(&out, ",\"counterexample\":{\"entities\":", c.entities_json, ",\"request\":", c.request_json,
                    ",\"decision\":", c.decision_json, "}");
    if (a.counterexamples.size() > 1 || !c.label.empty()) {
      absl::StrAppend(&out, ",\"counterexamples\":[");
      for (size_t i = 0; i < a.counterexamples.size(); ++i) {
        const Counterexample& x = a.counterexamples[i];
        absl::StrAppend(&out, i ? "," : "", "{\"kind\":", Json(x.label), ",\"entities\":", x.entities_json,
                        ",\"request\":", x.request_json, ",\"decision\":", x.decision_json, "}");
      }
      out += "]";
    }
  }
  return out + "}";
}

std::string ProofAnswerText(const ProofAnswer& a, const std::string& indent) {
  std::string out;
  if (!a.policy.empty()) absl::StrAppend(&out, "policy ", a.policy, ": ");
  if (!a.signature.principal_type.empty()) absl::StrAppend(&out, a.signature.ToString(), ": ");
  out += std::string(ProofResultName(a.result));
  if (!a.reason.empty()) absl::StrAppend(&out, " (", a.reason, ")");
  out += "\n";
  for (const Counterexample& c : a.counterexamples) {
    absl::StrAppend(&out, indent, "  counterexample", c.label.empty() ? "" : absl::StrCat(" (", c.label, ")"),
                    ":\n", indent, "    request:  ", c.request_json, "\n", indent, "    entities: ", c.entities_json,
                    "\n", indent, "    decision: ", c.decision_json, "\n");
  }
  return out;
}

namespace {

int RunProve(const ProveFlags& flags) {
  std::optional<ProofProperty> property = ProofPropertyFromName(flags.property);
  if (!property) {
    return Fail(absl::InvalidArgumentError(absl::StrCat(
        "`", flags.property,
        "` is not a property: always-allows, always-denies, never-errors, vacuous, shadowed, redundant, "
        "overridden, implies, equivalent, disjoint or compare")));
  }
  bool two = IsTwoSetProperty(*property);
  if (two && (flags.old_policies.empty() || flags.new_policies.empty())) {
    return Fail(absl::InvalidArgumentError(
        absl::StrCat("`", flags.property, "` compares two policy sets: give --old and --new")));
  }
  if (!two && (!flags.old_policies.empty() || !flags.new_policies.empty())) {
    return Fail(absl::InvalidArgumentError(
        absl::StrCat("`", flags.property, "` is a property of one policy set: give --policies, not --old/--new")));
  }
  if (two && (!flags.source.policies.empty() || !flags.source.bundle.empty())) {
    return Fail(absl::InvalidArgumentError(
        absl::StrCat("`", flags.property, "` compares two policy sets: give --old and --new, not --policies/--bundle")));
  }
  if (!two && flags.source.policies.empty() && flags.source.bundle.empty()) {
    return Fail(absl::InvalidArgumentError("--policies or --bundle is required (the policy set to prove a property of)"));
  }
  if (!flags.policy.empty() && !IsPolicyProperty(*property)) {
    return Fail(absl::InvalidArgumentError(absl::StrCat(
        "--policy: `", flags.property, "` is a property of a policy set; --policy goes with vacuous, shadowed, "
        "redundant or overridden")));
  }
  absl::StatusOr<Schema> schema = LoadSchemas(flags.schemas);
  if (!schema.ok()) return Fail(schema.status());
  NameScope names(&*schema, nullptr);
  ProveOptions options;
  options.timeout_ms = flags.timeout_ms;
  options.policy_id = flags.policy;
  if (!flags.principal_type.empty()) {
    absl::StatusOr<std::string> t = names.Type("--principal-type", flags.principal_type);
    if (!t.ok()) return Fail(t.status());
    options.principal_type = *t;
  }
  if (!flags.resource_type.empty()) {
    absl::StatusOr<std::string> t = names.Type("--resource-type", flags.resource_type);
    if (!t.ok()) return Fail(t.status());
    options.resource_type = *t;
  }
  if (!flags.action.empty()) {
    absl::StatusOr<EntityUid> a = names.Action("--action", flags.action);
    if (!a.ok()) return Fail(a.status());
    options.action = *a;
  }
  if (!flags.where.empty()) {
    // The condition as a policy of its own over the signatures asked for:
    // only the requests it allows are asked about.
    std::string scope = absl::StrCat(
        options.principal_type.empty() ? "principal" : absl::StrCat("principal is ", options.principal_type), ", ",
        options.action ? absl::StrCat("action in ", options.action->ToString()) : "action", ", ",
        options.resource_type.empty() ? "resource" : absl::StrCat("resource is ", options.resource_type));
    // (The condition alone on line 2: a fault in it is at `--where:2:COLUMN`.)
    options.where.emplace_back("--where",
                               absl::StrCat("@id(\"where\") permit (", scope, ") when {\n", flags.where, "\n};\n"));
  }
  absl::StatusOr<std::vector<ProofAnswer>> answers;
  if (two) {
    absl::StatusOr<std::vector<SourceFile>> old_set = ReadPolicies(flags.old_policies, "--old", *schema);
    if (!old_set.ok()) return Fail(old_set.status());
    absl::StatusOr<std::vector<SourceFile>> new_set = ReadPolicies(flags.new_policies, "--new", *schema);
    if (!new_set.ok()) return Fail(new_set.status());
    answers = ProveChange(*property, *old_set, *new_set, *schema, options);
  } else {
    absl::StatusOr<std::vector<SourceFile>> set =
        flags.source.bundle.empty() ? ReadPolicies(flags.source.policies, "--policies", *schema)
                                    : ReadPolicies({flags.source.bundle}, "--bundle", *schema);
    if (!set.ok()) return Fail(set.status());
    answers = Prove(*property, *set, *schema, options);
  }
  if (!answers.ok()) return Fail(answers.status());
  std::string out;
  bool unknown = false, fails = false;
  for (const ProofAnswer& a : *answers) {
    unknown = unknown || a.result == ProofResult::kUnknown;
    fails = fails || a.result == ProofResult::kDoesNotHold;
    absl::StrAppend(&out, flags.format == "json" ? ProofAnswerJson(a) + "\n" : ProofAnswerText(a));
  }
  if (!WriteStdout(out)) return kError;
  return fails ? kDoesNotHold : unknown ? kUnknown : kOk;
}

}  // namespace

Command AddProveCommand(CLI::App& root) {
  auto flags = std::make_shared<ProveFlags>();
  CLI::App* app = root.add_subcommand(
      "prove", "Prove a property of a policy set, or of a change, for every entity store and request the schema allows");
  app->footer(
      "PROPERTY: always-allows, always-denies, never-errors (of --policies or --bundle); vacuous (matches no "
      "request, or every one), shadowed (another policy of its effect always matches too), redundant "
      "(removing it changes no decision), overridden (a forbid always matches too) of each policy, or of "
      "--policy; implies (the new set allows nothing the old one denies), equivalent, disjoint (no request "
      "allowed by both), compare (of --old and --new). Each request signature "
      "(principal type, action, resource type) the schema allows is proved apart; a counterexample is an "
      "entity store and a request that `charter authorize` decides as shown. docs/proving.md says what "
      "the encoding covers. Exit status: 0 holds (compare: nothing more permissive), 2 does not hold, "
      "3 unknown, 1 on any error.");
  app->add_option("property", flags->property, "The property to prove")->type_name("PROPERTY")->required();
  AddPoliciesOption(app, &flags->source.policies, ": the policy set, as policy text");
  app->add_option("--bundle", flags->source.bundle,
                  "A bundle: its policy sources, read again, must compile to it")
      ->type_name("FILE");
  app->add_option("--old", flags->old_policies, "The old policy set (file, directory or bundle, repeatable)")
      ->type_name("PATH")
      ->allow_extra_args(false);
  app->add_option("--new", flags->new_policies, "The new policy set (file, directory or bundle, repeatable)")
      ->type_name("PATH")
      ->allow_extra_args(false);
  AddSchemaOption(app, &flags->schemas, "Schema (Cedar schema text or JSON) whose stores and requests are proved over")
      ->required();
  app->add_option("--principal-type", flags->principal_type, "Only signatures with this principal type")
      ->type_name("TYPE");
  app->add_option("--action", flags->action, "Only signatures with this action")->type_name("UID");
  app->add_option("--resource-type", flags->resource_type, "Only signatures with this resource type")
      ->type_name("TYPE");
  app->add_option("--policy", flags->policy, "The policy of vacuous, shadowed, redundant or overridden (default: each)")
      ->type_name("ID");
  app->add_option("--where", flags->where,
                  "Only the requests on which this Cedar condition is true (without an error)")
      ->type_name("CONDITION");
  app->add_option("--timeout", flags->timeout_ms, "Milliseconds the solver may take a query (then: unknown)")
      ->type_name("MS")
      ->check(WholeNumber(1, 3600000));
  app->add_option("--format", flags->format, "Output: text (default) or json (one object a signature)")
      ->type_name("FORMAT")
      ->check(OneOf({"text", "json"}));
  return Command{app, [flags] { return RunProve(*flags); }};
}

}  // namespace charter::cli
