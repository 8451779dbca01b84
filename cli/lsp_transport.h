// The framing of the Language Server Protocol's base protocol: each
// message is a header block ("Content-Length: N\r\n", other headers, an
// empty line) and N bytes of JSON. MessageReader splits a stream of bytes
// into message bodies and refuses, without losing its place, a header it
// cannot read and a body larger than its limit.
#ifndef CHARTER_CLI_LSP_TRANSPORT_H_
#define CHARTER_CLI_LSP_TRANSPORT_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace charter::cli::lsp {

struct TransportLimits {
  size_t max_header_bytes = 8 << 10;
  size_t max_body_bytes = size_t{64} << 20;
};

class MessageReader {
 public:
  explicit MessageReader(TransportLimits limits = {}) : limits_(limits) {}

  enum class Kind {
    kMessage,    // `body` holds one message's bytes
    kBadHeader,  // a header block without a valid Content-Length (dropped)
    kTooLarge,   // a body over the limit (its bytes are dropped as they come)
  };
  struct Event {
    Kind kind;
    std::string body;  // kMessage: the body; otherwise what was wrong
  };

  // Adds bytes read from the stream.
  void Feed(std::string_view bytes);
  // The next message or refusal, or nullopt until more bytes are fed.
  std::optional<Event> Next();
  // Bytes held and not yet handed out (a partial message).
  size_t buffered() const { return buffer_.size() - at_; }

 private:
  void Consume(size_t n);
  TransportLimits limits_;
  std::string buffer_;
  size_t at_ = 0;    // where the unread bytes start in buffer_
  size_t skip_ = 0;  // bytes of a refused body still to drop
};

// One message framed for the stream: "Content-Length: N\r\n\r\n" and `body`.
std::string Frame(std::string_view body);

}  // namespace charter::cli::lsp

#endif  // CHARTER_CLI_LSP_TRANSPORT_H_
