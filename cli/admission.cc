// Objects and reviews decided offline with the server's pieces (admission.h).
#include "admission.h"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "charter/charter.h"
#include "charter/json.h"
#include "charter/kueue.h"
#include "charter/schema.h"
#include "files.h"
#include "load.h"
#include "report.h"
#include "server.h"
#include "util.h"

namespace charter::cli {
namespace {

bool IsReviewKind(std::string_view kind) { return kind == "AdmissionReview" || kind == "SubjectAccessReview"; }

std::string Label(const kueue::ObjectJson& o) {
  std::string label = o.kind;
  if (!o.name.empty()) {
    CatAppend(&label, " ", o.namespace_name, o.namespace_name.empty() ? "" : "/", o.name);
  } else if (!o.namespace_name.empty()) {
    CatAppend(&label, " in ", o.namespace_name);
  }
  return label;
}

}  // namespace

absl::StatusOr<Admission> LoadAdmission(const AdmissionSetup& setup) {
  Admission a;
  server::Enforcement enforcement = server::Enforcement::kDeny;
  if (!setup.config.empty()) {
    server::ServerOptions options;
    RETURN_IF_ERROR(server::LoadConfig(setup.config, &options));
    a.mapping = std::move(options.mapping);
    a.answers.reasons = std::move(options.reasons);
    enforcement = options.enforcement;
  }
  if (!setup.enforcement.empty()) {
    absl::StatusOr<server::Enforcement> mode = server::ParseEnforcement(setup.enforcement);
    if (!mode.ok()) return absl::InvalidArgumentError("--enforcement: " + std::string(mode.status().message()));
    enforcement = *mode;
  }
  server::PolicyFiles files;
  files.schemas = setup.schemas;
  files.entities = setup.entities;
  files.entities_json = setup.entities_json;
  if (!setup.bundle.empty()) {
    RETURN_IF_ERROR(CheckReadable(setup.bundle));
    files.bundle = setup.bundle;
  } else {
    // As `charter build --policies ... --schema ...` compiles them, so that
    // the bundle, and its hash in the answers, is the one the server would
    // serve.
    CompileOptions options;
    std::optional<Schema> schema;
    if (!setup.schemas.empty()) {
      ASSIGN_OR_RETURN(schema, LoadSchemas(setup.schemas));
      options.schema = &*schema;
    }
    absl::StatusOr<Bundle> bundle = CompilePolicyFiles(setup.policies, "", options);
    if (!bundle.ok()) return bundle.status();
    files.bundle = setup.policies[0];
    files.bundle_bytes = std::string(bundle->bytes());
  }
  absl::StatusOr<std::shared_ptr<const server::PolicyState>> state = server::PolicyState::Load(files, a.mapping.join, enforcement);
  if (!state.ok()) return absl::Status(state.status().code(), OneLine(state.status().message()));
  a.state = *std::move(state);
  a.answers.bundle_hash = a.state->bundle_hash();
  return a;
}

absl::StatusOr<std::vector<AdmissionInput>> ReadAdmissionInputs(const std::string& name, std::string_view text,
                                                                const server::Requester& who) {
  kueue::ReadOptions options;
  absl::StatusOr<std::vector<kueue::ObjectJson>> objects = kueue::ReadObjectsAsJson({name, text}, options);
  if (!objects.ok()) return objects.status();
  // A review in JSON is decided from its own text, as the server gets it.
  size_t first = text.find_first_not_of(" \t\r\n");
  const bool json_text = first != std::string_view::npos && text[first] == '{';
  std::vector<AdmissionInput> out;
  for (size_t i = 0; i < objects->size(); ++i) {
    kueue::ObjectJson& o = (*objects)[i];
    AdmissionInput in;
    in.where = Cat(name, ":", o.line, ":", o.column);
    if (IsReviewKind(o.kind)) {
      in.kind = o.kind == "AdmissionReview" ? server::ReviewKind::kAdmission : server::ReviewKind::kAuthorization;
      in.body = json_text && objects->size() == 1 ? std::string(text) : std::move(o.json);
      in.label = o.kind;
    } else {
      server::ObjectRef ref{o.group, o.version, o.kind, o.name, o.namespace_name};
      in.wrapped = true;
      in.label = Label(o);
      in.body = server::CreateReviewFor(o.json, ref, who, server::ObjectUid(o.json, i));
    }
    out.push_back(std::move(in));
  }
  return out;
}

server::ReviewDecision Decide(const Admission& admission, const AdmissionInput& input) {
  return server::DecideReview(input.kind, input.body, admission.mapping, *admission.state, admission.answers);
}

std::string AboutObject(const AdmissionInput& input, std::string message) {
  constexpr std::string_view kObject = "request.object.";
  if (input.wrapped && message.rfind(kObject, 0) == 0) message.erase(0, kObject.size());
  return message;
}

std::string_view Verdict(const AdmissionInput& input, const server::ReviewDecision& d) {
  if (d.outcome == server::ReviewDecision::kMalformed) return "error";
  if (d.decision.allowed) return "allowed";
  if (input.kind == server::ReviewKind::kAuthorization && d.decision.reasons.empty()) return "no opinion";
  return "denied";
}

std::string Describe(const AdmissionInput& input, const server::ReviewDecision& d) {
  if (d.outcome == server::ReviewDecision::kMalformed) return input.label;
  const server::MappedReview& m = d.review;
  std::string out = m.operation == "CREATE" ? "" : Cat(m.operation, " ");
  CatAppend(&out, m.kind);
  if (!m.name.empty()) {
    CatAppend(&out, " ", m.namespace_name, m.namespace_name.empty() ? "" : "/", m.name);
  } else if (!m.namespace_name.empty()) {
    CatAppend(&out, " in ", m.namespace_name);
  }
  if (input.kind == server::ReviewKind::kAuthorization) CatAppend(&out, " by ", m.principal.ToString());
  return out;
}

}  // namespace charter::cli
