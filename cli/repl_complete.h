// Tab completion at the REPL's prompt: commands, file names after `:load`
// (`~/` too), entities, entity types and actions, and after a `.` the
// attributes of the value before it.
#ifndef CHARTER_CLI_REPL_COMPLETE_H_
#define CHARTER_CLI_REPL_COMPLETE_H_

#include <cstddef>
#include <string>
#include <vector>

#include "repl_session.h"

namespace charter::cli {

// Installs the completion hooks in libedit for its lifetime, completing
// from `session`, and removes them when it ends. One at a time: RunRepl
// makes one around its loop, on a terminal.
class CompletionScope {
 public:
  explicit CompletionScope(const Session& session);
  ~CompletionScope();
  CompletionScope(const CompletionScope&) = delete;
  CompletionScope& operator=(const CompletionScope&) = delete;

  // What the hooks work with: the session they complete from, and the
  // matches of the word being completed, which libedit takes one at a time.
  struct State {
    const Session* session;
    std::vector<std::string> matches;
    size_t next = 0;  // the match to give next
  };

 private:
  State state_;
};

}  // namespace charter::cli

#endif  // CHARTER_CLI_REPL_COMPLETE_H_
