// The fast reader of scheduling declarations (declarations.h). It follows
// Charter.g4's declaration rules one for one:
//
//   declEntry : declWord ( declWord ( ',' declWord )* )? declBody ;
//   declWord  : IDENT | STRING ;
//   declBody  : ':' declValue ( IDENT declValue )* ';' | '{' declEntry* '}' | ';' ;
//   declValue : quantity | STRING | TRUE | FALSE | entityRef | path
//             | '[' ( declValue ( ',' declValue )* ','? )? ']' ;
//   quantity  : MINUS? INT ( '.' INT )? IDENT? ;
//
// and builds what AstBuilder builds from their parse tree. The one choice
// that needs lookahead is whether a quantity takes the identifier after it
// (`64Gi`, or `8` then the modifier `borrow`): it does when the token after
// the identifier can only follow a quantity (`;`, `,`, `]`), it does not
// when that token can only start a value, and when it is another
// identifier (where ANTLR looks further ahead) the reader declines.
#include "syntax/declarations.h"

#include <string>
#include <utility>

#include "syntax/lexer.h"

namespace charter::internal {
namespace {

using grammar::CharterLexer;

struct Token {
  size_t type;
  uint32_t begin;  // bytes of the group
  uint32_t end;
};

bool IsIdentToken(size_t type) {
  switch (type) {
    case CharterLexer::IDENT:
    case CharterLexer::PERMIT:
    case CharterLexer::FORBID:
    case CharterLexer::WHEN:
    case CharterLexer::UNLESS:
    case CharterLexer::PRINCIPAL:
    case CharterLexer::ACTION:
    case CharterLexer::RESOURCE:
    case CharterLexer::CONTEXT:
      return true;
    default:
      return false;
  }
}

class Reader {
 public:
  Reader(std::string_view group, uint32_t base) : group_(group), base_(base) {}

  bool Run(std::vector<ast::DeclEntry>* out) {
    if (!Lex()) return false;
    std::vector<ast::DeclEntry> read;
    while (Peek() != antlr4::Token::EOF) {
      read.emplace_back();
      if (!Entry(&read.back())) return false;
    }
    for (ast::DeclEntry& e : read) out->push_back(std::move(e));
    return true;
  }

 private:
  // Every token of the group, ending with EOF; false at a token only the
  // full parser reports (a stray character, an unterminated string).
  bool Lex() {
    const size_t n = group_.size();
    tokens_.reserve(n / 4 + 1);
    size_t at = 0;
    while (at < n) {
      size_t end;
      const size_t type = MatchToken(group_.data(), n, at, &end);
      if (type == CharterLexer::ERROR_CHAR || type == CharterLexer::UNTERMINATED_STRING) return false;
      if (type != kWhitespace) tokens_.push_back({type, static_cast<uint32_t>(at), static_cast<uint32_t>(end)});
      at = end;
    }
    tokens_.push_back({static_cast<size_t>(antlr4::Token::EOF), static_cast<uint32_t>(n), static_cast<uint32_t>(n)});
    return true;
  }

  size_t Peek(size_t ahead = 0) const {
    const size_t k = next_ + ahead;
    return k < tokens_.size() ? tokens_[k].type : tokens_.back().type;
  }
  const Token& Take() { return tokens_[next_++]; }
  bool Expect(size_t type) {
    if (Peek() != type) return false;
    ++next_;
    return true;
  }

  std::string_view Text(const Token& t) const { return group_.substr(t.begin, t.end - t.begin); }
  Span SpanOf(uint32_t begin, uint32_t end) const { return {base_ + begin, base_ + end}; }

  // A string's contents: what Unescape gives for a string without escapes;
  // a string with a backslash is left to the full parser.
  bool StringText(const Token& t, std::string* out) const {
    std::string_view inner = Text(t).substr(1, t.end - t.begin - 2);
    if (inner.find('\\') != std::string_view::npos) return false;
    out->assign(inner);
    return true;
  }

  bool Word(ast::DeclEntry::Word* w) {
    const size_t type = Peek();
    if (type != CharterLexer::IDENT && type != CharterLexer::STRING) return false;
    const Token& t = Take();
    w->span = SpanOf(t.begin, t.end);
    if (type == CharterLexer::STRING) {
      w->quoted = true;
      return StringText(t, &w->text);
    }
    w->text.assign(Text(t));
    return true;
  }

  bool Entry(ast::DeclEntry* out) {
    const uint32_t begin = tokens_[next_].begin;
    if (!Word(&out->head)) return false;
    if (Peek() == CharterLexer::IDENT || Peek() == CharterLexer::STRING) {
      out->names.emplace_back();
      if (!Word(&out->names.back())) return false;
      while (Peek() == kComma) {
        ++next_;
        out->names.emplace_back();
        if (!Word(&out->names.back())) return false;
      }
    }
    switch (Peek()) {
      case kColon:
        ++next_;
        out->body = ast::DeclEntry::Body::kSetting;
        if (!Value(&out->value)) return false;
        while (Peek() == CharterLexer::IDENT) {
          const Token& word = Take();
          ast::DeclEntry::Modifier m;
          m.word.text.assign(Text(word));
          m.word.span = SpanOf(word.begin, word.end);
          if (!Value(&m.value)) return false;
          out->modifiers.push_back(std::move(m));
        }
        if (!Expect(kSemicolon)) return false;
        break;
      case kLBrace:
        ++next_;
        out->body = ast::DeclEntry::Body::kBlock;
        while (Peek() != kRBrace) {
          out->entries.emplace_back();
          if (!Entry(&out->entries.back())) return false;
        }
        ++next_;
        break;
      case kSemicolon:
        ++next_;
        out->body = ast::DeclEntry::Body::kBare;
        break;
      default:
        return false;
    }
    out->span = SpanOf(begin, tokens_[next_ - 1].end);
    return true;
  }

  bool Value(ast::DeclValue* out) {
    const Token& first = tokens_[next_];
    switch (first.type) {
      case CharterLexer::MINUS:
      case CharterLexer::INT:
        return Quantity(out);
      case CharterLexer::STRING:
        ++next_;
        out->kind = ast::DeclValue::Kind::kString;
        out->span = SpanOf(first.begin, first.end);
        return StringText(first, &out->text);
      case CharterLexer::TRUE:
      case CharterLexer::FALSE:
        ++next_;
        out->kind = ast::DeclValue::Kind::kBool;
        out->flag = first.type == CharterLexer::TRUE;
        out->span = SpanOf(first.begin, first.end);
        return true;
      case kLBracket:
        ++next_;
        out->kind = ast::DeclValue::Kind::kList;
        if (Peek() != kRBracket) {
          for (;;) {
            out->items.emplace_back();
            if (!Value(&out->items.back())) return false;
            if (Peek() != kComma) break;
            ++next_;
            if (Peek() == kRBracket) break;
          }
        }
        if (!Expect(kRBracket)) return false;
        out->span = SpanOf(first.begin, tokens_[next_ - 1].end);
        return true;
      default:
        break;
    }
    if (!IsIdentToken(first.type)) return false;
    // path : ident ( '::' ident )* ; entityRef : path '::' STRING ;
    std::string path;
    for (;;) {
      const Token& name = Take();
      std::string_view text = Text(name);
      if (text == "__cedar") return false;  // CH0127, reported by the full parser
      if (!path.empty()) path += "::";
      path.append(text);
      if (Peek() != kColons || !IsIdentToken(Peek(1))) break;
      ++next_;
    }
    if (Peek() == kColons && Peek(1) == CharterLexer::STRING) {
      ++next_;
      const Token& id = Take();
      out->kind = ast::DeclValue::Kind::kEntity;
      out->text = std::move(path);
      out->span = SpanOf(first.begin, id.end);
      return StringText(id, &out->id);
    }
    out->kind = ast::DeclValue::Kind::kWord;
    out->text = std::move(path);
    out->span = SpanOf(first.begin, tokens_[next_ - 1].end);
    return true;
  }

  // quantity : MINUS? INT ( '.' INT )? IDENT? ; its text is the source's,
  // spaces included, as AstBuilder takes it.
  bool Quantity(ast::DeclValue* out) {
    const uint32_t begin = tokens_[next_].begin;
    Expect(CharterLexer::MINUS);
    if (!Expect(CharterLexer::INT)) return false;
    if (Peek() == kDot) {
      if (Peek(1) != CharterLexer::INT) return false;
      next_ += 2;
    }
    if (Peek() == CharterLexer::IDENT) {
      switch (Peek(1)) {
        case kSemicolon:
        case kComma:
        case kRBracket:
          ++next_;  // only a quantity's suffix can stand before these
          break;
        case CharterLexer::IDENT:
          return false;  // ANTLR looks further ahead
        default:
          break;  // a modifier, and the value after it
      }
    }
    const uint32_t end = tokens_[next_ - 1].end;
    out->kind = ast::DeclValue::Kind::kNumber;
    out->span = SpanOf(begin, end);
    out->text.assign(group_.substr(begin, end - begin));
    return true;
  }

  std::string_view group_;
  uint32_t base_;
  std::vector<Token> tokens_;
  size_t next_ = 0;
};

}  // namespace

bool ReadDeclarationsFast(std::string_view group, uint32_t base, std::vector<ast::DeclEntry>* out) {
  return Reader(group, base).Run(out);
}

}  // namespace charter::internal
