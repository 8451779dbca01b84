// The JSON parser: one left-to-right pass with an explicit stack of open
// containers. Finished values wait on a stack until their container closes;
// then they are copied as one contiguous block into the Document.

#include "json/json.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <charconv>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/base/attributes.h"
#include "absl/base/optimization.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/utf8.h"

namespace charter::internal::json {
namespace {

constexpr Value kNullValue{};

// Objects with more members than this check duplicates with a hash set.
constexpr size_t kLinearKeyCheck = 16;
constexpr size_t kFirstBlockMin = 256;
constexpr size_t kFirstBlockMax = size_t{64} << 10;
constexpr size_t kBlockMax = size_t{1} << 20;
constexpr uint64_t kInt64Bound = uint64_t{1} << 63;  // |INT64_MIN|

// This abseil build has its own string_view, which StrCat takes.
inline absl::string_view Absl(std::string_view s) {
  return absl::string_view(s.data(), s.size());
}

inline unsigned char Byte(const char* p) {
  return static_cast<unsigned char>(*p);
}
inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }
inline bool IsWordChar(char c) {
  return IsDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         c == '_';
}
inline bool IsWhitespace(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

// Length of the well-formed UTF-8 sequence (RFC 3629) starting at p, whose
// lead byte is at least 0x80; 0 when it is not well formed.
size_t Utf8SequenceLength(const char* p, const char* end) {
  const unsigned char c = Byte(p);
  const size_t avail = static_cast<size_t>(end - p);
  auto cont = [](unsigned char b) { return (b & 0xC0) == 0x80; };
  if (c < 0xC2) return 0;
  if (c < 0xE0) return avail >= 2 && cont(Byte(p + 1)) ? 2 : 0;
  if (c < 0xF0) {
    if (avail < 3 || !cont(Byte(p + 2))) return 0;
    const unsigned char lo = c == 0xE0 ? 0xA0 : 0x80;
    const unsigned char hi = c == 0xED ? 0x9F : 0xBF;
    return Byte(p + 1) >= lo && Byte(p + 1) <= hi ? 3 : 0;
  }
  if (c < 0xF5) {
    if (avail < 4 || !cont(Byte(p + 2)) || !cont(Byte(p + 3))) return 0;
    const unsigned char lo = c == 0xF0 ? 0x90 : 0x80;
    const unsigned char hi = c == 0xF4 ? 0x8F : 0xBF;
    return Byte(p + 1) >= lo && Byte(p + 1) <= hi ? 4 : 0;
  }
  return 0;
}

uint32_t DecodeUtf8(const char* p, size_t n) {
  static constexpr unsigned char kLeadMask[] = {0, 0x7F, 0x1F, 0x0F, 0x07};
  uint32_t cp = Byte(p) & kLeadMask[n];
  for (size_t i = 1; i < n; ++i) cp = (cp << 6) | (Byte(p + i) & 0x3F);
  return cp;
}

inline bool IsStringSpecial(unsigned char c) {
  return c == '"' || c == '\\' || c < 0x20 || c >= 0x80;
}

// Index of the first of the 8 bytes at p that IsStringSpecial, or 8. The bit
// tricks can flag bytes above a special one, never below, so the lowest flag
// is exact.
inline size_t FirstStringSpecial(const char* p) {
  constexpr uint64_t kOnes = 0x0101010101010101;
  constexpr uint64_t kHighs = 0x8080808080808080;
  uint64_t w;
  std::memcpy(&w, p, 8);
  if constexpr (std::endian::native == std::endian::big) w = __builtin_bswap64(w);
  auto has_zero = [](uint64_t x) { return (x - kOnes) & ~x & kHighs; };
  const uint64_t mask = has_zero(w ^ (kOnes * '"')) |
                        has_zero(w ^ (kOnes * '\\')) |
                        ((w - kOnes * 0x20) & ~w & kHighs) | (w & kHighs);
  return mask == 0 ? 8 : static_cast<size_t>(std::countr_zero(mask)) / 8;
}

bool ReadHex4(const char* p, const char* end, uint32_t* out) {
  if (end - p < 4) return false;
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) {
    const char c = p[i];
    uint32_t d;
    if (c >= '0' && c <= '9') {
      d = static_cast<uint32_t>(c - '0');
    } else if (c >= 'a' && c <= 'f') {
      d = static_cast<uint32_t>(c - 'a' + 10);
    } else if (c >= 'A' && c <= 'F') {
      d = static_cast<uint32_t>(c - 'A' + 10);
    } else {
      return false;
    }
    v = (v << 4) | d;
  }
  *out = v;
  return true;
}

// Escapes what AppendQuoted escapes, without quotes, cut at about 64 bytes.
std::string DisplayKey(std::string_view key) {
  constexpr size_t kMax = 64;
  size_t cut = key.size();
  if (cut > kMax) {
    cut = kMax;
    while (cut > 0 && (Byte(key.data() + cut) & 0xC0) == 0x80) --cut;
  }
  std::string quoted;
  AppendQuoted(&quoted, key.substr(0, cut));
  std::string shown = quoted.substr(1, quoted.size() - 2);
  if (cut < key.size()) shown += "...";
  return shown;
}

// The nearest double of a literal that std::from_chars found out of range:
// an infinity when its decimal magnitude is large, otherwise a zero.
double BeyondDoubleRange(std::string_view t) {
  const bool negative = !t.empty() && t[0] == '-';
  size_t i = negative ? 1 : 0;
  int64_t int_digits = 0;  // significant digits before the point
  int64_t frac_zeros = 0;  // zeros after the point before the first nonzero
  bool nonzero = false;
  for (; i < t.size() && IsDigit(t[i]); ++i) {
    if (nonzero || t[i] != '0') {
      nonzero = true;
      ++int_digits;
    }
  }
  if (i < t.size() && t[i] == '.') {
    for (++i; i < t.size() && IsDigit(t[i]); ++i) {
      if (nonzero) continue;
      if (t[i] == '0') {
        ++frac_zeros;
      } else {
        nonzero = true;
      }
    }
  }
  int64_t exponent = 0;
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    bool exp_negative = false;
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) exp_negative = t[i++] == '-';
    for (; i < t.size() && IsDigit(t[i]); ++i) {
      exponent = std::min<int64_t>(exponent * 10 + (t[i] - '0'), int64_t{1} << 40);
    }
    if (exp_negative) exponent = -exponent;
  }
  const int64_t magnitude = (int_digits > 0 ? int_digits : -frac_zeros) + exponent;
  const double v = nonzero && magnitude > 0
                       ? std::numeric_limits<double>::infinity()
                       : 0.0;
  return negative ? -v : v;
}

}  // namespace

int64_t Value::as_int64() const {
  assert(fits_int64());
  if (!fits_int64()) return 0;
  // INVARIANT: the literal is an optional `-` and digits within int64.
  const bool negative = text_[0] == '-';
  uint64_t magnitude = 0;
  for (uint32_t i = negative ? 1 : 0; i < size_; ++i) {
    magnitude = magnitude * 10 + static_cast<uint64_t>(text_[i] - '0');
  }
  return static_cast<int64_t>(negative ? 0 - magnitude : magnitude);
}

double Value::as_double() const {
  assert(is_number());
  if (kind_ != Kind::kNumber) return 0;
  // -0 is left to from_chars, which keeps its sign.
  if (fits_int64() && !(size_ == 2 && text_[0] == '-' && text_[1] == '0')) {
    return static_cast<double>(as_int64());
  }
  double d = 0;
  const auto [ptr, ec] = std::from_chars(text_, text_ + size_, d);
  if (ec == std::errc::result_out_of_range) return BeyondDoubleRange(number_text());
  return d;
}

std::string_view Value::number_text() const {
  assert(is_number());
  return kind_ == Kind::kNumber ? std::string_view(text_, size_)
                                : std::string_view();
}

std::string_view Value::as_string() const {
  assert(is_string());
  return kind_ == Kind::kString ? std::string_view(text_, size_)
                                : std::string_view();
}

size_t Value::size() const {
  return kind_ == Kind::kArray || kind_ == Kind::kObject ? size_ : 0;
}

const Value& Value::at(size_t i) const {
  assert(is_array() && i < size_);
  return kind_ == Kind::kArray && i < size_ ? values_[i] : kNullValue;
}

std::string_view Value::key(size_t i) const {
  assert(is_object() && i < size_);
  if (kind_ != Kind::kObject || i >= size_) return {};
  return std::string_view(keys()[i].data, keys()[i].size);
}

uint32_t Value::key_offset(size_t i) const {
  assert(is_object() && i < size_);
  return kind_ == Kind::kObject && i < size_ ? keys()[i].offset : 0;
}

const Value& Value::member(size_t i) const {
  assert(is_object() && i < size_);
  return kind_ == Kind::kObject && i < size_ ? values_[i] : kNullValue;
}

const Value* Value::Find(std::string_view key) const {
  if (kind_ != Kind::kObject) return nullptr;
  const Key* keys = this->keys();
  for (size_t i = size_; i-- > 0;) {
    if (keys[i].size == key.size() &&
        (key.empty() || std::memcmp(keys[i].data, key.data(), key.size()) == 0)) {
      return &values_[i];
    }
  }
  return nullptr;
}

Document::Document(Document&& other) noexcept
    : blocks_(std::move(other.blocks_)), root_(other.root_) {
  other.blocks_.clear();
  other.root_ = Value();
}

Document& Document::operator=(Document&& other) noexcept {
  if (this != &other) {
    blocks_ = std::move(other.blocks_);
    root_ = other.root_;
    other.blocks_.clear();
    other.root_ = Value();
  }
  return *this;
}

class Parser {
 public:
  Parser(std::string_view text, const ParseOptions& options)
      : begin_(text.data()),
        p_(text.data()),
        end_(text.data() + text.size()),
        max_depth_(static_cast<size_t>(std::max(options.max_depth, 0))),
        allow_duplicate_keys_(options.allow_duplicate_keys),
        next_block_size_(
            std::clamp(text.size(), kFirstBlockMin, kFirstBlockMax)) {
    values_.reserve(16);
  }

  // Where a failing Run() also reports its fault.
  void set_fault(ParseFault* fault) { fault_ = fault; }

  absl::StatusOr<Document> Run() {
    if (!ParseDocument()) return std::move(error_);
    // INVARIANT: a successful parse leaves exactly the root on the stack.
    assert(values_.size() == 1 && frames_.empty());
    doc_.root_ = values_.back();
    return std::move(doc_);
  }

 private:
  struct Frame {
    Kind kind;
    bool keys_indexed;  // key_sets_[depth] holds this object's keys
    uint32_t offset;
    size_t values_start;
    size_t keys_start;
  };

  uint32_t Offset(const char* p) const {
    return static_cast<uint32_t>(p - begin_);
  }

  void SkipWhitespace() {
    while (p_ != end_ && IsWhitespace(*p_)) ++p_;
  }

  // Storage that lives as long as the Document, aligned to `align` (a power of
  // two no larger than the new[] alignment).
  void* Allocate(size_t bytes, size_t align) {
    const size_t pad =
        (align - reinterpret_cast<uintptr_t>(block_ptr_) % align) % align;
    if (ABSL_PREDICT_FALSE(pad + bytes > block_left_)) return AllocateSlow(bytes);
    char* out = block_ptr_ + pad;
    block_ptr_ = out + bytes;
    block_left_ -= pad + bytes;
    return out;
  }

  // Starts a new block, or gives a large request a block of its own. New
  // blocks are aligned for any T.
  ABSL_ATTRIBUTE_NOINLINE void* AllocateSlow(size_t bytes) {
    if (bytes >= next_block_size_ / 2) {
      doc_.blocks_.emplace_back(new char[bytes]);
      return doc_.blocks_.back().get();
    }
    doc_.blocks_.emplace_back(new char[next_block_size_]);
    char* out = doc_.blocks_.back().get();
    block_ptr_ = out + bytes;
    block_left_ = next_block_size_ - bytes;
    next_block_size_ = std::min(next_block_size_ * 2, kBlockMax);
    return out;
  }

  const char* CopyToBlock(const char* first, size_t n) {
    char* out = static_cast<char*>(Allocate(n, 1));
    std::memcpy(out, first, n);
    return out;
  }

  ABSL_ATTRIBUTE_NOINLINE bool Fail(const char* at, std::string_view message) {
    if (fault_ != nullptr) {
      fault_->offset = Offset(at);
      fault_->message = std::string(message);
    }
    error_ = absl::InvalidArgumentError(absl::StrCat(
        LineCol(std::string_view(begin_, static_cast<size_t>(end_ - begin_)),
                Offset(at)),
        ": ", Absl(message)));
    return false;
  }

  // Fails at p_ with `expected`, naming what was found only when it is
  // invisible or not ASCII; or with a more specific message when the input
  // there is wrong in itself.
  ABSL_ATTRIBUTE_NOINLINE bool Unexpected(std::string_view expected) {
    if (p_ == end_) return Fail(p_, "unexpected end of input");
    const unsigned char c = Byte(p_);
    if (c == '/' && end_ - p_ >= 2 && (p_[1] == '/' || p_[1] == '*')) {
      return Fail(p_, "comments are not allowed");
    }
    if (c >= 0x80) {
      const size_t n = Utf8SequenceLength(p_, end_);
      if (n == 0) return Fail(p_, absl::StrFormat("invalid UTF-8 byte 0x%02x", c));
      const uint32_t cp = DecodeUtf8(p_, n);
      if (cp == 0xFEFF && p_ == begin_) {
        return Fail(p_, "a byte-order mark is not allowed");
      }
      return Fail(p_, absl::StrFormat("%s, found U+%04X", Absl(expected), cp));
    }
    if (c < 0x20 || c == 0x7F) {
      return Fail(p_, absl::StrFormat("%s, found U+%04X", Absl(expected), c));
    }
    return Fail(p_, expected);
  }

  bool InvalidUtf8(const char* at) {
    return Fail(at, absl::StrFormat("invalid UTF-8 byte 0x%02x", Byte(at)));
  }

  bool ControlCharacter(const char* at) {
    return Fail(at, absl::StrFormat(
                        "control character U+%04X must be escaped in a string",
                        Byte(at)));
  }

  bool InvalidEscape(const char* backslash) {
    const char* c = backslash + 1;
    const unsigned char b = Byte(c);
    if (b >= 0x80) {
      const size_t n = Utf8SequenceLength(c, end_);
      if (n == 0) return InvalidUtf8(c);
      return Fail(backslash,
                  absl::StrCat("invalid escape `\\", absl::string_view(c, n),
                               "` in a string"));
    }
    if (b < 0x20 || b == 0x7F) {
      return Fail(backslash,
                  absl::StrFormat("invalid escape: `\\` followed by U+%04X", b));
    }
    return Fail(backslash, absl::StrCat("invalid escape `\\",
                                        absl::string_view(c, 1), "` in a string"));
  }

  bool Open(Kind kind) {
    if (ABSL_PREDICT_FALSE(frames_.size() >= max_depth_)) {
      return Fail(p_, absl::StrCat("nesting deeper than ", max_depth_));
    }
    frames_.push_back(Frame{kind, false, Offset(p_), values_.size(), keys_.size()});
    ++p_;
    return true;
  }

  void Close() {
    const Frame frame = frames_.back();
    frames_.pop_back();
    const size_t n = values_.size() - frame.values_start;
    Value v;
    v.kind_ = frame.kind;
    v.offset_ = frame.offset;
    v.size_ = static_cast<uint32_t>(n);
    if (n > 0) {
      const bool object = frame.kind == Kind::kObject;
      static_assert(sizeof(Value) % alignof(Value::Key) == 0);
      void* block = Allocate(n * (sizeof(Value) + (object ? sizeof(Value::Key) : 0)),
                             alignof(Value));
      Value* values_end = std::uninitialized_copy_n(
          values_.data() + frame.values_start, n, static_cast<Value*>(block));
      if (object) {
        std::uninitialized_copy_n(keys_.data() + frame.keys_start, n,
                                  reinterpret_cast<Value::Key*>(values_end));
      }
      v.values_ = static_cast<Value*>(block);
    }
    if (frame.kind == Kind::kObject) keys_.resize(frame.keys_start);
    values_.resize(frame.values_start);
    values_.push_back(v);
  }

  // Reads the string whose opening quote is at p_ into *out and moves p_ past
  // its closing quote.
  bool ParseString(std::string_view* out) {
    const char* open = p_;
    const char* q = p_ + 1;
    for (;;) {
      if (end_ - q >= 8) {
        const size_t skip = FirstStringSpecial(q);
        q += skip;
        if (skip == 8) continue;
      } else {
        while (q != end_ && !IsStringSpecial(Byte(q))) ++q;
        if (q == end_) return Fail(open, "unterminated string");
      }
      const unsigned char c = Byte(q);
      if (c == '"') {
        *out = std::string_view(open + 1, static_cast<size_t>(q - open - 1));
        p_ = q + 1;
        return true;
      }
      if (c == '\\') break;
      if (c < 0x20) return ControlCharacter(q);
      const size_t n = Utf8SequenceLength(q, end_);
      if (n == 0) return InvalidUtf8(q);
      q += n;
    }
    return ParseEscapedString(open, q, out);
  }

  // ParseString's slow path from the first backslash at q: decodes into
  // scratch_ and copies the result into the Document.
  bool ParseEscapedString(const char* open, const char* q, std::string_view* out) {
    scratch_.assign(open + 1, q);
    for (;;) {
      const char* run = q;
      while (end_ - q >= 8) {
        const size_t skip = FirstStringSpecial(q);
        q += skip;
        if (skip < 8) break;
      }
      while (q != end_ && !IsStringSpecial(Byte(q))) ++q;
      scratch_.append(run, q);
      if (q == end_) return Fail(open, "unterminated string");
      const unsigned char c = Byte(q);
      if (c == '"') break;
      if (c < 0x20) return ControlCharacter(q);
      if (c >= 0x80) {
        const size_t n = Utf8SequenceLength(q, end_);
        if (n == 0) return InvalidUtf8(q);
        scratch_.append(q, n);
        q += n;
        continue;
      }
      const char* backslash = q;
      if (end_ - q < 2) return Fail(open, "unterminated string");
      q += 2;
      switch (backslash[1]) {
        case '"': scratch_.push_back('"'); break;
        case '\\': scratch_.push_back('\\'); break;
        case '/': scratch_.push_back('/'); break;
        case 'b': scratch_.push_back('\b'); break;
        case 'f': scratch_.push_back('\f'); break;
        case 'n': scratch_.push_back('\n'); break;
        case 'r': scratch_.push_back('\r'); break;
        case 't': scratch_.push_back('\t'); break;
        case 'u': {
          uint32_t cp;
          if (!ReadHex4(q, end_, &cp)) {
            return Fail(backslash, "expected 4 hex digits after `\\u`");
          }
          q += 4;
          if (cp >= 0xD800 && cp <= 0xDFFF) {
            uint32_t low;
            if (cp > 0xDBFF || end_ - q < 6 || q[0] != '\\' || q[1] != 'u' ||
                !ReadHex4(q + 2, end_, &low) || low < 0xDC00 || low > 0xDFFF) {
              return Fail(backslash,
                          absl::StrCat("unpaired UTF-16 surrogate `",
                                       absl::string_view(backslash, 6),
                                       "` in a string"));
            }
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
            q += 6;
          }
          AppendUtf8(&scratch_, cp);
          break;
        }
        default:
          return InvalidEscape(backslash);
      }
    }
    p_ = q + 1;
    *out = std::string_view(CopyToBlock(scratch_.data(), scratch_.size()),
                            scratch_.size());
    return true;
  }

  bool ParseStringValue() {
    Value v;
    v.kind_ = Kind::kString;
    v.offset_ = Offset(p_);
    std::string_view s;
    if (!ParseString(&s)) return false;
    v.text_ = s.data();
    v.size_ = static_cast<uint32_t>(s.size());
    values_.push_back(v);
    return true;
  }

  bool ParseKey() {
    const char* quote = p_;
    std::string_view key;
    if (!ParseString(&key)) return false;
    if (!allow_duplicate_keys_ && !CheckNewKey(key)) {
      return Fail(quote, absl::StrCat("duplicate key `", DisplayKey(key), "`"));
    }
    keys_.push_back(Value::Key{key.data(), static_cast<uint32_t>(key.size()),
                               Offset(quote)});
    return true;
  }

  // False when the innermost object already has `key`.
  bool CheckNewKey(std::string_view key) {
    Frame& frame = frames_.back();
    const size_t count = keys_.size() - frame.keys_start;
    if (count < kLinearKeyCheck) {
      for (size_t i = frame.keys_start; i < keys_.size(); ++i) {
        if (keys_[i].size == key.size() &&
            std::memcmp(keys_[i].data, key.data(), key.size()) == 0) {
          return false;
        }
      }
      return true;
    }
    const size_t depth = frames_.size() - 1;
    if (key_sets_.size() <= depth) key_sets_.resize(depth + 1);
    absl::flat_hash_set<std::string_view>& set = key_sets_[depth];
    if (!frame.keys_indexed) {
      set.clear();
      for (size_t i = frame.keys_start; i < keys_.size(); ++i) {
        set.insert(std::string_view(keys_[i].data, keys_[i].size));
      }
      frame.keys_indexed = true;
    }
    return set.insert(key).second;
  }

  bool ParseNumber() {
    const char* start = p_;
    const bool negative = *p_ == '-';
    if (negative) ++p_;
    if (p_ == end_ || !IsDigit(*p_)) return Unexpected("expected a digit after `-`");
    uint64_t magnitude = 0;
    bool overflow = false;
    if (*p_ == '0') {
      ++p_;
      if (p_ != end_ && IsDigit(*p_)) {
        return Fail(p_ - 1, "leading zeros are not allowed in a number");
      }
    } else {
      do {
        const unsigned d = static_cast<unsigned>(*p_ - '0');
        if (!overflow) {
          if (magnitude > (kInt64Bound - d) / 10) {
            overflow = true;
          } else {
            magnitude = magnitude * 10 + d;
          }
        }
        ++p_;
      } while (p_ != end_ && IsDigit(*p_));
    }
    bool integer = true;
    if (p_ != end_ && *p_ == '.') {
      integer = false;
      ++p_;
      if (p_ == end_ || !IsDigit(*p_)) return Unexpected("expected a digit after `.`");
      while (p_ != end_ && IsDigit(*p_)) ++p_;
    }
    if (p_ != end_ && (*p_ == 'e' || *p_ == 'E')) {
      integer = false;
      ++p_;
      if (p_ != end_ && (*p_ == '+' || *p_ == '-')) ++p_;
      if (p_ == end_ || !IsDigit(*p_)) {
        return Unexpected("expected a digit in the exponent");
      }
      while (p_ != end_ && IsDigit(*p_)) ++p_;
    }
    Value v;
    v.kind_ = Kind::kNumber;
    v.offset_ = Offset(start);
    v.text_ = start;
    v.size_ = static_cast<uint32_t>(p_ - start);
    if (integer) {
      v.flags_ = Value::kIntegerLiteral;
      if (!overflow && (negative ? magnitude <= kInt64Bound : magnitude < kInt64Bound)) {
        v.flags_ |= Value::kFitsInt64;
      }
    }
    values_.push_back(v);
    return true;
  }

  bool ParseWord() {
    const char* start = p_;
    const char* q = p_;
    while (q != end_ && IsWordChar(*q)) ++q;
    const std::string_view word(start, static_cast<size_t>(q - start));
    Value v;
    v.offset_ = Offset(start);
    if (word == "null") {
      v.kind_ = Kind::kNull;
    } else if (word == "true" || word == "false") {
      v.kind_ = Kind::kBool;
      if (word[0] == 't') v.flags_ = Value::kTrue;
    } else {
      return Unexpected("expected a value");
    }
    p_ = q;
    values_.push_back(v);
    return true;
  }

  bool ParseDocument() {
    SkipWhitespace();
  value:
    if (p_ == end_) return Unexpected("expected a value");
    switch (*p_) {
      case '[':
        if (!Open(Kind::kArray)) return false;
        SkipWhitespace();
        if (p_ != end_ && *p_ == ']') {
          ++p_;
          Close();
          goto after_value;
        }
        goto value;
      case '{':
        if (!Open(Kind::kObject)) return false;
        SkipWhitespace();
        if (p_ != end_ && *p_ == '}') {
          ++p_;
          Close();
          goto after_value;
        }
        goto key;
      case '"':
        if (!ParseStringValue()) return false;
        break;
      case '-': case '0': case '1': case '2': case '3': case '4':
      case '5': case '6': case '7': case '8': case '9':
        if (!ParseNumber()) return false;
        break;
      case 'n': case 't': case 'f':
        if (!ParseWord()) return false;
        break;
      default:
        return Unexpected("expected a value");
    }
  after_value:
    SkipWhitespace();
    if (frames_.empty()) {
      if (p_ != end_) return Unexpected("expected end of input after the value");
      return true;
    }
    if (frames_.back().kind == Kind::kArray) {
      if (p_ != end_ && *p_ == ',') {
        const char* comma = p_++;
        SkipWhitespace();
        if (p_ != end_ && *p_ == ']') return Fail(comma, "trailing comma before `]`");
        goto value;
      }
      if (p_ != end_ && *p_ == ']') {
        ++p_;
        Close();
        goto after_value;
      }
      return Unexpected("expected `,` or `]` after an array element");
    }
    if (p_ != end_ && *p_ == ',') {
      const char* comma = p_++;
      SkipWhitespace();
      if (p_ != end_ && *p_ == '}') return Fail(comma, "trailing comma before `}`");
      goto key;
    }
    if (p_ != end_ && *p_ == '}') {
      ++p_;
      Close();
      goto after_value;
    }
    return Unexpected("expected `,` or `}` after an object member");
  key:
    if (p_ == end_ || *p_ != '"') return Unexpected("expected a string key");
    if (!ParseKey()) return false;
    SkipWhitespace();
    if (p_ == end_ || *p_ != ':') return Unexpected("expected `:` after an object key");
    ++p_;
    SkipWhitespace();
    goto value;
  }

  const char* const begin_;
  const char* p_;
  const char* const end_;
  const size_t max_depth_;
  const bool allow_duplicate_keys_;

  Document doc_;
  char* block_ptr_ = nullptr;
  size_t block_left_ = 0;
  size_t next_block_size_;

  std::vector<Value> values_;      // finished values not yet in a container
  std::vector<Value::Key> keys_;   // keys of the open objects' members
  std::vector<Frame> frames_;      // open containers, outermost first
  std::vector<absl::flat_hash_set<std::string_view>> key_sets_;  // by depth
  std::string scratch_;
  absl::Status error_;
  ParseFault* fault_ = nullptr;
};

absl::StatusOr<Document> Parse(std::string_view text,
                               const ParseOptions& options) {
  const size_t limit = std::min<size_t>(options.max_bytes,
                                        std::numeric_limits<uint32_t>::max());
  if (text.size() > limit) {
    return absl::InvalidArgumentError(absl::StrCat(
        "1:1: input of ", text.size(), " bytes exceeds the limit of ", limit,
        " bytes"));
  }
  Parser parser(text, options);
  return parser.Run();
}

absl::StatusOr<Document> Parse(std::string_view text, const ParseOptions& options,
                               ParseFault* fault) {
  const size_t limit = std::min<size_t>(options.max_bytes,
                                        std::numeric_limits<uint32_t>::max());
  if (text.size() > limit) {
    *fault = ParseFault{0, absl::StrCat("input of ", text.size(), " bytes exceeds the limit of ",
                                        limit, " bytes")};
    return absl::InvalidArgumentError(absl::StrCat("1:1: ", fault->message));
  }
  Parser parser(text, options);
  parser.set_fault(fault);
  return parser.Run();
}

bool StartsWithObject(std::string_view text) {
  size_t first = text.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos && text[first] == '{';
}

std::string LineCol(std::string_view text, uint32_t offset) {
  const std::string_view before = text.substr(0, std::min<size_t>(offset, text.size()));
  const size_t line = 1 + static_cast<size_t>(std::count(before.begin(), before.end(), '\n'));
  const size_t last_newline = before.rfind('\n');
  const std::string_view tail =
      last_newline == std::string_view::npos ? before : before.substr(last_newline + 1);
  const size_t column =
      1 + static_cast<size_t>(std::count_if(tail.begin(), tail.end(), [](char c) {
        return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
      }));
  return absl::StrCat(line, ":", column);
}

void AppendQuoted(std::string* out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out->push_back('"');
  const char* p = s.data();
  const char* const end = p + s.size();
  const char* run = p;
  while (p != end) {
    const unsigned char c = Byte(p);
    if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
      ++p;
      continue;
    }
    size_t n = 0;
    if (c >= 0x80 && (n = Utf8SequenceLength(p, end)) != 0) {
      p += n;
      continue;
    }
    out->append(run, p);
    switch (c) {
      case '"': out->append("\\\""); break;
      case '\\': out->append("\\\\"); break;
      case '\b': out->append("\\b"); break;
      case '\f': out->append("\\f"); break;
      case '\n': out->append("\\n"); break;
      case '\r': out->append("\\r"); break;
      case '\t': out->append("\\t"); break;
      default:
        if (c < 0x20) {
          const char escape[] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xF]};
          out->append(escape, sizeof(escape));
        } else {
          out->append("\xEF\xBF\xBD");  // U+FFFD for a byte outside UTF-8
        }
    }
    run = ++p;
  }
  out->append(run, p);
  out->push_back('"');
}

}  // namespace charter::internal::json
