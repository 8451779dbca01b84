// `charter repl`: try decisions interactively.
//
//   charter repl [--policies P] [--entities E]
//
// Commands: `:load policies FILE`, `:load entities FILE`, `:reload`,
// `:policies`, `:entities`, `:schema`, `:context JSON`, `:help`, `:quit`.
// Any other line is a request: the short form `User::"alice" submitTask
// Task::"t1"` (an action without a type is an `Action`), or a JSON request
// object. The REPL prints the decision and its determining policies. A bad
// line prints its error and changes nothing. On a terminal, lines are edited
// with libedit, with history in ~/.charter_history and tab completion of
// commands and of the entities and actions the loaded files name; otherwise
// commands are read from stdin, one a line, so that sessions can be scripted.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cctype>
#include <cstring>
#include <iostream>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <editline/readline.h>

#include "charter/charter.h"
#include "command.h"
#include "common/strings.h"
#include "files.h"
#include "json/json.h"
#include "load.h"
#include "report.h"

namespace charter::cli {
namespace {

using internal::Cat;
using internal::CatAppend;

struct ReplFlags {
  std::string policies;
  std::string entities;
};

const char* const kCommands[] = {":load policies ", ":load entities ", ":reload", ":policies",
                                 ":entities", ":schema", ":context ", ":help", ":quit"};

// Words for completion: the commands, and every `Type::"id"` and action
// name in the loaded files. Set by the session, read by the completer.
std::set<std::string>* g_words = nullptr;

void CollectWords(const std::string& text, std::set<std::string>* words) {
  for (size_t at = text.find("::\""); at != std::string::npos; at = text.find("::\"", at + 3)) {
    size_t begin = at;
    while (begin > 0 && (std::isalnum(static_cast<unsigned char>(text[begin - 1])) ||
                         text[begin - 1] == '_' || text[begin - 1] == ':')) {
      --begin;
    }
    size_t end = text.find('"', at + 3);
    if (end == std::string::npos || begin == at) continue;
    std::string type = text.substr(begin, at - begin);
    std::string id = text.substr(at + 3, end - at - 3);
    if (type.find('\\') != std::string::npos || id.find('\\') != std::string::npos) continue;
    words->insert(Cat(type, "::\"", id, "\""));
    if (type == "Action") words->insert(id);
  }
  // Entities JSON: {"type": "T", "id": "i"}
  for (size_t at = text.find("\"type\""); at != std::string::npos; at = text.find("\"type\"", at + 6)) {
    size_t q1 = text.find('"', text.find(':', at) + 1);
    size_t q2 = q1 == std::string::npos ? q1 : text.find('"', q1 + 1);
    size_t idk = q2 == std::string::npos ? q2 : text.find("\"id\"", q2);
    if (idk == std::string::npos || idk > q2 + 16) continue;
    size_t q3 = text.find('"', text.find(':', idk) + 1);
    size_t q4 = q3 == std::string::npos ? q3 : text.find('"', q3 + 1);
    if (q4 == std::string::npos) continue;
    std::string type = text.substr(q1 + 1, q2 - q1 - 1);
    std::string id = text.substr(q3 + 1, q4 - q3 - 1);
    words->insert(Cat(type, "::\"", id, "\""));
    if (type == "Action") words->insert(id);
  }
}

char* CompleteWord(const char* text, int state) {
  static std::vector<std::string> matches;
  static size_t next = 0;
  if (state == 0) {
    matches.clear();
    next = 0;
    std::string prefix(text);
    if (g_words != nullptr) {
      for (const std::string& w : *g_words) {
        if (w.compare(0, prefix.size(), prefix) == 0) matches.push_back(w);
      }
    }
  }
  if (next >= matches.size()) return nullptr;
  return strdup(matches[next++].c_str());
}

char** Complete(const char* text, int /*start*/, int /*end*/) {
  rl_attempted_completion_over = 1;
  return rl_completion_matches(text, CompleteWord);
}

constexpr int kHistoryLines = 1000;

// Writes the history beside the file and renames it into place, so that a
// session killed mid-write leaves the old history whole.
void SaveHistory(const std::string& path) {
  std::string tmp = Cat(path, ".tmp.", getpid());
  if (write_history(tmp.c_str()) == 0 && std::rename(tmp.c_str(), path.c_str()) == 0) return;
  std::remove(tmp.c_str());
}

class Session {
 public:
  explicit Session(const ReplFlags& flags) : policies_path_(flags.policies), entities_path_(flags.entities) {}

  void Start() {
    if (!policies_path_.empty()) Report(LoadPolicies(policies_path_));
    if (!entities_path_.empty()) Report(LoadEntitiesFile(entities_path_));
  }

  // Runs one line; false to quit.
  bool Line(const std::string& raw) {
    std::string line = Trim(raw);
    if (line.empty() || line[0] == '#') return true;
    if (line == ":quit" || line == ":q" || line == ":exit") return false;
    if (line == ":help") {
      Out(":load policies FILE | :load entities FILE | :reload | :policies | :entities | :schema |\n"
          ":context JSON | :quit | REQUEST (User::\"alice\" submitTask Task::\"t1\", or JSON)\n");
    } else if (line.rfind(":load policies ", 0) == 0) {
      Report(LoadPolicies(Trim(line.substr(15))));
    } else if (line.rfind(":load entities ", 0) == 0) {
      Report(LoadEntitiesFile(Trim(line.substr(15))));
    } else if (line == ":reload") {
      if (!policies_path_.empty()) Report(LoadPolicies(policies_path_));
      if (!entities_path_.empty()) Report(LoadEntitiesFile(entities_path_));
    } else if (line == ":policies") {
      if (policies_text_.empty()) {
        Out("no policies loaded\n");
      } else {
        Out(policies_text_.back() == '\n' ? policies_text_ : policies_text_ + "\n");
      }
    } else if (line == ":entities") {
      Out(entities_ == nullptr ? "no entities loaded\n"
                                 : Cat(entities_->size(), " entities from ", entities_path_, "\n"));
    } else if (line == ":schema") {
      Out("the REPL does not load schemas yet\n");
    } else if (line.rfind(":context", 0) == 0) {
      std::string json = Trim(line.substr(8));
      if (json.empty()) {
        Out(Cat("context: ", context_, "\n"));
      } else {
        // Checked as JSON (errors point into it), then as a request's context.
        if (absl::StatusOr<internal::json::Document> doc = internal::json::Parse(json); !doc.ok()) {
          Error(Cat("context: ", doc.status().message()));
          return true;
        }
        absl::StatusOr<Request> r = Request::FromJson(RequestJson("User::\"x\"", "Action::\"x\"", "User::\"x\"", json), "context");
        if (!r.ok()) {
          Error(std::string(r.status().message()));
        } else {
          context_ = json;
        }
      }
    } else if (line[0] == ':') {
      Error(Cat("unknown command `", line, "` (:help lists them)"));
    } else {
      Decide(line);
    }
    return true;
  }

  std::set<std::string>* words() { return &words_; }

 private:
  static std::string Trim(std::string s) {
    size_t b = s.find_first_not_of(" \t\r\n");
    if (b == std::string::npos) return "";
    size_t e = s.find_last_not_of(" \t\r\n");
    return s.substr(b, e - b + 1);
  }

  static void Out(const std::string& s) {
    std::fwrite(s.data(), 1, s.size(), stdout);
    std::fflush(stdout);
  }
  static void Error(const std::string& message) {
    std::string m = OneLine(message);
    Out(Cat("error: ", m, "\n"));
  }
  static void Report(const absl::Status& s) {
    if (!s.ok()) {
      std::string m(s.message());
      size_t start = 0;
      while (start < m.size()) {
        size_t end = m.find('\n', start);
        if (end == std::string::npos) end = m.size();
        Error(m.substr(start, end - start));
        start = end + 1;
      }
    }
  }

  absl::Status LoadPolicies(const std::string& path) {
    absl::StatusOr<std::string> text = ReadFile(path, CompileOptions().max_source_bytes);
    if (!text.ok()) return text.status();
    PolicySource source;
    source.policies = path;
    absl::StatusOr<Engine> engine = LoadEngine(source);
    if (!engine.ok()) return engine.status();
    engine_ = std::make_unique<Engine>(*std::move(engine));
    policies_path_ = path;
    policies_text_ = *text;
    CollectWords(*text, &words_);
    Out(Cat("loaded policies from ", path, "\n"));
    return absl::OkStatus();
  }

  absl::Status LoadEntitiesFile(const std::string& path) {
    absl::StatusOr<std::string> text = ReadFile(path, EntitiesOptions().max_input_bytes);
    if (!text.ok()) return text.status();
    absl::StatusOr<Entities> entities = LoadEntities(path);
    if (!entities.ok()) return entities.status();
    entities_ = std::make_unique<Entities>(*std::move(entities));
    entities_path_ = path;
    CollectWords(*text, &words_);
    Out(Cat("loaded ", entities_->size(), " entities from ", path, "\n"));
    return absl::OkStatus();
  }

  static std::string JsonString(std::string_view s) {
    std::string out = "\"";
    for (char c : s) {
      if (c == '"' || c == '\\') out.push_back('\\');
      out.push_back(c);
    }
    return out + "\"";
  }

  static std::string RequestJson(const std::string& p, const std::string& a, const std::string& r,
                                 const std::string& context) {
    return Cat("{\"principal\": ", JsonString(p), ", \"action\": ", JsonString(a),
               ", \"resource\": ", JsonString(r), ", \"context\": ", context, "}");
  }

  // Splits the short form into its words; quotes may hold spaces.
  static std::vector<std::string> Words(const std::string& line) {
    std::vector<std::string> words;
    std::string cur;
    bool quoted = false;
    for (size_t i = 0; i < line.size(); ++i) {
      char c = line[i];
      if (quoted && c == '\\' && i + 1 < line.size()) {
        cur.push_back(c);
        cur.push_back(line[++i]);
        continue;
      }
      if (c == '"') quoted = !quoted;
      if (!quoted && (c == ' ' || c == '\t')) {
        if (!cur.empty()) words.push_back(std::move(cur));
        cur.clear();
        continue;
      }
      cur.push_back(c);
    }
    if (!cur.empty()) words.push_back(std::move(cur));
    return words;
  }

  void Decide(const std::string& line) {
    if (engine_ == nullptr) {
      Error("no policies loaded (:load policies FILE)");
      return;
    }
    std::string json;
    if (line[0] == '{') {
      json = line;
    } else {
      std::vector<std::string> w = Words(line);
      if (w.size() != 3) {
        Error("a request is `PRINCIPAL ACTION RESOURCE`, e.g. User::\"alice\" submitTask Task::\"t1\", or a JSON object");
        return;
      }
      std::string action = w[1].find("::") == std::string::npos ? Cat("Action::\"", w[1], "\"") : w[1];
      json = RequestJson(w[0], action, w[2], context_);
    }
    absl::StatusOr<Request> request = Request::FromJson(json, "request");
    if (!request.ok()) {
      Error(std::string(request.status().message()));
      return;
    }
    static const Entities kNone = *Entities::FromJson("[]", "none");
    Decision d = engine_->Authorize(*request, entities_ != nullptr ? *entities_ : kNone);
    std::string out = d.allowed ? "ALLOW" : "DENY";
    if (!d.reasons.empty()) {
      out += "  reasons:";
      for (const std::string& id : d.reasons) CatAppend(&out, " ", id);
    }
    for (const PolicyError& e : d.errors) CatAppend(&out, "\n  error in ", e.policy_id, ": ", e.message);
    Out(out + "\n");
  }

  std::string policies_path_;
  std::string entities_path_;
  std::string policies_text_;
  std::string context_ = "{}";
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<Entities> entities_;
  std::set<std::string> words_{std::begin(kCommands), std::end(kCommands)};
};

int RunRepl(const ReplFlags& flags) {
  Session session(flags);
  session.Start();
  if (isatty(STDIN_FILENO) == 0) {
    std::string line;
    while (std::getline(std::cin, line)) {
      if (!session.Line(line)) break;
    }
    return kOk;
  }
  g_words = session.words();
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
  std::string pending;  // multi-line input: a line ending in `\` continues
  for (;;) {
    char* raw = readline(pending.empty() ? "charter> " : "     ... ");
    if (raw == nullptr) break;
    std::string line(raw);
    std::free(raw);
    if (!line.empty() && line.back() == '\\') {
      line.pop_back();
      pending += line + " ";
      continue;
    }
    line = pending + line;
    pending.clear();
    if (!line.empty()) {
      add_history(line.c_str());
      if (!history.empty()) SaveHistory(history);
    }
    if (!session.Line(line)) break;
  }
  g_words = nullptr;
  return kOk;
}

}  // namespace

Command AddReplCommand(CLI::App& root) {
  auto flags = std::make_shared<ReplFlags>();
  CLI::App* app = root.add_subcommand("repl", "Try requests interactively against policies and entities");
  app->add_option("--policies", flags->policies, "Cedar policy file to load")->type_name("FILE");
  app->add_option("--entities", flags->entities, "Entities file to load")->type_name("FILE");
  return Command{app, [flags] { return RunRepl(*flags); }};
}

}  // namespace charter::cli
