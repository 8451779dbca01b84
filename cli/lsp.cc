// `charter lsp`: the language server on stdin and stdout (lsp_server.h for
// what it answers, lsp_transport.h for the framing). It reads until the
// client's `exit` notification, or the end of its input, and exits 0 after
// `shutdown` and `exit`, 1 otherwise.
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "command.h"
#include "lsp_server.h"
#include "lsp_transport.h"
#include "report.h"

namespace charter::cli {
namespace {

// Writes all of `bytes` to stdout; false when it cannot (the client is gone).
bool WriteAll(const std::string& bytes) {
  size_t at = 0;
  while (at < bytes.size()) {
    ssize_t n = write(STDOUT_FILENO, bytes.data() + at, bytes.size() - at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    at += static_cast<size_t>(n);
  }
  return true;
}

// Runs this executable with `args` (the code lenses' `charter test`), its
// output and error output read whole (at most 64 MiB each); its exit
// status, or -1 when it could not be started.
int RunSelf(const std::vector<std::string>& args, std::string* out, std::string* err) {
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) return -1;
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    close(out_pipe[0]);
    close(out_pipe[1]);
    return -1;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  std::vector<std::string> argv_strings = {"charter"};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_strings) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  int spawned = posix_spawn(&pid, "/proc/self/exe", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (spawned != 0) {
    close(out_pipe[0]);
    close(err_pipe[0]);
    return -1;
  }
  constexpr size_t kMax = size_t{64} << 20;
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* into[2] = {out, err};
  std::vector<char> buffer(size_t{1} << 16);
  int open_fds = 2;
  while (open_fds > 0) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      ssize_t n = read(fds[i].fd, buffer.data(), buffer.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      } else if (into[i]->size() < kMax) {
        into[i]->append(buffer.data(), static_cast<size_t>(n));
      }
    }
  }
  for (pollfd& f : fds) {
    if (f.fd >= 0) close(f.fd);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int RunLsp() {
  // A client that closes its end makes writes fail, not kill the server.
  std::signal(SIGPIPE, SIG_IGN);
  lsp::MessageReader reader;
  lsp::Server server;
  server.set_run_charter(RunSelf);
  std::vector<std::string> out;
  std::vector<char> buffer(size_t{1} << 16);
  for (;;) {
    while (std::optional<lsp::MessageReader::Event> event = reader.Next()) {
      out.clear();
      if (event->kind == lsp::MessageReader::Kind::kMessage) {
        server.Handle(event->body, &out);
      } else {
        server.Refuse(event->kind == lsp::MessageReader::Kind::kBadHeader, event->body, &out);
      }
      for (const std::string& body : out) {
        if (!WriteAll(lsp::Frame(body))) return kError;
      }
      if (server.exited()) return server.exit_code();
    }
    ssize_t n = read(STDIN_FILENO, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // the client went away without `exit`
    reader.Feed(std::string_view(buffer.data(), static_cast<size_t>(n)));
  }
  return kError;
}

}  // namespace

Command AddLspCommand(CLI::App& root) {
  CLI::App* app = root.add_subcommand(
      "lsp", "Run the language server for editors (LSP on stdin and stdout)");
  // vscode-languageclient passes --stdio for its stdio transport; stdio is the only one.
  auto stdio = std::make_shared<bool>(false);
  app->add_flag("--stdio", *stdio, "Talk over stdin and stdout (the default, and the only transport)");
  app->footer(
      "An editor starts it and talks to it (docs/editors.md). Its settings, in initializationOptions or\n"
      "workspace/didChangeConfiguration: {\"schemas\": [FILE...], \"entities\": FILE}, relative to the\n"
      "workspace folder. Without schemas there, the nearest charter.json in the workspace folder or above\n"
      "it gives the schemas, entities and policies.\nExit status: 0 after the client's shutdown and exit; 1 when the input ends first.");
  return Command{app, [stdio] { return RunLsp(); }};
}

}  // namespace charter::cli
