// The syntax layer: runs the ANTLR-generated lexer and parser over policy
// text and turns the parse tree into the AST, making the checks Cedar makes
// after parsing (one relational operator per level, literal ranges, string
// escapes, known functions and methods, slots only in the scope).
//
// This file and the generated parser are the only code built with
// exceptions; ParsePolicySet catches everything, so none leaves it.
#include "syntax/parser.h"

#include <cstdint>
#include <algorithm>
#include <exception>
#include <new>
#include <limits>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "CharterLexer.h"
#include "CharterParser.h"
#include "common/diagnostic_codes.h"
#include "common/strings.h"
#include "absl/strings/str_replace.h"
#include "antlr4-runtime.h"
#include "builtins/builtins.h"
#include "common/utf8.h"
#include "syntax/declarations.h"
#include "syntax/lexer.h"

namespace charter::internal {
namespace {

// The text of a rule that is one token (an identifier), without the
// stringstream RuleContext::getText builds; longer rules as before.
std::string RuleText(antlr4::ParserRuleContext* ctx) {
  if (ctx->getStart() != nullptr && ctx->getStart() == ctx->getStop()) {
    return ctx->getStart()->getText();
  }
  return ctx->getText();
}

using grammar::CharterLexer;
using grammar::CharterParser;
using CP = CharterParser;

// ANTLR counts positions in code points; diagnostics use byte offsets.
class OffsetMap {
 public:
  // TEXT begins at byte `base` of the source; Byte() answers source offsets.
  explicit OffsetMap(std::string_view text, uint32_t base = 0) : base_(base) {
    bool ascii = true;
    for (char c : text) {
      if (static_cast<unsigned char>(c) >= 0x80) {
        ascii = false;
        break;
      }
    }
    if (ascii) {
      size_ = static_cast<uint32_t>(text.size());
      return;
    }
    for (uint32_t i = 0; i < text.size(); ++i) {
      if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) byte_of_.push_back(i);
    }
    byte_of_.push_back(static_cast<uint32_t>(text.size()));
    size_ = static_cast<uint32_t>(text.size());
  }
  uint32_t Byte(size_t code_point) const {
    if (byte_of_.empty()) return base_ + static_cast<uint32_t>(std::min<size_t>(code_point, size_));
    if (code_point >= byte_of_.size()) return base_ + size_;
    return base_ + byte_of_[code_point];
  }

 private:
  uint32_t base_ = 0;
  std::vector<uint32_t> byte_of_;
  uint32_t size_ = 0;
};

class DiagnosticListener : public antlr4::BaseErrorListener {
 public:
  DiagnosticListener(const OffsetMap& map, Diagnostics* diagnostics, size_t max_errors)
      : map_(map), diagnostics_(diagnostics), max_errors_(max_errors) {}

  void syntaxError(antlr4::Recognizer*, antlr4::Token* token, size_t, size_t,
                   const std::string& msg, std::exception_ptr) override {
    if (count_ == 0 && token != nullptr) first_type_ = token->getType();
    if (count_++ >= max_errors_) return;
    if (token == nullptr) {
      diagnostics_->Error(codes::CH0101, {map_.Byte(0), map_.Byte(0)}, "syntax error");
      return;
    }
    Span span{map_.Byte(token->getStartIndex()), map_.Byte(token->getStopIndex() + 1)};
    if (token->getType() == antlr4::Token::EOF) {
      span = {map_.Byte(token->getStartIndex()), map_.Byte(token->getStartIndex())};
    }
    std::string help;
    size_t at = msg.find("expecting ");
    if (at != std::string::npos) help = "expected " + Tidy(msg.substr(at + 10));
    switch (token->getType()) {
      case CharterLexer::UNTERMINATED_STRING:
        diagnostics_->Error(codes::CH0102, span, "unterminated string literal",
                            "close the string with `\"`");
        return;
      case CharterLexer::ERROR_CHAR:
        diagnostics_->Error(codes::CH0103, span,
                            Cat("unexpected character `", token->getText(), "`"));
        return;
      case antlr4::Token::EOF:
        diagnostics_->Error(codes::CH0101, span, "unexpected end of input", help);
        return;
      default:
        break;
    }
    if (msg.rfind("missing ", 0) == 0) {
      size_t at_pos = msg.find(" at ");
      std::string what = Tidy(msg.substr(8, at_pos == std::string::npos ? std::string::npos
                                                                          : at_pos - 8));
      diagnostics_->Error(codes::CH0101, span,
                          Cat("missing ", what, " before `", token->getText(), "`"));
      return;
    }
    diagnostics_->Error(codes::CH0101, span, Cat("unexpected `", token->getText(), "`"), help);
  }

  size_t count() const { return count_; }
  // The type of the token the first error was reported at (INVALID_TYPE
  // when none was).
  size_t first_type() const { return first_type_; }

 private:
  // ANTLR writes token names as 'x' and sets as {'a', 'b'}; we use backticks.
  static std::string Tidy(std::string s) {
    // A set of tokens is written {'a', 'b'}; only those outer braces go.
    if (s.size() >= 2 && s.front() == '{' && s.back() == '}') s = s.substr(1, s.size() - 2);
    s = absl::StrReplaceAll(s, {{"'", "`"}});
    s = absl::StrReplaceAll(s, {{"IDENT", "an identifier"}, {"STRING", "a string"},
                                {"INT", "an integer"}, {"SLOT", "a slot"}, {"<EOF>", "end of input"}});
    return s;
  }

  const OffsetMap& map_;
  Diagnostics* diagnostics_;
  size_t max_errors_;
  size_t count_ = 0;
  size_t first_type_ = antlr4::Token::INVALID_TYPE;
};

// Builds the AST from a parse tree that parsed without syntax errors.
class AstBuilder {
 public:
  AstBuilder(const OffsetMap& map, Diagnostics* diagnostics, int max_depth, std::string_view text = {})
      : map_(map), diags_(diagnostics), max_depth_(max_depth), text_(text) {}

  bool BuildPolicy(CP::PolicyContext* ctx, size_t index, ast::Policy* out) {
    size_t errors_before = diags_->size();
    out->span = SpanOf(ctx);
    out->effect = ctx->PERMIT() != nullptr ? ast::Effect::kPermit : ast::Effect::kForbid;
    out->effect_span = SpanOf(ctx->effect);
    std::set<std::string> keys;
    for (CP::AnnotationContext* a : ctx->annotation()) {
      ast::Annotation ann;
      ann.key = RuleText(a->anyIdent());
      ann.span = SpanOf(a);
      if (a->STRING() != nullptr) ann.value = Unescape(a->STRING()->getSymbol(), false, nullptr);
      if (!keys.insert(ann.key).second) {
        diags_->Error(codes::CH0115, ann.span, Cat("duplicate annotation `@", ann.key, "`"),
                      "each annotation key may appear once per policy");
      }
      out->annotations.push_back(std::move(ann));
    }
    out->id = Cat("policy", index);
    for (const ast::Annotation& a : out->annotations) {
      if (a.key == "id") out->id = a.value;
    }
    CP::ScopeContext* scope = ctx->scope();
    Scope(scope->principalScope()->scopeConstraint(), SpanOf(scope->principalScope()),
          "?principal", &out->principal);
    Action(scope->actionScope(), &out->action);
    Scope(scope->resourceScope()->scopeConstraint(), SpanOf(scope->resourceScope()), "?resource",
          &out->resource);
    for (CP::ConditionContext* c : ctx->condition()) {
      ast::Condition cond;
      cond.when = c->WHEN() != nullptr;
      cond.span = SpanOf(c);
      if (c->expr() == nullptr) {
        diags_->Error(codes::CH0121, cond.span,
                      Cat("empty `", cond.when ? "when" : "unless", "` clause"),
                      "write a condition between the braces, or remove the clause");
        continue;
      }
      cond.body = Expr(c->expr());
      CheckDepth(*cond.body);
      out->conditions.push_back(std::move(cond));
    }
    return diags_->size() == errors_before;
  }

  std::unique_ptr<ast::Expr> BuildExpression(CP::ExprContext* ctx) {
    std::unique_ptr<ast::Expr> e = Expr(ctx);
    CheckDepth(*e);
    return e;
  }

  // A scheduling declaration. Its nesting is bounded by CheckNesting, so the
  // recursion over blocks is too.
  bool BuildDeclaration(CP::DeclarationContext* ctx, ast::DeclEntry* out) {
    size_t errors_before = diags_->size();
    DeclEntry(ctx->declEntry(), out);
    return diags_->size() == errors_before;
  }

  // The head word of a declaration and the names after it, for CH0800.
  Span DeclarationHead(CP::DeclarationContext* ctx) {
    CP::DeclEntryContext* e = ctx->declEntry();
    auto words = e->declWord();
    return {SpanOf(words.front()).begin, SpanOf(words.back()).end};
  }

 private:
  Span SpanOf(antlr4::ParserRuleContext* ctx) const {
    antlr4::Token* stop = ctx->getStop();
    uint32_t begin = map_.Byte(ctx->getStart()->getStartIndex());
    uint32_t end = stop != nullptr ? map_.Byte(stop->getStopIndex() + 1) : begin;
    return {begin, std::max(begin, end)};
  }
  Span SpanOf(antlr4::Token* token) const {
    return {map_.Byte(token->getStartIndex()), map_.Byte(token->getStopIndex() + 1)};
  }

  std::string PathText(CP::PathContext* p) {
    std::string s;
    for (CP::IdentContext* i : p->ident()) {
      if (!s.empty()) s += "::";
      std::string name = RuleText(i);
      s += name;
      if (name == "__cedar") {
        diags_->Error(codes::CH0127, SpanOf(i), "`__cedar` is reserved and cannot name a type or namespace");
      }
    }
    return s;
  }

  ast::EntityRef Entity(CP::EntityRefContext* ctx) {
    ast::EntityRef e;
    e.type = PathText(ctx->path());
    e.id = Unescape(ctx->STRING()->getSymbol(), false, nullptr);
    e.span = SpanOf(ctx);
    return e;
  }

  void Scope(CP::ScopeConstraintContext* ctx, Span span, std::string_view slot,
             ast::ScopeConstraint* out) {
    out->span = span;
    if (ctx == nullptr) return;
    CP::EntityOrSlotContext* target = nullptr;
    if (auto* is = dynamic_cast<CP::IsConstraintContext*>(ctx)) {
      out->kind = is->IN() != nullptr ? ast::ScopeConstraint::Kind::kIsIn
                                      : ast::ScopeConstraint::Kind::kIs;
      out->type = PathText(is->path());
      target = is->entityOrSlot();
    } else if (auto* in = dynamic_cast<CP::InConstraintContext*>(ctx)) {
      out->kind = ast::ScopeConstraint::Kind::kIn;
      target = in->entityOrSlot();
    } else if (auto* eq = dynamic_cast<CP::EqConstraintContext*>(ctx)) {
      out->kind = ast::ScopeConstraint::Kind::kEq;
      target = eq->entityOrSlot();
    }
    if (target == nullptr) return;
    if (target->SLOT() != nullptr) {
      std::string name = target->SLOT()->getText();
      if (name != slot) {
        diags_->Error(codes::CH0114, SpanOf(target),
                      Cat("invalid slot `", name, "` here"),
                      Cat("the only slot allowed in this position is `", slot, "`"));
      }
      out->slot = true;
    } else {
      out->entity = Entity(target->entityRef());
    }
  }

  void CheckActionType(const ast::EntityRef& e) {
    std::string_view t = e.type;
    if (t == "Action" || (t.size() > 8 && t.substr(t.size() - 8) == "::Action")) return;
    diags_->Error(codes::CH0117, e.span,
                  Cat("expected an entity of type `Action`, found `", e.type, "`"),
                  "actions in the scope are written `Action::\"name\"`");
  }

  void Action(CP::ActionScopeContext* ctx, ast::ActionConstraint* out) {
    out->span = SpanOf(ctx);
    if (ctx->EQ() != nullptr) {
      out->kind = ast::ActionConstraint::Kind::kEq;
      out->entities.push_back(Entity(ctx->entityRef()));
    } else if (ctx->entityList() != nullptr) {
      out->kind = ast::ActionConstraint::Kind::kInList;
      for (CP::EntityRefContext* e : ctx->entityList()->entityRef()) {
        out->entities.push_back(Entity(e));
      }
    } else if (ctx->IN() != nullptr) {
      out->kind = ast::ActionConstraint::Kind::kIn;
      out->entities.push_back(Entity(ctx->entityRef()));
    }
    for (const ast::EntityRef& e : out->entities) CheckActionType(e);
  }

  static std::unique_ptr<ast::Expr> Node(ast::Expr::Kind kind, Span span) {
    auto e = std::make_unique<ast::Expr>();
    e->kind = kind;
    e->span = span;
    return e;
  }

  std::unique_ptr<ast::Expr> Expr(CP::ExprContext* ctx) {
    if (auto* i = dynamic_cast<CP::IfExprContext*>(ctx)) {
      auto e = Node(ast::Expr::Kind::kIf, SpanOf(ctx));
      for (CP::ExprContext* sub : i->expr()) e->args.push_back(Expr(sub));
      return e;
    }
    return Or(static_cast<CP::PlainExprContext*>(ctx)->orExpr());
  }

  std::unique_ptr<ast::Expr> Binary(ast::BinaryOp op, std::unique_ptr<ast::Expr> l,
                                    std::unique_ptr<ast::Expr> r) {
    auto e = Node(ast::Expr::Kind::kBinary, {l->span.begin, r->span.end});
    e->bop = op;
    e->args.push_back(std::move(l));
    e->args.push_back(std::move(r));
    return e;
  }

  std::unique_ptr<ast::Expr> Or(CP::OrExprContext* ctx) {
    auto terms = ctx->andExpr();
    std::unique_ptr<ast::Expr> e = And(terms[0]);
    for (size_t i = 1; i < terms.size(); ++i) e = Binary(ast::BinaryOp::kOr, std::move(e), And(terms[i]));
    return e;
  }

  std::unique_ptr<ast::Expr> And(CP::AndExprContext* ctx) {
    auto terms = ctx->relation();
    std::unique_ptr<ast::Expr> e = Relation(terms[0]);
    for (size_t i = 1; i < terms.size(); ++i) {
      e = Binary(ast::BinaryOp::kAnd, std::move(e), Relation(terms[i]));
    }
    return e;
  }

  std::unique_ptr<ast::Expr> Relation(CP::RelationContext* ctx) {
    std::unique_ptr<ast::Expr> left = Add(ctx->addExpr());
    auto tails = ctx->relTail();
    if (tails.empty()) return left;
    if (tails.size() > 1) {
      diags_->Error(codes::CH0110, SpanOf(ctx), "multiple relational operators in a row",
                    "relational operators are not associative: add parentheses");
      return left;
    }
    Span span = SpanOf(ctx);
    CP::RelTailContext* tail = tails[0];
    if (auto* op = dynamic_cast<CP::RelOpContext*>(tail)) {
      ast::BinaryOp bop = ast::BinaryOp::kEq;
      switch (op->op->getType()) {
        case CharterLexer::EQ: bop = ast::BinaryOp::kEq; break;
        case CharterLexer::NE: bop = ast::BinaryOp::kNe; break;
        case CharterLexer::LT: bop = ast::BinaryOp::kLt; break;
        case CharterLexer::LE: bop = ast::BinaryOp::kLe; break;
        case CharterLexer::GT: bop = ast::BinaryOp::kGt; break;
        case CharterLexer::GE: bop = ast::BinaryOp::kGe; break;
        default: bop = ast::BinaryOp::kIn; break;
      }
      auto e = Binary(bop, std::move(left), Add(op->addExpr()));
      e->span = span;
      return e;
    }
    if (auto* has = dynamic_cast<CP::HasOpContext*>(tail)) {
      std::vector<std::string> path;
      if (has->STRING() != nullptr) {
        path.push_back(Unescape(has->STRING()->getSymbol(), false, nullptr));
      } else {
        for (CP::AnyIdentContext* id : has->anyIdent()) {
          CheckUnreserved(id, "an attribute name");
          path.push_back(RuleText(id));
        }
      }
      // `e has a.b.c` means `e has a && e.a has b && e.a.b has c`; one
      // node holds the whole path and the compiler lowers it so.
      auto test = Node(ast::Expr::Kind::kHas, span);
      test->str = path[0];
      test->keys = std::move(path);
      test->args.push_back(std::move(left));
      return test;
    }
    if (auto* like = dynamic_cast<CP::LikeOpContext*>(tail)) {
      auto e = Node(ast::Expr::Kind::kLike, span);
      Unescape(like->STRING()->getSymbol(), true, &e->pattern);
      e->args.push_back(std::move(left));
      return e;
    }
    auto* is = static_cast<CP::IsOpContext*>(tail);
    auto e = Node(ast::Expr::Kind::kIs, span);
    e->str = PathText(is->path());
    e->args.push_back(std::move(left));
    if (is->addExpr() != nullptr) e->args.push_back(Add(is->addExpr()));
    return e;
  }


  // Later stages walk expressions recursively; bound their depth here.
  void CheckDepth(const ast::Expr& root) {
    std::vector<std::pair<const ast::Expr*, int>> stack{{&root, 1}};
    while (!stack.empty()) {
      auto [e, depth] = stack.back();
      stack.pop_back();
      if (depth > max_depth_) {
        diags_->Error(codes::CH0004, root.span,
                      Cat("expression is more than ", max_depth_, " operators deep"),
                      "split it into several `when` clauses or policies");
        return;
      }
      for (size_t i = 0; i < e->args.size(); ++i) {
        // The left spine of a chain that the compiler walks in a loop
        // (`a || b || c`, `a + b`, `e.a.b`) adds no depth.
        const ast::Expr* child = e->args[i].get();
        bool spine = i == 0 && ast::ChainKind(*e) != 0 && ast::ChainKind(*child) == ast::ChainKind(*e);
        stack.push_back({child, spine ? depth : depth + 1});
      }
    }
  }

  // Reserved words (and Cedar's reserved `__cedar`) cannot name attributes
  // or keys, though the grammar lets them through to give this message.
  void CheckUnreserved(CP::AnyIdentContext* id, std::string_view what) {
    std::string name = RuleText(id);
    if (id->ident() != nullptr && name != "__cedar") return;
    diags_->Error(codes::CH0127, SpanOf(id), Cat("`", name, "` is reserved and cannot be ", what),
                  Cat("write it as a string: `[\"", name, "\"]`, `has \"", name, "\"` or `\"", name,
                      "\": ...`"));
  }

  // `receiver` is 1 for methods, whose receiver counts in the arity. Only
  // the rows whose wrong arity is a parse error (the set and tag methods);
  // an extension call with the wrong arity parses and fails when evaluated.
  void CheckArity(const BuiltinInfo& info, size_t given, size_t receiver, Span span) {
    size_t wanted = info.arity - receiver;
    if (given == wanted || info.wrong_arity != WrongArity::kParse) return;
    diags_->Error(codes::CH0126, span,
                  Cat("`", info.name, "` takes ", wanted, wanted == 1 ? " argument" : " arguments",
                      ", ", given, " given"));
  }

  std::unique_ptr<ast::Expr> Add(CP::AddExprContext* ctx) {
    auto terms = ctx->mulExpr();
    std::unique_ptr<ast::Expr> e = Mul(terms[0]);
    for (size_t i = 1; i < terms.size(); ++i) {
      ast::BinaryOp op =
          ctx->op[i - 1]->getType() == CharterLexer::PLUS ? ast::BinaryOp::kAdd : ast::BinaryOp::kSub;
      e = Binary(op, std::move(e), Mul(terms[i]));
    }
    return e;
  }

  std::unique_ptr<ast::Expr> Mul(CP::MulExprContext* ctx) {
    auto terms = ctx->unary();
    std::unique_ptr<ast::Expr> e = Unary(terms[0]);
    for (size_t i = 1; i < terms.size(); ++i) {
      if (ctx->op[i - 1]->getType() != CharterLexer::STAR) {
        diags_->Error(codes::CH0118, SpanOf(ctx->op[i - 1]),
                      Cat("`", ctx->op[i - 1]->getText(), "` is not an operator of the language"),
                      "only `+`, `-` and `*` are supported on integers");
      }
      e = Binary(ast::BinaryOp::kMul, std::move(e), Unary(terms[i]));
    }
    return e;
  }

  std::unique_ptr<ast::Expr> Unary(CP::UnaryContext* ctx) {
    size_t nots = ctx->BANG().size();
    size_t negs = ctx->MINUS().size();
    size_t count = nots + negs;
    Span span = SpanOf(ctx);
    if (count > 4) {
      diags_->Error(codes::CH0119, span,
                    Cat("too many occurrences of `", nots > 0 ? "!" : "-", "`"),
                    "at most four unary operators may be applied in a row");
    }
    CP::MemberContext* member = ctx->member();
    std::unique_ptr<ast::Expr> e;
    // `-` directly before an integer literal is part of the literal, so that
    // -9223372036854775808 can be written.
    auto* lit = dynamic_cast<CP::IntLitContext*>(member->primary());
    if (negs > 0 && lit != nullptr && member->memberSuffix().empty()) {
      e = IntLiteral(lit->INT()->getSymbol(), true, SpanOf(ctx->MINUS().back()->getSymbol()).begin);
      --negs;
      count = negs;
    } else {
      e = Member(member);
    }
    for (size_t i = 0; i < count; ++i) {
      auto u = Node(ast::Expr::Kind::kUnary, span);
      u->uop = nots > 0 ? ast::UnaryOp::kNot : ast::UnaryOp::kNeg;
      u->args.push_back(std::move(e));
      e = std::move(u);
    }
    return e;
  }

  std::unique_ptr<ast::Expr> IntLiteral(antlr4::Token* token, bool negative, uint32_t begin) {
    Span span = SpanOf(token);
    if (negative) span.begin = begin;
    std::string text = token->getText();
    uint64_t v = 0;
    bool overflow = false;
    for (char c : text) {
      uint64_t d = static_cast<uint64_t>(c - '0');
      if (v > (std::numeric_limits<uint64_t>::max() - d) / 10) {
        overflow = true;
        break;
      }
      v = v * 10 + d;
    }
    uint64_t limit = negative ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
    auto e = Node(ast::Expr::Kind::kLong, span);
    if (overflow || v > limit) {
      diags_->Error(codes::CH0112, span,
                    Cat("integer literal `", negative ? "-" : "", text,
                                 "` does not fit in 64 bits"),
                    "integers range from -9223372036854775808 to 9223372036854775807");
      return e;
    }
    e->i = negative ? static_cast<int64_t>(0 - v) : static_cast<int64_t>(v);
    return e;
  }

  std::unique_ptr<ast::Expr> Member(CP::MemberContext* ctx) {
    std::unique_ptr<ast::Expr> e = Primary(ctx->primary());
    uint32_t begin = SpanOf(ctx->primary()).begin;
    for (CP::MemberSuffixContext* suffix : ctx->memberSuffix()) {
      Span span{begin, SpanOf(suffix).end};
      if (auto* m = dynamic_cast<CP::MethodCallContext*>(suffix)) {
        auto call = Node(ast::Expr::Kind::kMethod, span);
        call->str = RuleText(m->anyIdent());
        int id = FindBuiltin(call->str, CallStyle::kMethod);
        if (id < 0) {
          diags_->Error(codes::CH0113, SpanOf(m->anyIdent()),
                        Cat("`", call->str, "` is not a known method"),
                        FindBuiltin(call->str, CallStyle::kFunction) >= 0
                            ? Cat("`", call->str, "` is a function: write `", call->str, "(...)`")
                            : "");
        }
        call->args.push_back(std::move(e));
        if (m->exprList() != nullptr) {
          for (CP::ExprContext* a : m->exprList()->expr()) call->args.push_back(Expr(a));
        }
        if (id >= 0) CheckArity(kBuiltins[id], call->args.size() - 1, 1, span);
        e = std::move(call);
      } else if (auto* a = dynamic_cast<CP::AttrAccessContext*>(suffix)) {
        auto attr = Node(ast::Expr::Kind::kAttr, span);
        CheckUnreserved(a->anyIdent(), "an attribute name");
        attr->str = RuleText(a->anyIdent());
        attr->args.push_back(std::move(e));
        e = std::move(attr);
      } else {
        auto* idx = static_cast<CP::IndexAccessContext*>(suffix);
        auto attr = Node(ast::Expr::Kind::kAttr, span);
        attr->str = Unescape(idx->STRING()->getSymbol(), false, nullptr);
        attr->args.push_back(std::move(e));
        e = std::move(attr);
      }
    }
    return e;
  }

  std::unique_ptr<ast::Expr> Primary(CP::PrimaryContext* ctx) {
    Span span = SpanOf(ctx);
    if (dynamic_cast<CP::TrueLitContext*>(ctx) || dynamic_cast<CP::FalseLitContext*>(ctx)) {
      auto e = Node(ast::Expr::Kind::kBool, span);
      e->b = dynamic_cast<CP::TrueLitContext*>(ctx) != nullptr;
      return e;
    }
    if (auto* i = dynamic_cast<CP::IntLitContext*>(ctx)) {
      return IntLiteral(i->INT()->getSymbol(), false, 0);
    }
    if (auto* s = dynamic_cast<CP::StringLitContext*>(ctx)) {
      auto e = Node(ast::Expr::Kind::kString, span);
      e->str = Unescape(s->STRING()->getSymbol(), false, nullptr);
      return e;
    }
    if (auto* v = dynamic_cast<CP::VarRefContext*>(ctx)) {
      auto e = Node(ast::Expr::Kind::kVar, span);
      switch (v->var->getType()) {
        case CharterLexer::PRINCIPAL: e->var = ast::Var::kPrincipal; break;
        case CharterLexer::ACTION: e->var = ast::Var::kAction; break;
        case CharterLexer::RESOURCE: e->var = ast::Var::kResource; break;
        default: e->var = ast::Var::kContext; break;
      }
      return e;
    }
    if (auto* ent = dynamic_cast<CP::EntityLitContext*>(ctx)) {
      auto e = Node(ast::Expr::Kind::kEntity, span);
      e->entity = Entity(ent->entityRef());
      return e;
    }
    if (auto* f = dynamic_cast<CP::FunctionCallContext*>(ctx)) {
      auto e = Node(ast::Expr::Kind::kCall, span);
      e->str = PathText(f->path());
      int id = FindBuiltin(e->str, CallStyle::kFunction);
      if (id < 0) {
        diags_->Error(codes::CH0113, SpanOf(f->path()),
                      Cat("`", e->str, "` is not a known function"),
                      "the functions are `ip`, `decimal`, `datetime` and `duration`; "
                      "other operations are methods, written `e.name(...)`");
      }
      if (f->exprList() != nullptr) {
        for (CP::ExprContext* a : f->exprList()->expr()) e->args.push_back(Expr(a));
      }
      if (id >= 0) CheckArity(kBuiltins[id], e->args.size(), 0, span);
      return e;
    }
    if (dynamic_cast<CP::SlotRefContext*>(ctx)) {
      diags_->Error(codes::CH0122, span, "template slots may appear only in the policy scope");
      return Node(ast::Expr::Kind::kSlot, span);
    }
    if (auto* p = dynamic_cast<CP::ParensContext*>(ctx)) return Expr(p->expr());
    if (auto* s = dynamic_cast<CP::SetLitContext*>(ctx)) {
      auto e = Node(ast::Expr::Kind::kSet, span);
      if (s->exprList() != nullptr) {
        for (CP::ExprContext* a : s->exprList()->expr()) e->args.push_back(Expr(a));
      }
      return e;
    }
    if (auto* r = dynamic_cast<CP::RecordLitContext*>(ctx)) {
      auto e = Node(ast::Expr::Kind::kRecord, span);
      std::set<std::string> seen;
      for (CP::RecordInitContext* init : r->recordInit()) {
        std::string key;
        if (init->key->STRING() != nullptr) {
          key = Unescape(init->key->STRING()->getSymbol(), false, nullptr);
        } else {
          key = RuleText(init->key->anyIdent());
          CheckUnreserved(init->key->anyIdent(), "a record key");
        }
        if (!seen.insert(key).second) {
          diags_->Error(codes::CH0116, SpanOf(init->key), Cat("duplicate record key `", key, "`"));
        }
        e->keys.push_back(std::move(key));
        e->args.push_back(Expr(init->expr()));
      }
      return e;
    }
    auto* bare = static_cast<CP::BarePathContext*>(ctx);
    std::string path = PathText(bare->path());
    diags_->Error(codes::CH0120, span, Cat("`", path, "` is not a value"),
                  Cat("an entity is written `", path, "::\"id\"`"));
    return Node(ast::Expr::Kind::kBool, span);
  }

  // Decodes a string token with Cedar's escapes (those of Rust string
  // literals). With `pattern`, `\*` is a literal star and a bare `*` a
  // wildcard, and the elements go to *pattern.
  std::string Unescape(antlr4::Token* token, bool is_pattern, std::vector<ast::PatternElem>* pattern) {
    std::string raw = token->getText();
    std::string_view s(raw);
    s.remove_prefix(1);
    s.remove_suffix(1);
    uint32_t base = map_.Byte(token->getStartIndex()) + 1;
    std::string out;
    auto flush = [&](bool wildcard) {
      if (pattern == nullptr) return;
      if (!out.empty()) pattern->push_back({false, out});
      out.clear();
      if (wildcard && (pattern->empty() || !pattern->back().wildcard)) pattern->push_back({true, ""});
    };
    for (size_t i = 0; i < s.size(); ++i) {
      char c = s[i];
      if (c == '*' && is_pattern) {
        flush(true);
        continue;
      }
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      size_t start = i;
      auto bad = [&](size_t len, std::string what) {
        Span span{base + static_cast<uint32_t>(start),
                  base + static_cast<uint32_t>(std::min(s.size(), start + len))};
        diags_->Error(codes::CH0111, span, std::move(what),
                      "the escapes are \\n \\r \\t \\\\ \\0 \\' \\\" \\xHH \\u{HHHHHH}");
      };
      if (i + 1 >= s.size()) {
        bad(1, "invalid escape at the end of a string");
        break;
      }
      char n = s[++i];
      switch (n) {
        case 'n': out.push_back('\n'); break;
        case 'r': out.push_back('\r'); break;
        case 't': out.push_back('\t'); break;
        case '\\': out.push_back('\\'); break;
        case '0': out.push_back('\0'); break;
        case '\'': out.push_back('\''); break;
        case '"': out.push_back('"'); break;
        case '*':
          if (is_pattern) {
            out.push_back('*');
          } else {
            bad(2, "invalid escape `\\*` in a string");
          }
          break;
        case 'x': {
          auto hex = [](char h) {
            if (h >= '0' && h <= '9') return h - '0';
            if (h >= 'a' && h <= 'f') return h - 'a' + 10;
            if (h >= 'A' && h <= 'F') return h - 'A' + 10;
            return -1;
          };
          if (i + 2 >= s.size() + 0 || hex(s[i + 1]) < 0 || hex(s[i + 2]) < 0) {
            bad(2, "invalid `\\x` escape: expected two hexadecimal digits");
            break;
          }
          int v = hex(s[i + 1]) * 16 + hex(s[i + 2]);
          if (v > 0x7F) {
            bad(4, "`\\x` escapes must be at most `\\x7F`");
          } else {
            out.push_back(static_cast<char>(v));
          }
          i += 2;
          break;
        }
        case 'u': {
          size_t close = s.find('}', i);
          if (i + 1 >= s.size() || s[i + 1] != '{' || close == std::string_view::npos ||
              close - i - 2 < 1 || close - i - 2 > 6) {
            bad(2, "invalid `\\u` escape: expected `\\u{` and 1 to 6 hexadecimal digits and `}`");
            break;
          }
          uint32_t v = 0;
          bool ok = true;
          for (size_t k = i + 2; k < close; ++k) {
            char h = s[k];
            int d = (h >= '0' && h <= '9')   ? h - '0'
                    : (h >= 'a' && h <= 'f') ? h - 'a' + 10
                    : (h >= 'A' && h <= 'F') ? h - 'A' + 10
                                             : -1;
            if (d < 0) ok = false;
            v = v * 16 + static_cast<uint32_t>(d < 0 ? 0 : d);
          }
          if (!ok || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) {
            bad(close - start + 1, "invalid `\\u` escape: not a Unicode scalar value");
          } else {
            AppendUtf8(&out, v);
          }
          i = close;
          break;
        }
        case '\n':
        case '\r':
          bad(1, "a backslash cannot end a line inside a string");
          break;
        default:
          bad(2, Cat("invalid escape `\\", std::string(1, n), "` in a string"));
          break;
      }
    }
    flush(false);
    return out;
  }

  ast::DeclEntry::Word DeclWord(CP::DeclWordContext* ctx) {
    ast::DeclEntry::Word w;
    w.span = SpanOf(ctx);
    if (ctx->STRING() != nullptr) {
      w.quoted = true;
      w.text = Unescape(ctx->STRING()->getSymbol(), false, nullptr);
    } else {
      w.text = ctx->getText();
    }
    return w;
  }

  void DeclEntry(CP::DeclEntryContext* ctx, ast::DeclEntry* out) {
    out->span = SpanOf(ctx);
    auto words = ctx->declWord();
    out->head = DeclWord(words[0]);
    for (size_t i = 1; i < words.size(); ++i) out->names.push_back(DeclWord(words[i]));
    CP::DeclBodyContext* body = ctx->declBody();
    if (auto* setting = dynamic_cast<CP::DeclSettingContext*>(body)) {
      out->body = ast::DeclEntry::Body::kSetting;
      auto values = setting->declValue();
      auto modifiers = setting->IDENT();
      DeclValue(values[0], &out->value);
      for (size_t i = 0; i < modifiers.size() && i + 1 < values.size(); ++i) {
        ast::DeclEntry::Modifier m;
        m.word.text = modifiers[i]->getText();
        m.word.span = SpanOf(modifiers[i]->getSymbol());
        DeclValue(values[i + 1], &m.value);
        out->modifiers.push_back(std::move(m));
      }
    } else if (auto* block = dynamic_cast<CP::DeclBlockContext*>(body)) {
      out->body = ast::DeclEntry::Body::kBlock;
      for (CP::DeclEntryContext* e : block->declEntry()) {
        out->entries.emplace_back();
        DeclEntry(e, &out->entries.back());
      }
    } else {
      out->body = ast::DeclEntry::Body::kBare;
    }
  }

  void DeclValue(CP::DeclValueContext* ctx, ast::DeclValue* out) {
    out->span = SpanOf(ctx);
    if (dynamic_cast<CP::DeclNumberContext*>(ctx) != nullptr) {
      // The source text as written, spaces included: the declarations'
      // reader refuses a quantity that spaces split (`64 Gi`).
      out->kind = ast::DeclValue::Kind::kNumber;
      out->text = std::string(text_.substr(out->span.begin, out->span.end - out->span.begin));
    } else if (auto* str = dynamic_cast<CP::DeclStringContext*>(ctx)) {
      out->kind = ast::DeclValue::Kind::kString;
      out->text = Unescape(str->STRING()->getSymbol(), false, nullptr);
    } else if (dynamic_cast<CP::DeclTrueContext*>(ctx) != nullptr) {
      out->kind = ast::DeclValue::Kind::kBool;
      out->flag = true;
    } else if (dynamic_cast<CP::DeclFalseContext*>(ctx) != nullptr) {
      out->kind = ast::DeclValue::Kind::kBool;
    } else if (auto* entity = dynamic_cast<CP::DeclEntityContext*>(ctx)) {
      out->kind = ast::DeclValue::Kind::kEntity;
      ast::EntityRef e = Entity(entity->entityRef());
      out->text = std::move(e.type);
      out->id = std::move(e.id);
    } else if (auto* word = dynamic_cast<CP::DeclWordValueContext*>(ctx)) {
      out->kind = ast::DeclValue::Kind::kWord;
      out->text = PathText(word->path());
    } else if (auto* list = dynamic_cast<CP::DeclListContext*>(ctx)) {
      out->kind = ast::DeclValue::Kind::kList;
      for (CP::DeclValueContext* v : list->declValue()) {
        out->items.emplace_back();
        DeclValue(v, &out->items.back());
      }
    }
  }

  const OffsetMap& map_;
  Diagnostics* diags_;
  int max_depth_;
  std::string_view text_;
};

// The scan before ANTLR builds anything. ANTLR's tokens, its UTF-32 copy of
// the input and its parse tree cost hundreds of bytes for each byte of
// input, so the limits that bound them are checked here, over the bytes, in
// linear time and constant memory (docs/diagnostics.md, "Input checks"):
//
// - nesting (CH0003): brackets open a level; each `if` opens one that lasts
//   until the enclosing bracket closes (an over-estimate, never an
//   under-estimate). In .charter text (`blocks`) a `;` ends a line inside a
//   declaration's braces, so it ends a policy only outside every bracket;
// - runs of unary operators (CH0119): a run of more than kScanUnaryRun `!`
//   or `-` is refused here, underlined whole, before its tokens cost
//   anything; shorter runs that are still too long (more than four unary
//   operators) are reported by the AST builder with their operand;
// - tokens in one policy or declaration (CH0005): those between two `;`
//   outside every bracket, or in .charter text from the start of a
//   declaration (a unit that does not start with `@`, `permit` or `forbid`)
//   to the `}` that closes its block;
// - tokens in the whole text (CH0006).
//
// The scan also cuts the text into groups of whole policies, each ending
// after a `;` outside every bracket or a declaration's closing `}`, that ANTLR parses one at a time, so
// that its memory is bounded by the group, not the set. Small texts are one
// group, parsed exactly as before.
//
// The scanner follows grammar/Charter.g4's lexer as far as these checks
// need: strings (to the end of the text when unterminated), `//` comments,
// identifiers (to find `if`), slots, integers and the two-character
// operators; any other character is one token.
constexpr size_t kGroupTokens = 1 << 16;
constexpr size_t kScanUnaryRun = 16;

struct PreScan {
  // The byte offsets where the groups after the first begin.
  std::vector<uint32_t> group_starts;
};

bool ScanText(std::string_view text, const CompileOptions& options, bool blocks,
              Diagnostics* diagnostics, PreScan* out) {
  enum class Kind { kOpen, kClose, kSemi, kIf, kBang, kMinus, kOther };
  auto ident_start = [](unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  auto ident_char = [&](unsigned char c) { return ident_start(c) || (c >= '0' && c <= '9'); };
  std::vector<int> ifs_at_level{0};
  int depth = 0;
  size_t brackets = 0;  // never reset by `;`: where a group may end
  size_t policy_tokens = 0, total_tokens = 0, group_tokens = 0;
  bool unit_start = true;    // the next token starts a policy or a declaration
  bool declaration = false;  // the current unit is a declaration (.charter text)
  Kind run_kind = Kind::kOther;
  size_t run_length = 0;
  uint32_t run_begin = 0, run_end = 0;
  const size_t n = text.size();
  size_t i = 0;
  while (i < n) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f') {
      ++i;
      continue;
    }
    if (c == '/' && i + 1 < n && text[i + 1] == '/') {
      while (i < n && text[i] != '\n' && text[i] != '\r') ++i;
      continue;
    }
    const size_t begin = i;
    Kind kind = Kind::kOther;
    if (c == '"') {
      ++i;
      while (i < n && text[i] != '"') i += text[i] == '\\' ? 2 : 1;
      i = std::min(i + 1, n);
    } else if (ident_start(c) || (c == '?' && i + 1 < n && ident_start(static_cast<unsigned char>(text[i + 1])))) {
      ++i;
      while (i < n && ident_char(static_cast<unsigned char>(text[i]))) ++i;
      if (i - begin == 2 && text[begin] == 'i' && text[begin + 1] == 'f') kind = Kind::kIf;
    } else if (c >= '0' && c <= '9') {
      while (i < n && text[i] >= '0' && text[i] <= '9') ++i;
    } else {
      ++i;
      char next = i < n ? text[i] : '\0';
      bool pair = (next == '=' && (c == '=' || c == '!' || c == '<' || c == '>')) ||
                  (c == '&' && next == '&') || (c == '|' && next == '|') || (c == ':' && next == ':');
      if (pair) {
        ++i;
      } else if (c >= 0x80) {
        while (i < n && (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) ++i;
      } else if (c == '(' || c == '[' || c == '{') {
        kind = Kind::kOpen;
      } else if (c == ')' || c == ']' || c == '}') {
        kind = Kind::kClose;
      } else if (c == ';') {
        kind = Kind::kSemi;
      } else if (c == '!') {
        kind = Kind::kBang;
      } else if (c == '-') {
        kind = Kind::kMinus;
      }
    }
    const uint32_t at = static_cast<uint32_t>(begin);
    if (unit_start) {
      const std::string_view word = text.substr(begin, i - begin);
      declaration = blocks && c != '@' && word != "permit" && word != "forbid";
      unit_start = false;
    }
    ++total_tokens;
    ++policy_tokens;
    ++group_tokens;
    if (total_tokens > options.max_tokens) {
      diagnostics->Error(codes::CH0006, {at, static_cast<uint32_t>(i)},
                         Cat("policy text has more than ", options.max_tokens, " tokens"),
                         "split the policy set into several files, or raise the limit");
      return false;
    }
    if (policy_tokens > options.max_policy_tokens) {
      diagnostics->Error(codes::CH0005, {at, static_cast<uint32_t>(i)},
                         Cat(declaration ? "declaration" : "policy", " has more than ", options.max_policy_tokens,
                             " tokens"),
                         declaration ? "split it into several declarations, or raise the limit"
                                     : "split it into several policies, or raise the limit");
      return false;
    }
    // Runs of `!` or of `-`.
    if ((kind == Kind::kBang || kind == Kind::kMinus) && kind == run_kind) {
      ++run_length;
    } else {
      run_kind = kind;
      run_length = 1;
      run_begin = at;
    }
    run_end = static_cast<uint32_t>(i);
    if ((run_kind == Kind::kBang || run_kind == Kind::kMinus) && run_length > kScanUnaryRun) {
      // Report the whole run, which the scan reads to its end.
      size_t j = i;
      char op = static_cast<char>(c);
      while (j < n) {
        unsigned char d = static_cast<unsigned char>(text[j]);
        if (d == ' ' || d == '\t' || d == '\r' || d == '\n' || d == '\f') {
          ++j;
        } else if (d == '/' && j + 1 < n && text[j + 1] == '/') {
          while (j < n && text[j] != '\n' && text[j] != '\r') ++j;
        } else if (d == static_cast<unsigned char>(op) && !(op == '!' && j + 1 < n && text[j + 1] == '=')) {
          run_end = static_cast<uint32_t>(++j);
        } else {
          break;
        }
      }
      diagnostics->Error(codes::CH0119, {run_begin, run_end}, Cat("too many occurrences of `", std::string(1, op), "`"),
                         "at most four unary operators may be applied in a row");
      return false;
    }
    // Nesting, as ANTLR's recursive descent will meet it.
    if (kind == Kind::kIf) {
      ++ifs_at_level.back();
      ++depth;
    } else if (kind == Kind::kOpen) {
      ifs_at_level.push_back(0);
      ++depth;
      ++brackets;
    } else if (kind == Kind::kClose) {
      if (ifs_at_level.size() > 1) {
        depth -= ifs_at_level.back() + 1;
        ifs_at_level.pop_back();
      }
      if (brackets > 0) --brackets;
      if (declaration && brackets == 0 && c == '}') {
        // The end of a declaration's block.
        policy_tokens = 0;
        unit_start = true;
        if (group_tokens >= kGroupTokens && i < n) {
          out->group_starts.push_back(static_cast<uint32_t>(i));
          group_tokens = 0;
        }
      }
    } else if (kind == Kind::kSemi) {
      if (!blocks || ifs_at_level.size() == 1) {
        ifs_at_level.assign(1, 0);
        depth = 0;
      }
      if (brackets == 0) {
        policy_tokens = 0;
        unit_start = true;
        if (group_tokens >= kGroupTokens && i < n) {
          out->group_starts.push_back(static_cast<uint32_t>(i));
          group_tokens = 0;
        }
      }
    }
    if (depth > options.max_nesting) {
      diagnostics->Error(codes::CH0003, {at, at + 1},
                         Cat("expression nested deeper than ", options.max_nesting, " levels"),
                         "split the condition into several `when` clauses or simplify it");
      return false;
    }
  }
  return true;
}

// Whether error recovery left the subtree intact: no rule that failed, no
// error node, no token the parser made up.
bool ParsedWhole(antlr4::tree::ParseTree* root) {
  std::vector<antlr4::tree::ParseTree*> stack{root};
  while (!stack.empty()) {
    antlr4::tree::ParseTree* t = stack.back();
    stack.pop_back();
    if (auto* rule = dynamic_cast<antlr4::ParserRuleContext*>(t)) {
      if (rule->exception != nullptr || rule->getStop() == nullptr) return false;
    } else if (dynamic_cast<antlr4::tree::ErrorNode*>(t) != nullptr) {
      return false;
    } else if (auto* leaf = dynamic_cast<antlr4::tree::TerminalNode*>(t)) {
      if (leaf->getSymbol()->getTokenIndex() == static_cast<size_t>(-1)) return false;
    }
    for (antlr4::tree::ParseTree* child : t->children) stack.push_back(child);
  }
  return true;
}

// The checks before ANTLR sees TEXT (WHAT names it in the message): within
// the size limit (CH0002) and valid UTF-8 (CH0001).
bool AcceptableText(const std::string& text, std::string_view what, const CompileOptions& options,
                    Diagnostics* diagnostics) {
  if (text.size() > options.max_source_bytes) {
    diagnostics->Error(codes::CH0002, {0, 0},
                       Cat(what, " is ", text.size(), " bytes, more than the limit of ", options.max_source_bytes));
    return false;
  }
  size_t bad = FindInvalidUtf8(text);
  if (bad != std::string_view::npos) {
    uint32_t at = static_cast<uint32_t>(bad);
    diagnostics->Error(codes::CH0001, {at, at + 1}, Cat(what, " is not valid UTF-8"));
    return false;
  }
  return true;
}

}  // namespace

bool IsCharterSource(const SourceFile& source, const CompileOptions& options) {
  switch (options.language) {
    case SourceLanguage::kCedar: return false;
    case SourceLanguage::kCharter: return true;
    case SourceLanguage::kAuto: break;
  }
  std::string_view name = source.name();
  constexpr std::string_view kExtension = ".charter";
  return name.size() >= kExtension.size() && name.substr(name.size() - kExtension.size()) == kExtension;
}

namespace {

// The two-stage parse (ANTLR's recommended strategy): SLL prediction, which
// never falls back to full-context prediction, bailing out at the first
// syntax error; only then the whole text again in full LL mode with error
// recovery, reporting to `listener` (when not null). The grammar's one true
// ambiguity (a scope variable is a `varRef` and a one-name `path`) is
// resolved the same way in both modes, by the first alternative; full LL
// resolved it anew at every variable, which was most of the time of a
// compile.
template <typename Context>
Context* ParseTwoStage(antlr4::CommonTokenStream& tokens, antlr4::ANTLRErrorListener* listener,
                       Context* (CharterParser::*rule)(), std::unique_ptr<CharterParser>* parser) {
  tokens.seek(0);
  *parser = std::make_unique<CharterParser>(&tokens);
  CharterParser& p = **parser;
  p.removeErrorListeners();
  p.getInterpreter<antlr4::atn::ParserATNSimulator>()->setPredictionMode(antlr4::atn::PredictionMode::SLL);
  p.setErrorHandler(std::make_shared<antlr4::BailErrorStrategy>());
  try {
    return (p.*rule)();
  } catch (const antlr4::ParseCancellationException&) {
  }
  tokens.seek(0);
  p.reset();
  p.setErrorHandler(std::make_shared<antlr4::DefaultErrorStrategy>());
  p.getInterpreter<antlr4::atn::ParserATNSimulator>()->setPredictionMode(antlr4::atn::PredictionMode::LL);
  if (listener != nullptr) p.addErrorListener(listener);
  return (p.*rule)();
}

// Counts syntax errors without reporting them.
class CountingListener : public antlr4::BaseErrorListener {
 public:
  void syntaxError(antlr4::Recognizer*, antlr4::Token*, size_t, size_t, const std::string&,
                   std::exception_ptr) override {
    ++count_;
  }
  size_t count() const { return count_; }

 private:
  size_t count_ = 0;
};

// The policies of a parse tree into `set`, numbering unnamed ones from
// `*index` (which moves past them); after a syntax error, only those that
// parsed whole. `ids` holds the ids of the whole set.
void AddPolicies(const std::vector<CP::PolicyContext*>& policies, bool had_errors, size_t* index,
                 std::set<std::string>* ids, AstBuilder* builder, Diagnostics* diagnostics,
                 ast::PolicySet* set) {
  for (size_t i = 0; i < policies.size(); ++i) {
    ast::Policy policy;
    size_t number = (*index)++;
    // After a syntax error, the policies that parsed whole are still
    // checked, so that one run reports every fault it can.
    if (had_errors && !ParsedWhole(policies[i])) continue;
    if (!builder->BuildPolicy(policies[i], number, &policy)) continue;
    if (!ids->insert(policy.id).second) {
      diagnostics->Error(codes::CH0125, policy.span, Cat("duplicate policy id `", policy.id, "`"),
                         "every policy's `@id` must be unique in the policy set");
      continue;
    }
    set->policies.push_back(std::move(policy));
  }
}

// Parses one group of whole policies (and declarations), GROUP, which
// begins at byte `base` of the source TEXT.
// A group of declarations only is read by the fast reader (declarations.h)
// unless `fast` is false; whatever it declines, ANTLR parses.
void ParseGroup(std::string_view text, std::string_view group, uint32_t base, bool charter,
                const CompileOptions& options, size_t* index, std::set<std::string>* ids,
                Diagnostics* diagnostics, ast::PolicySet* set, bool fast = true) {
  if (charter && fast && ReadDeclarationsFast(group, base, &set->declarations)) return;
  size_t before = diagnostics->size();
  OffsetMap map(group, base);
  CodePointStream input(group, base == 0);
  CharterTokenSource lexer(&input);
  antlr4::CommonTokenStream tokens(&lexer);
  tokens.fill();
  std::unique_ptr<CharterParser> parser;
  DiagnosticListener listener(map, diagnostics, options.max_errors);
  AstBuilder builder(map, diagnostics, options.max_expression_depth, text);
  if (!charter) {
    CharterParser::PolicySetContext* tree =
        ParseTwoStage(tokens, &listener, &CharterParser::policySet, &parser);
    if (listener.count() == 0) {
      AddPolicies(tree->policy(), false, index, ids, &builder, diagnostics, set);
      return;
    }
    // Cedar text that does not parse: if it parses as .charter text, its
    // faults are scheduling declarations, which only .charter files may
    // hold (CH0800). Only a text whose first fault is at a word or a string
    // can: the policies before a declaration parse the same in both
    // grammars, and a declaration begins with one of those, where Cedar
    // text wants `@`, `permit`, `forbid` or its end. Any other text keeps
    // its faults without a second parse (most of the time of a text with
    // a syntax error in a policy).
    const size_t first = listener.first_type();
    if (first != CharterLexer::IDENT && first != CharterLexer::STRING) {
      AddPolicies(tree->policy(), true, index, ids, &builder, diagnostics, set);
      return;
    }
    CountingListener silent;
    std::unique_ptr<CharterParser> charter_parser;
    CharterParser::CharterFileContext* as_charter =
        ParseTwoStage(tokens, &silent, &CharterParser::charterFile, &charter_parser);
    if (silent.count() > 0 || as_charter->declaration().empty()) {
      AddPolicies(tree->policy(), true, index, ids, &builder, diagnostics, set);
      return;
    }
    diagnostics->Truncate(before);
    for (CP::DeclarationContext* d : as_charter->declaration()) {
      std::string word = d->declEntry()->declWord(0)->getText();
      diagnostics->Error(codes::CH0800, builder.DeclarationHead(d),
                         Cat("a scheduling declaration (`", word, "`) in Cedar text"),
                         "Cedar files hold Cedar policies only: move the declaration to a .charter file");
    }
    AddPolicies(as_charter->policy(), false, index, ids, &builder, diagnostics, set);
    return;
  }
  CharterParser::CharterFileContext* tree =
      ParseTwoStage(tokens, &listener, &CharterParser::charterFile, &parser);
  const bool had_errors = listener.count() > 0;
  AddPolicies(tree->policy(), had_errors, index, ids, &builder, diagnostics, set);
  for (CP::DeclarationContext* d : tree->declaration()) {
    if (had_errors && !ParsedWhole(d)) continue;
    ast::DeclEntry entry;
    if (builder.BuildDeclaration(d, &entry)) set->declarations.push_back(std::move(entry));
  }
}

// Where parsing ran out of memory: CH0007 at the start of the group it was
// parsing, in place of whatever the group had reported.
void OutOfMemory(uint32_t at, std::string_view what, Diagnostics* diagnostics) {
  diagnostics->Error(codes::CH0007, {at, at},
                     Cat("out of memory while parsing ", what),
                     "give the process more memory, or split the input");
}

}  // namespace

ast::PolicySet ParsePolicySet(const SourceFile& source, const CompileOptions& options,
                              Diagnostics* diagnostics, size_t first_index) {
  ast::PolicySet set;
  size_t before = diagnostics->size();
  const std::string& text = source.text();
  if (!AcceptableText(text, "policy text", options, diagnostics)) return set;
  const bool charter = IsCharterSource(source, options);
  uint32_t group_begin = 0;
  try {
    PreScan scan;
    if (!ScanText(text, options, charter, diagnostics, &scan)) return set;
    scan.group_starts.push_back(static_cast<uint32_t>(text.size()));
    size_t index = first_index;
    std::set<std::string> ids;
    std::string_view all(text);
    for (uint32_t group_end : scan.group_starts) {
      ParseGroup(all, all.substr(group_begin, group_end - group_begin), group_begin, charter, options,
                 &index, &ids, diagnostics, &set);
      group_begin = group_end;
      if (diagnostics->size() >= before + options.max_errors) break;
    }
    diagnostics->Truncate(before + options.max_errors);
  } catch (const std::bad_alloc&) {
    // Free what the parse built before reporting.
    set = ast::PolicySet();
    diagnostics->Truncate(before);
    OutOfMemory(group_begin, "the policy text", diagnostics);
  } catch (const std::exception& e) {
    diagnostics->Error(codes::CH0100, {0, 0}, Cat("internal parser error: ", e.what()));
  } catch (...) {
    diagnostics->Error(codes::CH0100, {0, 0}, "internal parser error");
  }
  return set;
}

std::unique_ptr<ast::Expr> ParseExpression(const SourceFile& source, const CompileOptions& options,
                                           Diagnostics* diagnostics) {
  size_t before = diagnostics->size();
  const std::string& text = source.text();
  if (!AcceptableText(text, "the expression", options, diagnostics)) return nullptr;
  std::unique_ptr<ast::Expr> expr;
  try {
    PreScan scan;
    if (!ScanText(text, options, false, diagnostics, &scan)) return nullptr;
    OffsetMap map(text);
    CodePointStream input(text, true);
    CharterTokenSource lexer(&input);
    antlr4::CommonTokenStream tokens(&lexer);
    tokens.fill();
    CharterParser parser(&tokens);
    DiagnosticListener listener(map, diagnostics, options.max_errors);
    parser.removeErrorListeners();
    parser.addErrorListener(&listener);
    CharterParser::ExpressionContext* tree = parser.expression();
    if (listener.count() > 0) return nullptr;
    AstBuilder builder(map, diagnostics, options.max_expression_depth);
    expr = builder.BuildExpression(tree->expr());
    diagnostics->Truncate(before + options.max_errors);
  } catch (const std::bad_alloc&) {
    expr.reset();
    diagnostics->Truncate(before);
    OutOfMemory(0, "the expression", diagnostics);
  } catch (const std::exception& e) {
    diagnostics->Error(codes::CH0100, {0, 0}, Cat("internal parser error: ", e.what()));
  } catch (...) {
    diagnostics->Error(codes::CH0100, {0, 0}, "internal parser error");
  }
  if (diagnostics->size() > before) return nullptr;
  return expr;
}

namespace {

void DumpWord(const ast::DeclEntry::Word& w, std::string* out) {
  CatAppend(out, w.quoted ? "\"" : "", w.text, w.quoted ? "\"" : "", "@", w.span.begin, "-", w.span.end);
}

void DumpValue(const ast::DeclValue& v, std::string* out) {
  CatAppend(out, "(", static_cast<int>(v.kind), " ", v.text, "|", v.id, "|", v.flag ? "true" : "false", "@",
            v.span.begin, "-", v.span.end);
  for (const ast::DeclValue& item : v.items) DumpValue(item, out);
  out->push_back(')');
}

// Every field of a declaration, spans included, as text.
void DumpEntry(const ast::DeclEntry& e, std::string* out) {
  out->push_back('{');
  DumpWord(e.head, out);
  for (const ast::DeclEntry::Word& w : e.names) {
    out->push_back(' ');
    DumpWord(w, out);
  }
  CatAppend(out, " body ", static_cast<int>(e.body), " @", e.span.begin, "-", e.span.end, " ");
  if (e.body == ast::DeclEntry::Body::kSetting) DumpValue(e.value, out);
  for (const ast::DeclEntry::Modifier& m : e.modifiers) {
    DumpWord(m.word, out);
    DumpValue(m.value, out);
  }
  for (const ast::DeclEntry& child : e.entries) DumpEntry(child, out);
  out->push_back('}');
}

}  // namespace

std::optional<std::string> DeclarationParseDifference(std::string_view text, size_t* groups_read) {
  try {
    CompileOptions options;
    Diagnostics diagnostics;
    const std::string owned(text);
    PreScan scan;
    if (!AcceptableText(owned, "policy text", options, &diagnostics) ||
        !ScanText(owned, options, true, &diagnostics, &scan)) {
      return std::nullopt;
    }
    scan.group_starts.push_back(static_cast<uint32_t>(owned.size()));
    std::string_view all(owned);
    uint32_t begin = 0;
    size_t read = 0;
    for (uint32_t end : scan.group_starts) {
      std::string_view group = all.substr(begin, end - begin);
      const uint32_t base = begin;
      begin = end;
      std::vector<ast::DeclEntry> fast;
      if (!ReadDeclarationsFast(group, base, &fast)) continue;
      ++read;
      ast::PolicySet set;
      size_t index = 0;
      std::set<std::string> ids;
      ParseGroup(all, group, base, true, options, &index, &ids, &diagnostics, &set, /*fast=*/false);
      const std::string where = Cat("in the group at byte ", base, ": ");
      if (!diagnostics.empty()) {
        return Cat(where, "the fast reader read what the parser reports: ", diagnostics.items()[0].code, " ",
                   diagnostics.items()[0].message);
      }
      if (!set.policies.empty()) return Cat(where, "the fast reader read a group with policies");
      std::string want, got;
      for (const ast::DeclEntry& e : set.declarations) DumpEntry(e, &want);
      for (const ast::DeclEntry& e : fast) DumpEntry(e, &got);
      if (want == got) continue;
      size_t at = 0;
      while (at < want.size() && at < got.size() && want[at] == got[at]) ++at;
      const size_t from = at < 60 ? 0 : at - 60;
      return Cat(where, "parser `", want.substr(from, 160), "`, fast reader `", got.substr(from, 160), "`");
    }
    if (groups_read != nullptr) *groups_read = read;
    if (read == 0) return std::nullopt;
    return std::string();
  } catch (const std::exception& e) {
    return Cat("exception: ", e.what());
  } catch (...) {
    return std::string("exception");
  }
}

}  // namespace charter::internal
