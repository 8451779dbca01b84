// libFuzzer target for `charter serve`'s HTTP/1.1 request parser
// (server/http.h): the input is a connection's bytes. Fed whole and fed in
// pieces (sizes taken from the input), the parser must read the same
// requests, in order, with the same refusals; no body is longer than the
// limit, no parse consumes more than it was given, and an inflated body
// never exceeds its limit.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "http.h"

namespace {

using charter::server::ContentEncoding;
using charter::server::HttpLimits;
using charter::server::Inflate;
using charter::server::Inflated;
using charter::server::RequestParser;

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "http_request_fuzz invariant failed: %s\n", what);
    std::abort();
  }
}

// What a connection's bytes read as: one line a request or refusal.
std::vector<std::string> Parse(std::string_view bytes, const HttpLimits& limits, const std::vector<size_t>& pieces) {
  std::vector<std::string> out;
  RequestParser parser(limits);
  std::string buffered;
  size_t at = 0, piece = 0;
  while (out.size() < 64) {
    size_t used = parser.Feed(buffered);
    Check(used <= buffered.size(), "the parser consumed more than it was given");
    buffered.erase(0, used);
    if (parser.state() == RequestParser::kComplete) {
      const auto& q = parser.request();
      Check(q.body.size() <= limits.max_body_bytes, "a body longer than the limit");
      Check(q.headers.size() <= limits.max_headers, "more headers than the limit");
      std::string line = q.method + " " + q.target + " " + std::to_string(q.minor_version) + " " +
                         std::to_string(q.keep_alive) + " " + std::to_string(q.body.size()) + ":" + q.body;
      for (const auto& [k, v] : q.headers) line += "|" + k + "=" + v;
      if (q.encoding != ContentEncoding::kIdentity) {
        Inflated inflated = Inflate(q.body, q.encoding, 4096);
        Check(inflated.body.size() <= 4096, "an inflated body longer than its limit");
        Check(inflated.status == 200 || inflated.body.empty(), "a refused inflation kept its output");
        line += " inflated " + std::to_string(inflated.status);
      }
      out.push_back(line);
      parser.Reset();
      continue;
    }
    if (parser.state() == RequestParser::kError) {
      Check(parser.error_status() >= 400 && parser.error_status() < 600, "a refusal that is not a 4xx or 5xx");
      Check(!parser.error_message().empty(), "a refusal without a message");
      out.push_back("error " + std::to_string(parser.error_status()) + " " + parser.error_message());
      break;
    }
    if (at == bytes.size()) break;
    size_t n = pieces.empty() ? bytes.size() - at : pieces[piece++ % pieces.size()];
    n = std::min(n, bytes.size() - at);
    buffered.append(bytes.substr(at, n));
    at += n;
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  // The first byte chooses the pieces: 1 to 16 bytes each, from a pattern.
  std::vector<size_t> pieces;
  for (int i = 0; i < 8; ++i) pieces.push_back(1 + ((data[0] >> (i % 4)) + static_cast<size_t>(i) * 5) % 16);
  std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  HttpLimits limits;
  limits.max_head_bytes = 1024;
  limits.max_headers = 16;
  limits.max_body_bytes = 4096;
  std::vector<std::string> whole = Parse(bytes, limits, {});
  std::vector<std::string> split = Parse(bytes, limits, pieces);
  Check(whole == split, "the requests depend on how the bytes were split");
  return 0;
}
