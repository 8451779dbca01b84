// Tab completion through libedit's readline interface (repl_complete.h).
#include "repl_complete.h"

#include <sys/stat.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include <editline/readline.h>

#include "repl_words.h"

namespace charter::cli {
namespace {

const char* const kCommands[] = {":explain", ":eval ", ":request", ":context ", ":load ", ":edit", ":reload",
                                 ":policies", ":entities", ":schema", ":help", ":quit"};
const char* const kLoadKinds[] = {"policies ", "entities ", "schema "};

// The state of the CompletionScope that lives, for the hooks. It cannot be
// passed: libedit's readline interface calls rl_attempted_completion_function
// and the generator given to rl_completion_matches with the text alone, no
// pointer of the caller's (GNU readline's interface is the same), and the
// EditLine whose EL_CLIENTDATA could carry one is private to that
// interface. So one pointer, set only while a CompletionScope lives (the
// REPL's loop on a terminal), null otherwise; nothing else is kept here.
CompletionScope::State* g_completion = nullptr;

char* NextMatch(const char* /*text*/, int state) {
  CompletionScope::State& c = *g_completion;
  if (state == 0) c.next = 0;
  if (c.next >= c.matches.size()) return nullptr;
  return strdup(c.matches[c.next++].c_str());
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

// The file names that complete `text` (`~/` too), a directory's with a `/`
// after it, so that Tab goes on into it.
// (libedit expands `~` from the password file, not $HOME, which the REPL's
// `:load` reads: so `~` is expanded here, and put back in the matches.)
void AddFiles(const char* text, std::vector<std::string>* matches) {
  std::string word = text;
  std::string home;
  if (const char* h = std::getenv("HOME"); h != nullptr && *h != '\0' && !word.empty() && word[0] == '~' &&
                                           (word.size() == 1 || word[1] == '/')) {
    home = h;
    if (home.back() == '/') home.pop_back();
    word = home + (word.size() == 1 ? "/" : word.substr(1));
  }
  for (int state = 0;; ++state) {
    char* m = rl_filename_completion_function(word.c_str(), state);
    if (m == nullptr) break;
    std::string path = m;
    std::free(m);
    struct stat st {};
    if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && path.back() != '/') path += '/';
    if (!home.empty() && path.compare(0, home.size(), home) == 0) path = "~" + path.substr(home.size());
    matches->push_back(std::move(path));
  }
}

char** Complete(const char* text, int start, int /*end*/) {
  rl_attempted_completion_over = 1;
  rl_completion_append_character = ' ';
  // INVARIANT: libedit calls this only inside readline(), while the scope lives.
  const Session& session = *g_completion->session;
  std::vector<std::string>& matches = g_completion->matches;
  matches.clear();
  std::string_view word(text);
  std::string_view line(rl_line_buffer, static_cast<size_t>(rl_point));
  std::string before = Trim(line.substr(0, static_cast<size_t>(start)));
  auto add = [&](std::string_view candidate) {
    if (candidate.substr(0, word.size()) == word) matches.emplace_back(candidate);
  };
  if (before == ":load" || before == ":edit") {
    // `:load FILE` too: the kinds, then the file names.
    for (const char* k : kLoadKinds) add(std::string_view(k).substr(0, std::strlen(k) - 1));
    if (before == ":load") AddFiles(text, &matches);
  } else if (before == ":load policies" || before == ":load entities" || before == ":load schema") {
    AddFiles(text, &matches);
  } else if (before.empty() && !word.empty() && word[0] == ':') {
    for (const char* c : kCommands) add(Trim(c));
  } else if (size_t dot = word.rfind('.'); dot != std::string_view::npos && BaseBefore(word, dot).size() > 0) {
    // `principal.`, `User::"alice".`, `context.`: the value's attributes.
    std::string base = BaseBefore(word, dot);
    std::string prefix(word.substr(0, dot + 1));
    std::string_view partial = word.substr(dot + 1);
    for (const std::string& name : session.AttributesOf(base)) {
      if (std::string_view(name).substr(0, partial.size()) == partial) matches.push_back(prefix + name);
    }
    rl_completion_append_character = '\0';  // a `.` or an operator may follow
  } else {
    // Entities and actions; a leading bracket or `!` stays in front.
    size_t skip = 0;
    while (skip < word.size() && std::strchr("([{!,", word[skip]) != nullptr) ++skip;
    std::string lead(word.substr(0, skip));
    std::string_view rest = word.substr(skip);
    for (const std::string& w : session.words()) {
      if (std::string_view(w).substr(0, rest.size()) == rest) matches.push_back(lead + w);
    }
  }
  if (matches.size() == 1 && matches[0].size() >= 3 && matches[0].compare(matches[0].size() - 3, 3, "::\"") == 0) {
    rl_completion_append_character = '\0';
  }
  if (matches.size() == 1 && matches[0].back() == '/') rl_completion_append_character = '\0';  // a directory
  if (matches.empty()) return nullptr;
  return rl_completion_matches(text, NextMatch);
}

}  // namespace

CompletionScope::CompletionScope(const Session& session) : state_{&session, {}, 0} {
  g_completion = &state_;
  rl_attempted_completion_function = Complete;
  // Words break at blanks only, so that `User::"al` completes as one word.
  static char breaks[] = " \t";
  rl_completer_word_break_characters = breaks;
  rl_basic_word_break_characters = breaks;
}

CompletionScope::~CompletionScope() {
  rl_attempted_completion_function = nullptr;
  g_completion = nullptr;
}

}  // namespace charter::cli
