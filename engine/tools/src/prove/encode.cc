// The encoder (encode.h): policy ASTs to Z3 terms, and a model back to a
// store and a request in Cedar's JSON formats.
#include "prove/encode.h"

#include <algorithm>
#include <cstdio>
#include <deque>
#include <set>
#include <utility>

#include "charter/json.h"
#include "charter_support/status_macros.h"
#include "charter_support/strings.h"

namespace charter::internal::prove {
namespace {

using support::Cat;
using support::CatAppend;

// Triples of entity terms the transitivity axioms may take; past it the
// answer is unknown.
constexpr size_t kMaxAxioms = 200000;

std::string Quoted(std::string_view s) {
  std::string out;
  AppendJsonQuoted(&out, s);
  return out;
}

std::string UidJson(const std::string& type, const std::string& id) {
  return Cat("{\"type\":", Quoted(type), ",\"id\":", Quoted(id), "}");
}

bool IsDatetime(const SchemaType& t) { return t.kind == SchemaType::Kind::kExtension && t.name == "datetime"; }

bool Encodable(const SchemaType& t) {
  return t.is_bool() || t.kind == SchemaType::Kind::kLong || t.kind == SchemaType::Kind::kString ||
         t.kind == SchemaType::Kind::kEntity || IsDatetime(t);
}

// The datetimes the encoding gives values: 1970-01-01 to 9999-12-31, which
// Cedar's `datetime("...")` reads back exactly.
constexpr int64_t kMaxDatetimeMs = 253402300799999;

// Milliseconds since the epoch (0..kMaxDatetimeMs) as Cedar's datetime text,
// `YYYY-MM-DDThh:mm:ss.SSSZ` (the civil date by Howard Hinnant's algorithm).
std::string DatetimeText(int64_t ms) {
  if (ms < 0) ms = 0;
  if (ms > kMaxDatetimeMs) ms = kMaxDatetimeMs;
  int64_t days = ms / 86400000, rest = ms % 86400000;
  int64_t z = days + 719468;
  int64_t era = z / 146097;
  int64_t doe = z - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t y = yoe + era * 400;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153;
  int64_t d = doy - (153 * mp + 2) / 5 + 1;
  int64_t mo = mp < 10 ? mp + 3 : mp - 9;
  if (mo <= 2) ++y;
  char buf[40];
  std::snprintf(buf, sizeof buf, "%04lld-%02lld-%02lldT%02lld:%02lld:%02lld.%03lldZ", static_cast<long long>(y),
                static_cast<long long>(mo), static_cast<long long>(d), static_cast<long long>(rest / 3600000),
                static_cast<long long>(rest / 60000 % 60), static_cast<long long>(rest / 1000 % 60),
                static_cast<long long>(rest % 1000));
  return buf;
}

// The key of an attribute path in attributes_ (one name: the attribute's own).
std::string PathKey(const std::vector<std::string>& path) {
  std::string out;
  for (const std::string& p : path) out += Cat(out.empty() ? "" : "\x1f", p);
  return out;
}

Term::Kind KindOf(const SchemaType& t) {
  return t.is_bool()                           ? Term::Kind::kBool
         : t.kind == SchemaType::Kind::kLong   ? Term::Kind::kLong
         : t.kind == SchemaType::Kind::kString ? Term::Kind::kString
         : IsDatetime(t)                       ? Term::Kind::kDatetime
                                               : Term::Kind::kEntity;
}

bool BoolOf(Z3_context c, Z3_model m, Z3_ast a) {
  Z3_ast v = nullptr;
  if (!Z3_model_eval(c, m, a, true, &v)) return false;
  return Z3_get_bool_value(c, v) == Z3_L_TRUE;
}

}  // namespace

Encoder::Encoder(Z3_context c, const SchemaModel& model, const ProofSignature& signature, uint32_t max_depth)
    : c_(c), model_(model), signature_(signature), max_depth_(max_depth) {
  action_ = ActionKey{signature.action.type, signature.action.id};
  action_info_ = model_.FindAction(action_);
  bool_ = Z3_mk_bool_sort(c_);
  bv_ = Z3_mk_bv_sort(c_, 64);
  bv128_ = Z3_mk_bv_sort(c_, 128);
  int_ = Z3_mk_int_sort(c_);
  principal_ = Z3_mk_const(c_, Z3_mk_string_symbol(c_, "principal"), int_);
  resource_ = Z3_mk_const(c_, Z3_mk_string_symbol(c_, "resource"), int_);
}

Z3_ast Encoder::And(Z3_ast a, Z3_ast b) const {
  Z3_ast args[2] = {a, b};
  return Z3_mk_and(c_, 2, args);
}

Z3_ast Encoder::Or(Z3_ast a, Z3_ast b) const {
  Z3_ast args[2] = {a, b};
  return Z3_mk_or(c_, 2, args);
}

Z3_ast Encoder::Long(int64_t v) const { return Z3_mk_int64(c_, v, bv_); }

Term Encoder::Bool(Z3_ast v, Z3_ast error) const {
  Term t;
  t.kind = Term::Kind::kBool;
  t.value = v;
  t.error = error;
  return t;
}

absl::Status Encoder::Outside(Span span, std::string_view what) const {
  std::string where;
  if (source_ != nullptr) {
    SourceFile::Position pos = source_->PositionOf(span.begin);
    where = Cat(" at ", source_->name(), ":", pos.line, ":", pos.column);
  }
  return absl::UnimplementedError(
      Cat(what, " in policy `", policy_ != nullptr ? policy_->id : "", "`", where, " is outside the encoding"));
}

absl::Status Encoder::Outside(const ast::Expr& e, std::string_view what) const { return Outside(e.span, what); }

Z3_ast Encoder::Atom(const std::string& domain, const std::string& text) {
  std::map<std::string, int64_t>& numbers = atoms_[domain];
  auto [it, inserted] = numbers.try_emplace(text, static_cast<int64_t>(numbers.size()));
  return Z3_mk_int64(c_, it->second, int_);
}

std::string Encoder::AtomText(const std::string& domain, int64_t n) const {
  auto d = atoms_.find(domain);
  std::set<std::string> taken;
  if (d != atoms_.end()) {
    for (const auto& [text, number] : d->second) {
      if (number == n) return text;
      taken.insert(text);
    }
  }
  std::string text = Cat(domain.empty() ? "s" : "e", n);
  while (taken.count(text) != 0) text += "_";
  return text;
}

Term Encoder::EntityTerm(const std::string& type, Z3_ast value, Z3_ast error) {
  Term t;
  t.kind = Term::Kind::kEntity;
  t.type = type;
  t.value = value;
  t.error = error;
  if (const EntityTypeInfo* info = model_.FindEntityType(type); info != nullptr && info->is_enum) {
    // A value of an enumerated type: one of its choices, never an entity
    // of the store (no attributes, no hierarchy: Enumerable).
    Z3_ast any = False();
    for (const std::string& choice : info->choices) any = Or(any, Eq(value, Atom(type, choice)));
    domains_.push_back(any);
    return t;
  }
  unsigned id = Z3_get_ast_id(c_, value);
  std::vector<unsigned>& ids = term_ids_[type];
  if (std::find(ids.begin(), ids.end(), id) == ids.end()) {
    ids.push_back(id);
    terms_[type].push_back(value);
  }
  return t;
}

Z3_func_decl Encoder::Exists(const std::string& type) {
  auto it = exists_.find(type);
  if (it != exists_.end()) return it->second;
  Z3_func_decl f = Z3_mk_func_decl(c_, Z3_mk_string_symbol(c_, Cat("exists|", type).c_str()), 1, &int_, bool_);
  exists_.emplace(type, f);
  return f;
}

Z3_func_decl Encoder::Ancestor(const std::string& below, const std::string& above) {
  auto key = std::make_pair(below, above);
  auto it = ancestors_.find(key);
  if (it != ancestors_.end()) return it->second;
  Z3_sort domain[2] = {int_, int_};
  Z3_func_decl f =
      Z3_mk_func_decl(c_, Z3_mk_string_symbol(c_, Cat("in|", below, "|", above).c_str()), 2, domain, bool_);
  ancestors_.emplace(key, f);
  return f;
}

bool Encoder::Reaches(const std::string& below, const std::string& above) const {
  const EntityTypeInfo* info = model_.FindEntityType(above);
  return info != nullptr && info->descendants.count(below) != 0;
}

std::optional<Encoder::Attribute> Encoder::EntityAttribute(const std::string& type, const std::string& name) {
  return EntityAttribute(type, std::vector<std::string>{name});
}

const AttrType* Encoder::PathType(const std::string& type, const std::vector<std::string>& path) const {
  const EntityTypeInfo* info = model_.FindEntityType(type);
  if (info == nullptr || path.empty()) return nullptr;
  const std::map<std::string, AttrType>* attrs = &info->attrs;
  const AttrType* out = nullptr;
  for (const std::string& name : path) {
    if (attrs == nullptr) return nullptr;
    auto a = attrs->find(name);
    if (a == attrs->end()) return nullptr;
    out = &a->second;
    attrs = out->type->kind == SchemaType::Kind::kRecord ? &out->type->attrs : nullptr;
  }
  return out;
}

std::optional<Encoder::Attribute> Encoder::EntityAttribute(const std::string& type,
                                                           const std::vector<std::string>& path) {
  auto key = std::make_pair(type, PathKey(path));
  auto it = attributes_.find(key);
  if (it != attributes_.end()) return it->second;
  const AttrType* a = PathType(type, path);
  if (a == nullptr) return std::nullopt;
  const SchemaType& t = *a->type;
  std::string name;
  for (const std::string& p : path) name += Cat(name.empty() ? "" : ".", p);
  Attribute attr;
  if (Encodable(t)) {
    Z3_sort range = t.is_bool() ? bool_ : t.kind == SchemaType::Kind::kLong || IsDatetime(t) ? bv_ : int_;
    attr.value = Z3_mk_func_decl(c_, Z3_mk_string_symbol(c_, Cat("attr|", type, "|", name).c_str()), 1, &int_, range);
    attr.is_long = t.kind == SchemaType::Kind::kLong;
    attr.is_datetime = IsDatetime(t);
  }
  if (!a->required) {
    attr.has = Z3_mk_func_decl(c_, Z3_mk_string_symbol(c_, Cat("has|", type, "|", name).c_str()), 1, &int_, bool_);
  }
  attributes_.emplace(key, attr);
  return attr;
}

bool Encoder::ActionIn(const ActionKey& a, const ActionKey& group) const {
  if (a == group) return true;
  const ActionInfo* info = model_.FindAction(a);
  return info != nullptr && info->ancestors.count(group) != 0;
}

bool Encoder::CanApply(const ast::Policy& p) const {
  bool action = false;
  switch (p.action.kind) {
    case ast::ActionConstraint::Kind::kAny: action = true; break;
    case ast::ActionConstraint::Kind::kEq:
      action = !p.action.entities.empty() &&
               ActionKey{p.action.entities[0].type, p.action.entities[0].id} == action_;
      break;
    case ast::ActionConstraint::Kind::kIn:
    case ast::ActionConstraint::Kind::kInList:
      for (const ast::EntityRef& e : p.action.entities) action = action || ActionIn(action_, ActionKey{e.type, e.id});
      break;
  }
  if (!action) return false;
  auto scope = [&](const ast::ScopeConstraint& s, const std::string& type) {
    switch (s.kind) {
      case ast::ScopeConstraint::Kind::kAny: return true;
      case ast::ScopeConstraint::Kind::kEq: return s.slot || s.entity.type == type;
      case ast::ScopeConstraint::Kind::kIn:
        return s.slot || s.entity.type == type || Reaches(type, s.entity.type);
      case ast::ScopeConstraint::Kind::kIs: return s.type == type;
      case ast::ScopeConstraint::Kind::kIsIn:
        return s.type == type && (s.slot || s.entity.type == type || Reaches(type, s.entity.type));
    }
    return true;
  };
  return scope(p.principal, signature_.principal_type) && scope(p.resource, signature_.resource_type);
}

Z3_ast Encoder::ScopeTerm(const ast::ScopeConstraint& s, const Term& var, const ast::Policy& p) {
  (void)p;
  auto literal = [&]() { return EntityTerm(s.entity.type, Atom(s.entity.type, s.entity.id), False()); };
  switch (s.kind) {
    case ast::ScopeConstraint::Kind::kAny: return True();
    case ast::ScopeConstraint::Kind::kEq:
      return s.entity.type == var.type ? Eq(var.value, literal().value) : False();
    case ast::ScopeConstraint::Kind::kIn: {
      absl::StatusOr<Term> t = In(var, literal(), ast::Expr());
      return t.ok() ? t->value : False();  // In on two entities of non-action types never fails
    }
    case ast::ScopeConstraint::Kind::kIs: return s.type == var.type ? True() : False();
    case ast::ScopeConstraint::Kind::kIsIn: {
      if (s.type != var.type) return False();
      absl::StatusOr<Term> t = In(var, literal(), ast::Expr());
      return t.ok() ? t->value : False();
    }
  }
  return False();
}

absl::StatusOr<PolicyOutcome> Encoder::EncodePolicy(const ast::Policy& p) {
  if (!CanApply(p)) return PolicyOutcome{False(), False()};
  if (p.is_template()) return Outside(p.span, "a template");
  Term principal = EntityTerm(signature_.principal_type, principal_, False());
  Term resource = EntityTerm(signature_.resource_type, resource_, False());
  // `ok`: the scope matched and every condition so far was true without
  // an error; `error`: some condition erred while the ones before it held.
  Z3_ast ok = And(ScopeTerm(p.principal, principal, p), ScopeTerm(p.resource, resource, p));
  Z3_ast error = False();
  for (const ast::Condition& cond : p.conditions) {
    ASSIGN_OR_RETURN(Term t, Encode(*cond.body, 0));
    if (t.kind != Term::Kind::kBool) return Outside(*cond.body, "a condition that is not Bool");
    error = Or(error, And(ok, t.error));
    ok = And(ok, And(Not(t.error), cond.when ? t.value : Not(t.value)));
  }
  return PolicyOutcome{ok, error};
}

absl::StatusOr<std::vector<PolicyOutcome>> Encoder::EncodeSet(const std::vector<PolicyRef>& policies) {
  return EncodeSet(policies, std::nullopt, nullptr);
}

absl::StatusOr<std::vector<PolicyOutcome>> Encoder::EncodeSet(const std::vector<PolicyRef>& policies,
                                                              std::optional<ast::Effect> leave_out,
                                                              std::vector<std::string>* left_out) {
  for (const std::string& type : {signature_.principal_type, signature_.resource_type}) {
    const EntityTypeInfo* info = model_.FindEntityType(type);
    if (info == nullptr || info->is_enum) {
      return absl::UnimplementedError(
          Cat("the enumerated entity type `", type, "` of the signature is outside the encoding"));
    }
  }
  // Both are in every store's picture, whether a policy names them or not.
  EntityTerm(signature_.principal_type, principal_, False());
  EntityTerm(signature_.resource_type, resource_, False());
  std::vector<PolicyOutcome> out;
  for (const PolicyRef& ref : policies) {
    policy_ = ref.policy;
    source_ = ref.source;
    absl::StatusOr<PolicyOutcome> o = EncodePolicy(*ref.policy);
    policy_ = nullptr;
    source_ = nullptr;
    if (!o.ok() && o.status().code() == absl::StatusCode::kUnimplemented && leave_out &&
        ref.policy->effect == *leave_out && left_out != nullptr) {
      left_out->push_back(ref.policy->id);
      out.push_back(PolicyOutcome{False(), False()});
      continue;
    }
    if (!o.ok()) return o.status();
    out.push_back(*o);
  }
  return out;
}

Z3_ast Encoder::Allows(const std::vector<PolicyRef>& policies, const std::vector<PolicyOutcome>& outcomes) {
  Z3_ast permit = False(), forbid = False();
  for (size_t i = 0; i < policies.size(); ++i) {
    if (policies[i].policy->effect == ast::Effect::kPermit) {
      permit = Or(permit, outcomes[i].satisfied);
    } else {
      forbid = Or(forbid, outcomes[i].satisfied);
    }
  }
  return And(permit, Not(forbid));
}

Z3_ast Encoder::AnyError(const std::vector<PolicyOutcome>& outcomes) {
  Z3_ast any = False();
  for (const PolicyOutcome& o : outcomes) any = Or(any, o.error);
  return any;
}

absl::StatusOr<Term> Encoder::Encode(const ast::Expr& e, uint32_t depth) {
  using K = ast::Expr::Kind;
  if (depth > max_depth_) return Outside(e, Cat("an expression nested deeper than ", max_depth_));
  switch (e.kind) {
    case K::kBool: return Bool(e.b ? True() : False(), False());
    case K::kLong: {
      Term t;
      t.kind = Term::Kind::kLong;
      t.value = Long(e.i);
      t.error = False();
      return t;
    }
    case K::kString: {
      Term t;
      t.kind = Term::Kind::kString;
      t.value = Atom("", e.str);
      t.error = False();
      return t;
    }
    case K::kEntity: {
      if (IsActionType(e.entity.type)) {
        Term t;
        t.kind = Term::Kind::kEntity;
        t.type = e.entity.type;
        t.value = Atom(e.entity.type, e.entity.id);
        t.error = False();
        t.action = ActionKey{e.entity.type, e.entity.id};
        return t;
      }
      return EntityTerm(e.entity.type, Atom(e.entity.type, e.entity.id), False());
    }
    case K::kVar:
      switch (e.var) {
        case ast::Var::kPrincipal: return EntityTerm(signature_.principal_type, principal_, False());
        case ast::Var::kResource: return EntityTerm(signature_.resource_type, resource_, False());
        case ast::Var::kAction: {
          Term t;
          t.kind = Term::Kind::kEntity;
          t.type = action_.type;
          t.value = Atom(action_.type, action_.id);
          t.error = False();
          t.action = action_;
          return t;
        }
        case ast::Var::kContext: return Outside(e, "`context` as a whole (a record)");
      }
      break;
    case K::kSlot: return Outside(e, "a template slot");
    case K::kAttr: {
      ASSIGN_OR_RETURN(Term t, EncodeAttr(e, depth));
      if (t.kind == Term::Kind::kRecord) return Outside(e, Cat("the record `", e.str, "` as a whole"));
      return t;
    }
    case K::kHas: return EncodeHas(e, depth);
    case K::kUnary: {
      ASSIGN_OR_RETURN(Term a, Encode(*e.args[0], depth + 1));
      if (e.uop == ast::UnaryOp::kNot) {
        if (a.kind != Term::Kind::kBool) return Outside(e, "`!` of a value that is not Bool");
        return Bool(Not(a.value), a.error);
      }
      if (a.kind != Term::Kind::kLong) return Outside(e, "`-` of a value that is not Long");
      Term t;
      t.kind = Term::Kind::kLong;
      t.value = Z3_mk_bvneg(c_, a.value);
      t.error = Or(a.error, Eq(a.value, Long(INT64_MIN)));
      return t;
    }
    case K::kBinary: return EncodeBinary(e, depth);
    case K::kIf: {
      ASSIGN_OR_RETURN(Term cond, Encode(*e.args[0], depth + 1));
      ASSIGN_OR_RETURN(Term then, Encode(*e.args[1], depth + 1));
      ASSIGN_OR_RETURN(Term other, Encode(*e.args[2], depth + 1));
      if (cond.kind != Term::Kind::kBool) return Outside(e, "`if` on a value that is not Bool");
      if (then.kind != other.kind || then.type != other.type || then.action || other.action) {
        return Outside(e, "`if` whose branches have different types");
      }
      Term t = then;
      t.value = Ite(cond.value, then.value, other.value);
      t.error = Or(cond.error, Ite(cond.value, then.error, other.error));
      if (t.kind == Term::Kind::kEntity) return EntityTerm(t.type, t.value, t.error);
      return t;
    }
    case K::kIs: {
      ASSIGN_OR_RETURN(Term a, Encode(*e.args[0], depth + 1));
      if (a.kind != Term::Kind::kEntity) return Outside(e, "`is` on a value that is not an entity");
      bool match = a.type == e.str;
      if (e.args.size() == 1 || !match) return Bool(match ? True() : False(), a.error);
      ASSIGN_OR_RETURN(Term b, Encode(*e.args[1], depth + 1));
      if (b.kind != Term::Kind::kEntity) return Outside(*e.args[1], "`is ... in` a value that is not an entity");
      return In(a, b, e);
    }
    case K::kLike: return Outside(e, "`like`");
    case K::kSet: return Outside(e, "a set");
    case K::kRecord: return Outside(e, "a record");
    case K::kMethod: return Outside(e, Cat("the method `.", e.str, "()`"));
    case K::kCall: return Outside(e, Cat("the function `", e.str, "()`"));
  }
  return Outside(e, "this expression");
}

absl::StatusOr<Term> Encoder::EncodeAttr(const ast::Expr& e, uint32_t depth) {
  const ast::Expr& of = *e.args[0];
  auto typed = [&](const SchemaType& t, Z3_ast value, Z3_ast error) -> Term {
    Term out;
    out.value = value;
    out.error = error;
    if (t.is_bool()) {
      out.kind = Term::Kind::kBool;
    } else if (t.kind == SchemaType::Kind::kLong) {
      out.kind = Term::Kind::kLong;
    } else if (t.kind == SchemaType::Kind::kString) {
      out.kind = Term::Kind::kString;
    } else if (IsDatetime(t)) {
      out.kind = Term::Kind::kDatetime;
    } else {
      return EntityTerm(t.name, value, error);
    }
    return out;
  };
  auto supported = [&](const SchemaType& t) -> absl::Status {
    if (!Encodable(t)) return Outside(e, Cat("the attribute `", e.str, "` of type `", TypeName(t), "`"));
    if (t.kind == SchemaType::Kind::kEntity) {
      const EntityTypeInfo* info = model_.FindEntityType(t.name);
      if (info == nullptr) return Outside(e, Cat("the attribute `", e.str, "` of the undeclared type `", t.name, "`"));
      if (info->is_enum && !Enumerable(t.name)) {
        return Outside(e, Cat("the attribute `", e.str, "` of the enumerated entity type `", t.name,
                              "`, which is in a hierarchy,"));
      }
    }
    return absl::OkStatus();
  };
  if (of.kind == ast::Expr::Kind::kVar && of.var == ast::Var::kContext) {
    const SchemaType* ctx = action_info_ != nullptr ? action_info_->context.get() : nullptr;
    auto a = ctx != nullptr ? ctx->attrs.find(e.str) : std::map<std::string, AttrType>::const_iterator();
    if (ctx == nullptr || a == ctx->attrs.end()) {
      return Outside(e, Cat("the context attribute `", e.str, "`, which the schema does not declare,"));
    }
    RETURN_IF_ERROR(supported(*a->second.type));
    auto it = context_.find(e.str);
    if (it == context_.end() || it->second.first.value == nullptr) {
      const SchemaType& t = *a->second.type;
      Z3_sort sort = t.is_bool() ? bool_ : t.kind == SchemaType::Kind::kLong || IsDatetime(t) ? bv_ : int_;
      Z3_ast value = Z3_mk_const(c_, Z3_mk_string_symbol(c_, Cat("context|", e.str).c_str()), sort);
      if (IsDatetime(t)) {
        domains_.push_back(And(Z3_mk_bvsge(c_, value, Long(0)), Z3_mk_bvsle(c_, value, Long(kMaxDatetimeMs))));
      }
      Z3_ast has = it != context_.end() ? it->second.second
                   : a->second.required
                       ? True()
                       : Z3_mk_const(c_, Z3_mk_string_symbol(c_, Cat("context-has|", e.str).c_str()), bool_);
      context_[e.str] = {typed(t, value, False()), has};
      it = context_.find(e.str);
    }
    Term t = it->second.first;
    t.error = Not(it->second.second);
    if (t.kind == Term::Kind::kEntity) return EntityTerm(t.type, t.value, t.error);
    return t;
  }
  ASSIGN_OR_RETURN(Term a, EncodeOperand(of, depth + 1));
  if (a.kind == Term::Kind::kRecord) {
    // A field of a record-typed attribute: an attribute of the entity, by its path.
    std::vector<std::string> path = a.path;
    path.push_back(e.str);
    const AttrType* field = PathType(a.type, path);
    if (field == nullptr) {
      return Outside(e, Cat("the field `", e.str, "` of a record, which the schema does not declare,"));
    }
    Z3_ast missing = False();
    std::optional<Attribute> attr = EntityAttribute(a.type, path);
    if (attr->has != nullptr) missing = Not(Z3_mk_app(c_, attr->has, 1, &a.value));
    if (field->type->kind == SchemaType::Kind::kRecord) {
      Term r = a;
      r.path = std::move(path);
      r.error = Or(a.error, missing);
      return r;
    }
    RETURN_IF_ERROR(supported(*field->type));
    return typed(*field->type, Z3_mk_app(c_, attr->value, 1, &a.value), Or(a.error, missing));
  }
  if (a.kind != Term::Kind::kEntity) return Outside(e, Cat("the attribute `", e.str, "` of a value that is not an entity"));
  if (a.action || IsActionType(a.type)) return Outside(e, Cat("the attribute `", e.str, "` of an action"));
  const EntityTypeInfo* info = model_.FindEntityType(a.type);
  auto declared = info != nullptr ? info->attrs.find(e.str) : std::map<std::string, AttrType>::const_iterator();
  if (info == nullptr || declared == info->attrs.end()) {
    return Outside(e, Cat("the attribute `", e.str, "` of `", a.type, "`, which the schema does not declare,"));
  }
  if (declared->second.type->kind == SchemaType::Kind::kRecord) {
    // Read through by `.field` and `has` (EncodeOperand's callers).
    std::optional<Attribute> attr = EntityAttribute(a.type, e.str);
    Z3_ast missing = Not(Z3_mk_app(c_, Exists(a.type), 1, &a.value));
    if (attr->has != nullptr) missing = Or(missing, Not(Z3_mk_app(c_, attr->has, 1, &a.value)));
    Term r;
    r.kind = Term::Kind::kRecord;
    r.type = a.type;
    r.path = {e.str};
    r.value = a.value;
    r.error = Or(a.error, missing);
    return r;
  }
  RETURN_IF_ERROR(supported(*declared->second.type));
  std::optional<Attribute> attr = EntityAttribute(a.type, e.str);
  Z3_ast exists = Z3_mk_app(c_, Exists(a.type), 1, &a.value);
  Z3_ast missing = Not(exists);
  if (attr->has != nullptr) missing = Or(missing, Not(Z3_mk_app(c_, attr->has, 1, &a.value)));
  return typed(*declared->second.type, Z3_mk_app(c_, attr->value, 1, &a.value), Or(a.error, missing));
}

absl::StatusOr<Term> Encoder::EncodeOperand(const ast::Expr& e, uint32_t depth) {
  if (depth > max_depth_) return Outside(e, Cat("an expression nested deeper than ", max_depth_));
  if (e.kind == ast::Expr::Kind::kAttr) return EncodeAttr(e, depth);
  return Encode(e, depth);
}

absl::StatusOr<Term> Encoder::EncodeHas(const ast::Expr& e, uint32_t depth) {
  if (e.keys.size() > 1) return Outside(e, "`has` with a path");
  const ast::Expr& of = *e.args[0];
  if (of.kind == ast::Expr::Kind::kVar && of.var == ast::Var::kContext) {
    const SchemaType* ctx = action_info_ != nullptr ? action_info_->context.get() : nullptr;
    if (ctx == nullptr) return Outside(e, "`has` on a context the schema does not declare");
    auto a = ctx->attrs.find(e.str);
    if (a == ctx->attrs.end()) return Bool(False(), False());  // a closed record
    if (a->second.required) return Bool(True(), False());
    auto it = context_.find(e.str);
    if (it == context_.end()) {
      Z3_ast has = Z3_mk_const(c_, Z3_mk_string_symbol(c_, Cat("context-has|", e.str).c_str()), bool_);
      it = context_.emplace(e.str, std::make_pair(Term{}, has)).first;
    }
    return Bool(it->second.second, False());
  }
  ASSIGN_OR_RETURN(Term a, EncodeOperand(of, depth + 1));
  if (a.kind == Term::Kind::kRecord) {
    const AttrType* record = PathType(a.type, a.path);
    if (record == nullptr) return Outside(e, "`has` on a record the schema does not declare");
    if (record->type->open) return Outside(e, "`has` on a record with `additionalAttributes`");
    std::vector<std::string> path = a.path;
    path.push_back(e.str);
    const AttrType* field = PathType(a.type, path);
    if (field == nullptr) return Bool(False(), a.error);  // a closed record
    if (field->required) return Bool(True(), a.error);
    std::optional<Attribute> attr = EntityAttribute(a.type, path);
    return Bool(Z3_mk_app(c_, attr->has, 1, &a.value), a.error);
  }
  if (a.kind != Term::Kind::kEntity) return Outside(e, "`has` on a value that is not an entity");
  if (a.action || IsActionType(a.type)) return Outside(e, "`has` on an action");
  const EntityTypeInfo* info = model_.FindEntityType(a.type);
  if (info == nullptr) return Outside(e, Cat("`has` on an entity of `", a.type, "`, which the schema does not declare,"));
  Z3_ast exists = Z3_mk_app(c_, Exists(a.type), 1, &a.value);
  auto declared = info->attrs.find(e.str);
  if (declared == info->attrs.end()) {
    if (info->open_attrs) return Outside(e, Cat("`has` of an undeclared attribute of `", a.type, "`"));
    return Bool(False(), a.error);
  }
  std::optional<Attribute> attr = EntityAttribute(a.type, e.str);
  Z3_ast has = attr->has != nullptr ? And(exists, Z3_mk_app(c_, attr->has, 1, &a.value)) : exists;
  return Bool(has, a.error);
}

absl::StatusOr<Term> Encoder::In(const Term& a, const Term& b, const ast::Expr& where) {
  if (a.kind != Term::Kind::kEntity || b.kind != Term::Kind::kEntity) {
    return Outside(where, "`in` on values that are not entities");
  }
  Z3_ast error = Or(a.error, b.error);
  if (IsActionType(a.type) || IsActionType(b.type)) {
    if (a.action && b.action) return Bool(ActionIn(*a.action, *b.action) ? True() : False(), error);
    if (IsActionType(a.type) && IsActionType(b.type)) return Outside(where, "`in` between actions not known");
    return Bool(False(), error);
  }
  Z3_ast same = a.type == b.type ? Eq(a.value, b.value) : False();
  if (Reaches(a.type, b.type)) {
    Z3_ast args[2] = {a.value, b.value};
    same = Or(same, Z3_mk_app(c_, Ancestor(a.type, b.type), 2, args));
  }
  return Bool(same, error);
}

absl::StatusOr<Term> Encoder::EncodeBinary(const ast::Expr& e, uint32_t depth) {
  using B = ast::BinaryOp;
  ASSIGN_OR_RETURN(Term a, Encode(*e.args[0], depth + 1));
  ASSIGN_OR_RETURN(Term b, Encode(*e.args[1], depth + 1));
  switch (e.bop) {
    case B::kAnd:
    case B::kOr: {
      if (a.kind != Term::Kind::kBool || b.kind != Term::Kind::kBool) {
        return Outside(e, Cat("`", ast::BinaryOpText(e.bop), "` of values that are not Bool"));
      }
      // Short-circuit: the right side is evaluated (and may err) only when
      // the left one does not decide.
      if (e.bop == B::kAnd) {
        return Bool(And(a.value, b.value), Or(a.error, And(a.value, b.error)));
      }
      return Bool(Or(a.value, b.value), Or(a.error, And(Not(a.value), b.error)));
    }
    case B::kEq:
    case B::kNe: {
      bool comparable = a.kind == b.kind && (a.kind != Term::Kind::kEntity || a.type == b.type);
      Z3_ast eq = comparable ? Eq(a.value, b.value) : False();
      return Bool(e.bop == B::kEq ? eq : Not(eq), Or(a.error, b.error));
    }
    case B::kLt:
    case B::kLe:
    case B::kGt:
    case B::kGe: {
      // Longs, or two datetimes (milliseconds since the epoch).
      const bool longs = a.kind == Term::Kind::kLong && b.kind == Term::Kind::kLong;
      const bool datetimes = a.kind == Term::Kind::kDatetime && b.kind == Term::Kind::kDatetime;
      if (!longs && !datetimes) {
        return Outside(e, Cat("`", ast::BinaryOpText(e.bop), "` of values that are not Long"));
      }
      Z3_ast v = e.bop == B::kLt   ? Z3_mk_bvslt(c_, a.value, b.value)
                 : e.bop == B::kLe ? Z3_mk_bvsle(c_, a.value, b.value)
                 : e.bop == B::kGt ? Z3_mk_bvsgt(c_, a.value, b.value)
                                   : Z3_mk_bvsge(c_, a.value, b.value);
      return Bool(v, Or(a.error, b.error));
    }
    case B::kAdd:
    case B::kSub:
    case B::kMul: {
      if (a.kind != Term::Kind::kLong || b.kind != Term::Kind::kLong) {
        return Outside(e, Cat("`", ast::BinaryOpText(e.bop), "` of values that are not Long"));
      }
      // Exact in 128 bits; an error where the result leaves 64.
      Z3_ast wa = Z3_mk_sign_ext(c_, 64, a.value), wb = Z3_mk_sign_ext(c_, 64, b.value);
      Z3_ast wide = e.bop == B::kAdd   ? Z3_mk_bvadd(c_, wa, wb)
                    : e.bop == B::kSub ? Z3_mk_bvsub(c_, wa, wb)
                                       : Z3_mk_bvmul(c_, wa, wb);
      Z3_ast narrow = Z3_mk_extract(c_, 63, 0, wide);
      Z3_ast overflow = Not(Eq(Z3_mk_sign_ext(c_, 64, narrow), wide));
      Term t;
      t.kind = Term::Kind::kLong;
      t.value = narrow;
      t.error = Or(Or(a.error, b.error), overflow);
      return t;
    }
    case B::kIn: return In(a, b, e);
  }
  return Outside(e, "this operator");
}

Z3_ast Encoder::SmallLongs(int64_t bound) {
  Z3_ast out = True();
  auto within = [&](Z3_ast v) {
    out = And(out, And(Z3_mk_bvsge(c_, v, Long(-bound)), Z3_mk_bvsle(c_, v, Long(bound))));
  };
  for (const auto& [key, attr] : attributes_) {
    if (!attr.is_long) continue;
    auto terms = terms_.find(key.first);
    if (terms == terms_.end()) continue;
    for (Z3_ast t : terms->second) within(Z3_mk_app(c_, attr.value, 1, &t));
  }
  for (const auto& [name, value] : context_) {
    if (value.first.value != nullptr && value.first.kind == Term::Kind::kLong) within(value.first.value);
  }
  return out;
}

bool Encoder::Enumerable(const std::string& type) const {
  const EntityTypeInfo* info = model_.FindEntityType(type);
  if (info == nullptr || !info->is_enum || info->choices.empty()) return false;
  if (!info->parents.empty()) return false;
  for (const auto& [name, other] : model_.entity_types) {
    if (name == type) continue;
    if (other.descendants.count(type) != 0 || info->descendants.count(name) != 0) return false;
  }
  return true;
}

absl::StatusOr<std::vector<Z3_ast>> Encoder::Axioms() {
  std::vector<Z3_ast> out = domains_;
  // A datetime attribute's values are ones Cedar's JSON can write.
  for (const auto& [key, attr] : attributes_) {
    if (!attr.is_datetime) continue;
    auto terms = terms_.find(key.first);
    if (terms == terms_.end()) continue;
    for (Z3_ast t : terms->second) {
      Z3_ast v = Z3_mk_app(c_, attr.value, 1, &t);
      out.push_back(And(Z3_mk_bvsge(c_, v, Long(0)), Z3_mk_bvsle(c_, v, Long(kMaxDatetimeMs))));
    }
  }
  std::vector<std::string> types;
  for (const auto& [type, terms] : terms_) types.push_back(type);
  size_t count = 0;
  for (const std::string& a : types) {
    for (const std::string& b : types) {
      if (!Reaches(a, b)) continue;
      count += terms_[a].size() * terms_[b].size();
      for (const std::string& c : types) {
        if (Reaches(b, c) && Reaches(a, c)) count += terms_[a].size() * terms_[b].size() * terms_[c].size();
      }
    }
  }
  if (count > kMaxAxioms) {
    return absl::UnimplementedError(
        Cat("the hierarchy over the ", count, " combinations of entities the policies mention is outside the "
            "encoding's bounds (", kMaxAxioms, ")"));
  }
  for (const std::string& a : types) {
    for (const std::string& b : types) {
      if (!Reaches(a, b)) continue;
      Z3_func_decl ab = Ancestor(a, b);
      Z3_func_decl exists = Exists(a);
      for (Z3_ast x : terms_[a]) {
        for (Z3_ast y : terms_[b]) {
          Z3_ast xy[2] = {x, y};
          Z3_ast in = Z3_mk_app(c_, ab, 2, xy);
          // Only an entity in the store has parents.
          out.push_back(Z3_mk_implies(c_, in, Z3_mk_app(c_, exists, 1, &x)));
          // No cycles: Entities refuses a store with one.
          if (Reaches(b, a)) {
            Z3_ast yx[2] = {y, x};
            out.push_back(Not(And(in, Z3_mk_app(c_, Ancestor(b, a), 2, yx))));
          }
          if (a == b) out.push_back(Not(And(Eq(x, y), in)));
        }
      }
      for (const std::string& c : types) {
        if (!Reaches(b, c) || !Reaches(a, c)) continue;
        Z3_func_decl bc = Ancestor(b, c), ac = Ancestor(a, c);
        for (Z3_ast x : terms_[a]) {
          for (Z3_ast y : terms_[b]) {
            Z3_ast xy[2] = {x, y};
            Z3_ast in_xy = Z3_mk_app(c_, ab, 2, xy);
            for (Z3_ast z : terms_[c]) {
              Z3_ast yz[2] = {y, z}, xz[2] = {x, z};
              out.push_back(Z3_mk_implies(c_, And(in_xy, Z3_mk_app(c_, bc, 2, yz)), Z3_mk_app(c_, ac, 2, xz)));
            }
          }
        }
      }
    }
  }
  return out;
}

int64_t Encoder::IntOf(Z3_model m, Z3_ast a) const {
  Z3_ast v = nullptr;
  if (!Z3_model_eval(c_, m, a, true, &v)) return 0;
  int64_t n = 0;
  if (Z3_get_sort_kind(c_, Z3_get_sort(c_, v)) == Z3_BV_SORT) {
    uint64_t u = 0;
    Z3_get_numeral_uint64(c_, v, &u);
    return static_cast<int64_t>(u);
  }
  Z3_get_numeral_int64(c_, v, &n);
  return n;
}

std::string Encoder::DefaultJson(const SchemaType& t, int depth) {
  using K = SchemaType::Kind;
  switch (t.kind) {
    case K::kBool:
    case K::kFalse: return "false";
    case K::kTrue: return "true";
    case K::kLong: return "0";
    case K::kString: return "\"\"";
    case K::kEntity: {
      const EntityTypeInfo* info = model_.FindEntityType(t.name);
      std::string id = info != nullptr && info->is_enum && !info->choices.empty() ? info->choices[0] : "default";
      return Cat("{\"__entity\":", UidJson(t.name, id), "}");
    }
    case K::kSet: return "[]";
    case K::kRecord: {
      std::string out = "{";
      bool first = true;
      for (const auto& [name, attr] : t.attrs) {
        if (!attr.required || depth > 64) continue;
        CatAppend(&out, first ? "" : ",", Quoted(name), ":", DefaultJson(*attr.type, depth + 1));
        first = false;
      }
      return out + "}";
    }
    case K::kExtension: {
      std::string fn = t.name == "ipaddr" ? "ip" : t.name;
      std::string arg = t.name == "decimal"    ? "0.0"
                        : t.name == "ipaddr"   ? "0.0.0.0"
                        : t.name == "datetime" ? "1970-01-01"
                                               : "0ms";
      return Cat("{\"__extn\":{\"fn\":", Quoted(fn), ",\"arg\":", Quoted(arg), "}}");
    }
    default: return "null";
  }
}

void Encoder::AppendValue(std::string* out, Z3_model m, Term::Kind kind, const std::string& type, Z3_ast value) {
  switch (kind) {
    case Term::Kind::kBool: CatAppend(out, BoolOf(c_, m, value) ? "true" : "false"); return;
    case Term::Kind::kLong: CatAppend(out, IntOf(m, value)); return;
    case Term::Kind::kDatetime:
      CatAppend(out, "{\"__extn\":{\"fn\":\"datetime\",\"arg\":", Quoted(DatetimeText(IntOf(m, value))), "}}");
      return;
    case Term::Kind::kRecord: out->append("{}"); return;  // never a value of its own
    case Term::Kind::kString: CatAppend(out, Quoted(AtomText("", IntOf(m, value)))); return;
    case Term::Kind::kEntity:
      CatAppend(out, "{\"__entity\":", UidJson(type, AtomText(type, IntOf(m, value))), "}");
      return;
  }
}

std::string Encoder::AttrsJson(Z3_model m, const std::string& type, const std::vector<std::string>& path,
                               const std::map<std::string, AttrType>& attrs, Z3_ast v, int depth) {
  std::string out = "{";
  bool first = true;
  for (const auto& [name, attr] : attrs) {
    std::vector<std::string> at = path;
    at.push_back(name);
    auto it = attributes_.find(std::make_pair(type, PathKey(at)));
    bool present = attr.required;
    if (!present && it != attributes_.end() && it->second.has != nullptr) {
      present = BoolOf(c_, m, Z3_mk_app(c_, it->second.has, 1, &v));
    }
    if (!present) continue;
    CatAppend(&out, first ? "" : ",", Quoted(name), ":");
    first = false;
    const SchemaType& t = *attr.type;
    if (t.kind == SchemaType::Kind::kRecord && depth < 64) {
      out += AttrsJson(m, type, at, t.attrs, v, depth + 1);
    } else if (it != attributes_.end() && it->second.value != nullptr) {
      AppendValue(&out, m, KindOf(t), t.name, Z3_mk_app(c_, it->second.value, 1, &v));
    } else {
      out += DefaultJson(t, 0);
    }
  }
  return out + "}";
}

Encoder::Rendered Encoder::Render(Z3_model m) {
  struct Entity {
    std::string type, id;
    std::string attrs;
    std::vector<std::pair<std::string, std::string>> parents;
  };
  // The entities the policies can see: every term's value that exists.
  std::map<std::pair<std::string, int64_t>, Z3_ast> values;  // (type, value) -> a term
  for (const auto& [type, terms] : terms_) {
    for (Z3_ast t : terms) values.emplace(std::make_pair(type, IntOf(m, t)), t);
  }
  std::vector<Entity> entities;
  auto exists = [&](const std::string& type, Z3_ast v) {
    auto it = exists_.find(type);
    return it != exists_.end() && BoolOf(c_, m, Z3_mk_app(c_, it->second, 1, &v));
  };
  auto attrs_of = [&](const std::string& type, Z3_ast v) {
    const EntityTypeInfo* info = model_.FindEntityType(type);
    if (info == nullptr) return std::string("{}");
    return AttrsJson(m, type, {}, info->attrs, v, 0);
  };
  for (const auto& [key, term] : values) {
    const auto& [type, n] = key;
    if (!exists(type, term)) continue;
    Entity ent{type, AtomText(type, n), attrs_of(type, term), {}};
    for (const auto& [above, m_terms] : terms_) {
      (void)m_terms;
      if (!Reaches(type, above)) continue;
      auto anc = ancestors_.find(std::make_pair(type, above));
      if (anc == ancestors_.end()) continue;
      std::set<int64_t> done;
      for (const auto& [okey, oterm] : values) {
        if (okey.first != above || !done.insert(okey.second).second) continue;
        Z3_ast xy[2] = {term, oterm};
        if (!BoolOf(c_, m, Z3_mk_app(c_, anc->second, 2, xy))) continue;
        std::string target_id = AtomText(above, okey.second);
        const EntityTypeInfo* info = model_.FindEntityType(type);
        if (info == nullptr) continue;
        if (std::find(info->parents.begin(), info->parents.end(), above) != info->parents.end()) {
          ent.parents.emplace_back(above, target_id);
          continue;
        }
        // Not a direct parent type: a chain of new entities of the types
        // between (a shortest path in memberOfTypes), found breadth first.
        std::map<std::string, std::string> previous;
        std::deque<std::string> queue{type};
        previous[type] = "";
        while (!queue.empty() && previous.count(above) == 0) {
          std::string at = queue.front();
          queue.pop_front();
          const EntityTypeInfo* at_info = model_.FindEntityType(at);
          if (at_info == nullptr) continue;
          for (const std::string& p : at_info->parents) {
            if (previous.count(p) == 0) {
              previous[p] = at;
              queue.push_back(p);
            }
          }
        }
        std::vector<std::string> path;  // from `above` back to just above `type`
        for (std::string at = previous[above]; !at.empty() && at != type; at = previous[at]) path.push_back(at);
        std::pair<std::string, std::string> next{above, target_id};
        for (const std::string& mid : path) {
          std::string id = Cat("prove-path-", ++fresh_);
          const EntityTypeInfo* mid_info = model_.FindEntityType(mid);
          std::string mattrs = "{";
          bool first = true;
          if (mid_info != nullptr) {
            for (const auto& [name, attr] : mid_info->attrs) {
              if (!attr.required) continue;
              CatAppend(&mattrs, first ? "" : ",", Quoted(name), ":", DefaultJson(*attr.type, 0));
              first = false;
            }
          }
          entities.push_back(Entity{mid, id, mattrs + "}", {next}});
          next = {mid, id};
        }
        ent.parents.push_back(next);
      }
    }
    entities.push_back(std::move(ent));
  }
  Rendered out;
  out.entities_json = "[";
  for (size_t i = 0; i < entities.size(); ++i) {
    const Entity& e = entities[i];
    CatAppend(&out.entities_json, i ? "," : "", "{\"uid\":", UidJson(e.type, e.id), ",\"attrs\":", e.attrs,
              ",\"parents\":[");
    for (size_t j = 0; j < e.parents.size(); ++j) {
      CatAppend(&out.entities_json, j ? "," : "", UidJson(e.parents[j].first, e.parents[j].second));
    }
    out.entities_json += "]}";
  }
  out.entities_json += "]";

  auto uid = [&](const std::string& type, Z3_ast v) {
    return Quoted(EntityUid{type, AtomText(type, IntOf(m, v))}.ToString());
  };
  out.request_json = Cat("{\"principal\":", uid(signature_.principal_type, principal_),
                         ",\"action\":", Quoted(signature_.action.ToString()),
                         ",\"resource\":", uid(signature_.resource_type, resource_), ",\"context\":{");
  const SchemaType* ctx = action_info_ != nullptr ? action_info_->context.get() : nullptr;
  bool first = true;
  if (ctx != nullptr) {
    for (const auto& [name, attr] : ctx->attrs) {
      auto it = context_.find(name);
      bool present = attr.required || (it != context_.end() && BoolOf(c_, m, it->second.second));
      if (!present) continue;
      CatAppend(&out.request_json, first ? "" : ",", Quoted(name), ":");
      first = false;
      if (it != context_.end() && it->second.first.value != nullptr) {
        const Term& t = it->second.first;
        AppendValue(&out.request_json, m, t.kind, t.type, t.value);
      } else {
        out.request_json += DefaultJson(*attr.type, 0);
      }
    }
  }
  out.request_json += "}}";
  return out;
}

}  // namespace charter::internal::prove
