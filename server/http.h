// HTTP/1.1 requests as `charter serve` reads them (docs/server.md, "Limits"):
// an incremental parser that is fed whatever bytes a connection gives and
// never holds more than its limits allow, and the inflation of a gzip or
// deflate body into a bounded buffer. No I/O here: the event loop
// (server.cc) owns the sockets, and fuzz/http_request_fuzz.cc feeds this
// parser directly.
//
//   RequestParser parser(limits);
//   size_t used = parser.Feed(bytes);        // consumes up to one request
//   if (parser.state() == RequestParser::kComplete) Handle(parser.request());
//   if (parser.state() == RequestParser::kError) Answer(parser.error_status(), parser.error_message());
//   parser.Reset();                          // for the next request of the connection
#ifndef CHARTER_SERVER_HTTP_H_
#define CHARTER_SERVER_HTTP_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace charter::server {

struct HttpLimits {
  size_t max_head_bytes = 8192;      // request line and headers, terminator included
  size_t max_headers = 100;          // header fields
  size_t max_body_bytes = size_t{1} << 20;  // as received (decoded from chunks, not inflated)
};

enum class ContentEncoding { kIdentity, kGzip, kDeflate };

struct HttpRequest {
  std::string method;
  std::string target;  // as sent
  std::string path;    // the target without its query
  int minor_version = 1;  // HTTP/1.0 or HTTP/1.1
  std::vector<std::pair<std::string, std::string>> headers;  // names lowercased
  std::string body;
  std::optional<uint64_t> content_length;
  bool chunked = false;
  bool keep_alive = true;
  bool expect_continue = false;
  ContentEncoding encoding = ContentEncoding::kIdentity;

  // The first value of a header (its name in lowercase), if present.
  std::optional<std::string_view> Header(std::string_view lowercase_name) const;
};

class RequestParser {
 public:
  enum State { kHead, kBody, kComplete, kError };

  explicit RequestParser(const HttpLimits& limits) : limits_(limits) {}

  // Consumes bytes of the current request from `in` and returns how many:
  // never more than the request needs, so what follows (a pipelined request)
  // stays with the caller. Stops at kComplete and kError.
  size_t Feed(std::string_view in);

  State state() const { return state_; }
  // Whether any byte of the current request has arrived.
  bool started() const { return started_; }
  const HttpRequest& request() const { return request_; }
  HttpRequest& mutable_request() { return request_; }
  int error_status() const { return error_status_; }
  const std::string& error_message() const { return error_message_; }

  // Forgets the request, ready for the next one on the connection.
  void Reset();

 private:
  enum BodyStep { kFixed, kChunkSize, kChunkData, kChunkEnd, kTrailer };

  size_t FeedHead(std::string_view in);
  size_t FeedBody(std::string_view in);
  // Reads the buffered head; sets kBody, kComplete or kError.
  void ParseHead();
  bool ParseHeaderField(std::string_view line);
  bool TakeBody(std::string_view bytes);
  // Consumes a line (to LF) into line_; true once it is whole.
  bool TakeLine(std::string_view in, size_t* used, size_t max);
  void Fail(int status, std::string message);

  HttpLimits limits_;
  State state_ = kHead;
  bool started_ = false;
  HttpRequest request_;
  std::string head_;
  size_t scanned_ = 0;  // head_ bytes searched for the blank line
  BodyStep step_ = kFixed;
  uint64_t remaining_ = 0;  // of the fixed body or the current chunk
  std::string line_;        // a chunk-size or trailer line being read
  size_t trailer_bytes_ = 0;
  int error_status_ = 0;
  std::string error_message_;
};

// The body inflated: the result, or an HTTP status (413 past `limit`, 400
// when the data is not what the encoding says) with a message.
struct Inflated {
  int status = 200;
  std::string body;
  std::string message;
};
Inflated Inflate(std::string_view body, ContentEncoding encoding, size_t limit);

// "Not Found" for 404, and so on; "Error" for a code it does not know.
std::string_view ReasonPhrase(int status);

}  // namespace charter::server

#endif  // CHARTER_SERVER_HTTP_H_
