// The HTTP/1.1 request parser and body inflation of `charter serve` (http.h).
// Every refusal is a 4xx or 5xx status with a one-line message; nothing is
// buffered past a limit.
#include "http.h"

#include <zlib.h>

#include <algorithm>
#include <charconv>

#include "charter_support/strings.h"

namespace charter::server {
namespace {

using support::Cat;
using support::S;

bool IsTokenChar(char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

bool IsToken(std::string_view s) { return !s.empty() && std::all_of(s.begin(), s.end(), IsTokenChar); }

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// A printable rendering of untrusted bytes for a message, at most 40 of them.
std::string Shown(std::string_view s) {
  std::string out;
  for (char c : s.substr(0, 40)) {
    out += (c >= 0x20 && c < 0x7f) ? c : '?';
  }
  if (s.size() > 40) out += "...";
  return out;
}

}  // namespace

std::optional<std::string_view> HttpRequest::Header(std::string_view lowercase_name) const {
  for (const auto& [name, value] : headers) {
    if (name == lowercase_name) return std::string_view(value);
  }
  return std::nullopt;
}

void RequestParser::Reset() {
  state_ = kHead;
  started_ = false;
  request_ = HttpRequest{};
  head_.clear();
  scanned_ = 0;
  step_ = kFixed;
  remaining_ = 0;
  line_.clear();
  trailer_bytes_ = 0;
  error_status_ = 0;
  error_message_.clear();
}

void RequestParser::Fail(int status, std::string message) {
  state_ = kError;
  error_status_ = status;
  error_message_ = std::move(message);
}

size_t RequestParser::Feed(std::string_view in) {
  size_t used = 0;
  if (state_ == kHead && !in.empty()) {
    used += FeedHead(in);
  }
  if (state_ == kBody && used < in.size()) {
    used += FeedBody(in.substr(used));
  }
  return used;
}

size_t RequestParser::FeedHead(std::string_view in) {
  // Empty lines before a request line are allowed (RFC 9112, 2.2), once the
  // head has no other byte yet.
  size_t used = 0;
  if (head_.empty()) {
    while (used < in.size() && (in[used] == '\r' || in[used] == '\n')) ++used;
    if (used > 0) started_ = true;
    if (used == in.size()) return used;
  }
  started_ = true;
  size_t room = limits_.max_head_bytes - head_.size();
  std::string_view take = in.substr(used, room);
  head_.append(take.data(), take.size());
  // The head ends at the first empty line: CRLF CRLF, or LF LF from a lenient client.
  size_t search = scanned_ > 3 ? scanned_ - 3 : 0;
  size_t end = std::string::npos;
  for (size_t i = search; i < head_.size(); ++i) {
    if (head_[i] != '\n') continue;
    if (i >= 1 && head_[i - 1] == '\n') { end = i + 1; break; }
    if (i >= 2 && head_[i - 1] == '\r' && head_[i - 2] == '\n') { end = i + 1; break; }
  }
  scanned_ = head_.size();
  if (end == std::string::npos) {
    if (head_.size() >= limits_.max_head_bytes) {
      Fail(431, Cat("the request head (request line and headers) is larger than ", limits_.max_head_bytes,
                    " bytes (limits.maxHeaderBytes)"));
    }
    return used + take.size();
  }
  // Give back what follows the head: it is the body, or the next request.
  size_t past = head_.size() - end;
  head_.resize(end);
  ParseHead();
  return used + take.size() - past;
}

bool RequestParser::ParseHeaderField(std::string_view line) {
  if (line.front() == ' ' || line.front() == '\t') {
    Fail(400, "a header line starts with white space (obsolete line folding is not accepted)");
    return false;
  }
  size_t colon = line.find(':');
  if (colon == std::string_view::npos) {
    Fail(400, Cat("a header line has no colon: `", Shown(line), "`"));
    return false;
  }
  std::string_view name = line.substr(0, colon);
  if (!IsToken(name)) {
    Fail(400, Cat("`", Shown(name), "` is not a header name"));
    return false;
  }
  std::string_view value = Trim(line.substr(colon + 1));
  for (char c : value) {
    unsigned char u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\t') || u == 0x7f) {
      Fail(400, Cat("the header `", S(name), "` has a control character in its value"));
      return false;
    }
  }
  if (request_.headers.size() >= limits_.max_headers) {
    Fail(431, Cat("the request has more than ", limits_.max_headers, " header fields (limits.maxHeaders)"));
    return false;
  }
  request_.headers.emplace_back(Lower(name), S(value));
  return true;
}

void RequestParser::ParseHead() {
  std::string_view head(head_);
  std::vector<std::string_view> lines;
  while (!head.empty()) {
    size_t lf = head.find('\n');
    std::string_view line = head.substr(0, lf);
    head.remove_prefix(lf + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
  }
  // lines: the request line, the fields, and the empty line.
  std::string_view request_line = lines.front();
  size_t sp1 = request_line.find(' ');
  size_t sp2 = sp1 == std::string_view::npos ? sp1 : request_line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || request_line.find(' ', sp2 + 1) != std::string_view::npos) {
    return Fail(400, Cat("the request line `", Shown(request_line), "` is not METHOD TARGET HTTP/1.1"));
  }
  std::string_view method = request_line.substr(0, sp1);
  std::string_view target = request_line.substr(sp1 + 1, sp2 - sp1 - 1);
  std::string_view version = request_line.substr(sp2 + 1);
  if (!IsToken(method)) return Fail(400, Cat("`", Shown(method), "` is not a method"));
  if (target.empty() || target.front() != '/' ||
      std::any_of(target.begin(), target.end(),
                  [](char c) { return static_cast<unsigned char>(c) <= 0x20 || c == 0x7f; })) {
    return Fail(400, Cat("`", Shown(target), "` is not a request target (an absolute path)"));
  }
  if (version == "HTTP/1.1") {
    request_.minor_version = 1;
  } else if (version == "HTTP/1.0") {
    request_.minor_version = 0;
    request_.keep_alive = false;
  } else if (version.substr(0, 5) == "HTTP/") {
    return Fail(505, Cat("`", Shown(version), "` is not supported: send HTTP/1.1"));
  } else {
    return Fail(400, Cat("`", Shown(version), "` is not an HTTP version"));
  }
  request_.method = S(method);
  request_.target = S(target);
  request_.path = S(target.substr(0, target.find('?')));
  for (size_t i = 1; i + 1 < lines.size(); ++i) {
    if (!ParseHeaderField(lines[i])) return;
  }

  for (const auto& [name, value] : request_.headers) {
    if (name == "content-length") {
      uint64_t n = 0;
      auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
      if (value.empty() || ec != std::errc() || end != value.data() + value.size() || value[0] == '+' ||
          value[0] == '-') {
        return Fail(400, Cat("Content-Length `", Shown(value), "` is not a number of bytes"));
      }
      if (request_.content_length && *request_.content_length != n) {
        return Fail(400, "the request has two different Content-Length headers");
      }
      request_.content_length = n;
    } else if (name == "transfer-encoding") {
      if (Lower(value) != "chunked" || request_.chunked) {
        return Fail(501, Cat("Transfer-Encoding `", Shown(value), "` is not supported (only `chunked`, once)"));
      }
      request_.chunked = true;
    } else if (name == "content-encoding") {
      std::string v = Lower(value);
      ContentEncoding e;
      if (v == "identity") e = ContentEncoding::kIdentity;
      else if (v == "gzip" || v == "x-gzip") e = ContentEncoding::kGzip;
      else if (v == "deflate") e = ContentEncoding::kDeflate;
      else return Fail(415, Cat("Content-Encoding `", Shown(value), "` is not supported (gzip, deflate or identity)"));
      if (request_.encoding != ContentEncoding::kIdentity && e != ContentEncoding::kIdentity) {
        return Fail(415, "the body is encoded twice (one Content-Encoding of gzip or deflate is supported)");
      }
      if (e != ContentEncoding::kIdentity) request_.encoding = e;
    } else if (name == "connection") {
      std::string v = Lower(value);
      // A list of tokens: close wins over keep-alive.
      std::string_view rest = v;
      while (!rest.empty()) {
        size_t comma = rest.find(',');
        std::string_view token = Trim(rest.substr(0, comma));
        if (token == "close") request_.keep_alive = false;
        if (token == "keep-alive" && request_.minor_version == 0) request_.keep_alive = true;
        rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
      }
    } else if (name == "expect") {
      if (Lower(value) != "100-continue") {
        return Fail(417, Cat("Expect `", Shown(value), "` is not supported (only 100-continue)"));
      }
      request_.expect_continue = request_.minor_version == 1;
    }
  }
  // A request that closes after its answer keeps that even if a later
  // Connection header says otherwise (handled above, close wins).
  if (request_.chunked && request_.content_length) {
    return Fail(400, "the request has both Transfer-Encoding and Content-Length");
  }
  if (request_.chunked && request_.minor_version == 0) {
    return Fail(400, "Transfer-Encoding is not allowed in HTTP/1.0");
  }
  if (request_.content_length && *request_.content_length > limits_.max_body_bytes) {
    return Fail(413, Cat("the request body is larger than ", limits_.max_body_bytes, " bytes"));
  }
  if (request_.chunked) {
    step_ = kChunkSize;
    state_ = kBody;
  } else if (request_.content_length.value_or(0) > 0) {
    step_ = kFixed;
    remaining_ = *request_.content_length;
    request_.body.reserve(static_cast<size_t>(remaining_));
    state_ = kBody;
  } else {
    state_ = kComplete;
  }
}

bool RequestParser::TakeBody(std::string_view bytes) {
  if (request_.body.size() + bytes.size() > limits_.max_body_bytes) {
    Fail(413, Cat("the request body is larger than ", limits_.max_body_bytes, " bytes"));
    return false;
  }
  request_.body.append(bytes.data(), bytes.size());
  return true;
}

bool RequestParser::TakeLine(std::string_view in, size_t* used, size_t max) {
  size_t lf = in.find('\n', *used);
  size_t end = lf == std::string_view::npos ? in.size() : lf + 1;
  if (line_.size() + (end - *used) > max) {
    Fail(400, step_ == kTrailer    ? Cat("the chunked body's trailer is larger than ", limits_.max_head_bytes, " bytes")
              : step_ == kChunkEnd ? std::string("a chunk's data is not followed by CRLF")
                                   : Cat("a chunk-size line is longer than ", max, " bytes"));
    return false;
  }
  line_.append(in.data() + *used, end - *used);
  *used = end;
  if (lf == std::string_view::npos) return false;
  line_.pop_back();
  if (!line_.empty() && line_.back() == '\r') line_.pop_back();
  return true;
}

size_t RequestParser::FeedBody(std::string_view in) {
  size_t used = 0;
  while (state_ == kBody && used < in.size()) {
    switch (step_) {
      case kFixed:
      case kChunkData: {
        size_t n = static_cast<size_t>(std::min<uint64_t>(remaining_, in.size() - used));
        if (!TakeBody(in.substr(used, n))) return used;
        used += n;
        remaining_ -= n;
        if (remaining_ == 0) {
          if (step_ == kFixed) {
            state_ = kComplete;
          } else {
            step_ = kChunkEnd;
          }
        }
        break;
      }
      case kChunkSize: {
        if (!TakeLine(in, &used, 1024)) break;
        std::string_view size = line_;
        size = Trim(size.substr(0, size.find(';')));  // chunk extensions are ignored
        uint64_t n = 0;
        auto [end, ec] = std::from_chars(size.data(), size.data() + size.size(), n, 16);
        if (size.empty() || ec != std::errc() || end != size.data() + size.size()) {
          Fail(400, Cat("`", Shown(line_), "` is not a chunk size (hexadecimal)"));
          return used;
        }
        line_.clear();
        if (n > limits_.max_body_bytes - request_.body.size()) {
          Fail(413, Cat("the request body is larger than ", limits_.max_body_bytes, " bytes"));
          return used;
        }
        if (n == 0) {
          step_ = kTrailer;
        } else {
          step_ = kChunkData;
          remaining_ = n;
        }
        break;
      }
      case kChunkEnd: {
        if (!TakeLine(in, &used, 2)) break;
        if (!line_.empty()) {
          Fail(400, "a chunk's data is not followed by CRLF");
          return used;
        }
        step_ = kChunkSize;
        break;
      }
      case kTrailer: {
        // trailer_bytes_ counts the whole lines; line_ the one being read.
        size_t start = used, partial = line_.size();
        size_t room = limits_.max_head_bytes > trailer_bytes_ ? limits_.max_head_bytes - trailer_bytes_ : 0;
        if (!TakeLine(in, &used, room)) break;
        trailer_bytes_ += partial + (used - start);
        bool last = line_.empty();
        line_.clear();  // trailer fields are read and ignored
        if (last) state_ = kComplete;
        break;
      }
    }
  }
  return used;
}

Inflated Inflate(std::string_view body, ContentEncoding encoding, size_t limit) {
  Inflated out;
  if (encoding == ContentEncoding::kIdentity) {
    out.body = S(body);
    return out;
  }
  const char* name = encoding == ContentEncoding::kGzip ? "gzip" : "deflate";
  z_stream z{};
  // 15 + 32: a zlib or gzip header, detected (HTTP's "deflate" is zlib's
  // format, and some clients send gzip under either name).
  if (inflateInit2(&z, 15 + 32) != Z_OK) {
    out.status = 500;
    out.message = "cannot start zlib";
    return out;
  }
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(body.data()));
  z.avail_in = static_cast<uInt>(body.size());
  char buf[16384];
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof buf;
    rc = inflate(&z, Z_NO_FLUSH);
    size_t produced = sizeof buf - z.avail_out;
    if (rc != Z_OK && rc != Z_STREAM_END && !(rc == Z_BUF_ERROR && produced > 0)) {
      out.status = 400;
      out.message = z.avail_in == 0 && (rc == Z_BUF_ERROR || rc == Z_OK)
                        ? Cat("the ", name, " body is truncated")
                        : Cat("the ", name, " body is corrupt", z.msg ? Cat(": ", z.msg) : std::string());
      break;
    }
    if (out.body.size() + produced > limit) {
      out.status = 413;
      out.message = Cat("the request body inflates to more than ", limit, " bytes (limits.maxInflatedBodyBytes)");
      break;
    }
    out.body.append(buf, produced);
    if (rc != Z_STREAM_END && produced == 0 && z.avail_in == 0) {
      out.status = 400;
      out.message = Cat("the ", name, " body is truncated");
      break;
    }
  }
  if (out.status == 200 && z.avail_in != 0) {
    out.status = 400;
    out.message = Cat("the ", name, " body has data after its end");
  }
  inflateEnd(&z);
  if (out.status != 200) out.body.clear();
  return out;
}

std::string_view ReasonPhrase(int status) {
  switch (status) {
    case 100: return "Continue";
    case 200: return "OK";
    case 400: return "Bad Request";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 411: return "Length Required";
    case 413: return "Payload Too Large";
    case 415: return "Unsupported Media Type";
    case 417: return "Expectation Failed";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    case 505: return "HTTP Version Not Supported";
    default: return "Error";
  }
}

}  // namespace charter::server
