// A tolerant scan of policy, declaration and schema text into an outline
// (lsp_outline.h). Every loop moves forward over a finite token list.
#include "lsp_outline.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <utility>

namespace charter::cli::lsp {
namespace {

enum class Tok : uint8_t { kIdent, kString, kPunct, kOther };

struct Token {
  Tok kind;
  size_t begin, end;
  std::string_view text;
};

bool IdentStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool IdentChar(char c) { return IdentStart(c) || (c >= '0' && c <= '9'); }

std::vector<Token> Tokenize(std::string_view text, std::vector<std::pair<size_t, size_t>>* comments = nullptr) {
  std::vector<Token> out;
  size_t i = 0;
  while (i < text.size()) {
    char c = text[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      ++i;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      size_t b = i;
      while (i < text.size() && text[i] != '\n') ++i;
      if (comments != nullptr) comments->emplace_back(b, i);
    } else if (IdentStart(c)) {
      size_t b = i;
      while (i < text.size() && IdentChar(text[i])) ++i;
      out.push_back({Tok::kIdent, b, i, text.substr(b, i - b)});
    } else if (c == '"') {
      size_t b = i++;
      while (i < text.size() && text[i] != '"' && text[i] != '\n') i += text[i] == '\\' && i + 1 < text.size() ? 2 : 1;
      if (i < text.size() && text[i] == '"') ++i;
      out.push_back({Tok::kString, b, i, text.substr(b, i - b)});
    } else if (c == ':' && i + 1 < text.size() && text[i + 1] == ':') {
      out.push_back({Tok::kPunct, i, i + 2, text.substr(i, 2)});
      i += 2;
    } else if (c == '(' || c == ')' || c == '[' || c == ']' || c == '{' || c == '}' || c == ';' || c == ',' ||
               c == ':' || c == '@' || c == '?' || c == '=' || c == '<' || c == '>') {
      out.push_back({Tok::kPunct, i, i + 1, text.substr(i, 1)});
      ++i;
    } else {
      size_t b = i++;
      while (i < text.size() && !IdentStart(text[i]) && text[i] != '"' && text[i] != ' ' && text[i] != '\n' &&
             text[i] != '\t' && text[i] != '\r' && std::string_view("()[]{};,:@?=<>/").find(text[i]) == std::string_view::npos) {
        ++i;
      }
      out.push_back({Tok::kOther, b, i, text.substr(b, i - b)});
    }
  }
  return out;
}

bool Is(const std::vector<Token>& t, size_t i, std::string_view text) { return i < t.size() && t[i].text == text; }
bool IsOpen(const Token& t) { return t.kind == Tok::kPunct && (t.text == "(" || t.text == "[" || t.text == "{"); }
bool IsClose(const Token& t) { return t.kind == Tok::kPunct && (t.text == ")" || t.text == "]" || t.text == "}"); }

// A string literal's contents with `\"` and `\\` unescaped (other escapes as written).
std::string Unquote(std::string_view s) {
  if (s.size() >= 1 && s.front() == '"') s.remove_prefix(1);
  if (!s.empty() && s.back() == '"') s.remove_suffix(1);
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size() && (s[i + 1] == '"' || s[i + 1] == '\\')) ++i;
    out.push_back(s[i]);
  }
  return out;
}

// The index after the bracket that closes the one at `i` (or the end).
size_t SkipBalanced(const std::vector<Token>& t, size_t i) {
  int depth = 0;
  for (; i < t.size(); ++i) {
    if (IsOpen(t[i])) ++depth;
    else if (IsClose(t[i]) && --depth <= 0) return i + 1;
  }
  return t.size();
}

// Annotations `@key` or `@key("value")` from `i`; returns the index after
// them, and the value of `@id` in *id when there is one.
size_t SkipAnnotations(const std::vector<Token>& t, size_t i, std::optional<std::string>* id) {
  while (Is(t, i, "@")) {
    ++i;
    bool is_id = i < t.size() && t[i].kind == Tok::kIdent && t[i].text == "id";
    if (i < t.size() && t[i].kind == Tok::kIdent) ++i;
    if (Is(t, i, "(")) {
      if (is_id && i + 2 < t.size() && t[i + 1].kind == Tok::kString && t[i + 2].text == ")" && id != nullptr) {
        *id = Unquote(t[i + 1].text);
      }
      i = SkipBalanced(t, i);
    }
  }
  return i;
}

// The `//` comment lines right above byte offset `at` (no blank line between).
void DocAbove(std::string_view text, size_t at, Symbol* s) {
  size_t line = text.rfind('\n', at == 0 ? 0 : at - 1);
  if (at == 0 || line == std::string_view::npos) return;
  // `at` must start its line (but for blanks).
  for (size_t k = line + 1; k < at; ++k) {
    if (text[k] != ' ' && text[k] != '\t') return;
  }
  size_t doc_end = line, doc_begin = line;
  while (doc_begin > 0) {
    size_t prev = text.rfind('\n', doc_begin - 1);
    size_t start = prev == std::string_view::npos ? 0 : prev + 1;
    std::string_view l = text.substr(start, doc_begin - start);
    size_t first = l.find_first_not_of(" \t\r");
    if (first == std::string_view::npos || l.substr(first, 2) != "//") break;
    doc_begin = start;
    if (prev == std::string_view::npos) break;
  }
  if (doc_begin < doc_end) {
    s->doc_begin = doc_begin;
    s->doc_end = doc_end;
  }
}

// The end of the statement from `i`: after the `;` at its depth, or after
// a `}` that closes a brace it opened when `brace_ends`; before a
// depth-0 token that starts the next statement (`permit`, `forbid`, `@`)
// when the `;` is missing.
size_t StatementEnd(const std::vector<Token>& t, size_t i, bool brace_ends, bool policy) {
  int depth = 0;
  for (; i < t.size(); ++i) {
    const Token& k = t[i];
    if (IsOpen(k)) {
      ++depth;
    } else if (IsClose(k)) {
      if (depth == 0) return i;  // closes an enclosing block
      if (--depth == 0 && brace_ends && k.text == "}" && !Is(t, i + 1, ";")) return i + 1;
    } else if (depth == 0 && k.text == ";") {
      return i + 1;
    } else if (depth == 0 && policy && i > 0 && (k.text == "@" || k.text == "permit" || k.text == "forbid")) {
      return i;
    }
  }
  return t.size();
}

}  // namespace

std::vector<Symbol> OutlinePolicies(std::string_view text) {
  std::vector<Token> t = Tokenize(text);
  std::vector<Symbol> out;
  size_t index = 0;
  size_t i = 0;
  while (i < t.size()) {
    size_t start = i;
    std::optional<std::string> id;
    i = SkipAnnotations(t, i, &id);
    if (i >= t.size()) break;
    Symbol s;
    s.begin = t[start].begin;
    if (t[i].kind == Tok::kIdent && (t[i].text == "permit" || t[i].text == "forbid")) {
      s.kind = SymbolKind::kFunction;
      s.detail = std::string(t[i].text);
      s.name_begin = t[i].begin;
      s.name_end = t[i].end;
      s.name = id.has_value() ? *id : "policy" + std::to_string(index);
      ++index;
      size_t end = StatementEnd(t, i + 1, false, true);
      s.end = end > i + 1 ? t[end - 1].end : t[i].end;
      i = std::max(end, i + 1);
    } else if (t[i].kind == Tok::kIdent && i == start) {
      s.kind = SymbolKind::kObject;
      s.detail = std::string(t[i].text);
      size_t n = i + 1;
      if (n < t.size() && (t[n].kind == Tok::kString || t[n].kind == Tok::kIdent)) {
        s.name = t[n].kind == Tok::kString ? Unquote(t[n].text) : std::string(t[n].text);
        s.name_begin = t[n].begin;
        s.name_end = t[n].end;
      } else {
        s.name = s.detail;
        s.name_begin = t[i].begin;
        s.name_end = t[i].end;
      }
      size_t end = StatementEnd(t, i + 1, true, false);
      s.end = end > i + 1 ? t[end - 1].end : t[i].end;
      i = std::max(end, i + 1);
    } else {
      i = std::max(i + 1, start + 1);
      continue;
    }
    DocAbove(text, s.begin, &s);
    out.push_back(std::move(s));
  }
  return out;
}

namespace {

// The attributes of the record whose `{` is at `open`.
std::vector<Symbol> RecordFields(std::string_view text, const std::vector<Token>& t, size_t open) {
  std::vector<Symbol> out;
  size_t close = SkipBalanced(t, open);  // after the `}`
  size_t i = open + 1;
  while (i + 1 < close) {
    size_t start = i;
    i = SkipAnnotations(t, i, nullptr);
    if (i + 1 >= close) break;
    const Token& name = t[i];
    size_t colon = i + 1;
    if (Is(t, colon, "?")) ++colon;
    if ((name.kind == Tok::kIdent || name.kind == Tok::kString) && Is(t, colon, ":")) {
      Symbol f;
      f.kind = SymbolKind::kField;
      f.name = name.kind == Tok::kString ? Unquote(name.text) : std::string(name.text);
      f.name_begin = name.begin;
      f.name_end = name.end;
      f.begin = t[start].begin;
      // The type: up to the `,` or `}` at this depth.
      size_t j = colon + 1;
      int depth = 0;
      for (; j + 1 < close; ++j) {
        if (IsOpen(t[j])) ++depth;
        else if (IsClose(t[j])) --depth;
        else if (depth == 0 && t[j].text == ",") break;
      }
      size_t last = j > colon + 1 ? j - 1 : colon;
      f.end = t[last].end;
      size_t type_begin = colon + 1 < j ? t[colon + 1].begin : f.end;
      f.detail = std::string(text.substr(type_begin, f.end - std::min(f.end, type_begin)));
      DocAbove(text, f.begin, &f);
      if (f.doc_end == f.doc_begin) {
        // Else a comment at the end of its line: `owner: User, // who answers`.
        size_t k = f.end;
        while (k < text.size() && (text[k] == ' ' || text[k] == '\t' || text[k] == ',')) ++k;
        if (text.substr(k, 2) == "//") {
          f.doc_begin = k;
          f.doc_end = std::min(text.find('\n', k), text.size());
        }
      }
      out.push_back(std::move(f));
      i = j + 1;
    } else {
      i = std::max(i + 1, start + 1);
      // Past a nested bracket, never into it.
      if (i - 1 < t.size() && IsOpen(t[i - 1])) i = SkipBalanced(t, i - 1);
    }
  }
  return out;
}

// The declarations from `i` to the `}` that closes the block (or the end).
std::vector<Symbol> SchemaDeclarations(std::string_view text, const std::vector<Token>& t, size_t* at,
                                       bool in_namespace) {
  std::vector<Symbol> out;
  size_t& i = *at;
  while (i < t.size()) {
    if (t[i].text == "}") {
      if (in_namespace) return out;
      ++i;
      continue;
    }
    size_t start = i;
    i = SkipAnnotations(t, i, nullptr);
    if (i >= t.size()) break;
    const Token& key = t[i];
    size_t begin = t[start].begin;
    if (key.kind == Tok::kIdent && key.text == "namespace" && !in_namespace) {
      Symbol ns;
      ns.kind = SymbolKind::kNamespace;
      ns.detail = "namespace";
      ns.begin = begin;
      size_t j = i + 1;
      ns.name_begin = j < t.size() ? t[j].begin : key.end;
      while (j < t.size() && (t[j].kind == Tok::kIdent || t[j].text == "::")) ns.name += t[j++].text;
      ns.name_end = j > i + 1 ? t[j - 1].end : key.end;
      if (Is(t, j, "{")) {
        i = j + 1;
        ns.children = SchemaDeclarations(text, t, &i, true);
        if (i < t.size()) ++i;  // the `}`
      } else {
        i = j;
      }
      ns.end = i > 0 ? t[i - 1].end : key.end;
      DocAbove(text, begin, &ns);
      out.push_back(std::move(ns));
      continue;
    }
    if (key.kind != Tok::kIdent || (key.text != "entity" && key.text != "action" && key.text != "type")) {
      i = std::max(StatementEnd(t, i, false, false), i + 1);
      continue;
    }
    // The names: `entity A, B ...`, `action "a", b ...`, `type T = ...`.
    std::vector<const Token*> names;
    size_t j = i + 1;
    while (j < t.size() && (t[j].kind == Tok::kIdent || t[j].kind == Tok::kString)) {
      names.push_back(&t[j++]);
      if (!Is(t, j, ",")) break;
      ++j;
    }
    size_t end = std::max(StatementEnd(t, i + 1, false, false), i + 1);
    std::vector<Symbol> fields;
    if (key.text == "entity") {
      // The shape: the first `{` at this depth, unless `enum` comes first.
      int depth = 0;
      for (size_t k = j; k < end; ++k) {
        if (depth == 0 && t[k].text == "enum") break;
        if (depth == 0 && t[k].text == "{") {
          fields = RecordFields(text, t, k);
          break;
        }
        if (IsOpen(t[k])) ++depth;
        else if (IsClose(t[k])) --depth;
      }
    }
    for (const Token* n : names) {
      Symbol s;
      s.kind = key.text == "entity" ? SymbolKind::kClass : key.text == "action" ? SymbolKind::kEvent : SymbolKind::kStruct;
      s.detail = std::string(key.text);
      s.name = n->kind == Tok::kString ? Unquote(n->text) : std::string(n->text);
      s.name_begin = n->begin;
      s.name_end = n->end;
      s.begin = begin;
      s.end = end > 0 && end <= t.size() ? t[end - 1].end : key.end;
      s.children = fields;
      DocAbove(text, begin, &s);
      out.push_back(std::move(s));
    }
    i = end;
  }
  return out;
}

}  // namespace

std::vector<Symbol> OutlineSchema(std::string_view text) {
  size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && text[first] == '{') return {};  // Cedar's JSON schema format
  std::vector<Token> t = Tokenize(text);
  size_t i = 0;
  return SchemaDeclarations(text, t, &i, false);
}

}  // namespace charter::cli::lsp

namespace charter::cli::lsp {

namespace {

// What token `k` refers to (ReferenceAt's answer for an offset in it).
// The path of identifiers joined by `::` that ends at token `last`.
std::string PathBack(const std::vector<Token>& t, size_t last) {
  std::string path(t[last].text);
  size_t i = last;
  while (i >= 2 && t[i - 1].text == "::" && t[i - 2].kind == Tok::kIdent) {
    path = std::string(t[i - 2].text) + "::" + path;
    i -= 2;
  }
  return path;
}

Reference ReferenceAtToken(const std::vector<Token>& t, size_t k) {
  Reference r;
  const Token& at = t[k];
  r.begin = at.begin;
  r.end = at.end;
  if (at.kind == Tok::kString) {
    if (k >= 2 && t[k - 1].text == "::" && t[k - 2].kind == Tok::kIdent) {
      r.kind = Reference::Kind::kEntity;
      r.type = PathBack(t, k - 2);
      r.id = Unquote(at.text);
    }
    return r;
  }
  if (at.kind != Tok::kIdent) return r;
  if (k >= 1 && (t[k - 1].text == "." || t[k - 1].text == "has")) {
    r.kind = Reference::Kind::kAttribute;
    r.id = std::string(at.text);
    if (t[k - 1].text == "." && k >= 2 && t[k - 2].kind == Tok::kIdent) r.base = std::string(t[k - 2].text);
    return r;
  }
  // A type: the whole path the identifier is part of, up to it and on
  // through the identifiers after it (not an entity's id).
  size_t last = k;
  while (last + 2 < t.size() && t[last + 1].text == "::" && t[last + 2].kind == Tok::kIdent) last += 2;
  r.kind = Reference::Kind::kType;
  r.type = PathBack(t, last);
  return r;
}

}  // namespace

Reference ReferenceAt(std::string_view text, size_t offset) {
  std::vector<Token> t = Tokenize(text);
  // The token holding the offset; at the end of an identifier, that one.
  size_t k = t.size();
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i].begin <= offset && offset < t[i].end) {
      k = i;
      break;
    }
    if (t[i].end == offset && (t[i].kind == Tok::kIdent || t[i].kind == Tok::kString)) k = i;
    if (t[i].begin > offset) break;
  }
  if (k == t.size()) return Reference{};
  return ReferenceAtToken(t, k);
}

}  // namespace charter::cli::lsp

namespace charter::cli::lsp {
namespace {

bool IsActionPath(std::string_view type) {
  return type == "Action" || (type.size() > 8 && type.substr(type.size() - 8) == "::Action");
}

const char* const kCedarWords[] = {"permit", "forbid", "when", "unless", "principal", "action", "resource", "context",
                                   "in", "has", "like", "is", "if", "then", "else", "true", "false"};
const char* const kSchemaWords[] = {"namespace", "entity", "action", "type", "in", "appliesTo", "principal",
                                    "resource", "context", "tags", "enum", "Set", "Long", "String", "Bool",
                                    "Boolean", "Record", "Entity", "Extension"};

template <size_t N>
bool OneOf(std::string_view word, const char* const (&words)[N]) {
  for (const char* w : words) {
    if (word == w) return true;
  }
  return false;
}

// Whether an identifier continues into a longer path (`Org` of `Org::User`).
bool PathGoesOn(const std::vector<Token>& t, size_t k) {
  return k + 2 < t.size() && t[k + 1].text == "::" && t[k + 2].kind == Tok::kIdent;
}
bool BeforeEntityId(const std::vector<Token>& t, size_t k) {
  return k + 2 < t.size() && t[k + 1].text == "::" && t[k + 2].kind == Tok::kString;
}

Occurrence Make(Occurrence::Kind kind, const Token& at, std::string name) {
  Occurrence o;
  o.kind = kind;
  o.name = std::move(name);
  o.begin = at.begin;
  o.end = at.end;
  o.quoted = at.kind == Tok::kString;
  return o;
}

std::string NameOf(const Token& at) { return at.kind == Tok::kString ? Unquote(at.text) : std::string(at.text); }
bool IsName(const Token& at) { return at.kind == Tok::kString || at.kind == Tok::kIdent; }

// The queues, cohorts and flavors of one `.charter` declaration whose
// tokens are [from, to).
void DeclarationOccurrences(const std::vector<Token>& t, size_t from, size_t to, std::vector<Occurrence>* out) {
  if (from >= to || t[from].kind != Tok::kIdent) return;
  std::string_view keyword = t[from].text;
  auto kind_of = [](std::string_view word) {
    return word == "queue" ? Occurrence::Kind::kQueue : word == "cohort" ? Occurrence::Kind::kCohort
                                                                         : Occurrence::Kind::kFlavor;
  };
  if ((keyword == "queue" || keyword == "cohort" || keyword == "flavor") && from + 1 < to && IsName(t[from + 1])) {
    Occurrence o = Make(kind_of(keyword), t[from + 1], NameOf(t[from + 1]));
    o.declaration = true;
    out->push_back(std::move(o));
  }
  if (keyword == "local_queue" && from + 3 < to && t[from + 2].text == ":" && IsName(t[from + 3])) {
    out->push_back(Make(Occurrence::Kind::kQueue, t[from + 3], NameOf(t[from + 3])));
  }
  for (size_t i = from + 2; i + 2 < to; ++i) {
    if (t[i].kind != Tok::kIdent) continue;
    if ((t[i].text == "cohort" || t[i].text == "parent") && t[i + 1].text == ":" && IsName(t[i + 2])) {
      out->push_back(Make(Occurrence::Kind::kCohort, t[i + 2], NameOf(t[i + 2])));
    } else if (t[i].text == "flavor" && IsName(t[i + 1]) && t[i + 2].text == "{") {
      out->push_back(Make(Occurrence::Kind::kFlavor, t[i + 1], NameOf(t[i + 1])));
    }
  }
}

}  // namespace

std::vector<Occurrence> PolicyOccurrences(std::string_view text, bool charter) {
  std::vector<Token> t = Tokenize(text);
  std::vector<Symbol> outline = OutlinePolicies(text);
  std::vector<Occurrence> out;
  // Templates: a policy with `?principal` or `?resource`, by its `@id`.
  size_t s_at = 0;  // the outline's symbols and the tokens go forward together
  std::vector<std::pair<size_t, size_t>> declarations;  // `.charter` declarations' token ranges
  for (const Symbol& s : outline) {
    while (s_at < t.size() && t[s_at].begin < s.begin) ++s_at;
    size_t first = s_at;
    size_t last = first;
    while (last < t.size() && t[last].begin < s.end) ++last;
    if (s.kind == SymbolKind::kObject) {
      declarations.emplace_back(first, last);
      if (charter) DeclarationOccurrences(t, first, last, &out);
      continue;
    }
    bool slot = false;
    for (size_t i = first; i + 1 < last; ++i) {
      if (t[i].text == "?" && (t[i + 1].text == "principal" || t[i + 1].text == "resource")) slot = true;
    }
    for (size_t i = first; slot && i + 3 < last && t[i].begin < s.name_begin; ++i) {
      if (t[i].text == "@" && t[i + 1].text == "id" && t[i + 2].text == "(" && t[i + 3].kind == Tok::kString) {
        Occurrence o = Make(Occurrence::Kind::kTemplate, t[i + 3], Unquote(t[i + 3].text));
        o.declaration = true;
        out.push_back(std::move(o));
        break;
      }
    }
  }
  size_t d = 0;
  for (size_t k = 0; k < t.size(); ++k) {
    while (d < declarations.size() && declarations[d].second <= k) ++d;
    bool in_declaration = d < declarations.size() && declarations[d].first <= k;
    const Token& at = t[k];
    if (at.kind == Tok::kString) {
      Reference r = ReferenceAtToken(t, k);
      if (r.kind == Reference::Kind::kEntity && IsActionPath(r.type)) {
        Occurrence o = Make(Occurrence::Kind::kAction, at, r.type);
        o.id = r.id;
        out.push_back(std::move(o));
      }
      continue;
    }
    if (at.kind != Tok::kIdent || PathGoesOn(t, k)) continue;
    if (k > 0 && (t[k - 1].text == "@" || t[k - 1].text == "?")) continue;
    Reference r = ReferenceAtToken(t, k);
    bool call = k + 1 < t.size() && t[k + 1].text == "(";
    if (r.kind == Reference::Kind::kAttribute) {
      if (call || in_declaration) continue;
      Occurrence o = Make(Occurrence::Kind::kAttribute, at, r.id);
      o.base = r.base;
      out.push_back(std::move(o));
    } else if (r.kind == Reference::Kind::kType) {
      bool single = r.type.find("::") == std::string::npos;
      if (BeforeEntityId(t, k)) {
        if (!IsActionPath(r.type)) out.push_back(Make(Occurrence::Kind::kType, at, r.type));
        continue;
      }
      if (in_declaration || call) continue;
      if (single && (OneOf(at.text, kCedarWords) || (k + 1 < t.size() && t[k + 1].text == ":"))) continue;
      out.push_back(Make(Occurrence::Kind::kType, at, r.type));
    }
  }
  std::sort(out.begin(), out.end(), [](const Occurrence& a, const Occurrence& b) { return a.begin < b.begin; });
  return out;
}

std::vector<Occurrence> SchemaOccurrences(std::string_view text) {
  std::vector<Symbol> outline = OutlineSchema(text);
  if (outline.empty()) return {};
  // The declarations by where their names are, with their namespaces.
  struct Declaration {
    const Symbol* symbol;
    std::string ns;
    std::vector<std::string> owners;
  };
  std::map<size_t, Declaration> declared_at;
  std::set<std::string> types;
  std::vector<std::pair<std::pair<size_t, size_t>, std::string>> namespaces;
  std::set<size_t> namespace_names;  // where the namespaces' names end
  auto visit = [&](const std::vector<Symbol>& symbols, const std::string& ns) {
    for (const Symbol& s : symbols) {
      std::string full = ns.empty() ? s.name : ns + "::" + s.name;
      if (s.kind == SymbolKind::kClass || s.kind == SymbolKind::kStruct) types.insert(full);
      if (s.kind == SymbolKind::kNamespace) continue;
      declared_at.emplace(s.name_begin, Declaration{&s, ns, {}});
      if (s.kind == SymbolKind::kClass) {
        for (const Symbol& f : s.children) {
          auto [it, fresh] = declared_at.emplace(f.name_begin, Declaration{&f, ns, {}});
          it->second.owners.push_back(full);
        }
      }
    }
  };
  visit(outline, "");
  for (const Symbol& ns : outline) {
    if (ns.kind == SymbolKind::kNamespace) {
      namespaces.push_back({{ns.begin, ns.end}, ns.name});
      namespace_names.insert(ns.name_end);
      visit(ns.children, ns.name);
    }
  }
  auto namespace_at = [&](size_t offset) -> std::string {
    for (const auto& [range, name] : namespaces) {
      if (range.first <= offset && offset < range.second) return name;
    }
    return "";
  };
  auto resolve = [&](const std::string& path, const std::string& ns) {
    if (path.find("::") != std::string::npos || ns.empty()) return path;
    std::string inside = ns + "::" + path;
    return types.count(inside) != 0 ? inside : path;
  };
  auto action_type = [](const std::string& path, const std::string& ns) {
    return path == "Action" && !ns.empty() ? ns + "::Action" : path;
  };

  std::vector<Token> t = Tokenize(text);
  std::vector<Occurrence> out;
  std::string_view statement;  // `entity`, `action`, `type` while in one
  bool member_of = false;      // after an action's `in`
  for (size_t k = 0; k < t.size(); ++k) {
    const Token& at = t[k];
    if (at.text == ";") {
      statement = {};
      member_of = false;
      continue;
    }
    if (auto it = declared_at.find(at.begin); it != declared_at.end() && IsName(at)) {
      const Declaration& d = it->second;
      const Symbol& s = *d.symbol;
      Occurrence o;
      if (s.kind == SymbolKind::kField) {
        o = Make(Occurrence::Kind::kAttribute, at, s.name);
        o.owners = d.owners;
      } else if (s.kind == SymbolKind::kEvent) {
        o = Make(Occurrence::Kind::kAction, at, d.ns.empty() ? "Action" : d.ns + "::Action");
        o.id = s.name;
        statement = "action";
      } else {
        o = Make(Occurrence::Kind::kType, at, d.ns.empty() ? s.name : d.ns + "::" + s.name);
        statement = s.kind == SymbolKind::kClass ? "entity" : "type";
      }
      o.declaration = true;
      out.push_back(std::move(o));
      continue;
    }
    if (at.kind == Tok::kIdent && (at.text == "entity" || at.text == "action" || at.text == "type") &&
        (k == 0 || t[k - 1].text == ";" || t[k - 1].text == "{" || t[k - 1].text == "}" || t[k - 1].text == ")")) {
      statement = at.text;
      member_of = false;
      continue;
    }
    if (statement == "action" && at.text == "in") {
      member_of = true;
      continue;
    }
    if (at.text == "appliesTo" || (at.text == "{" && statement == "action")) member_of = false;
    std::string ns = namespace_at(at.begin);
    if (at.kind == Tok::kString) {
      if (k >= 2 && t[k - 1].text == "::" && t[k - 2].kind == Tok::kIdent) {
        std::string path = PathBack(t, k - 2);
        if (IsActionPath(path)) {
          Occurrence o = Make(Occurrence::Kind::kAction, at, action_type(path, ns));
          o.id = Unquote(at.text);
          out.push_back(std::move(o));
        }
      } else if (statement == "action" && member_of) {
        Occurrence o = Make(Occurrence::Kind::kAction, at, ns.empty() ? "Action" : ns + "::Action");
        o.id = Unquote(at.text);
        out.push_back(std::move(o));
      }
      continue;
    }
    if (at.kind != Tok::kIdent || PathGoesOn(t, k)) continue;
    if (k > 0 && t[k - 1].text == "@") continue;
    if (namespace_names.count(at.end) != 0) continue;  // `Org` of `namespace Org`: no type
    std::string path = PathBack(t, k);
    bool single = path.find("::") == std::string::npos;
    if (BeforeEntityId(t, k)) {
      if (!IsActionPath(path)) out.push_back(Make(Occurrence::Kind::kType, at, resolve(path, ns)));
      continue;
    }
    if (k + 1 < t.size() && (t[k + 1].text == ":" || (t[k + 1].text == "?" && k + 2 < t.size() && t[k + 2].text == ":"))) {
      continue;  // a record's attribute
    }
    if (single && OneOf(at.text, kSchemaWords)) continue;
    if (statement == "action" && member_of && single) {
      Occurrence o = Make(Occurrence::Kind::kAction, at, ns.empty() ? "Action" : ns + "::Action");
      o.id = path;
      out.push_back(std::move(o));
      continue;
    }
    out.push_back(Make(Occurrence::Kind::kType, at, resolve(path, ns)));
  }
  return out;
}

std::vector<Occurrence> LinkOccurrences(std::string_view text) {
  std::vector<Token> t = Tokenize(text);
  std::vector<Occurrence> out;
  for (size_t k = 0; k + 2 < t.size(); ++k) {
    if (t[k].kind == Tok::kString && t[k].text == "\"template_id\"" && t[k + 1].text == ":" &&
        t[k + 2].kind == Tok::kString) {
      out.push_back(Make(Occurrence::Kind::kTemplate, t[k + 2], Unquote(t[k + 2].text)));
    }
  }
  return out;
}

}  // namespace charter::cli::lsp

namespace charter::cli::lsp {

std::vector<SemanticToken> SemanticTokens(std::string_view text, SemanticLanguage language) {
  std::vector<std::pair<size_t, size_t>> comments;
  std::vector<Token> t = Tokenize(text, &comments);
  std::map<size_t, SemanticToken> by_begin;
  auto mark = [&](size_t begin, size_t end, SemanticType type, bool declaration = false) {
    if (end <= begin) return;
    by_begin[begin] = SemanticToken{begin, end, type, declaration};
  };
  for (const auto& [b, e] : comments) {
    size_t end = e;
    while (end > b && (text[end - 1] == '\r')) --end;
    mark(b, end, SemanticType::kComment);
  }
  bool schema = language == SemanticLanguage::kSchema;
  if (schema) {
    size_t first = text.find_first_not_of(" \t\r\n");
    if (first != std::string_view::npos && text[first] == '{') return {};  // Cedar's JSON schema format
  }
  // `.charter` declarations: their first word is a keyword, their settings' names attributes.
  std::vector<std::pair<size_t, size_t>> declarations;
  if (language == SemanticLanguage::kCharter) {
    for (const Symbol& s : OutlinePolicies(text)) {
      if (s.kind == SymbolKind::kObject) declarations.emplace_back(s.begin, s.end);
    }
  }
  size_t next_declaration = 0;  // offsets only grow: the declarations are passed in order
  auto in_declaration = [&](size_t offset) {
    while (next_declaration < declarations.size() && declarations[next_declaration].second <= offset) ++next_declaration;
    return next_declaration < declarations.size() && declarations[next_declaration].first <= offset;
  };
  for (size_t k = 0; k < t.size(); ++k) {
    const Token& at = t[k];
    switch (at.kind) {
      case Tok::kString:
        mark(at.begin, at.end, SemanticType::kString);
        break;
      case Tok::kIdent: {
        bool declared = in_declaration(at.begin);
        bool setting = declared && k + 1 < t.size() && t[k + 1].text == ":";
        bool declaration_word = declared && !setting &&
                                (k == 0 || t[k - 1].text == ";" || t[k - 1].text == "{" || t[k - 1].text == "}");
        if (setting) {
          mark(at.begin, at.end, SemanticType::kAttribute);  // `cohort:`, `cpu:`
        } else if (declaration_word || (schema ? OneOf(at.text, kSchemaWords) : OneOf(at.text, kCedarWords))) {
          mark(at.begin, at.end, SemanticType::kKeyword);
        } else if (PathGoesOn(t, k) || BeforeEntityId(t, k) || (schema && k > 0 && t[k - 1].text == "namespace")) {
          mark(at.begin, at.end, SemanticType::kType);  // a namespace, or `Action` of an action
        }
        break;
      }
      case Tok::kOther:
        if (at.text[0] >= '0' && at.text[0] <= '9') {
          // A number, with a quantity's suffix written against it (`64Gi`).
          size_t end = at.end;
          if (k + 1 < t.size() && t[k + 1].begin == at.end && t[k + 1].kind == Tok::kIdent) end = t[++k].end;
          mark(at.begin, end, SemanticType::kNumber);
        } else if (at.text != ".") {
          mark(at.begin, at.end, SemanticType::kOperator);
        }
        break;
      case Tok::kPunct:
        if (at.text == "=" || at.text == "<" || at.text == ">") mark(at.begin, at.end, SemanticType::kOperator);
        break;
    }
  }
  // Types, actions and attributes as find-references reads them.
  std::vector<Occurrence> names = schema ? SchemaOccurrences(text)
                                         : PolicyOccurrences(text, language == SemanticLanguage::kCharter);
  for (const Occurrence& o : names) {
    switch (o.kind) {
      case Occurrence::Kind::kType: mark(o.begin, o.end, SemanticType::kType, o.declaration); break;
      case Occurrence::Kind::kAction: mark(o.begin, o.end, SemanticType::kAction, o.declaration); break;
      case Occurrence::Kind::kAttribute: mark(o.begin, o.end, SemanticType::kAttribute, o.declaration); break;
      default: break;  // templates, queues, cohorts, flavors: strings or names as written
    }
  }
  std::vector<SemanticToken> out;
  size_t covered = 0;
  for (const auto& [begin, token] : by_begin) {
    if (begin < covered) continue;  // never overlapping
    if (token.type == SemanticType::kOperator && !out.empty() && out.back().type == SemanticType::kOperator &&
        out.back().end == begin) {
      out.back().end = token.end;  // `==`, `>=`: one operator
      covered = token.end;
      continue;
    }
    out.push_back(token);
    covered = token.end;
  }
  return out;
}

}  // namespace charter::cli::lsp

namespace charter::cli::lsp {

namespace {

// The objects of the array `"KEY": [...]` of a test file's object.
std::vector<TestCase> TestEntries(std::string_view text, std::string_view key) {
  std::vector<Token> t = Tokenize(text);
  std::vector<TestCase> out;
  // `"KEY": [` at depth 1, in the file's object.
  int depth = 0;
  size_t k = 0;
  for (; k + 2 < t.size(); ++k) {
    if (IsOpen(t[k])) ++depth;
    else if (IsClose(t[k])) --depth;
    else if (depth == 1 && t[k].kind == Tok::kString && Unquote(t[k].text) == key && t[k + 1].text == ":" &&
             t[k + 2].text == "[") {
      break;
    }
  }
  if (k + 2 >= t.size()) return out;
  size_t close = SkipBalanced(t, k + 2);  // after the `]`
  for (size_t i = k + 3; i + 1 < close;) {
    if (t[i].text != "{") {
      i = IsOpen(t[i]) ? SkipBalanced(t, i) : i + 1;
      continue;
    }
    size_t end = SkipBalanced(t, i);
    TestCase c;
    c.begin = t[i].begin;
    c.end = t[end - 1].end;
    int inner = 0;
    for (size_t j = i; j + 2 < end; ++j) {
      if (IsOpen(t[j])) ++inner;
      else if (IsClose(t[j])) --inner;
      else if (inner == 1 && t[j].text == "\"name\"" && t[j + 1].text == ":" && t[j + 2].kind == Tok::kString) {
        c.name = Unquote(t[j + 2].text);
        break;
      }
    }
    out.push_back(std::move(c));
    i = end;
  }
  return out;
}

}  // namespace

std::vector<TestCase> TestCases(std::string_view text) { return TestEntries(text, "cases"); }
std::vector<TestCase> TestInvariants(std::string_view text) { return TestEntries(text, "invariants"); }

}  // namespace charter::cli::lsp
