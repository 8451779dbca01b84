// Cedar's JSON policy format (EST) -> AST. The format, as cedar-policy-core's
// est/*.rs reads it (and cedar-wasm 4.13 checks it):
//
//   policy      {"effect", "principal", "action", "resource", "conditions",
//                "annotations"?}; unknown keys are errors
//   scope       {"op": "All"|"all"} | {"op": "==" | "in", "entity": UID}
//               | {"op": "==" | "in", "slot": "?principal"|"?resource"}
//               | {"op": "is", "entity_type": T, "in"?: {"entity"|"slot"}}
//               action: "==" entity, "in" with "entity" or "entities": [UID]
//               (other keys beside op/entity/slot are ignored, as in Cedar;
//               the "is" object alone refuses them)
//   UID         {"type", "id"} or {"__entity": {"type", "id"}}; other keys
//               are ignored, as in Cedar
//   clause      {"kind": "when"|"unless", "body": EXPR}
//   EXPR        an object with exactly one key: "Value" (a JSON value with
//               __entity / __extn escapes), "Var", "Slot", "!", "neg", "==",
//               "!=", "in", "<", "<=", ">", ">=", "&&", "||", "+", "-", "*"
//               ({"left", "right"} or {"arg"}), "contains", "containsAll",
//               "containsAny", "getTag", "hasTag", "isEmpty", "."
//               ({"left", "attr"}), "has" ({"left", "attr": name or
//               [names...]}), "like" ({"left", "pattern": ["Wildcard" |
//               {"Literal": s}]}), "is" ({"left", "entity_type", "in"?}),
//               "if-then-else" ({"if", "then", "else"}), "Set" ([EXPR]),
//               "Record" ({k: EXPR}), or an extension function or method
//               name with its arguments, receiver first: {"isInRange": [a, b]}
//   policy set  {"staticPolicies": {id: policy}, "templates": {id: policy},
//                "templateLinks": [{"templateId", "newId",
//                                   "values": {"?principal": UID, ...}}]}
//
// The limits are the text parser's. Nesting (CompileOptions::max_nesting) is
// counted as the policy text would nest: one level for each bracket,
// parenthesis or `if` that printing the tree would need, so that a chain
// `a && b && c ...` or `x.a.b.c` is as flat as in the text; the reader walks
// such chains with a loop, so its recursion is bounded by max_nesting times
// the number of precedence levels. The trees built are then bounded by
// max_expression_depth, as the text parser bounds them for later stages.
//
// Diagnostic codes:
//   CH0300  the input is not valid JSON
//   CH0301  the input is larger than CompileOptions::max_source_bytes
//   CH0302  a limit: nesting deeper than max_nesting (counted as the text
//           would nest), an expression more than max_expression_depth
//           operators deep (or JSON nested too deep to hold one), or links to
//           a template without slots that copy too many nodes
//   CH0303  an unknown key in an object that allows only certain keys
//   CH0304  a JSON value of the wrong type (an object where a string belongs)
//   CH0305  a missing required field
//   CH0306  an unknown expression operator (the key of an expression object)
//   CH0307  an expression object without exactly one key
//   CH0308  a malformed entity uid (no string `type` and `id`, `__expr`)
//   CH0309  a bad slot: unknown name, wrong position, in an action or in a
//           `when`/`unless` clause
//   CH0310  an invalid literal: `null`, a non-integer or out-of-range
//           number, the removed `__expr` escape
//   CH0311  an invalid entity type name (not `::`-separated identifiers, a
//           reserved word, or `__cedar`)
//   CH0312  an unknown or unsupported extension function (`unknown`, or an
//           unknown name in an `__extn` escape)
//   CH0313  a duplicate policy, template or link id
//   CH0314  a bad template link: unknown template, slots not bound exactly
//   CH0315  an action scope entity whose type is not `Action` / `NS::Action`
//   CH0316  an invalid annotation key or value
//   CH0317  a static policy that contains a slot
//   CH0318  an unknown value of an enumerated field (`effect`, clause
//           `kind`, scope `op`, `Var`, pattern element)
//   CH0319  an extension method without its receiver (the first element
//           of its array)
//
// Deliberate differences from Cedar, each a policy Cedar accepts but can
// never evaluate successfully: an unknown extension function in a `__extn`
// escape, `unknown(...)` (partial evaluation only) and an extension method
// without a receiver are errors here (CH0312, CH0319). Other extension calls
// with the wrong number of arguments read, as in Cedar and in the text
// parser, and fail when evaluated.
#include "policy_json/policy_json.h"

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "builtins/builtins.h"
#include "common/diagnostic_codes.h"
#include "common/names.h"
#include "common/strings.h"
#include "json/json.h"
#include "json/json_diagnostics.h"

namespace charter::internal {
namespace {

using json::Value;
using ExprPtr = std::unique_ptr<ast::Expr>;
using K = ast::Expr::Kind;

// Cedar's identifiers exclude these (entity type names may not use them;
// annotation keys may).
constexpr std::string_view kReserved[] = {"true", "false", "if",   "then", "else",
                                          "in",   "is",    "like", "has"};

template <size_t N>
bool OneOf(const std::string_view (&names)[N], std::string_view name) {
  return std::find(std::begin(names), std::end(names), name) != std::end(names);
}

// A Cedar `Name` in normalized form: `A::B::C`, each part an unreserved
// identifier and none of them `__cedar`.
bool IsTypeName(std::string_view s) {
  size_t start = 0;
  while (true) {
    size_t end = s.find("::", start);
    std::string_view part = s.substr(start, end == std::string_view::npos ? std::string_view::npos
                                                                          : end - start);
    if (!IsIdentifierShaped(part) || OneOf(kReserved, part) || part == "__cedar") return false;
    if (end == std::string_view::npos) return true;
    start = end + 2;
  }
}

std::string_view KindName(const Value& v) {
  switch (v.kind()) {
    case json::Kind::kNull: return "`null`";
    case json::Kind::kBool: return "a boolean";
    case json::Kind::kNumber: return "a number";
    case json::Kind::kString: return "a string";
    case json::Kind::kArray: return "an array";
    case json::Kind::kObject: return "an object";
  }
  return "a value";
}

std::string KeyList(std::initializer_list<std::string_view> keys) {
  std::string out;
  size_t i = 0;
  for (std::string_view k : keys) {
    if (i > 0) out += i + 1 == keys.size() ? (keys.size() == 2 ? " and " : ", and ") : ", ";
    CatAppend(&out, "`", k, "`");
    ++i;
  }
  return out;
}

// How the text would parse an operator: the precedence level of its node
// (ast::Level, and above it the primaries, which never need brackets) and
// the shape of its JSON body.
enum class Shape : uint8_t {
  kValue, kVar, kSlot, kUnary, kBinary, kMethod1, kMethod2, kGetAttr, kHas, kLike, kIs,
  kIf, kSet, kRecord, kFunction, kExtMethod,
};

constexpr int kPrimaryLevel = ast::kMemberLevel + 1;

struct Op {
  std::string_view key;
  Shape shape;
  int level;
  ast::BinaryOp bop = ast::BinaryOp::kEq;
  ast::UnaryOp uop = ast::UnaryOp::kNot;
};

constexpr Op kOps[] = {
    {"Value", Shape::kValue, kPrimaryLevel},
    {"Var", Shape::kVar, kPrimaryLevel},
    {"Slot", Shape::kSlot, kPrimaryLevel},
    {"!", Shape::kUnary, ast::kUnaryLevel, ast::BinaryOp::kEq, ast::UnaryOp::kNot},
    {"neg", Shape::kUnary, ast::kUnaryLevel, ast::BinaryOp::kEq, ast::UnaryOp::kNeg},
    {"==", Shape::kBinary, ast::kRelationLevel, ast::BinaryOp::kEq},
    {"!=", Shape::kBinary, ast::kRelationLevel, ast::BinaryOp::kNe},
    {"in", Shape::kBinary, ast::kRelationLevel, ast::BinaryOp::kIn},
    {"<", Shape::kBinary, ast::kRelationLevel, ast::BinaryOp::kLt},
    {"<=", Shape::kBinary, ast::kRelationLevel, ast::BinaryOp::kLe},
    {">", Shape::kBinary, ast::kRelationLevel, ast::BinaryOp::kGt},
    {">=", Shape::kBinary, ast::kRelationLevel, ast::BinaryOp::kGe},
    {"&&", Shape::kBinary, ast::kAndLevel, ast::BinaryOp::kAnd},
    {"||", Shape::kBinary, ast::kOrLevel, ast::BinaryOp::kOr},
    {"+", Shape::kBinary, ast::kAddLevel, ast::BinaryOp::kAdd},
    {"-", Shape::kBinary, ast::kAddLevel, ast::BinaryOp::kSub},
    {"*", Shape::kBinary, ast::kMulLevel, ast::BinaryOp::kMul},
    {"contains", Shape::kMethod2, ast::kMemberLevel},
    {"containsAll", Shape::kMethod2, ast::kMemberLevel},
    {"containsAny", Shape::kMethod2, ast::kMemberLevel},
    {"getTag", Shape::kMethod2, ast::kMemberLevel},
    {"hasTag", Shape::kMethod2, ast::kMemberLevel},
    {"isEmpty", Shape::kMethod1, ast::kMemberLevel},
    {".", Shape::kGetAttr, ast::kMemberLevel},
    {"has", Shape::kHas, ast::kRelationLevel},
    {"like", Shape::kLike, ast::kRelationLevel},
    {"is", Shape::kIs, ast::kRelationLevel},
    {"if-then-else", Shape::kIf, ast::kIfLevel},
    {"Set", Shape::kSet, kPrimaryLevel},
    {"Record", Shape::kRecord, kPrimaryLevel},
};
constexpr Op kFunctionOp = {"", Shape::kFunction, kPrimaryLevel};
constexpr Op kExtMethodOp = {"", Shape::kExtMethod, ast::kMemberLevel};

// The registry entry of an extension function or method, or -1. (The EST
// writes the set and tag methods as operators of their own, {"contains":
// {"left", "right"}}; an extension function or method is {"name":
// [receiver, args...]}.)
int ExtensionBuiltin(std::string_view name, CallStyle style) {
  int id = FindBuiltin(name, style);
  return id >= 0 && IsExtensionFunction(kBuiltins[id]) ? id : -1;
}

const Op* FindOp(std::string_view key) {
  for (const Op& op : kOps) {
    if (op.key == key) return &op;
  }
  if (ExtensionBuiltin(key, CallStyle::kFunction) >= 0) return &kFunctionOp;
  if (ExtensionBuiltin(key, CallStyle::kMethod) >= 0) return &kExtMethodOp;
  return nullptr;
}

// The operator of an expression object, or null if it is not one.
const Op* OpOf(const Value& v) {
  if (!v.is_object() || v.size() != 1) return nullptr;
  return FindOp(v.key(0));
}

int LevelOf(const Value& v) {
  const Op* op = OpOf(v);
  return op == nullptr ? kPrimaryLevel : op->level;
}

// The operand through which a chain continues at the same level without
// brackets in the text: `a && b && c` (left), `!!a` (arg), `a.b.c`
// (receiver). Null if there is none.
const Value* ChainOperand(const Op& op, const Value& body) {
  switch (op.shape) {
    case Shape::kBinary:
      if (op.level == ast::kRelationLevel) return nullptr;  // relations do not chain
      return body.Find("left");
    case Shape::kUnary:
    case Shape::kMethod1:
      return body.Find("arg");
    case Shape::kMethod2:
    case Shape::kGetAttr:
      return body.Find("left");
    case Shape::kExtMethod:
      return body.is_array() && body.size() > 0 ? &body.at(0) : nullptr;
    default:
      return nullptr;
  }
}

ExprPtr Node(K kind, Span span) {
  auto e = std::make_unique<ast::Expr>();
  e->kind = kind;
  e->span = span;
  return e;
}

// The JSON nesting an expression of `max_expression_depth` operators may
// need: three levels an operator at most ({"Set": [...]}), and the policy
// set around it.
int MaxJsonDepth(const CompileOptions& options) {
  int64_t depth = int64_t{3} * std::max(options.max_expression_depth, 0) + 16;
  return static_cast<int>(std::min<int64_t>(depth, int64_t{1} << 24));
}

class Reader {
 public:
  Reader(const SourceFile& source, const CompileOptions& options, Diagnostics* diagnostics)
      : options_(options),
        diags_(diagnostics),
        extents_(source.text()),
        copy_budget_(size_t{4096} + 4 * source.text().size()) {}

  void Run(const Value& root, ast::PolicySet* out, std::vector<TemplateLink>* links) {
    if (!root.is_object()) {
      Fail(codes::CH0304, root, Cat("expected a policy or a policy set object, found ", KindName(root)));
      return;
    }
    bool is_policy = false;
    for (size_t i = 0; i < root.size(); ++i) {
      std::string_view k = root.key(i);
      if (k == "effect" || k == "principal" || k == "action" || k == "resource" ||
          k == "conditions" || k == "annotations") {
        is_policy = true;
      }
    }
    if (is_policy) {
      ast::Policy policy;
      if (ReadPolicy(root, std::nullopt, &policy)) out->policies.push_back(std::move(policy));
      return;
    }
    ReadPolicySet(root, out, links);
  }

 private:
  // --- diagnostics -------------------------------------------------------

  bool Fail(std::string code, Span span, std::string message, std::string help = "") {
    if (diags_->size() < options_.max_errors) {
      diags_->Error(std::move(code), span, std::move(message), std::move(help));
    }
    return false;
  }
  bool Fail(std::string code, const Value& at, std::string message, std::string help = "") {
    return Fail(std::move(code), extents_.Of(at), std::move(message), std::move(help));
  }

  // Refuses keys of `obj` outside `allowed`.
  bool OnlyKeys(const Value& obj, std::string_view what, std::initializer_list<std::string_view> allowed) {
    for (size_t i = 0; i < obj.size(); ++i) {
      std::string_view k = obj.key(i);
      if (std::find(allowed.begin(), allowed.end(), k) == allowed.end()) {
        return Fail(codes::CH0303, extents_.Key(obj.key_offset(i)), Cat("unknown key `", k, "` in ", what),
                    Cat("expected ", KeyList(allowed)));
      }
    }
    return true;
  }

  const Value* Need(const Value& obj, std::string_view key, std::string_view what) {
    const Value* v = obj.Find(key);
    if (v == nullptr) Fail(codes::CH0305, obj, Cat(what, " lacks `", key, "`"));
    return v;
  }

  bool Expect(const Value& v, json::Kind kind, std::string_view what) {
    if (v.kind() == kind) return true;
    std::string_view want = kind == json::Kind::kObject  ? "an object"
                            : kind == json::Kind::kArray ? "an array"
                            : kind == json::Kind::kString ? "a string"
                                                          : "a value";
    return Fail(codes::CH0304, v, Cat(what, " must be ", want, ", found ", KindName(v)));
  }

  // --- policies ----------------------------------------------------------

  // Without an `id`, a lone policy: named by annotations.id or "policy0".
  bool ReadPolicy(const Value& v, std::optional<std::string> id, ast::Policy* out) {
    if (!Expect(v, json::Kind::kObject, "a policy")) return false;
    if (!OnlyKeys(v, "a policy",
                  {"effect", "principal", "action", "resource", "conditions", "annotations"})) {
      return false;
    }
    out->span = extents_.Of(v);
    const Value* effect = nullptr;
    const Value* principal = nullptr;
    const Value* action = nullptr;
    const Value* resource = nullptr;
    const Value* conditions = nullptr;
    for (auto [field, key] : {std::pair{&effect, "effect"}, std::pair{&principal, "principal"},
                              std::pair{&action, "action"}, std::pair{&resource, "resource"},
                              std::pair{&conditions, "conditions"}}) {
      *field = Need(v, key, "a policy");
      if (*field == nullptr) return false;
    }
    if (!Expect(*effect, json::Kind::kString, "`effect`")) return false;
    out->effect_span = extents_.Of(*effect);
    if (effect->as_string() == "permit") {
      out->effect = ast::Effect::kPermit;
    } else if (effect->as_string() == "forbid") {
      out->effect = ast::Effect::kForbid;
    } else {
      return Fail(codes::CH0318, *effect, Cat("unknown effect `", effect->as_string(), "`"),
                  "expected `permit` or `forbid`");
    }
    if (const Value* annotations = v.Find("annotations")) {
      if (!ReadAnnotations(*annotations, &out->annotations)) return false;
    }
    if (!id.has_value()) {
      id = "policy0";
      for (const ast::Annotation& a : out->annotations) {
        if (a.key == "id") id = a.value;
      }
    }
    out->id = *std::move(id);
    if (!ReadScope(*principal, "principal", "?principal", &out->principal)) return false;
    if (!ReadAction(*action, &out->action)) return false;
    if (!ReadScope(*resource, "resource", "?resource", &out->resource)) return false;
    if (!Expect(*conditions, json::Kind::kArray, "`conditions`")) return false;
    for (size_t i = 0; i < conditions->size(); ++i) {
      ast::Condition cond;
      if (!ReadCondition(conditions->at(i), &cond)) return false;
      out->conditions.push_back(std::move(cond));
    }
    return true;
  }

  bool ReadAnnotations(const Value& v, std::vector<ast::Annotation>* out) {
    if (!Expect(v, json::Kind::kObject, "`annotations`")) return false;
    for (size_t i = 0; i < v.size(); ++i) {
      std::string_view key = v.key(i);
      const Value& value = v.member(i);
      Span key_span = extents_.Key(v.key_offset(i));
      if (!IsIdentifierShaped(key)) {
        return Fail(codes::CH0316, key_span, Cat("`", key, "` is not a valid annotation key"),
                    "annotation keys are identifiers");
      }
      if (!value.is_string() && !value.is_null()) {
        return Fail(codes::CH0316, value, Cat("the annotation `", key, "` must be a string or `null`, found ",
                                         KindName(value)));
      }
      ast::Annotation a;
      a.key = std::string(key);
      if (value.is_string()) a.value = std::string(value.as_string());
      a.span = {key_span.begin, extents_.Of(value).end};
      out->push_back(std::move(a));
    }
    return true;
  }

  bool ReadCondition(const Value& v, ast::Condition* out) {
    if (!Expect(v, json::Kind::kObject, "a condition")) return false;
    if (!OnlyKeys(v, "a condition", {"kind", "body"})) return false;
    const Value* kind = Need(v, "kind", "a condition");
    const Value* body = Need(v, "body", "a condition");
    if (kind == nullptr || body == nullptr) return false;
    if (!Expect(*kind, json::Kind::kString, "`kind`")) return false;
    if (kind->as_string() == "when") {
      out->when = true;
    } else if (kind->as_string() == "unless") {
      out->when = false;
    } else {
      return Fail(codes::CH0318, *kind, Cat("unknown condition kind `", kind->as_string(), "`"),
                  "expected `when` or `unless`");
    }
    out->span = extents_.Of(v);
    clause_ = out->when ? "when" : "unless";
    out->body = ReadExpr(*body, 0);
    return out->body != nullptr && CheckDepth(*out->body);
  }

  // Later stages walk expressions recursively; the text parser bounds their
  // depth (CH0004) and so does this reader.
  bool CheckDepth(const ast::Expr& root) {
    std::vector<std::pair<const ast::Expr*, int>> stack{{&root, 1}};
    while (!stack.empty()) {
      auto [e, depth] = stack.back();
      stack.pop_back();
      if (depth > options_.max_expression_depth) {
        return Fail(codes::CH0302, root.span,
                    Cat("expression is more than ", options_.max_expression_depth, " operators deep"),
                    "split it into several `when` clauses or policies");
      }
      for (const auto& child : e->args) stack.push_back({child.get(), depth + 1});
    }
    return true;
  }

  // --- the scope -----------------------------------------------------------

  bool ReadScope(const Value& v, std::string_view var, std::string_view slot,
                 ast::ScopeConstraint* out) {
    std::string what = Cat("the `", var, "` constraint");
    if (!Expect(v, json::Kind::kObject, what)) return false;
    out->span = extents_.Of(v);
    const Value* op = Need(v, "op", what);
    if (op == nullptr || !Expect(*op, json::Kind::kString, Cat("`op` of ", what))) return false;
    std::string_view o = op->as_string();
    if (o == "All" || o == "all") {
      out->kind = ast::ScopeConstraint::Kind::kAny;
      return true;
    }
    if (o == "==" || o == "in") {
      out->kind = o == "==" ? ast::ScopeConstraint::Kind::kEq : ast::ScopeConstraint::Kind::kIn;
      return EntityOrSlot(v, what, var, slot, out);
    }
    if (o == "is") {
      if (!OnlyKeys(v, what, {"op", "entity_type", "in"})) return false;
      const Value* type = Need(v, "entity_type", what);
      if (type == nullptr || !TypeName(*type, "`entity_type`", &out->type)) return false;
      const Value* in = v.Find("in");
      if (in == nullptr) {
        out->kind = ast::ScopeConstraint::Kind::kIs;
        return true;
      }
      out->kind = ast::ScopeConstraint::Kind::kIsIn;
      std::string in_what = Cat("the `in` of ", what);
      if (!Expect(*in, json::Kind::kObject, in_what)) return false;
      return EntityOrSlot(*in, in_what, var, slot, out);
    }
    return Fail(codes::CH0318, *op, Cat("unknown operator `", o, "` in ", what),
                "expected `All`, `==`, `in` or `is`");
  }

  // {"entity": UID} or {"slot": "?principal"}; `entity` wins when both are
  // there, and other keys are ignored, as Cedar's untagged enums do.
  bool EntityOrSlot(const Value& v, std::string_view what, std::string_view var,
                    std::string_view slot, ast::ScopeConstraint* out) {
    if (const Value* entity = v.Find("entity")) return Uid(*entity, &out->entity);
    const Value* s = v.Find("slot");
    if (s == nullptr) {
      return Fail(codes::CH0305, v, Cat(what, " lacks `entity` or `slot`"));
    }
    if (!Expect(*s, json::Kind::kString, "`slot`")) return false;
    if (s->as_string() != "?principal" && s->as_string() != "?resource") {
      return Fail(codes::CH0309, *s, Cat("unknown slot `", s->as_string(), "`"),
                  "the slots are `?principal` and `?resource`");
    }
    if (s->as_string() != slot) {
      return Fail(codes::CH0309, *s, Cat("the slot `", s->as_string(), "` cannot constrain `", var, "`"),
                  Cat("the only slot allowed here is `", slot, "`"));
    }
    out->slot = true;
    return true;
  }

  bool ReadAction(const Value& v, ast::ActionConstraint* out) {
    constexpr std::string_view what = "the `action` constraint";
    if (!Expect(v, json::Kind::kObject, what)) return false;
    out->span = extents_.Of(v);
    const Value* op = Need(v, "op", what);
    if (op == nullptr || !Expect(*op, json::Kind::kString, Cat("`op` of ", what))) return false;
    std::string_view o = op->as_string();
    if (o == "All" || o == "all") {
      out->kind = ast::ActionConstraint::Kind::kAny;
      return true;
    }
    if (o != "==" && o != "in") {
      return Fail(codes::CH0318, *op, Cat("unknown operator `", o, "` in ", what),
                  "expected `All`, `==` or `in`");
    }
    if (const Value* entity = v.Find("entity")) {
      out->kind = o == "==" ? ast::ActionConstraint::Kind::kEq : ast::ActionConstraint::Kind::kIn;
      out->entities.emplace_back();
      if (!Uid(*entity, &out->entities.back())) return false;
    } else if (const Value* entities = o == "in" ? v.Find("entities") : nullptr) {
      out->kind = ast::ActionConstraint::Kind::kInList;
      if (!Expect(*entities, json::Kind::kArray, "`entities`")) return false;
      for (size_t i = 0; i < entities->size(); ++i) {
        out->entities.emplace_back();
        if (!Uid(entities->at(i), &out->entities.back())) return false;
      }
    } else if (const Value* slot = v.Find("slot"); slot != nullptr && o == "==") {
      return Fail(codes::CH0309, *slot, "slots are not allowed in the `action` constraint");
    } else {
      return Fail(codes::CH0305, v, Cat(what, " lacks `", o == "in" ? "entity` or `entities" : "entity", "`"));
    }
    for (size_t i = 0; i < out->entities.size(); ++i) {
      std::string_view t = out->entities[i].type;
      if (t == "Action" || (t.size() > 8 && t.substr(t.size() - 8) == "::Action")) continue;
      return Fail(codes::CH0315, out->entities[i].span,
                  Cat("expected an entity of type `Action`, found `", t, "`"),
                  "actions in the scope have type `Action` or `NS::Action`");
    }
    return true;
  }

  // --- entity uids and names -----------------------------------------------

  // {"type", "id"} or {"__entity": {"type", "id"}}, other keys ignored.
  bool Uid(const Value& v, ast::EntityRef* out) {
    out->span = extents_.Of(v);
    if (!v.is_object()) {
      return Fail(codes::CH0308, v, Cat("expected an entity uid `{\"type\": ..., \"id\": ...}`, found ",
                                   KindName(v)));
    }
    if (const Value* e = v.Find("__expr"); e != nullptr && e->is_string()) {
      return Fail(codes::CH0308, v, "the `__expr` escape is no longer supported",
                  "write the entity as `{\"type\": ..., \"id\": ...}`");
    }
    const Value* uid = &v;
    if (const Value* e = v.Find("__entity"); e != nullptr && IsTypeAndId(*e)) uid = e;
    if (!IsTypeAndId(*uid)) {
      return Fail(codes::CH0308, v, "an entity uid needs a string `type` and a string `id`");
    }
    const Value& type = *uid->Find("type");
    if (!IsTypeName(type.as_string())) {
      return Fail(codes::CH0311, type, Cat("`", type.as_string(), "` is not a valid entity type name"),
                  "type names are `::`-separated identifiers, such as `NS::User`");
    }
    out->type = std::string(type.as_string());
    out->id = std::string(uid->Find("id")->as_string());
    return true;
  }

  static bool IsTypeAndId(const Value& v) {
    const Value* t = v.Find("type");
    const Value* i = v.Find("id");
    return t != nullptr && t->is_string() && i != nullptr && i->is_string();
  }

  bool TypeName(const Value& v, std::string_view what, std::string* out) {
    if (!Expect(v, json::Kind::kString, what)) return false;
    if (!IsTypeName(v.as_string())) {
      return Fail(codes::CH0311, v, Cat("`", v.as_string(), "` is not a valid entity type name"),
                  "type names are `::`-separated identifiers, such as `NS::User`");
    }
    *out = std::string(v.as_string());
    return true;
  }

  // --- expressions ---------------------------------------------------------

  // Reads an expression at text nesting `depth`. Chains that the text writes
  // without brackets (see ChainOperand) are walked by the loop; everything
  // else recurses with its own depth.
  ExprPtr ReadExpr(const Value& v, int depth) {
    if (depth > options_.max_nesting) {
      Fail(codes::CH0302, Span{v.offset(), v.offset() + 1},
           Cat("expression nested deeper than ", options_.max_nesting, " levels"),
           "split the condition into several `when` clauses or simplify it");
      return nullptr;
    }
    std::vector<const Value*> chain{&v};
    while (true) {
      const Value& top = *chain.back();
      const Op* op = OpOf(top);
      if (op == nullptr) break;
      const Value* next = ChainOperand(*op, top.member(0));
      if (next == nullptr || LevelOf(*next) != op->level || OpOf(*next) == nullptr) break;
      chain.push_back(next);
    }
    ExprPtr e;
    for (size_t i = chain.size(); i-- > 0;) {
      e = ReadNode(*chain[i], depth, std::move(e));
      if (e == nullptr) return nullptr;
    }
    return e;
  }

  // A child expression: one level deeper for each bracket the text needs
  // around it (`brackets`, plus parentheses if it binds looser than `level`).
  ExprPtr Child(const Value& v, int depth, int level, int brackets) {
    return ReadExpr(v, depth + brackets + (LevelOf(v) < level ? 1 : 0));
  }

  // The body of `op` must be an object with exactly these keys.
  bool Body(const Value& body, std::string_view op, std::initializer_list<std::string_view> keys,
            std::initializer_list<std::string_view> optional = {}) {
    std::string what = Cat("the body of `", op, "`");
    if (!Expect(body, json::Kind::kObject, what)) return false;
    for (size_t i = 0; i < body.size(); ++i) {
      std::string_view k = body.key(i);
      if (std::find(keys.begin(), keys.end(), k) == keys.end() &&
          std::find(optional.begin(), optional.end(), k) == optional.end()) {
        return Fail(codes::CH0303, extents_.Key(body.key_offset(i)), Cat("unknown key `", k, "` in `", op, "`"),
                    Cat("expected ", KeyList(keys)));
      }
    }
    for (std::string_view k : keys) {
      if (body.Find(k) == nullptr) return Fail(codes::CH0305, body, Cat("`", op, "` lacks `", k, "`"));
    }
    return true;
  }

  // Reads one node. `chained`, when not null, is the already-read chain
  // operand (see ChainOperand), which is then not read again.
  ExprPtr ReadNode(const Value& v, int depth, ExprPtr chained) {
    if (!v.is_object()) {
      Fail(codes::CH0304, v, Cat("an expression must be an object, found ", KindName(v)),
           "for a literal write `{\"Value\": ...}`");
      return nullptr;
    }
    if (v.size() != 1) {
      if (v.size() == 0) {
        Fail(codes::CH0307, v, "an empty object is not an expression",
             "an expression is an object with one key, such as `{\"Value\": 1}`");
      } else {
        Fail(codes::CH0307, extents_.Key(v.key_offset(1)),
             Cat("an expression has one key, found `", v.key(0), "` and `", v.key(1), "`"));
      }
      return nullptr;
    }
    std::string_view key = v.key(0);
    const Value& body = v.member(0);
    const Op* op = FindOp(key);
    if (op == nullptr) {
      if (key == "unknown") {
        Fail(codes::CH0312, extents_.Key(v.key_offset(0)), "`unknown` is not a known function",
             "`unknown(...)` exists only for Cedar's partial evaluation");
      } else {
        Fail(codes::CH0306, extents_.Key(v.key_offset(0)), Cat("unknown operator `", key, "`"),
             "an expression is an object with one key such as `Value`, `Var`, `==`, `&&`, `.`, "
             "`has`, `like`, `if-then-else`, `Set`, `Record` or an extension function");
      }
      return nullptr;
    }
    Span span = extents_.Of(v);
    const int level = op->level;
    // Reads the chain operand unless it was read already.
    auto operand = [&](const Value& from, int need) -> ExprPtr {
      if (chained != nullptr) return std::move(chained);
      return Child(from, depth, need, 0);
    };
    switch (op->shape) {
      case Shape::kValue:
        return ReadLiteral(body, depth, span);
      case Shape::kVar: {
        if (!Expect(body, json::Kind::kString, "`Var`")) return nullptr;
        auto e = Node(K::kVar, span);
        std::string_view name = body.as_string();
        if (name == "principal") {
          e->var = ast::Var::kPrincipal;
        } else if (name == "action") {
          e->var = ast::Var::kAction;
        } else if (name == "resource") {
          e->var = ast::Var::kResource;
        } else if (name == "context") {
          e->var = ast::Var::kContext;
        } else {
          Fail(codes::CH0318, body, Cat("unknown variable `", name, "`"),
               "expected `principal`, `action`, `resource` or `context`");
          return nullptr;
        }
        return e;
      }
      case Shape::kSlot: {
        if (!Expect(body, json::Kind::kString, "`Slot`")) return nullptr;
        std::string_view name = body.as_string();
        if (name != "?principal" && name != "?resource") {
          Fail(codes::CH0309, body, Cat("unknown slot `", name, "`"),
               "the slots are `?principal` and `?resource`");
        } else {
          Fail(codes::CH0309, v, Cat("the template slot `", name, "` is in a `", clause_, "` clause"),
               "template slots may appear only in the policy scope");
        }
        return nullptr;
      }
      case Shape::kUnary:
      case Shape::kMethod1: {
        if (!Body(body, key, {"arg"})) return nullptr;
        ExprPtr arg = operand(*body.Find("arg"), level);
        if (arg == nullptr) return nullptr;
        ExprPtr e;
        if (op->shape == Shape::kUnary) {
          e = Node(K::kUnary, span);
          e->uop = op->uop;
        } else {
          e = Node(K::kMethod, span);
          e->str = std::string(key);
        }
        e->args.push_back(std::move(arg));
        return e;
      }
      case Shape::kBinary:
      case Shape::kMethod2: {
        if (!Body(body, key, {"left", "right"})) return nullptr;
        // Left-associative: `a - b - c` is `(a - b) - c`; relations take
        // additions on both sides; methods take any argument in brackets.
        int left_level = level == ast::kRelationLevel ? ast::kAddLevel : level;
        ExprPtr left = operand(*body.Find("left"), left_level);
        if (left == nullptr) return nullptr;
        ExprPtr right = op->shape == Shape::kMethod2
                            ? Child(*body.Find("right"), depth, ast::kIfLevel, 1)
                            : Child(*body.Find("right"), depth,
                                    level == ast::kRelationLevel ? ast::kAddLevel : level + 1, 0);
        if (right == nullptr) return nullptr;
        ExprPtr e;
        if (op->shape == Shape::kBinary) {
          e = Node(K::kBinary, span);
          e->bop = op->bop;
        } else {
          e = Node(K::kMethod, span);
          e->str = std::string(key);
        }
        e->args.push_back(std::move(left));
        e->args.push_back(std::move(right));
        return e;
      }
      case Shape::kGetAttr: {
        if (!Body(body, key, {"left", "attr"})) return nullptr;
        const Value& attr = *body.Find("attr");
        if (!Expect(attr, json::Kind::kString, "`attr` of `.`")) return nullptr;
        ExprPtr left = operand(*body.Find("left"), level);
        if (left == nullptr) return nullptr;
        auto e = Node(K::kAttr, span);
        e->str = std::string(attr.as_string());
        e->args.push_back(std::move(left));
        return e;
      }
      case Shape::kHas:
        return ReadHas(body, depth, span);
      case Shape::kLike: {
        if (!Body(body, key, {"left", "pattern"})) return nullptr;
        auto e = Node(K::kLike, span);
        if (!ReadPattern(*body.Find("pattern"), &e->pattern)) return nullptr;
        ExprPtr left = Child(*body.Find("left"), depth, ast::kAddLevel, 0);
        if (left == nullptr) return nullptr;
        e->args.push_back(std::move(left));
        return e;
      }
      case Shape::kIs: {
        if (!Body(body, key, {"left", "entity_type"}, {"in"})) return nullptr;
        auto e = Node(K::kIs, span);
        if (!TypeName(*body.Find("entity_type"), "`entity_type`", &e->str)) return nullptr;
        ExprPtr left = Child(*body.Find("left"), depth, ast::kAddLevel, 0);
        if (left == nullptr) return nullptr;
        e->args.push_back(std::move(left));
        if (const Value* in = body.Find("in")) {
          ExprPtr target = Child(*in, depth, ast::kAddLevel, 0);
          if (target == nullptr) return nullptr;
          e->args.push_back(std::move(target));
        }
        return e;
      }
      case Shape::kIf: {
        if (!Body(body, key, {"if", "then", "else"})) return nullptr;
        auto e = Node(K::kIf, span);
        for (std::string_view part : {"if", "then", "else"}) {
          ExprPtr sub = Child(*body.Find(part), depth, ast::kIfLevel, 1);
          if (sub == nullptr) return nullptr;
          e->args.push_back(std::move(sub));
        }
        return e;
      }
      case Shape::kSet: {
        if (!Expect(body, json::Kind::kArray, "`Set`")) return nullptr;
        auto e = Node(K::kSet, span);
        for (size_t i = 0; i < body.size(); ++i) {
          ExprPtr elem = Child(body.at(i), depth, ast::kIfLevel, 1);
          if (elem == nullptr) return nullptr;
          e->args.push_back(std::move(elem));
        }
        return e;
      }
      case Shape::kRecord: {
        if (!Expect(body, json::Kind::kObject, "`Record`")) return nullptr;
        auto e = Node(K::kRecord, span);
        for (size_t i = 0; i < body.size(); ++i) {
          ExprPtr value = Child(body.member(i), depth, ast::kIfLevel, 1);
          if (value == nullptr) return nullptr;
          e->keys.push_back(std::string(body.key(i)));
          e->args.push_back(std::move(value));
        }
        return e;
      }
      case Shape::kFunction:
      case Shape::kExtMethod: {
        if (!Expect(body, json::Kind::kArray, Cat("the arguments of `", key, "`"))) return nullptr;
        bool method = op->shape == Shape::kExtMethod;
        if (!CheckArity(key, method, body.size(), v)) return nullptr;
        auto e = Node(method ? K::kMethod : K::kCall, span);
        e->str = std::string(key);
        for (size_t i = 0; i < body.size(); ++i) {
          ExprPtr arg = method && i == 0 ? operand(body.at(0), level) : Child(body.at(i), depth, ast::kIfLevel, 1);
          if (arg == nullptr) return nullptr;
          e->args.push_back(std::move(arg));
        }
        return e;
      }
    }
    return nullptr;
  }

  // {"left": e, "attr": "a"} is `e has a`; "attr": ["a", "b", "c"] is
  // `e has a.b.c`, one node holding the path, as the text parser builds it.
  ExprPtr ReadHas(const Value& body, int depth, Span span) {
    if (!Body(body, "has", {"left", "attr"})) return nullptr;
    const Value& attr = *body.Find("attr");
    auto e = Node(K::kHas, span);
    if (attr.is_string()) {
      e->keys.push_back(std::string(attr.as_string()));
    } else if (attr.is_array()) {
      if (attr.size() == 0) {
        Fail(codes::CH0304, attr, "`attr` of `has` must not be an empty array");
        return nullptr;
      }
      for (size_t i = 0; i < attr.size(); ++i) {
        if (!Expect(attr.at(i), json::Kind::kString, "an attribute of `has`")) return nullptr;
        e->keys.push_back(std::string(attr.at(i).as_string()));
      }
    } else {
      Fail(codes::CH0304, attr, Cat("`attr` of `has` must be a string or an array of strings, found ",
                               KindName(attr)));
      return nullptr;
    }
    e->str = e->keys[0];
    ExprPtr left = Child(*body.Find("left"), depth, ast::kAddLevel, 0);
    if (left == nullptr) return nullptr;
    e->args.push_back(std::move(left));
    return e;
  }

  // A `like` pattern: "Wildcard" or {"Literal": s} elements. Adjacent
  // literals merge and runs of wildcards are one, as in the text parser.
  bool ReadPattern(const Value& v, std::vector<ast::PatternElem>* out) {
    if (!Expect(v, json::Kind::kArray, "`pattern` of `like`")) return false;
    for (size_t i = 0; i < v.size(); ++i) {
      const Value& elem = v.at(i);
      bool wildcard = false;
      std::string_view literal;
      if (elem.is_string() && elem.as_string() == "Wildcard") {
        wildcard = true;
      } else if (elem.is_object() && elem.size() == 1 && elem.key(0) == "Wildcard" &&
                 elem.member(0).is_null()) {
        wildcard = true;
      } else if (elem.is_object() && elem.size() == 1 && elem.key(0) == "Literal") {
        if (!Expect(elem.member(0), json::Kind::kString, "`Literal`")) return false;
        literal = elem.member(0).as_string();
      } else {
        return Fail(codes::CH0318, elem, "a pattern element must be `\"Wildcard\"` or `{\"Literal\": ...}`");
      }
      if (wildcard) {
        if (out->empty() || !out->back().wildcard) out->push_back({true, ""});
      } else if (!literal.empty()) {
        if (!out->empty() && !out->back().wildcard) {
          out->back().literal += literal;
        } else {
          out->push_back({false, std::string(literal)});
        }
      }
    }
    return true;
  }

  // A literal in Cedar's JSON value encoding, as AST literal nodes: strings,
  // booleans, integers, arrays as set literals, objects as record literals,
  // {"__entity": {"type", "id"}} as entities and {"__extn": {"fn", "arg"}}
  // (or "args") as extension calls. As in Cedar, an object is an escape only
  // when it has that one key and the shape fits; otherwise it is a record.
  ExprPtr ReadLiteral(const Value& v, int depth, Span span) {
    if (depth > options_.max_nesting) {
      Fail(codes::CH0302, Span{v.offset(), v.offset() + 1},
           Cat("expression nested deeper than ", options_.max_nesting, " levels"));
      return nullptr;
    }
    switch (v.kind()) {
      case json::Kind::kNull:
        Fail(codes::CH0310, v, "`null` is not a value");
        return nullptr;
      case json::Kind::kBool: {
        auto e = Node(K::kBool, span);
        e->b = v.as_bool();
        return e;
      }
      case json::Kind::kNumber: {
        if (!v.is_integer_literal()) {
          Fail(codes::CH0310, v, Cat("`", v.number_text(), "` is not an integer; only integers are values"));
          return nullptr;
        }
        if (!v.fits_int64()) {
          Fail(codes::CH0310, v, Cat("integer `", v.number_text(), "` does not fit in 64 bits"),
               "integers range from -9223372036854775808 to 9223372036854775807");
          return nullptr;
        }
        auto e = Node(K::kLong, span);
        e->i = v.as_int64();
        return e;
      }
      case json::Kind::kString: {
        auto e = Node(K::kString, span);
        e->str = std::string(v.as_string());
        return e;
      }
      case json::Kind::kArray: {
        auto e = Node(K::kSet, span);
        for (size_t i = 0; i < v.size(); ++i) {
          ExprPtr elem = ReadLiteral(v.at(i), depth + 1, extents_.Of(v.at(i)));
          if (elem == nullptr) return nullptr;
          e->args.push_back(std::move(elem));
        }
        return e;
      }
      case json::Kind::kObject:
        break;
    }
    if (v.size() == 1) {
      std::string_view key = v.key(0);
      const Value& inner = v.member(0);
      if (key == "__expr" && inner.is_string()) {
        Fail(codes::CH0310, v, "the `__expr` escape is no longer supported");
        return nullptr;
      }
      if (key == "__entity" && inner.is_object() && inner.size() >= 2 && IsTypeAndId(inner)) {
        auto e = Node(K::kEntity, span);
        if (!Uid(v, &e->entity)) return nullptr;
        return e;
      }
      const Value* fn = inner.Find("fn");
      if (key == "__extn" && inner.is_object() && inner.size() >= 2 && fn != nullptr &&
          fn->is_string()) {
        const Value* arg = inner.Find("arg");
        const Value* args = inner.Find("args");
        if (arg != nullptr || (args != nullptr && args->is_array())) {
          return ReadExtension(*fn, arg, arg == nullptr ? args : nullptr, depth, span);
        }
      }
    }
    auto e = Node(K::kRecord, span);
    for (size_t i = 0; i < v.size(); ++i) {
      ExprPtr value = ReadLiteral(v.member(i), depth + 1, extents_.Of(v.member(i)));
      if (value == nullptr) return nullptr;
      e->keys.push_back(std::string(v.key(i)));
      e->args.push_back(std::move(value));
    }
    return e;
  }

  // An `__extn` escape: `fn` applied to `arg` or to the elements of `args`.
  ExprPtr ReadExtension(const Value& fn, const Value* arg, const Value* args, int depth, Span span) {
    std::string_view name = fn.as_string();
    bool method = ExtensionBuiltin(name, CallStyle::kMethod) >= 0;
    if (!method && ExtensionBuiltin(name, CallStyle::kFunction) < 0) {
      Fail(codes::CH0312, fn, Cat("`", name, "` is not a known extension function"),
           "the functions are `ip`, `decimal`, `datetime` and `duration`");
      return nullptr;
    }
    if (!CheckArity(name, method, arg != nullptr ? 1 : args->size(), fn)) return nullptr;
    auto e = Node(method ? K::kMethod : K::kCall, span);
    e->str = std::string(name);
    for (size_t i = 0; i < (arg != nullptr ? 1 : args->size()); ++i) {
      const Value& a = arg != nullptr ? *arg : args->at(i);
      ExprPtr value = ReadLiteral(a, depth + 1, extents_.Of(a));
      if (value == nullptr) return nullptr;
      e->args.push_back(std::move(value));
    }
    return e;
  }

  // A method needs its receiver. Any other count of arguments reads, as
  // Cedar reads it: a wrong arity of an extension call is an evaluation
  // error (builtins.def).
  bool CheckArity(std::string_view name, bool method, size_t given, const Value& at) {
    if (!method || given > 0) return true;
    return Fail(codes::CH0319, at, Cat("the method `", name, "` lacks its receiver"),
                "the receiver is the first element of the array");
  }

  // --- policy sets -----------------------------------------------------------

  // What links need of a template. One without slots is kept whole: its
  // links copy it.
  struct Template {
    std::string id;
    bool ok = false;
    bool principal_slot = false;
    bool resource_slot = false;
    ast::Policy slotless;
  };

  void ReadPolicySet(const Value& root, ast::PolicySet* out, std::vector<TemplateLink>* links) {
    if (!OnlyKeys(root, "a policy set", {"staticPolicies", "templates", "templateLinks"})) return;
    std::set<std::string> ids;
    auto claim = [&](std::string_view id, Span span, std::string_view what) {
      if (ids.insert(std::string(id)).second) return true;
      return Fail(codes::CH0313, span, Cat("duplicate policy id `", id, "`"),
                  Cat("every policy, template and link needs its own id; this ", what, " reuses one"));
    };
    if (const Value* statics = root.Find("staticPolicies")) {
      if (Expect(*statics, json::Kind::kObject, "`staticPolicies`")) {
        for (size_t i = 0; i < statics->size(); ++i) {
          std::string id(statics->key(i));
          Span key_span = extents_.Key(statics->key_offset(i));
          ast::Policy policy;
          if (!ReadPolicy(statics->member(i), id, &policy)) continue;
          if (policy.is_template()) {
            Fail(codes::CH0317, policy.principal.slot ? policy.principal.span : policy.resource.span,
                 Cat("the static policy `", id, "` contains the slot `",
                     policy.principal.slot ? "?principal" : "?resource", "`"),
                 "a policy with slots belongs in `templates`");
            continue;
          }
          if (!claim(id, key_span, "policy")) continue;
          out->policies.push_back(std::move(policy));
        }
      }
    }
    std::vector<Template> templates;
    if (const Value* tmpl = root.Find("templates")) {
      if (Expect(*tmpl, json::Kind::kObject, "`templates`")) {
        for (size_t i = 0; i < tmpl->size(); ++i) {
          Template t;
          t.id = std::string(tmpl->key(i));
          ast::Policy policy;
          t.ok = ReadPolicy(tmpl->member(i), t.id, &policy) &&
                 claim(t.id, extents_.Key(tmpl->key_offset(i)), "template");
          t.principal_slot = policy.principal.slot;
          t.resource_slot = policy.resource.slot;
          if (!t.ok) {
            // Links to it are not reported again.
          } else if (policy.is_template()) {
            out->policies.push_back(std::move(policy));
          } else {
            t.slotless = std::move(policy);
          }
          templates.push_back(std::move(t));
        }
      }
    }
    const Value* link_list = root.Find("templateLinks");
    if (link_list == nullptr || !Expect(*link_list, json::Kind::kArray, "`templateLinks`")) return;
    for (size_t i = 0; i < link_list->size(); ++i) {
      ReadLink(link_list->at(i), templates, claim, out, links);
    }
  }

  template <typename Claim>
  void ReadLink(const Value& v, const std::vector<Template>& templates, Claim& claim,
                ast::PolicySet* out, std::vector<TemplateLink>* links) {
    constexpr std::string_view what = "a template link";
    if (!Expect(v, json::Kind::kObject, what)) return;
    if (!OnlyKeys(v, what, {"templateId", "newId", "values"})) return;
    const Value* template_id = Need(v, "templateId", what);
    const Value* new_id = Need(v, "newId", what);
    const Value* values = Need(v, "values", what);
    if (template_id == nullptr || new_id == nullptr || values == nullptr) return;
    if (!Expect(*template_id, json::Kind::kString, "`templateId`") ||
        !Expect(*new_id, json::Kind::kString, "`newId`") ||
        !Expect(*values, json::Kind::kObject, "`values`")) {
      return;
    }
    TemplateLink link;
    link.template_id = std::string(template_id->as_string());
    link.link_id = std::string(new_id->as_string());
    for (size_t i = 0; i < values->size(); ++i) {
      std::string_view slot = values->key(i);
      ast::EntityRef uid;
      if (slot != "?principal" && slot != "?resource") {
        Fail(codes::CH0309, extents_.Key(values->key_offset(i)), Cat("unknown slot `", slot, "`"),
             "the slots are `?principal` and `?resource`");
        return;
      }
      if (!Uid(values->member(i), &uid)) return;
      (slot == "?principal" ? link.principal : link.resource) = EntityUid{uid.type, uid.id};
    }
    const Template* t = nullptr;
    for (const Template& candidate : templates) {
      if (candidate.id == link.template_id) t = &candidate;
    }
    if (t == nullptr) {
      Fail(codes::CH0314, *template_id, Cat("there is no template `", link.template_id, "`"),
           "a link names a key of `templates`");
      return;
    }
    if (!t->ok) return;  // its own errors are reported
    for (auto [has_slot, bound, name] :
         {std::tuple{t->principal_slot, link.principal.has_value(), "?principal"},
          std::tuple{t->resource_slot, link.resource.has_value(), "?resource"}}) {
      if (has_slot && !bound) {
        Fail(codes::CH0314, *values, Cat("the link `", link.link_id, "` does not bind `", name,
                                    "` of the template `", link.template_id, "`"));
        return;
      }
      if (!has_slot && bound) {
        Fail(codes::CH0314, *values, Cat("the link `", link.link_id, "` binds `", name,
                                    "`, which the template `", link.template_id, "` does not have"));
        return;
      }
    }
    if (!claim(link.link_id, extents_.Of(*new_id), "link")) return;
    if (t->principal_slot || t->resource_slot) {
      if (links != nullptr) links->push_back(std::move(link));
      return;
    }
    ast::Policy copy = ClonePolicy(t->slotless);
    if (copied_ > copy_budget_) {
      Fail(codes::CH0302, v, "template links copy too large a policy",
           "a template without slots is copied for each of its links");
      return;
    }
    copy.id = link.link_id;
    out->policies.push_back(std::move(copy));
  }

  // A copy; adds the nodes copied to copied_.
  ast::Policy ClonePolicy(const ast::Policy& p) {
    ast::Policy c;
    c.id = p.id;
    c.effect = p.effect;
    c.annotations = p.annotations;
    c.principal = p.principal;
    c.action = p.action;
    c.resource = p.resource;
    c.span = p.span;
    c.effect_span = p.effect_span;
    for (const ast::Condition& cond : p.conditions) {
      ast::Condition copy;
      copy.when = cond.when;
      copy.span = cond.span;
      copy.body = ast::Clone(*cond.body, &copied_);
      c.conditions.push_back(std::move(copy));
    }
    return c;
  }

  const CompileOptions& options_;
  Diagnostics* diags_;
  json::Extents extents_;
  size_t copy_budget_;
  size_t copied_ = 0;
  std::string_view clause_ = "when";
};

}  // namespace

ast::PolicySet ParsePolicySetJson(const SourceFile& source, const CompileOptions& options,
                                  Diagnostics* diagnostics, std::vector<TemplateLink>* links) {
  ast::PolicySet set;
  const std::string& text = source.text();
  if (text.size() > options.max_source_bytes) {
    diagnostics->Error(codes::CH0301, {0, 0},
                       Cat("policy JSON is ", text.size(), " bytes, more than the limit of ",
                           options.max_source_bytes));
    return set;
  }
  json::ParseOptions parse_options;
  // The JSON parser keeps its own stack, and the reader bounds its recursion
  // by the nesting the text would have (see the top of this file), so the
  // JSON may nest far deeper than max_nesting: a chain `a || b || ...` of n
  // operands nests 2n deep. The trees built are then bounded by
  // max_expression_depth.
  parse_options.max_depth = MaxJsonDepth(options);
  parse_options.max_bytes = options.max_source_bytes;
  json::ParseFault fault;
  absl::StatusOr<json::Document> doc = json::Parse(text, parse_options, &fault);
  if (!doc.ok()) {
    std::string_view message = fault.message;
    Span at = json::FaultSpan(text, fault);
    if (message.rfind("nesting deeper than", 0) == 0) {
      diagnostics->Error(codes::CH0302, at,
                         Cat("JSON nested deeper than ", MaxJsonDepth(options), " levels"),
                         Cat("expressions may be ", options.max_expression_depth, " operators deep"));
    } else {
      diagnostics->Error(codes::CH0300, at, Cat("invalid JSON: ", message));
    }
    return set;
  }
  Reader reader(source, options, diagnostics);
  reader.Run(doc->root(), &set, links);
  return set;
}

}  // namespace charter::internal
