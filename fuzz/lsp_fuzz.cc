// libFuzzer target for `charter lsp`'s message reader and dispatcher
// (cli/lsp_transport.h, cli/lsp_server.h): the input is the bytes a client
// writes on the server's stdin, a session of framed JSON-RPC messages. Fed
// whole and fed in pieces (sizes taken from the input), the server must
// answer the same, every answer must be JSON, and nothing may crash
// whatever the headers, bodies, methods, positions and document texts.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lsp_server.h"
#include "lsp_transport.h"
#include "nlohmann/json.hpp"

namespace {

using charter::cli::lsp::MessageReader;
using charter::cli::lsp::Server;
using charter::cli::lsp::ServerOptions;
using charter::cli::lsp::TransportLimits;

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "lsp_fuzz invariant failed: %s\n", what);
    std::abort();
  }
}

// The bodies the server writes back for `bytes`, fed in `pieces` (0: whole).
std::vector<std::string> Session(std::string_view bytes, const std::vector<size_t>& pieces) {
  Server server(ServerOptions{.read_files = false});
  MessageReader reader(TransportLimits{.max_header_bytes = 1024, .max_body_bytes = size_t{1} << 20});
  std::vector<std::string> all, out;
  size_t at = 0, piece = 0;
  while (at < bytes.size() && !server.exited()) {
    size_t n = pieces.empty() ? bytes.size() : pieces[piece++ % pieces.size()];
    n = std::min(n, bytes.size() - at);
    reader.Feed(bytes.substr(at, n));
    at += n;
    while (!server.exited()) {
      std::optional<MessageReader::Event> event = reader.Next();
      if (!event.has_value()) break;
      out.clear();
      if (event->kind == MessageReader::Kind::kMessage) {
        Check(event->body.size() <= (size_t{1} << 20), "a body over the limit was handed out");
        server.Handle(event->body, &out);
      } else {
        server.Refuse(event->kind == MessageReader::Kind::kBadHeader, event->body, &out);
      }
      for (std::string& body : out) {
        Check(nlohmann::json::accept(body), "the server wrote something that is not JSON");
        all.push_back(std::move(body));
      }
    }
    Check(reader.buffered() <= (size_t{1} << 20) + 1024 + 4, "the reader holds more than a message");
  }
  return all;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > (size_t{1} << 20)) return 0;
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> whole = Session(bytes, {});
  // Piece sizes from the input's first bytes: 1 to 16.
  std::vector<size_t> pieces;
  for (size_t i = 0; i < 4 && i < size; ++i) pieces.push_back(1 + (data[i] & 15));
  if (pieces.empty()) pieces.push_back(1);
  Check(Session(bytes, pieces) == whole, "fed in pieces, the server answered otherwise");
  return 0;
}
