// Loading a PolicyState, and laying a review's entities over the configured
// ones (policy_state.h).
#include "policy_state.h"

#include <openssl/evp.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <span>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "charter_support/schema_files.h"
#include "charter_support/strings.h"
#include "charter/compiler.h"
#include "charter/diagnostics.h"
#include "charter/json.h"
#include "charter/schedule.h"
#include "json_write.h"

namespace charter::server {
namespace {

using support::Cat;
using support::CatAppend;

using support::S;

absl::StatusOr<std::string> ReadWhole(const std::string& path, size_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(Cat(path, ": cannot open: ", std::strerror(errno)));
  std::string text;
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    text.append(buffer, static_cast<size_t>(in.gcount()));
    if (text.size() > max_bytes) {
      return absl::InvalidArgumentError(Cat(path, ": larger than ", max_bytes, " bytes"));
    }
  }
  if (in.bad()) return absl::DataLossError(Cat(path, ": cannot read"));
  return text;
}

std::string Sha256(std::string_view bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  EVP_Digest(bytes.data(), bytes.size(), digest, &n, EVP_sha256(), nullptr);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "sha256:";
  for (unsigned int i = 0; i < n; ++i) {
    out.push_back(kHex[digest[i] >> 4]);
    out.push_back(kHex[digest[i] & 15]);
  }
  return out;
}

// An entity uid in every form the entity reader takes (docs/entities.md):
// {"type": T, "id": I} (other keys ignored), ["T", "I"], and either inside
// {"__entity": ...}. The store has read the file already, so where a uid
// must be (an entity's, a parent) this is the one it read.
std::optional<std::pair<std::string, std::string>> AsUid(const JsonValue& v) {
  if (v.is_array()) {
    if (v.size() == 2 && v.at(0).is_string() && v.at(1).is_string()) {
      return std::make_pair(S(v.at(0).as_string()), S(v.at(1).as_string()));
    }
    return std::nullopt;
  }
  if (!v.is_object()) return std::nullopt;
  if (std::optional<JsonValue> inner = v.Find("__entity")) {
    if (std::optional<std::pair<std::string, std::string>> uid = AsUid(*inner)) return uid;
  }
  std::optional<JsonValue> type = v.Find("type"), id = v.Find("id");
  if (type && id && type->is_string() && id->is_string()) {
    return std::make_pair(S(type->as_string()), S(id->as_string()));
  }
  return std::nullopt;
}

std::string SortedJoin(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  std::string out;
  for (const std::string& s : v) CatAppend(&out, s, ",");
  return out;
}

}  // namespace

absl::StatusOr<std::shared_ptr<const PolicyState>> PolicyState::Load(const PolicyFiles& files,
                                                                     const GovernanceJoins& join,
                                                                     Enforcement enforcement) {
  std::optional<Schema> schema;
  if (!files.schemas.empty()) {
    std::vector<SourceFile> sources;
    for (const std::string& path : files.schemas) {
      absl::StatusOr<std::string> text = ReadWhole(path, size_t{16} << 20);
      if (!text.ok()) return text.status();
      sources.emplace_back(path, *std::move(text));
    }
    absl::StatusOr<Schema> parsed = support::ParseSchemaFiles(sources);
    if (!parsed.ok()) return parsed.status();
    schema = *std::move(parsed);
  }
  VerifyOptions verify;
  // What messages name: the bundle, or the first policy file compiled.
  const std::string& bundle_name = !files.bundle.empty() || files.policies.empty() ? files.bundle : files.policies[0];
  std::optional<std::string> compiled;
  if (!files.policies.empty() && !files.bundle_bytes) {
    // Policy sources: compiled here, at every load, with the schema (and the
    // scheduling declarations), as `charter build` would; the first faults
    // of each file, at their line and column.
    std::vector<SourceFile> sources;
    for (const std::string& path : files.policies) {
      absl::StatusOr<std::string> text = ReadWhole(path, size_t{64} << 20);
      if (!text.ok()) return text.status();
      sources.emplace_back(path, *std::move(text));
    }
    CompileOptions options;
    options.schema = schema.has_value() ? &*schema : nullptr;
    options.declarations = &schedule::Declarations();
    std::vector<Diagnostics> diagnostics;
    absl::StatusOr<Bundle> built = Compile(sources, {}, options, &diagnostics);
    if (!built.ok()) {
      std::string errors;
      for (size_t i = 0; i < sources.size() && i < diagnostics.size(); ++i) {
        for (const Diagnostic& d : diagnostics[i].items()) {
          if (d.severity == Severity::kWarning) continue;
          Diagnostics one;
          one.Add(d);
          CatAppend(&errors, errors.empty() ? "" : "; ", support::OneLine(one.RenderShort(sources[i])));
        }
      }
      return absl::InvalidArgumentError(errors.empty() ? std::string(built.status().message()) : errors);
    }
    compiled = std::string(built->bytes());
  }
  // Read, not mapped (Bundle::FromFile): the file may be rewritten in place
  // while this state serves, and a mapped file that shrinks faults.
  absl::StatusOr<std::string> bytes =
      files.bundle_bytes ? absl::StatusOr<std::string>(*files.bundle_bytes)
      : compiled         ? absl::StatusOr<std::string>(*std::move(compiled))
                         : ReadWhole(files.bundle, verify.max_bundle_bytes);
  if (!bytes.ok()) return bytes.status();
  std::string hash = Sha256(*bytes);
  absl::StatusOr<Bundle> bundle = Bundle::FromBytes(*std::move(bytes));
  absl::StatusOr<Engine> engine = Engine::Create(*std::move(bundle), verify);
  if (!engine.ok()) return absl::Status(engine.status().code(), Cat(bundle_name, ": ", S(engine.status().message())));
  // The scheduling section, the scheduling library's to verify, is checked
  // before the engine serves, as the bundle's other tables are.
  if (absl::Status config = schedule::ReadConfiguration(*engine).status(); !config.ok()) {
    return absl::Status(config.code(), Cat(bundle_name, ": ", S(config.message())));
  }
  switch (engine->FitSchema(schema.has_value() ? &*schema : nullptr)) {
    case Engine::SchemaFit::kUntyped:
    case Engine::SchemaFit::kSame: break;
    case Engine::SchemaFit::kMissing:
      return absl::InvalidArgumentError(Cat(
          bundle_name, ": the bundle was compiled with a schema: pass it with --schema"));
    case Engine::SchemaFit::kOther: {
      std::string names;
      for (const std::string& path : files.schemas) CatAppend(&names, names.empty() ? "`" : "` + `", path);
      return absl::InvalidArgumentError(
          Cat(bundle_name, ": the bundle was compiled with another schema (", S(engine->schema_fingerprint()),
              "); ", names, "` is ", schema->Fingerprint(),
              files.schemas.size() > 1 ? " (give the schema files in the order `charter build` had them)" : ""));
    }
  }
  absl::StatusOr<EnforcementTable> modes = EnforcementTable::FromEngine(*engine, enforcement);
  if (!modes.ok()) return absl::Status(modes.status().code(), Cat(bundle_name, ": ", S(modes.status().message())));
  std::shared_ptr<PolicyState> state(new PolicyState(*std::move(engine)));
  state->enforcement_ = *std::move(modes);
  state->schema_ = std::move(schema);
  state->bundle_hash_ = std::move(hash);
  EntitiesOptions options;
  if (files.entities_json) {
    state->entities_text_ = *files.entities_json;
  } else if (files.entities.empty()) {
    state->entities_text_ = "[]";
  } else {
    absl::StatusOr<std::string> text = ReadWhole(files.entities, options.max_input_bytes);
    if (!text.ok()) return text.status();
    state->entities_text_ = *std::move(text);
  }
  std::string name = files.entities.empty() && !files.entities_json ? "(no entities)" : files.entities;
  absl::StatusOr<Entities> entities =
      state->schema_ ? Entities::FromJson(state->entities_text_, *state->schema_, name, options)
                     : Entities::FromJson(state->entities_text_, name, options);
  if (!entities.ok()) return entities.status();
  state->entities_ = *std::move(entities);
  if (absl::Status s = state->Join(join, name); !s.ok()) return s;
  state->PrepareUntypedJoin();
  state->loaded_at_ = std::chrono::system_clock::now();
  return std::shared_ptr<const PolicyState>(std::move(state));
}

absl::Status PolicyState::Join(const GovernanceJoins& join, const std::string& entities_name) {
  if (join.empty()) return absl::OkStatus();
  const GovernanceJoin& first = join.users.empty() ? join.namespaces.begin()->second : join.users.begin()->second;
  if (!schema_) {
    return absl::InvalidArgumentError(Cat(
        first.where, ": `join` needs the schema that declares the attribute `governance` (--schema "
        "stdlib/governance.cedarschema --schema stdlib/kubernetes.cedarschema)"));
  }
  auto declares = [&](const std::string& type, const GovernanceJoin& j) -> absl::Status {
    std::vector<std::string> attrs = schema_->Attributes(type);
    if (std::find(attrs.begin(), attrs.end(), "governance") != attrs.end()) return absl::OkStatus();
    return absl::InvalidArgumentError(Cat(j.where, ": the schema declares no attribute `governance` of ", type,
                                          " (stdlib/kubernetes.cedarschema does, with "
                                          "stdlib/governance.cedarschema before it)"));
  };
  auto exists = [&](const GovernanceJoin& j) -> absl::Status {
    if (entities_.Find(j.target).has_value()) return absl::OkStatus();
    return absl::InvalidArgumentError(Cat(j.where, ": ", j.target.ToString(), " is not an entity of ", entities_name));
  };
  // The joined entity, with its attribute, read with the schema: the
  // schema's reader says when the target has the wrong type.
  auto typed = [&](const GovernanceJoin& j, std::string_view entity_json, const std::string& owner) -> absl::Status {
    absl::StatusOr<Entities> one = Entities::FromJson(Cat("[", S(entity_json), "]"), *schema_, "join");
    if (one.ok()) return absl::OkStatus();
    std::optional<Diagnostic> d = DiagnosticOf(one.status());
    return absl::InvalidArgumentError(Cat(j.where, ": ", j.target.ToString(), " cannot be the `governance` of ",
                                          owner, ": ", d ? d->message : S(one.status().message())));
  };
  for (const auto& [user, j] : join.users) {
    constexpr std::string_view kServiceAccount = "system:serviceaccount:";
    std::string type = "Kubernetes::User", id = user;
    std::string attrs = "\"name\":\"\",\"uid\":\"\"";
    if (user.rfind(kServiceAccount, 0) == 0) {
      id = user.substr(kServiceAccount.size());
      size_t colon = id.find(':');
      if (colon == std::string::npos || colon == 0 || colon + 1 == id.size()) {
        return absl::InvalidArgumentError(Cat(j.where, ": `", user, "` is not system:serviceaccount:NAMESPACE:NAME"));
      }
      type = "Kubernetes::ServiceAccount";
      attrs = "\"namespace\":\"\",\"name\":\"\",\"uid\":\"\"";
    }
    if (absl::Status s = declares(type, j); !s.ok()) return s;
    if (absl::Status s = exists(j); !s.ok()) return s;
    std::string json = Cat("{\"uid\":", UidJson(type, id), ",\"attrs\":{", attrs, ",\"governance\":",
                           EntityValueJson(j.target.type, j.target.id), "},\"parents\":[]}");
    if (absl::Status s = typed(j, json, EntityUid{type, id}.ToString()); !s.ok()) return s;
  }
  if (join.namespaces.empty()) return absl::OkStatus();
  absl::StatusOr<JsonDocument> doc = JsonDocument::Parse(entities_text_);
  if (!doc.ok()) return doc.status();
  if (!doc->root().is_array()) return absl::InvalidArgumentError(Cat(entities_name, ": expected an array of entities"));
  // The configured namespaces: the offset of each one's entity and of its attrs.
  absl::flat_hash_map<std::string, std::pair<size_t, std::optional<JsonValue>>> namespaces;
  for (size_t i = 0; i < doc->root().size(); ++i) {
    JsonValue e = doc->root().at(i);
    std::optional<JsonValue> uid_value = e.is_object() ? e.Find("uid") : std::nullopt;
    std::optional<std::pair<std::string, std::string>> uid;
    if (uid_value) uid = AsUid(*uid_value);
    if (uid && uid->first == "Kubernetes::Namespace") namespaces[uid->second] = {e.offset(), e.Find("attrs")};
  }
  std::vector<std::pair<size_t, std::string>> inserts;  // offset in entities_text_ -> text
  for (const auto& [ns, j] : join.namespaces) {
    if (absl::Status s = declares("Kubernetes::Namespace", j); !s.ok()) return s;
    auto it = namespaces.find(ns);
    if (it == namespaces.end() || !it->second.second || !it->second.second->is_object()) {
      return absl::InvalidArgumentError(Cat(j.where, ": ", EntityUid{"Kubernetes::Namespace", ns}.ToString(),
                                            " is not an entity of ", entities_name,
                                            ": a joined namespace is configured there, with its team and users"));
    }
    const JsonValue& attrs = *it->second.second;
    if (attrs.Find("governance")) {
      return absl::InvalidArgumentError(Cat(j.where, ": ", EntityUid{"Kubernetes::Namespace", ns}.ToString(), " of ",
                                            entities_name, " sets `governance` itself: join it in one place"));
    }
    if (absl::Status s = exists(j); !s.ok()) return s;
    std::string insert = Cat("\"governance\":", EntityValueJson(j.target.type, j.target.id), attrs.size() ? "," : "");
    size_t begin = it->second.first, at = attrs.offset() + 1;
    std::string entity = entities_text_.substr(begin, JsonValueEnd(entities_text_, begin) - begin);
    entity.insert(at - begin, insert);
    if (absl::Status s = typed(j, entity, EntityUid{"Kubernetes::Namespace", ns}.ToString()); !s.ok()) return s;
    inserts.emplace_back(at, std::move(insert));
  }
  std::sort(inserts.begin(), inserts.end());
  std::string text;
  size_t from = 0;
  for (const auto& [at, insert] : inserts) {
    text.append(entities_text_, from, at - from);
    text += insert;
    from = at;
  }
  text.append(entities_text_, from);
  EntitiesOptions options;
  absl::StatusOr<Entities> joined = Entities::FromJson(text, *schema_, entities_name, options);
  if (!joined.ok()) return joined.status();
  entities_text_ = std::move(text);
  entities_ = *std::move(joined);
  return absl::OkStatus();
}

void PolicyState::PrepareUntypedJoin() {
  if (!schema_) return;
  // The schema must declare the types the mapping writes with exactly the
  // attributes it writes (stdlib/kubernetes.cedarschema does).
  const std::vector<std::pair<std::string, std::string>> shapes = {
      {"Kubernetes::User", "extra,name,uid,"},
      {"Kubernetes::ServiceAccount", "extra,name,namespace,uid,"},
      {"Kubernetes::Extra", ""},
      {"Kubernetes::Annotations", ""},
      {"Kubernetes::Resource", "apiGroup,name,namespace,ns,resource,subresource,"},
      {"Kubernetes::NonResourceURL", "path,"},
      {"Kubernetes::Pod", "annotations,apiGroup,controlled,gpus,kind,name,namespace,ns,owners,priorityClass,queueName,"},
      {"Kubernetes::Job", "annotations,apiGroup,controlled,gpus,kind,name,namespace,ns,owners,priorityClass,queueName,"},
      {"Kubernetes::PyTorchJob", "annotations,apiGroup,controlled,gpus,kind,name,namespace,ns,owners,priorityClass,queueName,"},
      {"Kubernetes::Workload", "annotations,apiGroup,controlled,gpus,kind,name,namespace,ns,owners,priorityClass,queueName,"},
      {"Kubernetes::Object", "annotations,apiGroup,controlled,gpus,kind,name,namespace,ns,owners,priorityClass,queueName,"},
  };
  // The principal's `governance` (the configuration's `join.users`) is
  // optional: the mapping writes it only for a joined user.
  for (const auto& [type, attrs] : shapes) {
    std::vector<std::string> declared = schema_->Attributes(type);
    if ((type == "Kubernetes::User" || type == "Kubernetes::ServiceAccount")) {
      declared.erase(std::remove(declared.begin(), declared.end(), "governance"), declared.end());
    }
    if (SortedJoin(declared) != attrs) return;
  }
  untyped_join_ = true;
}

absl::StatusOr<Entities> PolicyState::EntitiesFor(const MappedReview& review) const {
  // The review's entities laid over the configured ones (never copied or
  // read again), built in code: no JSON text is written or read. A
  // principal the configuration defines is the configuration's.
  std::span<const Entity> entities = review.entities;
  if (!entities.empty() && entities_.Contains(review.principal)) entities = entities.subspan(1);
  if (untyped_join_ || !schema_) return entities_.Extend(entities, "review");
  return entities_.Extend(entities, *schema_, "review");
}

std::string PolicyState::ReviewEntitiesJson(const MappedReview& review) const {
  std::string json = "[";
  if (!entities_.Contains(review.principal)) {
    json += review.principal_json();
    if (review.entities.size() > 1) json += ",";
  }
  json += review.entities_json();
  json += "]";
  return json;
}

absl::StatusOr<Request> PolicyState::RequestFor(const MappedReview& review) const {
  return Request::Create(review.principal, review.action, review.resource, review.context,
                         schema_ ? &*schema_ : nullptr, "request");
}

absl::StatusOr<Request> PolicyState::RequestFromJson(std::string_view json) const {
  return schema_ ? Request::FromJson(json, *schema_, "request") : Request::FromJson(json, "request");
}

absl::StatusOr<std::vector<Request>> PolicyState::RequestsFromJson(std::string_view json) const {
  return schema_ ? Request::ArrayFromJson(json, *schema_, "requests") : Request::ArrayFromJson(json, "requests");
}

}  // namespace charter::server
