// The HTTP/1.1 request parser and body inflation of `charter serve`
// (server/http.h): requests fed in any pieces read the same, the body limit
// holds for Content-Length and for chunked bodies as decoded (refused as
// soon as passed, nothing kept past it), what follows a request stays for the
// next (pipelining), malformed heads get their status, and inflation stops
// at its limit.
#include "http.h"

#include <zlib.h>

#include <string>
#include <string_view>

#include "gtest/gtest.h"

namespace charter::server {
namespace {

HttpLimits Small() {
  HttpLimits l;
  l.max_head_bytes = 256;
  l.max_headers = 4;
  l.max_body_bytes = 100;
  return l;
}

// Feeds `bytes` a piece of `step` bytes at a time; returns what was consumed.
size_t FeedInPieces(RequestParser& p, std::string_view bytes, size_t step) {
  size_t at = 0;
  while (at < bytes.size() && p.state() != RequestParser::kComplete && p.state() != RequestParser::kError) {
    std::string_view piece = bytes.substr(at, step);
    size_t used = p.Feed(piece);
    at += used;
    if (used < piece.size()) break;  // the request ended inside the piece
  }
  return at;
}

TEST(HttpTest, ARequestReadsTheSameInAnyPieces) {
  std::string req = "POST /v1/admission?x=1 HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhelloGET / HTTP/1.1\r\n\r\n";
  for (size_t step : {1, 2, 3, 7, 1000}) {
    RequestParser p(Small());
    size_t used = FeedInPieces(p, req, step);
    ASSERT_EQ(p.state(), RequestParser::kComplete) << step;
    EXPECT_EQ(used, req.find("GET")) << "the next request stays with the caller";
    EXPECT_EQ(p.request().method, "POST");
    EXPECT_EQ(p.request().path, "/v1/admission");
    EXPECT_EQ(p.request().target, "/v1/admission?x=1");
    EXPECT_EQ(p.request().body, "hello");
    EXPECT_EQ(p.request().Header("host"), "a");
    EXPECT_TRUE(p.request().keep_alive);
  }
}

TEST(HttpTest, ChunkedBodiesAreDecodedWithinTheLimit) {
  std::string req = "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5;ext\r\nhello\r\nA\r\n0123456789\r\n0\r\nX: y\r\n\r\n";
  for (size_t step : {1, 4, 1000}) {
    RequestParser p(Small());
    EXPECT_EQ(FeedInPieces(p, req, step), req.size());
    ASSERT_EQ(p.state(), RequestParser::kComplete) << p.error_message();
    EXPECT_EQ(p.request().body, "hello0123456789");
  }
}

TEST(HttpTest, AChunkedBodyPastTheLimitIsRefusedAsSoonAsItPassesIt) {
  // A chunk announced larger than the limit: refused at its size line.
  RequestParser p(Small());
  p.Feed("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n65\r\n");
  EXPECT_EQ(p.state(), RequestParser::kError);
  EXPECT_EQ(p.error_status(), 413);
  EXPECT_EQ(p.error_message(), "the request body is larger than 100 bytes");
  // Small chunks adding up past it: refused at the chunk that passes it, and
  // nothing past the limit is kept.
  RequestParser q(Small());
  q.Feed("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n");
  std::string chunk = "20\r\n" + std::string(32, 'x') + "\r\n";
  int fed = 0;
  while (q.state() == RequestParser::kBody && fed < 1000) {
    q.Feed(chunk);
    ++fed;
  }
  EXPECT_EQ(q.error_status(), 413);
  EXPECT_EQ(fed, 4) << "3 chunks of 32 fit in 100 bytes, the 4th does not";
  EXPECT_LE(q.request().body.size(), 100u);
}

TEST(HttpTest, AContentLengthPastTheLimitIsRefusedBeforeTheBody) {
  RequestParser p(Small());
  p.Feed("POST / HTTP/1.1\r\nContent-Length: 101\r\n\r\n");
  EXPECT_EQ(p.error_status(), 413);
}

TEST(HttpTest, MalformedHeadsGetTheirStatus) {
  struct Case {
    std::string head;
    int status;
    std::string message_part;
  };
  for (const Case& c : std::initializer_list<Case>{
           {"GARBAGE\r\n\r\n", 400, "is not METHOD TARGET HTTP/1.1"},
           {"GET / HTTP/1.1 extra\r\n\r\n", 400, "is not METHOD TARGET"},
           {"GET nothing HTTP/1.1\r\n\r\n", 400, "is not a request target"},
           {"GET / HTTP/2.0\r\n\r\n", 505, "send HTTP/1.1"},
           {"GET / HTTP/1.1\r\nNo colon\r\n\r\n", 400, "has no colon"},
           {"GET / HTTP/1.1\r\nBad name: x\r\n\r\n", 400, "is not a header name"},
           {"GET / HTTP/1.1\r\nA: b\r\n c\r\n\r\n", 400, "obsolete line folding"},
           {"GET / HTTP/1.1\r\nA: \x01\r\n\r\n", 400, "control character"},
           {"POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400, "is not a number of bytes"},
           {"POST / HTTP/1.1\r\nContent-Length: 99999999999999999999999\r\n\r\n", 400, "is not a number of bytes"},
           {"POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", 400, "two different"},
           {"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 1\r\n\r\n", 400, "both"},
           {"POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", 400, "not allowed in HTTP/1.0"},
           {"POST / HTTP/1.1\r\nTransfer-Encoding: identity\r\n\r\n", 501, "only `chunked`"},
           {"POST / HTTP/1.1\r\nContent-Encoding: br\r\n\r\n", 415, "`br` is not supported"},
           {"POST / HTTP/1.1\r\nExpect: nothing\r\n\r\n", 417, "only 100-continue"},
           {"GET / HTTP/1.1\r\nA: 1\r\nB: 1\r\nC: 1\r\nD: 1\r\nE: 1\r\n\r\n", 431, "more than 4 header fields"},
           {"GET / HTTP/1.1\r\nA: " + std::string(300, 'a'), 431, "larger than 256 bytes"},
       }) {
    RequestParser p(Small());
    p.Feed(c.head);
    EXPECT_EQ(p.state(), RequestParser::kError) << c.head;
    EXPECT_EQ(p.error_status(), c.status) << c.head;
    EXPECT_NE(p.error_message().find(c.message_part), std::string::npos) << c.head << ": " << p.error_message();
  }
}

TEST(HttpTest, ConnectionAndVersionDecideKeepAlive) {
  RequestParser p(Small());
  p.Feed("GET / HTTP/1.0\r\n\r\n");
  EXPECT_FALSE(p.request().keep_alive);
  p.Reset();
  p.Feed("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
  EXPECT_TRUE(p.request().keep_alive);
  p.Reset();
  p.Feed("GET / HTTP/1.1\r\nConnection: keep-alive, close\r\n\r\n");
  EXPECT_FALSE(p.request().keep_alive);
  p.Reset();
  p.Feed("\r\n\r\nGET / HTTP/1.1\r\nExpect: 100-continue\r\n\r\n");
  EXPECT_EQ(p.state(), RequestParser::kComplete) << "empty lines before a request are skipped";
  EXPECT_TRUE(p.request().expect_continue);
}

std::string Deflated(std::string_view data, int window_bits) {
  z_stream z{};
  deflateInit2(&z, 9, Z_DEFLATED, window_bits, 9, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&z, data.size()) + 32, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

TEST(HttpTest, InflationStopsAtItsLimit) {
  std::string text(1 << 20, ' ');
  std::string gzip = Deflated(text, 15 + 16), zlib = Deflated(text, 15);
  Inflated ok = Inflate(gzip, ContentEncoding::kGzip, 1 << 20);
  EXPECT_EQ(ok.status, 200) << ok.message;
  EXPECT_EQ(ok.body, text);
  EXPECT_EQ(Inflate(zlib, ContentEncoding::kDeflate, 1 << 20).body, text);
  Inflated over = Inflate(gzip, ContentEncoding::kGzip, (1 << 20) - 1);
  EXPECT_EQ(over.status, 413);
  EXPECT_EQ(over.message, "the request body inflates to more than 1048575 bytes (limits.maxInflatedBodyBytes)");
  EXPECT_TRUE(over.body.empty());
  EXPECT_EQ(Inflate("not gzip", ContentEncoding::kGzip, 100).status, 400);
  EXPECT_EQ(Inflate(gzip.substr(0, gzip.size() / 2), ContentEncoding::kGzip, 1 << 20).message,
            "the gzip body is truncated");
  EXPECT_EQ(Inflate(gzip + "x", ContentEncoding::kGzip, 1 << 20).message, "the gzip body has data after its end");
}

}  // namespace
}  // namespace charter::server
