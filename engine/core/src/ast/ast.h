// The AST: a policy set as the parser understood it, with byte spans into
// the source for every node. It covers all of Cedar's policy language; later
// stages say which parts they support.
#ifndef CHARTER_AST_AST_H_
#define CHARTER_AST_AST_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "charter/diagnostics.h"

namespace charter::internal::ast {

enum class Var : uint8_t { kPrincipal, kAction, kResource, kContext };
enum class Effect : uint8_t { kPermit, kForbid };

enum class BinaryOp : uint8_t {
  kEq, kNe, kLt, kLe, kGt, kGe, kIn,  // relations
  kAdd, kSub, kMul,                   // checked 64-bit arithmetic
  kAnd, kOr,                          // short-circuit
};
enum class UnaryOp : uint8_t { kNot, kNeg };

// The variable's name in Cedar's text.
constexpr std::string_view VarText(Var v) {
  switch (v) {
    case Var::kPrincipal: return "principal";
    case Var::kAction: return "action";
    case Var::kResource: return "resource";
    case Var::kContext: return "context";
  }
  return "context";
}

// The operator as Cedar's text spells it.
constexpr std::string_view BinaryOpText(BinaryOp op) {
  switch (op) {
    case BinaryOp::kEq: return "==";
    case BinaryOp::kNe: return "!=";
    case BinaryOp::kLt: return "<";
    case BinaryOp::kLe: return "<=";
    case BinaryOp::kGt: return ">";
    case BinaryOp::kGe: return ">=";
    case BinaryOp::kIn: return "in";
    case BinaryOp::kAdd: return "+";
    case BinaryOp::kSub: return "-";
    case BinaryOp::kMul: return "*";
    case BinaryOp::kAnd: return "&&";
    case BinaryOp::kOr: return "||";
  }
  return "?";
}

struct EntityRef {
  std::string type;  // with namespaces: "NS::User"
  std::string id;
  Span span;
};

// One element of a `like` pattern: a literal run or the `*` wildcard.
struct PatternElem {
  bool wildcard = false;
  std::string literal;
};

struct Expr {
  Expr() = default;
  Expr(const Expr&) = delete;
  Expr& operator=(const Expr&) = delete;
  // Destroys the subtree iteratively, so that deep trees cannot exhaust the stack.
  ~Expr();

  enum class Kind : uint8_t {
    kBool,      // b
    kLong,      // i
    kString,    // str
    kEntity,    // entity
    kVar,       // var
    kSlot,      // str: "?principal" or "?resource"
    kAttr,      // args[0].str  (both `.a` and `["a"]`)
    kHas,       // args[0] has str, or with a path: args[0] has keys[0].keys[1]...
    kUnary,     // uop args[0]
    kBinary,    // args[0] bop args[1]
    kIf,        // if args[0] then args[1] else args[2]
    kLike,      // args[0] like pattern
    kIs,        // args[0] is str [in args[1]]
    kSet,       // [args...]
    kRecord,    // {keys[i]: args[i]}
    kMethod,    // args[0].str(args[1..])
    kCall,      // str(args...) for extension functions
  };
  Kind kind = Kind::kBool;
  Span span;
  bool b = false;
  int64_t i = 0;
  std::string str;
  EntityRef entity;
  Var var = Var::kPrincipal;
  BinaryOp bop = BinaryOp::kEq;
  UnaryOp uop = UnaryOp::kNot;
  std::vector<std::unique_ptr<Expr>> args;
  std::vector<std::string> keys;
  std::vector<PatternElem> pattern;
};

inline Expr::~Expr() {
  std::vector<std::unique_ptr<Expr>> pending = std::move(args);
  while (!pending.empty()) {
    std::unique_ptr<Expr> e = std::move(pending.back());
    pending.pop_back();
    for (auto& child : e->args) pending.push_back(std::move(child));
    e->args.clear();
  }
}

// The node without its operands: every field but `args`.
inline std::unique_ptr<Expr> CopyNode(const Expr& e) {
  auto c = std::make_unique<Expr>();
  c->kind = e.kind;
  c->span = e.span;
  c->b = e.b;
  c->i = e.i;
  c->str = e.str;
  c->entity = e.entity;
  c->var = e.var;
  c->bop = e.bop;
  c->uop = e.uop;
  c->keys = e.keys;
  c->pattern = e.pattern;
  return c;
}

// A deep copy, made with an explicit stack (trees may be long chains). When
// `count` is given, the number of nodes copied is added to it.
inline std::unique_ptr<Expr> Clone(const Expr& root, size_t* count = nullptr) {
  std::unique_ptr<Expr> out = CopyNode(root);
  std::vector<std::pair<const Expr*, Expr*>> stack{{&root, out.get()}};
  while (!stack.empty()) {
    auto [from, to] = stack.back();
    stack.pop_back();
    if (count != nullptr) ++*count;
    to->args.reserve(from->args.size());
    for (const std::unique_ptr<Expr>& a : from->args) {
      to->args.push_back(CopyNode(*a));
      stack.push_back({a.get(), to->args.back().get()});
    }
  }
  return out;
}

// Cedar's precedence, loosest first: where an operand's position needs a
// level above its node's, the text brackets it. The formatter and the
// residual printer write Cedar text by this one table, and the JSON policy
// reader counts the brackets the text would need by it.
enum Level : int {
  kIfLevel = 0,
  kOrLevel = 1,
  kAndLevel = 2,
  kRelationLevel = 3,  // == != < <= > >= in, has, like, is
  kAddLevel = 4,       // + -
  kMulLevel = 5,       // *
  kUnaryLevel = 6,     // ! -, and negative literals
  kMemberLevel = 7,    // .a ["a"] .m(), and every primary
};

inline int LevelOf(const Expr& e) {
  switch (e.kind) {
    case Expr::Kind::kIf: return kIfLevel;
    case Expr::Kind::kHas:
    case Expr::Kind::kLike:
    case Expr::Kind::kIs: return kRelationLevel;
    case Expr::Kind::kUnary: return kUnaryLevel;
    case Expr::Kind::kLong: return e.i < 0 ? kUnaryLevel : kMemberLevel;
    case Expr::Kind::kBinary:
      switch (e.bop) {
        case BinaryOp::kOr: return kOrLevel;
        case BinaryOp::kAnd: return kAndLevel;
        case BinaryOp::kAdd:
        case BinaryOp::kSub: return kAddLevel;
        case BinaryOp::kMul: return kMulLevel;
        default: return kRelationLevel;
      }
    default: return kMemberLevel;
  }
}

// Left-leaning chains that the compiler walks in a loop, so that their
// length costs no stack: 1 `&&`, 2 `||`, 3 arithmetic, 4 attribute access;
// 0 for anything else.
inline int ChainKind(const Expr& e) {
  if (e.kind == Expr::Kind::kAttr) return 4;
  if (e.kind != Expr::Kind::kBinary) return 0;
  switch (e.bop) {
    case BinaryOp::kAnd: return 1;
    case BinaryOp::kOr: return 2;
    case BinaryOp::kAdd:
    case BinaryOp::kSub:
    case BinaryOp::kMul: return 3;
    default: return 0;
  }
}

struct ScopeConstraint {
  enum class Kind : uint8_t { kAny, kEq, kIn, kIs, kIsIn };
  Kind kind = Kind::kAny;
  bool slot = false;     // the entity is a template slot
  EntityRef entity;      // for kEq, kIn, kIsIn when !slot
  std::string type;      // for kIs, kIsIn
  Span span;
};

struct ActionConstraint {
  enum class Kind : uint8_t { kAny, kEq, kIn, kInList };
  Kind kind = Kind::kAny;
  std::vector<EntityRef> entities;
  Span span;
};

struct Condition {
  bool when = true;  // false for `unless`
  std::unique_ptr<Expr> body;
  Span span;
};

struct Annotation {
  std::string key;
  std::string value;
  Span span;
};

struct Policy {
  std::string id;
  Effect effect = Effect::kPermit;
  std::vector<Annotation> annotations;
  ScopeConstraint principal;
  ActionConstraint action;
  ScopeConstraint resource;
  std::vector<Condition> conditions;
  Span span;         // the whole policy
  Span effect_span;  // the `permit` / `forbid` keyword
  // Of the sources compiled together, the one the spans point into.
  uint32_t source = 0;
  bool is_template() const { return principal.slot || resource.slot; }
};

// A value in a scheduling declaration (grammar/Charter.g4's `declValue`).
struct DeclValue {
  enum class Kind : uint8_t { kNumber, kString, kBool, kWord, kEntity, kList };
  Kind kind = Kind::kWord;
  // kNumber: the source text, tokens joined (`64Gi`, `-5`, `1.5`);
  // kString: the contents, unescaped; kWord: the path (`StrictFIFO`);
  // kEntity: the type (`Governance::Allocation`).
  std::string text;
  std::string id;                // kEntity
  bool flag = false;             // kBool
  std::vector<DeclValue> items;  // kList
  Span span;
};

// A scheduling declaration, or a line inside one: `head names... ;`,
// `head names... : value (word value)... ;` or `head names... { entries }`.
// engine/schedule/src/language/ reads them; the parser only checks their shape.
struct DeclEntry {
  struct Word {
    std::string text;  // unescaped when quoted
    bool quoted = false;
    Span span;
  };
  struct Modifier {
    Word word;  // `borrow`, `lend`
    DeclValue value;
  };
  enum class Body : uint8_t { kBare, kSetting, kBlock };
  Word head;
  std::vector<Word> names;
  Body body = Body::kBare;
  DeclValue value;                   // kSetting
  std::vector<Modifier> modifiers;   // kSetting
  std::vector<DeclEntry> entries;    // kBlock
  Span span;
};

struct PolicySet {
  std::vector<Policy> policies;
  // Scheduling declarations, in source order (.charter text only).
  std::vector<DeclEntry> declarations;
};

}  // namespace charter::internal::ast

#endif  // CHARTER_AST_AST_H_
