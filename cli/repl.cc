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
//
// On a terminal, Ctrl-C cancels the entry being typed (a continued one
// whole) and prompts afresh; while an entry runs it sets the flag that
// Interrupted() reads (repl_output.h), and a second Ctrl-C before the entry
// ends quits as Ctrl-C does elsewhere. Ctrl-D on an empty line quits.
//
// This file reads the entries and runs the loop; the session and its
// loading are in repl_session.{h,cc}, the entries' commands in
// repl_commands.cc, completion in repl_complete.{h,cc}, the shapes of input
// in repl_words.{h,cc} and printing in repl_output.{h,cc}.
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <utility>

#include <editline/readline.h>

#include "command.h"
#include "files.h"
#include "load.h"
#include "repl_complete.h"
#include "repl_output.h"
#include "repl_session.h"
#include "repl_words.h"
#include "project.h"
#include "report.h"
#include "util.h"

namespace charter::cli {
namespace {

constexpr int kHistoryLines = 1000;

// Writes the history beside the file and renames it into place, so that a
// session killed mid-write leaves the old history whole.
void SaveHistory(const std::string& path) {
  std::string tmp = Cat(path, ".tmp.", getpid());
  if (write_history(tmp.c_str()) == 0 && std::rename(tmp.c_str(), path.c_str()) == 0) return;
  std::remove(tmp.c_str());
}

// Whether an entry is running (rather than being read), for the handler.
volatile std::sig_atomic_t g_running = 0;

// SIGINT on a terminal: sets the flag. While an entry runs, a second one
// quits as SIGINT does by default, for an evaluation that does not end.
void OnInterrupt(int) {
  if (g_running != 0 && InterruptFlag() != 0) {
    std::signal(SIGINT, SIG_DFL);
    std::raise(SIGINT);
    return;
  }
  InterruptFlag() = 1;
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
      InterruptFlag() = 0;
      if (!ReadLine(open ? "     ... " : "charter> ", &line)) {
        if (terminal_ && InterruptFlag() != 0) {
          // Ctrl-C: the entry is dropped, and a fresh prompt shown.
          Out("\n");
          entry->text.clear();
          open = false;
          continue;
        }
        if (terminal_) Out("\n");  // Ctrl-D: what follows on a line of its own
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

int RunRepl(ReplFlags flags) {
  // What the command line leaves out, from the project file (charter.json) around.
  absl::StatusOr<std::optional<Project>> project =
      FillFromProject(&flags.policies, &flags.schemas, &flags.entities, nullptr, nullptr);
  if (!project.ok()) return Fail(project.status());
  Session session(flags);
  session.Start();
  bool terminal = isatty(STDIN_FILENO) != 0;
  Reader reader(terminal);
  std::optional<CompletionScope> completion;
  if (terminal) {
    completion.emplace(session);
    struct sigaction action {};
    action.sa_handler = OnInterrupt;
    sigemptyset(&action.sa_mask);
    action.sa_flags = 0;  // no SA_RESTART: the read of a key returns, and readline() with it
    sigaction(SIGINT, &action, nullptr);
    std::string history;
    if (const char* home = std::getenv("HOME"); home != nullptr) history = Cat(home, "/.charter_history");
    if (const char* h = std::getenv("CHARTER_HISTORY"); h != nullptr) history = h;
    if (!history.empty()) read_history(history.c_str());
    stifle_history(kHistoryLines);
    reader.set_history(history);
  }
  Entry entry;
  while (reader.Next(&entry)) {
    // An entry that runs out of memory is reported, and the REPL goes on.
    try {
      InputStage stage("line " + std::to_string(entry.line), "running the entry");
      InterruptFlag() = 0;
      g_running = 1;
      bool go_on = session.Run(entry);
      g_running = 0;
      if (!go_on) break;
    } catch (const std::bad_alloc&) {
      g_running = 0;
      PrintError(InputStage::OutOfMemoryMessage());
      InputStage::Clear();
    }
  }
  return kOk;
}

}  // namespace

Command AddReplCommand(CLI::App& root) {
  auto flags = std::make_shared<ReplFlags>();
  CLI::App* app = root.add_subcommand(
      "repl", "Try requests and expressions interactively against policies and entities");
  app->footer("Type :help in the REPL for its commands.");
  AddPoliciesOption(app, &flags->policies, ", loaded together", /*stdin_ok=*/false);
  app->add_option("--entities", flags->entities, "Entities file to load")->type_name("FILE");
  AddSchemaOption(app, &flags->schemas, "Schema to check the policies, entities and requests against");
  return Command{app, [flags] { return RunRepl(*flags); }};
}

}  // namespace charter::cli
