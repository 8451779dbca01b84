// `charter lsp`'s server: the Language Server Protocol's lifecycle and
// methods over JSON-RPC message bodies, with no I/O of its own but reading
// the schema and entity files its settings name. Each message in gives the
// messages to send back (responses, diagnostics); it never throws and never
// stops on bad input: a body that is not JSON is a ParseError, one that is
// not a request an InvalidRequest, an unknown method MethodNotFound.
//
//   Server server;
//   std::vector<std::string> out;
//   server.Handle(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{}})", &out);
#ifndef CHARTER_CLI_LSP_SERVER_H_
#define CHARTER_CLI_LSP_SERVER_H_

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace charter::cli::lsp {

struct ServerOptions {
  // Whether the settings' schema and entity files are read from disk (the
  // fuzz target reads none).
  bool read_files = true;
  // Nesting of a message's JSON arrays and objects; deeper is refused.
  int max_json_depth = 64;
  // The most a schema or entities file read from disk may hold, and a
  // document open in the editor (one that grows past it is dropped, and
  // the client told so).
  size_t max_file_bytes = size_t{64} << 20;
  size_t max_document_bytes = size_t{64} << 20;
};

// Runs `charter ARGS...` (the code lenses' tests: `test --format json
// FILE`), its standard output in *out and its error output in *err;
// returns its exit status, or -1 when it could not run.
using RunCharter = std::function<int(const std::vector<std::string>& args, std::string* out, std::string* err)>;

class Server {
 public:
  explicit Server(ServerOptions options = {});
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Handles one message body; appends the message bodies to send, in order.
  void Handle(std::string_view body, std::vector<std::string>* out);
  // How `charter.runTest` runs `charter test`; without one, it is refused.
  void set_run_charter(RunCharter run);
  // A frame that could not be read (a bad header, a body over the limit):
  // an error response with a null id, `parse_error` choosing ParseError
  // (-32700) or InvalidRequest (-32600).
  void Refuse(bool parse_error, std::string_view why, std::vector<std::string>* out);

  // After the `exit` notification: stop, with exit_code() (0 after
  // `shutdown`, 1 without, as the protocol says).
  bool exited() const;
  int exit_code() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace charter::cli::lsp

#endif  // CHARTER_CLI_LSP_SERVER_H_
