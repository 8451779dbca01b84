// Cedar's schema text -> SchemaAst: a hand-written lexer and a
// recursive-descent parser with an explicit nesting bound.
//
//   Schema     := { Namespace | Decl }
//   Namespace  := Annots 'namespace' Path '{' { Decl } '}'
//   Decl       := Entity | Action | Common
//   Entity     := Annots 'entity' Name {',' Name} ( 'enum' '[' STR {',' STR} ']'
//                 | ['in' Types] [['='] Record | ['='] Path] ['tags' Type] ) ';'
//   Action     := Annots 'action' AName {',' AName} ['in' ARefs]
//                 ['appliesTo' '{' { AppliesDecl [','] } '}'] ';'
//   Common     := Annots 'type' IDENT '=' Type ';'
//   Type       := Path | 'Set' '<' Type '>' | Record
//   Record     := '{' [ Annots Key ['?'] ':' Type { ',' Annots Key ['?'] ':' Type } [','] ] '}'
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/strings.h"
#include "common/diagnostic_codes.h"
#include "common/utf8.h"
#include "schema/schema_parse.h"

namespace charter::internal::schema {
namespace {

enum class Tok : uint8_t {
  kEnd, kIdent, kString, kLBrace, kRBrace, kLBracket, kRBracket, kLParen, kRParen, kLAngle,
  kRAngle, kComma, kSemi, kColon, kColon2, kQuestion, kEq, kAt, kError,
};

struct Token {
  Tok kind = Tok::kEnd;
  Span span;
  std::string text;  // identifier, or decoded string
};

const char* TokName(Tok t) {
  switch (t) {
    case Tok::kEnd: return "the end of the schema";
    case Tok::kIdent: return "an identifier";
    case Tok::kString: return "a string";
    case Tok::kLBrace: return "`{`";
    case Tok::kRBrace: return "`}`";
    case Tok::kLBracket: return "`[`";
    case Tok::kRBracket: return "`]`";
    case Tok::kLParen: return "`(`";
    case Tok::kRParen: return "`)`";
    case Tok::kLAngle: return "`<`";
    case Tok::kRAngle: return "`>`";
    case Tok::kComma: return "`,`";
    case Tok::kSemi: return "`;`";
    case Tok::kColon: return "`:`";
    case Tok::kColon2: return "`::`";
    case Tok::kQuestion: return "`?`";
    case Tok::kEq: return "`=`";
    case Tok::kAt: return "`@`";
    case Tok::kError: return "an invalid token";
  }
  return "?";
}

class Parser {
 public:
  Parser(const SourceFile& source, const SchemaOptions& options, Diagnostics* diags)
      : text_(source.text()), options_(options), diags_(diags) {}

  SchemaAst Run() {
    SchemaAst out;
    Advance();
    Namespace* top = nullptr;  // the empty namespace for declarations outside any
    while (ok_ && tok_.kind != Tok::kEnd) {
      std::vector<Annotation> annots = Annotations();
      if (!ok_) break;
      if (IsWord("namespace")) {
        uint32_t begin = tok_.span.begin;
        Advance();
        Namespace ns;
        ns.braced = true;
        ns.annotations = std::move(annots);
        ns.name = Path(nullptr);
        Expect(Tok::kLBrace);
        while (ok_ && tok_.kind != Tok::kRBrace && tok_.kind != Tok::kEnd) {
          std::vector<Annotation> inner = Annotations();
          if (!ok_) break;
          Decl(&ns, std::move(inner));
        }
        ns.span = {begin, tok_.span.end};
        Expect(Tok::kRBrace);
        out.namespaces.push_back(std::move(ns));
        top = nullptr;
      } else {
        if (top == nullptr) {
          out.namespaces.emplace_back();
          top = &out.namespaces.back();
        }
        Decl(top, std::move(annots));
      }
    }
    return out;
  }

 private:
  // --- lexer ---------------------------------------------------------------
  void Advance() {
    if (!ok_) return;
    prev_end_ = tok_.span.end;
    SkipSpace();
    tok_ = Token{};
    tok_.span.begin = static_cast<uint32_t>(pos_);
    if (pos_ >= text_.size()) {
      tok_.kind = Tok::kEnd;
      tok_.span.end = tok_.span.begin;
      return;
    }
    char c = text_[pos_];
    auto single = [&](Tok k) {
      tok_.kind = k;
      ++pos_;
    };
    if (IsIdentStart(c)) {
      size_t start = pos_;
      while (pos_ < text_.size() && IsIdentChar(text_[pos_])) ++pos_;
      tok_.kind = Tok::kIdent;
      tok_.text = std::string(text_.substr(start, pos_ - start));
    } else if (c == '"') {
      LexString();
    } else if (c == ':') {
      if (pos_ + 1 < text_.size() && text_[pos_ + 1] == ':') {
        tok_.kind = Tok::kColon2;
        pos_ += 2;
      } else {
        single(Tok::kColon);
      }
    } else {
      switch (c) {
        case '{': single(Tok::kLBrace); break;
        case '}': single(Tok::kRBrace); break;
        case '[': single(Tok::kLBracket); break;
        case ']': single(Tok::kRBracket); break;
        case '(': single(Tok::kLParen); break;
        case ')': single(Tok::kRParen); break;
        case '<': single(Tok::kLAngle); break;
        case '>': single(Tok::kRAngle); break;
        case ',': single(Tok::kComma); break;
        case ';': single(Tok::kSemi); break;
        case '?': single(Tok::kQuestion); break;
        case '=': single(Tok::kEq); break;
        case '@': single(Tok::kAt); break;
        default: {
          size_t len = Utf8Length(c);
          tok_.span.end = static_cast<uint32_t>(std::min(text_.size(), pos_ + len));
          Fail(codes::CH0402, tok_.span, Cat("unexpected character `", text_.substr(pos_, tok_.span.end - pos_), "`"));
          return;
        }
      }
    }
    tok_.span.end = static_cast<uint32_t>(pos_);
  }

  static size_t Utf8Length(char c) {
    unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x80) return 1;
    if ((u >> 5) == 6) return 2;
    if ((u >> 4) == 14) return 3;
    if ((u >> 3) == 30) return 4;
    return 1;
  }
  static bool IsIdentStart(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  }
  static bool IsIdentChar(char c) { return IsIdentStart(c) || (c >= '0' && c <= '9'); }

  void SkipSpace() {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        ++pos_;
      } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '/') {
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
      } else {
        return;
      }
    }
  }

  void LexString() {
    size_t start = pos_;
    ++pos_;
    std::string out;
    while (true) {
      if (pos_ >= text_.size()) {
        Fail(codes::CH0402, {static_cast<uint32_t>(start), static_cast<uint32_t>(text_.size())},
             "unterminated string literal", "close the string with `\"`");
        return;
      }
      char c = text_[pos_];
      if (c == '"') {
        ++pos_;
        break;
      }
      if (c != '\\') {
        out.push_back(c);
        ++pos_;
        continue;
      }
      size_t esc = pos_;
      if (pos_ + 1 >= text_.size()) {
        ++pos_;
        continue;
      }
      char e = text_[pos_ + 1];
      pos_ += 2;
      switch (e) {
        case 'n': out.push_back('\n'); break;
        case 'r': out.push_back('\r'); break;
        case 't': out.push_back('\t'); break;
        case '0': out.push_back('\0'); break;
        case '\\': out.push_back('\\'); break;
        case '"': out.push_back('"'); break;
        case '\'': out.push_back('\''); break;
        case '*': out.append("\\*"); break;
        case 'x': {
          int v = 0, n = 0;
          while (n < 2 && pos_ < text_.size() && isxdigit(static_cast<unsigned char>(text_[pos_]))) {
            v = v * 16 + HexValue(text_[pos_++]);
            ++n;
          }
          if (n != 2 || v >= 0x80) {
            Fail(codes::CH0402, {static_cast<uint32_t>(esc), static_cast<uint32_t>(pos_)},
                 "invalid `\\x` escape in a string");
            return;
          }
          out.push_back(static_cast<char>(v));
          break;
        }
        case 'u': {
          uint32_t v = 0;
          int n = 0;
          bool good = pos_ < text_.size() && text_[pos_] == '{';
          if (good) ++pos_;
          while (good && pos_ < text_.size() && isxdigit(static_cast<unsigned char>(text_[pos_])) && n < 7) {
            v = v * 16 + HexValue(text_[pos_++]);
            ++n;
          }
          good = good && n >= 1 && n <= 6 && pos_ < text_.size() && text_[pos_] == '}' &&
                 v <= 0x10FFFF && !(v >= 0xD800 && v <= 0xDFFF);
          if (!good) {
            Fail(codes::CH0402, {static_cast<uint32_t>(esc), static_cast<uint32_t>(pos_)},
                 "invalid `\\u` escape in a string");
            return;
          }
          ++pos_;
          AppendUtf8(&out, v);
          break;
        }
        default:
          Fail(codes::CH0402, {static_cast<uint32_t>(esc), static_cast<uint32_t>(pos_)},
               Cat("invalid escape `\\", std::string(1, e), "` in a string"));
          return;
      }
    }
    tok_.kind = Tok::kString;
    tok_.text = std::move(out);
  }

  static int HexValue(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return c - 'A' + 10;
  }
  // --- errors ----------------------------------------------------------------
  void Fail(const char* code, Span span, std::string message, std::string help = "") {
    if (!ok_) return;
    ok_ = false;
    if (diags_ != nullptr) diags_->Error(code, span, std::move(message), std::move(help));
  }
  void Unexpected(std::string_view wanted) {
    std::string found = tok_.kind == Tok::kIdent    ? Cat("`", tok_.text, "`")
                        : tok_.kind == Tok::kString ? std::string("string")
                        : tok_.kind == Tok::kEnd    ? std::string("end of the schema")
                                                    : std::string(TokName(tok_.kind));
    Span span = tok_.span;
    if (tok_.kind == Tok::kEnd && span.begin > 0) span = {span.begin - 1, span.begin};
    Fail(codes::CH0401, span, Cat("unexpected ", found), Cat("expected ", wanted));
  }
  bool Expect(Tok k) {
    if (!ok_) return false;
    if (tok_.kind != k) {
      Unexpected(TokName(k));
      return false;
    }
    Advance();
    return true;
  }
  static bool IsReserved(std::string_view s) {
    return s == "true" || s == "false" || s == "if" || s == "then" || s == "else" || s == "in" ||
           s == "is" || s == "like" || s == "has" || s.rfind("__cedar", 0) == 0;
  }
  bool IsWord(std::string_view w) const { return tok_.kind == Tok::kIdent && tok_.text == w; }

  bool Enter() {
    if (++depth_ > options_.max_nesting) {
      Fail(codes::CH0412, tok_.span,
           Cat("schema nested deeper than ", options_.max_nesting, " levels"));
      return false;
    }
    return true;
  }

  // --- grammar ---------------------------------------------------------------
  std::vector<Annotation> Annotations() {
    std::vector<Annotation> out;
    while (ok_ && tok_.kind == Tok::kAt) {
      uint32_t begin = tok_.span.begin;
      Advance();
      if (tok_.kind != Tok::kIdent) {
        Unexpected("an annotation name");
        return out;
      }
      Annotation a;
      a.key = tok_.text;
      Advance();
      if (tok_.kind == Tok::kLParen) {
        Advance();
        if (tok_.kind != Tok::kString) {
          Unexpected("a string");
          return out;
        }
        a.value = tok_.text;
        a.has_value = true;
        Advance();
        Expect(Tok::kRParen);
      }
      a.span = {begin, prev_end_};
      out.push_back(std::move(a));
    }
    return out;
  }

  // IDENT {'::' IDENT}
  std::string Path(Span* span) {
    if (tok_.kind != Tok::kIdent) {
      Unexpected("a name");
      return "";
    }
    uint32_t begin = tok_.span.begin;
    std::string out = tok_.text;
    uint32_t end = tok_.span.end;
    Advance();
    while (ok_ && tok_.kind == Tok::kColon2) {
      Advance();
      if (tok_.kind != Tok::kIdent) {
        Unexpected("a name after `::`");
        return out;
      }
      CatAppend(&out, "::", tok_.text);
      end = tok_.span.end;
      Advance();
    }
    if (span != nullptr) *span = {begin, end};
    return out;
  }

  void Decl(Namespace* ns, std::vector<Annotation> annots) {
    if (IsWord("entity")) {
      EntityDeclaration(ns, std::move(annots));
    } else if (IsWord("action")) {
      ActionDeclaration(ns, std::move(annots));
    } else if (IsWord("type")) {
      CommonDeclaration(ns, std::move(annots));
    } else if (IsWord("namespace")) {
      Fail(codes::CH0401, tok_.span, "namespaces cannot be nested");
    } else {
      Unexpected("`entity`, `action`, `type` or `namespace`");
    }
  }

  void EntityDeclaration(Namespace* ns, std::vector<Annotation> annots) {
    EntityDecl d;
    d.span.begin = tok_.span.begin;
    d.annotations = std::move(annots);
    Advance();
    do {
      if (!d.names.empty()) Advance();  // the comma
      if (tok_.kind != Tok::kIdent) {
        Unexpected("an entity type name");
        return;
      }
      d.names.push_back(tok_.text);
      d.name_spans.push_back(tok_.span);
      Advance();
    } while (ok_ && tok_.kind == Tok::kComma);
    if (IsWord("enum")) {
      Advance();
      d.is_enum = true;
      Expect(Tok::kLBracket);
      while (ok_) {
        if (tok_.kind != Tok::kString) {
          Unexpected("a string");
          return;
        }
        d.choices.push_back(tok_.text);
        d.choice_spans.push_back(tok_.span);
        Advance();
        if (tok_.kind != Tok::kComma) break;
        Advance();
        if (tok_.kind == Tok::kRBracket) break;
      }
      Expect(Tok::kRBracket);
    } else {
      if (IsWord("in")) {
        Advance();
        TypeList(&d.parents, &d.parent_spans);
      }
      if (ok_ && tok_.kind == Tok::kEq) {
        Advance();
        if (tok_.kind != Tok::kLBrace && tok_.kind != Tok::kIdent) {
          Unexpected("a record type");
          return;
        }
      }
      if (ok_ && (tok_.kind == Tok::kLBrace ||
                  (tok_.kind == Tok::kIdent && tok_.text != "tags"))) {
        d.shape = Type();
      }
      if (ok_ && IsWord("tags")) {
        Advance();
        d.tags = Type();
      }
    }
    d.span.end = tok_.span.end;
    if (!Expect(Tok::kSemi)) return;
    ns->order.emplace_back('e', ns->entities.size());
    ns->entities.push_back(std::move(d));
  }

  // Path | '[' [Path {',' Path} [',']] ']'
  void TypeList(std::vector<std::string>* out, std::vector<Span>* spans) {
    if (tok_.kind == Tok::kLBracket) {
      Advance();
      while (ok_ && tok_.kind != Tok::kRBracket) {
        Span s;
        out->push_back(Path(&s));
        spans->push_back(s);
        if (tok_.kind != Tok::kComma) break;
        Advance();
      }
      Expect(Tok::kRBracket);
    } else {
      Span s;
      out->push_back(Path(&s));
      spans->push_back(s);
    }
  }

  // Name: IDENT or STR.
  bool Name(std::string* out, Span* span) {
    if (tok_.kind != Tok::kIdent && tok_.kind != Tok::kString) {
      Unexpected("a name");
      return false;
    }
    *out = tok_.text;
    *span = tok_.span;
    Advance();
    return true;
  }

  // An action reference: Name, or Path '::' STR.
  bool ActionReference(ActionRef* r) {
    r->span.begin = tok_.span.begin;
    if (tok_.kind == Tok::kString) {
      r->id = tok_.text;
      r->span.end = tok_.span.end;
      Advance();
      return true;
    }
    if (tok_.kind != Tok::kIdent) {
      Unexpected("an action name");
      return false;
    }
    std::string path = tok_.text;
    r->span.end = tok_.span.end;
    Advance();
    while (ok_ && tok_.kind == Tok::kColon2) {
      Advance();
      if (tok_.kind == Tok::kString) {
        r->type = path;
        r->id = tok_.text;
        r->span.end = tok_.span.end;
        Advance();
        return true;
      }
      if (tok_.kind != Tok::kIdent) {
        Unexpected("a name or a string after `::`");
        return false;
      }
      CatAppend(&path, "::", tok_.text);
      r->span.end = tok_.span.end;
      Advance();
    }
    if (path.find("::") != std::string::npos) {
      Fail(codes::CH0401, r->span, Cat("`", path, "` is not an action reference"),
           "write a qualified action as `NS::Action::\"name\"`");
      return false;
    }
    r->id = path;
    return true;
  }

  void ActionDeclaration(Namespace* ns, std::vector<Annotation> annots) {
    ActionDecl d;
    d.span.begin = tok_.span.begin;
    d.annotations = std::move(annots);
    Advance();
    do {
      if (!d.names.empty()) Advance();
      std::string name;
      Span span;
      if (!Name(&name, &span)) return;
      d.names.push_back(std::move(name));
      d.name_spans.push_back(span);
    } while (ok_ && tok_.kind == Tok::kComma);
    if (IsWord("in")) {
      Advance();
      if (tok_.kind == Tok::kLBracket) {
        Advance();
        while (ok_ && tok_.kind != Tok::kRBracket) {
          ActionRef r;
          if (!ActionReference(&r)) return;
          d.parents.push_back(std::move(r));
          if (tok_.kind != Tok::kComma) break;
          Advance();
        }
        Expect(Tok::kRBracket);
      } else {
        ActionRef r;
        if (!ActionReference(&r)) return;
        d.parents.push_back(std::move(r));
      }
    }
    if (ok_ && IsWord("appliesTo")) {
      Advance();
      d.has_applies_to = true;
      Span applies_span = tok_.span;
      Expect(Tok::kLBrace);
      bool seen_p = false, seen_r = false, seen_c = false;
      if (ok_ && tok_.kind == Tok::kRBrace) {
        Unexpected("`principal`, `resource` or `context`");
        return;
      }
      while (ok_ && tok_.kind != Tok::kRBrace) {
        if (IsWord("principal") || IsWord("resource")) {
          bool principal = tok_.text == "principal";
          bool& seen = principal ? seen_p : seen_r;
          if (seen) {
            Fail(codes::CH0401, tok_.span, Cat("`", tok_.text, "` is declared twice in `appliesTo`"));
            return;
          }
          seen = true;
          Span what = tok_.span;
          Advance();
          Expect(Tok::kColon);
          std::vector<std::string>& list = principal ? d.principals : d.resources;
          TypeList(&list, principal ? &d.principal_spans : &d.resource_spans);
          if (ok_ && list.empty()) {
            Fail(codes::CH0401, Span{what.begin, prev_end_},
                 Cat("`", principal ? "principal" : "resource", "` lists no entity type"),
                 "an action that applies to nothing is declared without `appliesTo`");
            return;
          }
        } else if (IsWord("context")) {
          if (seen_c) {
            Fail(codes::CH0401, tok_.span, "`context` is declared twice in `appliesTo`");
            return;
          }
          seen_c = true;
          Advance();
          Expect(Tok::kColon);
          if (ok_) d.context = Type();
        } else {
          Unexpected("`principal`, `resource` or `context`");
          return;
        }
        if (tok_.kind != Tok::kComma) break;
        Advance();
      }
      if (ok_ && !(seen_p && seen_r)) {
        Fail(codes::CH0401, Span{applies_span.begin, tok_.span.end},
             Cat("`appliesTo` lacks `", seen_p ? "resource" : "principal", "`"),
             "`appliesTo` declares both `principal` and `resource`");
        return;
      }
      Expect(Tok::kRBrace);
    }
    d.span.end = tok_.span.end;
    if (!Expect(Tok::kSemi)) return;
    ns->order.emplace_back('a', ns->actions.size());
    ns->actions.push_back(std::move(d));
  }

  void CommonDeclaration(Namespace* ns, std::vector<Annotation> annots) {
    CommonTypeDecl d;
    d.annotations = std::move(annots);
    Advance();
    if (tok_.kind != Tok::kIdent) {
      Unexpected("a type name");
      return;
    }
    d.name = tok_.text;
    d.span = tok_.span;
    Advance();
    if (tok_.kind == Tok::kColon2) {
      Fail(codes::CH0401, tok_.span, "a common type name cannot be qualified");
      return;
    }
    Expect(Tok::kEq);
    if (!ok_) return;
    d.type = Type();
    if (!Expect(Tok::kSemi)) return;
    ns->order.emplace_back('c', ns->common_types.size());
    ns->common_types.push_back(std::move(d));
  }

  TypeExpr Type() {
    TypeExpr t;
    if (!ok_ || !Enter()) return t;
    t.span.begin = tok_.span.begin;
    if (tok_.kind == Tok::kLBrace) {
      t.kind = TypeExpr::Kind::kRecord;
      Advance();
      while (ok_ && tok_.kind != Tok::kRBrace) {
        AttrDecl a;
        a.annotations = Annotations();
        if (!ok_) break;
        bool bare = tok_.kind == Tok::kIdent;
        if (!Name(&a.name, &a.span)) break;
        if (bare && IsReserved(a.name)) {
          Fail(codes::CH0401, a.span, Cat("`", a.name, "` is a reserved identifier"),
               Cat("write it as a string: `\"", a.name, "\"`"));
          break;
        }
        if (tok_.kind == Tok::kQuestion) {
          a.required = false;
          Advance();
        }
        if (!Expect(Tok::kColon)) break;
        a.type = Type();
        t.attrs.push_back(std::move(a));
        if (tok_.kind != Tok::kComma) break;
        Advance();
      }
      t.span.end = tok_.span.end;
      Expect(Tok::kRBrace);
    } else if (IsWord("Set") && PeekIsAngle()) {
      t.kind = TypeExpr::Kind::kSet;
      Advance();
      Expect(Tok::kLAngle);
      if (ok_) t.elem = std::make_shared<TypeExpr>(Type());
      t.span.end = tok_.span.end;
      Expect(Tok::kRAngle);
    } else if (tok_.kind == Tok::kIdent) {
      t.kind = TypeExpr::Kind::kName;
      t.name = Path(&t.span);
    } else {
      Unexpected("a type");
    }
    --depth_;
    return t;
  }

  bool PeekIsAngle() const {
    size_t p = pos_;
    while (p < text_.size() && (text_[p] == ' ' || text_[p] == '\t' || text_[p] == '\n' || text_[p] == '\r')) ++p;
    return p < text_.size() && text_[p] == '<';
  }

  std::string_view text_;
  const SchemaOptions& options_;
  Diagnostics* diags_;
  size_t pos_ = 0;
  Token tok_;
  bool ok_ = true;
  uint32_t prev_end_ = 0;  // where the token before tok_ ends
  int depth_ = 0;
};

}  // namespace

SchemaAst ParseSchemaText(const SourceFile& source, const SchemaOptions& options,
                          Diagnostics* diagnostics) {
  Parser parser(source, options, diagnostics);
  return parser.Run();
}

}  // namespace charter::internal::schema
