// `charter serve`: the HTTPS server for Kubernetes admission and
// authorization webhooks and Charter's own requests (docs/server.md).
//
//   charter::server::ServerOptions options = ...;  // from flags and --config
//   return charter::server::Serve(options);        // until SIGTERM or SIGINT
#ifndef CHARTER_SERVER_SERVER_H_
#define CHARTER_SERVER_SERVER_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "policy_state.h"
#include "admission_review.h"

namespace charter::server {

struct ServerOptions {
  PolicyFiles files;
  std::string tls_cert, tls_key;
  // --client-ca: PEM certificates of the CAs whose client certificates the
  // TLS listener requires; empty: no client certificate is asked for.
  std::string client_ca;
  std::string host = "127.0.0.1";
  int port = 8443;
  // --admin-listen: /v1/authorize and /metrics on a listener of their own,
  // plain HTTP, for this machine only: a unix socket (admin_unix), or a
  // loopback address and port (admin_host, admin_port). Neither set: no
  // admin listener, and the TLS listener serves every endpoint.
  std::string admin_unix;
  std::string admin_group;  // --admin-group: the unix socket is 0660 and of this group
  std::string admin_host;
  int admin_port = -1;
  bool has_admin() const { return !admin_unix.empty() || admin_port >= 0; }
  std::string decision_log;  // a file, "-" for stdout, empty for none

  // The live page's allocation (--workloads): given the policy state loaded
  // (at start and on each reload), the quota tree of its scheduling
  // declarations with what the workloads hold, as SVG; an error when the
  // workloads do not read or the policies declare no scheduling (fatal at
  // start; after a reload the page shows it). Unset: no allocation.
  std::function<absl::StatusOr<std::string>(const PolicyState&)> allocation;
  std::string allocation_source;  // what it reads, for the page: the workloads file

  // From --config (docs/server.md, "Configuration").
  MappingOptions mapping;
  std::vector<std::pair<std::string, std::string>> reasons;  // policy id -> why
  std::vector<std::string> mask_context;  // context attributes logged as "***"
  // The rollout mode (enforcement.h): a ceiling over every policy's own.
  Enforcement enforcement = Enforcement::kDeny;
  // Limits of the network side (docs/server.md, "Limits"): each stops an attack.
  size_t max_body_bytes = size_t{1} << 20;           // as received, chunked bodies decoded
  size_t max_inflated_body_bytes = size_t{4} << 20;  // a gzip or deflate body once inflated
  size_t max_header_bytes = 8192;                    // request line and headers
  int max_headers = 100;                             // header fields
  int handshake_timeout_seconds = 5;                 // the TLS handshake, whole
  int header_timeout_seconds = 10;                   // a request head, whole, from its first byte
  int read_timeout_seconds = 10;                     // a request body, whole, from the end of the head
  int write_timeout_seconds = 10;                    // an answer, whole
  int idle_timeout_seconds = 30;                     // a kept-alive connection's wait for its next request
  int max_connections = 256;                         // open at once, in all
  int max_connections_per_client = 128;              // open at once from one client address
  int threads = 0;                                   // event loops; 0: one a core
  int client_chain_depth = 4;                        // CAs between a client certificate and its trusted CA
  size_t decision_log_queue = 8192;                  // lines waiting to be written; more are dropped
  size_t decision_log_queue_bytes = size_t{16} << 20;  // their bytes; more are dropped
  int decision_log_stop_timeout_seconds = 5;         // on SIGTERM, for a blocked output
  uint64_t decision_log_max_bytes = 0;               // rotate the file past this size; 0: never
  int decision_log_keep = 5;                         // rotated files kept (log.1 ... log.K)
  bool watch = true;                // inotify on the bundle, entity and certificate files
};

// Parses "ADDR:PORT" ("127.0.0.1:8443", "[::1]:8443", ":8443").
absl::Status ParseListen(std::string_view listen, ServerOptions* options);

// Parses --admin-listen: "unix:PATH", or a loopback "127.0.0.1:PORT" or
// "[::1]:PORT" (any other address is refused: the listener is plain HTTP).
absl::Status ParseAdminListen(std::string_view listen, ServerOptions* options);

// Reads the JSON configuration file into *options.
absl::Status LoadConfig(const std::string& path, ServerOptions* options);

// Serves until SIGTERM or SIGINT; returns the process's exit status. Errors
// before serving (a bundle that does not load, a port taken) are printed
// and return 1.
int Serve(const ServerOptions& options);

}  // namespace charter::server

#endif  // CHARTER_SERVER_SERVER_H_
