// The REPL's session: loading policies, entities and a schema, and the
// words Tab completes (repl_session.h).
#include "repl_session.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_join.h"
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
  if (!schema_paths_.empty()) Report(LoadSchema(schema_paths_));
  if (!policies_paths_.empty()) Report(LoadPolicies(policies_paths_));
  if (!entities_path_.empty()) Report(LoadEntitiesFile(entities_path_));
}

void Session::Reload() {
  if (schema_paths_.empty() && policies_paths_.empty() && entities_path_.empty()) {
    Error("nothing to reload (:load policies FILE)");
  }
  Start();
}

absl::Status Session::LoadPolicies(const std::vector<std::string>& given) {
  for (const std::string& p : given) {
    if (p == kStdinPath) return absl::InvalidArgumentError("--policies: the REPL reads its entries from stdin; give files");
  }
  ASSIGN_OR_RETURN(std::vector<std::string> paths, ExpandPolicyPaths(given));
  CompileOptions options;
  std::vector<SourceFile> sources;
  for (const std::string& path : paths) {
    absl::StatusOr<std::string> text = ReadFile(path, options.max_source_bytes);
    if (!text.ok()) return text.status();
    sources.emplace_back(path, *std::move(text));
  }
  const std::string names = absl::StrJoin(paths, ", ");
  // One file is compiled from the text read; several as one policy set.
  absl::StatusOr<Bundle> bundle = sources.size() == 1 ? CompilePolicySource(sources[0], {}, options)
                                                      : CompilePolicyFiles(paths, "", options);
  if (Interrupted()) return absl::CancelledError(Cat("interrupted; ", names, " was not loaded"));
  if (!bundle.ok()) return bundle.status();
  if (schema_ != nullptr) {
    for (const SourceFile& source : sources) RETURN_IF_ERROR(ValidatePolicies(*schema_, source));
  }
  absl::StatusOr<Engine> engine = Engine::Create(*std::move(bundle));
  if (!engine.ok()) return engine.status();
  engine_ = std::make_unique<Engine>(*std::move(engine));
  policy_files_ = std::move(sources);
  policies_paths_ = given;
  for (const SourceFile& source : policy_files_) CollectWords(source.text());
  Out(Cat("loaded ", Count(engine_->policy_ids().size(), "policy", "policies"), " from ", names, "\n"));
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

absl::Status Session::LoadSchema(const std::vector<std::string>& paths) {
  if (paths.empty()) return absl::InvalidArgumentError("no schema file");
  SchemaOptions options;
  const std::string path = absl::StrJoin(paths, " + ");
  absl::StatusOr<Schema> schema;
  if (paths.size() == 1) {
    absl::StatusOr<std::string> text = ReadFile(paths[0], options.max_source_bytes);
    if (!text.ok()) return text.status();
    SourceFile source(paths[0], *std::move(text));
    Diagnostics diagnostics;
    schema = Schema::Parse(source, options, &diagnostics);
    if (!schema.ok()) return absl::InvalidArgumentError(OneLine(schema.status().message()));
  } else {
    schema = LoadSchemas(paths);  // a fault a line, in the file it is in
    if (!schema.ok()) return schema.status();
  }
  // What is loaded must hold under the new schema, or it is refused.
  for (const SourceFile& source : policy_files_) RETURN_IF_ERROR(ValidatePolicies(*schema, source));
  if (entities_loaded_) {
    if (absl::Status s = ValidateEntities(*schema, entities_); !s.ok()) {
      return absl::InvalidArgumentError(WithPath(entities_path_, OneLine(s.message())));
    }
  }
  schema_ = std::make_unique<Schema>(*std::move(schema));
  schema_paths_ = paths;
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
