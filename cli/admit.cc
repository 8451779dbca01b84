// `charter admit`: decides Kubernetes objects and reviews offline, with the
// server's policy state, mapping and answers (admission.h, server/decide.h):
// what `charter serve` would answer, without a server.
//
//   charter admit (--bundle FILE | --policies FILE...) [--schema FILE...] [--entities FILE]
//                 [--config FILE] [--as USER [--as-group GROUP...]] [--format text|json|review] FILE...
//
// Each FILE (`-` for stdin) is YAML or JSON: AdmissionReviews and
// SubjectAccessReviews are decided as they are; any other object, and every
// item of a List, as the AdmissionReview of its CREATE by --as (default the
// cluster administrator, kubernetes-admin in system:masters). Text: a line an
// object, then over several a summary grouped by the policies that deny
// (the audit of a cluster's objects, from `kubectl get -A -o json`); json:
// the server's answer, a line each. Exit 0 when everything is allowed, 2
// when something is not, 1 on an error.
#include <algorithm>
#include <iostream>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "admission.h"
#include "charter/json.h"
#include "command.h"
#include "files.h"
#include "json_write.h"
#include "load.h"
#include "report.h"
#include "util.h"

namespace charter::cli {
namespace {

// The largest input read: a List of a large cluster's objects.
constexpr size_t kMaxInputBytes = size_t{1} << 30;

struct AdmitFlags {
  std::vector<std::string> files;
  AdmissionSetup setup;
  std::string as;
  std::vector<std::string> as_groups;
  std::string format = "text";
};

absl::StatusOr<std::string> ReadInput(const std::string& path) {
  if (path != "-") return ReadFile(path, kMaxInputBytes);
  std::string text(std::istreambuf_iterator<char>(std::cin), {});
  if (std::cin.bad()) return absl::DataLossError("<stdin>: cannot read");
  if (text.size() > kMaxInputBytes) {
    return absl::InvalidArgumentError(Cat("<stdin>: larger than ", kMaxInputBytes, " bytes"));
  }
  return text;
}

// The policy's configured reason, "" when none.
std::string WhyFor(const Admission& a, const std::string& policy) {
  for (const auto& [id, why] : a.answers.reasons) {
    if (id == policy) return why;
  }
  return "";
}

// "allowed by p", "denied by p (why); q", "denied: no policy permits it".
std::string TextLine(const Admission& a, const AdmissionInput& in, const server::ReviewDecision& d) {
  std::string line = Cat(Printable(Describe(in, d)), ": ", Verdict(in, d));
  if (d.outcome == server::ReviewDecision::kRefused) {
    return Cat(line, ": ", Printable(AboutObject(in, d.review.refused)), "\n");
  }
  if (d.decision.reasons.empty()) {
    return Cat(line, d.decision.errors.empty() ? ": no policy permits it" : ": no policy decided it", "\n");
  }
  line += " by ";
  for (size_t i = 0; i < d.decision.reasons.size(); ++i) {
    const std::string& id = d.decision.reasons[i];
    CatAppend(&line, i ? "; " : "", Printable(id));
    std::string why = d.decision.allowed ? "" : WhyFor(a, id);
    if (!why.empty()) CatAppend(&line, ": ", Printable(why));
  }
  return line + "\n";
}

// One group of the summary: what would be denied for one reason.
struct Group {
  std::vector<std::string> items;
  bool admission = false, authorization = false;
};

std::string Noun(size_t n, bool admission, bool authorization) {
  std::string noun = admission && authorization ? "review" : authorization ? "request" : "object";
  return Cat(n, " ", noun, n == 1 ? "" : "s");
}

int RunAdmit(const AdmitFlags& flags) {
  server::Requester who;
  if (!flags.as.empty()) {
    who.username = flags.as;
    // As the apiserver impersonates: the groups given, and every
    // authenticated user's.
    who.groups = flags.as_groups;
    if (std::find(who.groups.begin(), who.groups.end(), "system:authenticated") == who.groups.end()) {
      who.groups.push_back("system:authenticated");
    }
  }
  // Every input read first: a fault in any is reported with the others', and
  // nothing is decided.
  std::vector<AdmissionInput> inputs;
  bool failed = false;
  if (std::count(flags.files.begin(), flags.files.end(), "-") > 1) {
    PrintError("`-` (stdin) is given more than once");
    return kError;
  }
  for (const std::string& path : flags.files) {
    absl::StatusOr<std::string> text = ReadInput(path);
    absl::StatusOr<std::vector<AdmissionInput>> read =
        text.ok() ? ReadAdmissionInputs(path == "-" ? "<stdin>" : path, *text, who)
                  : absl::StatusOr<std::vector<AdmissionInput>>(text.status());
    if (!read.ok()) {
      Fail(read.status());
      failed = true;
      continue;
    }
    std::move(read->begin(), read->end(), std::back_inserter(inputs));
  }
  if (flags.format == "review") {
    if (failed) return kError;
    // What each input is decided as, one line each (for curl, or a webhook
    // of another kind): nothing is decided.
    std::string out;
    for (const AdmissionInput& in : inputs) {
      absl::StatusOr<JsonDocument> doc = JsonDocument::Parse(in.body);
      if (!doc.ok()) return Fail(doc.status());  // INVARIANT: the reader wrote or checked it
      server::AppendCompact(&out, in.body, doc->root(), nullptr);
      out += "\n";
    }
    return WriteStdout(out) ? kOk : kError;
  }
  absl::StatusOr<Admission> admission = LoadAdmission(flags.setup);
  if (!admission.ok()) {
    Fail(admission.status());
    failed = true;
  }
  if (failed) return kError;

  const bool json = flags.format == "json";
  std::string out;
  size_t allowed = 0, denied = 0, no_opinion = 0, errors = 0;
  bool any_admission = false, any_authorization = false;
  std::map<std::string, Group> by_policy;
  Group default_deny, refused;
  for (const AdmissionInput& in : inputs) {
    server::ReviewDecision d = Decide(*admission, in);
    const bool authorization = in.kind == server::ReviewKind::kAuthorization;
    (authorization ? any_authorization : any_admission) = true;
    if (d.outcome == server::ReviewDecision::kMalformed) {
      ++errors;
      std::string message = OneLine(d.error.message());
      PrintError(Cat(in.where, ": ", Printable(in.label), ": ", Printable(AboutObject(in, message))));
      if (json) CatAppend(&out, "{\"error\":{\"code\":400,\"message\":", server::Quoted(message), "}}\n");
      continue;
    }
    std::string what = Printable(Describe(in, d));
    for (const PolicyError& e : d.decision.errors) {
      if (d.outcome == server::ReviewDecision::kRefused) break;
      PrintWarning(Cat(in.where, ": ", what, ": ",
                       e.policy_id == "(mapping)" ? "not decided" : Cat("policy `", Printable(e.policy_id), "` was skipped"),
                       ": ", Printable(OneLine(e.message))));
    }
    // What the rollout let through (--enforcement, @enforcement), as the
    // server's warnings and audit annotation say it.
    for (const server::Unenforced& u : d.unenforced) {
      if (!d.decision.allowed) break;
      PrintWarning(Cat(in.where, ": ", what, ": would be denied (", server::EnforcementName(u.mode), "): ",
                       u.policy.empty() ? std::string("no policy permits it")
                                        : Cat("forbidden by policy `", Printable(u.policy), "`")));
    }
    std::string_view verdict = Verdict(in, d);
    if (verdict == "allowed") {
      ++allowed;
    } else {
      ++(verdict == "denied" ? denied : no_opinion);
      Group* g = nullptr;
      if (d.outcome == server::ReviewDecision::kRefused) {
        refused.items.push_back(what);
        g = &refused;
      } else if (d.decision.reasons.empty()) {
        default_deny.items.push_back(what);
        g = &default_deny;
      }
      if (g != nullptr) (authorization ? g->authorization : g->admission) = true;
      for (const std::string& id : d.decision.reasons) {
        Group& p = by_policy[id];
        p.items.push_back(what);
        (authorization ? p.authorization : p.admission) = true;
      }
    }
    out += json ? Cat(d.answer, "\n") : TextLine(*admission, in, d);
  }
  if (!json && inputs.size() != 1) {
    // The audit: what would be denied, by policy, most first.
    CatAppend(&out, inputs.empty() ? "" : "\n", Noun(inputs.size(), any_admission, any_authorization), ": ", allowed,
              " allowed, ", denied, " denied");
    if (no_opinion > 0) CatAppend(&out, ", ", no_opinion, " no opinion");
    if (errors > 0) CatAppend(&out, ", ", errors, errors == 1 ? " error" : " errors");
    out += "\n";
    std::vector<std::pair<std::string, const Group*>> groups;
    for (const auto& [id, g] : by_policy) groups.emplace_back(id, &g);
    std::stable_sort(groups.begin(), groups.end(),
                     [](const auto& x, const auto& y) { return x.second->items.size() > y.second->items.size(); });
    auto list = [&](std::string head, const Group& g) {
      CatAppend(&out, head, ":\n");
      for (const std::string& item : g.items) CatAppend(&out, "  ", item, "\n");
    };
    for (const auto& [id, g] : groups) {
      list(Cat(Printable(id), " would deny ", Noun(g->items.size(), g->admission, g->authorization)), *g);
    }
    if (!refused.items.empty()) {
      list(Cat("the mapping denies ", Noun(refused.items.size(), true, false),
               " before any policy (more than can be counted)"),
           refused);
    }
    if (!default_deny.items.empty()) {
      list(Cat("no policy permits ", Noun(default_deny.items.size(), default_deny.admission, default_deny.authorization)),
           default_deny);
    }
  }
  if (!WriteStdout(out)) return kError;
  if (errors > 0) return kError;
  return denied + no_opinion > 0 ? kDeny : kOk;
}

}  // namespace

Command AddAdmitCommand(CLI::App& root) {
  auto flags = std::make_shared<AdmitFlags>();
  CLI::App* app = root.add_subcommand(
      "admit", "Decide Kubernetes objects and reviews offline, as `charter serve` would answer them");
  app->footer(
      "A plain object (a Pod, a Job, a List's items...) is decided as its CREATE by --as (default "
      "kubernetes-admin in system:masters); AdmissionReviews and SubjectAccessReviews as they are. "
      "Exit status: 0 when everything is allowed, 2 when something is not, 1 on an error.");
  app->add_option("FILE", flags->files,
                  "Objects or reviews, YAML (several documents) or JSON; a List's items each; - for stdin")
      ->type_name("FILE")
      ->required();
  AdmissionSetup& s = flags->setup;
  CLI::Option* bundle =
      app->add_option("--bundle", s.bundle, "The bundle `charter serve` serves (`charter build`)")->type_name("FILE");
  CLI::Option* policies =
      AddPoliciesOption(app, &s.policies, ", instead of a bundle, compiled as `charter build` compiles them");
  bundle->excludes(policies);
  AddSchemaOption(app, &s.schemas,
                  "The schema, as for `charter serve` (stdlib/governance.cedarschema, then "
                  "stdlib/kubernetes.cedarschema)");
  app->add_option("--entities", s.entities, "Configured entities in Cedar's JSON format, as for `charter serve`")
      ->type_name("FILE");
  app->add_option("--config", s.config, "The server's configuration (mapping, join, reasons, enforcement; docs/server.md)")
      ->type_name("FILE");
  app->add_option("--enforcement", s.enforcement,
                  "Rollout mode, as for `charter serve`: deny (default), warn or dryrun; overrides the configuration's")
      ->type_name("MODE");
  CLI::Option* as =
      app->add_option("--as", flags->as, "The user who creates the plain objects (a service account: "
                                         "system:serviceaccount:NS:NAME)")
          ->type_name("USER");
  app->add_option("--as-group", flags->as_groups, "A group of the --as user; give it again for more")
      ->type_name("GROUP")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->allow_extra_args(false)
      ->needs(as);
  app->add_option("--format", flags->format,
                  "Output: text (default), a line each and a summary by policy; json, the server's answer a line "
                  "each; review, the review each input is decided as, a line each, without deciding")
      ->type_name("FORMAT")
      ->check(OneOf({"text", "json", "review"}));
  app->callback([flags, as] {
    if (flags->setup.bundle.empty() && flags->setup.policies.empty() && flags->format != "review") {
      throw CLI::RequiredError("--bundle or --policies");
    }
    if (as->count() > 0 && flags->as.empty()) throw CLI::ValidationError("--as", "the user name is empty");
  });
  return Command{app, [flags] { return RunAdmit(*flags); }};
}

}  // namespace charter::cli
