// The strict validator. Each policy's scope and conditions become one
// condition, `principal-scope && (action-scope && (resource-scope &&
// conditions))`, as in Cedar, and that condition is type-checked for every
// request environment the schema declares. The type system is Cedar's:
// singleton `True`/`False` types let `&&`, `||` and `if` skip what cannot run,
// and a capability set (which `has` and `hasTag` tests are known to hold) is
// carried through `&&`, `||` and `if` so that optional attributes and tags
// may be read only where a test guards them.
#include "check/validator.h"

#include <cctype>
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "builtins/builtins.h"
#include "charter_support/nearest.h"
#include "common/diagnostic_codes.h"
#include "policy_set/policy_set.h"
#include "common/strings.h"

namespace charter::internal {
namespace {

using ast::BinaryOp;
using ast::Expr;
using ast::UnaryOp;
using Kind = SchemaType::Kind;

constexpr int kMaxCheckDepth = 5000;

// --- the type lattice ---------------------------------------------------------

bool Subtype(const SchemaType& a, const SchemaType& b, bool strict);

bool AttrsSubtype(const std::map<std::string, AttrType>& a, const std::map<std::string, AttrType>& b,
                  bool strict) {
  for (const auto& [k, tb] : b) {
    auto it = a.find(k);
    if (it == a.end()) return false;
    const AttrType& ta = it->second;
    bool qualifier = strict ? ta.required == tb.required : (ta.required || !tb.required);
    if (!qualifier || !Subtype(*ta.type, *tb.type, strict)) return false;
  }
  return true;
}

bool SameKeys(const std::map<std::string, AttrType>& a, const std::map<std::string, AttrType>& b) {
  if (a.size() != b.size()) return false;
  for (auto i = a.begin(), j = b.begin(); i != a.end(); ++i, ++j) {
    if (i->first != j->first) return false;
  }
  return true;
}

bool Subtype(const SchemaType& a, const SchemaType& b, bool strict) {
  if (a.kind == Kind::kNever) return true;
  if (a.is_bool() && b.is_bool()) {
    if (b.kind == Kind::kBool) return true;
    return a.kind == b.kind;
  }
  switch (a.kind) {
    case Kind::kLong:
    case Kind::kString: return a.kind == b.kind;
    case Kind::kSet:
      if (b.kind != Kind::kSet) return false;
      if (b.elem == nullptr) return true;
      if (a.elem == nullptr) return false;
      return Subtype(*a.elem, *b.elem, strict);
    case Kind::kRecord:
      if (b.kind != Kind::kRecord) return false;
      if (a.open && !b.open) return false;
      if (b.open && !strict && AttrsSubtype(a.attrs, b.attrs, strict)) return true;
      return SameKeys(a.attrs, b.attrs) && AttrsSubtype(a.attrs, b.attrs, strict);
    case Kind::kEntity:
      if (b.kind == Kind::kEntity) return a.name == b.name;
      return b.kind == Kind::kAnyEntity && !strict;
    case Kind::kAnyEntity: return b.kind == Kind::kAnyEntity;
    case Kind::kExtension: return b.kind == Kind::kExtension && a.name == b.name;
    default: return false;
  }
}

// Cedar's strict least upper bound; nullptr when there is none.
TypeRef Lub(const TypeRef& a, const TypeRef& b) {
  if (Subtype(*a, *b, true)) return b;
  if (Subtype(*b, *a, true)) return a;
  if (a->is_bool() && b->is_bool()) return SchemaType::Of(Kind::kBool);
  if (a->kind == Kind::kSet && b->kind == Kind::kSet) {
    if (a->elem == nullptr || b->elem == nullptr) return SchemaType::SetOf(nullptr);
    TypeRef e = Lub(a->elem, b->elem);
    return e == nullptr ? nullptr : SchemaType::SetOf(e);
  }
  if (a->kind == Kind::kRecord && b->kind == Kind::kRecord) {
    if (!SameKeys(a->attrs, b->attrs)) return nullptr;
    std::map<std::string, AttrType> attrs;
    for (const auto& [k, ta] : a->attrs) {
      const AttrType& tb = b->attrs.at(k);
      if (ta.required != tb.required) return nullptr;
      TypeRef t = Lub(ta.type, tb.type);
      if (t == nullptr) return nullptr;
      attrs[k] = AttrType{t, ta.required};
    }
    return SchemaType::Record(std::move(attrs), a->open || b->open);
  }
  return nullptr;
}

bool IsSingleton(const TypeRef& t, bool value) {
  return t != nullptr && t->kind == (value ? Kind::kTrue : Kind::kFalse);
}

// --- capabilities ---------------------------------------------------------------

void KeyOfHasPath(const Expr& e, std::string* out);

// A structural key of an expression (spans ignored), for capabilities.
void KeyOf(const Expr& e, std::string* out) {
  if (e.kind == Expr::Kind::kHas && e.keys.size() > 1) return KeyOfHasPath(e, out);
  CatAppend(out, "(", static_cast<int>(e.kind), " ");
  switch (e.kind) {
    case Expr::Kind::kBool: out->append(e.b ? "t" : "f"); break;
    case Expr::Kind::kLong: CatAppend(out, e.i); break;
    case Expr::Kind::kString:
    case Expr::Kind::kSlot:
    case Expr::Kind::kAttr:
    case Expr::Kind::kMethod:
    case Expr::Kind::kCall:
    case Expr::Kind::kIs: CatAppend(out, e.str.size(), ":", e.str); break;
    case Expr::Kind::kEntity:
      CatAppend(out, e.entity.type.size(), ":", e.entity.type, e.entity.id.size(), ":", e.entity.id);
      break;
    case Expr::Kind::kVar: CatAppend(out, static_cast<int>(e.var)); break;
    case Expr::Kind::kUnary: CatAppend(out, static_cast<int>(e.uop)); break;
    case Expr::Kind::kBinary: CatAppend(out, static_cast<int>(e.bop)); break;
    case Expr::Kind::kLike:
      for (const ast::PatternElem& p : e.pattern) {
        CatAppend(out, p.wildcard ? "*" : "l", p.literal.size(), ":", p.literal);
      }
      break;
    default: break;
  }
  for (const std::string& k : e.keys) CatAppend(out, " ", k.size(), ":", k);
  for (const auto& a : e.args) KeyOf(*a, out);
  out->append(")");
}

// The receivers of a has-path's tests: [i] is `on.k0...k(i-1)`, [0] `on`.
std::vector<const Expr*> HasPathBases(const Expr& e) {
  const size_t k = e.keys.size();
  std::vector<const Expr*> base(k);
  const Expr* at = e.args[0].get();
  for (size_t i = k; i-- > 0;) {
    base[i] = at;
    if (i > 0) at = at->args[0].get();
  }
  return base;
}

// The key of a has-path that Desugar kept whole (args[0] is the chain of
// attribute reads `on.k0...` of all but its last key): that of the chain of
// tests it stands for, `on has k0 && on.k0 has k1 && ...`, so that
// capabilities compare as they did when the chain was built.
void KeyOfHasPath(const Expr& e, std::string* out) {
  const size_t k = e.keys.size();
  const std::vector<const Expr*> base = HasPathBases(e);
  const std::string and_open = Cat("(", static_cast<int>(Expr::Kind::kBinary), " ", static_cast<int>(BinaryOp::kAnd));
  for (size_t i = 1; i < k; ++i) out->append(and_open);
  for (size_t i = 0; i < k; ++i) {
    CatAppend(out, "(", static_cast<int>(Expr::Kind::kHas), " ");
    KeyOf(*base[i], out);
    out->append(i == 0 ? ")" : "))");
  }
}

std::string AttrCap(const Expr& on, const std::string& attr) {
  std::string k = "a";
  KeyOf(on, &k);
  CatAppend(&k, attr.size(), ":", attr);
  return k;
}
std::string TagCap(const Expr& on, const Expr& tag) {
  std::string k = "t";
  KeyOf(on, &k);
  KeyOf(tag, &k);
  return k;
}

using Caps = std::set<std::string>;

Caps Union(const Caps& a, const Caps& b) {
  Caps out = a;
  out.insert(b.begin(), b.end());
  return out;
}
Caps Intersect(const Caps& a, const Caps& b) {
  Caps out;
  for (const std::string& k : a) {
    if (b.count(k) != 0) out.insert(k);
  }
  return out;
}

// --- the desugared condition ----------------------------------------------------

std::unique_ptr<Expr> NewNode(Expr::Kind kind, Span span) {
  auto e = std::make_unique<Expr>();
  e->kind = kind;
  e->span = span;
  return e;
}

std::unique_ptr<Expr> Binary(BinaryOp op, std::unique_ptr<Expr> a, std::unique_ptr<Expr> b, Span span) {
  auto e = NewNode(Expr::Kind::kBinary, span);
  e->bop = op;
  e->args.push_back(std::move(a));
  e->args.push_back(std::move(b));
  return e;
}

// The form Cedar's checker sees: `e has a.b` is `e has a && e.a has b`;
// `a != b` is `!(a == b)`; `e is T in x` is `e is T && e in x`. A has-path
// stays one node whose args[0] is the chain `e.a...` of all but its last
// key, built once: the checker checks it as the chain of tests it stands for
// (Checker::CheckHasPath), where building each test with its own copy of
// the chain was quadratic in the path.
std::unique_ptr<Expr> Desugar(const Expr& e, int depth, bool* too_deep) {
  if (depth > kMaxCheckDepth) {
    *too_deep = true;
    return NewNode(Expr::Kind::kBool, e.span);
  }
  if (e.kind == Expr::Kind::kHas && e.keys.size() > 1) {
    std::unique_ptr<Expr> base = Desugar(*e.args[0], depth + 1, too_deep);
    for (size_t i = 0; i + 1 < e.keys.size(); ++i) {
      auto next = NewNode(Expr::Kind::kAttr, e.span);
      next->str = e.keys[i];
      next->args.push_back(std::move(base));
      base = std::move(next);
    }
    auto path = NewNode(Expr::Kind::kHas, e.span);
    path->str = e.keys[0];
    path->keys = e.keys;
    path->args.push_back(std::move(base));
    return path;
  }
  std::unique_ptr<Expr> c = ast::CopyNode(e);
  if (e.kind == Expr::Kind::kHas && !e.keys.empty()) c->str = e.keys[0];
  if (e.kind != Expr::Kind::kRecord) c->keys.clear();
  for (const auto& a : e.args) c->args.push_back(Desugar(*a, depth + 1, too_deep));
  if (c->kind == Expr::Kind::kBinary && c->bop == BinaryOp::kNe) {
    c->bop = BinaryOp::kEq;
    auto n = NewNode(Expr::Kind::kUnary, e.span);
    n->uop = UnaryOp::kNot;
    n->args.push_back(std::move(c));
    return n;
  }
  if (c->kind == Expr::Kind::kIs && c->args.size() == 2) {
    std::unique_ptr<Expr> in_rhs = std::move(c->args[1]);
    c->args.pop_back();
    std::unique_ptr<Expr> lhs = ast::Clone(*c->args[0]);
    return Binary(BinaryOp::kAnd, std::move(c), Binary(BinaryOp::kIn, std::move(lhs), std::move(in_rhs), e.span),
                  e.span);
  }
  return c;
}

std::unique_ptr<Expr> VarNode(ast::Var v, Span span) {
  auto e = NewNode(Expr::Kind::kVar, span);
  e->var = v;
  return e;
}

std::unique_ptr<Expr> EntityNode(const ast::EntityRef& r) {
  auto e = NewNode(Expr::Kind::kEntity, r.span);
  e->entity = r;
  return e;
}

std::unique_ptr<Expr> ScopeExpr(const ast::ScopeConstraint& c, ast::Var v) {
  using SK = ast::ScopeConstraint::Kind;
  auto target = [&]() -> std::unique_ptr<Expr> {
    if (c.slot) {
      auto s = NewNode(Expr::Kind::kSlot, c.span);
      s->str = v == ast::Var::kPrincipal ? "?principal" : "?resource";
      return s;
    }
    return EntityNode(c.entity);
  };
  switch (c.kind) {
    case SK::kAny: {
      auto t = NewNode(Expr::Kind::kBool, c.span);
      t->b = true;
      return t;
    }
    case SK::kEq: return Binary(BinaryOp::kEq, VarNode(v, c.span), target(), c.span);
    case SK::kIn: return Binary(BinaryOp::kIn, VarNode(v, c.span), target(), c.span);
    case SK::kIs: {
      auto is = NewNode(Expr::Kind::kIs, c.span);
      is->str = c.type;
      is->args.push_back(VarNode(v, c.span));
      return is;
    }
    case SK::kIsIn: {
      auto is = NewNode(Expr::Kind::kIs, c.span);
      is->str = c.type;
      is->args.push_back(VarNode(v, c.span));
      return Binary(BinaryOp::kAnd, std::move(is),
                    Binary(BinaryOp::kIn, VarNode(v, c.span), target(), c.span), c.span);
    }
  }
  return nullptr;
}

std::unique_ptr<Expr> ActionExpr(const ast::ActionConstraint& c) {
  using AK = ast::ActionConstraint::Kind;
  switch (c.kind) {
    case AK::kAny: {
      auto t = NewNode(Expr::Kind::kBool, c.span);
      t->b = true;
      return t;
    }
    case AK::kEq:
      return Binary(BinaryOp::kEq, VarNode(ast::Var::kAction, c.span), EntityNode(c.entities[0]), c.span);
    case AK::kIn:
    case AK::kInList: {
      auto set = NewNode(Expr::Kind::kSet, c.span);
      for (const ast::EntityRef& r : c.entities) set->args.push_back(EntityNode(r));
      return Binary(BinaryOp::kIn, VarNode(ast::Var::kAction, c.span), std::move(set), c.span);
    }
  }
  return nullptr;
}

// --- the checker ---------------------------------------------------------------

struct Env {
  std::string principal;
  ActionKey action;
  std::string resource;
  TypeRef context;
  std::optional<std::string> principal_slot;
  std::optional<std::string> resource_slot;
};

struct Answer {
  TypeRef type;  // null: no type could be given
  bool ok = true;
  Caps caps;
};

Answer Fail(TypeRef t = nullptr) { return Answer{std::move(t), false, {}}; }
Answer Ok(TypeRef t, Caps caps = {}) { return Answer{std::move(t), true, std::move(caps)}; }

std::string Quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out + "\"";
}

std::string Uid(const ast::EntityRef& r) { return Cat(r.type, "::", Quote(r.id)); }

// The text of `e` when it is a variable followed by attribute reads, such as
// `resource.contract` (keys that are not identifiers in brackets); empty for
// anything else.
std::string PathText(const Expr& e) {
  std::vector<const std::string*> keys;
  const Expr* at = &e;
  while (at->kind == Expr::Kind::kAttr) {
    keys.push_back(&at->str);
    at = at->args[0].get();
  }
  if (at->kind != Expr::Kind::kVar) return "";
  std::string out(ast::VarText(at->var));
  for (auto it = keys.rbegin(); it != keys.rend(); ++it) {
    const std::string& k = **it;
    bool ident = !k.empty() && !std::isdigit(static_cast<unsigned char>(k[0]));
    for (char c : k) ident = ident && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
    if (ident) {
      CatAppend(&out, ".", k);
    } else {
      CatAppend(&out, "[", Quote(k), "]");
    }
  }
  return out;
}

// The validator's type for a registry parameter type (builtins.def).
const TypeRef& TypeOf(ParamType t) {
  static const auto* types = [] {
    auto* v = new std::vector<TypeRef>;
    for (int i = 0; i <= static_cast<int>(ParamType::kDuration); ++i) {
      auto p = static_cast<ParamType>(i);
      switch (p) {
        case ParamType::kBool: v->push_back(SchemaType::Of(Kind::kBool)); break;
        case ParamType::kLong: v->push_back(SchemaType::Of(Kind::kLong)); break;
        case ParamType::kString: v->push_back(SchemaType::Of(Kind::kString)); break;
        case ParamType::kIpaddr:
        case ParamType::kDecimal:
        case ParamType::kDatetime:
        case ParamType::kDuration:
          v->push_back(SchemaType::Extension(std::string(ParamTypeName(p))));
          break;
        default: v->push_back(nullptr); break;  // checked by the core methods' own rules
      }
    }
    return v;
  }();
  return (*types)[static_cast<size_t>(t)];
}

class Checker {
 public:
  Checker(const SchemaModel& schema, const Env& env, std::vector<Diagnostic>* errors)
      : schema_(schema), env_(env), errors_(errors) {}

  Answer Check(const Caps& prior, const Expr& e) {
    if (++depth_ > kMaxCheckDepth) {
      --depth_;
      return Fail();
    }
    Answer a = CheckInner(prior, e);
    --depth_;
    if (types_ != nullptr && a.type != nullptr) types_->push_back(TypedSpan{e.span, TypeName(*a.type)});
    return a;
  }

  // Where each expression's type goes (ValidatePolicySet's `types`).
  void set_types(std::vector<TypedSpan>* types) { types_ = types; }

  Answer Expect(const Caps& prior, const Expr& e, const std::vector<TypeRef>& expected) {
    return Expected(Check(prior, e), e, expected);
  }
  Answer Expect(const Caps& prior, const Expr& e, TypeRef expected) {
    return Expect(prior, e, std::vector<TypeRef>{std::move(expected)});
  }

 private:
  // Expect's test of the answer `a` that checking `e` gave.
  Answer Expected(Answer a, const Expr& e, const std::vector<TypeRef>& expected) {
    if (a.type == nullptr) return Fail();
    for (const TypeRef& t : expected) {
      if (Subtype(*a.type, *t, false)) return a;
    }
    std::string want;
    for (size_t i = 0; i < expected.size(); ++i) {
      CatAppend(&want, i == 0 ? "" : i + 1 == expected.size() ? " or " : ", ", "`",
                ExpectedName(*expected[i]), "`");
    }
    Error(codes::CH0510, e.span, Cat("expected ", want, ", found `", TypeName(*a.type), "`"));
    return Fail();
  }

  static std::string ExpectedName(const SchemaType& t) {
    switch (t.kind) {
      case Kind::kAnyEntity: return "entity";
      case Kind::kSet:
        if (t.elem == nullptr) return "set";
        return Cat("Set<", ExpectedName(*t.elem), ">");
      case Kind::kRecord:
        if (t.open && t.attrs.empty()) return "record";
        return TypeName(t);
      default: return TypeName(t);
    }
  }

  void Error(const char* code, Span span, std::string message, std::string help = "") {
    errors_->push_back(Diagnostic{Severity::kError, code, span, std::move(message), std::move(help)});
  }

  void Incompatible(Span span, const std::vector<TypeRef>& types, std::string_view context) {
    std::string names;
    for (size_t i = 0; i < types.size(); ++i) {
      CatAppend(&names, i == 0 ? "" : i + 1 == types.size() ? " and " : ", ", "`",
                TypeName(*types[i]), "`");
    }
    Error(codes::CH0511, span, Cat(context, " has incompatible types ", names),
          "in strict mode both sides must have the same type; entity types must be equal and "
          "records must have the same attributes");
  }

  // Then: f runs whether or not `a` succeeded; a failure stays a failure and
  // passes no capabilities on.
  template <typename F>
  Answer Then(const Answer& a, F f) {
    Answer r = f(a.type, a.ok ? a.caps : Caps{});
    if (!a.ok) r.ok = false;
    return r;
  }

  static TypeRef Bool() { return SchemaType::Of(Kind::kBool); }
  static TypeRef Singleton(bool v) { return SchemaType::Of(v ? Kind::kTrue : Kind::kFalse); }
  static TypeRef Long() { return SchemaType::Of(Kind::kLong); }
  static TypeRef String() { return SchemaType::Of(Kind::kString); }
  static TypeRef AnyEntity() { return SchemaType::Of(Kind::kAnyEntity); }
  static TypeRef AnySet() { return SchemaType::SetOf(nullptr); }
  static TypeRef AnyRecord() { return SchemaType::Record({}, true); }

  const std::map<std::string, AttrType>* AttrsOf(const SchemaType& t) const {
    static const std::map<std::string, AttrType> kNone;
    if (t.kind == Kind::kRecord) return &t.attrs;
    if (t.kind == Kind::kEntity) {
      const EntityTypeInfo* info = schema_.FindEntityType(t.name);
      return info == nullptr ? &kNone : &info->attrs;
    }
    return nullptr;
  }

  bool MayHaveAttr(const SchemaType& t, const std::string& attr) const {
    switch (t.kind) {
      case Kind::kNever:
      case Kind::kAnyEntity: return true;
      case Kind::kEntity: {
        if (IsActionType(t.name)) return false;
        const EntityTypeInfo* info = schema_.FindEntityType(t.name);
        if (info == nullptr || info->open_attrs) return true;
        return info->attrs.count(attr) != 0;
      }
      case Kind::kRecord: return t.open || t.attrs.count(attr) != 0;
      default: return false;
    }
  }

  // The entity uid of a literal, or of `action` in this environment.
  std::optional<ast::EntityRef> EuidOf(const Expr& e) const {
    if (e.kind == Expr::Kind::kEntity) return e.entity;
    if (e.kind == Expr::Kind::kVar && e.var == ast::Var::kAction) {
      return ast::EntityRef{env_.action.type, env_.action.id, e.span};
    }
    return std::nullopt;
  }
  bool IsLiteral(const Expr& e) const {
    return e.kind == Expr::Kind::kBool || e.kind == Expr::Kind::kLong ||
           e.kind == Expr::Kind::kString || e.kind == Expr::Kind::kEntity ||
           (e.kind == Expr::Kind::kVar && e.var == ast::Var::kAction);
  }
  static bool SameLiteral(const Expr& a, const Expr& b, const std::optional<ast::EntityRef>& ea,
                          const std::optional<ast::EntityRef>& eb) {
    if (ea.has_value() || eb.has_value()) {
      return ea.has_value() && eb.has_value() && ea->type == eb->type && ea->id == eb->id;
    }
    if (a.kind != b.kind) return false;
    switch (a.kind) {
      case Expr::Kind::kBool: return a.b == b.b;
      case Expr::Kind::kLong: return a.i == b.i;
      case Expr::Kind::kString: return a.str == b.str;
      default: return false;
    }
  }

  Answer CheckInner(const Caps& prior, const Expr& e) {
    switch (e.kind) {
      case Expr::Kind::kBool: return Ok(Singleton(e.b));
      case Expr::Kind::kLong: return Ok(Long());
      case Expr::Kind::kString: return Ok(String());
      case Expr::Kind::kEntity: {
        if (IsActionType(e.entity.type)) {
          if (schema_.FindAction({e.entity.type, e.entity.id}) != nullptr) {
            return Ok(SchemaType::Entity(e.entity.type));
          }
          return Fail();
        }
        if (schema_.FindEntityType(e.entity.type) != nullptr) return Ok(SchemaType::Entity(e.entity.type));
        return Fail();
      }
      case Expr::Kind::kVar:
        switch (e.var) {
          case ast::Var::kPrincipal: return Ok(SchemaType::Entity(env_.principal));
          case ast::Var::kAction: return Ok(SchemaType::Entity(env_.action.type));
          case ast::Var::kResource: return Ok(SchemaType::Entity(env_.resource));
          case ast::Var::kContext: return Ok(env_.context);
        }
        return Fail();
      case Expr::Kind::kSlot: {
        const std::optional<std::string>& s =
            e.str == "?principal" ? env_.principal_slot : env_.resource_slot;
        return Ok(s.has_value() ? SchemaType::Entity(*s) : AnyEntity());
      }
      case Expr::Kind::kIf: return CheckIf(prior, e);
      case Expr::Kind::kBinary: return CheckBinary(prior, e);
      case Expr::Kind::kUnary: return CheckUnary(prior, e);
      case Expr::Kind::kAttr: return CheckGetAttr(prior, e);
      case Expr::Kind::kHas: return CheckHas(prior, e);
      case Expr::Kind::kLike:
        return Then(Expect(prior, *e.args[0], String()),
                    [&](const TypeRef&, const Caps&) { return Ok(Bool()); });
      case Expr::Kind::kIs: return CheckIs(prior, e);
      case Expr::Kind::kSet: return CheckSet(prior, e);
      case Expr::Kind::kRecord: return CheckRecord(prior, e);
      case Expr::Kind::kMethod:
      case Expr::Kind::kCall: return CheckCall(prior, e);
    }
    return Fail();
  }

  Answer CheckIf(const Caps& prior, const Expr& e) {
    Answer test = Expect(prior, *e.args[0], Bool());
    return Then(test, [&](const TypeRef& tt, const Caps& tcaps) {
      if (IsSingleton(tt, true)) {
        Answer then = Check(Union(prior, tcaps), *e.args[1]);
        return Then(then, [&](const TypeRef& t, const Caps& c) { return Ok(t, Union(c, tcaps)); });
      }
      if (IsSingleton(tt, false)) {
        Answer other = Check(prior, *e.args[2]);
        return Then(other, [&](const TypeRef& t, const Caps& c) { return Ok(t, c); });
      }
      Answer then = Check(Union(prior, tcaps), *e.args[1]);
      if (then.ok) then.caps = Union(then.caps, tcaps);
      Answer other = Check(prior, *e.args[2]);
      return Then(then, [&](const TypeRef& t1, const Caps& c1) {
        return Then(other, [&](const TypeRef& t2, const Caps& c2) {
          if (t1 == nullptr || t2 == nullptr) return Fail();
          TypeRef lub = Lub(t1, t2);
          if (lub == nullptr) {
            Incompatible(e.span, {t1, t2}, "`if ... then ... else`");
            return Fail();
          }
          return Ok(lub, Intersect(c2, c1));
        });
      });
    });
  }

  Answer CheckAnd(const Caps& prior, const Expr& e) {
    Answer left = Expect(prior, *e.args[0], Bool());
    return Then(left, [&](const TypeRef& tl, const Caps& cl) {
      if (IsSingleton(tl, false)) return Ok(tl);
      Answer right = Expect(Union(prior, cl), *e.args[1], Bool());
      return Then(right, [&](const TypeRef& tr, const Caps& cr) {
        if (tl == nullptr || tr == nullptr) return Fail(Bool());
        if (IsSingleton(tr, false)) return Ok(Singleton(false));
        if (IsSingleton(tr, true)) return Ok(tl, Union(cl, cr));
        if (IsSingleton(tl, true)) return Ok(tr, cr);
        return Ok(Bool(), Union(cl, cr));
      });
    });
  }

  Answer CheckOr(const Caps& prior, const Expr& e) {
    Answer left = Expect(prior, *e.args[0], Bool());
    return Then(left, [&](const TypeRef& tl, const Caps& cl) {
      if (IsSingleton(tl, true)) return Ok(tl, cl);
      Answer right = Expect(prior, *e.args[1], Bool());
      return Then(right, [&](const TypeRef& tr, const Caps& cr) {
        if (tl == nullptr || tr == nullptr) return Fail(Bool());
        if (IsSingleton(tr, true)) return Ok(Singleton(true), cr);
        if (IsSingleton(tr, false)) return Ok(tl, cl);
        if (IsSingleton(tl, false)) return Ok(tr, cr);
        return Ok(Bool(), Intersect(cr, cl));
      });
    });
  }

  Answer StrictEquality(Span span, TypeRef result, const TypeRef& lhs, const TypeRef& rhs,
                        std::string_view context) {
    if (result->kind == Kind::kTrue || result->kind == Kind::kFalse) return Ok(result);
    if (lhs != nullptr && rhs != nullptr && Lub(lhs, rhs) == nullptr) {
      Incompatible(span, {lhs, rhs}, context);
      return Fail(result);
    }
    return Ok(result);
  }

  Answer CheckBinary(const Caps& prior, const Expr& e) {
    const Expr& a = *e.args[0];
    const Expr& b = *e.args[1];
    switch (e.bop) {
      case BinaryOp::kAnd: return CheckAnd(prior, e);
      case BinaryOp::kOr: return CheckOr(prior, e);
      case BinaryOp::kEq:
      case BinaryOp::kNe: {
        Answer l = Check(prior, a);
        Answer r = Check(prior, b);
        return Then(l, [&](const TypeRef& tl, const Caps&) {
          return Then(r, [&](const TypeRef& tr, const Caps&) {
            TypeRef eq;
            if (tl != nullptr && tr != nullptr && tl->kind == Kind::kEntity &&
                tr->kind == Kind::kEntity && tl->name != tr->name) {
              eq = Singleton(false);
            } else if (IsLiteral(a) && IsLiteral(b)) {
              eq = Singleton(SameLiteral(a, b, EuidOf(a), EuidOf(b)));
            } else {
              eq = Bool();
            }
            return StrictEquality(e.span, eq, tl, tr, "`==`");
          });
        });
      }
      case BinaryOp::kLt:
      case BinaryOp::kLe:
      case BinaryOp::kGt:
      case BinaryOp::kGe: {
        // `a > b` is `b < a` to Cedar.
        bool swap = e.bop == BinaryOp::kGt || e.bop == BinaryOp::kGe;
        const Expr& x = swap ? b : a;
        const Expr& y = swap ? a : b;
        Answer l = Check(prior, x);
        return Then(l, [&](const TypeRef& t1, const Caps&) {
          Answer r = Check(prior, y);
          return Then(r, [&](const TypeRef& t2, const Caps&) { return Compare(x, t1, y, t2); });
        });
      }
      case BinaryOp::kAdd:
      case BinaryOp::kSub:
      case BinaryOp::kMul: {
        Answer l = Expect(prior, a, Long());
        return Then(l, [&](const TypeRef&, const Caps&) {
          Answer r = Expect(prior, b, Long());
          return Then(r, [&](const TypeRef&, const Caps&) { return Ok(Long()); });
        });
      }
      case BinaryOp::kIn: return CheckIn(prior, e, a, b);
    }
    return Fail();
  }

  static bool Comparable(const SchemaType& t) {
    return t.kind == Kind::kLong ||
           (t.kind == Kind::kExtension && (t.name == "datetime" || t.name == "duration"));
  }

  Answer Compare(const Expr& x, const TypeRef& t1, const Expr& y, const TypeRef& t2) {
    if (t1 == nullptr || t2 == nullptr) return Fail(Bool());
    static const char* kWant = "`datetime`, `duration` or `Long`";
    auto wrong = [&](const Expr& at, const TypeRef& found, std::string want) {
      Error(codes::CH0510, at.span, Cat("expected ", want, ", found `", TypeName(*found), "`"));
    };
    if (t1->kind == Kind::kNever && t2->kind == Kind::kNever) return Fail(Bool());
    if (t1->kind == Kind::kNever || t2->kind == Kind::kNever) {
      const TypeRef& other = t1->kind == Kind::kNever ? t2 : t1;
      if (Comparable(*other)) return Ok(Bool());
      wrong(t1->kind == Kind::kNever ? y : x, other, kWant);
      return Fail(Bool());
    }
    if (TypeEquals(*t1, *t2) && Comparable(*t1)) return Ok(Bool());
    if (t1->kind == Kind::kLong) {
      wrong(y, t2, "`Long`");
    } else if (t2->kind == Kind::kLong) {
      wrong(x, t1, "`Long`");
    } else if (Comparable(*t1)) {
      wrong(y, t2, Cat("`", TypeName(*t1), "`"));
    } else if (Comparable(*t2)) {
      wrong(x, t1, Cat("`", TypeName(*t2), "`"));
    } else {
      wrong(x, t1, kWant);
      wrong(y, t2, kWant);
    }
    return Fail(Bool());
  }

  bool AnyDescendantOf(const std::string& lhs, const std::string& rhs) const {
    if (lhs == rhs) return true;
    const EntityTypeInfo* r = schema_.FindEntityType(rhs);
    if (r != nullptr && r->descendants.count(lhs) != 0) return true;
    for (const auto& [key, info] : schema_.actions) {
      if (key.type != rhs) continue;
      for (const ActionKey& d : info.descendants) {
        if (d.type == lhs) return true;
      }
    }
    return false;
  }

  Answer CheckIn(const Caps& prior, const Expr& e, const Expr& a, const Expr& b) {
    Answer l = Expect(prior, a, AnyEntity());
    Answer r = Expect(prior, b, {SchemaType::SetOf(AnyEntity()), AnyEntity()});
    bool both = l.ok && r.ok;
    return Then(l, [&](const TypeRef& tl, const Caps&) {
      return Then(r, [&](const TypeRef& tr, const Caps&) {
        if (!both) return Fail(Bool());
        std::optional<ast::EntityRef> lhs = EuidOf(a);
        std::optional<std::vector<ast::EntityRef>> rhs;
        if (std::optional<ast::EntityRef> one = EuidOf(b)) {
          rhs = std::vector<ast::EntityRef>{*one};
        } else if (b.kind == Expr::Kind::kSet) {
          std::vector<ast::EntityRef> all;
          bool every = true;
          for (const auto& x : b.args) {
            std::optional<ast::EntityRef> u = EuidOf(*x);
            if (!u.has_value()) {
              every = false;
              break;
            }
            all.push_back(*u);
          }
          if (every) rhs = std::move(all);
        }
        if (lhs.has_value() && rhs.has_value() && IsActionType(lhs->type)) {
          std::vector<ActionKey> actions;
          for (const ast::EntityRef& u : *rhs) {
            if (IsActionType(u.type)) actions.push_back({u.type, u.id});
          }
          if (actions.empty()) return Ok(Singleton(false));
          bool found = false;
          ActionKey lk{lhs->type, lhs->id};
          for (const ActionKey& k : actions) {
            const ActionInfo* info = schema_.FindAction(k);
            if (info == nullptr) return Fail(Bool());
            if (k == lk || info->descendants.count(lk) != 0) found = true;
          }
          return Ok(Singleton(found));
        }
        const std::string* le = tl != nullptr && tl->kind == Kind::kEntity ? &tl->name : nullptr;
        const std::string* re = nullptr;
        if (tr != nullptr && tr->kind == Kind::kEntity) re = &tr->name;
        if (tr != nullptr && tr->kind == Kind::kSet && tr->elem != nullptr &&
            tr->elem->kind == Kind::kEntity) {
          re = &tr->elem->name;
        }
        if (le != nullptr && re != nullptr && !AnyDescendantOf(*le, *re)) return Ok(Singleton(false));
        return Ok(Bool());
      });
    });
  }

  Answer CheckUnary(const Caps& prior, const Expr& e) {
    if (e.uop == UnaryOp::kNot) {
      Answer a = Expect(prior, *e.args[0], Bool());
      return Then(a, [&](const TypeRef& t, const Caps&) {
        if (t == nullptr) return Fail(Bool());
        if (IsSingleton(t, true)) return Ok(Singleton(false));
        if (IsSingleton(t, false)) return Ok(Singleton(true));
        return Ok(Bool());
      });
    }
    Answer a = Expect(prior, *e.args[0], Long());
    return Then(a, [&](const TypeRef&, const Caps&) { return Ok(Long()); });
  }

  Answer CheckGetAttr(const Caps& prior, const Expr& e) {
    return GetAttr(prior, e, Expect(prior, *e.args[0], {AnyEntity(), AnyRecord()}));
  }

  // `e` (`on.attr`) once `on` has been checked, giving `a`.
  Answer GetAttr(const Caps& prior, const Expr& e, const Answer& a) {
    const Expr& on = *e.args[0];
    return Then(a, [&](const TypeRef& t, const Caps&) {
      if (t == nullptr) return Fail();
      const std::map<std::string, AttrType>* attrs = AttrsOf(*t);
      const AttrType* found = nullptr;
      if (attrs != nullptr) {
        auto it = attrs->find(e.str);
        if (it != attrs->end()) found = &it->second;
      }
      if (found != nullptr) {
        if (found->required || prior.count(AttrCap(on, e.str)) != 0) return Ok(found->type);
        // A record is named by the expression that reads it: its type spelt
        // out can fill a screen.
        std::string path = t->kind == Kind::kRecord ? PathText(on) : "";
        std::string holder = path.empty() ? Cat("`", TypeName(*t), "`") : Cat("record `", path, "`");
        Error(codes::CH0513, e.span, Cat("attribute `", e.str, "` of ", holder, " is optional and may be absent here"),
              Cat("test for it first: `... has ", e.str, " && ...`"));
        return Fail(found->type);
      }
      std::string help;
      if (attrs != nullptr && !attrs->empty()) {
        std::vector<std::string_view> names;
        for (const auto& [k, v] : *attrs) names.push_back(k);
        std::string best = support::NearestName(e.str, names, 3);
        if (!best.empty()) help = Cat("did you mean `", best, "`?");
      }
      Error(codes::CH0512, e.span, Cat("`", TypeName(*t), "` has no attribute `", e.str, "`"), help);
      return Fail();
    });
  }

  Answer CheckHas(const Caps& prior, const Expr& e) {
    if (e.keys.size() > 1) return CheckHasPath(prior, e);
    return Has(prior, *e.args[0], e.str, Expect(prior, *e.args[0], {AnyEntity(), AnyRecord()}));
  }

  // `on has attr` once `on` has been checked, giving `a`.
  Answer Has(const Caps& prior, const Expr& on, const std::string& attr, const Answer& a) {
    return Then(a, [&](const TypeRef& t, const Caps&) {
      if (t == nullptr) return Fail(Bool());
      const std::map<std::string, AttrType>* attrs =
          t->kind == Kind::kAnyEntity ? nullptr : AttrsOf(*t);
      const AttrType* found = nullptr;
      if (attrs != nullptr) {
        auto it = attrs->find(attr);
        if (it != attrs->end()) found = &it->second;
      }
      std::string cap = AttrCap(on, attr);
      if (found != nullptr) {
        bool known = prior.count(cap) != 0 || (found->required && t->kind == Kind::kRecord);
        return Ok(known ? Singleton(true) : Bool(), Caps{cap});
      }
      return Ok(MayHaveAttr(*t, attr) ? Bool() : Singleton(false));
    });
  }

  // `on has k0.k1...`, kept whole by Desugar, checked as the chain of tests
  // it stands for, `((on has k0 && on.k0 has k1) && on.k0.k1 has k2) && ...`,
  // with that chain's answer, diagnostics and depth limit: the And of the
  // first i+1 tests (L_i) lies k-1-i levels below this node, the i-th test
  // one below that (the first is L_0 itself), and its operand `on.k0...`
  // (i-1) below that: the read of key j-1 (base[j]) sits at the same depth
  // in every test. Each test re-checked the chain under it, which was
  // quadratic in the path; here each read is checked once and its answer
  // kept while it stands. A read's answer depends on the capabilities only
  // through its own key's (added by the test before it and by nothing
  // after), so it stands until the capabilities passed on to the tests
  // shrink, which the And chain does at most twice (on its first failure,
  // and on its first test that is not known true after known ones); the
  // first read, `on`, is not looked up in them at all. Skipped re-checks
  // only repeat diagnostics, which Cedar reports once.
  Answer CheckHasPath(const Caps& prior, const Expr& e) {
    const size_t k = e.keys.size();
    const std::vector<const Expr*> base = HasPathBases(e);
    const int top = depth_;  // this node's depth, L_(k-1)'s
    const int n = static_cast<int>(k);
    // Checks `x` as if it lay at depth d.
    auto check_at = [&](const Caps& p, const Expr& x, int d) {
      depth_ = d - 1;
      Answer r = Check(p, x);
      depth_ = top;
      return r;
    };
    struct Kept {
      Answer answer;
      uint32_t generation = 0;  // 0: none
    };
    std::vector<Kept> kept(k);  // base[i]'s answer at depth top + k + 1 - i
    uint32_t generation = 1;
    // base[i] at depth top + n + 1 - i, under p (which holds the prior).
    auto read = [&](const Caps& p, size_t i) -> const Answer& {
      size_t from = i;
      while (from > 0 && kept[from].generation != generation) --from;
      if (from == 0 && kept[0].generation == 0) {
        kept[0].answer = check_at(p, *base[0], top + n + 1);
        kept[0].generation = 1;  // `on` reads no capability of the chain: kept for good
      }
      for (size_t m = from + 1; m <= i; ++m) {
        const int d = top + n + 1 - static_cast<int>(m);
        if (d > kMaxCheckDepth) {
          kept[m].answer = Fail();
        } else {
          depth_ = d;
          Answer on = Expected(kept[m - 1].answer, *base[m - 1], {AnyEntity(), AnyRecord()});
          kept[m].answer = GetAttr(p, *base[m], on);
          depth_ = top;
        }
        kept[m].generation = generation;
      }
      return kept[i].answer;
    };
    // The i-th test at depth d, under p.
    auto test = [&](const Caps& p, size_t i, int d) {
      if (d > kMaxCheckDepth) return Fail();
      Answer on = i == 0 ? check_at(p, *base[0], d + 1) : read(p, i);
      depth_ = d;
      Answer r = Has(p, *base[i], e.keys[i], Expected(std::move(on), *base[i], {AnyEntity(), AnyRecord()}));
      depth_ = top;
      return r;
    };
    Answer chain = test(prior, 0, top + n - 1);  // L_0
    for (size_t i = 1; i < k; ++i) {
      const int d = top + n - 1 - static_cast<int>(i);  // L_i's depth
      if (d > kMaxCheckDepth) {
        chain = Fail();
        continue;
      }
      // CheckAnd, with L_(i-1) already checked.
      Answer left = Expected(std::move(chain), e, {Bool()});
      bool given = false;    // the i-th test was given capabilities
      bool kept_all = true;  // and L_i keeps them all
      chain = Then(left, [&](const TypeRef& tl, const Caps& cl) {
        if (IsSingleton(tl, false)) return Ok(tl);
        given = !cl.empty();
        Answer right = Expected(test(Union(prior, cl), i, d + 1), e, {Bool()});
        return Then(right, [&](const TypeRef& tr, const Caps& cr) {
          kept_all = false;
          if (tl == nullptr || tr == nullptr) return Fail(Bool());
          if (IsSingleton(tr, false)) return Ok(Singleton(false));
          kept_all = true;
          if (IsSingleton(tr, true)) return Ok(tl, Union(cl, cr));
          if (IsSingleton(tl, true)) {
            kept_all = false;
            return Ok(tr, cr);
          }
          return Ok(Bool(), Union(cl, cr));
        });
      });
      if (given && !(kept_all && chain.ok)) ++generation;  // the next test may be given fewer
    }
    depth_ = top;
    return chain;
  }

  Answer CheckIs(const Caps& prior, const Expr& e) {
    Answer a = Expect(prior, *e.args[0], AnyEntity());
    return Then(a, [&](const TypeRef& t, const Caps&) {
      if (t == nullptr) return Fail(Bool());
      if (t->kind == Kind::kEntity) return Ok(Singleton(t->name == e.str));
      return Ok(Bool());
    });
  }

  Answer CheckSet(const Caps& prior, const Expr& e) {
    std::vector<Answer> elems;
    for (const auto& x : e.args) elems.push_back(Check(prior, *x));
    bool all_ok = std::all_of(elems.begin(), elems.end(), [](const Answer& a) { return a.ok; });
    Answer r = [&]() -> Answer {
      if (e.args.empty()) {
        Error(codes::CH0514, e.span, "empty set literals are forbidden in policies",
              "an empty set has no element type; compare with a set that has elements, or use `.isEmpty()`");
        return Fail();
      }
      std::vector<TypeRef> types;
      for (const Answer& a : elems) {
        if (a.type == nullptr) return Fail();
        types.push_back(a.type);
      }
      TypeRef lub = SchemaType::Of(Kind::kNever);
      for (const TypeRef& t : types) {
        lub = Lub(lub, t);
        if (lub == nullptr) {
          Incompatible(e.span, types, "the set literal");
          return Fail();
        }
      }
      return Ok(SchemaType::SetOf(lub));
    }();
    if (!all_ok) r.ok = false;
    return r;
  }

  Answer CheckRecord(const Caps& prior, const Expr& e) {
    std::map<std::string, AttrType> attrs;
    bool ok = true, typed = true;
    for (size_t i = 0; i < e.args.size(); ++i) {
      Answer a = Check(prior, *e.args[i]);
      ok = ok && a.ok;
      if (a.type == nullptr) {
        typed = false;
      } else {
        attrs[e.keys[i]] = AttrType{a.type, true};
      }
    }
    if (!typed) return Fail();
    Answer r = Ok(SchemaType::Record(std::move(attrs)));
    r.ok = ok;
    return r;
  }

  // Whether the extension constructor `f` accepts the string `s`, by
  // running it.
  static bool ParsesAs(const BuiltinInfo& f, std::string_view s, std::string* error) {
    Arena arena;
    Value arg = Value::String(s);
    Value out;
    CallContext ctx{nullptr, &arena};
    return CallBuiltin(static_cast<Builtin>(&f - kBuiltins), &arg, ctx, &out, error);
  }

  Answer CheckCall(const Caps& prior, const Expr& e) {
    const std::string& m = e.str;
    const std::vector<std::unique_ptr<Expr>>& args = e.args;
    if (e.kind == Expr::Kind::kMethod) {
      if (m == "contains") {
        Answer s = Expect(prior, *args[0], AnySet());
        return Then(s, [&](const TypeRef& ts, const Caps&) {
          Answer x = Check(prior, *args[1]);
          return Then(x, [&](const TypeRef& tx, const Caps&) {
            TypeRef elem = ts != nullptr && ts->kind == Kind::kSet ? ts->elem : nullptr;
            return StrictEquality(e.span, Bool(), elem, tx, "`contains`");
          });
        });
      }
      if (m == "containsAll" || m == "containsAny") {
        Answer s = Expect(prior, *args[0], AnySet());
        return Then(s, [&](const TypeRef& t1, const Caps&) {
          Answer x = Expect(prior, *args[1], AnySet());
          return Then(x, [&](const TypeRef& t2, const Caps&) {
            return StrictEquality(e.span, Bool(), t1, t2, Cat("`", m, "`"));
          });
        });
      }
      if (m == "isEmpty") {
        Answer s = Expect(prior, *args[0], AnySet());
        return Then(s, [&](const TypeRef&, const Caps&) { return Ok(Bool()); });
      }
      if (m == "hasTag" || m == "getTag") return CheckTag(prior, e, m == "getTag");
    }
    int id = FindBuiltin(m, e.kind == Expr::Kind::kMethod ? CallStyle::kMethod : CallStyle::kFunction);
    if (id < 0 || !IsExtensionFunction(kBuiltins[id])) {
      for (const auto& a : args) Check(prior, *a);
      return Fail();
    }
    const BuiltinInfo& f = kBuiltins[id];
    const TypeRef& ret = TypeOf(f.result);
    bool method = f.style == CallStyle::kMethod;
    if (args.size() != f.arity) {
      // Cedar parses it and fails it when it is evaluated; its validator
      // refuses it.
      size_t receiver = method ? 1 : 0;
      size_t wanted = f.arity - receiver;
      Error(codes::CH0520, e.span,
            Cat("`", m, "` takes ", wanted, wanted == 1 ? " argument" : " arguments", ", ",
                args.size() - receiver, " given"),
            "evaluating this call is an error");
      for (const auto& a : args) Check(prior, *a);
      return Fail(ret);
    }
    bool failed = false;
    if (!method) {
      const Expr& arg = *args[0];
      if (arg.kind == Expr::Kind::kString) {
        std::string error;
        if (!ParsesAs(f, arg.str, &error)) {
          Error(codes::CH0516, e.span, Cat("`", m, "(", Quote(arg.str), ")` is not a valid `",
                                       TypeName(*ret), "`"),
                error);
          failed = true;
        }
      }
      if (!IsLiteral(arg) || arg.kind == Expr::Kind::kVar) {
        Error(codes::CH0515, e.span,
              Cat("the argument of `", m, "` must be a string literal in a validated policy"),
              "the validator checks extension values when they are written as literals");
        failed = true;
      }
    }
    if (failed) {
      for (const auto& a : args) Check(prior, *a);
      return Fail(ret);
    }
    std::vector<Answer> typed;
    for (size_t i = 0; i < args.size(); ++i) typed.push_back(Expect(prior, *args[i], TypeOf(f.params[i])));
    bool ok = std::all_of(typed.begin(), typed.end(), [](const Answer& a) { return a.ok; });
    Answer r = Ok(ret);
    r.ok = ok;
    return r;
  }

  std::vector<TypeRef> TagTypes(const SchemaType& t) const {
    std::vector<TypeRef> out;
    if (t.kind == Kind::kEntity) {
      const EntityTypeInfo* info = schema_.FindEntityType(t.name);
      if (info != nullptr && info->tags != nullptr) out.push_back(info->tags);
    } else if (t.kind == Kind::kAnyEntity) {
      for (const auto& [n, info] : schema_.entity_types) {
        if (info.tags != nullptr) out.push_back(info.tags);
      }
    }
    return out;
  }

  Answer CheckTag(const Caps& prior, const Expr& e, bool get) {
    const Expr& on = *e.args[0];
    const Expr& key = *e.args[1];
    Answer a = Expect(prior, on, AnyEntity());
    return Then(a, [&](const TypeRef& t, const Caps&) {
      Answer k = Expect(prior, key, String());
      return Then(k, [&](const TypeRef&, const Caps&) {
        if (t == nullptr) return Fail(get ? nullptr : Bool());
        std::vector<TypeRef> tags = TagTypes(*t);
        std::string cap = TagCap(on, key);
        bool known = prior.count(cap) != 0;
        if (!get) {
          if (tags.empty()) return Ok(Singleton(false), Caps{cap});
          return Ok(known ? Singleton(true) : Bool(), Caps{cap});
        }
        if (!known) {
          Error(codes::CH0517, e.span,
                Cat("the tag may be absent from this `", TypeName(*t), "`"),
                "test for it first: `e.hasTag(k) && e.getTag(k) ...`");
          return Fail();
        }
        if (tags.empty()) {
          // Cedar's rule, kept though no policy reaches it in strict mode:
          // `hasTag` is `false` on a type without tags, so whatever it
          // guards is not checked. (This was CH0518 once.)
          Error(codes::CH0517, e.span, Cat("entity type `", TypeName(*t), "` has no tags"),
                "declare them with `tags TYPE` in the schema");
          return Fail();
        }
        TypeRef lub = SchemaType::Of(Kind::kNever);
        for (const TypeRef& tt : tags) {
          lub = Lub(lub, tt);
          if (lub == nullptr) {
            Incompatible(e.span, tags, "`getTag`");
            return Fail();
          }
        }
        return Ok(lub);
      });
    });
  }

  const SchemaModel& schema_;
  const Env& env_;
  std::vector<Diagnostic>* errors_;
  std::vector<TypedSpan>* types_ = nullptr;
  int depth_ = 0;
};

// --- the policy-level checks ----------------------------------------------------

void CollectEntities(const Expr& e, std::vector<const ast::EntityRef*>* refs,
                     std::vector<std::pair<std::string, Span>>* types) {
  std::vector<const Expr*> stack{&e};
  while (!stack.empty()) {
    const Expr* x = stack.back();
    stack.pop_back();
    if (x->kind == Expr::Kind::kEntity) refs->push_back(&x->entity);
    if (x->kind == Expr::Kind::kIs) types->emplace_back(x->str, x->span);
    for (const auto& a : x->args) stack.push_back(a.get());
  }
}

class PolicyValidator {
 public:
  PolicyValidator(const SchemaModel& schema, Diagnostics* diags, std::vector<TypedSpan>* types = nullptr)
      : schema_(schema), diags_(diags), types_(types) {}

  void Run(const ast::Policy& p) {
    std::vector<Diagnostic> errors;
    CheckNames(p, &errors);
    bool too_deep = false;
    std::vector<std::unique_ptr<Expr>> parts;
    for (const ast::Condition& c : p.conditions) {
      std::unique_ptr<Expr> body = Desugar(*c.body, 0, &too_deep);
      if (!c.when) {
        auto n = NewNode(Expr::Kind::kUnary, c.span);
        n->uop = UnaryOp::kNot;
        n->args.push_back(std::move(body));
        body = std::move(n);
      }
      parts.push_back(std::move(body));
    }
    if (too_deep) {
      diags_->Error(codes::CH0519, p.span, "policy is too deeply nested to validate",
                    "split its conditions into several policies");
      warnings_.clear();
      return;
    }
    std::unique_ptr<Expr> conds;
    for (auto& part : parts) {
      conds = conds == nullptr ? std::move(part)
                               : Binary(BinaryOp::kAnd, std::move(conds), std::move(part), p.span);
    }
    if (conds == nullptr) {
      conds = NewNode(Expr::Kind::kBool, p.span);
      conds->b = true;
    }
    std::unique_ptr<Expr> cond = Binary(
        BinaryOp::kAnd, ScopeExpr(p.principal, ast::Var::kPrincipal),
        Binary(BinaryOp::kAnd, ActionExpr(p.action),
               Binary(BinaryOp::kAnd, ScopeExpr(p.resource, ast::Var::kResource), std::move(conds),
                      p.span),
               p.span),
        p.span);

    // Cedar checks the condition in every request environment an action
    // allows: k principal types by k resource types, each linked slot type
    // included. Two kinds of environment are left out, since checking them
    // would add nothing (a diagnostic found again is reported once): those
    // after the first when the condition does not read the principal (or
    // the resource) at all, for they all check alike; and those where a
    // scope, checked alone without a diagnostic, is known false, for then
    // the whole condition is, before its other parts are looked at.
    const bool by_principal = Mentions(*cond, ast::Var::kPrincipal, "?principal");
    const bool by_resource = Mentions(*cond, ast::Var::kResource, "?resource");
    const std::unique_ptr<Expr> principal_scope = ScopeExpr(p.principal, ast::Var::kPrincipal);
    const std::unique_ptr<Expr> action_scope = ActionExpr(p.action);
    const std::unique_ptr<Expr> resource_scope = ScopeExpr(p.resource, ast::Var::kResource);
    // An entity type and the types its slot may be linked to.
    struct Side {
      const std::string* type;
      std::vector<std::optional<std::string>> slots;
      std::vector<Scope> verdicts;  // the scope's, by slot
    };
    std::vector<Side> principals, resources;
    bool all_false = true;
    for (const auto& [key, action] : schema_.actions) {
      if (!action.applies) continue;
      principals.clear();
      resources.clear();
      for (const std::string& principal : action.principals) {
        principals.push_back(Side{&principal, SlotLinks(p.principal, principal), {}});
      }
      for (const std::string& resource : action.resources) {
        resources.push_back(Side{&resource, SlotLinks(p.resource, resource), {}});
      }
      if (principals.empty() || resources.empty()) continue;
      // INVARIANT: SlotLinks gives at least one slot type (nullopt: no slot).
      if (!by_principal) principals.resize(1), principals[0].slots.resize(1);
      if (!by_resource) resources.resize(1), resources[0].slots.resize(1);
      // Named copies of the bindings: clang 14 does not capture structured
      // bindings in a lambda.
      const auto& action_key = key;
      const auto& action_context = action.context;
      auto env_of = [&](const Side& pr, size_t ps, const Side& rs, size_t rr) {
        return Env{*pr.type, action_key, *rs.type, action_context, pr.slots[ps], rs.slots[rr]};
      };
      for (Side& pr : principals) {
        for (size_t i = 0; i < pr.slots.size(); ++i) pr.verdicts.push_back(Verdict(env_of(pr, i, resources[0], 0), *principal_scope));
      }
      for (Side& rs : resources) {
        for (size_t i = 0; i < rs.slots.size(); ++i) rs.verdicts.push_back(Verdict(env_of(principals[0], 0, rs, i), *resource_scope));
      }
      const Scope action_verdict = Verdict(env_of(principals[0], 0, resources[0], 0), *action_scope);
      for (const Side& pr : principals) {
        for (const Side& rs : resources) {
          for (size_t i = 0; i < pr.slots.size(); ++i) {
            if (pr.verdicts[i] == Scope::kFalse) continue;
            for (size_t j = 0; j < rs.slots.size(); ++j) {
              if (pr.verdicts[i] == Scope::kClean &&
                  (action_verdict == Scope::kFalse ||
                   (action_verdict == Scope::kClean && rs.verdicts[j] == Scope::kFalse))) {
                continue;
              }
              Env env = env_of(pr, i, rs, j);
              Checker checker(schema_, env, &errors);
              checker.set_types(types_);
              Answer a = checker.Expect(Caps{}, *cond, SchemaType::Of(Kind::kBool));
              if (!IsSingleton(a.type, false)) all_false = false;
            }
          }
        }
      }
    }
    // Cedar reports each distinct error once, however many environments found it.
    std::set<std::tuple<std::string, uint32_t, uint32_t, std::string>> seen;
    bool any_error = false;
    for (Diagnostic& d : errors) {
      if (!seen.insert({d.code, d.span.begin, d.span.end, d.message}).second) continue;
      any_error = any_error || d.severity == Severity::kError;
      diags_->Add(std::move(d));
    }
    for (Diagnostic& w : warnings_) diags_->Add(std::move(w));
    warnings_.clear();
    if (all_false) {
      diags_->Add(Diagnostic{Severity::kWarning, codes::CH0531, p.effect_span,
                             "policy is impossible: it is false for every request the schema allows",
                             ""});
    }
  }

 private:
  // A scope checked alone in one environment: known false with no
  // diagnostic, neither false nor faulty (clean), or anything else.
  enum class Scope { kFalse, kClean, kCheck };
  Scope Verdict(const Env& env, const Expr& scope) const {
    std::vector<Diagnostic> errors;
    Checker checker(schema_, env, &errors);
    Answer a = checker.Expect(Caps{}, scope, SchemaType::Of(Kind::kBool));
    if (!errors.empty() || !a.ok || a.type == nullptr) return Scope::kCheck;
    return IsSingleton(a.type, false) ? Scope::kFalse : Scope::kClean;
  }

  // Whether `e` reads the variable `v` or the slot named `slot`.
  static bool Mentions(const Expr& e, ast::Var v, std::string_view slot) {
    std::vector<const Expr*> stack{&e};
    while (!stack.empty()) {
      const Expr* x = stack.back();
      stack.pop_back();
      if (x->kind == Expr::Kind::kVar && x->var == v) return true;
      if (x->kind == Expr::Kind::kSlot && x->str == slot) return true;
      for (const auto& a : x->args) stack.push_back(a.get());
    }
    return false;
  }

  // The entity types a slot may be linked to, as Cedar enumerates them.
  std::vector<std::optional<std::string>> SlotLinks(const ast::ScopeConstraint& c,
                                                    const std::string& var) const {
    using SK = ast::ScopeConstraint::Kind;
    if (!c.slot) return {std::nullopt};
    if (c.kind == SK::kEq) return {var};
    std::vector<std::optional<std::string>> out;
    for (const auto& [name, info] : schema_.entity_types) {
      if (info.descendants.count(var) != 0) out.emplace_back(name);
    }
    out.emplace_back(var);
    return out;
  }

  void CheckNames(const ast::Policy& p, std::vector<Diagnostic>* errors) {
    std::vector<const ast::EntityRef*> refs;
    std::vector<std::pair<std::string, Span>> types;
    for (const ast::ScopeConstraint* c : {&p.principal, &p.resource}) {
      if (!c->slot && (c->kind == ast::ScopeConstraint::Kind::kEq ||
                       c->kind == ast::ScopeConstraint::Kind::kIn ||
                       c->kind == ast::ScopeConstraint::Kind::kIsIn)) {
        refs.push_back(&c->entity);
      }
      if (c->kind == ast::ScopeConstraint::Kind::kIs || c->kind == ast::ScopeConstraint::Kind::kIsIn) {
        types.emplace_back(c->type, c->span);
      }
    }
    for (const ast::EntityRef& r : p.action.entities) refs.push_back(&r);
    for (const ast::Condition& c : p.conditions) CollectEntities(*c.body, &refs, &types);
    auto unknown_type = [&](const std::string& type, Span span) {
      if (IsActionType(type) || schema_.FindEntityType(type) != nullptr) return;
      errors->push_back(Diagnostic{Severity::kError, codes::CH0501, span,
                                   Cat("unknown entity type `", type, "`"), Suggest(type)});
    };
    for (const ast::EntityRef* r : refs) {
      unknown_type(r->type, r->span);
      if (IsActionType(r->type)) {
        if (schema_.FindAction({r->type, r->id}) == nullptr) {
          errors->push_back(Diagnostic{Severity::kError, codes::CH0502, r->span,
                                       Cat("unknown action `", Uid(*r), "`"), ""});
        }
        continue;
      }
      const EntityTypeInfo* info = schema_.FindEntityType(r->type);
      if (info != nullptr && info->is_enum &&
          std::find(info->choices.begin(), info->choices.end(), r->id) == info->choices.end()) {
        std::string choices;
        for (size_t i = 0; i < info->choices.size(); ++i) {
          CatAppend(&choices, i > 0 ? ", " : "", Quote(info->choices[i]));
        }
        errors->push_back(Diagnostic{Severity::kError, codes::CH0503, r->span,
                                     Cat("`", Uid(*r), "` is not one of the values of enumerated type `",
                                         r->type, "`"),
                                     Cat("the values are ", choices)});
      }
    }
    for (const auto& [type, span] : types) unknown_type(type, span);
    CheckApplication(p);
  }

  std::string Suggest(const std::string& type) const {
    for (const auto& [name, info] : schema_.entity_types) {
      size_t colon = name.rfind("::");
      std::string base = colon == std::string::npos ? name : name.substr(colon + 2);
      if (base == type) return Cat("did you mean `", name, "`?");
    }
    return "";
  }

  std::set<std::string> TypesFor(const ast::ScopeConstraint& c) const {
    using SK = ast::ScopeConstraint::Kind;
    std::set<std::string> out;
    auto in = [&](const std::string& t) {
      std::set<std::string> s{t};
      if (const EntityTypeInfo* info = schema_.FindEntityType(t)) {
        s.insert(info->descendants.begin(), info->descendants.end());
      }
      return s;
    };
    switch (c.kind) {
      case SK::kAny:
        for (const auto& [n, i] : schema_.entity_types) out.insert(n);
        return out;
      case SK::kEq:
      case SK::kIn:
        if (c.slot) {
          for (const auto& [n, i] : schema_.entity_types) out.insert(n);
          return out;
        }
        return c.kind == SK::kEq ? std::set<std::string>{c.entity.type} : in(c.entity.type);
      case SK::kIs:
        if (schema_.FindEntityType(c.type) != nullptr) out.insert(c.type);
        return out;
      case SK::kIsIn:
        if (c.slot) {
          if (schema_.FindEntityType(c.type) != nullptr) out.insert(c.type);
          return out;
        }
        if (in(c.entity.type).count(c.type) != 0) out.insert(c.type);
        return out;
    }
    return out;
  }

  void CheckApplication(const ast::Policy& p) {
    if (Applies(p.principal, p.action, p.resource)) return;
    warnings_.push_back(Diagnostic{Severity::kWarning, codes::CH0530, p.span,
                           "no action in the schema applies to this policy's scope",
                           "check the principal and resource types against each action's `appliesTo`"});
  }

 public:
  // A template link, checked as Cedar's validator checks one: each slot's
  // entity type is declared (CH0521), and the scope, once linked, applies to
  // some action (else the warning CH0530). The template itself was
  // validated by Run; its faults are not repeated for each link.
  void RunLink(const PolicyInstance& link) {
    const ast::Policy& p = *link.policy;
    ast::ScopeConstraint principal = p.principal;
    ast::ScopeConstraint resource = p.resource;
    for (auto [c, value, slot] : {std::tuple{&principal, &link.principal_slot, "?principal"},
                                  std::tuple{&resource, &link.resource_slot, "?resource"}}) {
      if (!c->slot) continue;
      c->slot = false;
      c->entity = *value;
      if (IsActionType(value->type) || schema_.FindEntityType(value->type) != nullptr) continue;
      diags_->Add(Diagnostic{Severity::kError, codes::CH0521, p.span,
                             Cat("link `", link.id, "` binds `", slot, "` to `", Uid(*value),
                                 "`, whose entity type `", value->type, "` the schema does not declare"),
                             Suggest(value->type)});
    }
    if (Applies(principal, p.action, resource)) return;
    diags_->Add(Diagnostic{Severity::kWarning, codes::CH0530, p.span,
                           Cat("link `", link.id, "`: no action in the schema applies to this "
                               "template's scope once linked"),
                           "check the linked entities' types against each action's `appliesTo`"});
  }

 private:
  // Whether some action of the schema applies to principals and resources
  // that these scope constraints allow.
  bool Applies(const ast::ScopeConstraint& principal_scope, const ast::ActionConstraint& action,
               const ast::ScopeConstraint& resource_scope) const {
    std::vector<const ActionInfo*> actions;
    using AK = ast::ActionConstraint::Kind;
    if (action.kind == AK::kAny) {
      for (const auto& [k, a] : schema_.actions) actions.push_back(&a);
    } else if (action.kind == AK::kEq) {
      if (const ActionInfo* a = schema_.FindAction({action.entities[0].type, action.entities[0].id})) {
        actions.push_back(a);
      }
    } else {
      std::vector<const ActionInfo*> found;
      bool all = true;
      for (const ast::EntityRef& r : action.entities) {
        const ActionInfo* a = schema_.FindAction({r.type, r.id});
        if (a == nullptr) {
          all = false;
          break;
        }
        found.push_back(a);
        for (const ActionKey& d : a->descendants) found.push_back(schema_.FindAction(d));
      }
      if (all) actions = found;
    }
    std::set<std::string> principals = TypesFor(principal_scope);
    std::set<std::string> resources = TypesFor(resource_scope);
    for (const ActionInfo* a : actions) {
      bool pm = std::any_of(a->principals.begin(), a->principals.end(),
                            [&](const std::string& t) { return principals.count(t) != 0; });
      bool rm = std::any_of(a->resources.begin(), a->resources.end(),
                            [&](const std::string& t) { return resources.count(t) != 0; });
      if (pm && rm) return true;
    }
    return false;
  }

  const SchemaModel& schema_;
  Diagnostics* diags_;
  std::vector<TypedSpan>* types_;
  std::vector<Diagnostic> warnings_;  // reported after the policy's errors
};

}  // namespace

void ValidatePolicySet(const SchemaModel& schema, const ast::PolicySet& set, Diagnostics* diagnostics,
                       std::vector<TypedSpan>* types) {
  PolicyValidator v(schema, diagnostics, types);
  for (const ast::Policy& p : set.policies) v.Run(p);
}

void ValidateTemplateLinks(const SchemaModel& schema, const std::vector<PolicyInstance>& instances,
                           Diagnostics* diagnostics) {
  PolicyValidator v(schema, diagnostics);
  for (const PolicyInstance& instance : instances) {
    if (instance.link != nullptr) v.RunLink(instance);
  }
}

}  // namespace charter::internal
