// `charter repl`: try decisions and expressions interactively.
//
//   charter repl [--policies P] [--entities E] [--schema S]
//
// An entry is a command (`:load`, `:explain`, ... see kHelp), a request
// (the short form `User::"alice" submitTask Task::"t1"`, an action without a
// type being an `Action`, or a JSON request object), or any Cedar
// expression, evaluated against the loaded entities and the variables of the
// current request (the last one decided). A bad entry prints its error and
// changes nothing; the REPL never exits on one.
//
// An entry continues on the next line while it ends in `\` or an operator,
// or while a bracket or a string is open; an empty line ends it anyway. On a terminal,
// lines are edited with libedit, with history in ~/.charter_history and Tab
// completion of commands, file names, entity types and ids, actions and
// attribute names; otherwise entries are read from stdin, so that sessions
// can be scripted. Positions in errors are `<stdin>:LINE:COL` of the input.
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <editline/readline.h>

#include "charter/charter.h"
#include "charter/explain.h"
#include "charter/schema.h"
#include "command.h"
#include "common/status_macros.h"
#include "common/strings.h"
#include "entities/entity_store.h"
#include "files.h"
#include "json/json.h"
#include "load.h"
#include "report.h"
#include "request/request_data.h"
#include "schema/schema_model.h"
#include "value/value.h"

namespace charter::cli {
namespace {

using internal::Cat;
using internal::CatAppend;

struct ReplFlags {
  std::string policies;
  std::string entities;
  std::string schema;
};

constexpr char kInputName[] = "<stdin>";

constexpr char kHelp[] =
    "  REQUEST               decide it: User::\"alice\" submitTask Task::\"t1\" (an action\n"
    "                        without a type is an Action), or a JSON request object\n"
    "  EXPRESSION            evaluate it against the entities and the current request:\n"
    "                        User::\"alice\" in Team::\"ml\", principal.level > 2, [1, 2].contains(2)\n"
    "  :explain [REQUEST]    explain the decision on the current request, or on REQUEST\n"
    "  :eval EXPRESSION      evaluate, even what looks like a request\n"
    "  :request              show the current request\n"
    "  :context [JSON]       set the context (of the current request and the next short forms)\n"
    "  :load policies FILE   load policies; :load entities FILE, :load schema FILE likewise\n"
    "  :edit [KIND]          edit the policies (or entities, schema) in $EDITOR, then load them\n"
    "  :reload               load the files again, after editing them\n"
    "  :policies             show the policy text\n"
    "  :entities [TYPE|UID]  count the entities by type; list a type; show an entity\n"
    "  :schema               show the schema\n"
    "  :help, :quit\n"
    "An entry continues on the next line after a `\\`, an operator, or while a bracket or string\n"
    "is open; an empty line ends it.\n";

const char* const kCommands[] = {":explain", ":eval ", ":request", ":context ", ":load ", ":edit", ":reload",
                                 ":policies", ":entities", ":schema", ":help", ":quit"};
const char* const kLoadKinds[] = {"policies ", "entities ", "schema "};

bool IsIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_'; }
bool IsIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

// Whether `word` has the shape of an entity reference, `A::B::"id"`.
bool LooksLikeEntity(std::string_view word) {
  size_t i = 0;
  for (;;) {
    if (i >= word.size() || !IsIdentStart(word[i])) return false;
    while (i < word.size() && IsIdentChar(word[i])) ++i;
    if (word.substr(i, 2) != "::") return false;
    i += 2;
    if (i < word.size() && word[i] == '"') break;
  }
  return word.size() >= i + 2 && word.back() == '"';
}

bool IsIdentifier(std::string_view word) {
  if (word.empty() || !IsIdentStart(word[0])) return false;
  for (char c : word) {
    if (!IsIdentChar(c)) return false;
  }
  return true;
}

// Words that make a three-word line an expression, not a request.
bool IsOperatorWord(std::string_view w) { return w == "in" || w == "has" || w == "like" || w == "is"; }

// The words of a line and where they start; quotes may hold spaces.
struct Word {
  std::string text;
  size_t at;
};
std::vector<Word> Words(std::string_view line) {
  std::vector<Word> words;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    bool blank = c == ' ' || c == '\t' || c == '\n' || c == '\r';
    if (!quoted && blank) continue;
    if (words.empty() || (i > 0 && !quoted && (line[i - 1] == ' ' || line[i - 1] == '\t' ||
                                               line[i - 1] == '\n' || line[i - 1] == '\r'))) {
      words.push_back(Word{"", i});
    }
    if (quoted && c == '\\' && i + 1 < line.size()) {
      words.back().text.push_back(c);
      words.back().text.push_back(line[++i]);
      continue;
    }
    if (c == '"') quoted = !quoted;
    words.back().text.push_back(c);
  }
  return words;
}

// Whether an entry is still open: an unclosed bracket or string (outside
// `//` comments), or an operator at its end. Brackets that close more than
// they open end it (an error to report, not a reason to wait).
bool IsOpen(std::string_view text) {
  size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && text[first] == '#') return false;  // a comment line
  int depth = 0;
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quoted) {
      if (c == '\\') ++i;
      else if (c == '"') quoted = false;
      else if (c == '\n') quoted = false;  // strings do not span lines
      continue;
    }
    if (c == '"') quoted = true;
    else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i < text.size() && text[i] != '\n') ++i;
    } else if (c == '(' || c == '[' || c == '{') ++depth;
    else if (c == ')' || c == ']' || c == '}') --depth;
  }
  if (depth > 0 || quoted) return true;
  // An operator at the end wants its right operand on the next line.
  size_t end = text.find_last_not_of(" \t\r\n");
  if (end == std::string_view::npos) return false;
  std::string_view tail = text.substr(0, end + 1);
  for (std::string_view op : {"&&", "||", "==", "!=", "<=", ">=", "<", ">", "+", "-", "*", "."}) {
    if (tail.size() >= op.size() && tail.substr(tail.size() - op.size()) == op) return true;
  }
  return false;
}

std::string Trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(b, e - b + 1));
}

std::string JsonString(std::string_view s) {
  std::string out;
  internal::json::AppendQuoted(&out, s);
  return out;
}

bool ColorOnStdout() {
  const char* term = std::getenv("TERM");
  return isatty(STDOUT_FILENO) == 1 && std::getenv("NO_COLOR") == nullptr &&
         (term == nullptr || std::string(term) != "dumb");
}

// One entry: its text (physical lines joined by '\n', a continuing `\`
// made a space, so that columns stay) and the input line it starts on.
struct Entry {
  std::string text;
  uint32_t line = 1;
};

class Session {
 public:
  explicit Session(const ReplFlags& flags)
      : policies_path_(flags.policies), entities_path_(flags.entities), schema_path_(flags.schema) {}

  void Start() {
    if (!schema_path_.empty()) Report(LoadSchema(schema_path_));
    if (!policies_path_.empty()) Report(LoadPolicies(policies_path_));
    if (!entities_path_.empty()) Report(LoadEntitiesFile(entities_path_));
  }

  // Runs one entry; false to quit.
  bool Run(const Entry& entry) {
    std::string line = Trim(entry.text);
    if (line.empty() || line[0] == '#') return true;
    // The offset of the trimmed text in the entry, for positions.
    size_t lead = entry.text.find_first_not_of(" \t\r\n");
    entry_ = &entry;
    if (line == ":quit" || line == ":q" || line == ":exit") return false;
    std::string command = line[0] == ':' ? line.substr(0, line.find_first_of(" \t\n")) : "";
    std::string rest = command.empty() ? "" : Trim(std::string_view(line).substr(command.size()));
    size_t rest_at = command.empty() ? lead : entry.text.find(rest, lead + command.size());
    if (command.empty()) {
      RequestOrExpression(line, lead);
    } else if (command == ":help") {
      Out(kHelp);
    } else if (command == ":load") {
      std::vector<Word> w = Words(rest);
      if (w.size() != 2 || (w[0].text != "policies" && w[0].text != "entities" && w[0].text != "schema")) {
        Error("usage: :load policies FILE, :load entities FILE or :load schema FILE");
      } else if (w[0].text == "policies") {
        Report(LoadPolicies(w[1].text));
      } else if (w[0].text == "entities") {
        Report(LoadEntitiesFile(w[1].text));
      } else {
        Report(LoadSchema(w[1].text));
      }
    } else if (command == ":edit") {
      Edit(rest);
    } else if (command == ":reload") {
      if (schema_path_.empty() && policies_path_.empty() && entities_path_.empty()) {
        Error("nothing to reload (:load policies FILE)");
      }
      if (!schema_path_.empty()) Report(LoadSchema(schema_path_));
      if (!policies_path_.empty()) Report(LoadPolicies(policies_path_));
      if (!entities_path_.empty()) Report(LoadEntitiesFile(entities_path_));
    } else if (command == ":policies") {
      if (policies_ == nullptr) {
        Out("no policies loaded (:load policies FILE)\n");
      } else {
        const std::string& text = policies_->text();
        Out(text.empty() || text.back() == '\n' ? text : text + "\n");
      }
    } else if (command == ":entities") {
      ShowEntities(rest);
    } else if (command == ":schema") {
      Out(schema_ == nullptr ? "no schema loaded (:load schema FILE)\n"
                             : Cat("// ", schema_path_, "\n", schema_->ToCedar()));
    } else if (command == ":context") {
      SetContext(rest, rest_at);
    } else if (command == ":request") {
      Out(current_.has_value() ? Cat(Describe(*current_), "\n") : "no request yet\n");
    } else if (command == ":eval") {
      if (rest.empty()) {
        Error("usage: :eval EXPRESSION");
      } else {
        Evaluate(rest, rest_at);
      }
    } else if (command == ":explain") {
      Explain(rest, rest_at);
    } else {
      Error(Cat("unknown command `", command, "` (:help lists them)"));
    }
    return true;
  }

  // For completion.
  const std::set<std::string>& words() const { return words_; }
  // The attribute names of the value of `expression` (empty if it has none
  // or does not evaluate), and, with a schema, those its type declares.
  std::vector<std::string> AttributesOf(const std::string& expression) const {
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
      for (const auto& [key, action] : schema_->data().model.actions) {
        const auto& list = expression == "principal" ? action.principals : action.resources;
        types.insert(types.end(), list.begin(), list.end());
      }
    }
    if (schema_ != nullptr) {
      for (const std::string& t : types) {
        const internal::EntityTypeInfo* info = schema_->data().model.FindEntityType(t);
        if (info == nullptr) continue;
        for (const auto& [name, type] : info->attrs) names.insert(name);
      }
    }
    std::vector<std::string> out;
    for (const std::string& n : names) {
      if (IsIdentifier(n)) out.push_back(n);  // others cannot follow a `.`
    }
    return out;
  }

 private:
  static void Out(const std::string& s) {
    std::fwrite(s.data(), 1, s.size(), stdout);
    std::fflush(stdout);
  }
  static void Error(const std::string& message) { Out(Cat("error: ", OneLine(message), "\n")); }
  // Each line of the status's message as an error.
  static void Report(const absl::Status& s) {
    if (s.ok()) return;
    std::string m(s.message());
    size_t start = 0;
    while (start < m.size()) {
      size_t end = m.find('\n', start);
      if (end == std::string::npos) end = m.size();
      if (end > start) Error(m.substr(start, end - start));
      start = end + 1;
    }
  }

  // `text`, found at `offset` in the entry, at its place in the input, for
  // a reader that reports "LINE:COL": the lines before it empty, the
  // columns before it blank.
  std::string Placed(const std::string& text, size_t offset) const {
    const std::string& entry = entry_->text;
    std::string out(entry_->line - 1, '\n');
    size_t line_start = entry.rfind('\n', offset == 0 ? 0 : offset - 1);
    line_start = line_start == std::string::npos || offset == 0 ? 0 : line_start + 1;
    for (size_t i = 0; i < offset; ++i) {
      char c = entry[i];
      if (c == '\n') {
        out.push_back('\n');
      } else if (i >= line_start && (static_cast<unsigned char>(c) & 0xC0) != 0x80) {
        out.push_back(' ');
      }
    }
    return out + text;
  }

  absl::Status LoadPolicies(const std::string& path) {
    CompileOptions options;
    absl::StatusOr<std::string> text = ReadFile(path, options.max_source_bytes);
    if (!text.ok()) return text.status();
    auto source = std::make_unique<SourceFile>(path, *std::move(text));
    absl::StatusOr<Bundle> bundle = CompilePolicySource(*source, {}, options);
    if (!bundle.ok()) return bundle.status();
    if (schema_ != nullptr) RETURN_IF_ERROR(ValidatePolicies(*schema_, *source));
    absl::StatusOr<Engine> engine = Engine::Create(*std::move(bundle));
    if (!engine.ok()) return engine.status();
    engine_ = std::make_unique<Engine>(*std::move(engine));
    policies_ = std::move(source);
    policies_path_ = path;
    CollectWords(policies_->text());
    Out(Cat("loaded ", engine_->policy_ids().size(), " policies from ", path, "\n"));
    return absl::OkStatus();
  }

  static absl::Status ValidatePolicies(const Schema& schema, const SourceFile& source) {
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

  absl::Status LoadEntitiesFile(const std::string& path) {
    absl::StatusOr<Entities> entities = LoadEntities(path);
    if (!entities.ok()) return entities.status();
    if (schema_ != nullptr) {
      if (absl::Status s = ValidateEntities(*schema_, *entities); !s.ok()) {
        return absl::InvalidArgumentError(WithPath(path, OneLine(s.message())));
      }
    }
    entities_ = *std::move(entities);
    entities_loaded_ = true;
    entities_path_ = path;
    const internal::EntityStore& store = entities_.store();
    for (uint32_t uid = 0; uid < store.num_uids(); ++uid) {
      const internal::EntityRef& e = store.ref(uid);
      AddEntityWord(e.type, e.id);
    }
    Out(Cat("loaded ", entities_.size(), " entities from ", path, "\n"));
    return absl::OkStatus();
  }

  absl::Status LoadSchema(const std::string& path) {
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
    Out(Cat("loaded a schema of ", schema_->EntityTypes().size(), " entity types and ",
            schema_->Actions().size(), " actions from ", path, "\n"));
    return absl::OkStatus();
  }

  void AddEntityWord(std::string_view type, std::string_view id) {
    std::string uid = internal::EntityToCedar(type, id);
    words_.insert(uid);
    words_.insert(Cat(type, "::\""));
    if (internal::IsActionType(type) && IsIdentifier(id)) {
      words_.insert(std::string(id));
      actions_[std::string(id)].insert(uid);
    }
  }

  // Every `Type::"id"` in policy text, and the actions' bare names.
  void CollectWords(const std::string& text) {
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

  static std::string Describe(const Request& r) {
    return Cat(r.principal().ToString(), " ", r.action().ToString(), " ", r.resource().ToString(),
               "  context: ", internal::ToCedar(r.data().context));
  }

  // An entry that is not a command: a request or an expression.
  void RequestOrExpression(const std::string& line, size_t offset) {
    std::vector<Word> w = Words(line);
    if (line[0] == '{' && LooksLikeJsonRequest(line)) {
      Decide(line, offset);
      return;
    }
    if (w.size() == 3 && LooksLikeEntity(w[0].text) && LooksLikeEntity(w[2].text) &&
        (IsIdentifier(w[1].text) || LooksLikeEntity(w[1].text)) && !IsOperatorWord(w[1].text)) {
      Decide(line, offset);
      return;
    }
    // A short request with a word too many or too few: say what a request
    // is rather than what the expression parser expected.
    if (w.size() >= 2 && LooksLikeEntity(w[0].text) && IsIdentifier(w[1].text) && !IsOperatorWord(w[1].text)) {
      Error("a request is `PRINCIPAL ACTION RESOURCE`, e.g. User::\"alice\" submitTask Task::\"t1\", "
            "or a JSON object");
      return;
    }
    Evaluate(line, offset);
  }

  // `{"principal": ...}` (a JSON request) rather than a record literal:
  // JSON whose members are a request's, or broken JSON that names one.
  static bool LooksLikeJsonRequest(const std::string& text) {
    absl::StatusOr<internal::json::Document> doc = internal::json::Parse(text);
    if (!doc.ok()) return text.find("\"principal\"") != std::string::npos;
    const internal::json::Value& root = doc->root();
    return root.is_object() && (root.Find("principal") != nullptr || root.Find("action") != nullptr ||
                                root.Find("resource") != nullptr);
  }

  // Evaluates `text`, found at `offset` in the entry.
  void Evaluate(const std::string& text, size_t offset) {
    Diagnostics diagnostics;
    SourceFile source(kInputName, Placed(text, offset));
    absl::StatusOr<ExpressionValue> v = EvaluateExpression(
        source, current_.has_value() ? &*current_ : nullptr, entities_, CompileOptions(), &diagnostics);
    if (!v.ok()) {
      Report(v.status());
      return;
    }
    if (!v->ok) {
      Error(Cat(kInputName, ":", v->error_where.line, ":", v->error_where.column, ": ", v->error));
      return;
    }
    Out(v->value + "\n");
  }

  // A request from an entry (short form or JSON), with errors at their
  // place in the input.
  absl::StatusOr<Request> ParseRequest(const std::string& line, size_t offset) {
    if (line[0] == '{') {
      absl::StatusOr<Request> r = Request::FromJson(Placed(line, offset), kInputName);
      if (!r.ok()) return absl::InvalidArgumentError(OneLine(r.status().message()));
      return r;
    }
    std::vector<Word> w = Words(line);
    if (w.size() != 3) {
      return absl::InvalidArgumentError(
          "a request is `PRINCIPAL ACTION RESOURCE`, e.g. User::\"alice\" submitTask Task::\"t1\", or a JSON object");
    }
    // Each part is read as the expression it is (an entity literal), so
    // that a fault in it is reported where it is.
    std::string parts[3];
    const char* roles[3] = {"principal", "action", "resource"};
    for (int i = 0; i < 3; ++i) {
      if (i == 1 && IsIdentifier(w[1].text)) {
        parts[i] = BareAction(w[1].text);
        continue;
      }
      const std::string& text = w[i].text;
      SourceFile source(kInputName, Placed(text, offset + w[i].at));
      absl::StatusOr<ExpressionValue> v = EvaluateExpression(source, nullptr, entities_);
      if (!v.ok()) return v.status();
      if (!v->ok || !LooksLikeEntity(v->value)) {
        SourceFile::Position p = source.PositionOf(static_cast<uint32_t>(source.text().size() - text.size()));
        return absl::InvalidArgumentError(Cat(kInputName, ":", p.line, ":", p.column, ": the ", roles[i],
                                              " must be an entity, like User::\"alice\""));
      }
      parts[i] = v->value;
    }
    std::string json = Cat("{\"principal\": ", JsonString(parts[0]), ", \"action\": ", JsonString(parts[1]),
                           ", \"resource\": ", JsonString(parts[2]), ", \"context\": ", context_, "}");
    absl::StatusOr<Request> r = Request::FromJson(json, kInputName);
    if (!r.ok()) return absl::InvalidArgumentError(OneLine(r.status().message()));
    return r;
  }

  // The action a bare name means: the only action of that name that the
  // schema, the entities or the policies know (`NS::Action::"name"` in a
  // namespace), else `Action::"name"`.
  std::string BareAction(const std::string& name) const {
    auto it = actions_.find(name);
    if (it != actions_.end() && it->second.size() == 1) return *it->second.begin();
    return Cat("Action::", JsonString(name));
  }

  // Checks a request against the schema, if any.
  absl::Status Check(const Request& r) const {
    if (schema_ == nullptr) return absl::OkStatus();
    absl::Status s = ValidateRequest(*schema_, r);
    if (!s.ok()) {
      std::string m = OneLine(s.message());
      if (m.rfind("request: ", 0) == 0) m = m.substr(9);
      return absl::InvalidArgumentError(Cat("the schema refuses the request: ", m));
    }
    return s;
  }

  // A request typed at OFFSET of the input, checked against the schema if
  // one is loaded.
  absl::StatusOr<Request> ReadRequest(const std::string& text, size_t offset) {
    absl::StatusOr<Request> request = ParseRequest(text, offset);
    if (!request.ok()) return request;
    if (absl::Status s = Check(*request); !s.ok()) return s;
    return request;
  }

  void Decide(const std::string& line, size_t offset) {
    if (engine_ == nullptr) {
      Error("no policies loaded (:load policies FILE)");
      return;
    }
    absl::StatusOr<Request> request = ReadRequest(line, offset);
    if (!request.ok()) {
      Report(request.status());
      return;
    }
    current_ = *request;
    Decision d = engine_->Authorize(*request, entities_);
    std::string out = d.allowed ? "ALLOW" : "DENY";
    if (!d.reasons.empty()) {
      out += "  reasons:";
      for (const std::string& id : d.reasons) CatAppend(&out, " ", id);
    }
    for (const PolicyError& e : d.errors) CatAppend(&out, "\n  error in ", e.policy_id, ": ", e.message);
    Out(out + "\n");
  }

  void Explain(const std::string& rest, size_t rest_at) {
    if (policies_ == nullptr) {
      Error("no policies loaded (:load policies FILE)");
      return;
    }
    if (!rest.empty()) {
      absl::StatusOr<Request> r = ReadRequest(rest, rest_at);
      if (!r.ok()) {
        Report(r.status());
        return;
      }
      current_ = *r;
    }
    if (!current_.has_value()) {
      Error("no request to explain (type one, or :explain REQUEST)");
      return;
    }
    absl::StatusOr<Explanation> why = charter::Explain(*policies_, {}, *current_, entities_);
    if (!why.ok()) {
      Report(why.status());
      return;
    }
    Out(why->ToText(*policies_, ColorOnStdout()));
  }

  void SetContext(const std::string& json, size_t at) {
    if (json.empty()) {
      Out(Cat("context: ", context_, "\n"));
      return;
    }
    // Read as JSON at its place (errors point into the input), then as a
    // request's context.
    absl::StatusOr<internal::json::Document> doc = internal::json::Parse(Placed(json, at));
    if (!doc.ok()) {
      Error(Cat(kInputName, ":", doc.status().message()));
      return;
    }
    std::string context = json;
    for (char& c : context) {
      if (c == '\n' || c == '\r') c = ' ';
    }
    absl::StatusOr<Request> r = Request::FromJson(
        Cat("{\"principal\": \"User::\\\"x\\\"\", \"action\": \"Action::\\\"x\\\"\", \"resource\": \"User::\\\"x\\\"\", "
            "\"context\": ",
            context, "}"),
        "context");
    if (!r.ok()) {
      std::string m(r.status().message());
      size_t colon = m.find(": ", m.find(':', m.find(':') + 1));  // after "context:L:C"
      Error(Cat("context: ", colon == std::string::npos ? m : m.substr(colon + 2)));
      return;
    }
    if (current_.has_value()) {
      // The current request takes the new context too, so that expressions
      // see it.
      std::string request = Cat("{\"principal\": ", JsonString(current_->principal().ToString()),
                                ", \"action\": ", JsonString(current_->action().ToString()),
                                ", \"resource\": ", JsonString(current_->resource().ToString()),
                                ", \"context\": ", context, "}");
      absl::StatusOr<Request> updated = Request::FromJson(request, kInputName);
      if (updated.ok()) {
        if (absl::Status s = Check(*updated); !s.ok()) {
          Report(s);
          return;
        }
        current_ = *updated;
      }
    }
    context_ = context;
  }

  // Opens a loaded file in $VISUAL or $EDITOR (vi without either), then
  // loads it again.
  void Edit(const std::string& what) {
    std::string kind = what.empty() ? "policies" : what;
    const std::string* path = kind == "policies" ? &policies_path_
                              : kind == "entities" ? &entities_path_
                              : kind == "schema"   ? &schema_path_
                                                   : nullptr;
    if (path == nullptr) {
      Error("usage: :edit [policies|entities|schema]");
      return;
    }
    if (path->empty()) {
      Error(Cat("no ", kind, " file to edit (:load ", kind, " FILE)"));
      return;
    }
    const char* editor = std::getenv("VISUAL");
    if (editor == nullptr || *editor == '\0') editor = std::getenv("EDITOR");
    if (editor == nullptr || *editor == '\0') editor = "vi";
    std::string quoted = "'";
    for (char c : *path) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    quoted += "'";
    std::fflush(stdout);
    int status = std::system(Cat(editor, " ", quoted).c_str());
    if (status != 0) {
      Error(Cat("the editor (", editor, ") failed; ", *path, " was not loaded again"));
      return;
    }
    std::string file = *path;
    Report(kind == "policies" ? LoadPolicies(file) : kind == "entities" ? LoadEntitiesFile(file) : LoadSchema(file));
  }

  void ShowEntities(const std::string& arg) {
    if (!entities_loaded_) {
      Out("no entities loaded (:load entities FILE)\n");
      return;
    }
    const internal::EntityStore& store = entities_.store();
    if (arg.empty()) {
      std::map<std::string, size_t> counts;
      for (uint32_t uid = 0; uid < store.num_uids(); ++uid) {
        if (store.data(uid) != nullptr) ++counts[std::string(store.ref(uid).type)];
      }
      std::string out = Cat(entities_.size(), " entities from ", entities_path_, "\n");
      for (const auto& [type, n] : counts) CatAppend(&out, "  ", type, ": ", n, "\n");
      Out(out);
      return;
    }
    if (LooksLikeEntity(arg)) {
      absl::StatusOr<ExpressionValue> v = EvaluateExpression(SourceFile(kInputName, arg), nullptr, entities_);
      if (!v.ok()) {
        Report(v.status());
        return;
      }
      size_t sep = v->value.find("::\"");
      std::string type = v->value.substr(0, sep);
      // The id as the store has it: the literal's value, unescaped.
      uint32_t uid = internal::kNoUid;
      for (uint32_t u = 0; u < store.num_uids() && uid == internal::kNoUid; ++u) {
        const internal::EntityRef& e = store.ref(u);
        if (e.type == type && internal::EntityToCedar(e.type, e.id) == v->value) uid = u;
      }
      const internal::EntityData* data = uid == internal::kNoUid ? nullptr : store.data(uid);
      if (data == nullptr) {
        Error(Cat("there is no entity ", v->value));
        return;
      }
      std::string out = v->value + "\n  parents: ";
      std::span<const uint32_t> parents = store.parents(uid);
      if (parents.empty()) out += "none";
      for (size_t i = 0; i < parents.size(); ++i) {
        const internal::EntityRef& p = store.ref(parents[i]);
        CatAppend(&out, i == 0 ? "" : ", ", internal::EntityToCedar(p.type, p.id));
      }
      CatAppend(&out, "\n  attrs: ", internal::ToCedar(data->attrs), "\n");
      if (data->tags.type == internal::Type::kRecord && data->tags.size > 0) {
        CatAppend(&out, "  tags: ", internal::ToCedar(data->tags), "\n");
      }
      Out(out);
      return;
    }
    std::string out;
    size_t n = 0;
    for (uint32_t uid = 0; uid < store.num_uids(); ++uid) {
      const internal::EntityRef& e = store.ref(uid);
      if (e.type != arg || store.data(uid) == nullptr) continue;
      CatAppend(&out, internal::EntityToCedar(e.type, e.id), "\n");
      ++n;
    }
    if (n == 0) {
      Error(Cat("no entities of type `", arg, "` (:entities lists the types)"));
      return;
    }
    Out(out);
  }

  std::string policies_path_;
  std::string entities_path_;
  std::string schema_path_;
  std::unique_ptr<SourceFile> policies_;
  std::unique_ptr<Engine> engine_;
  Entities entities_;
  bool entities_loaded_ = false;
  std::unique_ptr<Schema> schema_;
  std::string context_ = "{}";
  std::optional<Request> current_;
  std::set<std::string> words_;
  std::map<std::string, std::set<std::string>> actions_;  // bare name -> the actions so named
  const Entry* entry_ = nullptr;  // the entry being run
};

// ---------------------------------------------------------------- terminal

// The session the completer reads: libedit's callbacks take no argument.
// Set only while RunRepl runs on a terminal.
const Session* g_session = nullptr;

std::vector<std::string>* Matches() {
  static std::vector<std::string> matches;
  return &matches;
}

char* NextMatch(const char* /*text*/, int state) {
  static size_t next = 0;
  if (state == 0) next = 0;
  std::vector<std::string>& m = *Matches();
  if (next >= m.size()) return nullptr;
  return strdup(m[next++].c_str());
}

// The expression that ends at `end` in `line`, before a `.`: identifiers,
// `::`, `.`-paths and string literals (`User::"alice".manager`).
std::string BaseBefore(std::string_view line, size_t end) {
  size_t i = end;
  while (i > 0) {
    char c = line[i - 1];
    if (IsIdentChar(c) || c == ':' || c == '.') {
      --i;
    } else if (c == '"') {
      size_t open = i - 1;
      while (open > 0) {
        --open;
        if (line[open] == '"' && (open == 0 || line[open - 1] != '\\')) break;
      }
      if (line[open] != '"' || open == i - 1) break;
      i = open;
    } else {
      break;
    }
  }
  return std::string(line.substr(i, end - i));
}

char** Complete(const char* text, int start, int /*end*/) {
  rl_attempted_completion_over = 1;
  rl_completion_append_character = ' ';
  std::vector<std::string>& matches = *Matches();
  matches.clear();
  std::string_view word(text);
  std::string_view line(rl_line_buffer, static_cast<size_t>(rl_point));
  std::string before = Trim(line.substr(0, static_cast<size_t>(start)));
  auto add = [&](std::string_view candidate) {
    if (candidate.substr(0, word.size()) == word) matches.emplace_back(candidate);
  };
  if (before == ":load" || before == ":edit") {
    for (const char* k : kLoadKinds) add(std::string_view(k).substr(0, std::strlen(k) - 1));
  } else if (before == ":load policies" || before == ":load entities" || before == ":load schema") {
    rl_attempted_completion_over = 0;
    return rl_completion_matches(text, rl_filename_completion_function);
  } else if (before.empty() && !word.empty() && word[0] == ':') {
    for (const char* c : kCommands) add(Trim(c));
  } else if (size_t dot = word.rfind('.'); dot != std::string_view::npos && g_session != nullptr &&
                                            BaseBefore(word, dot).size() > 0) {
    // `principal.`, `User::"alice".`, `context.`: the value's attributes.
    std::string base = BaseBefore(word, dot);
    std::string prefix(word.substr(0, dot + 1));
    std::string_view partial = word.substr(dot + 1);
    for (const std::string& name : g_session->AttributesOf(base)) {
      if (std::string_view(name).substr(0, partial.size()) == partial) matches.push_back(prefix + name);
    }
    rl_completion_append_character = '\0';  // a `.` or an operator may follow
  } else if (g_session != nullptr) {
    // Entities and actions; a leading bracket or `!` stays in front.
    size_t skip = 0;
    while (skip < word.size() && std::strchr("([{!,", word[skip]) != nullptr) ++skip;
    std::string lead(word.substr(0, skip));
    std::string_view rest = word.substr(skip);
    for (const std::string& w : g_session->words()) {
      if (std::string_view(w).substr(0, rest.size()) == rest) matches.push_back(lead + w);
    }
  }
  if (matches.size() == 1 && matches[0].size() >= 3 && matches[0].compare(matches[0].size() - 3, 3, "::\"") == 0) {
    rl_completion_append_character = '\0';
  }
  if (matches.empty()) return nullptr;
  return rl_completion_matches(text, NextMatch);
}

constexpr int kHistoryLines = 1000;

// Writes the history beside the file and renames it into place, so that a
// session killed mid-write leaves the old history whole.
void SaveHistory(const std::string& path) {
  std::string tmp = Cat(path, ".tmp.", getpid());
  if (write_history(tmp.c_str()) == 0 && std::rename(tmp.c_str(), path.c_str()) == 0) return;
  std::remove(tmp.c_str());
}

// Reads entries, from a terminal (libedit) or from stdin.
class Reader {
 public:
  explicit Reader(bool terminal) : terminal_(terminal) {}

  bool Next(Entry* entry) {
    entry->text.clear();
    bool open = false;
    for (;;) {
      std::string line;
      if (!ReadLine(open ? "     ... " : "charter> ", &line)) {
        if (!open) return false;
        break;  // end of input inside an entry: run what there is
      }
      if (!open) entry->line = line_number_;
      bool continued = !line.empty() && line.back() == '\\';
      if (continued) line.back() = ' ';
      if (open && Trim(line).empty() && !continued) break;  // an empty line ends the entry
      if (open) entry->text += "\n";
      entry->text += line;
      open = continued || IsOpen(entry->text);
      if (!open) break;
    }
    if (terminal_ && !Trim(entry->text).empty()) {
      std::string one = entry->text;
      for (char& c : one) {
        if (c == '\n') c = ' ';
      }
      add_history(one.c_str());
      if (!history_.empty()) SaveHistory(history_);
    }
    return true;
  }

  void set_history(std::string path) { history_ = std::move(path); }

 private:
  bool ReadLine(const char* prompt, std::string* line) {
    ++line_number_;
    if (!terminal_) return static_cast<bool>(std::getline(std::cin, *line));
    char* raw = readline(prompt);
    if (raw == nullptr) return false;
    *line = raw;
    std::free(raw);
    return true;
  }

  bool terminal_;
  uint32_t line_number_ = 0;
  std::string history_;
};

int RunRepl(const ReplFlags& flags) {
  Session session(flags);
  session.Start();
  bool terminal = isatty(STDIN_FILENO) != 0;
  Reader reader(terminal);
  if (terminal) {
    g_session = &session;
    rl_attempted_completion_function = Complete;
    // Words break at blanks only, so that `User::"al` completes as one word.
    static char breaks[] = " \t";
    rl_completer_word_break_characters = breaks;
    rl_basic_word_break_characters = breaks;
    std::string history;
    if (const char* home = std::getenv("HOME"); home != nullptr) history = Cat(home, "/.charter_history");
    if (const char* h = std::getenv("CHARTER_HISTORY"); h != nullptr) history = h;
    if (!history.empty()) read_history(history.c_str());
    stifle_history(kHistoryLines);
    reader.set_history(history);
  }
  Entry entry;
  while (reader.Next(&entry)) {
    if (!session.Run(entry)) break;
  }
  g_session = nullptr;
  return kOk;
}

}  // namespace

Command AddReplCommand(CLI::App& root) {
  auto flags = std::make_shared<ReplFlags>();
  CLI::App* app = root.add_subcommand(
      "repl", "Try requests and expressions interactively against policies and entities");
  app->footer("Type :help in the REPL for its commands.");
  app->add_option("--policies", flags->policies, "Cedar policy file to load")->type_name("FILE");
  app->add_option("--entities", flags->entities, "Entities file to load")->type_name("FILE");
  app->add_option("--schema", flags->schema, "Schema to check the policies, entities and requests against")
      ->type_name("FILE");
  return Command{app, [flags] { return RunRepl(*flags); }};
}

}  // namespace charter::cli
