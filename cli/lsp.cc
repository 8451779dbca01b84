// `charter lsp`: the language server on stdin and stdout (lsp_server.h for
// what it answers, lsp_transport.h for the framing). It reads until the
// client's `exit` notification, or the end of its input, and exits 0 after
// `shutdown` and `exit`, 1 otherwise.
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

int RunLsp() {
  // A client that closes its end makes writes fail, not kill the server.
  std::signal(SIGPIPE, SIG_IGN);
  lsp::MessageReader reader;
  lsp::Server server;
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
      "workspace folder.\nExit status: 0 after the client's shutdown and exit; 1 when the input ends first.");
  return Command{app, [stdio] { return RunLsp(); }};
}

}  // namespace charter::cli
