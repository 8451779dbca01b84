// `charter serve`: the HTTPS server for Kubernetes admission and
// authorization webhooks and Charter's own requests (docs/server.md).
//
//   charter::server::ServerOptions options = ...;  // from flags and --config
//   return charter::server::Serve(options);        // until SIGTERM or SIGINT
#ifndef CHARTER_SERVER_SERVER_H_
#define CHARTER_SERVER_SERVER_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "policy_state.h"
#include "review.h"

namespace charter::server {

struct ServerOptions {
  PolicyFiles files;
  std::string tls_cert, tls_key;
  std::string host = "127.0.0.1";
  int port = 8443;
  std::string decision_log;  // a file, "-" for stdout, empty for none

  // From --config (docs/server.md, "Configuration").
  MappingOptions mapping;
  std::vector<std::pair<std::string, std::string>> reasons;  // policy id -> why
  std::vector<std::string> mask_context;  // context attributes logged as "***"
  size_t max_body_bytes = size_t{1} << 20;
  int read_timeout_seconds = 10;
  int write_timeout_seconds = 10;
  int idle_timeout_seconds = 30;
  int threads = 64;                 // connections served at once
  size_t decision_log_queue = 8192; // lines waiting to be written; more are dropped
  bool watch = true;                // inotify on the bundle, entity and certificate files
};

// Parses "ADDR:PORT" ("127.0.0.1:8443", "[::1]:8443", ":8443").
absl::Status ParseListen(std::string_view listen, ServerOptions* options);

// Reads the JSON configuration file into *options.
absl::Status LoadConfig(const std::string& path, ServerOptions* options);

// Serves until SIGTERM or SIGINT; returns the process's exit status. Errors
// before serving (a bundle that does not load, a port taken) are printed
// and return 1.
int Serve(const ServerOptions& options);

}  // namespace charter::server

#endif  // CHARTER_SERVER_SERVER_H_
