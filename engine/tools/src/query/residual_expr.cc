// Residual expressions: construction, copies, analysis and printing.
#include "query/residual_expr.h"

#include <algorithm>
#include <utility>

#include "builtins/builtins.h"
#include "common/arena.h"
#include "common/names.h"
#include "common/strings.h"
#include "extensions/extensions.h"
#include "json/json.h"

namespace charter::internal::residual {
namespace {

using K = ast::Expr::Kind;
using ast::BinaryOp;

ExprPtr Node(K kind) {
  auto e = std::make_unique<ast::Expr>();
  e->kind = kind;
  return e;
}

ExprPtr StringLiteral(std::string_view s) {
  ExprPtr e = Node(K::kString);
  e->str = std::string(s);
  return e;
}

ExprPtr Call(std::string_view name, std::string arg) {
  ExprPtr e = Node(K::kCall);
  e->str = std::string(name);
  e->args.push_back(StringLiteral(arg));
  return e;
}

// The builtin a method or call names, or nullptr.
const BuiltinInfo* BuiltinOf(const ast::Expr& e) {
  int id = FindBuiltin(e.str, e.kind == K::kMethod ? CallStyle::kMethod : CallStyle::kFunction);
  return id < 0 ? nullptr : &kBuiltins[id];
}

bool IsLiteral(const ast::Expr& e) {
  return e.kind == K::kBool || e.kind == K::kLong || e.kind == K::kString || e.kind == K::kEntity;
}

// An expression whose value is an entity and that cannot fail: the unknown
// or an entity literal.
bool EntityValued(const ast::Expr& e, ast::Var unknown) {
  return e.kind == K::kEntity || IsVar(e, unknown);
}

// A set literal whose elements are literals (entities only, with `entities`).
bool LiteralSet(const ast::Expr& e, bool entities) {
  if (e.kind != K::kSet) return false;
  for (const ExprPtr& a : e.args) {
    if (entities ? a->kind != K::kEntity : !IsLiteral(*a)) return false;
  }
  return true;
}

// What a conjunction proves present on the unknown: attribute paths
// (`unknown.a.b` is {"a", "b"}) and tag keys.
using Path = std::vector<std::string>;
struct Guards {
  std::vector<Path> paths;
  std::vector<std::string> tags;
  bool HasPath(const Path& p) const { return std::find(paths.begin(), paths.end(), p) != paths.end(); }
  bool HasTag(const std::string& t) const { return std::find(tags.begin(), tags.end(), t) != tags.end(); }
};

// The attribute path of `unknown.a.b`, or false.
bool AttrPath(const ast::Expr& e, ast::Var unknown, Path* path) {
  std::vector<const std::string*> names;
  const ast::Expr* cur = &e;
  while (cur->kind == K::kAttr) {
    names.push_back(&cur->str);
    cur = cur->args[0].get();
  }
  if (!IsVar(*cur, unknown)) return false;
  path->clear();
  for (size_t i = names.size(); i-- > 0;) path->push_back(*names[i]);
  return true;
}

// Adds what `e`, known true, proves present.
void Collect(const ast::Expr& e, ast::Var unknown, Guards* g) {
  std::vector<const ast::Expr*> stack{&e};
  while (!stack.empty()) {
    const ast::Expr* x = stack.back();
    stack.pop_back();
    if (x->kind == K::kBinary && x->bop == BinaryOp::kAnd) {
      stack.push_back(x->args[0].get());
      stack.push_back(x->args[1].get());
    } else if (x->kind == K::kHas) {
      Path path;
      if (!IsVar(*x->args[0], unknown) && !AttrPath(*x->args[0], unknown, &path)) continue;
      const std::vector<std::string> keys = x->keys.empty() ? std::vector<std::string>{x->str} : x->keys;
      for (const std::string& k : keys) {
        path.push_back(k);
        g->paths.push_back(path);
      }
    } else if (x->kind == K::kMethod && x->str == "hasTag" && x->args.size() == 2 &&
               IsVar(*x->args[0], unknown) && x->args[1]->kind == K::kString) {
      g->tags.push_back(x->args[1]->str);
    }
  }
}

// Whether an extension constructor call on string literals succeeds.
bool ConstructorSucceeds(const ast::Expr& e, const BuiltinInfo& info) {
  if (!IsExtensionFunction(info) || info.style != CallStyle::kFunction || e.args.size() != info.arity) return false;
  Value args[kMaxBuiltinArity];
  for (size_t i = 0; i < e.args.size(); ++i) {
    if (e.args[i]->kind != K::kString) return false;
    args[i] = Value::String(e.args[i]->str);
  }
  Arena arena;
  Value out;
  std::string error;
  int id = static_cast<int>(&info - kBuiltins);
  return CallBuiltin(static_cast<Builtin>(id), args, CallContext{nullptr, &arena}, &out, &error);
}

bool CanErrorWith(const ast::Expr& e, ast::Var unknown, const Guards& g);

bool AnyChildCanError(const ast::Expr& e, ast::Var unknown, const Guards& g, size_t from = 0) {
  for (size_t i = from; i < e.args.size(); ++i) {
    if (CanErrorWith(*e.args[i], unknown, g)) return true;
  }
  return false;
}

// A boolean operand that cannot fail.
bool SafeBool(const ast::Expr& e, ast::Var unknown, const Guards& g) {
  return BoolTyped(e) && !CanErrorWith(e, unknown, g);
}

bool CanErrorWith(const ast::Expr& root, ast::Var unknown, const Guards& g) {
  // Chains of `&&` / `||` and attribute accesses are walked in a loop.
  const ast::Expr* e = &root;
  switch (e->kind) {
    case K::kBool:
    case K::kLong:
    case K::kString:
    case K::kEntity:
    case K::kVar: return false;
    case K::kSlot: return true;
    case K::kSet:
    case K::kRecord: return AnyChildCanError(*e, unknown, g);
    case K::kAttr: {
      Path path;
      return !(AttrPath(*e, unknown, &path) && g.HasPath(path));
    }
    // `x has a.b` is `x has a && x.a has b`: it fails where x.a is neither
    // an entity nor a record, which the unknown's attributes may be.
    case K::kHas: return !IsVar(*e->args[0], unknown) || e->keys.size() > 1;
    case K::kUnary: return e->uop == ast::UnaryOp::kNeg || !SafeBool(*e->args[0], unknown, g);
    case K::kIf:
      return !SafeBool(*e->args[0], unknown, g) || AnyChildCanError(*e, unknown, g, 1);
    case K::kLike: return e->args[0]->kind != K::kString;
    case K::kIs:
      if (!EntityValued(*e->args[0], unknown)) return true;
      if (e->args.size() == 1) return false;
      return !(EntityValued(*e->args[1], unknown) || LiteralSet(*e->args[1], true));
    case K::kMethod:
    case K::kCall: {
      const BuiltinInfo* info = BuiltinOf(*e);
      if (info == nullptr || info->arity != e->args.size()) return true;
      if (e->kind == K::kCall) return !ConstructorSucceeds(*e, *info);
      if (e->str == "hasTag") return !(EntityValued(*e->args[0], unknown) && e->args[1]->kind == K::kString);
      if (e->str == "getTag") {
        return !(IsVar(*e->args[0], unknown) && e->args[1]->kind == K::kString && g.HasTag(e->args[1]->str));
      }
      if (e->str == "contains") return !LiteralSet(*e->args[0], false) || CanErrorWith(*e->args[1], unknown, g);
      if (e->str == "containsAll" || e->str == "containsAny") {
        return !LiteralSet(*e->args[0], false) || !LiteralSet(*e->args[1], false);
      }
      if (e->str == "isEmpty") return !LiteralSet(*e->args[0], false);
      return true;
    }
    case K::kBinary:
      switch (e->bop) {
        case BinaryOp::kEq:
        case BinaryOp::kNe: return AnyChildCanError(*e, unknown, g);
        case BinaryOp::kIn:
          return !(EntityValued(*e->args[0], unknown) &&
                   (EntityValued(*e->args[1], unknown) || LiteralSet(*e->args[1], true)));
        case BinaryOp::kAnd:
        case BinaryOp::kOr: {
          // The operands, left to right; under `&&`, what the left ones
          // prove guards the right ones.
          std::vector<const ast::Expr*> operands;
          const ast::Expr* cur = e;
          while (cur->kind == K::kBinary && cur->bop == e->bop) {
            operands.push_back(cur->args[1].get());
            cur = cur->args[0].get();
          }
          operands.push_back(cur);
          std::reverse(operands.begin(), operands.end());
          Guards inner = g;
          for (const ast::Expr* x : operands) {
            if (!SafeBool(*x, unknown, inner)) return true;
            if (e->bop == BinaryOp::kAnd) Collect(*x, unknown, &inner);
          }
          return false;
        }
        default: return true;
      }
  }
  return true;
}

// ---- Cedar text -------------------------------------------------------------

using ast::LevelOf;
using enum ast::Level;

class TextPrinter {
 public:
  explicit TextPrinter(std::string* out) : out_(*out) {}

  void Print(const ast::Expr& e, int min_level) {
    bool parens = LevelOf(e) < min_level;
    if (parens) out_.push_back('(');
    Body(e);
    if (parens) out_.push_back(')');
  }

 private:
  void Body(const ast::Expr& e) {
    switch (e.kind) {
      case K::kBool: out_ += e.b ? "true" : "false"; return;
      case K::kLong: CatAppend(&out_, e.i); return;
      case K::kString: AppendQuotedCedar(&out_, e.str); return;
      case K::kEntity: AppendEntityToCedar(&out_, e.entity.type, e.entity.id); return;
      case K::kSlot: out_ += e.str; return;
      case K::kVar: out_ += ast::VarText(e.var); return;
      case K::kAttr:
      case K::kMethod: Member(e); return;
      case K::kHas: {
        Print(*e.args[0], kAddLevel);
        out_ += " has ";
        const std::vector<std::string> keys = e.keys.empty() ? std::vector<std::string>{e.str} : e.keys;
        bool path = keys.size() > 1;
        for (size_t i = 0; i < keys.size(); ++i) {
          if (i > 0) out_.push_back('.');
          if (path || IsBareCedarName(keys[i])) {
            out_ += keys[i];
          } else {
            AppendQuotedCedar(&out_, keys[i]);
          }
        }
        return;
      }
      case K::kLike: {
        Print(*e.args[0], kAddLevel);
        out_ += " like \"";
        for (const ast::PatternElem& p : e.pattern) {
          if (p.wildcard) {
            out_.push_back('*');
          } else {
            AppendCedarEscaped(&out_, p.literal, /*escape_star=*/true);
          }
        }
        out_.push_back('"');
        return;
      }
      case K::kIs:
        Print(*e.args[0], kAddLevel);
        CatAppend(&out_, " is ", e.str);
        if (e.args.size() > 1) {
          out_ += " in ";
          Print(*e.args[1], kAddLevel);
        }
        return;
      case K::kUnary: {
        out_ += e.uop == ast::UnaryOp::kNot ? "!" : "-";
        const ast::Expr& arg = *e.args[0];
        // `-5` would be the literal -5, and `--x` or `!!x` chains are
        // limited: parenthesize every operand that is not a plain member.
        bool plain = LevelOf(arg) == kMemberLevel && !(e.uop == ast::UnaryOp::kNeg && arg.kind == K::kLong);
        if (!plain) out_.push_back('(');
        Print(arg, plain ? kMemberLevel : kIfLevel);
        if (!plain) out_.push_back(')');
        return;
      }
      case K::kBinary: Binary(e); return;
      case K::kIf:
        out_ += "if ";
        Print(*e.args[0], kIfLevel);
        out_ += " then ";
        Print(*e.args[1], kIfLevel);
        out_ += " else ";
        Print(*e.args[2], kIfLevel);
        return;
      case K::kSet:
        out_.push_back('[');
        for (size_t i = 0; i < e.args.size(); ++i) {
          if (i > 0) out_ += ", ";
          Print(*e.args[i], kIfLevel);
        }
        out_.push_back(']');
        return;
      case K::kRecord:
        out_.push_back('{');
        for (size_t i = 0; i < e.args.size(); ++i) {
          if (i > 0) out_ += ", ";
          AppendQuotedCedar(&out_, e.keys[i]);
          out_ += ": ";
          Print(*e.args[i], kIfLevel);
        }
        out_.push_back('}');
        return;
      case K::kCall:
        out_ += e.str;
        Args(e, 0);
        return;
    }
  }

  void Args(const ast::Expr& e, size_t first) {
    out_.push_back('(');
    for (size_t i = first; i < e.args.size(); ++i) {
      if (i > first) out_ += ", ";
      Print(*e.args[i], kIfLevel);
    }
    out_.push_back(')');
  }

  // A chain of attribute accesses and method calls, in a loop.
  void Member(const ast::Expr& e) {
    std::vector<const ast::Expr*> chain;
    const ast::Expr* base = &e;
    while (base->kind == K::kAttr || base->kind == K::kMethod) {
      chain.push_back(base);
      base = base->args[0].get();
    }
    Print(*base, kMemberLevel);
    for (size_t i = chain.size(); i-- > 0;) {
      const ast::Expr& link = *chain[i];
      if (link.kind == K::kAttr) {
        if (IsBareCedarName(link.str)) {
          CatAppend(&out_, ".", link.str);
        } else {
          out_.push_back('[');
          AppendQuotedCedar(&out_, link.str);
          out_.push_back(']');
        }
      } else {
        CatAppend(&out_, ".", link.str);
        Args(link, 1);
      }
    }
  }

  void Binary(const ast::Expr& e) {
    int level = LevelOf(e);
    if (level == kRelationLevel) {
      Print(*e.args[0], kAddLevel);
      CatAppend(&out_, " ", ast::BinaryOpText(e.bop), " ");
      Print(*e.args[1], kAddLevel);
      return;
    }
    // A left-leaning chain of one level, in a loop.
    std::vector<const ast::Expr*> spine;
    const ast::Expr* left = &e;
    while (left->kind == K::kBinary && LevelOf(*left) == level) {
      spine.push_back(left);
      left = left->args[0].get();
    }
    Print(*left, level);
    for (size_t i = spine.size(); i-- > 0;) {
      CatAppend(&out_, " ", ast::BinaryOpText(spine[i]->bop), " ");
      Print(*spine[i]->args[1], level + 1);
    }
  }

  std::string& out_;
};

// ---- EST ---------------------------------------------------------------------

void Quoted(std::string* out, std::string_view s) { json::AppendQuoted(out, s); }

// Whether the node's first operand is written inside its JSON object, so
// that a chain through first operands is written in a loop.
bool Chained(const ast::Expr& e) {
  switch (e.kind) {
    case K::kAttr:
    case K::kHas:
    case K::kUnary:
    case K::kBinary:
    case K::kLike:
    case K::kIs:
    case K::kIf:
    case K::kMethod: return true;
    case K::kCall: return !e.args.empty();
    default: return false;
  }
}

const char* MethodShape(const ast::Expr& e) {
  if (e.str == "contains" || e.str == "containsAll" || e.str == "containsAny" || e.str == "getTag" ||
      e.str == "hasTag") {
    return e.args.size() == 2 ? "binary" : "list";
  }
  if (e.str == "isEmpty") return e.args.size() == 1 ? "unary" : "list";
  return "list";
}

class EstWriter {
 public:
  explicit EstWriter(std::string* out) : out_(*out) {}

  void Write(const ast::Expr& root) {
    std::vector<const ast::Expr*> chain;
    const ast::Expr* cur = &root;
    while (Chained(*cur)) {
      Prefix(*cur);
      chain.push_back(cur);
      cur = cur->args[0].get();
    }
    Leaf(*cur);
    for (size_t i = chain.size(); i-- > 0;) Suffix(*chain[i]);
  }

 private:
  void Prefix(const ast::Expr& e) {
    switch (e.kind) {
      case K::kAttr: out_ += "{\".\":{\"left\":"; return;
      case K::kHas: out_ += "{\"has\":{\"left\":"; return;
      case K::kUnary: out_ += e.uop == ast::UnaryOp::kNot ? "{\"!\":{\"arg\":" : "{\"neg\":{\"arg\":"; return;
      case K::kBinary:
        out_ += "{";
        Quoted(&out_, ast::BinaryOpText(e.bop));
        out_ += ":{\"left\":";
        return;
      case K::kLike: out_ += "{\"like\":{\"left\":"; return;
      case K::kIs: out_ += "{\"is\":{\"left\":"; return;
      case K::kIf: out_ += "{\"if-then-else\":{\"if\":"; return;
      case K::kMethod: {
        out_ += "{";
        Quoted(&out_, e.str);
        std::string_view shape = MethodShape(e);
        out_ += shape == "binary" ? ":{\"left\":" : shape == "unary" ? ":{\"arg\":" : ":[";
        return;
      }
      case K::kCall:
        out_ += "{";
        Quoted(&out_, e.str);
        out_ += ":[";
        return;
      default: return;
    }
  }

  void Suffix(const ast::Expr& e) {
    switch (e.kind) {
      case K::kAttr:
        out_ += ",\"attr\":";
        Quoted(&out_, e.str);
        out_ += "}}";
        return;
      case K::kHas: {
        const std::vector<std::string> keys = e.keys.empty() ? std::vector<std::string>{e.str} : e.keys;
        out_ += ",\"attr\":";
        if (keys.size() == 1) {
          Quoted(&out_, keys[0]);
        } else {
          out_.push_back('[');
          for (size_t i = 0; i < keys.size(); ++i) {
            if (i > 0) out_.push_back(',');
            Quoted(&out_, keys[i]);
          }
          out_.push_back(']');
        }
        out_ += "}}";
        return;
      }
      case K::kUnary: out_ += "}}"; return;
      case K::kBinary:
        out_ += ",\"right\":";
        Write(*e.args[1]);
        out_ += "}}";
        return;
      case K::kLike:
        out_ += ",\"pattern\":[";
        for (size_t i = 0; i < e.pattern.size(); ++i) {
          if (i > 0) out_.push_back(',');
          if (e.pattern[i].wildcard) {
            out_ += "\"Wildcard\"";
          } else {
            out_ += "{\"Literal\":";
            Quoted(&out_, e.pattern[i].literal);
            out_ += "}";
          }
        }
        out_ += "]}}";
        return;
      case K::kIs:
        out_ += ",\"entity_type\":";
        Quoted(&out_, e.str);
        if (e.args.size() > 1) {
          out_ += ",\"in\":";
          Write(*e.args[1]);
        }
        out_ += "}}";
        return;
      case K::kIf:
        out_ += ",\"then\":";
        Write(*e.args[1]);
        out_ += ",\"else\":";
        Write(*e.args[2]);
        out_ += "}}";
        return;
      case K::kMethod: {
        std::string_view shape = MethodShape(e);
        if (shape == "binary") {
          out_ += ",\"right\":";
          Write(*e.args[1]);
          out_ += "}}";
        } else if (shape == "unary") {
          out_ += "}}";
        } else {
          for (size_t i = 1; i < e.args.size(); ++i) {
            out_.push_back(',');
            Write(*e.args[i]);
          }
          out_ += "]}";
        }
        return;
      }
      case K::kCall:
        for (size_t i = 1; i < e.args.size(); ++i) {
          out_.push_back(',');
          Write(*e.args[i]);
        }
        out_ += "]}";
        return;
      default: return;
    }
  }

  void Leaf(const ast::Expr& e) {
    switch (e.kind) {
      case K::kBool: out_ += e.b ? "{\"Value\":true}" : "{\"Value\":false}"; return;
      case K::kLong: CatAppend(&out_, "{\"Value\":", e.i, "}"); return;
      case K::kString:
        out_ += "{\"Value\":";
        Quoted(&out_, e.str);
        out_ += "}";
        return;
      case K::kEntity:
        out_ += "{\"Value\":{\"__entity\":{\"type\":";
        Quoted(&out_, e.entity.type);
        out_ += ",\"id\":";
        Quoted(&out_, e.entity.id);
        out_ += "}}}";
        return;
      case K::kVar:
        out_ += "{\"Var\":";
        Quoted(&out_, ast::VarText(e.var));
        out_ += "}";
        return;
      case K::kSlot:
        out_ += "{\"Slot\":";
        Quoted(&out_, e.str);
        out_ += "}";
        return;
      case K::kSet:
        out_ += "{\"Set\":[";
        for (size_t i = 0; i < e.args.size(); ++i) {
          if (i > 0) out_.push_back(',');
          Write(*e.args[i]);
        }
        out_ += "]}";
        return;
      case K::kRecord:
        out_ += "{\"Record\":{";
        for (size_t i = 0; i < e.args.size(); ++i) {
          if (i > 0) out_.push_back(',');
          Quoted(&out_, e.keys[i]);
          out_.push_back(':');
          Write(*e.args[i]);
        }
        out_ += "}}";
        return;
      case K::kCall:  // without arguments
        out_ += "{";
        Quoted(&out_, e.str);
        out_ += ":[]}";
        return;
      default: return;  // the chained kinds never get here
    }
  }

  std::string& out_;
};

}  // namespace

ExprPtr Bool(bool b) {
  ExprPtr e = Node(K::kBool);
  e->b = b;
  return e;
}

ExprPtr Var(ast::Var v) {
  ExprPtr e = Node(K::kVar);
  e->var = v;
  return e;
}

ExprPtr EntityLiteral(std::string_view type, std::string_view id) {
  ExprPtr e = Node(K::kEntity);
  e->entity.type = std::string(type);
  e->entity.id = std::string(id);
  return e;
}

ExprPtr Unary(ast::UnaryOp op, ExprPtr arg) {
  ExprPtr e = Node(K::kUnary);
  e->uop = op;
  e->args.push_back(std::move(arg));
  return e;
}

ExprPtr Binary(ast::BinaryOp op, ExprPtr left, ExprPtr right) {
  ExprPtr e = Node(K::kBinary);
  e->bop = op;
  e->args.push_back(std::move(left));
  e->args.push_back(std::move(right));
  return e;
}

ExprPtr WithArgs(const ast::Expr& e, std::vector<ExprPtr> args) {
  ExprPtr d = ast::CopyNode(e);
  d->args = std::move(args);
  return d;
}

ExprPtr TakeOperand(ExprPtr e, size_t i) {
  ExprPtr operand = std::move(e->args[i]);
  e->args.erase(e->args.begin() + static_cast<std::ptrdiff_t>(i));
  return operand;
}

ExprPtr FromValue(const Value& v) {
  switch (v.type) {
    case Type::kBool: return Bool(v.b);
    case Type::kLong: {
      ExprPtr e = Node(K::kLong);
      e->i = v.i;
      return e;
    }
    case Type::kString: return StringLiteral(v.string());
    case Type::kEntity: return EntityLiteral(v.entity->type, v.entity->id);
    case Type::kSet: {
      ExprPtr e = Node(K::kSet);
      for (uint32_t i = 0; i < v.size; ++i) e->args.push_back(FromValue(v.elements[i]));
      return e;
    }
    case Type::kRecord: {
      ExprPtr e = Node(K::kRecord);
      for (uint32_t i = 0; i < v.size; ++i) {
        e->keys.emplace_back(v.fields[i].key);
        e->args.push_back(FromValue(v.fields[i].value));
      }
      return e;
    }
    case Type::kIp: return Call("ip", ext::FormatIp(*v.ip));
    case Type::kDecimal: return Call("decimal", ext::FormatDecimal(v.i));
    case Type::kDatetime: {
      // An instant beyond what a datetime() string can name (reachable only
      // through offset()) prints in a form datetime() rejects: rebuild it
      // from the epoch instead, so the residual evaluates as the value did.
      std::string text = ext::FormatDatetime(v.i);
      int64_t back = 0;
      std::string error;
      if (ext::ParseDatetime(text, &back, &error) && back == v.i) return Call("datetime", std::move(text));
      ExprPtr e = Node(K::kMethod);
      e->str = "offset";
      e->args.push_back(Call("datetime", "1970-01-01"));
      e->args.push_back(Call("duration", ext::FormatDuration(v.i)));
      return e;
    }
    case Type::kDuration: return Call("duration", ext::FormatDuration(v.i));
  }
  return Bool(false);
}

bool IsVar(const ast::Expr& e, ast::Var v) { return e.kind == K::kVar && e.var == v; }
bool IsBool(const ast::Expr& e, bool b) { return e.kind == K::kBool && e.b == b; }

bool BoolTyped(const ast::Expr& root) {
  const ast::Expr* e = &root;
  // `if c then a else b`: both branches; the else-branches in a loop.
  while (e->kind == K::kIf) {
    if (!BoolTyped(*e->args[1])) return false;
    e = e->args[2].get();
  }
  switch (e->kind) {
    case K::kBool:
    case K::kHas:
    case K::kLike:
    case K::kIs: return true;
    case K::kUnary: return e->uop == ast::UnaryOp::kNot;
    case K::kBinary:
      return e->bop != BinaryOp::kAdd && e->bop != BinaryOp::kSub && e->bop != BinaryOp::kMul;
    case K::kMethod:
    case K::kCall: {
      const BuiltinInfo* info = BuiltinOf(*e);
      return info != nullptr && info->result == ParamType::kBool;
    }
    default: return false;
  }
}

bool CanError(const ast::Expr& e, ast::Var unknown) { return CanErrorWith(e, unknown, Guards{}); }

bool MayHold(const ast::Expr& root) {
  std::vector<const ast::Expr*> stack{&root};
  // Holds unless some operand of a top-level conjunction is `false`.
  while (!stack.empty()) {
    const ast::Expr* e = stack.back();
    stack.pop_back();
    if (IsBool(*e, false)) return false;
    if (e->kind == K::kBinary && e->bop == BinaryOp::kAnd) {
      stack.push_back(e->args[0].get());
      stack.push_back(e->args[1].get());
    }
  }
  return true;
}

std::string ToCedar(const ast::Expr& e) {
  std::string out;
  TextPrinter(&out).Print(e, kIfLevel);
  return out;
}

void AppendEst(std::string* out, const ast::Expr& e) { EstWriter(out).Write(e); }

std::string ToEst(const ast::Expr& e) {
  std::string out;
  AppendEst(&out, e);
  return out;
}

}  // namespace charter::internal::residual
