// The shapes of REPL input (repl_words.h).
#include "repl_words.h"

#include <cctype>

#include "charter/json.h"

namespace charter::cli {

bool IsIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_'; }
bool IsIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

bool LooksLikeEntity(std::string_view word) {
  size_t i = 0;
  for (;;) {
    if (i >= word.size() || !IsIdentStart(word[i])) return false;
    while (i < word.size() && IsIdentChar(word[i])) ++i;
    if (word.substr(i, 2) != "::") return false;
    i += 2;
    if (i < word.size() && word[i] == '"') break;
  }
  return word.size() >= i + 2 && word.back() == '"';
}

bool IsIdentifier(std::string_view word) {
  if (word.empty() || !IsIdentStart(word[0])) return false;
  for (char c : word) {
    if (!IsIdentChar(c)) return false;
  }
  return true;
}

bool IsOperatorWord(std::string_view w) { return w == "in" || w == "has" || w == "like" || w == "is"; }

bool IsActionType(std::string_view type) {
  return type == "Action" || (type.size() > 8 && type.substr(type.size() - 8) == "::Action");
}

std::vector<Word> Words(std::string_view line) {
  std::vector<Word> words;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    bool blank = c == ' ' || c == '\t' || c == '\n' || c == '\r';
    if (!quoted && blank) continue;
    if (words.empty() || (i > 0 && !quoted && (line[i - 1] == ' ' || line[i - 1] == '\t' ||
                                               line[i - 1] == '\n' || line[i - 1] == '\r'))) {
      words.push_back(Word{"", i});
    }
    if (quoted && c == '\\' && i + 1 < line.size()) {
      words.back().text.push_back(c);
      words.back().text.push_back(line[++i]);
      continue;
    }
    if (c == '"') quoted = !quoted;
    words.back().text.push_back(c);
  }
  return words;
}

bool IsOpen(std::string_view text) {
  size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && text[first] == '#') return false;  // a comment line
  int depth = 0;
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quoted) {
      if (c == '\\') ++i;
      else if (c == '"') quoted = false;
      else if (c == '\n') quoted = false;  // strings do not span lines
      continue;
    }
    if (c == '"') quoted = true;
    else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i < text.size() && text[i] != '\n') ++i;
    } else if (c == '(' || c == '[' || c == '{') ++depth;
    else if (c == ')' || c == ']' || c == '}') --depth;
  }
  if (depth > 0 || quoted) return true;
  // An operator at the end wants its right operand on the next line.
  size_t end = text.find_last_not_of(" \t\r\n");
  if (end == std::string_view::npos) return false;
  std::string_view tail = text.substr(0, end + 1);
  for (std::string_view op : {"&&", "||", "==", "!=", "<=", ">=", "<", ">", "+", "-", "*", "."}) {
    if (tail.size() >= op.size() && tail.substr(tail.size() - op.size()) == op) return true;
  }
  return false;
}

std::string Trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(b, e - b + 1));
}

std::string JsonString(std::string_view s) {
  std::string out;
  AppendJsonQuoted(&out, s);
  return out;
}

}  // namespace charter::cli
