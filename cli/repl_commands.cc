// The REPL's entries: a command, a request or an expression, each run
// against the session (repl_session.h), its output or its error printed.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_join.h"
#include "charter/charter.h"
#include "charter/explain.h"
#include "charter/json.h"
#include "charter_support/nearest.h"
#include "files.h"
#include "load.h"
#include "repl_output.h"
#include "repl_session.h"
#include "repl_words.h"
#include "report.h"
#include "util.h"

namespace charter::cli {
namespace {

constexpr char kHelp[] =
    "  REQUEST               decide it: User::\"alice\" submitTask Task::\"t1\" (an action\n"
    "                        without a type is an Action), or a JSON request object\n"
    "  EXPRESSION            evaluate it against the entities and the current request:\n"
    "                        User::\"alice\" in Team::\"ml\", principal.level > 2, [1, 2].contains(2)\n"
    "  :explain [--brief] [REQUEST]\n"
    "                        explain the decision on the current request, or on REQUEST;\n"
    "                        --brief shows only the policies that determined it\n"
    "  :eval EXPRESSION      evaluate, even what looks like a request\n"
    "  :request              show the current request\n"
    "  :context [RECORD]     set the context (of the current request and the next short forms):\n"
    "                        a JSON object, or a Cedar record, {\"now\": datetime(\"2025-11-03T09:00:00Z\")}\n"
    "  :load policies FILE   load policies; :load entities FILE, :load schema FILE likewise\n"
    "  :load FILE            the same, the kind from the name (.cedar, .cedarschema, .json)\n"
    "                        or else from what the file holds; FILE may start with ~/\n"
    "  :edit [KIND]          edit the policies (or entities, schema) in $EDITOR, then load them\n"
    "  :reload               load the files again, after editing them\n"
    "  :policies             show the policy text\n"
    "  :entities [TYPE|UID]  count the entities by type; list a type; show an entity\n"
    "  :schema               show the schema\n"
    "  :help, :quit\n"
    "A command may be shortened to a prefix that only it has (:ex for :explain).\n"
    "An entry continues on the next line after a `\\`, an operator, or while a bracket or string\n"
    "is open; an empty line ends it. On a terminal, Ctrl-C drops the entry being typed (or stops\n"
    "the one running), Ctrl-D on an empty line quits, Tab completes, and long output goes through\n"
    "$PAGER (less -FRX).\n";

// The commands, for prefixes and "did you mean"; `:q` and `:exit` are
// also `:quit`, but only in full.
const char* const kCommandNames[] = {":explain", ":eval",     ":request",  ":context", ":load",
                                     ":edit",    ":reload",   ":policies", ":entities", ":schema",
                                     ":help",    ":quit"};

// The command `word` names: itself, or the one command it begins; empty
// (and `*error` says why) when it names none or several.
std::string ResolveCommand(const std::string& word, std::string* error) {
  if (word == ":q" || word == ":exit") return ":quit";
  std::vector<std::string> candidates;
  for (const char* name : kCommandNames) {
    if (word == name) return word;
    if (std::string_view(name).substr(0, word.size()) == word) candidates.emplace_back(name);
  }
  if (candidates.size() == 1) return candidates[0];
  if (candidates.size() > 1 && word.size() > 1) {
    std::sort(candidates.begin(), candidates.end());
    std::string list;
    for (const std::string& c : candidates) CatAppend(&list, list.empty() ? "" : ", ", c);
    *error = Cat("`", word, "` is ambiguous: ", list);
    return "";
  }
  std::string best = support::NearestName(word, kCommandNames);
  *error = Cat("unknown command `", word, "`",
               best.empty() ? " (:help lists them)" : Cat("; did you mean `", best, "`?"));
  return "";
}

// `~` or `~/...` at the start of a file name: the home directory.
std::string ExpandHome(const std::string& path) {
  const char* home = std::getenv("HOME");
  if (home == nullptr || path.empty() || path[0] != '~' || (path.size() > 1 && path[1] != '/')) return path;
  return home + path.substr(1);
}

// "LINE:COL" at the start of `message` (after `prefix`), as a number that
// orders places; 0 when there is none.
uint64_t PlaceOf(std::string_view message, std::string_view prefix) {
  if (message.substr(0, prefix.size()) != prefix) return 0;
  message.remove_prefix(prefix.size());
  uint64_t line = 0, column = 0;
  size_t i = 0;
  auto number = [&](uint64_t* n) {
    size_t start = i;
    while (i < message.size() && std::isdigit(static_cast<unsigned char>(message[i]))) {
      *n = *n * 10 + static_cast<uint64_t>(message[i++] - '0');
    }
    return i > start;
  };
  if (!number(&line) || i >= message.size() || message[i++] != ':' || !number(&column)) return 0;
  return (line << 32) | column;
}

// What a file holds, from the start of its content (its first 64 KiB): a
// JSON array is entities; a JSON object is a policy set in Cedar's JSON form
// or a schema in its JSON form, whichever of their keys comes first
// (`staticPolicies`, `templates`, `templateLinks`; `entityTypes`, `actions`,
// `commonTypes`); text is a schema when its first word after annotations and
// comments is `namespace`, `entity`, `type` or `action`, and policies when it
// is `permit` or `forbid`. "" when it is none of these, or unreadable.
std::string LoadKindFromContent(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "unreadable";
  std::string head(64 * 1024, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<size_t>(in.gcount()));
  size_t i = head.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;
  auto skip = [&] {
    while (i < head.size()) {
      if (std::isspace(static_cast<unsigned char>(head[i]))) {
        ++i;
      } else if (head.compare(i, 2, "//") == 0) {
        while (i < head.size() && head[i] != '\n') ++i;
      } else {
        return;
      }
    }
  };
  skip();
  if (i >= head.size()) return "";
  if (head[i] == '[') return "entities";
  if (head[i] == '{') {
    size_t policies = std::string::npos, schema = std::string::npos;
    for (const char* k : {"\"staticPolicies\"", "\"templates\"", "\"templateLinks\""}) {
      policies = std::min(policies, head.find(k, i));
    }
    for (const char* k : {"\"entityTypes\"", "\"actions\"", "\"commonTypes\""}) {
      schema = std::min(schema, head.find(k, i));
    }
    if (policies == schema) return "";
    return policies < schema ? "policies" : "schema";
  }
  // Text: past annotations (`@name` or `@name("...")`), the first word.
  auto word = [&] {
    size_t b = i;
    while (i < head.size() && (std::isalnum(static_cast<unsigned char>(head[i])) || head[i] == '_')) ++i;
    return head.substr(b, i - b);
  };
  while (i < head.size() && head[i] == '@') {
    ++i;
    word();
    skip();
    if (i < head.size() && head[i] == '(') {
      size_t close = head.find(')', i);
      if (close == std::string::npos) return "";
      i = close + 1;
    }
    skip();
  }
  std::string first = word();
  if (first == "permit" || first == "forbid") return "policies";
  if (first == "namespace" || first == "entity" || first == "type" || first == "action") return "schema";
  return "";
}

// What `:load FILE` loads: from FILE's extension, .cedar and .charter (and
// Cedar's JSON policy format, .cedar.json) policies, .cedarschema
// (.cedarschema.json) a schema; from its content for any other name, a
// plain .json being entities unless its content says otherwise; "" when
// neither says; "unreadable" when the file cannot be opened.
std::string LoadKindOf(const std::string& file) {
  auto ends = [&](std::string_view suffix) {
    return file.size() > suffix.size() && std::string_view(file).substr(file.size() - suffix.size()) == suffix;
  };
  if (ends(".cedarschema") || ends(".cedarschema.json")) return "schema";
  if (ends(".cedar") || ends(".cedar.json") || ends(".charter")) return "policies";
  std::string kind = LoadKindFromContent(file);
  if (kind.empty() && ends(".json")) return "entities";
  return kind;
}

std::string Describe(const Request& r) {
  return Cat(r.principal().ToString(), " ", r.action().ToString(), " ", r.resource().ToString(),
             "  context: ", r.ContextToCedar());
}

// `{"principal": ...}` (a JSON request) rather than a record literal:
// JSON whose members are a request's, or broken JSON that names one.
bool LooksLikeJsonRequest(const std::string& text) {
  absl::StatusOr<JsonDocument> doc = JsonDocument::Parse(text);
  if (!doc.ok()) return text.find("\"principal\"") != std::string::npos;
  JsonValue root = doc->root();
  return root.is_object() && (root.Find("principal").has_value() || root.Find("action").has_value() ||
                              root.Find("resource").has_value());
}

}  // namespace

bool Session::Run(const Entry& entry) {
  std::string line = Trim(entry.text);
  if (line.empty() || line[0] == '#') return true;
  // The offset of the trimmed text in the entry, for positions.
  size_t lead = entry.text.find_first_not_of(" \t\r\n");
  entry_ = &entry;
  std::string typed = line[0] == ':' ? line.substr(0, line.find_first_of(" \t\n")) : "";
  std::string rest = typed.empty() ? "" : Trim(std::string_view(line).substr(typed.size()));
  size_t rest_at = typed.empty() ? lead : entry.text.find(rest, lead + typed.size());
  std::string command;
  if (!typed.empty()) {
    std::string error;
    command = ResolveCommand(typed, &error);
    if (command.empty()) {
      Error(error);
      return true;
    }
  }
  if (command == ":quit") {
    if (rest.empty()) return false;
    Error(Cat("`", typed, "` takes no arguments"));
    return true;
  }
  if (command.empty()) {
    RequestOrExpression(line, lead);
  } else if (command == ":help") {
    Page(kHelp);
  } else if (command == ":load") {
    std::vector<Word> w = Words(rest);
    // `:load FILE`: the kind from the file's extension or its content.
    for (Word& word : w) word.text = ExpandHome(word.text);
    std::string kind = w.size() == 1 ? LoadKindOf(w[0].text) : "";
    if (!kind.empty() && kind != "unreadable") w.insert(w.begin(), Word{kind, 0});
    if (kind == "unreadable") {
      Report(ReadFile(w[0].text, 0).status());  // it says why, with the file's name
    } else if (w.size() != 2 || (w[0].text != "policies" && w[0].text != "entities" && w[0].text != "schema")) {
      Error(w.size() == 1 ? Cat("cannot tell what `", w[0].text,
                                "` holds from its name or its content; say :load policies|entities|schema FILE")
                          : "usage: :load [policies|entities|schema] FILE");
    } else if (w[0].text == "policies") {
      Report(LoadPolicies({w[1].text}));
    } else if (w[0].text == "entities") {
      Report(LoadEntitiesFile(w[1].text));
    } else {
      Report(LoadSchema({w[1].text}));
    }
  } else if (command == ":edit") {
    Edit(rest);
  } else if (command == ":reload") {
    Reload();
  } else if (command == ":policies") {
    if (policy_files_.empty()) {
      Out("no policies loaded (:load policies FILE)\n");
    } else {
      std::string all;
      for (const SourceFile& f : policy_files_) {
        const std::string& text = f.text();
        if (policy_files_.size() > 1) CatAppend(&all, "// ", f.name(), "\n");
        CatAppend(&all, text, text.empty() || text.back() == '\n' ? "" : "\n");
      }
      Page(all);
    }
  } else if (command == ":entities") {
    ShowEntities(rest);
  } else if (command == ":schema") {
    Page(schema_ == nullptr ? "no schema loaded (:load schema FILE)\n"
                            : Cat("// ", absl::StrJoin(schema_paths_, " + "), "\n", schema_->ToCedar()));
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
  }
  return true;
}

// `text`, found at `offset` in the entry, at its place in the input, for
// a reader that reports "LINE:COL": the lines before it empty, the
// columns before it blank.
std::string Session::Placed(const std::string& text, size_t offset) const {
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

// An entry that is not a command: a request or an expression.
void Session::RequestOrExpression(const std::string& line, size_t offset) {
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

// Evaluates `text`, found at `offset` in the entry.
void Session::Evaluate(const std::string& text, size_t offset) {
  Diagnostics diagnostics;
  SourceFile source(kInputName, Placed(text, offset));
  absl::StatusOr<ExpressionValue> v = EvaluateExpression(
      source, current_.has_value() ? &*current_ : nullptr, entities_, CompileOptions(), &diagnostics);
  if (!v.ok()) {
    Report(v.status());
    return;
  }
  if (Interrupted()) {
    Error("interrupted");
    return;
  }
  if (!v->ok) {
    Error(Cat(kInputName, ":", v->error_where.line, ":", v->error_where.column, ": ", v->error));
    return;
  }
  Page(v->value + "\n");
}

// A request from an entry (short form or JSON), with errors at their
// place in the input.
absl::StatusOr<Request> Session::ParseRequest(const std::string& line, size_t offset) {
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
std::string Session::BareAction(const std::string& name) const {
  auto it = actions_.find(name);
  if (it != actions_.end() && it->second.size() == 1) return *it->second.begin();
  return Cat("Action::", JsonString(name));
}

// Checks a request against the schema, if any.
absl::Status Session::Check(const Request& r) const {
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
absl::StatusOr<Request> Session::ReadRequest(const std::string& text, size_t offset) {
  absl::StatusOr<Request> request = ParseRequest(text, offset);
  if (!request.ok()) return request;
  if (absl::Status s = Check(*request); !s.ok()) return s;
  return request;
}

void Session::Decide(const std::string& line, size_t offset) {
  if (engine_ == nullptr) {
    Error("no policies loaded (:load policies FILE)");
    return;
  }
  absl::StatusOr<Request> request = ReadRequest(line, offset);
  if (!request.ok()) {
    Report(request.status());
    return;
  }
  Decision d = engine_->Authorize(*request, entities_);
  if (Interrupted()) {
    Error("interrupted");
    return;
  }
  current_ = *request;
  std::string out = d.allowed ? "ALLOW" : "DENY";
  if (!d.reasons.empty()) {
    out += "  reasons:";
    for (const std::string& id : d.reasons) CatAppend(&out, " ", Printable(id));
  }
  for (const PolicyError& e : d.errors) {
    CatAppend(&out, "\n  error in ", Printable(e.policy_id), ": ", Printable(OneLine(e.message)));
  }
  Out(out + "\n");
}

void Session::Explain(std::string rest, size_t rest_at) {
  if (policy_files_.empty()) {
    Error("no policies loaded (:load policies FILE)");
    return;
  }
  bool brief = false;
  if (rest == "--brief" || rest.rfind("--brief ", 0) == 0 || rest.rfind("--brief\t", 0) == 0 ||
      rest.rfind("--brief\n", 0) == 0) {
    brief = true;
    std::string after = Trim(std::string_view(rest).substr(7));
    rest_at = after.empty() ? rest_at : entry_->text.find(after, rest_at + 7);
    rest = after;
  } else if (rest.rfind("--", 0) == 0) {
    Error(Cat("unknown flag `", rest.substr(0, rest.find_first_of(" \t\n")), "`; :explain takes --brief"));
    return;
  }
  std::optional<Request> request = current_;
  if (!rest.empty()) {
    absl::StatusOr<Request> r = ReadRequest(rest, rest_at);
    if (!r.ok()) {
      Report(r.status());
      return;
    }
    request = *r;
  }
  if (!request.has_value()) {
    Error("no request to explain (type one, or :explain REQUEST)");
    return;
  }
  absl::StatusOr<Explanation> why = charter::Explain(policy_files_, {}, *request, entities_);
  if (Interrupted()) {
    Error("interrupted");
    return;
  }
  current_ = request;
  if (!why.ok()) {
    Report(why.status());
    return;
  }
  if (brief) {
    // The decision, and the policies among its reasons only.
    std::vector<PolicyExplanation> determining;
    for (PolicyExplanation& p : why->policies) {
      if (p.determining) determining.push_back(std::move(p));
    }
    why->policies = std::move(determining);
  }
  Page(why->ToText(policy_files_, ColorOnStdout()));
}

void Session::SetContext(const std::string& text, size_t at) {
  if (text.empty()) {
    Out(Cat("context: ", context_, "\n"));
    return;
  }
  // Read as JSON at its place (errors point into the input); failing that,
  // as a Cedar expression whose value is a record (`datetime("...")`,
  // `User::"alice"`, `ip("10.0.0.1")` as Cedar writes them), evaluated
  // against the entities and the current request. When neither reads it,
  // the error of the one that read further is the one shown.
  std::string context;
  const std::string placed = Placed(text, at);
  absl::StatusOr<JsonDocument> doc = JsonDocument::Parse(placed);
  if (doc.ok() && !doc->root().is_object()) {
    // JSON, but not an object: said as for a Cedar value that is not a record.
    Error(Cat(kInputName, ":", JsonLineCol(placed, doc->root().offset()), ": the context must be a record, not ",
              OneLine(text)));
    return;
  }
  if (doc.ok()) {
    context = text;
    for (char& c : context) {
      if (c == '\n' || c == '\r') c = ' ';
    }
  } else {
    std::string json_error = Cat(kInputName, ":", doc.status().message());
    SourceFile source(kInputName, Placed(text, at));
    absl::StatusOr<ExpressionValue> v =
        EvaluateExpression(source, current_.has_value() ? &*current_ : nullptr, entities_);
    if (!v.ok()) {
      std::string cedar_error(v.status().message());
      std::string prefix = Cat(kInputName, ":");
      Error(PlaceOf(cedar_error, prefix) > PlaceOf(json_error, prefix) ? OneLine(cedar_error) : json_error);
      return;
    }
    if (!v->ok) {
      Error(Cat(kInputName, ":", v->error_where.line, ":", v->error_where.column, ": ", v->error));
      return;
    }
    if (v->json.empty() || v->json[0] != '{' || v->value.empty() || v->value[0] != '{') {
      SourceFile::Position p = source.PositionOf(static_cast<uint32_t>(source.text().size() - text.size()));
      Error(Cat(kInputName, ":", p.line, ":", p.column, ": the context must be a record, not ", v->value));
      return;
    }
    context = v->json;
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
void Session::Edit(const std::string& what) {
  std::string kind = what.empty() ? "policies" : what;
  if (kind != "policies" && kind != "entities" && kind != "schema") {
    Error("usage: :edit [policies|entities|schema]");
    return;
  }
  const std::vector<std::string> files = kind == "policies" ? ExpandPolicyPaths(policies_paths_).value_or(policies_paths_)
                                         : kind == "schema" ? schema_paths_
                                                            : std::vector<std::string>{entities_path_};
  if (files.size() > 1) {
    Error(Cat(":edit edits one file; ", files.size(), " ", kind, " files are loaded"));
    return;
  }
  const std::string edited = files.empty() ? std::string() : files[0];
  const std::string* path = &edited;
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
  Report(kind == "policies" ? LoadPolicies({file}) : kind == "entities" ? LoadEntitiesFile(file) : LoadSchema({file}));
}

void Session::ShowEntities(const std::string& arg) {
  if (!entities_loaded_) {
    Out("no entities loaded (:load entities FILE)\n");
    return;
  }
  if (arg.empty()) {
    std::map<std::string, size_t> counts;
    for (const EntityUid& e : entities_.Uids()) ++counts[e.type];
    std::string out = Cat(Count(entities_.size(), "entity", "entities"), " from ", entities_path_, "\n");
    for (const auto& [type, n] : counts) CatAppend(&out, "  ", type, ": ", n, "\n");
    Page(out);
    return;
  }
  if (LooksLikeEntity(arg)) {
    absl::StatusOr<ExpressionValue> v = EvaluateExpression(SourceFile(kInputName, arg), nullptr, entities_);
    if (!v.ok()) {
      Report(v.status());
      return;
    }
    // The entity whose literal is the value (the id unescaped, as the
    // store has it).
    std::optional<EntityInfo> entity;
    for (const EntityUid& e : entities_.Uids()) {
      if (e.ToString() == v->value) {
        entity = entities_.Find(e);
        break;
      }
    }
    if (!entity.has_value()) {
      Error(Cat("there is no entity ", v->value));
      return;
    }
    std::string out = v->value + "\n  parents: ";
    if (entity->parents.empty()) out += "none";
    for (size_t i = 0; i < entity->parents.size(); ++i) {
      CatAppend(&out, i == 0 ? "" : ", ", entity->parents[i].ToString());
    }
    CatAppend(&out, "\n  attrs: ", entity->attrs, "\n");
    if (!entity->tags.empty()) CatAppend(&out, "  tags: ", entity->tags, "\n");
    Out(out);
    return;
  }
  std::string out;
  size_t n = 0;
  for (const EntityUid& e : entities_.Uids()) {
    if (Interrupted()) {
      Error("interrupted");
      return;
    }
    if (e.type != arg) continue;
    CatAppend(&out, e.ToString(), "\n");
    ++n;
  }
  if (n == 0) {
    Error(Cat("no entities of type `", arg, "` (:entities lists the types)"));
    return;
  }
  Page(out);
}

}  // namespace charter::cli
