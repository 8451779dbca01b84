// The REPL's session: loading policies, entities and a schema, and the
// words Tab completes (repl_session.h).
#include "repl_session.h"

#include <string>
#include <utility>
#include <vector>

#include "files.h"
#include "load.h"
#include "repl_output.h"
#include "report.h"
#include "util.h"

namespace charter::cli {
namespace {

// The policies validated against the schema: an error line for each fault.
absl::Status ValidatePolicies(const Schema& schema, const SourceFile& source) {
  Diagnostics diagnostics;
  absl::Status s = Validate(schema, source, {}, &diagnostics);
  if (s.ok()) return s;
  std::string lines;
  for (const Diagnostic& d : diagnostics.items()) {
    if (d.severity != Severity::kError) continue;
    Diagnostics one;
    one.Add(d);
    CatAppend(&lines, lines.empty() ? "" : "\n", OneLine(one.RenderShort(source)));
  }
  return absl::InvalidArgumentError(lines.empty() ? std::string(s.message()) : lines);
}

}  // namespace

void Session::Start() {
  if (!schema_path_.empty()) Report(LoadSchema(schema_path_));
  if (!policies_path_.empty()) Report(LoadPolicies(policies_path_));
  if (!entities_path_.empty()) Report(LoadEntitiesFile(entities_path_));
}

void Session::Reload() {
  if (schema_path_.empty() && policies_path_.empty() && entities_path_.empty()) {
    Error("nothing to reload (:load policies FILE)");
  }
  Start();
}

absl::Status Session::LoadPolicies(const std::string& path) {
  CompileOptions options;
  absl::StatusOr<std::string> text = ReadFile(path, options.max_source_bytes);
  if (!text.ok()) return text.status();
  auto source = std::make_unique<SourceFile>(path, *std::move(text));
  absl::StatusOr<Bundle> bundle = CompilePolicySource(*source, {}, options);
  if (Interrupted()) return absl::CancelledError(Cat("interrupted; ", path, " was not loaded"));
  if (!bundle.ok()) return bundle.status();
  if (schema_ != nullptr) RETURN_IF_ERROR(ValidatePolicies(*schema_, *source));
  absl::StatusOr<Engine> engine = Engine::Create(*std::move(bundle));
  if (!engine.ok()) return engine.status();
  engine_ = std::make_unique<Engine>(*std::move(engine));
  policies_ = std::move(source);
  policies_path_ = path;
  CollectWords(policies_->text());
  Out(Cat("loaded ", Count(engine_->policy_ids().size(), "policy", "policies"), " from ", path, "\n"));
  return absl::OkStatus();
}

absl::Status Session::LoadEntitiesFile(const std::string& path) {
  absl::StatusOr<Entities> entities = LoadEntities(path);
  if (Interrupted()) return absl::CancelledError(Cat("interrupted; ", path, " was not loaded"));
  if (!entities.ok()) return entities.status();
  if (schema_ != nullptr) {
    if (absl::Status s = ValidateEntities(*schema_, *entities); !s.ok()) {
      return absl::InvalidArgumentError(WithPath(path, OneLine(s.message())));
    }
  }
  entities_ = *std::move(entities);
  entities_loaded_ = true;
  entities_path_ = path;
  for (const EntityUid& e : entities_.KnownUids()) AddEntityWord(e.type, e.id);
  Out(Cat("loaded ", Count(entities_.size(), "entity", "entities"), " from ", path, "\n"));
  return absl::OkStatus();
}

absl::Status Session::LoadSchema(const std::string& path) {
  SchemaOptions options;
  absl::StatusOr<std::string> text = ReadFile(path, options.max_source_bytes);
  if (!text.ok()) return text.status();
  SourceFile source(path, *std::move(text));
  Diagnostics diagnostics;
  absl::StatusOr<Schema> schema = Schema::Parse(source, options, &diagnostics);
  if (!schema.ok()) return absl::InvalidArgumentError(OneLine(schema.status().message()));
  // What is loaded must hold under the new schema, or it is refused.
  if (policies_ != nullptr) RETURN_IF_ERROR(ValidatePolicies(*schema, *policies_));
  if (entities_loaded_) {
    if (absl::Status s = ValidateEntities(*schema, entities_); !s.ok()) {
      return absl::InvalidArgumentError(WithPath(entities_path_, OneLine(s.message())));
    }
  }
  schema_ = std::make_unique<Schema>(*std::move(schema));
  schema_path_ = path;
  for (const std::string& type : schema_->EntityTypes()) words_.insert(Cat(type, "::\""));
  for (const EntityUid& a : schema_->Actions()) AddEntityWord(a.type, a.id);
  Out(Cat("loaded a schema of ", Count(schema_->EntityTypes().size(), "entity type", "entity types"), " and ",
          Count(schema_->Actions().size(), "action", "actions"), " from ", path, "\n"));
  return absl::OkStatus();
}

void Session::AddEntityWord(std::string_view type, std::string_view id) {
  std::string uid = EntityUid{std::string(type), std::string(id)}.ToString();
  words_.insert(uid);
  words_.insert(Cat(type, "::\""));
  if (IsActionType(type) && IsIdentifier(id)) {
    words_.insert(std::string(id));
    actions_[std::string(id)].insert(uid);
  }
}

// Every `Type::"id"` in policy text, and the actions' bare names.
void Session::CollectWords(const std::string& text) {
  for (size_t at = text.find("::\""); at != std::string::npos; at = text.find("::\"", at + 3)) {
    size_t begin = at;
    while (begin > 0 && (IsIdentChar(text[begin - 1]) || text[begin - 1] == ':')) --begin;
    size_t end = text.find('"', at + 3);
    if (end == std::string::npos || begin == at) continue;
    std::string type = text.substr(begin, at - begin);
    std::string id = text.substr(at + 3, end - at - 3);
    if (id.find('\\') != std::string::npos || id.find('\n') != std::string::npos) continue;
    AddEntityWord(type, id);
  }
}

std::vector<std::string> Session::AttributesOf(const std::string& expression) const {
  std::set<std::string> names;
  absl::StatusOr<ExpressionValue> v = EvaluateExpression(
      SourceFile(kInputName, expression), current_.has_value() ? &*current_ : nullptr, entities_);
  std::vector<std::string> types;
  if (v.ok() && v->ok) {
    names.insert(v->attributes.begin(), v->attributes.end());
    size_t sep = v->value.find("::\"");
    if (sep != std::string::npos && IsIdentStart(v->value[0])) types.push_back(v->value.substr(0, sep));
  } else if (schema_ != nullptr && (expression == "principal" || expression == "resource")) {
    // No request yet: what any principal (or resource) may have.
    types = expression == "principal" ? schema_->PrincipalTypes() : schema_->ResourceTypes();
  }
  if (schema_ != nullptr) {
    for (const std::string& t : types) {
      for (const std::string& name : schema_->Attributes(t)) names.insert(name);
    }
  }
  std::vector<std::string> out;
  for (const std::string& n : names) {
    if (IsIdentifier(n)) out.push_back(n);  // others cannot follow a `.`
  }
  return out;
}

}  // namespace charter::cli
