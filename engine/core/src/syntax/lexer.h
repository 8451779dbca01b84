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
  // The token type of the text at `pos_` and where it ends (one past its
  // last code point); 0 for text the parser never sees (whitespace and
  // comments).
  size_t Match(size_t* end) const;

  CodePointStream* input_;
  const char32_t* points_;
  size_t count_;
  size_t pos_ = 0;
  size_t line_ = 1;
  size_t column_ = 0;
};

}  // namespace charter::internal

#endif  // CHARTER_SYNTAX_LEXER_H_
