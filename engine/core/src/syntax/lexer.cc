// Charter.g4's token rules by hand (lexer.h).
#include "syntax/lexer.h"

#include <string>
#include <type_traits>

#include "CharterLexer.h"
#include "common/strings.h"
#include "common/utf8.h"
#include "syntax/parser.h"

namespace charter::internal {
namespace {

using grammar::CharterLexer;

bool IsIdentStart(char32_t c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool IsIdentPart(char32_t c) { return IsIdentStart(c) || (c >= '0' && c <= '9'); }
bool IsDigit(char32_t c) { return c >= '0' && c <= '9'; }
bool IsSpace(char32_t c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f'; }

// Whether the units at P spell the ASCII word W (P holds w.size() units).
template <typename Char>
bool Spells(const Char* p, std::string_view w) {
  for (size_t i = 0; i < w.size(); ++i) {
    if (p[i] != static_cast<Char>(w[i])) return false;
  }
  return true;
}

// The keyword an identifier spells, or IDENT.
template <typename Char>
size_t KeywordOrIdent(const Char* p, size_t n) {
  switch (n) {
    case 2:
      if (Spells(p, "if")) return CharterLexer::IF;
      if (Spells(p, "in")) return CharterLexer::IN;
      if (Spells(p, "is")) return CharterLexer::IS;
      break;
    case 3:
      if (Spells(p, "has")) return CharterLexer::HAS;
      break;
    case 4:
      if (Spells(p, "when")) return CharterLexer::WHEN;
      if (Spells(p, "true")) return CharterLexer::TRUE;
      if (Spells(p, "then")) return CharterLexer::THEN;
      if (Spells(p, "else")) return CharterLexer::ELSE;
      if (Spells(p, "like")) return CharterLexer::LIKE;
      break;
    case 5:
      if (Spells(p, "false")) return CharterLexer::FALSE;
      break;
    case 6:
      if (Spells(p, "permit")) return CharterLexer::PERMIT;
      if (Spells(p, "forbid")) return CharterLexer::FORBID;
      if (Spells(p, "unless")) return CharterLexer::UNLESS;
      if (Spells(p, "action")) return CharterLexer::ACTION;
      break;
    case 7:
      if (Spells(p, "context")) return CharterLexer::CONTEXT;
      break;
    case 8:
      if (Spells(p, "resource")) return CharterLexer::RESOURCE;
      break;
    case 9:
      if (Spells(p, "principal")) return CharterLexer::PRINCIPAL;
      break;
    default:
      break;
  }
  return CharterLexer::IDENT;
}

}  // namespace

CodePointStream::CodePointStream(std::string_view text, bool at_start) {
  _data.clear();
  _data.reserve(CountScalars(text));
  size_t i = 0;
  if (at_start && text.substr(0, 3) == "\xEF\xBB\xBF") {
    _data.push_back(U' ');
    i = 3;
  }
  const size_t n = text.size();
  while (i < n) {
    const auto b = static_cast<unsigned char>(text[i]);
    char32_t c;
    size_t len;
    if (b < 0x80) {
      c = b, len = 1;
    } else if (b < 0xE0) {
      c = b & 0x1F, len = 2;
    } else if (b < 0xF0) {
      c = b & 0x0F, len = 3;
    } else {
      c = b & 0x07, len = 4;
    }
    for (size_t k = 1; k < len && i + k < n; ++k) c = (c << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
    _data.push_back(c);
    i += len;
  }
  p = 0;
}

namespace {

template <typename Char>
size_t Match(const Char* d, size_t n, size_t i, size_t* end) {
  const auto c = static_cast<char32_t>(static_cast<std::make_unsigned_t<Char>>(d[i]));
  // The next unit, or 0 at the end (no rule continues with NUL).
  auto next = [&](size_t at) -> char32_t {
    return at < n ? static_cast<char32_t>(static_cast<std::make_unsigned_t<Char>>(d[at])) : 0;
  };
  auto at = [&](size_t k) { return static_cast<char32_t>(static_cast<std::make_unsigned_t<Char>>(d[k])); };
  *end = i + 1;
  if (IsIdentStart(c)) {
    size_t j = i + 1;
    while (j < n && IsIdentPart(at(j))) ++j;
    *end = j;
    return KeywordOrIdent(d + i, j - i);
  }
  if (IsDigit(c)) {
    size_t j = i + 1;
    while (j < n && IsDigit(at(j))) ++j;
    *end = j;
    return CharterLexer::INT;
  }
  if (IsSpace(c)) {
    size_t j = i + 1;
    while (j < n && IsSpace(at(j))) ++j;
    *end = j;
    return kWhitespace;
  }
  switch (c) {
    case '"': {
      // STRING : '"' ( '\\' . | ~["\\] )* '"', else the longest
      // UNTERMINATED_STRING: a backslash with nothing after it ends it.
      size_t j = i + 1;
      while (j < n) {
        if (at(j) == '"') {
          *end = j + 1;
          return CharterLexer::STRING;
        }
        if (at(j) == '\\') {
          if (j + 1 >= n) break;
          j += 2;
        } else {
          ++j;
        }
      }
      *end = j;
      return CharterLexer::UNTERMINATED_STRING;
    }
    case '/':
      if (next(i + 1) == '/') {
        size_t j = i + 2;
        while (j < n && at(j) != '\r' && at(j) != '\n') ++j;
        *end = j;
        return kWhitespace;
      }
      return CharterLexer::SLASH;
    case '?':
      if (IsIdentStart(next(i + 1))) {
        size_t j = i + 2;
        while (j < n && IsIdentPart(at(j))) ++j;
        *end = j;
        return CharterLexer::SLOT;
      }
      return CharterLexer::ERROR_CHAR;
    case '(': return kLParen;
    case ')': return kRParen;
    case ';': return kSemicolon;
    case '@': return kAt;
    case ',': return kComma;
    case '[': return kLBracket;
    case ']': return kRBracket;
    case '{': return kLBrace;
    case '}': return kRBrace;
    case '.': return kDot;
    case ':':
      if (next(i + 1) == ':') {
        *end = i + 2;
        return kColons;
      }
      return kColon;
    case '=':
      if (next(i + 1) == '=') {
        *end = i + 2;
        return CharterLexer::EQ;
      }
      return CharterLexer::ERROR_CHAR;
    case '!':
      if (next(i + 1) == '=') {
        *end = i + 2;
        return CharterLexer::NE;
      }
      return CharterLexer::BANG;
    case '<':
      if (next(i + 1) == '=') {
        *end = i + 2;
        return CharterLexer::LE;
      }
      return CharterLexer::LT;
    case '>':
      if (next(i + 1) == '=') {
        *end = i + 2;
        return CharterLexer::GE;
      }
      return CharterLexer::GT;
    case '&':
      if (next(i + 1) == '&') {
        *end = i + 2;
        return CharterLexer::AND;
      }
      return CharterLexer::ERROR_CHAR;
    case '|':
      if (next(i + 1) == '|') {
        *end = i + 2;
        return CharterLexer::OR;
      }
      return CharterLexer::ERROR_CHAR;
    case '+': return CharterLexer::PLUS;
    case '-': return CharterLexer::MINUS;
    case '*': return CharterLexer::STAR;
    case '%': return CharterLexer::PERCENT;
    default: return CharterLexer::ERROR_CHAR;
  }
}

}  // namespace

size_t MatchToken(const char32_t* points, size_t count, size_t at, size_t* end) {
  return Match(points, count, at, end);
}

size_t MatchToken(const char* bytes, size_t count, size_t at, size_t* end) { return Match(bytes, count, at, end); }

std::unique_ptr<antlr4::Token> CharterTokenSource::nextToken() {
  for (;;) {
    const size_t start = pos_;
    const size_t line = line_;
    const size_t column = column_;
    if (pos_ >= count_) {
      // As the generated lexer's EOF: empty, just past the last code point.
      return antlr4::CommonTokenFactory::DEFAULT->create({this, input_}, antlr4::Token::EOF, std::string(),
                                                          antlr4::Token::DEFAULT_CHANNEL, pos_, pos_ - 1, line,
                                                          column);
    }
    size_t end;
    const size_t type = MatchToken(points_, count_, pos_, &end);
    for (size_t k = pos_; k < end; ++k) {
      if (points_[k] == '\n') {
        ++line_;
        column_ = 0;
      } else {
        ++column_;
      }
    }
    pos_ = end;
    if (type == kWhitespace) continue;
    return antlr4::CommonTokenFactory::DEFAULT->create({this, input_}, type, std::string(), antlr4::Token::DEFAULT_CHANNEL,
                                                        start, end - 1, line, column);
  }
}

namespace {

std::string Describe(const antlr4::Token& t) {
  return Cat("type ", static_cast<long long>(t.getType()), " [", t.getStartIndex(), "..",
             static_cast<long long>(t.getStopIndex()), "] at ", t.getLine(), ":", t.getCharPositionInLine(), " `",
             t.getText(), "`");
}

}  // namespace

std::string LexerDifference(std::string_view text) {
  try {
    CodePointStream generated_input(text, true);
    CharterLexer generated(&generated_input);
    generated.removeErrorListeners();
    CodePointStream input(text, true);
    CharterTokenSource ours(&input);
    for (size_t index = 0;; ++index) {
      std::unique_ptr<antlr4::Token> want = generated.nextToken();
      std::unique_ptr<antlr4::Token> got = ours.nextToken();
      const bool same = want->getType() == got->getType() && want->getStartIndex() == got->getStartIndex() &&
                        want->getStopIndex() == got->getStopIndex() && want->getLine() == got->getLine() &&
                        want->getCharPositionInLine() == got->getCharPositionInLine() &&
                        want->getChannel() == got->getChannel() && want->getText() == got->getText();
      if (!same) return Cat("token ", index, ": generated ", Describe(*want), ", ours ", Describe(*got));
      if (want->getType() == antlr4::Token::EOF) return "";
    }
  } catch (const std::exception& e) {
    return Cat("exception: ", e.what());
  } catch (...) {
    return "exception";
  }
}

}  // namespace charter::internal
