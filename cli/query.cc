// `charter query`: what a principal may do, and to what. With the resource
// unknown (--principal and --resource-type), every resource of the type in
// the entities that the principal is allowed the action on; with the
// principal unknown (--resource and --principal-type), every principal of
// the type allowed the action on the resource. With --residual, instead of
// a list, the condition under which an unknown entity of the type is
// allowed (partial evaluation of the policy text; docs/query.md).
//
//   charter query (--policies P | --bundle B) --entities E [--schema S]
//       (--principal UID --resource-type TYPE | --resource UID --principal-type TYPE)
//       --action UID [--context JSON] [--residual] [--format text|json]
//
// Names may be short where the schema and the entities make them
// unambiguous (names.h): `alice` or `Member::"alice"` for
// `Governance::Member::"alice"`, `viewProject` for the action, `Project`
// for the type.
//
// Exits 0 with the answer (an empty list is an answer), 1 on any error.
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "charter/charter.h"
#include "charter/json.h"
#include "charter/query.h"
#include "charter/schema.h"
#include "command.h"
#include "files.h"
#include "load.h"
#include "names.h"
#include "report.h"

namespace charter::cli {
namespace {

struct QueryFlags {
  PolicySource source;
  std::string entities;
  std::vector<std::string> schemas;
  std::string principal, resource, action;
  std::string principal_type, resource_type;
  std::string context;
  bool residual = false;
  std::string format = "text";
};

std::string ListingText(const QueryRequest& q, const ListPage& page, size_t candidates) {
  std::string out;
  for (const QueryMatch& m : page.matches) {
    absl::StrAppend(&out, Printable(m.uid.ToString()));
    if (!m.reasons.empty()) {
      out += "  reasons: ";
      for (size_t i = 0; i < m.reasons.size(); ++i) absl::StrAppend(&out, i > 0 ? ", " : "", Printable(m.reasons[i]));
    }
    if (!m.errors.empty()) {
      out += "  errors: ";
      for (size_t i = 0; i < m.errors.size(); ++i) {
        absl::StrAppend(&out, i > 0 ? "; " : "", Printable(m.errors[i].policy_id), ": ",
                        Printable(OneLine(m.errors[i].message)));
      }
    }
    out += "\n";
  }
  bool resource_unknown = q.unknown() == QueryRequest::Unknown::kResource;
  absl::StrAppend(&out, page.matches.size(), " of ", candidates, " ", resource_unknown ? "resources" : "principals",
                  " of type ", Printable(q.unknown_type()), " allowed\n");
  return out;
}

std::string ListingJson(const QueryRequest& q, const ListPage& page, size_t candidates) {
  bool resource_unknown = q.unknown() == QueryRequest::Unknown::kResource;
  std::string out = "{\"unknown\":";
  out += resource_unknown ? "\"resource\"" : "\"principal\"";
  out += ",\"type\":";
  AppendJsonQuoted(&out, q.unknown_type());
  out += resource_unknown ? ",\"principal\":" : ",\"resource\":";
  AppendUidJson(&out, resource_unknown ? q.principal() : q.resource());
  out += ",\"action\":";
  AppendUidJson(&out, q.action());
  absl::StrAppend(&out, ",\"candidates\":", candidates, ",\"allowed\":[");
  for (size_t i = 0; i < page.matches.size(); ++i) {
    const QueryMatch& m = page.matches[i];
    out += i > 0 ? ",{\"uid\":" : "{\"uid\":";
    AppendUidJson(&out, m.uid);
    out += ",\"reasons\":[";
    for (size_t j = 0; j < m.reasons.size(); ++j) {
      if (j > 0) out += ",";
      AppendJsonQuoted(&out, m.reasons[j]);
    }
    out += "],\"errors\":[";
    for (size_t j = 0; j < m.errors.size(); ++j) {
      out += j > 0 ? ",{\"policy\":" : "{\"policy\":";
      AppendJsonQuoted(&out, m.errors[j].policy_id);
      out += ",\"message\":";
      AppendJsonQuoted(&out, m.errors[j].message);
      out += "}";
    }
    out += "]}";
  }
  out += "]}\n";
  return out;
}

int RunQuery(const QueryFlags& flags) {
  if (flags.residual && flags.source.policies.empty()) {
    PrintError(WithPath(flags.source.bundle,
                        "--residual needs the policy text (--policies): a bundle holds compiled code only"));
    return kError;
  }
  std::optional<Schema> schema;
  if (!flags.schemas.empty()) {
    absl::StatusOr<Schema> loaded = LoadSchemas(flags.schemas);
    if (!loaded.ok()) return Fail(loaded.status());
    schema = *std::move(loaded);
  }
  const Schema* with = schema.has_value() ? &*schema : nullptr;

  // Every input is read even after one fails, so that all faults are
  // reported at once.
  bool failed = false;
  auto check = [&](const absl::Status& s) {
    if (!s.ok()) {
      Fail(s);
      failed = true;
    }
  };
  std::vector<SourceFile> texts;
  absl::StatusOr<Engine> engine = LoadEngine(flags.source, nullptr, &texts);
  check(engine.status());
  absl::StatusOr<Entities> entities = LoadEntities(flags.entities, with);
  check(entities.status());
  if (failed) return kError;
  // Names in short form where the schema and the entities make them
  // unambiguous (`alice`, `Member::"alice"`, `viewProject`, `Project`).
  NameScope names(with, &*entities);
  bool resource_unknown = !flags.principal.empty();
  absl::StatusOr<EntityUid> known = resource_unknown ? names.Uid("--principal", flags.principal)
                                                     : names.Uid("--resource", flags.resource);
  absl::StatusOr<EntityUid> action = names.Action("--action", flags.action);
  absl::StatusOr<std::string> type = resource_unknown ? names.Type("--resource-type", flags.resource_type)
                                                      : names.Type("--principal-type", flags.principal_type);
  check(known.status());
  check(action.status());
  check(type.status());
  if (failed) return kError;
  switch (engine->FitSchema(schema.has_value() ? &*schema : nullptr)) {
    case Engine::SchemaFit::kUntyped:
    case Engine::SchemaFit::kSame: break;
    case Engine::SchemaFit::kMissing:
      PrintError(WithPath(flags.source.bundle,
                          "the bundle was compiled with a schema: pass it with --schema, so that "
                          "the entities and the query are validated against it"));
      return kError;
    case Engine::SchemaFit::kOther:
      PrintError(WithPath(flags.source.bundle,
                          absl::StrCat("the bundle was compiled with another schema (",
                                       std::string(engine->schema_fingerprint()), "); `",
                                       absl::StrJoin(flags.schemas, "` + `"), "` is ",
                                       schema->Fingerprint())));
      return kError;
  }
  absl::StatusOr<QueryRequest> query =
      resource_unknown
          ? QueryRequest::ForResources(*known, *action, *type, flags.context, with, "--context")
          : QueryRequest::ForPrincipals(*type, *action, *known, flags.context, with, "--context");
  if (!query.ok()) return Fail(query.status());

  if (flags.residual) {
    absl::StatusOr<std::vector<TemplateLink>> links = LoadTemplateLinks(flags.source.links, size_t{64} << 20);
    if (!links.ok()) return Fail(links.status());
    // (The policies compiled above: what is left to fail is a link, which
    // names its own place.)
    absl::StatusOr<PartialEvaluator> pe = PartialEvaluator::Create(texts, *links);
    if (!pe.ok()) {
      return Fail(absl::InvalidArgumentError(texts.size() == 1 ? WithPath(std::string(texts[0].name()),
                                                                          OneLine(pe.status().message()))
                                                               : OneLine(pe.status().message())));
    }
    absl::StatusOr<Residual> r = pe->Evaluate(*query, *entities);
    if (!r.ok()) return Fail(r.status());
    return WriteStdout(flags.format == "json" ? r->ToJson() + "\n" : r->ToText()) ? kOk : kError;
  }

  absl::StatusOr<ListPage> page = ListAllowed(*engine, *query, *entities);
  if (!page.ok()) return Fail(page.status());
  size_t candidates = page->examined;
  return WriteStdout(flags.format == "json" ? ListingJson(*query, *page, candidates)
                                            : ListingText(*query, *page, candidates))
             ? kOk
             : kError;
}

}  // namespace

Command AddQueryCommand(CLI::App& root) {
  auto flags = std::make_shared<QueryFlags>();
  CLI::App* app = root.add_subcommand(
      "query", "List the resources a principal may act on (or the principals allowed on a resource), or their condition");
  app->footer(
      "Either --principal with --resource-type (which resources?) or --resource with --principal-type "
      "(which principals?). A UID is Type::\"id\", or short where the schema and entities make it "
      "unambiguous: alice, Member::\"alice\"; an action its id; a TYPE its last name (Project). "
      "Exit status: 0 with the answer, 1 on any error.");

  AddPolicySourceOptions(app, &flags->source);
  AddSchemaOption(app, &flags->schemas,
                  "Schema (Cedar schema text or JSON) to check the entities and the query against");
  app->add_option("--entities", flags->entities, "Entities in Cedar's JSON format")->type_name("FILE")->required();
  CLI::Option* principal =
      app->add_option("--principal", flags->principal, "The principal, known: list the resources")->type_name("UID");
  CLI::Option* resource =
      app->add_option("--resource", flags->resource, "The resource, known: list the principals")->type_name("UID");
  principal->excludes(resource);
  app->add_option("--action", flags->action, "The action")->type_name("UID")->required();
  CLI::Option* resource_type =
      app->add_option("--resource-type", flags->resource_type, "The type of the resources to list (with --principal)")
          ->type_name("TYPE");
  CLI::Option* principal_type =
      app->add_option("--principal-type", flags->principal_type,
                      "The type of the principals to list (with --resource)")
          ->type_name("TYPE");
  resource_type->needs(principal);
  principal_type->needs(resource);
  app->add_option("--context", flags->context, "The context: a JSON object in Cedar's value encoding")
      ->type_name("JSON");
  app->add_flag("--residual", flags->residual,
                "Print the condition on the unknown entity under which the request is allowed "
                "(needs --policies)");
  app->add_option("--format", flags->format, "Output: text (default) or json (one object)")
      ->type_name("FORMAT")
      ->check(OneOf({"text", "json"}));

  app->callback([flags] {
    RequirePolicySource(flags->source);
    if (flags->principal.empty() && flags->resource.empty()) throw CLI::RequiredError("--principal or --resource");
    if (!flags->principal.empty() && flags->resource_type.empty()) throw CLI::RequiredError("--resource-type");
    if (!flags->resource.empty() && flags->principal_type.empty()) throw CLI::RequiredError("--principal-type");
  });
  return Command{app, [flags] { return RunQuery(*flags); }};
}

}  // namespace charter::cli
