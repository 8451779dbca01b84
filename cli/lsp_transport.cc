// Content-Length framing (lsp_transport.h).
#include "lsp_transport.h"

#include <algorithm>
#include <cctype>

namespace charter::cli::lsp {
namespace {

bool EqualsIgnoringCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// The Content-Length of a header block (without its final empty line), or
// nullopt with `why` when there is none, or it is not a number, or there
// are two, or a line is not `Name: value`.
std::optional<size_t> ContentLength(std::string_view headers, std::string* why) {
  std::optional<size_t> length;
  while (!headers.empty()) {
    size_t eol = headers.find("\r\n");
    std::string_view line = headers.substr(0, eol);
    headers = eol == std::string_view::npos ? std::string_view() : headers.substr(eol + 2);
    size_t colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0) {
      *why = "a header line is not `Name: value`";
      return std::nullopt;
    }
    if (!EqualsIgnoringCase(Trim(line.substr(0, colon)), "Content-Length")) continue;
    std::string_view value = Trim(line.substr(colon + 1));
    if (length.has_value()) {
      *why = "Content-Length is given twice";
      return std::nullopt;
    }
    if (value.empty() || value.size() > 18 || value.find_first_not_of("0123456789") != std::string_view::npos) {
      *why = "Content-Length is not a number";
      return std::nullopt;
    }
    size_t n = 0;
    for (char c : value) n = n * 10 + static_cast<size_t>(c - '0');
    length = n;
  }
  if (!length.has_value()) *why = "the header has no Content-Length";
  return length;
}

}  // namespace

void MessageReader::Feed(std::string_view bytes) {
  if (skip_ > 0) {
    size_t n = std::min(skip_, bytes.size());
    skip_ -= n;
    bytes.remove_prefix(n);
  }
  if (at_ > 0 && at_ == buffer_.size()) {
    buffer_.clear();
    at_ = 0;
  }
  buffer_.append(bytes);
}

void MessageReader::Consume(size_t n) {
  at_ += n;
  // Keep what is unread at the front once the read part is large.
  if (at_ == buffer_.size()) {
    buffer_.clear();
    at_ = 0;
  } else if (at_ > (size_t{1} << 16) && at_ > buffer_.size() / 2) {
    buffer_.erase(0, at_);
    at_ = 0;
  }
}

std::optional<MessageReader::Event> MessageReader::Next() {
  std::string_view unread = std::string_view(buffer_).substr(at_);
  // The end of the header is looked for in its first max_header_bytes + 4
  // bytes only, so that what is read does not depend on how the bytes
  // arrived.
  size_t window = limits_.max_header_bytes + 4;
  size_t end = unread.substr(0, window).find("\r\n\r\n");
  if (end == std::string_view::npos) {
    if (unread.size() < window) return std::nullopt;
    // No end of the header within the limit: drop that much, keeping the
    // last 3 bytes in case they start the end of a header.
    Consume(window - 3);
    return Event{Kind::kBadHeader,
                 "the header is longer than " + std::to_string(limits_.max_header_bytes) + " bytes"};
  }
  std::string why;
  std::optional<size_t> length = ContentLength(unread.substr(0, end), &why);
  if (!length.has_value()) {
    Consume(end + 4);
    return Event{Kind::kBadHeader, why};
  }
  if (*length > limits_.max_body_bytes) {
    Consume(end + 4);
    size_t have = std::min(*length, buffered());
    Consume(have);
    skip_ = *length - have;
    return Event{Kind::kTooLarge, "the message is " + std::to_string(*length) + " bytes, more than the limit of " +
                                      std::to_string(limits_.max_body_bytes)};
  }
  if (unread.size() - end - 4 < *length) return std::nullopt;
  std::string body(unread.substr(end + 4, *length));
  Consume(end + 4 + *length);
  return Event{Kind::kMessage, std::move(body)};
}

std::string Frame(std::string_view body) {
  std::string out = "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n";
  out.append(body);
  return out;
}

}  // namespace charter::cli::lsp
