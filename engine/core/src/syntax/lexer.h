// The lexer of Charter.g4's token rules, written out by hand: the tokens
// ANTLR's generated lexer makes, with the same types, indices, lines and
// columns, at a fraction of its cost (its ATN simulation, DFA locks and
// casts were a third of a parse). Included by the syntax layer only.
//
// The generated lexer stays the definition: LexerDifference (parser.h)
// runs both over a text and names the first token where they differ; a unit
// test runs it over every policy file of the repository and a fuzz target
// over arbitrary text.
#ifndef CHARTER_SYNTAX_LEXER_H_
#define CHARTER_SYNTAX_LEXER_H_

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "CharterLexer.h"
#include "antlr4-runtime.h"

namespace charter::internal {

// ANTLR's input over a text, decoded here into exactly one 32-bit unit per
// scalar value (4 bytes for each byte of text at most). ANTLRInputStream's
// own decoding (std::wstring_convert) peaks at 20 bytes for each byte, which
// made whitespace and comments, which the token limits do not count, the
// most expensive text to parse. The text must be valid UTF-8 (CH0001 is
// checked first). ANTLR drops a leading byte order mark; here it is read as
// a space when `at_start`, so that code point indices stay those of the
// source.
class CodePointStream : public antlr4::ANTLRInputStream {
 public:
  CodePointStream(std::string_view text, bool at_start);

  const char32_t* points() const { return _data.data(); }
  size_t count() const { return _data.size(); }
};

// The literals the parser rules write in quotes, which ANTLR numbers
// T__0... in the order they first appear in Charter.g4.
constexpr size_t kLParen = grammar::CharterLexer::T__0;     // (
constexpr size_t kRParen = grammar::CharterLexer::T__1;     // )
constexpr size_t kSemicolon = grammar::CharterLexer::T__2;  // ;
constexpr size_t kAt = grammar::CharterLexer::T__3;         // @
constexpr size_t kComma = grammar::CharterLexer::T__4;      // ,
constexpr size_t kLBracket = grammar::CharterLexer::T__5;   // [
constexpr size_t kRBracket = grammar::CharterLexer::T__6;   // ]
constexpr size_t kLBrace = grammar::CharterLexer::T__7;     // {
constexpr size_t kRBrace = grammar::CharterLexer::T__8;     // }
constexpr size_t kDot = grammar::CharterLexer::T__9;        // .
constexpr size_t kColon = grammar::CharterLexer::T__10;     // :
constexpr size_t kColons = grammar::CharterLexer::T__11;    // ::
// What MatchToken answers for whitespace and comments.
constexpr size_t kWhitespace = 0;

// Charter.g4's token rules at unit AT of a text of COUNT units (AT < COUNT):
// the type of the token there (the generated lexer's numbers; kWhitespace
// for whitespace and comments, which the parser never sees), and in *END one
// past its last unit. Over code points, the generated lexer's tokens; over
// UTF-8 bytes, the same tokens with byte extents, except that a character
// outside every token (ERROR_CHAR) is one byte of it.
size_t MatchToken(const char32_t* points, size_t count, size_t at, size_t* end);
size_t MatchToken(const char* bytes, size_t count, size_t at, size_t* end);

// The token source the parser reads: Charter.g4's token rules (keywords,
// operators, identifiers, slots, integers, strings, the unterminated string
// and the stray character; comments and whitespace skipped), longest match
// first and, between matches of one length, the rule written first, as
// ANTLR's lexers choose. Tokens come from ANTLR's default token factory, as
// the generated lexer's do.
class CharterTokenSource : public antlr4::TokenSource {
 public:
  explicit CharterTokenSource(CodePointStream* input)
      : input_(input), points_(input->points()), count_(input->count()) {}

  std::unique_ptr<antlr4::Token> nextToken() override;
  size_t getLine() const override { return line_; }
  size_t getCharPositionInLine() override { return column_; }
  antlr4::CharStream* getInputStream() override { return input_; }
  std::string getSourceName() override { return input_->getSourceName(); }
  antlr4::TokenFactory<antlr4::CommonToken>* getTokenFactory() override {
    return antlr4::CommonTokenFactory::DEFAULT.get();
  }

 private:
  CodePointStream* input_;
  const char32_t* points_;
  size_t count_;
  size_t pos_ = 0;
  size_t line_ = 1;
  size_t column_ = 0;
};

}  // namespace charter::internal

#endif  // CHARTER_SYNTAX_LEXER_H_
