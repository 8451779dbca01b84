// The shapes of what is typed at the REPL: identifiers, entity references,
// the words of a line, and whether an entry continues on the next line.
#ifndef CHARTER_CLI_REPL_WORDS_H_
#define CHARTER_CLI_REPL_WORDS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace charter::cli {

// The name inputs are reported under: positions are `<stdin>:LINE:COL`.
inline constexpr char kInputName[] = "<stdin>";

// One entry: its text (physical lines joined by '\n', a continuing `\`
// made a space, so that columns stay) and the input line it starts on.
struct Entry {
  std::string text;
  uint32_t line = 1;
};

bool IsIdentStart(char c);
bool IsIdentChar(char c);
bool IsIdentifier(std::string_view word);
// Whether `word` has the shape of an entity reference, `A::B::"id"`.
bool LooksLikeEntity(std::string_view word);
// Words that make a three-word line an expression, not a request.
bool IsOperatorWord(std::string_view w);
// `Action` or `NS::Action`: the type of an action.
bool IsActionType(std::string_view type);

// The words of a line and where they start; quotes may hold spaces.
struct Word {
  std::string text;
  size_t at;
};
std::vector<Word> Words(std::string_view line);

// Whether an entry is still open: an unclosed bracket or string (outside
// `//` comments), or an operator at its end. Brackets that close more than
// they open end it (an error to report, not a reason to wait).
bool IsOpen(std::string_view text);

// Without the blanks around it.
std::string Trim(std::string_view s);

// `s` as a JSON string literal, quotes included.
std::string JsonString(std::string_view s);

}  // namespace charter::cli

#endif  // CHARTER_CLI_REPL_WORDS_H_
