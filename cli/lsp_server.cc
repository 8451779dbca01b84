// The language server's methods (lsp_server.h). JSON through nlohmann-json;
// what a document is worth (its diagnostics, its layout) through the
// library's public API, as `charter check` and `charter fmt` use it.
#include "lsp_server.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "charter/charter.h"
#include "charter/format.h"
#include "charter/json.h"
#include "charter/schedule.h"
#include "charter/schema.h"
#include "charter_support/schema_files.h"
#include "lsp_outline.h"
#include "lsp_text.h"
#include "nlohmann/json.hpp"
#include "repl_words.h"

namespace charter::cli::lsp {
namespace {

using json = nlohmann::json;

// JSON-RPC's and LSP's error codes.
constexpr int kParseError = -32700;
constexpr int kInvalidRequest = -32600;
constexpr int kMethodNotFound = -32601;
constexpr int kInvalidParams = -32602;
constexpr int kInternalError = -32603;
constexpr int kServerNotInitialized = -32002;
constexpr int kRequestFailed = -32803;

// A request's failure, thrown by a handler and answered as an error.
struct RpcError {
  int code;
  std::string message;
};

std::string Dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

// Members of params, checked: a missing or mistyped one is InvalidParams.
const json& Member(const json& object, const char* key) {
  if (!object.is_object()) throw RpcError{kInvalidParams, std::string("expected an object with `") + key + "`"};
  auto it = object.find(key);
  if (it == object.end()) throw RpcError{kInvalidParams, std::string("`") + key + "` is missing"};
  return *it;
}
const json* Optional(const json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  return it == object.end() || it->is_null() ? nullptr : &*it;
}
std::string String(const json& object, const char* key) {
  const json& v = Member(object, key);
  if (!v.is_string()) throw RpcError{kInvalidParams, std::string("`") + key + "` is not a string"};
  return v.get<std::string>();
}
uint32_t Unsigned(const json& object, const char* key) {
  const json& v = Member(object, key);
  if (!v.is_number_integer() || v.get<int64_t>() < 0) {
    throw RpcError{kInvalidParams, std::string("`") + key + "` is not a whole number"};
  }
  int64_t n = v.get<int64_t>();
  return n > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(n);
}
Position PositionFrom(const json& p) { return Position{Unsigned(p, "line"), Unsigned(p, "character")}; }
json ToJson(Position p) { return json{{"line", p.line}, {"character", p.character}}; }

// ---- documents ----

enum class Kind { kCedar, kCharter, kSchema, kOther };

struct Document {
  std::string uri;
  std::string path;  // for a file: URI, else empty
  std::string text;
  int64_t version = 0;
  Kind kind = Kind::kOther;
  std::string name() const { return path.empty() ? uri : path; }
};

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The path of a `file:` URI (percent-decoded), or empty.
std::string PathOf(std::string_view uri) {
  if (uri.substr(0, 7) != "file://") return "";
  std::string_view rest = uri.substr(7);
  size_t slash = rest.find('/');
  if (slash == std::string_view::npos) return "";
  rest = rest.substr(slash);  // past the authority (empty or localhost)
  rest = rest.substr(0, rest.find_first_of("?#"));
  std::string out;
  for (size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] == '%' && i + 2 < rest.size() && HexValue(rest[i + 1]) >= 0 && HexValue(rest[i + 2]) >= 0) {
      out.push_back(static_cast<char>(HexValue(rest[i + 1]) * 16 + HexValue(rest[i + 2])));
      i += 2;
    } else {
      out.push_back(rest[i]);
    }
  }
  return out;
}

std::string UriOf(std::string_view path) {
  std::string out = "file://";
  const char* hex = "0123456789ABCDEF";
  for (char c : path) {
    unsigned char u = static_cast<unsigned char>(c);
    if (std::isalnum(u) != 0 || c == '/' || c == '-' || c == '.' || c == '_' || c == '~') {
      out.push_back(c);
    } else {
      out.push_back('%');
      out.push_back(hex[u >> 4]);
      out.push_back(hex[u & 15]);
    }
  }
  return out;
}

bool EndsWith(std::string_view s, std::string_view end) {
  return s.size() >= end.size() && s.substr(s.size() - end.size()) == end;
}

Kind KindOf(std::string_view uri, std::string_view language) {
  std::string_view name = uri.substr(0, uri.find_first_of("?#"));
  if (EndsWith(name, ".cedarschema") || EndsWith(name, ".cedarschema.json")) return Kind::kSchema;
  if (EndsWith(name, ".charter")) return Kind::kCharter;
  if (EndsWith(name, ".cedar")) return Kind::kCedar;
  if (language == "cedarschema") return Kind::kSchema;
  if (language == "charter") return Kind::kCharter;
  if (language == "cedar") return Kind::kCedar;
  return Kind::kOther;
}

// ---- the schema of the settings ----

struct SchemaFile {
  std::string path;
  std::string text;
  std::vector<Symbol> outline;
};

// A declaration of the schema, for hover and go-to-definition.
struct Declared {
  const SchemaFile* file;
  const Symbol* symbol;
  std::string owner;              // an attribute's entity type
  const Symbol* parent = nullptr;  // and its declaration
};

// The text of `//` comment lines, without the slashes.
std::string CommentText(std::string_view comment) {
  std::string plain;
  size_t from = 0;
  while (from <= comment.size()) {
    size_t eol = comment.find('\n', from);
    std::string line = Trim(comment.substr(from, eol == std::string_view::npos ? std::string_view::npos : eol - from));
    if (line.rfind("//", 0) == 0) line = Trim(std::string_view(line).substr(2));
    plain += line + "\n";
    if (eol == std::string_view::npos) break;
    from = eol + 1;
  }
  return plain;
}

std::string Qualified(const std::string& ns, const std::string& name) {
  return ns.empty() ? name : ns + "::" + name;
}

const char* const kPolicyKeywords[] = {"permit", "forbid", "when", "unless", "principal", "action", "resource",
                                       "context", "in", "has", "like", "is", "if", "then", "else", "true", "false"};
const char* const kSchemaKeywords[] = {"namespace", "entity", "action", "type", "in", "appliesTo", "principal",
                                       "resource", "context", "tags", "enum", "Set", "Long", "String", "Bool"};

}  // namespace

struct Server::State {
  ServerOptions limits;
  RunCharter run_charter;
  bool initialized = false;
  bool shut_down = false;
  bool exited = false;
  std::string root;  // the workspace's folder, for relative paths in the settings
  std::map<std::string, Document> documents;  // by URI

  // Settings.
  std::vector<std::string> schema_paths;
  std::string entities_path;
  std::optional<SourceFile> entities_source;  // the entities' text, when it read

  // The schema they name, as last loaded.
  std::optional<Schema> schema;
  std::vector<SchemaFile> schema_files;
  std::string schema_fault;  // why it did not load
  std::set<std::string> entity_words;  // `Type::"id"` of the entities file
  std::map<std::string, std::string> entity_shown;  // `Type::"id"` -> its attributes and parents, for hover

  // The project file found when the settings name no schema (charter.json
  // at or above the root): its policy files, for find-references and rename.
  std::string project_path;
  std::vector<std::string> project_policies;

  std::vector<std::string>* sink = nullptr;

  // ---- output ----
  void Send(json message) {
    message["jsonrpc"] = "2.0";
    sink->push_back(Dump(message));
  }
  void Respond(const json& id, json result) { Send(json{{"id", id}, {"result", std::move(result)}}); }
  void RespondError(const json& id, int code, std::string message) {
    Send(json{{"id", id}, {"error", {{"code", code}, {"message", std::move(message)}}}});
  }
  void Notify(const char* method, json params) { Send(json{{"method", method}, {"params", std::move(params)}}); }
  void ShowMessage(int type, const std::string& message) {
    Notify("window/showMessage", json{{"type", type}, {"message", message}});
  }

  // ---- settings ----
  std::string Resolve(const std::string& path) const {
    if (path.rfind("file://", 0) == 0) return PathOf(path);
    if (path.empty() || path[0] == '/' || root.empty()) return path;
    return root + "/" + path;
  }

  // Reads `{"schemas": [...] or "schema": "...", "entities": "..."}` (at
  // the top or under "charter"). Whether they changed.
  bool ReadSettings(const json& settings) {
    const json* s = &settings;
    if (const json* nested = Optional(settings, "charter"); nested != nullptr && nested->is_object()) s = nested;
    if (!s->is_object()) return false;
    std::vector<std::string> schemas;
    if (const json* v = Optional(*s, "schemas"); v != nullptr && v->is_array()) {
      for (const json& p : *v) {
        if (p.is_string()) schemas.push_back(Resolve(p.get<std::string>()));
      }
    } else if (const json* one = Optional(*s, "schema"); one != nullptr && one->is_string()) {
      schemas.push_back(Resolve(one->get<std::string>()));
    }
    std::string entities;
    if (const json* v = Optional(*s, "entities"); v != nullptr && v->is_string()) {
      entities = Resolve(v->get<std::string>());
    }
    bool changed = schemas != schema_paths || entities != entities_path;
    schema_paths = std::move(schemas);
    entities_path = std::move(entities);
    return changed;
  }

  // The text of a file: the editor's, when it is open, else the disk's.
  std::optional<std::string> TextOf(const std::string& path, std::string* why) const {
    for (const auto& [uri, doc] : documents) {
      if (doc.path == path) return doc.text;
    }
    if (!limits.read_files) {
      *why = path + ": not open";
      return std::nullopt;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      *why = path + ": cannot read";
      return std::nullopt;
    }
    std::string text;
    char buf[1 << 16];
    while (in.read(buf, sizeof buf) || in.gcount() > 0) {
      text.append(buf, static_cast<size_t>(in.gcount()));
      if (text.size() > limits.max_file_bytes) {
        *why = path + ": larger than " + std::to_string(limits.max_file_bytes) + " bytes";
        return std::nullopt;
      }
    }
    return text;
  }

  // Loads the schema of the settings. A schema that no longer parses (being
  // edited) leaves the last good one in force, its fault in schema_fault.
  void LoadSchema() {
    schema_files.clear();
    schema_fault.clear();
    if (schema_paths.empty()) {
      schema.reset();
      return;
    }
    std::vector<SourceFile> sources;
    for (const std::string& path : schema_paths) {
      std::string why;
      std::optional<std::string> text = TextOf(path, &why);
      if (!text.has_value()) {
        schema.reset();
        schema_files.clear();
        schema_fault = why;
        return;
      }
      sources.emplace_back(path, *text);
      schema_files.push_back(SchemaFile{path, *std::move(text), {}});
    }
    for (SchemaFile& f : schema_files) f.outline = OutlineSchema(f.text);
    absl::StatusOr<Schema> parsed = support::ParseSchemaFiles(sources);
    if (!parsed.ok()) {
      schema_fault = std::string(parsed.status().message());
      return;  // the last good schema, if any, stays
    }
    schema = *std::move(parsed);
  }

  void LoadEntities() {
    entity_words.clear();
    entity_shown.clear();
    entities_source.reset();
    if (entities_path.empty()) return;
    std::string why;
    std::optional<std::string> text = TextOf(entities_path, &why);
    if (!text.has_value()) return;
    absl::StatusOr<Entities> entities = Entities::FromJson(*text, entities_path);
    if (!entities.ok()) return;
    for (const EntityUid& e : entities->KnownUids()) entity_words.insert(e.ToString());
    // Each entity's attributes, parents and tags as the file writes them.
    json all = json::parse(*text, nullptr, /*allow_exceptions=*/false);
    if (all.is_array()) {
      for (const json& e : all) {
        const json* uid = Optional(e, "uid");
        if (uid != nullptr && Optional(*uid, "__entity") != nullptr) uid = Optional(*uid, "__entity");
        const json* type = uid != nullptr ? Optional(*uid, "type") : nullptr;
        const json* id = uid != nullptr ? Optional(*uid, "id") : nullptr;
        if (type == nullptr || id == nullptr || !type->is_string() || !id->is_string()) continue;
        json shown = json::object();
        for (const char* key : {"attrs", "parents", "tags"}) {
          if (const json* v = Optional(e, key); v != nullptr && !v->empty()) shown[key] = *v;
        }
        entity_shown[EntityUid{type->get<std::string>(), id->get<std::string>()}.ToString()] =
            shown.dump(2, ' ', false, json::error_handler_t::replace);
      }
    }
    entities_source.emplace(entities_path, *std::move(text));
  }

  // When the settings name no schema: the project file, charter.json, in
  // the root or the nearest folder above it (as `charter check` finds it
  // from the working directory), gives the schemas, the entities (unless
  // the settings name them) and the policy files. Its paths are relative to
  // its folder; "policies" may name folders, whose .cedar and .charter files
  // are taken (not those of their subfolders).
  std::string project_fault;
  void DiscoverProject() {
    project_path.clear();
    project_policies.clear();
    project_fault.clear();
    if (!schema_paths.empty() || root.empty() || !limits.read_files) return;
    std::error_code error;
    std::filesystem::path dir(root);
    bool found = false;
    for (int depth = 0; depth < 256 && !found; ++depth) {
      found = std::filesystem::is_regular_file(dir / "charter.json", error);
      if (found) break;
      if (!dir.has_parent_path() || dir.parent_path() == dir) return;
      dir = dir.parent_path();
    }
    if (!found) return;
    std::string file = (dir / "charter.json").string();
    std::string why;
    std::optional<std::string> text = TextOf(file, &why);
    if (!text.has_value()) {
      project_fault = why;
      return;
    }
    json j = json::parse(*text, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object()) {
      project_fault = file + ": not a JSON object (see `charter check` in the folder for where)";
      return;
    }
    auto paths = [&](const char* key) {
      std::vector<std::string> out;
      const json* v = Optional(j, key);
      auto add = [&](const json& p) {
        if (!p.is_string()) return;
        std::filesystem::path path(p.get<std::string>());
        out.push_back((path.is_absolute() ? path : dir / path).lexically_normal().string());
      };
      if (v != nullptr && v->is_string()) add(*v);
      if (v != nullptr && v->is_array()) {
        for (const json& p : *v) add(p);
      }
      return out;
    };
    project_path = file;
    schema_paths = paths("schemas");
    if (std::vector<std::string> entities = paths("entities"); entities_path.empty() && !entities.empty()) {
      entities_path = entities[0];
    }
    for (const std::string& p : paths("policies")) {
      if (!std::filesystem::is_directory(p, error)) {
        project_policies.push_back(p);
        continue;
      }
      std::vector<std::string> files;
      for (const auto& entry : std::filesystem::directory_iterator(p, error)) {
        std::string name = entry.path().string();
        if (entry.is_regular_file(error) && (EndsWith(name, ".cedar") || EndsWith(name, ".charter"))) {
          files.push_back(name);
        }
        if (files.size() > 10000) break;
      }
      std::sort(files.begin(), files.end());
      project_policies.insert(project_policies.end(), files.begin(), files.end());
    }
  }

  // Loads what the settings name, and says so when the schema cannot be read.
  void Reload() {
    LoadSchema();
    LoadEntities();
    if (!schema_fault.empty()) {
      ShowMessage(2, "charter: the schema was not loaded; policies are checked without it: " + schema_fault);
    }
  }

  bool IsSchemaPath(const std::string& path) const {
    return !path.empty() && std::find(schema_paths.begin(), schema_paths.end(), path) != schema_paths.end();
  }

  // ---- diagnostics ----
  static bool OnlyLimits(const Diagnostics& diagnostics) {
    for (const Diagnostic& d : diagnostics.items()) {
      if (d.code != "CH0202" && d.code != "CH0203" && d.code != "CH0204" && d.code != "CH0205") return false;
    }
    return !diagnostics.empty();
  }

  // What `charter check --policies FILE [--schema ...]` reports for the
  // document, or for a schema what Schema::Parse does.
  Diagnostics Check(const Document& doc, std::string* failure) const {
    SourceFile source(doc.name(), doc.text);
    Diagnostics diagnostics;
    if (doc.kind == Kind::kSchema) {
      (void)Schema::Parse(source, SchemaOptions{}, &diagnostics);
      return diagnostics;
    }
    CompileOptions options;
    options.language = doc.kind == Kind::kCharter ? SourceLanguage::kCharter : SourceLanguage::kCedar;
    options.declarations = &schedule::Declarations();
    absl::StatusOr<Bundle> bundle = Compile(source, {}, options, &diagnostics);
    const Schema* with = schema.has_value() ? &*schema : nullptr;
    if (with != nullptr && !bundle.ok() && OnlyLimits(diagnostics)) {
      CompileOptions typed = options;
      typed.schema = with;
      Diagnostics again;
      absl::StatusOr<Bundle> typed_bundle = Compile(source, {}, typed, &again);
      if (typed_bundle.ok()) {
        diagnostics = Diagnostics();
        bundle = *std::move(typed_bundle);
      } else if (OnlyLimits(again)) {
        diagnostics = std::move(again);
      }
    }
    if (!bundle.ok() && !diagnostics.has_errors()) {
      *failure = std::string(bundle.status().message());
      return diagnostics;
    }
    if (with != nullptr) {
      Diagnostics validation;
      (void)Validate(*with, source, {}, options, &validation);
      for (const Diagnostic& d : validation.items()) {
        if (d.code.rfind("CH05", 0) == 0) diagnostics.Add(d);
      }
    }
    if (doc.kind == Kind::kCharter && bundle.ok() && entities_source.has_value()) {
      // The queues against the entities they implement, as `charter check
      // --entities` checks them (CH0810).
      std::vector<Diagnostics> agreement;
      if (schedule::CheckImplements({source}, options, *entities_source, &agreement).ok() && !agreement.empty()) {
        for (const Diagnostic& d : agreement[0].items()) diagnostics.Add(d);
      }
    }
    return diagnostics;
  }

  // ---- `charter test` files ----

  // The byte after the JSON value that starts at `begin` (one the reader accepted).
  static size_t ValueEnd(std::string_view text, size_t begin) {
    int depth = 0;
    for (size_t i = begin; i < text.size(); ++i) {
      char c = text[i];
      if (c == '"') {
        for (++i; i < text.size() && text[i] != '"'; ++i) {
          if (text[i] == '\\') ++i;
        }
        if (depth == 0) return std::min(i + 1, text.size());
      } else if (c == '[' || c == '{') {
        ++depth;
      } else if (c == ']' || c == '}') {
        if (--depth == 0) return i + 1;
      } else if (depth == 0 && (c == ',' || c == ' ' || c == '\n' || c == '\r' || c == '\t')) {
        return i;
      }
    }
    return text.size();
  }

  // The byte offset of the reader's "LINE:COL" (columns in Unicode scalar values).
  static size_t OffsetOfLineCol(std::string_view text, size_t line, size_t col) {
    size_t at = 0;
    for (size_t l = 1; l < line && at < text.size(); ++at) {
      if (text[at] == '\n') ++l;
    }
    for (size_t c = 1; c < col && at < text.size() && text[at] != '\n'; ++c) {
      ++at;
      while (at < text.size() && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80) ++at;
    }
    return at;
  }

  struct TestFault {
    size_t begin, end;
    std::string message;
    bool warning = false;
  };

  // What can be told of a `charter test` file without running it: that it
  // is JSON, an object with "policies"; that the files it names (policies,
  // entities, schemas, config, an invariant's `within`) exist, relative to
  // its folder; and, with a schema (the file's "schemas", else the
  // settings' or project's, then as warnings), that each case's request
  // names entity types and actions the schema declares.
  std::vector<TestFault> TestFaults(const Document& doc) const {
    std::vector<TestFault> faults;
    std::string_view text = doc.text;
    absl::StatusOr<JsonDocument> parsed = JsonDocument::Parse(text);
    if (!parsed.ok()) {
      std::string message(parsed.status().message());
      size_t line = 0, col = 0, colon1 = message.find(':'), colon2 = std::string::npos;
      if (colon1 != std::string::npos) colon2 = message.find(':', colon1 + 1);
      size_t at = 0;
      if (colon2 != std::string::npos && std::sscanf(message.c_str(), "%zu:%zu:", &line, &col) == 2) {
        at = OffsetOfLineCol(text, line, col);
        message = Trim(std::string_view(message).substr(colon2 + 1));
      }
      size_t end = at < text.size() ? at + 1 : at;
      while (end < text.size() && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) ++end;
      faults.push_back({at, end, "not JSON: " + message + " (a test file is JSON: see docs/testing.md)"});
      return faults;
    }
    JsonValue top = parsed->root();
    auto whole = [&](const JsonValue& v) { return std::pair<size_t, size_t>{v.offset(), ValueEnd(text, v.offset())}; };
    auto add = [&](const JsonValue& v, std::string message, bool as_warning = false) {
      auto [b, e] = whole(v);
      faults.push_back({b, e, std::move(message), as_warning});
    };
    if (!top.is_object()) {
      add(top, "a test file is a JSON object (see docs/testing.md)");
      return faults;
    }
    std::optional<JsonValue> policies = top.Find("policies");
    if (policies == std::nullopt) faults.push_back({top.offset(), top.offset() + 1, "a test file needs \"policies\""});
    std::filesystem::path folder = std::filesystem::path(doc.path).parent_path();
    // Each path a member names (a string, or an array of strings).
    auto paths = [&](const JsonValue& v, const char* what) {
      std::vector<JsonValue> items;
      if (v.is_string()) items.push_back(v);
      for (size_t i = 0; v.is_array() && i < v.size(); ++i) {
        if (v.at(i).is_string()) items.push_back(v.at(i));
      }
      for (const JsonValue& item : items) {
        if (doc.path.empty() || !limits.read_files) continue;
        std::filesystem::path p(std::string(item.as_string()));
        std::error_code error;
        if (!std::filesystem::exists(p.is_absolute() ? p : folder / p, error)) {
          add(item, std::string(what) + " `" + std::string(item.as_string()) +
                        "` does not exist (paths are relative to the test file's folder)");
        }
      }
    };
    if (policies != std::nullopt) paths(*policies, "the policy file");
    if (std::optional<JsonValue> v = top.Find("entities"); v != std::nullopt && v->is_string()) {
      paths(*v, "the entities file");
    }
    std::optional<JsonValue> schemas = top.Find("schemas");
    if (schemas != std::nullopt) paths(*schemas, "the schema file");
    if (std::optional<JsonValue> v = top.Find("config"); v != std::nullopt) paths(*v, "the configuration file");
    std::optional<JsonValue> invariants = top.Find("invariants");
    for (size_t i = 0; invariants != std::nullopt && invariants->is_array() && i < invariants->size(); ++i) {
      if (std::optional<JsonValue> within = invariants->at(i).Find("within")) paths(*within, "the policy file");
    }
    // The schema the requests are read with.
    std::optional<Schema> own;
    bool warning = false;
    if (schemas != std::nullopt && !doc.path.empty() && limits.read_files) {
      std::vector<SourceFile> sources;
      std::vector<JsonValue> items;
      if (schemas->is_string()) items.push_back(*schemas);
      for (size_t i = 0; schemas->is_array() && i < schemas->size(); ++i) items.push_back(schemas->at(i));
      for (const JsonValue& item : items) {
        if (!item.is_string()) return faults;
        std::filesystem::path p(std::string(item.as_string()));
        std::string why;
        std::string resolved = (p.is_absolute() ? p : folder / p).lexically_normal().string();
        std::optional<std::string> schema_text = TextOf(resolved, &why);
        if (!schema_text.has_value()) return faults;
        sources.emplace_back(std::string(item.as_string()), *std::move(schema_text));
      }
      absl::StatusOr<Schema> read = support::ParseSchemaFiles(sources);
      if (!read.ok()) {
        add(*schemas, "the schemas do not load: " + std::string(read.status().message()));
        return faults;
      }
      own = *std::move(read);
    } else if (schemas == std::nullopt && schema.has_value()) {
      own = schema;
      warning = true;
    }
    std::optional<JsonValue> cases = top.Find("cases");
    if (!own.has_value() || cases == std::nullopt || !cases->is_array()) return faults;
    std::vector<std::string> types = own->EntityTypes();
    std::set<std::string> known(types.begin(), types.end());
    std::set<std::string> actions;
    for (const EntityUid& a : own->Actions()) actions.insert(a.ToString());
    const std::string whose = warning ? " (the project's schema; the test file names none)" : "";
    for (size_t i = 0; i < cases->size(); ++i) {
      std::optional<JsonValue> request = cases->at(i).Find("request");
      if (request == std::nullopt || !request->is_object()) continue;
      for (const char* key : {"principal", "action", "resource"}) {
        std::optional<JsonValue> v = request->Find(key);
        if (v == std::nullopt) continue;
        std::optional<EntityUid> uid;
        if (v->is_string()) {
          absl::StatusOr<EntityUid> read = EntityUid::Parse(v->as_string());
          if (read.ok()) uid = *read;
        } else if (v->is_object()) {
          std::optional<JsonValue> type = v->Find("type"), id = v->Find("id");
          if (type && id && type->is_string() && id->is_string()) {
            uid = EntityUid{std::string(type->as_string()), std::string(id->as_string())};
          }
        }
        if (!uid.has_value()) continue;
        std::string case_name = "case " + std::to_string(i + 1);
        if (std::string(key) == "action") {
          if (actions.count(uid->ToString()) == 0) {
            add(*v, case_name + ": unknown action `" + uid->ToString() + "`" + whose, warning);
          }
        } else if (known.count(uid->type) == 0) {
          add(*v, case_name + ": unknown entity type `" + uid->type + "`" + whose, warning);
        }
      }
    }
    return faults;
  }

  void PublishTestFile(const Document& doc) {
    LineIndex index(doc.text);
    json items = json::array();
    for (const TestFault& f : TestFaults(doc)) {
      json range{{"start", ToJson(index.PositionOf(f.begin))}, {"end", ToJson(index.PositionOf(std::max(f.begin, f.end)))}};
      items.push_back(json{{"range", std::move(range)},
                           {"severity", f.warning ? 2 : 1},
                           {"source", "charter test"},
                           {"message", f.message}});
    }
    Notify("textDocument/publishDiagnostics",
           json{{"uri", doc.uri}, {"version", doc.version}, {"diagnostics", std::move(items)}});
  }

  void Publish(const Document& doc) {
    if (IsTestFile(doc)) {
      PublishTestFile(doc);
      return;
    }
    if (doc.kind == Kind::kOther) return;
    std::string failure;
    Diagnostics diagnostics = Check(doc, &failure);
    LineIndex index(doc.text);
    json items = json::array();
    auto range = [&](size_t b, size_t e) {
      return json{{"start", ToJson(index.PositionOf(b))}, {"end", ToJson(index.PositionOf(std::max(b, e)))}};
    };
    for (const Diagnostic& d : diagnostics.items()) {
      json item{{"range", range(d.span.begin, d.span.end)},
                {"severity", d.severity == Severity::kWarning ? 2 : 1},
                {"code", d.code},
                {"source", "charter"},
                {"message", d.message}};
      if (!d.help.empty()) {
        item["relatedInformation"] = json::array(
            {json{{"location", {{"uri", doc.uri}, {"range", range(d.span.begin, d.span.end)}}},
                  {"message", "help: " + d.help}}});
      }
      items.push_back(std::move(item));
    }
    if (!failure.empty()) {
      items.push_back(json{{"range", range(0, 0)}, {"severity", 1}, {"source", "charter"}, {"message", failure}});
    }
    Notify("textDocument/publishDiagnostics",
           json{{"uri", doc.uri}, {"version", doc.version}, {"diagnostics", std::move(items)}});
  }

  void PublishAll() {
    for (const auto& [uri, doc] : documents) Publish(doc);
  }

  // A document changed: its diagnostics again, and, for a schema of the
  // settings, the schema reloaded and every policy document's too.
  void Changed(const Document& doc) {
    if (IsSchemaPath(doc.path)) {
      LoadSchema();
      PublishAll();
    } else {
      Publish(doc);
    }
  }

  Document& Open(const json& params) {
    const json& item = Member(params, "textDocument");
    std::string uri = String(item, "uri");
    auto it = documents.find(uri);
    if (it == documents.end()) throw RpcError{kInvalidParams, "`" + uri + "` is not open"};
    return it->second;
  }

  // ---- features ----
  json Symbols(const std::vector<Symbol>& symbols, const LineIndex& index, int depth = 0) const {
    json out = json::array();
    for (const Symbol& s : symbols) {
      size_t end = std::max(s.end, s.begin);
      size_t nb = std::clamp(s.name_begin, s.begin, end);
      size_t ne = std::clamp(s.name_end, nb, end);
      json item{{"name", s.name.empty() ? s.detail : s.name},
                {"kind", static_cast<int>(s.kind)},
                {"range", {{"start", ToJson(index.PositionOf(s.begin))}, {"end", ToJson(index.PositionOf(end))}}},
                {"selectionRange", {{"start", ToJson(index.PositionOf(nb))}, {"end", ToJson(index.PositionOf(ne))}}}};
      if (!s.detail.empty()) item["detail"] = s.detail;
      if (!s.children.empty() && depth < 4) item["children"] = Symbols(s.children, index, depth + 1);
      out.push_back(std::move(item));
    }
    return out;
  }

  json DocumentSymbols(const Document& doc) const {
    LineIndex index(doc.text);
    if (doc.kind == Kind::kSchema) return Symbols(OutlineSchema(doc.text), index);
    if (doc.kind == Kind::kOther) return json::array();
    return Symbols(OutlinePolicies(doc.text), index);
  }

  json Formatting(const Document& doc) const {
    if (doc.kind == Kind::kOther) throw RpcError{kRequestFailed, doc.name() + ": not a Cedar, Charter or schema file"};
    SourceFile source(doc.name(), doc.text);
    FormatOptions options;
    options.parse.language = doc.kind == Kind::kCharter ? SourceLanguage::kCharter : SourceLanguage::kCedar;
    Diagnostics diagnostics;
    absl::StatusOr<std::string> formatted = doc.kind == Kind::kSchema
                                                ? FormatSchema(source, options, &diagnostics)
                                                : FormatPolicies(source, options, &diagnostics);
    if (!formatted.ok()) {
      std::string first = diagnostics.FirstErrorLine(source);
      throw RpcError{kRequestFailed,
                     "not formatted: " + (first.empty() ? std::string(formatted.status().message()) : first)};
    }
    if (*formatted == doc.text) return json::array();
    LineIndex index(doc.text);
    return json::array({json{{"range", {{"start", ToJson(Position{0, 0})},
                                        {"end", ToJson(index.PositionOf(doc.text.size()))}}},
                             {"newText", *formatted}}});
  }

  // The declarations of the schema a reference names.
  std::vector<Declared> Lookup(const Reference& r) const {
    std::vector<Declared> found;
    auto last = [](const std::string& path) {
      size_t at = path.rfind("::");
      return at == std::string::npos ? path : path.substr(at + 2);
    };
    for (const SchemaFile& f : schema_files) {
      auto visit = [&](const std::vector<Symbol>& symbols, const std::string& ns) {
        for (const Symbol& s : symbols) {
          std::string full = Qualified(ns, s.name);
          if (r.kind == Reference::Kind::kType && (s.kind == SymbolKind::kClass || s.kind == SymbolKind::kStruct)) {
            if (full == r.type || (r.type.find("::") == std::string::npos && s.name == r.type)) {
              found.push_back({&f, &s, ""});
            }
          } else if (r.kind == Reference::Kind::kEntity && s.kind == SymbolKind::kEvent) {
            if (IsActionType(r.type) && s.name == r.id &&
                (r.type == Qualified(ns, "Action") || (r.type == "Action" && ns.empty()))) {
              found.push_back({&f, &s, ""});
            }
          } else if (r.kind == Reference::Kind::kEntity && s.kind == SymbolKind::kClass && !IsActionType(r.type)) {
            if (full == r.type || last(r.type) == s.name) found.push_back({&f, &s, ""});
          } else if (r.kind == Reference::Kind::kAttribute && s.kind == SymbolKind::kClass) {
            for (const Symbol& field : s.children) {
              if (field.name == r.id) found.push_back({&f, &field, full, &s});
            }
          }
        }
      };
      visit(f.outline, "");
      for (const Symbol& ns : f.outline) {
        if (ns.kind == SymbolKind::kNamespace) visit(ns.children, ns.name);
      }
    }
    // For an attribute of `principal` or `resource`, those of the types it may be first.
    if (r.kind == Reference::Kind::kAttribute && schema.has_value() && (r.base == "principal" || r.base == "resource")) {
      std::vector<std::string> types = r.base == "principal" ? schema->PrincipalTypes() : schema->ResourceTypes();
      std::vector<Declared> narrowed;
      for (const Declared& d : found) {
        if (std::find(types.begin(), types.end(), d.owner) != types.end()) narrowed.push_back(d);
      }
      if (!narrowed.empty()) found = std::move(narrowed);
    }
    return found;
  }

  json LocationOf(const Declared& d) const {
    LineIndex index(d.file->text);
    return json{{"uri", UriOf(d.file->path)},
                {"range", {{"start", ToJson(index.PositionOf(d.symbol->name_begin))},
                           {"end", ToJson(index.PositionOf(d.symbol->name_end))}}}};
  }

  Reference ReferenceIn(const Document& doc, const json& params, size_t* offset = nullptr) const {
    Position p = PositionFrom(Member(params, "position"));
    LineIndex index(doc.text);
    size_t at = index.OffsetOf(p);
    if (offset != nullptr) *offset = at;
    return ReferenceAt(doc.text, at);
  }

  json Definition(const Document& doc, const json& params) const {
    Reference r = ReferenceIn(doc, params);
    json out = json::array();
    if (r.kind == Reference::Kind::kNone) return out;
    for (const Declared& d : Lookup(r)) out.push_back(LocationOf(d));
    return out;
  }

  // Quick fixes for the diagnostics the client sends back whose help is
  // "did you mean `X`?": the name the message quotes last, where it is in
  // the diagnostic's range, replaced by X.
  json CodeActions(const Document& doc, const json& params) const {
    json actions = json::array();
    const json* context = Optional(params, "context");
    const json* diagnostics = context != nullptr ? Optional(*context, "diagnostics") : nullptr;
    if (diagnostics == nullptr || !diagnostics->is_array()) return actions;
    LineIndex index(doc.text);
    auto quoted_last = [](std::string_view s) -> std::string {
      size_t close = s.rfind('`');
      if (close == std::string_view::npos || close == 0) return "";
      size_t open = s.rfind('`', close - 1);
      return open == std::string_view::npos ? "" : std::string(s.substr(open + 1, close - open - 1));
    };
    for (const json& d : *diagnostics) {
      const json* message = Optional(d, "message");
      const json* related = Optional(d, "relatedInformation");
      const json* range = Optional(d, "range");
      if (message == nullptr || !message->is_string() || related == nullptr || !related->is_array() ||
          range == nullptr) {
        continue;
      }
      std::string suggestion;
      for (const json& r : *related) {
        const json* help = Optional(r, "message");
        if (help == nullptr || !help->is_string()) continue;
        const std::string& h = help->get_ref<const std::string&>();
        if (h.rfind("help: did you mean `", 0) == 0) suggestion = quoted_last(h);
      }
      std::string wrong = quoted_last(message->get_ref<const std::string&>());
      if (suggestion.empty() || wrong.empty() || wrong == suggestion) continue;
      size_t begin = index.OffsetOf(PositionFrom(Member(*range, "start")));
      size_t end = std::max(begin, index.OffsetOf(PositionFrom(Member(*range, "end"))));
      size_t at = std::string_view(doc.text).substr(begin, end - begin).rfind(wrong);
      if (at == std::string_view::npos) continue;
      at += begin;
      json fix{{"range", {{"start", ToJson(index.PositionOf(at))}, {"end", ToJson(index.PositionOf(at + wrong.size()))}}},
               {"newText", suggestion}};
      actions.push_back(json{{"title", "Change `" + wrong + "` to `" + suggestion + "`"},
                             {"kind", "quickfix"},
                             {"isPreferred", true},
                             {"diagnostics", json::array({d})},
                             {"edit", {{"changes", {{doc.uri, json::array({std::move(fix)})}}}}}});
    }
    return actions;
  }

  // The innermost expression at a byte offset that the schema's checker
  // gave a type, if any.
  std::optional<ExpressionType> TypeAt(const Document& doc, size_t at) const {
    if (!schema.has_value() || (doc.kind != Kind::kCedar && doc.kind != Kind::kCharter)) return std::nullopt;
    CompileOptions options;
    options.language = doc.kind == Kind::kCharter ? SourceLanguage::kCharter : SourceLanguage::kCedar;
    options.declarations = &schedule::Declarations();
    // Only the policy under the cursor is checked: the rest of the text is
    // blanked (its line breaks kept, so that offsets stay the same).
    std::string alone;
    for (const Symbol& policy : OutlinePolicies(doc.text)) {
      if (policy.kind != SymbolKind::kFunction || policy.begin > at || at >= policy.end) continue;
      alone = doc.text;
      for (size_t i = 0; i < alone.size(); ++i) {
        if ((i < policy.begin || i >= policy.end) && alone[i] != '\n') alone[i] = ' ';
      }
      break;
    }
    if (alone.empty()) return std::nullopt;
    std::optional<ExpressionType> best;
    for (ExpressionType& t : ExpressionTypes(*schema, SourceFile(doc.name(), alone), options)) {
      if (t.begin <= at && at < t.end && (!best.has_value() || t.end - t.begin < best->end - best->begin)) {
        best = std::move(t);
      }
    }
    return best;
  }

  json Hover(const Document& doc, const json& params) const {
    size_t at = 0;
    Reference r = ReferenceIn(doc, params, &at);
    std::optional<ExpressionType> typed = TypeAt(doc, at);
    std::string text;
    if (typed.has_value()) {
      // `EXPR`: `T` (or `T1` or `T2`, one for each kind of request it is checked in).
      std::string expression;
      for (char c : std::string_view(doc.text).substr(typed->begin, typed->end - typed->begin)) {
        if (c == '\n' || c == '\r' || c == '\t') c = ' ';
        if (c != ' ' || expression.empty() || expression.back() != ' ') expression.push_back(c);
      }
      if (expression.size() > 60) expression = expression.substr(0, 57) + "...";
      text = "`" + expression + "`: ";
      for (size_t i = 0; i < typed->types.size(); ++i) text += (i == 0 ? "`" : " or `") + typed->types[i] + "`";
      text += "\n";
    }
    LineIndex doc_index(doc.text);
    auto answer = [&](size_t begin, size_t end) -> json {
      return json{{"contents", {{"kind", "markdown"}, {"value", text}}},
                  {"range", {{"start", ToJson(doc_index.PositionOf(begin))}, {"end", ToJson(doc_index.PositionOf(end))}}}};
    };
    std::vector<Declared> found;
    if (r.kind != Reference::Kind::kNone) found = Lookup(r);
    // An entity of the entities file: its attributes and parents.
    if (r.kind == Reference::Kind::kEntity && !IsActionType(r.type)) {
      std::string uid = EntityUid{r.type, r.id}.ToString();
      if (auto it = entity_shown.find(uid); it != entity_shown.end()) {
        std::string shown_path = entities_path;
        if (!root.empty() && shown_path.rfind(root + "/", 0) == 0) shown_path = shown_path.substr(root.size() + 1);
        std::string entity = it->second;
        size_t cut = 0;
        for (int lines = 0; cut != std::string::npos && lines < 30; ++lines) {
          cut = entity.find('\n', cut == 0 ? 0 : cut + 1);
        }
        if (cut != std::string::npos) entity = entity.substr(0, cut) + "\n  ...";
        if (!text.empty()) text += "\n---\n";
        text += "entity `" + uid + "` in " + shown_path + "\n```json\n" + entity + "\n```\n";
      }
    }
    if (found.empty()) {
      if (text.empty()) return nullptr;
      return r.kind != Reference::Kind::kNone ? answer(r.begin, r.end) : answer(typed->begin, typed->end);
    }
    size_t shown = 0;
    for (const Declared& d : found) {
      if (++shown > 8) break;
      const Symbol& s = *d.symbol;
      std::string_view source(d.file->text);
      std::string declaration(source.substr(s.begin, std::max(s.end, s.begin) - s.begin));
      // At most 12 lines of it.
      size_t cut = 0;
      for (int lines = 0; cut != std::string::npos && lines < 12; ++lines) {
        cut = declaration.find('\n', cut == 0 ? 0 : cut + 1);
      }
      if (cut != std::string::npos) declaration = declaration.substr(0, cut) + "\n  ...";
      if (!text.empty()) text += "\n---\n";
      if (!d.owner.empty()) text += "attribute of `" + d.owner + "`\n";
      text += "```cedarschema\n" + declaration + "\n```\n";
      if (s.doc_end > s.doc_begin) text += "\n" + CommentText(source.substr(s.doc_begin, s.doc_end - s.doc_begin));
      if (d.parent != nullptr && d.parent->doc_end > d.parent->doc_begin) {
        text += "\n`" + d.owner + "`: " + CommentText(source.substr(d.parent->doc_begin, d.parent->doc_end - d.parent->doc_begin));
      }
      LineIndex index(d.file->text);
      std::string shown_path = d.file->path;
      if (!root.empty() && shown_path.rfind(root + "/", 0) == 0) shown_path = shown_path.substr(root.size() + 1);
      text += "\n" + shown_path + ":" + std::to_string(index.PositionOf(s.name_begin).line + 1) + "\n";
    }
    return answer(r.begin, r.end);
  }

  json Completion(const Document& doc, const json& params) const {
    Position p = PositionFrom(Member(params, "position"));
    LineIndex index(doc.text);
    size_t at = index.OffsetOf(p);
    size_t line_start = index.OffsetOf(Position{p.line, 0});
    std::string_view line = std::string_view(doc.text).substr(line_start, at - line_start);
    json items = json::array();
    auto add = [&](const std::string& label, int kind, const std::string& detail) {
      json item{{"label", label}, {"kind", kind}};
      if (!detail.empty()) item["detail"] = detail;
      items.push_back(std::move(item));
    };
    // The identifier being typed, and what comes before it.
    size_t word = line.size();
    while (word > 0 && IsIdentChar(line[word - 1])) --word;
    std::string_view before = line.substr(0, word);
    if (doc.kind == Kind::kSchema) {
      for (const char* k : kSchemaKeywords) add(k, 14, "keyword");
      if (schema.has_value()) {
        for (const std::string& t : schema->EntityTypes()) add(t, 7, "entity type");
      }
      return json{{"isIncomplete", false}, {"items", std::move(items)}};
    }
    if (!before.empty() && before.back() == '.') {
      // `principal.`, `resource.`, `x.`: the attributes the schema declares.
      size_t b = before.size() - 1;
      while (b > 0 && IsIdentChar(before[b - 1])) --b;
      std::string base(before.substr(b, before.size() - 1 - b));
      std::set<std::string> names;
      if (schema.has_value()) {
        std::vector<std::string> types = base == "principal"  ? schema->PrincipalTypes()
                                         : base == "resource" ? schema->ResourceTypes()
                                                              : schema->EntityTypes();
        for (const std::string& t : types) {
          for (const std::string& a : schema->Attributes(t)) names.insert(a);
        }
      }
      for (const std::string& n : names) {
        if (IsIdentifier(n)) add(n, 5, "attribute");
      }
      return json{{"isIncomplete", false}, {"items", std::move(items)}};
    }
    // Inside `Type::"`: the ids known for the type.
    size_t quote = line.rfind('"');
    if (quote != std::string_view::npos && quote >= 2 && line.substr(quote - 2, 2) == "::" &&
        line.find('"', quote + 1) == std::string_view::npos) {
      size_t b = quote - 2;
      while (b > 0 && (IsIdentChar(line[b - 1]) || line[b - 1] == ':')) --b;
      std::string prefix(line.substr(b, quote + 1 - b));  // `Type::"`
      std::set<std::string> ids;
      for (const std::string& w : Words(doc)) {
        if (w.rfind(prefix, 0) == 0 && w.size() > prefix.size() + 1) ids.insert(w.substr(prefix.size(), w.size() - prefix.size() - 1));
      }
      for (const std::string& id : ids) {
        json item{{"label", id}, {"kind", 12}, {"detail", prefix + id + "\""}};
        items.push_back(std::move(item));
      }
      return json{{"isIncomplete", false}, {"items", std::move(items)}};
    }
    for (const char* k : kPolicyKeywords) add(k, 14, "keyword");
    items.push_back(json{{"label", "permit"},
                         {"kind", 15},
                         {"detail", "permit (...) when { ... };"},
                         {"insertTextFormat", 2},
                         {"insertText", "permit (\n  principal${1},\n  action${2},\n  resource${3}\n)\nwhen { ${0:true} };"}});
    items.push_back(json{{"label", "forbid"},
                         {"kind", 15},
                         {"detail", "forbid (...) when { ... };"},
                         {"insertTextFormat", 2},
                         {"insertText", "forbid (\n  principal${1},\n  action${2},\n  resource${3}\n)\nwhen { ${0:true} };"}});
    if (schema.has_value()) {
      for (const std::string& t : schema->EntityTypes()) add(t, 7, "entity type");
      for (const EntityUid& a : schema->Actions()) add(a.ToString(), 20, "action");
    }
    for (const std::string& w : entity_words) add(w, 12, "entity");
    return json{{"isIncomplete", false}, {"items", std::move(items)}};
  }

  // `Type::"id"` words: the schema's actions, the entities file's, and the
  // document's own references (as the REPL collects them from policy text).
  std::set<std::string> Words(const Document& doc) const {
    std::set<std::string> words = entity_words;
    if (schema.has_value()) {
      for (const EntityUid& a : schema->Actions()) words.insert(a.ToString());
    }
    const std::string& text = doc.text;
    for (size_t at = text.find("::\""); at != std::string::npos; at = text.find("::\"", at + 3)) {
      size_t begin = at;
      while (begin > 0 && (IsIdentChar(text[begin - 1]) || text[begin - 1] == ':')) --begin;
      size_t end = text.find('"', at + 3);
      if (end == std::string::npos || begin == at) continue;
      std::string id = text.substr(at + 3, end - at - 3);
      if (id.find('\\') != std::string::npos || id.find('\n') != std::string::npos) continue;
      words.insert(text.substr(begin, end + 1 - begin));
    }
    return words;
  }

  // ---- find-references and rename ----

  // A text the names are looked for in: the schema's files, the documents
  // open, the project's policy files (the editor's text where open).
  struct Source {
    std::string uri;
    std::string text;
    Kind kind;
    bool link_file = false;  // JSON: template links
  };

  std::vector<Source> Sources() const {
    std::vector<Source> out;
    std::set<std::string> seen;  // URIs
    for (const SchemaFile& f : schema_files) {
      std::string uri = UriOf(f.path);
      for (const auto& [open_uri, doc] : documents) {
        if (doc.path == f.path) uri = open_uri;
      }
      if (seen.insert(uri).second) out.push_back(Source{uri, f.text, Kind::kSchema});
    }
    for (const auto& [uri, doc] : documents) {
      if (!seen.insert(uri).second) continue;
      bool links = doc.kind == Kind::kOther && EndsWith(uri.substr(0, uri.find_first_of("?#")), ".json");
      if (doc.kind == Kind::kOther && !links) continue;
      out.push_back(Source{uri, doc.text, doc.kind, links});
    }
    for (const std::string& path : project_policies) {
      std::string uri = UriOf(path);
      if (seen.count(uri) != 0) continue;
      bool open = false;
      for (const auto& [open_uri, doc] : documents) open = open || doc.path == path;
      if (open) continue;
      std::string why;
      std::optional<std::string> text = TextOf(path, &why);
      if (!text.has_value()) continue;
      seen.insert(uri);
      out.push_back(Source{uri, *std::move(text), KindOf(path, "")});
    }
    return out;
  }

  static std::vector<Occurrence> OccurrencesIn(const Source& source) {
    if (source.link_file) return LinkOccurrences(source.text);
    if (source.kind == Kind::kSchema) return SchemaOccurrences(source.text);
    if (source.kind == Kind::kCedar || source.kind == Kind::kCharter) {
      return PolicyOccurrences(source.text, source.kind == Kind::kCharter);
    }
    return {};
  }

  // The entity types an attribute occurrence may belong to: its
  // declaration's, or those declaring its name in the schema's text
  // (narrowed to the principal's or resource's types after `principal.`
  // or `resource.`, as hover narrows them).
  std::vector<std::string> OwnersOf(const Occurrence& o, const std::map<std::string, std::set<std::string>>& declaring) const {
    if (o.declaration) return o.owners;
    auto it = declaring.find(o.name);
    if (it == declaring.end()) return {};
    std::vector<std::string> owners(it->second.begin(), it->second.end());
    if (schema.has_value() && (o.base == "principal" || o.base == "resource")) {
      std::vector<std::string> types = o.base == "principal" ? schema->PrincipalTypes() : schema->ResourceTypes();
      std::vector<std::string> narrowed;
      for (const std::string& owner : owners) {
        if (std::find(types.begin(), types.end(), owner) != types.end()) narrowed.push_back(owner);
      }
      if (!narrowed.empty()) owners = std::move(narrowed);
    }
    return owners;
  }

  struct Found {
    const Source* source;
    Occurrence occurrence;
    std::vector<std::string> owners;  // for attributes
  };

  struct Search {
    std::vector<Source> sources;
    std::vector<Found> all;
    std::optional<Found> target;
  };

  // Every occurrence of every source, and the one under the position of `params` in `doc`.
  Search SearchFrom(const Document& doc, const json& params) const {
    Position p = PositionFrom(Member(params, "position"));
    size_t at = LineIndex(doc.text).OffsetOf(p);
    Search search;
    search.sources = Sources();
    std::vector<std::vector<Occurrence>> per_source;
    std::map<std::string, std::set<std::string>> declaring;  // attribute -> entity types
    for (const Source& source : search.sources) {
      per_source.push_back(OccurrencesIn(source));
      for (const Occurrence& o : per_source.back()) {
        if (o.kind == Occurrence::Kind::kAttribute && o.declaration) declaring[o.name].insert(o.owners.begin(), o.owners.end());
      }
    }
    for (size_t i = 0; i < search.sources.size(); ++i) {
      for (Occurrence& o : per_source[i]) {
        std::vector<std::string> owners = o.kind == Occurrence::Kind::kAttribute ? OwnersOf(o, declaring) : std::vector<std::string>{};
        search.all.push_back(Found{&search.sources[i], std::move(o), std::move(owners)});
      }
    }
    for (const Found& f : search.all) {
      if (f.source->uri != doc.uri) continue;
      if (f.occurrence.begin <= at && at <= f.occurrence.end) {
        // At the end of one token and the start of the next, the next.
        if (!search.target.has_value() || at < f.occurrence.end) search.target = f;
      }
    }
    return search;
  }

  static bool Intersect(const std::vector<std::string>& a, const std::vector<std::string>& b) {
    for (const std::string& x : a) {
      if (std::find(b.begin(), b.end(), x) != b.end()) return true;
    }
    return false;
  }

  static bool Same(const Found& a, const Found& target) {
    const Occurrence& x = a.occurrence;
    const Occurrence& y = target.occurrence;
    if (x.kind != y.kind || x.name != y.name) return false;
    if (x.kind == Occurrence::Kind::kAction) return x.id == y.id;
    if (x.kind == Occurrence::Kind::kAttribute) {
      if (a.owners.empty() || target.owners.empty()) return a.owners.empty() && target.owners.empty();
      return Intersect(a.owners, target.owners);
    }
    return true;
  }

  json RangeIn(const std::string& text, size_t begin, size_t end) const {
    LineIndex index(text);
    return json{{"start", ToJson(index.PositionOf(begin))}, {"end", ToJson(index.PositionOf(end))}};
  }

  json References(const Document& doc, const json& params) const {
    bool declarations = false;
    if (const json* context = Optional(params, "context"); context != nullptr) {
      if (const json* v = Optional(*context, "includeDeclaration"); v != nullptr && v->is_boolean()) declarations = v->get<bool>();
    }
    Search search = SearchFrom(doc, params);
    if (!search.target.has_value()) return nullptr;
    json out = json::array();
    for (const Found& f : search.all) {
      if (!Same(f, *search.target) || (f.occurrence.declaration && !declarations)) continue;
      out.push_back(json{{"uri", f.source->uri}, {"range", RangeIn(f.source->text, f.occurrence.begin, f.occurrence.end)}});
    }
    return out;
  }

  static const char* What(Occurrence::Kind kind) {
    switch (kind) {
      case Occurrence::Kind::kType: return "a type";
      case Occurrence::Kind::kAction: return "an action";
      case Occurrence::Kind::kAttribute: return "an attribute";
      case Occurrence::Kind::kTemplate: return "a template";
      case Occurrence::Kind::kQueue: return "a queue";
      case Occurrence::Kind::kCohort: return "a cohort";
      case Occurrence::Kind::kFlavor: return "a flavor";
    }
    return "a name";
  }

  static std::string Shown(const Occurrence& o) {
    return o.kind == Occurrence::Kind::kAction ? o.name + "::\"" + o.id + "\"" : o.name;
  }

  static bool IsScheduling(Occurrence::Kind kind) {
    return kind == Occurrence::Kind::kQueue || kind == Occurrence::Kind::kCohort || kind == Occurrence::Kind::kFlavor;
  }

  // A name Kueue takes for a cluster queue, a cohort or a resource flavor: a
  // DNS subdomain (at most 253 characters of [a-z0-9.-], each part between
  // dots starting and ending with a letter or digit).
  static bool IsDnsSubdomain(std::string_view name) {
    if (name.empty() || name.size() > 253) return false;
    size_t from = 0;
    while (from <= name.size()) {
      size_t dot = name.find('.', from);
      std::string_view part = name.substr(from, dot == std::string_view::npos ? std::string_view::npos : dot - from);
      if (part.empty()) return false;
      auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
      if (!alnum(part.front()) || !alnum(part.back())) return false;
      for (char c : part) {
        if (!alnum(c) && c != '-') return false;
      }
      if (dot == std::string_view::npos) break;
      from = dot + 1;
    }
    return true;
  }

  // What a rename at the position would change, or why it cannot.
  std::vector<const Found*> Renameable(const Search& search) const {
    if (!search.target.has_value()) throw RpcError{kRequestFailed, "there is no name to rename here"};
    const Found& target = *search.target;
    const Occurrence& o = target.occurrence;
    if (o.kind == Occurrence::Kind::kAction || o.kind == Occurrence::Kind::kTemplate) {
      throw RpcError{kRequestFailed,
                     "`" + Shown(o) + "` is " + What(o.kind) +
                         "; only an entity type, an attribute, a queue, a cohort or a flavor can be renamed"};
    }
    std::vector<const Found*> changes;
    bool declared = false;
    for (const Found& f : search.all) {
      if (!Same(f, target)) continue;
      changes.push_back(&f);
      declared = declared || f.occurrence.declaration;
    }
    if (!declared && IsScheduling(o.kind)) {
      throw RpcError{kRequestFailed, "`" + o.name + "` is not declared in a `.charter` file open or of the project" +
                                         std::string(", so it cannot be renamed")};
    }
    if (!declared) {
      throw RpcError{kRequestFailed, "`" + o.name + "` is not declared in the schema's text" +
                                         (schema_files.empty() ? std::string(" (no schema is set)") : std::string()) +
                                         ", so it cannot be renamed"};
    }
    if (o.kind == Occurrence::Kind::kAttribute) {
      // Every `.name` renamed must be this attribute's: refused when the
      // name is also another type's and a policy's use could be either.
      std::set<std::string> owners;
      for (const Found* f : changes) {
        if (f->occurrence.declaration) owners.insert(f->owners.begin(), f->owners.end());
      }
      for (const Found* f : changes) {
        for (const std::string& owner : f->owners) {
          if (owners.count(owner) == 0) {
            LineIndex index(f->source->text);
            Position at = index.PositionOf(f->occurrence.begin);
            std::string name = PathOf(f->source->uri);
            throw RpcError{kRequestFailed,
                           "`" + o.name + "` cannot be renamed: `" + owner + "` declares an attribute `" + o.name +
                               "` too, and the one at " + (name.empty() ? f->source->uri : name) + ":" +
                               std::to_string(at.line + 1) + ":" + std::to_string(at.character + 1) + " may be either"};
          }
        }
      }
    }
    return changes;
  }

  json PrepareRename(const Document& doc, const json& params) const {
    Search search = SearchFrom(doc, params);
    Renameable(search);
    const Occurrence& o = search.target->occurrence;
    std::string placeholder = o.kind == Occurrence::Kind::kType ? o.name.substr(o.name.rfind(':') == std::string::npos ? 0 : o.name.rfind(':') + 1) : o.name;
    return json{{"range", RangeIn(doc.text, o.begin, o.end)}, {"placeholder", placeholder}};
  }

  json Rename(const Document& doc, const json& params) const {
    std::string name = String(params, "newName");
    Search search = SearchFrom(doc, params);
    std::vector<const Found*> changes = Renameable(search);
    const Found& target = *search.target;
    if (IsScheduling(target.occurrence.kind)) return RenameDeclared(search, changes, name);
    static const char* const kReserved[] = {"true", "false", "if", "then", "else", "in", "is", "like", "has", "__cedar"};
    bool reserved = false;
    for (const char* r : kReserved) reserved = reserved || name == r;
    if (!IsIdentifier(name) || reserved) {
      throw RpcError{kRequestFailed, "`" + name + "` is not a valid name: " +
                                         (reserved ? std::string("it is a reserved word")
                                                   : std::string("a name is a letter or `_`, then letters, digits and `_`"))};
    }
    const Occurrence& o = target.occurrence;
    std::string old_last = o.name.substr(o.name.rfind(':') == std::string::npos ? 0 : o.name.rfind(':') + 1);
    if (o.kind == Occurrence::Kind::kType) {
      std::string renamed = o.name.substr(0, o.name.size() - old_last.size()) + name;
      for (const Found& f : search.all) {
        if (f.occurrence.kind == Occurrence::Kind::kType && f.occurrence.declaration && f.occurrence.name == renamed && renamed != o.name) {
          throw RpcError{kRequestFailed, "`" + renamed + "` is already declared"};
        }
      }
    } else {
      std::set<std::string> owners;
      for (const Found* f : changes) {
        if (f->occurrence.declaration) owners.insert(f->owners.begin(), f->owners.end());
      }
      for (const Found& f : search.all) {
        if (f.occurrence.kind == Occurrence::Kind::kAttribute && f.occurrence.declaration && f.occurrence.name == name &&
            name != o.name) {
          for (const std::string& owner : f.owners) {
            if (owners.count(owner) != 0) throw RpcError{kRequestFailed, "`" + owner + "` already has an attribute `" + name + "`"};
          }
        }
      }
    }
    json edits = json::object();
    for (const Found* f : changes) {
      std::string text = f->occurrence.quoted ? JsonString(name) : name;
      json& list = edits[f->source->uri];
      if (list.is_null()) list = json::array();
      list.push_back(json{{"range", RangeIn(f->source->text, f->occurrence.begin, f->occurrence.end)}, {"newText", text}});
    }
    return json{{"changes", std::move(edits)}};
  }

  // A queue, a cohort or a flavor renamed: the new name must be one Kueue
  // takes and not another of the same kind's. A bare name stays bare when
  // the new one is an identifier, else it becomes a string.
  json RenameDeclared(const Search& search, const std::vector<const Found*>& changes, const std::string& name) const {
    const Occurrence& o = search.target->occurrence;
    if (!IsDnsSubdomain(name)) {
      throw RpcError{kRequestFailed, "`" + name + "` is not a valid name: " + What(o.kind) +
                                         "'s name is a DNS subdomain (lowercase letters, digits, `-` and `.`, at most "
                                         "253, each part between dots starting and ending with a letter or digit)"};
    }
    if (name != o.name) {
      for (const Found& f : search.all) {
        if (f.occurrence.kind == o.kind && f.occurrence.declaration && f.occurrence.name == name) {
          LineIndex index(f.source->text);
          Position at = index.PositionOf(f.occurrence.begin);
          std::string file = PathOf(f.source->uri);
          throw RpcError{kRequestFailed, std::string("there is ") + What(o.kind) + " `" + name + "` already, at " +
                                             (file.empty() ? f.source->uri : file) + ":" + std::to_string(at.line + 1) +
                                             ":" + std::to_string(at.character + 1)};
        }
      }
    }
    json edits = json::object();
    for (const Found* f : changes) {
      std::string text = f->occurrence.quoted || !IsIdentifier(name) ? JsonString(name) : name;
      json& list = edits[f->source->uri];
      if (list.is_null()) list = json::array();
      list.push_back(json{{"range", RangeIn(f->source->text, f->occurrence.begin, f->occurrence.end)}, {"newText", text}});
    }
    return json{{"changes", std::move(edits)}};
  }

  // ---- semantic tokens ----
  json SemanticTokensOf(const Document& doc) const {
    json data = json::array();
    if (doc.kind == Kind::kOther) return json{{"data", std::move(data)}};
    SemanticLanguage language = doc.kind == Kind::kSchema    ? SemanticLanguage::kSchema
                                : doc.kind == Kind::kCharter ? SemanticLanguage::kCharter
                                                             : SemanticLanguage::kCedar;
    LineIndex index(doc.text);
    Position previous;
    for (const SemanticToken& token : SemanticTokens(doc.text, language)) {
      Position begin = index.PositionOf(token.begin);
      Position end = index.PositionOf(token.end);
      if (end.line != begin.line || end.character <= begin.character) continue;
      uint32_t delta_line = begin.line - previous.line;
      uint32_t delta_start = delta_line == 0 ? begin.character - previous.character : begin.character;
      data.push_back(delta_line);
      data.push_back(delta_start);
      data.push_back(end.character - begin.character);
      data.push_back(static_cast<int>(token.type));
      data.push_back(token.declaration ? 1 : 0);
      previous = begin;
    }
    return json{{"data", std::move(data)}};
  }

  // ---- code lenses: each case of a `charter test` file runs ----
  static bool IsTestFile(const Document& doc) {
    return doc.kind == Kind::kOther && EndsWith(doc.uri.substr(0, doc.uri.find_first_of("?#")), ".test.json");
  }

  json CodeLenses(const Document& doc) const {
    json lenses = json::array();
    if (!IsTestFile(doc)) return lenses;
    LineIndex index(doc.text);
    auto lens = [&](const TestCase& c, const char* title, json arguments) {
      Position at = index.PositionOf(c.begin);
      lenses.push_back(json{{"range", {{"start", ToJson(at)}, {"end", ToJson(Position{at.line, at.character + 1})}}},
                            {"command",
                             {{"title", title}, {"command", "charter.runTest"}, {"arguments", std::move(arguments)}}}});
    };
    std::vector<TestCase> cases = TestCases(doc.text);
    for (size_t i = 0; i < cases.size(); ++i) lens(cases[i], "Run test", json::array({doc.uri, i}));
    std::vector<TestCase> invariants = TestInvariants(doc.text);
    for (size_t i = 0; i < invariants.size(); ++i) {
      lens(invariants[i], "Prove invariant", json::array({doc.uri, i, "invariant"}));
    }
    return lenses;
  }

  // `charter.runTest` [URI, N]: `charter test --format json FILE` on the
  // file as saved, and case N's outcome shown (and returned). [URI, N,
  // "invariant"]: invariant N alone, `charter test --format json
  // --invariant NAME FILE` (its name, or its number from 1 when it has none).
  json ExecuteCommand(const json& params) {
    std::string command = String(params, "command");
    if (command != "charter.runTest") throw RpcError{kInvalidParams, "unknown command `" + command + "`"};
    const json& args = Member(params, "arguments");
    bool invariant = args.is_array() && args.size() == 3 && args[2] == "invariant";
    if (!args.is_array() || (args.size() != 2 && !invariant) || !args[0].is_string() || !args[1].is_number_unsigned()) {
      throw RpcError{kInvalidParams,
                     "charter.runTest takes [the test file's URI, the case's index] "
                     "or [URI, the invariant's index, \"invariant\"]"};
    }
    std::string uri = args[0].get<std::string>();
    size_t index = args[1].get<size_t>();
    std::string path = PathOf(uri);
    if (path.empty()) throw RpcError{kRequestFailed, "`" + uri + "` is not a file"};
    if (!run_charter) throw RpcError{kRequestFailed, "this server does not run tests"};
    std::string saved_note;
    std::string disk;
    if (limits.read_files) {
      std::ifstream in(path, std::ios::binary);
      disk.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    auto open = documents.find(uri);
    if (open != documents.end() && limits.read_files && disk != open->second.text) {
      saved_note = " (the file as saved; the editor's changes are not)";
    }
    std::vector<std::string> run_args = {"test", "--format", "json"};
    if (invariant) {
      // The invariant as saved: its name there, or its number.
      std::vector<TestCase> saved = TestInvariants(disk);
      if (index >= saved.size()) throw RpcError{kInvalidParams, path + " has no invariant " + std::to_string(index + 1)};
      run_args.push_back("--invariant");
      run_args.push_back(saved[index].name.empty() ? std::to_string(index + 1) : saved[index].name);
    }
    run_args.push_back(path);
    std::string out, err;
    int status = run_charter(run_args, &out, &err);
    json report = json::parse(out, nullptr, /*allow_exceptions=*/false);
    const json* files = report.is_object() ? Optional(report, "files") : nullptr;
    const json* file = files != nullptr && files->is_array() && files->size() == 1 ? &(*files)[0] : nullptr;
    const json* cases = file != nullptr ? Optional(*file, "cases") : nullptr;
    const json* error = file != nullptr ? Optional(*file, "error") : nullptr;
    if (status < 0 || cases == nullptr || !cases->is_array() || (invariant && (error != nullptr || cases->empty()))) {
      std::string message =
          Trim(error != nullptr && error->is_string() ? error->get<std::string>() : err.empty() ? out : err);
      ShowMessage(1, "charter test " + path + ": " + (message.empty() ? "did not run" : message));
      return json{{"passed", false}, {"message", message}};
    }
    if (invariant) index = 0;  // the only one run
    if (index >= cases->size()) throw RpcError{kInvalidParams, path + " has no case " + std::to_string(index + 1)};
    const json& c = (*cases)[index];
    std::string name = c.value("name", "case " + std::to_string(index + 1));
    bool passed = c.value("passed", false);
    std::string message;
    if (invariant) {
      // As `charter test` prints it: the result, and each signature that does not hold.
      const json proof = c.value("invariant", json::object());
      const json answers = proof.value("answers", json::array());
      message = (passed ? "PASS invariant " : "FAIL invariant ") + name + saved_note + ": " +
                proof.value("result", std::string("unknown"));
      if (passed) {
        message += " (" + std::to_string(answers.size()) + (answers.size() == 1 ? " signature)" : " signatures)");
      }
      for (const json& a : answers) {
        if (!a.is_object() || a.value("result", std::string()) == "holds") continue;
        const json signature = a.value("signature", json::object());
        message += "; ";
        if (signature.is_object()) {
          message += signature.value("principalType", std::string()) + ", " +
                     signature.value("action", std::string()) + ", " + signature.value("resourceType", std::string()) +
                     ": ";
        }
        message += a.value("result", std::string());
        if (const json* example = Optional(a, "counterexample"); example != nullptr && example->is_object()) {
          message += ", counterexample request " + Dump(example->value("request", json::object()));
        } else if (std::string reason = a.value("reason", std::string()); !reason.empty()) {
          message += " (" + reason + ")";
        }
      }
    } else {
      message = (passed ? "PASS " : "FAIL ") + name + saved_note;
      if (!passed) {
        message += ": expected " + Dump(c.value("expected", json::object())) + ", got " + Dump(c.value("actual", json::object()));
      }
    }
    ShowMessage(passed ? 3 : 1, message);
    return json{{"passed", passed}, {"message", message}};
  }

  // ---- dispatch ----
  json Initialize(const json& params) {
    if (initialized) throw RpcError{kInvalidRequest, "initialize was already received"};
    initialized = true;
    if (const json* uri = Optional(params, "rootUri"); uri != nullptr && uri->is_string()) {
      root = PathOf(uri->get<std::string>());
    } else if (const json* path = Optional(params, "rootPath"); path != nullptr && path->is_string()) {
      root = path->get<std::string>();
    }
    if (const json* folders = Optional(params, "workspaceFolders");
        root.empty() && folders != nullptr && folders->is_array() && !folders->empty()) {
      if (const json* uri = Optional((*folders)[0], "uri"); uri != nullptr && uri->is_string()) {
        root = PathOf(uri->get<std::string>());
      }
    }
    while (root.size() > 1 && root.back() == '/') root.pop_back();
    if (const json* init = Optional(params, "initializationOptions"); init != nullptr) ReadSettings(*init);
    DiscoverProject();
    LoadSchema();
    LoadEntities();
    return json{
        {"capabilities",
         {{"positionEncoding", "utf-16"},
          {"textDocumentSync", {{"openClose", true}, {"change", 2}}},
          {"documentFormattingProvider", true},
          {"documentSymbolProvider", true},
          {"hoverProvider", true},
          {"definitionProvider", true},
          {"referencesProvider", true},
          {"renameProvider", {{"prepareProvider", true}}},
          {"codeLensProvider", {{"resolveProvider", false}}},
          {"executeCommandProvider", {{"commands", json::array({"charter.runTest"})}}},
          {"semanticTokensProvider",
           {{"legend", {{"tokenTypes", std::vector<std::string>(std::begin(kSemanticTypeNames), std::end(kSemanticTypeNames))},
                        {"tokenModifiers", json::array({"declaration"})}}},
            {"full", true}}},
          {"codeActionProvider", {{"codeActionKinds", json::array({"quickfix"})}}},
          {"completionProvider", {{"triggerCharacters", json::array({".", ":", "\""})}}}}},
        {"serverInfo", {{"name", "charter"}, {"version", std::string(Version())}}}};
  }

  void DidOpen(const json& params) {
    const json& item = Member(params, "textDocument");
    Document doc;
    doc.uri = String(item, "uri");
    doc.path = PathOf(doc.uri);
    doc.text = String(item, "text");
    if (const json* v = Optional(item, "version"); v != nullptr && v->is_number_integer()) doc.version = v->get<int64_t>();
    std::string language;
    if (const json* l = Optional(item, "languageId"); l != nullptr && l->is_string()) language = l->get<std::string>();
    doc.kind = KindOf(doc.uri, language);
    if (TooLarge(doc)) return;
    Document& stored = documents[doc.uri] = std::move(doc);
    Changed(stored);
  }

  // Whether a document is past the limit; then it is forgotten, and the client told.
  bool TooLarge(const Document& doc) {
    if (doc.text.size() <= limits.max_document_bytes) return false;
    ShowMessage(1, "charter: " + doc.name() + " is larger than " + std::to_string(limits.max_document_bytes) +
                       " bytes; the server no longer follows it");
    std::string uri = doc.uri;  // `doc` may be the map's own
    Notify("textDocument/publishDiagnostics", json{{"uri", uri}, {"diagnostics", json::array()}});
    documents.erase(uri);
    return true;
  }

  void DidChange(const json& params) {
    Document& doc = Open(params);
    const json& changes = Member(params, "contentChanges");
    if (!changes.is_array()) throw RpcError{kInvalidParams, "`contentChanges` is not an array"};
    for (const json& change : changes) {
      std::string text = String(change, "text");
      if (const json* range = Optional(change, "range"); range != nullptr) {
        ApplyEdit(&doc.text, PositionFrom(Member(*range, "start")), PositionFrom(Member(*range, "end")), text);
      } else {
        doc.text = std::move(text);
      }
      if (TooLarge(doc)) return;
    }
    if (const json* v = Optional(Member(params, "textDocument"), "version"); v != nullptr && v->is_number_integer()) {
      doc.version = v->get<int64_t>();
    }
    Changed(doc);
  }

  void DidClose(const json& params) {
    Document& doc = Open(params);
    std::string uri = doc.uri;
    bool schema_file = IsSchemaPath(doc.path);
    Notify("textDocument/publishDiagnostics", json{{"uri", uri}, {"diagnostics", json::array()}});
    documents.erase(uri);
    if (schema_file) {
      LoadSchema();  // from the disk again
      PublishAll();
    }
  }

  json Request(const std::string& method, const json& params) {
    if (method == "initialize") return Initialize(params);
    if (!initialized) throw RpcError{kServerNotInitialized, "the server is not initialized"};
    if (shut_down) throw RpcError{kInvalidRequest, "the server is shutting down"};
    if (method == "shutdown") {
      shut_down = true;
      return nullptr;
    }
    if (method == "textDocument/formatting") return Formatting(Open(params));
    if (method == "textDocument/documentSymbol") return DocumentSymbols(Open(params));
    if (method == "textDocument/completion") return Completion(Open(params), params);
    if (method == "textDocument/hover") return Hover(Open(params), params);
    if (method == "textDocument/definition") return Definition(Open(params), params);
    if (method == "textDocument/codeAction") return CodeActions(Open(params), params);
    if (method == "textDocument/references") return References(Open(params), params);
    if (method == "textDocument/prepareRename") return PrepareRename(Open(params), params);
    if (method == "textDocument/rename") return Rename(Open(params), params);
    if (method == "textDocument/semanticTokens/full") return SemanticTokensOf(Open(params));
    if (method == "textDocument/codeLens") return CodeLenses(Open(params));
    if (method == "workspace/executeCommand") return ExecuteCommand(params);
    throw RpcError{kMethodNotFound, "unknown method `" + method + "`"};
  }

  void Notification(const std::string& method, const json& params) {
    if (method == "exit") {
      exited = true;
      return;
    }
    if (!initialized || shut_down) return;
    if (method == "initialized") {
      if (!project_fault.empty()) ShowMessage(2, "charter: the project file was not read: " + project_fault);
      if (!schema_fault.empty()) {
        ShowMessage(2, "charter: the schema was not loaded; policies are checked without it: " + schema_fault);
      }
    } else if (method == "textDocument/didOpen") {
      DidOpen(params);
    } else if (method == "textDocument/didChange") {
      DidChange(params);
    } else if (method == "textDocument/didClose") {
      DidClose(params);
    } else if (method == "workspace/didChangeConfiguration") {
      if (const json* settings = Optional(params, "settings"); settings != nullptr && ReadSettings(*settings)) {
        DiscoverProject();
        if (!project_fault.empty()) ShowMessage(2, "charter: the project file was not read: " + project_fault);
        schema.reset();  // no last good schema of other files
        Reload();
        PublishAll();
      }
    } else if (method == "textDocument/didSave") {
      // Nothing: the diagnostics follow the editor's text.
    }
    // Other notifications ($/cancelRequest, $/setTrace, ...) are ignored, as the protocol allows.
  }

  void Handle(std::string_view body) {
    bool too_deep = false;
    int max_depth = limits.max_json_depth;
    json::parser_callback_t depth_check = [&too_deep, max_depth](int depth, json::parse_event_t, json&) {
      if (depth > max_depth) too_deep = true;
      return !too_deep;
    };
    json message = json::parse(body.begin(), body.end(), depth_check, /*allow_exceptions=*/false);
    if (too_deep) {
      RespondError(nullptr, kInvalidRequest, "the message is nested deeper than " + std::to_string(max_depth));
      return;
    }
    if (message.is_discarded()) {
      RespondError(nullptr, kParseError, "the message is not JSON");
      return;
    }
    if (!message.is_object()) {
      RespondError(nullptr, kInvalidRequest, "the message is not a JSON-RPC request (an object)");
      return;
    }
    const json* id = Optional(message, "id");
    if (id != nullptr && !id->is_string() && !id->is_number_integer()) {
      RespondError(nullptr, kInvalidRequest, "the id is neither a number nor a string");
      return;
    }
    auto method = message.find("method");
    if (method == message.end() || !method->is_string()) {
      if (message.contains("result") || message.contains("error")) return;  // a response: none is awaited
      RespondError(id != nullptr ? *id : json(nullptr), kInvalidRequest, "the message has no method");
      return;
    }
    static const json kNoParams = json::object();
    const json* params = Optional(message, "params");
    if (params != nullptr && !params->is_object() && !params->is_array()) {
      if (id != nullptr) RespondError(*id, kInvalidParams, "params is neither an object nor an array");
      return;
    }
    if (params == nullptr) params = &kNoParams;
    std::string name = method->get<std::string>();
    try {
      if (id == nullptr) {
        Notification(name, *params);
      } else {
        json result = Request(name, *params);
        Respond(*id, std::move(result));
      }
    } catch (const RpcError& e) {
      if (id != nullptr) RespondError(*id, e.code, e.message);
    } catch (const json::exception& e) {
      if (id != nullptr) RespondError(*id, kInvalidParams, e.what());
    } catch (const std::bad_alloc&) {
      if (id != nullptr) RespondError(*id, kInternalError, "out of memory");
    } catch (const std::exception& e) {
      if (id != nullptr) RespondError(*id, kInternalError, e.what());
    }
  }
};

Server::Server(ServerOptions options) : state_(std::make_unique<State>()) { state_->limits = options; }
Server::~Server() = default;

void Server::Handle(std::string_view body, std::vector<std::string>* out) {
  state_->sink = out;
  state_->Handle(body);
  state_->sink = nullptr;
}

void Server::set_run_charter(RunCharter run) { state_->run_charter = std::move(run); }

void Server::Refuse(bool parse_error, std::string_view why, std::vector<std::string>* out) {
  state_->sink = out;
  state_->RespondError(nullptr, parse_error ? kParseError : kInvalidRequest, std::string(why));
  state_->sink = nullptr;
}

bool Server::exited() const { return state_->exited; }
int Server::exit_code() const { return state_->shut_down ? 0 : 1; }

}  // namespace charter::cli::lsp
