// What the REPL prints (repl_output.h).
#include "repl_output.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "report.h"
#include "util.h"

namespace charter::cli {

void Out(const std::string& s) {
  std::fwrite(s.data(), 1, s.size(), stdout);
  std::fflush(stdout);
}

// (Its control characters escaped: a message names attributes and ids.)
void Error(const std::string& message) { Out(Cat("error: ", Printable(OneLine(message)), "\n")); }

void Report(const absl::Status& s) {
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

bool ColorOnStdout() {
  const char* term = std::getenv("TERM");
  return isatty(STDOUT_FILENO) == 1 && std::getenv("NO_COLOR") == nullptr &&
         (term == nullptr || std::string(term) != "dumb");
}

}  // namespace charter::cli
