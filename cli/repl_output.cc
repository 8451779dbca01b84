// What the REPL prints (repl_output.h).
#include "repl_output.h"

#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "report.h"
#include "util.h"

namespace charter::cli {

void Out(const std::string& s) {
  std::fwrite(s.data(), 1, s.size(), stdout);
  std::fflush(stdout);
}

namespace {

// The rows `s` takes on a screen `columns` wide: its lines, each wrapped,
// colour sequences (ESC [ ... m) and UTF-8 continuation bytes not counted.
size_t RowsOf(std::string_view s, size_t columns) {
  size_t rows = 0, width = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '\n') {
      rows += 1 + (width == 0 ? 0 : (width - 1) / columns);
      width = 0;
    } else if (c == '\x1b' && i + 1 < s.size() && s[i + 1] == '[') {
      while (i < s.size() && s[i] != 'm') ++i;
    } else if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) {
      ++width;
    }
  }
  if (width > 0) rows += 1 + (width - 1) / columns;
  return rows;
}

}  // namespace

void Page(const std::string& s) {
  if (isatty(STDIN_FILENO) != 1 || isatty(STDOUT_FILENO) != 1) return Out(s);
  winsize size{};
  bool known = ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_row > 0 && size.ws_col > 0;
  size_t rows = known ? size.ws_row : 24, columns = known ? size.ws_col : 80;
  if (RowsOf(s, columns) < rows) return Out(s);  // it fits, with the prompt below it
  const char* pager = std::getenv("PAGER");
  std::string command = pager != nullptr ? pager : "less -FRX";
  if (command.find_first_not_of(" \t") == std::string::npos) return Out(s);  // PAGER="": none
  std::fflush(stdout);
  FILE* pipe = popen(command.c_str(), "w");
  if (pipe == nullptr) return Out(s);
  // While the pager runs, it takes Ctrl-C (less stops reading its input),
  // and a pager quit early must not end the REPL with SIGPIPE.
  struct sigaction ignore {}, old_int {}, old_pipe {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  sigaction(SIGINT, &ignore, &old_int);
  sigaction(SIGPIPE, &ignore, &old_pipe);
  std::fwrite(s.data(), 1, s.size(), pipe);
  int status = pclose(pipe);
  sigaction(SIGPIPE, &old_pipe, nullptr);
  sigaction(SIGINT, &old_int, nullptr);
  // The shell could not run the pager (it said why): the output all the same.
  if (status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 127) Out(s);
}

volatile std::sig_atomic_t& InterruptFlag() {
  static volatile std::sig_atomic_t flag = 0;
  return flag;
}

std::string Count(size_t n, const char* one, const char* many) { return Cat(n, " ", n == 1 ? one : many); }

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
