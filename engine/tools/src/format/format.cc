// The formatter: parse the policy text into the AST, find the comments the
// lexer skips with a small scan of its own, and print the AST through a
// Wadler-style document (text, line breaks, groups that break as a whole,
// indentation) laid out to the line width. Comments are emitted at the
// first point of the output whose source position lies after them; a
// comment forces the groups around it to break, so the layout around a
// comment is the same on every run (which makes formatting idempotent).
#include "charter/format.h"

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ast/ast.h"
#include "common/diagnostic_codes.h"
#include "common/names.h"
#include "common/strings.h"
#include "common/utf8.h"
#include "format/document.h"
#include "policy_set/policy_set.h"
#include "value/value.h"

namespace charter {
namespace internal {
namespace {

// ---- how names and literals are written -------------------------------------

std::string Quote(std::string_view s) {
  std::string out;
  AppendQuotedCedar(&out, s);
  return out;
}

std::string PatternText(const std::vector<ast::PatternElem>& pattern) {
  std::string out = "\"";
  for (const ast::PatternElem& p : pattern) {
    if (p.wildcard) {
      out.push_back('*');
    } else {
      AppendCedarEscaped(&out, p.literal, /*escape_star=*/true);
    }
  }
  out.push_back('"');
  return out;
}

std::string EntityText(const ast::EntityRef& e) { return EntityToCedar(e.type, e.id); }

std::string NameOrString(std::string_view s) { return IsBareCedarName(s) ? std::string(s) : Quote(s); }

using ast::LevelOf;
using enum ast::Level;

// ---- the printer -------------------------------------------------------------

class Printer {
 public:
  Printer(const SourceFile& source, const FormatOptions& options)
      : text_(source.text()), options_(options), comments_(FindComments(source.text())) {}

  // The set's policies and declarations, in the order of the source, with
  // the comments around them. A construct the printer cannot write as it
  // was read sets refusal() and the text is not to be used.
  std::string PrintSet(const ast::PolicySet& set) {
    std::string out;
    Item previous = Item::kNone;
    size_t pi = 0;
    size_t di = 0;
    while (pi < set.policies.size() || di < set.declarations.size()) {
      bool policy = di == set.declarations.size() ||
                    (pi < set.policies.size() &&
                     set.policies[pi].span.begin < set.declarations[di].span.begin);
      uint32_t begin = policy ? set.policies[pi].span.begin : set.declarations[di].span.begin;
      TopLevelComments(begin, &out, &previous);
      // A policy stands apart from what precedes it; declarations in a run
      // keep the source's spacing.
      Separate(&out, previous == Item::kPolicy || (policy && previous == Item::kDeclaration) ||
                         BlankBefore(text_, begin));
      uint32_t end = 0;
      if (policy) {
        const ast::Policy& p = set.policies[pi++];
        Document doc;
        doc_ = &doc;
        int root = Policy(p);
        out += doc.Render(root, options_.line_width, options_.indent_width);
        doc_ = nullptr;
        end = p.span.end;
      } else {
        const ast::DeclEntry& d = set.declarations[di++];
        Declaration(d, 0, &out);
        end = d.span.end;
      }
      // A comment after the `;` on the same line stays there.
      TrailingComments(end, &out);
      previous = policy ? Item::kPolicy : Item::kDeclaration;
    }
    TopLevelComments(static_cast<uint32_t>(text_.size()) + 1, &out, &previous);
    if (!out.empty()) out.push_back('\n');
    return out;
  }

  // Why the text could not be printed whole; empty when it was.
  const std::string& refusal() const { return refusal_; }
  const std::string& refusal_help() const { return refusal_help_; }
  Span refusal_span() const { return refusal_span_; }

 private:
  // Starts a new top-level item: a line break, and an empty line if `blank`.
  static void Separate(std::string* out, bool blank) {
    if (out->empty()) return;
    out->append(blank ? "\n\n" : "\n");
  }

  enum class Item : uint8_t { kNone, kComment, kPolicy, kDeclaration };

  void TopLevelComments(uint32_t before, std::string* out, Item* previous) {
    while (next_ < comments_.size() && comments_[next_].begin < before) {
      const SourceComment& c = comments_[next_++];
      Separate(out, *previous == Item::kPolicy || c.blank_before);
      *out += CommentText(c);
      *previous = Item::kComment;
    }
  }

  // The comment that follows `end` on its line with only blanks between,
  // appended to the output's last line.
  void TrailingComments(uint32_t end, std::string* out) {
    if (next_ >= comments_.size() || comments_[next_].begin < end) return;
    std::string_view between = text_.substr(end, comments_[next_].begin - end);
    if (between.find_first_not_of(" \t\r\f") != std::string_view::npos) return;
    *out += " ";
    *out += CommentText(comments_[next_++]);
  }

  std::string CommentText(const SourceComment& c) const {
    std::string_view t = text_.substr(c.begin, c.end - c.begin);
    while (!t.empty() && (t.back() == ' ' || t.back() == '\t' || t.back() == '\f')) t.remove_suffix(1);
    return std::string(t);
  }

  // The comments before `pos` not yet emitted.
  int Flush(uint32_t pos) {
    std::vector<int> kids;
    while (next_ < comments_.size() && comments_[next_].begin < pos) {
      const SourceComment& c = comments_[next_++];
      kids.push_back(doc_->Comment(CommentText(c), c.trailing));
    }
    return doc_->Concat(std::move(kids));
  }

  bool CommentBetween(uint32_t begin, uint32_t end) const {
    for (size_t i = next_; i < comments_.size(); ++i) {
      if (comments_[i].begin >= end) break;
      if (comments_[i].begin >= begin) return true;
    }
    return false;
  }

  // ---- declarations ----------------------------------------------------------
  //
  // The layout of engine/schedule/src/language/print.cc (docs/scheduling.md, "The
  // scheduling language"): one entry a line, a block's entries indented one
  // step; a block two levels deep whose entries are all lines (a flavor's
  // quotas) on one line, whatever its length, unless it holds a comment. Names are bare
  // when they are identifiers and not keywords, else strings; a head word
  // keeps its form, since a quoted head (`"cpu": 8`) is never a keyword of
  // the language. Quantities are written as they were. A comment stays above
  // the entry it precedes, at the end of the line it ends, or inside the
  // block it is in; one written inside an entry's line moves above it.

  static constexpr size_t kMaxDeclDepth = 256;

  // `help` defaults to the formatter's own fault.
  void Refuse(Span span, std::string message, std::string help = "") {
    if (!refusal_.empty()) return;
    refusal_ = std::move(message);
    refusal_help_ = std::move(help);
    refusal_span_ = span;
  }

  static std::string DeclName(std::string_view s) { return IsBareCharterName(s) ? std::string(s) : Quote(s); }

  // `head names...`, as one line.
  std::string DeclHead(const ast::DeclEntry& e) {
    std::string out = e.head.quoted ? Quote(e.head.text) : e.head.text;
    for (size_t i = 0; i < e.names.size(); ++i) {
      out += i == 0 ? " " : ", ";
      out += DeclName(e.names[i].text);
    }
    return out;
  }

  void DeclValueText(const ast::DeclValue& v, size_t depth, std::string* out) {
    using K = ast::DeclValue::Kind;
    if (depth > kMaxDeclDepth) {
      Refuse(v.span, "a list nested too deeply to format");
      return;
    }
    switch (v.kind) {
      case K::kNumber:
        // INVARIANT: the parser keeps a quantity's source text, tokens and
        // what lies between them; only text on one line without a comment
        // can be written back as it was.
        for (char c : v.text) {
          bool token = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                       c == '_' || c == '.' || c == '-' || c == ' ' || c == '\t';
          if (!token) {
            Refuse(v.span, "a quantity split across lines or by a comment cannot be formatted",
                   "write the quantity on one line, without a comment in it");
            return;
          }
        }
        *out += v.text;
        return;
      case K::kString: *out += Quote(v.text); return;
      case K::kBool: *out += v.flag ? "true" : "false"; return;
      case K::kWord: *out += v.text; return;
      case K::kEntity: *out += EntityToCedar(v.text, v.id); return;
      case K::kList:
        out->push_back('[');
        for (size_t i = 0; i < v.items.size(); ++i) {
          if (i > 0) *out += ", ";
          DeclValueText(v.items[i], depth + 1, out);
        }
        out->push_back(']');
        return;
    }
    Refuse(v.span, "a declaration value of a kind the formatter does not know");
  }

  // A line's text after its head: `;` or `: value modifiers;`.
  std::string DeclLineTail(const ast::DeclEntry& e) {
    if (e.body == ast::DeclEntry::Body::kBare) return ";";
    std::string out = ": ";
    DeclValueText(e.value, 0, &out);
    for (const ast::DeclEntry::Modifier& m : e.modifiers) {
      out += " ";
      out += m.word.text;
      out += " ";
      DeclValueText(m.value, 0, &out);
    }
    out += ";";
    return out;
  }

  // The offset of a block's `{`.
  uint32_t BlockOpen(const ast::DeclEntry& e) const {
    uint32_t after = e.names.empty() ? e.head.span.end : e.names.back().span.end;
    return NextCode(text_, after);
  }

  // Comments before `pos`, each on a line of its own at `indent`; an empty
  // line is kept before one that had it, except first in a block.
  void CommentLines(uint32_t pos, const std::string& indent, bool* block_start, std::string* out) {
    while (next_ < comments_.size() && comments_[next_].begin < pos) {
      const SourceComment& c = comments_[next_++];
      if (!out->empty()) out->append(c.blank_before && !*block_start ? "\n\n" : "\n");
      *out += indent;
      *out += CommentText(c);
      *block_start = false;
    }
  }

  // A declaration at nesting `depth`, starting on the current line of `out`
  // (its indentation written). Comments before it have been written.
  void Declaration(const ast::DeclEntry& e, size_t depth, std::string* out) {
    if (depth > kMaxDeclDepth) {
      Refuse(e.span, "declarations nested too deeply to format");
      return;
    }
    const std::string indent(depth * static_cast<size_t>(options_.indent_width), ' ');
    bool block = e.body == ast::DeclEntry::Body::kBlock;
    uint32_t open = block ? BlockOpen(e) : e.span.end;
    if (block && (open >= text_.size() || text_[open] != '{')) {
      Refuse(e.span, "a declaration block whose `{` the formatter cannot find");
      return;
    }
    // Comments inside the line (or the block's head) go above it: the
    // current line holds the indentation only.
    while (next_ < comments_.size() && comments_[next_].begin < open) {
      *out += CommentText(comments_[next_++]);
      out->push_back('\n');
      *out += indent;
    }
    std::string head = DeclHead(e);
    if (!block) {
      *out += head;
      *out += DeclLineTail(e);
      return;
    }
    if (e.entries.empty() && !CommentBetween(open, e.span.end)) {
      *out += head;
      *out += " {}";
      return;
    }
    bool leaves = true;
    for (const ast::DeclEntry& x : e.entries) leaves = leaves && x.body != ast::DeclEntry::Body::kBlock;
    if (depth >= 2 && leaves && !CommentBetween(open, e.span.end)) {
      *out += head;
      *out += " {";
      for (const ast::DeclEntry& x : e.entries) *out += " " + DeclHead(x) + DeclLineTail(x);
      *out += " }";
      return;
    }
    *out += head;
    *out += " {";
    TrailingComments(open + 1, out);
    const std::string inner(indent.size() + static_cast<size_t>(options_.indent_width), ' ');
    bool block_start = true;
    for (const ast::DeclEntry& x : e.entries) {
      CommentLines(x.span.begin, inner, &block_start, out);
      out->append(!block_start && BlankBefore(text_, x.span.begin) ? "\n\n" : "\n");
      *out += inner;
      Declaration(x, depth + 1, out);
      TrailingComments(x.span.end, out);
      block_start = false;
    }
    CommentLines(e.span.end - 1, inner, &block_start, out);
    out->push_back('\n');
    *out += indent;
    *out += "}";
  }

  int T(std::string s) { return doc_->Text(std::move(s)); }

  int Policy(const ast::Policy& p) {
    std::vector<int> parts;
    for (size_t i = 0; i < p.annotations.size(); ++i) {
      const ast::Annotation& a = p.annotations[i];
      parts.push_back(Flush(a.span.begin));
      std::string_view raw = text_.substr(a.span.begin, a.span.end - a.span.begin);
      bool has_value = raw.find('(') != std::string_view::npos;
      parts.push_back(T(has_value ? Cat("@", a.key, "(", Quote(a.value), ")") : Cat("@", a.key)));
      parts.push_back(Flush(i + 1 < p.annotations.size() ? p.annotations[i + 1].span.begin
                                                         : p.effect_span.begin));
      parts.push_back(doc_->Line());
    }
    parts.push_back(Flush(p.effect_span.begin));
    parts.push_back(T(p.effect == ast::Effect::kPermit ? "permit (" : "forbid ("));
    // The `)` closing the scope: after the resource and an optional comma.
    uint32_t close = NextCode(text_, p.resource.span.end);
    if (close < text_.size() && text_[close] == ',') close = NextCode(text_, close + 1);
    bool plain = p.principal.kind == ast::ScopeConstraint::Kind::kAny &&
                 p.action.kind == ast::ActionConstraint::Kind::kAny &&
                 p.resource.kind == ast::ScopeConstraint::Kind::kAny &&
                 !CommentBetween(p.effect_span.end, close);
    if (plain) {
      parts.push_back(T("principal, action, resource)"));
    } else {
      std::vector<int> scope;
      scope.push_back(Flush(p.principal.span.begin));
      scope.push_back(doc_->Line());
      scope.push_back(T(ScopeText("principal", p.principal)));
      scope.push_back(T(","));
      scope.push_back(Flush(p.action.span.begin));
      scope.push_back(doc_->Line());
      scope.push_back(ActionDoc(p.action));
      scope.push_back(T(","));
      scope.push_back(Flush(p.resource.span.begin));
      scope.push_back(doc_->Line());
      scope.push_back(T(ScopeText("resource", p.resource)));
      scope.push_back(Flush(close));
      parts.push_back(doc_->Indent(std::move(scope)));
      parts.push_back(doc_->Line());
      parts.push_back(T(")"));
    }
    for (size_t i = 0; i < p.conditions.size(); ++i) {
      const ast::Condition& c = p.conditions[i];
      parts.push_back(doc_->Line());
      parts.push_back(Flush(c.span.begin));
      uint32_t open = NextCode(text_, c.span.begin + (c.when ? 4 : 6));
      std::vector<int> kids;
      kids.push_back(T(c.when ? "when" : "unless"));
      kids.push_back(Flush(open));
      kids.push_back(doc_->Line());
      kids.push_back(T("{"));
      int lead = Flush(c.body->span.begin);
      int line = doc_->Line();
      int body = Expr(*c.body, kIfLevel);
      kids.push_back(doc_->Indent({lead, line, body, Flush(c.span.end - 1)}));
      kids.push_back(doc_->Line());
      kids.push_back(T("}"));
      if (i + 1 == p.conditions.size()) {
        kids.push_back(Flush(p.span.end - 1));
        kids.push_back(T(";"));
      }
      parts.push_back(doc_->Group(std::move(kids)));
    }
    if (p.conditions.empty()) {
      parts.push_back(Flush(p.span.end - 1));
      parts.push_back(T(";"));
    }
    return doc_->Concat(std::move(parts));
  }

  std::string ScopeText(const char* var, const ast::ScopeConstraint& s) {
    std::string target = s.slot ? Cat("?", var) : EntityText(s.entity);
    switch (s.kind) {
      case ast::ScopeConstraint::Kind::kAny: return var;
      case ast::ScopeConstraint::Kind::kEq: return Cat(var, " == ", target);
      case ast::ScopeConstraint::Kind::kIn: return Cat(var, " in ", target);
      case ast::ScopeConstraint::Kind::kIs: return Cat(var, " is ", s.type);
      case ast::ScopeConstraint::Kind::kIsIn: return Cat(var, " is ", s.type, " in ", target);
    }
    return var;
  }

  int ActionDoc(const ast::ActionConstraint& a) {
    switch (a.kind) {
      case ast::ActionConstraint::Kind::kAny: return T("action");
      case ast::ActionConstraint::Kind::kEq: return T(Cat("action == ", EntityText(a.entities[0])));
      case ast::ActionConstraint::Kind::kIn: return T(Cat("action in ", EntityText(a.entities[0])));
      case ast::ActionConstraint::Kind::kInList: {
        int list = List(
            "[", a.entities.size(), [&](size_t i) { return a.entities[i].span.begin; },
            [&](size_t i) { return T(EntityText(a.entities[i])); }, "]", a.span.end - 1);
        return doc_->Concat({T("action in "), list});
      }
    }
    return T("action");
  }

  // `open item, item, ... close`, one item a line when it does not fit.
  // Items are built in order, after the comments before them are taken.
  int List(const char* open, size_t count, const std::function<uint32_t(size_t)>& begin,
           const std::function<int(size_t)>& item, const char* close, uint32_t close_pos) {
    if (count == 0) return doc_->Concat({T(open), Flush(close_pos), T(close)});
    bool spaced = open[0] == '{';
    std::vector<int> inner;
    for (size_t i = 0; i < count; ++i) {
      if (i > 0) inner.push_back(T(","));
      inner.push_back(Flush(begin(i)));
      inner.push_back(i == 0 && !spaced ? doc_->SoftLine() : doc_->Line());
      inner.push_back(item(i));
    }
    inner.push_back(Flush(close_pos));
    return doc_->Group({T(open), doc_->Indent(std::move(inner)),
                        spaced ? doc_->Line() : doc_->SoftLine(), T(close)});
  }

  // The arguments args[first...] of a call, set or record.
  int Args(const ast::Expr& e, size_t first, const char* open, const char* close) {
    return List(
        open, e.args.size() - first, [&](size_t i) { return e.args[first + i]->span.begin; },
        [&](size_t i) {
          int value = Expr(*e.args[first + i], kIfLevel);
          if (e.kind != ast::Expr::Kind::kRecord) return value;
          return doc_->Concat({T(Cat(NameOrString(e.keys[i]), ": ")), value});
        },
        close, e.span.end - 1);
  }

  int Expr(const ast::Expr& e, int min_level) {
    int lead = Flush(e.span.begin);
    int body = ExprBody(e);
    if (LevelOf(e) < min_level) body = doc_->Concat({T("("), body, T(")")});
    return doc_->Concat({lead, body});
  }

  int ExprBody(const ast::Expr& e) {
    using K = ast::Expr::Kind;
    switch (e.kind) {
      case K::kBool: return T(e.b ? "true" : "false");
      case K::kLong: return T(std::to_string(e.i));
      case K::kString: return T(Quote(e.str));
      case K::kEntity: return T(EntityText(e.entity));
      case K::kSlot: return T(e.str);
      case K::kVar: return T(std::string(ast::VarText(e.var)));
      case K::kAttr:
      case K::kMethod: return Member(e);
      case K::kHas: {
        bool path = e.keys.size() > 1;
        std::string keys;
        for (const std::string& k : e.keys) {
          if (!keys.empty()) keys += ".";
          keys += path ? k : NameOrString(k);
        }
        return doc_->Concat({Expr(*e.args[0], kAddLevel), T(Cat(" has ", keys))});
      }
      case K::kLike:
        return doc_->Concat({Expr(*e.args[0], kAddLevel), T(Cat(" like ", PatternText(e.pattern)))});
      case K::kIs: {
        std::vector<int> kids{Expr(*e.args[0], kAddLevel), T(Cat(" is ", e.str))};
        if (e.args.size() > 1) {
          kids.push_back(T(" in "));
          kids.push_back(Expr(*e.args[1], kAddLevel));
        }
        return doc_->Concat(std::move(kids));
      }
      case K::kUnary: return Unary(e);
      case K::kBinary: return Binary(e);
      case K::kIf: {
        int cond = Expr(*e.args[0], kIfLevel);
        int f1 = Flush(e.args[1]->span.begin);
        int l1 = doc_->Line();
        int then_doc = Expr(*e.args[1], kIfLevel);
        int f2 = Flush(e.args[2]->span.begin);
        int l2 = doc_->Line();
        int else_doc = Expr(*e.args[2], kIfLevel);
        return doc_->Group({T("if "), cond,
                            doc_->Indent({f1, l1, T("then "), then_doc, f2, l2, T("else "), else_doc})});
      }
      case K::kSet: return Args(e, 0, "[", "]");
      case K::kRecord: return Args(e, 0, "{", "}");
      case K::kCall: {
        int name = T(e.str);
        return doc_->Concat({name, Args(e, 0, "(", ")")});
      }
    }
    return T("");
  }

  // A chain of attribute accesses and method calls, walked in a loop.
  int Member(const ast::Expr& e) {
    std::vector<const ast::Expr*> chain;
    const ast::Expr* base = &e;
    while (base->kind == ast::Expr::Kind::kAttr || base->kind == ast::Expr::Kind::kMethod) {
      chain.push_back(base);
      base = base->args[0].get();
    }
    std::vector<int> kids{Expr(*base, kMemberLevel)};
    const ast::Expr* receiver = base;
    for (size_t i = chain.size(); i-- > 0;) {
      const ast::Expr* node = chain[i];
      // Before the `.` or `[` of the suffix, past the receiver's parentheses.
      kids.push_back(Flush(NextCode(text_, receiver->span.end, true)));
      if (node->kind == ast::Expr::Kind::kAttr) {
        kids.push_back(T(IsBareCedarName(node->str) ? Cat(".", node->str) : Cat("[", Quote(node->str), "]")));
      } else {
        kids.push_back(T(Cat(".", node->str)));
        kids.push_back(Args(*node, 1, "(", ")"));
      }
      receiver = node;
    }
    return doc_->Concat(std::move(kids));
  }

  int Unary(const ast::Expr& e) {
    // At most four operators in a row; a negative literal's `-` counts.
    size_t run = 0;
    const ast::Expr* inner = &e;
    while (run < 4 && inner->kind == ast::Expr::Kind::kUnary && inner->uop == e.uop) {
      inner = inner->args[0].get();
      ++run;
    }
    if (run == 4 && e.uop == ast::UnaryOp::kNeg && inner->kind == ast::Expr::Kind::kLong &&
        inner->i < 0) {
      // Step back one: the fourth `-` goes inside parentheses.
      inner = &e;
      for (size_t i = 0; i < 3; ++i) inner = inner->args[0].get();
      run = 3;
    }
    std::string ops(run, e.uop == ast::UnaryOp::kNot ? '!' : '-');
    int operand = 0;
    bool literal = inner->kind == ast::Expr::Kind::kLong;
    if (e.uop == ast::UnaryOp::kNeg && literal && inner->i >= 0) {
      // `-5` would be the literal -5: keep the negation of 5 apart.
      operand = doc_->Concat({Flush(inner->span.begin), T(Cat("(", inner->i, ")"))});
    } else if (e.uop == ast::UnaryOp::kNeg && literal) {
      operand = Expr(*inner, kUnaryLevel);
    } else {
      operand = Expr(*inner, kMemberLevel);
    }
    return doc_->Concat({T(ops), operand});
  }

  int Binary(const ast::Expr& e) {
    ast::BinaryOp op = e.bop;
    int level = LevelOf(e);
    if (level == kRelationLevel) {
      return doc_->Concat({Expr(*e.args[0], kAddLevel), T(Cat(" ", ast::BinaryOpText(op), " ")),
                           Expr(*e.args[1], kAddLevel)});
    }
    // A left-leaning chain of one level, walked in a loop.
    auto same_level = [&](const ast::Expr& x) {
      return x.kind == ast::Expr::Kind::kBinary && LevelOf(x) == level;
    };
    std::vector<const ast::Expr*> spine;
    const ast::Expr* left = &e;
    while (same_level(*left)) {
      spine.push_back(left);
      left = left->args[0].get();
    }
    bool logical = level == kOrLevel || level == kAndLevel;
    std::vector<int> kids{Expr(*left, level)};
    for (size_t i = spine.size(); i-- > 0;) {
      const ast::Expr& right = *spine[i]->args[1];
      if (logical) {
        kids.push_back(T(Cat(" ", ast::BinaryOpText(spine[i]->bop))));
        kids.push_back(Flush(right.span.begin));
        kids.push_back(doc_->Line());
      } else {
        kids.push_back(T(Cat(" ", ast::BinaryOpText(spine[i]->bop), " ")));
      }
      kids.push_back(Expr(right, level + 1));
    }
    return logical ? doc_->Group(std::move(kids)) : doc_->Concat(std::move(kids));
  }

  std::string_view text_;
  const FormatOptions& options_;
  std::vector<SourceComment> comments_;
  size_t next_ = 0;  // the first comment not yet emitted
  Document* doc_ = nullptr;
  std::string refusal_;
  std::string refusal_help_;
  Span refusal_span_;
};

// ---- the check of the output --------------------------------------------------
//
// The formatted text is read again and must hold what the input held: the
// same policies and declarations (spans aside) and the same comments in
// order. Anything else is a fault of the formatter, refused, so that a file
// is never rewritten with less in it than it had.

bool SameEntity(const ast::EntityRef& a, const ast::EntityRef& b) { return a.type == b.type && a.id == b.id; }

bool SameExpr(const ast::Expr& a, const ast::Expr& b) {
  std::vector<std::pair<const ast::Expr*, const ast::Expr*>> stack{{&a, &b}};
  while (!stack.empty()) {
    auto [x, y] = stack.back();
    stack.pop_back();
    if (x->kind != y->kind || x->b != y->b || x->i != y->i || x->str != y->str ||
        !SameEntity(x->entity, y->entity) || x->var != y->var || x->bop != y->bop || x->uop != y->uop ||
        x->keys != y->keys || x->args.size() != y->args.size() || x->pattern.size() != y->pattern.size()) {
      return false;
    }
    for (size_t i = 0; i < x->pattern.size(); ++i) {
      if (x->pattern[i].wildcard != y->pattern[i].wildcard || x->pattern[i].literal != y->pattern[i].literal) {
        return false;
      }
    }
    for (size_t i = 0; i < x->args.size(); ++i) stack.push_back({x->args[i].get(), y->args[i].get()});
  }
  return true;
}

bool SameScope(const ast::ScopeConstraint& a, const ast::ScopeConstraint& b) {
  return a.kind == b.kind && a.slot == b.slot && SameEntity(a.entity, b.entity) && a.type == b.type;
}

bool SamePolicy(const ast::Policy& a, const ast::Policy& b) {
  if (a.id != b.id || a.effect != b.effect || a.annotations.size() != b.annotations.size() ||
      !SameScope(a.principal, b.principal) || !SameScope(a.resource, b.resource) ||
      a.action.kind != b.action.kind || a.action.entities.size() != b.action.entities.size() ||
      a.conditions.size() != b.conditions.size()) {
    return false;
  }
  for (size_t i = 0; i < a.annotations.size(); ++i) {
    if (a.annotations[i].key != b.annotations[i].key || a.annotations[i].value != b.annotations[i].value) {
      return false;
    }
  }
  for (size_t i = 0; i < a.action.entities.size(); ++i) {
    if (!SameEntity(a.action.entities[i], b.action.entities[i])) return false;
  }
  for (size_t i = 0; i < a.conditions.size(); ++i) {
    if (a.conditions[i].when != b.conditions[i].when ||
        !SameExpr(*a.conditions[i].body, *b.conditions[i].body)) {
      return false;
    }
  }
  return true;
}

// Nesting is bounded by the parser's depth limit, as for the printer.
bool SameDeclValue(const ast::DeclValue& a, const ast::DeclValue& b) {
  if (a.kind != b.kind || a.text != b.text || a.id != b.id || a.flag != b.flag ||
      a.items.size() != b.items.size()) {
    return false;
  }
  for (size_t i = 0; i < a.items.size(); ++i) {
    if (!SameDeclValue(a.items[i], b.items[i])) return false;
  }
  return true;
}

// A head keeps its form (a quoted head is never a keyword); a name means
// the same bare or quoted.
bool SameDecl(const ast::DeclEntry& a, const ast::DeclEntry& b) {
  if (a.head.text != b.head.text || a.head.quoted != b.head.quoted || a.body != b.body ||
      a.names.size() != b.names.size() || a.modifiers.size() != b.modifiers.size() ||
      a.entries.size() != b.entries.size()) {
    return false;
  }
  for (size_t i = 0; i < a.names.size(); ++i) {
    if (a.names[i].text != b.names[i].text) return false;
  }
  if (a.body == ast::DeclEntry::Body::kSetting && !SameDeclValue(a.value, b.value)) return false;
  for (size_t i = 0; i < a.modifiers.size(); ++i) {
    if (a.modifiers[i].word.text != b.modifiers[i].word.text ||
        !SameDeclValue(a.modifiers[i].value, b.modifiers[i].value)) {
      return false;
    }
  }
  for (size_t i = 0; i < a.entries.size(); ++i) {
    if (!SameDecl(a.entries[i], b.entries[i])) return false;
  }
  return true;
}

// Where `formatted` (read as `again`) differs from the input (read as
// `set`), as a span of the input and a message; an empty message if it
// holds the same.
std::pair<Span, std::string> Difference(std::string_view input, const ast::PolicySet& set,
                                        std::string_view formatted, const ast::PolicySet& again) {
  for (size_t i = 0; i < set.policies.size(); ++i) {
    if (i >= again.policies.size() || !SamePolicy(set.policies[i], again.policies[i])) {
      return {set.policies[i].span, "the formatted text would not hold this policy as written"};
    }
  }
  if (again.policies.size() != set.policies.size()) {
    return {Span{}, "the formatted text would hold more policies than the input"};
  }
  for (size_t i = 0; i < set.declarations.size(); ++i) {
    if (i >= again.declarations.size() || !SameDecl(set.declarations[i], again.declarations[i])) {
      return {set.declarations[i].span, "the formatted text would not hold this declaration as written"};
    }
  }
  if (again.declarations.size() != set.declarations.size()) {
    return {Span{}, "the formatted text would hold more declarations than the input"};
  }
  return CommentDifference(input, formatted);
}

}  // namespace
}  // namespace internal

absl::StatusOr<std::string> FormatPolicies(const SourceFile& source, const FormatOptions& options,
                                           Diagnostics* diagnostics) {
  Diagnostics local;
  Diagnostics* diags = diagnostics != nullptr ? diagnostics : &local;
  size_t before = diags->size();
  std::unique_ptr<internal::PolicySet> set = internal::ReadPolicySet(
      source, {}, options.parse, diags, internal::PolicyFormats::kTextOnly);
  if (set->format == internal::PolicyFormat::kJson) {
    return absl::InvalidArgumentError(
        internal::Cat(source.name(), ": Cedar's JSON policy format is not formatted"));
  }
  if (std::string error = diags->FirstErrorLine(source, before); !error.empty()) {
    return absl::InvalidArgumentError(error);
  }
  internal::Printer printer(source, options);
  std::string out = printer.PrintSet(set->ast);
  auto refuse = [&](Span span, const std::string& message, std::string help) {
    diags->Error(internal::codes::CH0900, span, internal::Cat(message, "; the file is left as it is"),
                 std::move(help));
    return absl::InvalidArgumentError(diags->FirstErrorLine(source, before));
  };
  const char* fault = "this is a fault of the formatter: please report it with the file";
  if (!printer.refusal().empty()) {
    return refuse(printer.refusal_span(), printer.refusal(),
                  printer.refusal_help().empty() ? fault : printer.refusal_help());
  }
  // Text already in canonical layout reads back as it did.
  if (out == source.text()) return out;
  SourceFile again(source.name(), out);
  Diagnostics again_diagnostics;
  std::unique_ptr<internal::PolicySet> reread = internal::ReadPolicySet(
      again, {}, options.parse, &again_diagnostics, internal::PolicyFormats::kTextOnly);
  if (std::string error = again_diagnostics.FirstErrorLine(again); !error.empty()) {
    return refuse(Span{}, internal::Cat("the formatted text would not read back (", error, ")"), fault);
  }
  auto [span, difference] = internal::Difference(source.text(), set->ast, out, reread->ast);
  if (!difference.empty()) return refuse(span, difference, fault);
  return out;
}

}  // namespace charter
