// The syntax stage: policy text -> AST, with Cedar's post-parse checks and
// the diagnostics (code, message, underlined text) each fault produces.
#include "syntax/parser.h"

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "charter/compiler.h"
#include "charter/diagnostics.h"
#include "gtest/gtest.h"

namespace charter::internal {
namespace {

using ast::Expr;

constexpr char kScope[] = "permit(principal, action, resource)";

// One parse, with its source kept alive for spans and rendering.
struct Parse {
  explicit Parse(std::string text, const CompileOptions& options = {})
      : source("policies.cedar", std::move(text)) {
    set = ParsePolicySet(source, options, &diags);
  }
  // The source text a diagnostic underlines.
  std::string Underlined(size_t i = 0) const {
    const Span s = diags.items().at(i).span;
    return source.text().substr(s.begin, s.end - s.begin);
  }
  std::string Text(Span s) const { return source.text().substr(s.begin, s.end - s.begin); }
  const Diagnostic& diag(size_t i = 0) const { return diags.items().at(i); }
  // Every diagnostic as "CODE message [underlined]", for failure output.
  std::string All() const {
    std::string out;
    for (size_t i = 0; i < diags.size(); ++i) {
      out += diag(i).code + " " + diag(i).message + " [" + Underlined(i) + "]\n";
    }
    return out;
  }

  SourceFile source;
  Diagnostics diags;
  ast::PolicySet set;
};

// An S-expression of the tree, so that tests state structure in one line.
std::string Show(const Expr& e) {
  auto args = [&](size_t from) {
    std::string s;
    for (size_t i = from; i < e.args.size(); ++i) s += " " + Show(*e.args[i]);
    return s;
  };
  switch (e.kind) {
    case Expr::Kind::kBool: return e.b ? "true" : "false";
    case Expr::Kind::kLong: return std::to_string(e.i);
    case Expr::Kind::kString: return "\"" + e.str + "\"";
    case Expr::Kind::kEntity: return e.entity.type + "::\"" + e.entity.id + "\"";
    case Expr::Kind::kVar: return std::string(ast::VarText(e.var));
    case Expr::Kind::kSlot: return e.str.empty() ? "?slot" : e.str;
    case Expr::Kind::kAttr: return "(. " + Show(*e.args[0]) + " " + e.str + ")";
    case Expr::Kind::kHas: {
      std::string path = e.str;
      for (size_t i = 1; i < e.keys.size(); ++i) path += "." + e.keys[i];
      return "(has " + Show(*e.args[0]) + " " + path + ")";
    }
    case Expr::Kind::kUnary:
      return std::string("(") + (e.uop == ast::UnaryOp::kNot ? "!" : "neg") + args(0) + ")";
    case Expr::Kind::kBinary: return "(" + std::string(ast::BinaryOpText(e.bop)) + args(0) + ")";
    case Expr::Kind::kIf: return "(if" + args(0) + ")";
    case Expr::Kind::kLike: {
      std::string p;
      for (const ast::PatternElem& el : e.pattern) p += el.wildcard ? "<*>" : el.literal;
      return "(like " + Show(*e.args[0]) + " \"" + p + "\")";
    }
    case Expr::Kind::kIs: return "(is " + Show(*e.args[0]) + " " + e.str + args(1) + ")";
    case Expr::Kind::kSet: return "[" + (e.args.empty() ? std::string() : args(0).substr(1)) + "]";
    case Expr::Kind::kRecord: {
      std::string s = "{";
      for (size_t i = 0; i < e.keys.size(); ++i) {
        s += (i ? ", " : "") + e.keys[i] + ": " + Show(*e.args[i]);
      }
      return s + "}";
    }
    case Expr::Kind::kMethod: return "(." + e.str + " " + Show(*e.args[0]) + args(1) + ")";
    case Expr::Kind::kCall: return "(" + e.str + args(0) + ")";
  }
  return "?";
}

// Parses `permit(principal, action, resource) when { EXPR };` and returns
// the condition's tree, or "" (with a test failure) if it did not parse.
std::string ShowCondition(const std::string& expr) {
  Parse p(std::string(kScope) + " when { " + expr + " };");
  EXPECT_TRUE(p.diags.empty()) << expr << "\n" << p.All();
  if (p.set.policies.size() != 1 || p.set.policies[0].conditions.size() != 1) return "";
  return Show(*p.set.policies[0].conditions[0].body);
}

// Parses a condition that must produce exactly one error; returns it.
struct OneError {
  std::string code, message, underlined, help;
};
OneError ConditionError(const std::string& expr) {
  Parse p(std::string(kScope) + " when { " + expr + " };");
  EXPECT_EQ(p.diags.size(), 1u) << expr << "\n" << p.All();
  EXPECT_TRUE(p.set.policies.empty()) << "a policy with an error must not be kept";
  if (p.diags.empty()) return {};
  return {p.diag().code, p.diag().message, p.Underlined(), p.diag().help};
}

// ---------------------------------------------------------------------------
// Scope

TEST(ParserScope, Unconstrained) {
  Parse p("permit(principal, action, resource);");
  ASSERT_TRUE(p.diags.empty()) << p.All();
  ASSERT_EQ(p.set.policies.size(), 1u);
  const ast::Policy& policy = p.set.policies[0];
  EXPECT_EQ(policy.effect, ast::Effect::kPermit);
  EXPECT_EQ(policy.id, "policy0");
  EXPECT_EQ(policy.principal.kind, ast::ScopeConstraint::Kind::kAny);
  EXPECT_EQ(policy.action.kind, ast::ActionConstraint::Kind::kAny);
  EXPECT_TRUE(policy.action.entities.empty());
  EXPECT_EQ(policy.resource.kind, ast::ScopeConstraint::Kind::kAny);
  EXPECT_FALSE(policy.is_template());
  EXPECT_TRUE(policy.conditions.empty());
  EXPECT_TRUE(policy.annotations.empty());
  EXPECT_EQ(p.Text(policy.span), "permit(principal, action, resource);");
  EXPECT_EQ(p.Text(policy.effect_span), "permit");
  EXPECT_EQ(p.Text(policy.principal.span), "principal");
  EXPECT_EQ(p.Text(policy.action.span), "action");
  EXPECT_EQ(p.Text(policy.resource.span), "resource");
}

TEST(ParserScope, Equality) {
  Parse p(R"(forbid(principal == User::"alice", action == Action::"view",
                  resource == Photo::"a \"b\".jpg");)");
  ASSERT_TRUE(p.diags.empty()) << p.All();
  ASSERT_EQ(p.set.policies.size(), 1u);
  const ast::Policy& policy = p.set.policies[0];
  EXPECT_EQ(policy.effect, ast::Effect::kForbid);
  EXPECT_EQ(p.Text(policy.effect_span), "forbid");
  EXPECT_EQ(policy.principal.kind, ast::ScopeConstraint::Kind::kEq);
  EXPECT_FALSE(policy.principal.slot);
  EXPECT_EQ(policy.principal.entity.type, "User");
  EXPECT_EQ(policy.principal.entity.id, "alice");
  EXPECT_EQ(p.Text(policy.principal.entity.span), R"(User::"alice")");
  EXPECT_EQ(p.Text(policy.principal.span), R"(principal == User::"alice")");
  EXPECT_EQ(policy.action.kind, ast::ActionConstraint::Kind::kEq);
  ASSERT_EQ(policy.action.entities.size(), 1u);
  EXPECT_EQ(policy.action.entities[0].type, "Action");
  EXPECT_EQ(policy.action.entities[0].id, "view");
  EXPECT_EQ(p.Text(policy.action.span), R"(action == Action::"view")");
  EXPECT_EQ(policy.resource.kind, ast::ScopeConstraint::Kind::kEq);
  EXPECT_EQ(policy.resource.entity.type, "Photo");
  EXPECT_EQ(policy.resource.entity.id, "a \"b\".jpg");
}

TEST(ParserScope, In) {
  Parse p(R"(permit(principal in Group::"g", action in Action::"read", resource in Folder::"f");)");
  ASSERT_TRUE(p.diags.empty()) << p.All();
  const ast::Policy& policy = p.set.policies.at(0);
  EXPECT_EQ(policy.principal.kind, ast::ScopeConstraint::Kind::kIn);
  EXPECT_EQ(policy.principal.entity.type, "Group");
  EXPECT_EQ(policy.principal.entity.id, "g");
  EXPECT_EQ(policy.action.kind, ast::ActionConstraint::Kind::kIn);
  ASSERT_EQ(policy.action.entities.size(), 1u);
  EXPECT_EQ(policy.action.entities[0].id, "read");
  EXPECT_EQ(policy.resource.kind, ast::ScopeConstraint::Kind::kIn);
  EXPECT_EQ(policy.resource.entity.type, "Folder");
  EXPECT_EQ(policy.resource.entity.id, "f");
}

TEST(ParserScope, IsAndIsIn) {
  Parse p(R"(permit(principal is NS::User in NS::Group::"g", action, resource is Photo);)");
  ASSERT_TRUE(p.diags.empty()) << p.All();
  const ast::Policy& policy = p.set.policies.at(0);
  EXPECT_EQ(policy.principal.kind, ast::ScopeConstraint::Kind::kIsIn);
  EXPECT_EQ(policy.principal.type, "NS::User");
  EXPECT_EQ(policy.principal.entity.type, "NS::Group");
  EXPECT_EQ(policy.principal.entity.id, "g");
  EXPECT_EQ(p.Text(policy.principal.span), R"(principal is NS::User in NS::Group::"g")");
  EXPECT_EQ(policy.resource.kind, ast::ScopeConstraint::Kind::kIs);
  EXPECT_EQ(policy.resource.type, "Photo");
  EXPECT_EQ(p.Text(policy.resource.span), "resource is Photo");
}

TEST(ParserScope, ActionList) {
  Parse p(R"(permit(principal, action in [Action::"a", NS::Action::"b",], resource);
             permit(principal, action in [], resource);)");
  ASSERT_TRUE(p.diags.empty()) << p.All();
  ASSERT_EQ(p.set.policies.size(), 2u);
  const ast::ActionConstraint& a = p.set.policies[0].action;
  EXPECT_EQ(a.kind, ast::ActionConstraint::Kind::kInList);
  ASSERT_EQ(a.entities.size(), 2u);
  EXPECT_EQ(a.entities[0].type, "Action");
  EXPECT_EQ(a.entities[0].id, "a");
  EXPECT_EQ(a.entities[1].type, "NS::Action");
  EXPECT_EQ(a.entities[1].id, "b");
  EXPECT_EQ(p.Text(a.entities[1].span), R"(NS::Action::"b")");
  EXPECT_EQ(p.set.policies[1].action.kind, ast::ActionConstraint::Kind::kInList);
  EXPECT_TRUE(p.set.policies[1].action.entities.empty());
}

TEST(ParserScope, TrailingCommaAndKeywordsAsTypeNames) {
  // Cedar 4.4 allows a trailing comma; `principal`, `action`... are not
  // reserved, so they may name types.
  Parse p(R"(permit(principal == principal::"p", action, resource == when::"w",);)");
  ASSERT_TRUE(p.diags.empty()) << p.All();
  const ast::Policy& policy = p.set.policies.at(0);
  EXPECT_EQ(policy.principal.entity.type, "principal");
  EXPECT_EQ(policy.resource.entity.type, "when");
}

TEST(ParserScope, Templates) {
  Parse p(R"(permit(principal == ?principal, action, resource in ?resource);
             forbid(principal is User in ?principal, action, resource);
             permit(principal, action, resource is Doc in ?resource);)");
  ASSERT_TRUE(p.diags.empty()) << p.All();
  ASSERT_EQ(p.set.policies.size(), 3u);
  const ast::Policy& t0 = p.set.policies[0];
  EXPECT_TRUE(t0.is_template());
  EXPECT_EQ(t0.principal.kind, ast::ScopeConstraint::Kind::kEq);
  EXPECT_TRUE(t0.principal.slot);
  EXPECT_EQ(t0.resource.kind, ast::ScopeConstraint::Kind::kIn);
  EXPECT_TRUE(t0.resource.slot);
  const ast::Policy& t1 = p.set.policies[1];
  EXPECT_TRUE(t1.is_template());
  EXPECT_EQ(t1.principal.kind, ast::ScopeConstraint::Kind::kIsIn);
  EXPECT_EQ(t1.principal.type, "User");
  EXPECT_TRUE(t1.principal.slot);
  EXPECT_FALSE(t1.resource.slot);
  EXPECT_TRUE(p.set.policies[2].resource.slot);
  // Templates and static policies share one id counter.
  EXPECT_EQ(t0.id, "policy0");
  EXPECT_EQ(t1.id, "policy1");
  EXPECT_EQ(p.set.policies[2].id, "policy2");
}

TEST(ParserScope, WrongSlot) {
  Parse p(R"(permit(principal == ?resource, action, resource);)");
  ASSERT_EQ(p.diags.size(), 1u) << p.All();
  EXPECT_EQ(p.diag().code, "CH0114");
  EXPECT_EQ(p.diag().message, "invalid slot `?resource` here");
  EXPECT_EQ(p.Underlined(), "?resource");
  EXPECT_TRUE(p.set.policies.empty());
}

TEST(ParserScope, SetInPrincipalScopeIsASyntaxError) {
  // Only `action in [...]` takes a list.
  Parse p(R"(permit(principal in [User::"a"], action, resource);)");
  ASSERT_FALSE(p.diags.empty());
  EXPECT_EQ(p.diag().code, "CH0101");
  EXPECT_EQ(p.Underlined(), "[");
  EXPECT_TRUE(p.set.policies.empty());
}

TEST(ParserScope, WrongOrderIsASyntaxError) {
  Parse p("permit(action, principal, resource);");
  ASSERT_FALSE(p.diags.empty());
  EXPECT_EQ(p.diag().code, "CH0101");
  EXPECT_EQ(p.Underlined(), "action");
  EXPECT_TRUE(p.set.policies.empty());
}

TEST(ParserScope, IsOnActionIsASyntaxError) {
  Parse p("permit(principal, action is Action, resource);");
  ASSERT_FALSE(p.diags.empty());
  EXPECT_EQ(p.diag().code, "CH0101");
  EXPECT_EQ(p.Underlined(), "is");
}

TEST(ParserScope, ActionMustHaveTypeAction) {
  Parse p(R"(permit(principal, action == User::"view", resource);)");
  ASSERT_EQ(p.diags.size(), 1u) << p.All();
  EXPECT_EQ(p.diag().code, "CH0117");
  EXPECT_EQ(p.diag().message, "expected an entity of type `Action`, found `User`");
  EXPECT_EQ(p.Underlined(), R"(User::"view")");
  EXPECT_EQ(p.diag().help, "actions in the scope are written `Action::\"name\"`");
  EXPECT_TRUE(p.set.policies.empty());
}

TEST(ParserScope, ActionTypeCheckedInListsAndBySuffix) {
  Parse p(R"(permit(principal, action in [Action::"a", MyAction::"b", NS::Action::"c"], resource);
             permit(principal, action in Ns::Actions::"d", resource);)");
  ASSERT_EQ(p.diags.size(), 2u) << p.All();
  EXPECT_EQ(p.diag(0).code, "CH0117");
  EXPECT_EQ(p.diag(0).message, "expected an entity of type `Action`, found `MyAction`");
  EXPECT_EQ(p.Underlined(0), R"(MyAction::"b")");
  EXPECT_EQ(p.diag(1).code, "CH0117");
  EXPECT_EQ(p.diag(1).message, "expected an entity of type `Action`, found `Ns::Actions`");
  EXPECT_EQ(p.Underlined(1), R"(Ns::Actions::"d")");
  EXPECT_TRUE(p.set.policies.empty());
}

// ---------------------------------------------------------------------------
// Annotations and ids

TEST(ParserAnnotations, KeysValuesAndSpans) {
  Parse p(R"(@id("first") @doc("two\nlines") @flag @if("kw") permit(principal, action, resource);)");
  ASSERT_TRUE(p.diags.empty()) << p.All();
  const ast::Policy& policy = p.set.policies.at(0);
  EXPECT_EQ(policy.id, "first");
  ASSERT_EQ(policy.annotations.size(), 4u);
  EXPECT_EQ(policy.annotations[0].key, "id");
  EXPECT_EQ(policy.annotations[0].value, "first");
  EXPECT_EQ(p.Text(policy.annotations[0].span), R"(@id("first"))");
  EXPECT_EQ(policy.annotations[1].key, "doc");
  EXPECT_EQ(policy.annotations[1].value, "two\nlines");
  EXPECT_EQ(policy.annotations[2].key, "flag");
  EXPECT_EQ(policy.annotations[2].value, "");  // no value means ""
  EXPECT_EQ(p.Text(policy.annotations[2].span), "@flag");
  EXPECT_EQ(policy.annotations[3].key, "if");  // any identifier, also a keyword
  EXPECT_EQ(policy.annotations[3].value, "kw");
  // The policy's span starts at its first annotation.
  EXPECT_EQ(policy.span.begin, 0u);
}

TEST(ParserAnnotations, IdsByPositionOtherwise) {
  Parse p(R"(permit(principal, action, resource);
             @id("middle") forbid(principal, action, resource);
             @doc("not an id") permit(principal, action, resource);)");
  ASSERT_TRUE(p.diags.empty()) << p.All();
  ASSERT_EQ(p.set.policies.size(), 3u);
  EXPECT_EQ(p.set.policies[0].id, "policy0");
  EXPECT_EQ(p.set.policies[1].id, "middle");
  EXPECT_EQ(p.set.policies[2].id, "policy2");
}

TEST(ParserAnnotations, DuplicateAnnotation) {
  Parse p(R"(@doc("a") @doc("b") permit(principal, action, resource);
             permit(principal, action, resource);)");
  ASSERT_EQ(p.diags.size(), 1u) << p.All();
  EXPECT_EQ(p.diag().code, "CH0115");
  EXPECT_EQ(p.diag().message, "duplicate annotation `@doc`");
  EXPECT_EQ(p.Underlined(), R"(@doc("b"))");
  EXPECT_EQ(p.diag().help, "each annotation key may appear once per policy");
  // The faulty policy is dropped; the other keeps its positional id.
  ASSERT_EQ(p.set.policies.size(), 1u);
  EXPECT_EQ(p.set.policies[0].id, "policy1");
}

TEST(ParserAnnotations, DuplicateId) {
  Parse p(R"(@id("x") permit(principal, action, resource);
@id("x") forbid(principal, action, resource);)");
  ASSERT_EQ(p.diags.size(), 1u) << p.All();
  EXPECT_EQ(p.diag().code, "CH0125");
  EXPECT_EQ(p.diag().message, "duplicate policy id `x`");
  EXPECT_EQ(p.Underlined(), R"(@id("x") forbid(principal, action, resource);)");
  ASSERT_EQ(p.set.policies.size(), 1u);
  EXPECT_EQ(p.set.policies[0].effect, ast::Effect::kPermit);
}

TEST(ParserAnnotations, ExplicitIdCollidingWithAPositionalOne) {
  Parse p(R"(@id("policy1") permit(principal, action, resource);
forbid(principal, action, resource);)");
  ASSERT_EQ(p.diags.size(), 1u) << p.All();
  EXPECT_EQ(p.diag().code, "CH0125");
  EXPECT_EQ(p.diag().message, "duplicate policy id `policy1`");
  EXPECT_EQ(p.Underlined(), "forbid(principal, action, resource);");
}

// ---------------------------------------------------------------------------
// Conditions

TEST(ParserConditions, WhenAndUnlessInSourceOrder) {
  Parse p(std::string(kScope) +
          " when { context.a } unless { context.b } when { context.c } unless { context.d };");
  ASSERT_TRUE(p.diags.empty()) << p.All();
  const ast::Policy& policy = p.set.policies.at(0);
  ASSERT_EQ(policy.conditions.size(), 4u);
  EXPECT_TRUE(policy.conditions[0].when);
  EXPECT_FALSE(policy.conditions[1].when);
  EXPECT_TRUE(policy.conditions[2].when);
  EXPECT_FALSE(policy.conditions[3].when);
  EXPECT_EQ(Show(*policy.conditions[0].body), "(. context a)");
  EXPECT_EQ(Show(*policy.conditions[1].body), "(. context b)");
  EXPECT_EQ(Show(*policy.conditions[2].body), "(. context c)");
  EXPECT_EQ(Show(*policy.conditions[3].body), "(. context d)");
  EXPECT_EQ(p.Text(policy.conditions[1].span), "unless { context.b }");
  EXPECT_EQ(p.Text(policy.conditions[1].body->span), "context.b");
}

TEST(ParserConditions, EmptyWhen) {
  Parse p(std::string(kScope) + " when {} unless { };");
  ASSERT_EQ(p.diags.size(), 2u) << p.All();
  EXPECT_EQ(p.diag(0).code, "CH0121");
  EXPECT_EQ(p.diag(0).message, "empty `when` clause");
  EXPECT_EQ(p.Underlined(0), "when {}");
  EXPECT_EQ(p.diag(1).code, "CH0121");
  EXPECT_EQ(p.diag(1).message, "empty `unless` clause");
  EXPECT_EQ(p.Underlined(1), "unless { }");
  EXPECT_TRUE(p.set.policies.empty());
}

TEST(ParserConditions, SlotInCondition) {
  OneError e = ConditionError("principal == ?principal");
  EXPECT_EQ(e.code, "CH0122");
  EXPECT_EQ(e.message, "template slots may appear only in the policy scope");
  EXPECT_EQ(e.underlined, "?principal");
}

TEST(ParserConditions, CommentsAreSkipped) {
  Parse p("// leading\npermit(principal, // inline\n action, resource) // x\n when { true }; // end");
  ASSERT_TRUE(p.diags.empty()) << p.All();
  ASSERT_EQ(p.set.policies.size(), 1u);
  EXPECT_EQ(Show(*p.set.policies[0].conditions.at(0).body), "true");
}

TEST(ParserConditions, EmptyInput) {
  Parse p("  // nothing here\n");
  EXPECT_TRUE(p.diags.empty()) << p.All();
  EXPECT_TRUE(p.set.policies.empty());
}

// ---------------------------------------------------------------------------
// Expressions: precedence and associativity

TEST(ParserPrecedence, OrBindsLooserThanAnd) {
  EXPECT_EQ(ShowCondition("context.a || context.b && context.c"),
            "(|| (. context a) (&& (. context b) (. context c)))");
  EXPECT_EQ(ShowCondition("context.a && context.b || context.c"),
            "(|| (&& (. context a) (. context b)) (. context c))");
  EXPECT_EQ(ShowCondition("(context.a || context.b) && context.c"),
            "(&& (|| (. context a) (. context b)) (. context c))");
}

TEST(ParserPrecedence, LeftAssociative) {
  EXPECT_EQ(ShowCondition("true || false || true"), "(|| (|| true false) true)");
  EXPECT_EQ(ShowCondition("1 - 2 - 3 == 0"), "(== (- (- 1 2) 3) 0)");
  EXPECT_EQ(ShowCondition("2 * 3 * 4 == 0"), "(== (* (* 2 3) 4) 0)");
}

TEST(ParserPrecedence, ArithmeticAndRelations) {
  EXPECT_EQ(ShowCondition("1 + 2 * 3 == 7"), "(== (+ 1 (* 2 3)) 7)");
  EXPECT_EQ(ShowCondition("1 * 2 + 3 < 4 && true"), "(&& (< (+ (* 1 2) 3) 4) true)");
  EXPECT_EQ(ShowCondition("1 != 2"), "(!= 1 2)");
  EXPECT_EQ(ShowCondition("1 <= 2"), "(<= 1 2)");
  EXPECT_EQ(ShowCondition("1 > 2"), "(> 1 2)");
  EXPECT_EQ(ShowCondition("1 >= 2"), "(>= 1 2)");
  EXPECT_EQ(ShowCondition(R"(principal in Group::"g")"), R"((in principal Group::"g"))");
  EXPECT_EQ(ShowCondition(R"(principal in [Group::"a", Group::"b"])"),
            R"((in principal [Group::"a" Group::"b"]))");
}

TEST(ParserPrecedence, Not) {
  EXPECT_EQ(ShowCondition("!context.a && context.b"), "(&& (! (. context a)) (. context b))");
  EXPECT_EQ(ShowCondition("!!!!true"), "(! (! (! (! true))))");
  EXPECT_EQ(ShowCondition("!(1 == 2)"), "(! (== 1 2))");
}

TEST(ParserPrecedence, TooManyUnaryOperators) {
  OneError e = ConditionError("!!!!!true");
  EXPECT_EQ(e.code, "CH0119");
  EXPECT_EQ(e.message, "too many occurrences of `!`");
  EXPECT_EQ(e.underlined, "!!!!!true");
  e = ConditionError("-----context.x == 1");
  EXPECT_EQ(e.code, "CH0119");
  EXPECT_EQ(e.message, "too many occurrences of `-`");
  EXPECT_EQ(e.underlined, "-----context.x");
}

TEST(ParserPrecedence, UnaryMinus) {
  EXPECT_EQ(ShowCondition("-context.x == 1"), "(== (neg (. context x)) 1)");
  // `-` right before an integer literal is part of the literal.
  EXPECT_EQ(ShowCondition("-5 == context.x"), "(== -5 (. context x))");
  EXPECT_EQ(ShowCondition("- 5 == context.x"), "(== -5 (. context x))");
  EXPECT_EQ(ShowCondition("--5 == 5"), "(== (neg -5) 5)");
  EXPECT_EQ(ShowCondition("1 - -2 == 3"), "(== (- 1 -2) 3)");
  // Not folded when the literal is parenthesized.
  EXPECT_EQ(ShowCondition("-(5) == -5"), "(== (neg 5) -5)");
}

TEST(ParserPrecedence, IfThenElse) {
  EXPECT_EQ(ShowCondition("if context.a then 1 else 2 == 2"),
            "(if (. context a) 1 (== 2 2))");
  EXPECT_EQ(ShowCondition("if true then false else if false then true else false"),
            "(if true false (if false true false))");
  EXPECT_EQ(ShowCondition("if true then false else true || false"),
            "(if true false (|| true false))");
  EXPECT_EQ(ShowCondition("(if true then 1 else 2) == 1"), "(== (if true 1 2) 1)");
}

TEST(ParserPrecedence, Is) {
  EXPECT_EQ(ShowCondition("principal is User"), "(is principal User)");
  EXPECT_EQ(ShowCondition(R"(principal is NS::User in Group::"g")"),
            R"((is principal NS::User Group::"g"))");
  EXPECT_EQ(ShowCondition("principal is User && true"), "(&& (is principal User) true)");
}

TEST(ParserPrecedence, MemberAccess) {
  EXPECT_EQ(ShowCondition(R"(context.a.b["c d"] == 1)"), "(== (. (. (. context a) b) c d) 1)");
  // Words that are not reserved in Cedar may follow a dot.
  EXPECT_EQ(ShowCondition(R"(context["if"].when.principal.permit)"),
            "(. (. (. (. context if) when) principal) permit)");
  EXPECT_EQ(ShowCondition(R"(-context.a.b == 1)"), "(== (neg (. (. context a) b)) 1)");
}

TEST(ParserPrecedence, ChainedRelationalOperators) {
  OneError e = ConditionError("1 < 2 < 3");
  EXPECT_EQ(e.code, "CH0110");
  EXPECT_EQ(e.message, "multiple relational operators in a row");
  EXPECT_EQ(e.underlined, "1 < 2 < 3");
  EXPECT_EQ(e.help, "relational operators are not associative: add parentheses");
  e = ConditionError(R"(true && principal == User::"a" == true)");
  EXPECT_EQ(e.code, "CH0110");
  EXPECT_EQ(e.underlined, R"(principal == User::"a" == true)");
  e = ConditionError("context has a == true");
  EXPECT_EQ(e.code, "CH0110");
  EXPECT_EQ(e.underlined, "context has a == true");
  // Parentheses make it legal.
  EXPECT_EQ(ShowCondition("(1 < 2) == true"), "(== (< 1 2) true)");
}

TEST(ParserPrecedence, SpansOfNodes) {
  Parse p(std::string(kScope) + " when { context.a + 2 * 3 < 10 || !context.b };");
  ASSERT_TRUE(p.diags.empty()) << p.All();
  const Expr& body = *p.set.policies.at(0).conditions.at(0).body;
  EXPECT_EQ(p.Text(body.span), "context.a + 2 * 3 < 10 || !context.b");
  const Expr& lt = *body.args[0];
  EXPECT_EQ(p.Text(lt.span), "context.a + 2 * 3 < 10");
  EXPECT_EQ(p.Text(lt.args[0]->span), "context.a + 2 * 3");
  EXPECT_EQ(p.Text(lt.args[0]->args[1]->span), "2 * 3");
  EXPECT_EQ(p.Text(lt.args[0]->args[0]->span), "context.a");
  EXPECT_EQ(p.Text(lt.args[0]->args[0]->args[0]->span), "context");
  EXPECT_EQ(p.Text(body.args[1]->span), "!context.b");
}

// ---------------------------------------------------------------------------
// Integer literals

TEST(ParserIntegers, Limits) {
  Parse p(std::string(kScope) +
          " when { 9223372036854775807 == -9223372036854775808 };");
  ASSERT_TRUE(p.diags.empty()) << p.All();
  const Expr& eq = *p.set.policies.at(0).conditions.at(0).body;
  ASSERT_EQ(eq.args.size(), 2u);
  EXPECT_EQ(eq.args[0]->kind, Expr::Kind::kLong);
  EXPECT_EQ(eq.args[0]->i, std::numeric_limits<int64_t>::max());
  EXPECT_EQ(eq.args[1]->kind, Expr::Kind::kLong);
  EXPECT_EQ(eq.args[1]->i, std::numeric_limits<int64_t>::min());
  EXPECT_EQ(p.Text(eq.args[1]->span), "-9223372036854775808");
}

TEST(ParserIntegers, TooLarge) {
  OneError e = ConditionError("9223372036854775808 == 0");
  EXPECT_EQ(e.code, "CH0112");
  EXPECT_EQ(e.message, "integer literal `9223372036854775808` does not fit in 64 bits");
  EXPECT_EQ(e.underlined, "9223372036854775808");
  EXPECT_EQ(e.help, "integers range from -9223372036854775808 to 9223372036854775807");

  e = ConditionError("-9223372036854775809 == 0");
  EXPECT_EQ(e.code, "CH0112");
  EXPECT_EQ(e.message, "integer literal `-9223372036854775809` does not fit in 64 bits");
  EXPECT_EQ(e.underlined, "-9223372036854775809");

  e = ConditionError("1 + 123456789012345678901234567890 == 0");
  EXPECT_EQ(e.code, "CH0112");
  EXPECT_EQ(e.underlined, "123456789012345678901234567890");

  // Folding needs the minus directly before the literal.
  e = ConditionError("-(9223372036854775808) == 0");
  EXPECT_EQ(e.code, "CH0112");
  EXPECT_EQ(e.underlined, "9223372036854775808");
}

// ---------------------------------------------------------------------------
// has, like, strings

TEST(ParserHas, SimpleAndString) {
  EXPECT_EQ(ShowCondition("context has a"), "(has context a)");
  EXPECT_EQ(ShowCondition(R"(context has "b c")"), "(has context b c)");
  EXPECT_EQ(ShowCondition("principal has when"), "(has principal when)");
  EXPECT_EQ(ShowCondition(R"(principal has "if")"), "(has principal if)");
}

TEST(ParserHas, ExtendedHasIsOneNodeWithThePath) {
  // `e has a.b.c` means `e has a && e.a has b && e.a.b has c`; the AST keeps
  // the path in one node (keys) and the compiler lowers it to that chain, so
  // a long path costs linear, not quadratic, space.
  EXPECT_EQ(ShowCondition("context has a.b.c"), "(has context a.b.c)");
  EXPECT_EQ(ShowCondition("principal.x has y.z || false"), "(|| (has (. principal x) y.z) false)");
  Parse p(std::string(kScope) + " when { context has a.b.c };");
  ASSERT_TRUE(p.diags.empty()) << p.All();
  const Expr& has = *p.set.policies.at(0).conditions.at(0).body;
  EXPECT_EQ(has.keys, (std::vector<std::string>{"a", "b", "c"}));
}

// Cedar rejects reserved words (`if then else true false in is has like`)
// as attribute names after `.` and `has` (cst_to_ast.rs: to_unreserved_ident
// in to_access and to_has_rhs); they must be written as strings.
void ExpectReservedWordError(const std::string& expr, const std::string& word) {
  Parse p(std::string(kScope) + " when { " + expr + " };");
  ASSERT_EQ(p.diags.size(), 1u) << expr << "\n" << p.All();
  EXPECT_EQ(p.diag().code, "CH0127") << expr;
  EXPECT_EQ(p.Underlined(), word) << expr;
  EXPECT_NE(p.diag().message.find("reserved"), std::string::npos) << p.diag().message;
  EXPECT_TRUE(p.set.policies.empty()) << expr;
}

TEST(ParserReserved, ReservedWordAfterDot) {
  ExpectReservedWordError("context.then == 1", "then");
  ExpectReservedWordError("context.if", "if");
  ExpectReservedWordError("context.a.in == 1", "in");
  ExpectReservedWordError("context.like", "like");
}

TEST(ParserReserved, ReservedWordAfterHas) {
  ExpectReservedWordError("principal has if", "if");
  ExpectReservedWordError("context has a.else", "else");
  ExpectReservedWordError("context has true", "true");
}

TEST(ParserReserved, CedarNamespaceIsReserved) {
  for (const char* expr : {R"(principal == __cedar::User::"a")", "principal is __cedar::A",
                           "{__cedar: 0} == {}", "context.__cedar", "context has a.__cedar"}) {
    Parse p(std::string(kScope) + " when { " + expr + " };");
    EXPECT_EQ(p.diags.size(), 1u) << expr << "\n" << p.All();
    EXPECT_TRUE(p.set.policies.empty()) << expr;
  }
  Parse scope(R"(permit(principal in __cedar::Group::"g", action, resource);)");
  EXPECT_EQ(scope.diags.size(), 1u) << scope.All();
  // As an annotation key it is allowed.
  Parse annotation(R"(@__cedar("x") permit(principal, action, resource);)");
  EXPECT_TRUE(annotation.diags.empty()) << annotation.All();
}

TEST(ParserLike, PatternElements) {
  Parse p(std::string(kScope) + R"( when { context.s like "a*b\*c**" };)");
  ASSERT_TRUE(p.diags.empty()) << p.All();
  const Expr& like = *p.set.policies.at(0).conditions.at(0).body;
  ASSERT_EQ(like.kind, Expr::Kind::kLike);
  EXPECT_EQ(Show(*like.args[0]), "(. context s)");
  ASSERT_EQ(like.pattern.size(), 4u);
  EXPECT_FALSE(like.pattern[0].wildcard);
  EXPECT_EQ(like.pattern[0].literal, "a");
  EXPECT_TRUE(like.pattern[1].wildcard);
  EXPECT_FALSE(like.pattern[2].wildcard);
  EXPECT_EQ(like.pattern[2].literal, "b*c");  // `\*` is a literal star
  EXPECT_TRUE(like.pattern[3].wildcard);      // `**` is one wildcard
  EXPECT_EQ(p.Text(like.span), R"(context.s like "a*b\*c**")");
}

TEST(ParserLike, OtherPatterns) {
  EXPECT_EQ(ShowCondition(R"("x" like "*")"), R"((like "x" "<*>"))");
  EXPECT_EQ(ShowCondition(R"("x" like "")"), R"((like "x" ""))");
  EXPECT_EQ(ShowCondition(R"("x" like "\*\*")"), R"((like "x" "**"))");
  EXPECT_EQ(ShowCondition(R"("x" like "\u{e9}*\n")"), "(like \"x\" \"\xC3\xA9<*>\n\")");
  EXPECT_EQ(ShowCondition(R"("x" like "\\*")"), R"((like "x" "\<*>"))");
}

TEST(ParserStrings, Escapes) {
  Parse p(std::string(kScope) +
          R"( when { ["\n\r\t\\\0\'\"", "\u{e9}", "\x41\x7f", "\u{1F600}", "é", "ab", ""] == [] };)");
  ASSERT_TRUE(p.diags.empty()) << p.All();
  const Expr& set = *p.set.policies.at(0).conditions.at(0).body->args.at(0);
  ASSERT_EQ(set.kind, Expr::Kind::kSet);
  ASSERT_EQ(set.args.size(), 7u);
  EXPECT_EQ(set.args[0]->str, std::string("\n\r\t\\\0'\"", 7));
  EXPECT_EQ(set.args[1]->str, "\xC3\xA9");
  EXPECT_EQ(set.args[2]->str, "A\x7f");
  EXPECT_EQ(set.args[3]->str, "\xF0\x9F\x98\x80");
  EXPECT_EQ(set.args[4]->str, "\xC3\xA9");
  EXPECT_EQ(set.args[5]->str, "ab");
  EXPECT_EQ(set.args[6]->str, "");
}

TEST(ParserStrings, BackslashNewlineIsNoEscape) {
  // Cedar's lexer has no line continuation: cedar-wasm 4.13 says "invalid token".
  Parse p(std::string(kScope) + " when { \"a\\\n  b\" == \"ab\" };");
  ASSERT_FALSE(p.diags.empty());
  EXPECT_EQ(p.diag().code, "CH0111");
}

TEST(ParserStrings, EscapesInEntityIdsAndAttributeNames) {
  Parse p(std::string(kScope) + R"( when { User::"\u{e9}\x41" == context["\x41"] };)");
  ASSERT_TRUE(p.diags.empty()) << p.All();
  const Expr& eq = *p.set.policies.at(0).conditions.at(0).body;
  EXPECT_EQ(eq.args[0]->entity.id, "\xC3\xA9" "A");
  EXPECT_EQ(eq.args[1]->str, "A");
}

TEST(ParserStrings, InvalidEscapes) {
  OneError e = ConditionError(R"("ab\qc" == "")");
  EXPECT_EQ(e.code, "CH0111");
  EXPECT_EQ(e.message, "invalid escape `\\q` in a string");
  EXPECT_EQ(e.underlined, "\\q");
  EXPECT_EQ(e.help, "the escapes are \\n \\r \\t \\\\ \\0 \\' \\\" \\xHH \\u{HHHHHH}");

  e = ConditionError(R"("\x80" == "")");
  EXPECT_EQ(e.code, "CH0111");
  EXPECT_EQ(e.message, "`\\x` escapes must be at most `\\x7F`");
  EXPECT_EQ(e.underlined, "\\x80");

  e = ConditionError(R"("\x4" == "")");
  EXPECT_EQ(e.code, "CH0111");
  EXPECT_EQ(e.message, "invalid `\\x` escape: expected two hexadecimal digits");
  EXPECT_EQ(e.underlined, "\\x");

  e = ConditionError(R"("\u{D800}" == "")");
  EXPECT_EQ(e.code, "CH0111");
  EXPECT_EQ(e.message, "invalid `\\u` escape: not a Unicode scalar value");
  EXPECT_EQ(e.underlined, "\\u{D800}");

  e = ConditionError(R"("\u{110000}" == "")");
  EXPECT_EQ(e.code, "CH0111");
  EXPECT_EQ(e.underlined, "\\u{110000}");

  e = ConditionError(R"("\u{1234567}" == "")");
  EXPECT_EQ(e.code, "CH0111");
  EXPECT_EQ(e.message,
            "invalid `\\u` escape: expected `\\u{` and 1 to 6 hexadecimal digits and `}`");
  EXPECT_EQ(e.underlined, "\\u");

  e = ConditionError(R"("\u{}" == "")");
  EXPECT_EQ(e.code, "CH0111");
  EXPECT_EQ(e.underlined, "\\u");

  e = ConditionError(R"("\u0041" == "")");
  EXPECT_EQ(e.code, "CH0111");
  EXPECT_EQ(e.underlined, "\\u");

  // `\*` only means something in a pattern.
  e = ConditionError(R"("a\*" == "")");
  EXPECT_EQ(e.code, "CH0111");
  EXPECT_EQ(e.message, "invalid escape `\\*` in a string");
  EXPECT_EQ(e.underlined, "\\*");
}

TEST(ParserStrings, InvalidEscapeInPatternAnnotationAndEntity) {
  OneError e = ConditionError(R"("x" like "a\qb*")");
  EXPECT_EQ(e.code, "CH0111");
  EXPECT_EQ(e.underlined, "\\q");
  e = ConditionError(R"(principal == User::"\q")");
  EXPECT_EQ(e.code, "CH0111");
  EXPECT_EQ(e.underlined, "\\q");

  Parse p(R"(@doc("\q") permit(principal, action, resource);)");
  ASSERT_EQ(p.diags.size(), 1u) << p.All();
  EXPECT_EQ(p.diag().code, "CH0111");
  EXPECT_EQ(p.Underlined(), "\\q");
}

TEST(ParserStrings, EscapeSpanAfterMultiByteCharacters) {
  // Spans are byte offsets even though ANTLR counts code points.
  OneError e = ConditionError("\"\xC3\xA9\xF0\x9F\x98\x80\\q\" == \"\"");
  EXPECT_EQ(e.code, "CH0111");
  EXPECT_EQ(e.underlined, "\\q");
}

// ---------------------------------------------------------------------------
// Records, sets, calls

TEST(ParserLiterals, RecordsAndSets) {
  EXPECT_EQ(ShowCondition(R"({a: 1, "b c": [2, "x"], d: {}, e: [],} == context)"),
            R"((== {a: 1, b c: [2 "x"], d: {}, e: []} context))");
  // Keys keep source order in the AST.
  EXPECT_EQ(ShowCondition(R"({z: 1, a: 2} == context)"), "(== {z: 1, a: 2} context)");
  EXPECT_EQ(ShowCondition("[1, [true, false], {x: -1},] == []"),
            "(== [1 [true false] {x: -1}] [])");
  EXPECT_EQ(ShowCondition(R"({"if": 1, "": 2}["if"] == 1)"), "(== (. {if: 1, : 2} if) 1)");
  EXPECT_EQ(ShowCondition("{when: 1, context: 2} == {}"), "(== {when: 1, context: 2} {})");
}

TEST(ParserLiterals, DuplicateRecordKey) {
  OneError e = ConditionError(R"({a: 1, b: 2, "a": 3} == context)");
  EXPECT_EQ(e.code, "CH0116");
  EXPECT_EQ(e.message, "duplicate record key `a`");
  EXPECT_EQ(e.underlined, R"("a")");
  e = ConditionError(R"({"\x41": 1, A: 2} == context)");
  EXPECT_EQ(e.code, "CH0116");
  EXPECT_EQ(e.message, "duplicate record key `A`");
  EXPECT_EQ(e.underlined, "A");
}

TEST(ParserLiterals, ReservedWordAsRecordKey) {
  OneError e = ConditionError("{if: 1} == context");
  EXPECT_EQ(e.code, "CH0127");
  EXPECT_EQ(e.message, "`if` is reserved and cannot be a record key");
  EXPECT_EQ(e.underlined, "if");
}

TEST(ParserLiterals, BarePathIsNotAValue) {
  OneError e = ConditionError("NS::User == principal");
  EXPECT_EQ(e.code, "CH0120");
  EXPECT_EQ(e.message, "`NS::User` is not a value");
  EXPECT_EQ(e.underlined, "NS::User");
  EXPECT_EQ(e.help, "an entity is written `NS::User::\"id\"`");
}

TEST(ParserCalls, MethodsAndFunctions) {
  EXPECT_EQ(ShowCondition("context.tags.contains(1)"), "(.contains (. context tags) 1)");
  EXPECT_EQ(ShowCondition("[1, 2].containsAll([1]) && [1].containsAny([])"),
            "(&& (.containsAll [1 2] [1]) (.containsAny [1] []))");
  EXPECT_EQ(ShowCondition("context.s.isEmpty()"), "(.isEmpty (. context s))");
  EXPECT_EQ(ShowCondition(R"(principal.hasTag("k") && principal.getTag("k") == 1)"),
            R"((&& (.hasTag principal "k") (== (.getTag principal "k") 1)))");
  EXPECT_EQ(ShowCondition(R"(ip("10.0.0.1").isInRange(ip("10.0.0.0/8")))"),
            R"((.isInRange (ip "10.0.0.1") (ip "10.0.0.0/8")))");
  EXPECT_EQ(ShowCondition(R"(decimal("1.5").lessThan(decimal("2.0")))"),
            R"((.lessThan (decimal "1.5") (decimal "2.0")))");
  EXPECT_EQ(ShowCondition(R"(datetime("2024-01-01").offset(duration("1h")).toDate() ==
                             datetime("2024-01-01"))"),
            R"((== (.toDate (.offset (datetime "2024-01-01") (duration "1h"))) )"
            R"((datetime "2024-01-01")))");
  EXPECT_EQ(ShowCondition(R"(duration("1d").toHours() == 24)"),
            R"((== (.toHours (duration "1d")) 24))");
}

TEST(ParserCalls, BuiltinMethodArity) {
  for (const char* expr : {"[1].contains()", "[1].contains(1, 2)", "[1].containsAll()",
                           "[1].containsAny([1], [2])", "[1].isEmpty(1)",
                           "principal.getTag()", R"(principal.hasTag("a", "b"))"}) {
    Parse p(std::string(kScope) + " when { " + expr + " };");
    ASSERT_EQ(p.diags.size(), 1u) << expr << "\n" << p.All();
    EXPECT_TRUE(p.set.policies.empty()) << expr;
  }
}

TEST(ParserCalls, UnknownMethod) {
  OneError e = ConditionError("context.s.size() == 1");
  EXPECT_EQ(e.code, "CH0113");
  EXPECT_EQ(e.message, "`size` is not a known method");
  EXPECT_EQ(e.underlined, "size");
  // Function names are not methods.
  e = ConditionError(R"(context.ip("1.2.3.4"))");
  EXPECT_EQ(e.code, "CH0113");
  EXPECT_EQ(e.message, "`ip` is not a known method");
}

TEST(ParserCalls, UnknownFunction) {
  OneError e = ConditionError("contains([1], 1)");
  EXPECT_EQ(e.code, "CH0113");
  EXPECT_EQ(e.message, "`contains` is not a known function");
  EXPECT_EQ(e.underlined, "contains");
  EXPECT_EQ(e.help,
            "the functions are `ip`, `decimal`, `datetime` and `duration`; other operations are "
            "methods, written `e.name(...)`");
  e = ConditionError(R"(ext::ip("1.2.3.4").isIpv4())");
  EXPECT_EQ(e.code, "CH0113");
  EXPECT_EQ(e.message, "`ext::ip` is not a known function");
  EXPECT_EQ(e.underlined, "ext::ip");
}

TEST(ParserOperators, DivisionAndModulo) {
  OneError e = ConditionError("context.a / 2 == 1");
  EXPECT_EQ(e.code, "CH0118");
  EXPECT_EQ(e.message, "`/` is not an operator of the language");
  EXPECT_EQ(e.underlined, "/");
  EXPECT_EQ(e.help, "only `+`, `-` and `*` are supported on integers");
  e = ConditionError("context.a % 2 == 1");
  EXPECT_EQ(e.code, "CH0118");
  EXPECT_EQ(e.message, "`%` is not an operator of the language");
  EXPECT_EQ(e.underlined, "%");
}

// ---------------------------------------------------------------------------
// Syntax errors

TEST(ParserSyntaxErrors, UnexpectedToken) {
  Parse p(std::string(kScope) + " when { && };");
  ASSERT_EQ(p.diags.size(), 1u) << p.All();
  EXPECT_EQ(p.diag().code, "CH0101");
  EXPECT_EQ(p.diag().message, "unexpected `&&`");
  EXPECT_EQ(p.Underlined(), "&&");
  EXPECT_TRUE(p.set.policies.empty());
}

TEST(ParserSyntaxErrors, UnexpectedEndOfInput) {
  Parse p("permit(principal, action, resource)");
  ASSERT_EQ(p.diags.size(), 1u) << p.All();
  EXPECT_EQ(p.diag().code, "CH0101");
  EXPECT_EQ(p.diag().message, "unexpected end of input");
  EXPECT_EQ(p.diag().span.begin, p.source.text().size());
  EXPECT_EQ(p.diag().span.end, p.source.text().size());
  EXPECT_NE(p.diag().help.find("`;`"), std::string::npos) << p.diag().help;
  EXPECT_TRUE(p.set.policies.empty());
}

TEST(ParserSyntaxErrors, MissingComma) {
  Parse p("permit(principal, action resource);");
  ASSERT_EQ(p.diags.size(), 1u) << p.All();
  EXPECT_EQ(p.diag().code, "CH0101");
  EXPECT_EQ(p.diag().message, "missing `,` before `resource`");
  EXPECT_EQ(p.Underlined(), "resource");
}

TEST(ParserSyntaxErrors, BadEffect) {
  Parse p("allow(principal, action, resource);");
  ASSERT_FALSE(p.diags.empty());
  EXPECT_EQ(p.diag().code, "CH0101");
  EXPECT_EQ(p.diag().message, "unexpected `allow`");
  EXPECT_EQ(p.Underlined(), "allow");
}

TEST(ParserSyntaxErrors, SpanAfterMultiByteText) {
  Parse p("// \xC3\xA9\xC3\xA9 \xF0\x9F\x98\x80\npermit(principal, action, resource) when { \"\xC3\xA9\" + };");
  ASSERT_FALSE(p.diags.empty());
  EXPECT_EQ(p.diag().code, "CH0101");
  EXPECT_EQ(p.diag().message, "unexpected `}`");
  EXPECT_EQ(p.Underlined(), "}");
}

TEST(ParserSyntaxErrors, SeveralInOneFile) {
  Parse p(std::string(kScope) + " when { && };\n" +
          "permit(principal, action, resource);\n" +
          std::string(kScope) + " when { 1 + };\n");
  ASSERT_EQ(p.diags.size(), 2u) << p.All();
  EXPECT_EQ(p.diag(0).code, "CH0101");
  EXPECT_EQ(p.Underlined(0), "&&");
  EXPECT_EQ(p.diag(1).code, "CH0101");
  EXPECT_EQ(p.Underlined(1), "}");
  EXPECT_EQ(p.source.PositionOf(p.diag(1).span.begin).line, 3u);
  // The policy between them parsed whole and is kept (and checked).
  ASSERT_EQ(p.set.policies.size(), 1u);
  EXPECT_EQ(p.set.policies[0].id, "policy1");
}

TEST(ParserSyntaxErrors, SeveralCheckErrorsInOneFile) {
  Parse p(std::string(kScope) + " when { \"\\q\" == foo(1) };\n" +
          "permit(principal, action, resource);\n" +
          std::string(kScope) + " when { 1 < 2 < 3 } unless { context.x / 2 };\n");
  ASSERT_EQ(p.diags.size(), 4u) << p.All();
  EXPECT_EQ(p.diag(0).code, "CH0111");
  EXPECT_EQ(p.Underlined(0), "\\q");
  EXPECT_EQ(p.diag(1).code, "CH0113");
  EXPECT_EQ(p.Underlined(1), "foo");
  EXPECT_EQ(p.diag(2).code, "CH0110");
  EXPECT_EQ(p.Underlined(2), "1 < 2 < 3");
  EXPECT_EQ(p.diag(3).code, "CH0118");
  EXPECT_EQ(p.Underlined(3), "/");
  // The clean policy survives with its positional id.
  ASSERT_EQ(p.set.policies.size(), 1u);
  EXPECT_EQ(p.set.policies[0].id, "policy1");
}

TEST(ParserSyntaxErrors, MaxErrors) {
  std::string text;
  for (int i = 0; i < 10; ++i) text += std::string(kScope) + " when { && };\n";
  CompileOptions options;
  options.max_errors = 3;
  Parse p(text, options);
  EXPECT_EQ(p.diags.size(), 3u) << p.All();
  EXPECT_TRUE(p.diags.has_errors());
}

TEST(ParserSyntaxErrors, MaxErrorsAlsoBoundsCheckErrors) {
  std::string text;
  for (int i = 0; i < 10; ++i) text += std::string(kScope) + " when { context.a / 2 };\n";
  CompileOptions options;
  options.max_errors = 3;
  Parse p(text, options);
  EXPECT_EQ(p.diags.size(), 3u) << p.All();
}

TEST(ParserSyntaxErrors, UnterminatedString) {
  Parse p(std::string(kScope) + " when { \"abc };");
  ASSERT_FALSE(p.diags.empty());
  EXPECT_EQ(p.diag().code, "CH0102");
  EXPECT_EQ(p.diag().message, "unterminated string literal");
  EXPECT_EQ(p.Underlined(), "\"abc };");
  EXPECT_EQ(p.diag().help, "close the string with `\"`");
}

TEST(ParserSyntaxErrors, StrayCharacter) {
  OneError e = ConditionError("1 # 2");
  EXPECT_EQ(e.code, "CH0103");
  EXPECT_EQ(e.message, "unexpected character `#`");
  EXPECT_EQ(e.underlined, "#");
  e = ConditionError("true & false");
  EXPECT_EQ(e.code, "CH0103");
  EXPECT_EQ(e.message, "unexpected character `&`");
  EXPECT_EQ(e.underlined, "&");
  // A non-ASCII character is underlined whole.
  e = ConditionError("\xC3\xA9");
  EXPECT_EQ(e.code, "CH0103");
  EXPECT_EQ(e.message, "unexpected character `\xC3\xA9`");
  EXPECT_EQ(e.underlined, "\xC3\xA9");
}

// ---------------------------------------------------------------------------
// Input limits

TEST(ParserLimits, InvalidUtf8) {
  for (std::string bad : {std::string("\xFF"), std::string("\xC0\x80"),
                          std::string("\xED\xA0\x80"), std::string("\xC3")}) {
    std::string text = std::string(kScope) + " when { \"a" + bad + "\" };";
    Parse p(text);
    ASSERT_EQ(p.diags.size(), 1u) << p.All();
    EXPECT_EQ(p.diag().code, "CH0001");
    EXPECT_EQ(p.diag().message, "policy text is not valid UTF-8");
    uint32_t at = static_cast<uint32_t>(text.find(bad));
    EXPECT_EQ(p.diag().span.begin, at);
    EXPECT_EQ(p.diag().span.end, at + 1);
    EXPECT_TRUE(p.set.policies.empty());
  }
}

TEST(ParserLimits, SourceTooLarge) {
  CompileOptions options;
  options.max_source_bytes = 10;
  Parse p("permit(principal, action, resource);", options);
  ASSERT_EQ(p.diags.size(), 1u) << p.All();
  EXPECT_EQ(p.diag().code, "CH0002");
  EXPECT_EQ(p.diag().message, "policy text is 36 bytes, more than the limit of 10");
  EXPECT_TRUE(p.set.policies.empty());
}

TEST(ParserLimits, NestingAtTheLimitIsAccepted) {
  // `when {` is one level, so 63 parentheses inside reach 64.
  std::string expr = std::string(63, '(') + "true" + std::string(63, ')');
  EXPECT_EQ(ShowCondition(expr), "true");
}

TEST(ParserLimits, DeepParentheses) {
  const std::string prefix = std::string(kScope) + " when { ";
  std::string text = prefix + std::string(100000, '(') + "true" + std::string(100000, ')') + " };";
  Parse p(text);
  ASSERT_EQ(p.diags.size(), 1u) << p.All().substr(0, 500);
  EXPECT_EQ(p.diag().code, "CH0003");
  EXPECT_EQ(p.diag().message, "expression nested deeper than 64 levels");
  EXPECT_EQ(p.diag().help, "split the condition into several `when` clauses or simplify it");
  // The 64th parenthesis is the 65th level.
  EXPECT_EQ(p.diag().span.begin, prefix.size() + 63);
  EXPECT_EQ(p.Underlined(), "(");
  EXPECT_TRUE(p.set.policies.empty());
}

TEST(ParserLimits, DeepBracketsBracesAndIfs) {
  const std::string prefix = std::string(kScope) + " when { ";
  std::string sets = prefix + std::string(100000, '[') + std::string(100000, ']') + " };";
  std::string records;
  for (int i = 0; i < 100000; ++i) records += "{a:";
  records = prefix + records + "1" + std::string(100000, '}') + " };";
  std::string ifs;
  for (int i = 0; i < 100000; ++i) ifs += "if true then ";
  ifs = prefix + ifs + "true";
  for (int i = 0; i < 100000; ++i) ifs += " else false";
  ifs += " };";
  for (const std::string* text : {&sets, &records, &ifs}) {
    Parse p(*text);
    ASSERT_EQ(p.diags.size(), 1u) << p.All().substr(0, 500);
    EXPECT_EQ(p.diag().code, "CH0003");
    EXPECT_TRUE(p.set.policies.empty());
  }
}

TEST(ParserLimits, CustomMaxNesting) {
  CompileOptions options;
  options.max_nesting = 3;
  Parse ok(std::string(kScope) + " when { ((true)) };", options);
  EXPECT_TRUE(ok.diags.empty()) << ok.All();
  EXPECT_EQ(ok.set.policies.size(), 1u);
  Parse deep(std::string(kScope) + " when { [([1])] == [] };", options);
  ASSERT_EQ(deep.diags.size(), 1u) << deep.All();
  EXPECT_EQ(deep.diag().code, "CH0003");
  EXPECT_EQ(deep.diag().message, "expression nested deeper than 3 levels");
  EXPECT_EQ(deep.Underlined(), "[");
  EXPECT_EQ(deep.diag().span.begin, std::string(kScope).size() + 10);
}

TEST(ParserLimits, NestingResetsBetweenPolicies) {
  // Each policy may nest up to the limit on its own.
  std::string one = std::string(kScope) + " when { " + std::string(60, '(') + "true" +
                    std::string(60, ')') + " };\n";
  Parse p(one + one + one);
  EXPECT_TRUE(p.diags.empty()) << p.All();
  EXPECT_EQ(p.set.policies.size(), 3u);
}

TEST(ParserLimits, LongFlatChainsAreNotNesting) {
  // Operand chains are flat in the text: no nesting diagnostic.
  std::string ors = "true";
  for (int i = 0; i < 10000; ++i) ors += " || false";
  Parse p(std::string(kScope) + " when { " + ors + " && context.a.b.c.d.e.f };");
  ASSERT_TRUE(p.diags.empty()) << p.All().substr(0, 500);
  ASSERT_EQ(p.set.policies.size(), 1u);
  const Expr& body = *p.set.policies[0].conditions.at(0).body;
  EXPECT_EQ(body.bop, ast::BinaryOp::kOr);
  EXPECT_EQ(Show(*body.args[1]), "(&& false (. (. (. (. (. (. context a) b) c) d) e) f))");
}

// Input well within max_source_bytes must never crash the parser, however
// its trees are shaped: either it parses or it is a diagnostic. The token
// limit per policy is raised past these chains (600,000 tokens), so that
// they reach the parser and its tree walks rather than stopping at CH0005.
void ExpectParsesOrDiagnoses(const std::string& expr) {
  CompileOptions options;
  options.max_policy_tokens = size_t{1} << 21;
  Parse p(std::string(kScope) + " when { " + expr + " };", options);
  if (p.diags.empty()) {
    EXPECT_EQ(p.set.policies.size(), 1u);
  } else {
    EXPECT_TRUE(p.diag().code == "CH0003" || p.diag().code == "CH0004") << p.All().substr(0, 500);
    EXPECT_TRUE(p.set.policies.empty());
  }
}

TEST(ParserLimits, LongOperandChainDoesNotCrash) {
  std::string ors = "true";
  for (int i = 0; i < 300000; ++i) ors += " || true";
  ExpectParsesOrDiagnoses(ors);
}

TEST(ParserLimits, LongMemberChainDoesNotCrash) {
  std::string chain = "context";
  for (int i = 0; i < 300000; ++i) chain += ".a";
  ExpectParsesOrDiagnoses(chain);
}

TEST(ParserLimits, LongHasPathIsBounded) {
  std::string path = "context has a";
  for (int i = 0; i < 20000; ++i) path += ".a";
  ExpectParsesOrDiagnoses(path);
}

// ---------------------------------------------------------------------------
// Positions and rendering

TEST(SourceFile, PositionsCountUnicodeScalarValues) {
  // a(1) é(2 bytes) 😀(4 bytes) b, newline, xyz
  SourceFile f("f.cedar", "a\xC3\xA9\xF0\x9F\x98\x80" "b\nxyz");
  auto at = [&](uint32_t offset) {
    SourceFile::Position p = f.PositionOf(offset);
    return std::to_string(p.line) + ":" + std::to_string(p.column);
  };
  EXPECT_EQ(at(0), "1:1");
  EXPECT_EQ(at(1), "1:2");   // é
  EXPECT_EQ(at(3), "1:3");   // 😀
  EXPECT_EQ(at(7), "1:4");   // b
  EXPECT_EQ(at(8), "1:5");   // the newline
  EXPECT_EQ(at(9), "2:1");   // x
  EXPECT_EQ(at(11), "2:3");  // z
  EXPECT_EQ(at(12), "2:4");  // the end
  EXPECT_EQ(at(1000), "2:4");  // clamped to the end
  EXPECT_EQ(f.Line(1), "a\xC3\xA9\xF0\x9F\x98\x80" "b");
  EXPECT_EQ(f.Line(2), "xyz");
  EXPECT_EQ(f.Line(0), "");
  EXPECT_EQ(f.Line(3), "");
}

TEST(SourceFile, CrLfLines) {
  SourceFile f("f.cedar", "ab\r\ncd\r\n");
  EXPECT_EQ(f.Line(1), "ab");
  EXPECT_EQ(f.Line(2), "cd");
  EXPECT_EQ(f.PositionOf(4).line, 2u);
  EXPECT_EQ(f.PositionOf(4).column, 1u);
}

TEST(DiagnosticsRender, OneErrorExactly) {
  Parse p("permit(principal, action, resource)\nwhen { context.a / 2 };\n");
  ASSERT_EQ(p.diags.size(), 1u) << p.All();
  EXPECT_EQ(p.diags.Render(p.source),
            "policies.cedar:2:18: error[CH0118]: `/` is not an operator of the language\n"
            "  |\n"
            "2 | when { context.a / 2 };\n"
            "  |                  ^\n"
            "  = help: only `+`, `-` and `*` are supported on integers\n");
  EXPECT_EQ(p.diags.RenderShort(p.source),
            "policies.cedar:2:18: `/` is not an operator of the language\n");
}

TEST(DiagnosticsRender, WideUnderlineAfterMultiByteText) {
  // The column and the underline count characters, not bytes.
  Parse p("permit(principal, action, resource) when {\n"
          "  \"\xC3\xA9\xF0\x9F\x98\x80\" == 99999999999999999999 };");
  ASSERT_EQ(p.diags.size(), 1u) << p.All();
  EXPECT_EQ(p.diags.Render(p.source),
            "policies.cedar:2:11: error[CH0112]: integer literal `99999999999999999999` does not "
            "fit in 64 bits\n"
            "  |\n"
            "2 |   \"\xC3\xA9\xF0\x9F\x98\x80\" == 99999999999999999999 };\n"
            "  |           ^^^^^^^^^^^^^^^^^^^^\n"
            "  = help: integers range from -9223372036854775808 to 9223372036854775807\n");
}

TEST(DiagnosticsRender, EndOfInputAndNoHelp) {
  Diagnostics d;
  d.Error("CH9999", {3, 3}, "something at the end");
  SourceFile f("x.cedar", "abc");
  EXPECT_EQ(d.Render(f),
            "x.cedar:1:4: error[CH9999]: something at the end\n"
            "  |\n"
            "1 | abc\n"
            "  |    ^\n");
  EXPECT_TRUE(d.has_errors());
}

TEST(DiagnosticsRender, LineNumberPaddingAndTabs) {
  std::string text;
  for (int i = 0; i < 9; ++i) text += "\n";
  text += "\tab cd";
  Diagnostics d;
  uint32_t at = static_cast<uint32_t>(text.find("cd"));
  d.Error("CH9999", {at, at + 2}, "here", "a hint");
  SourceFile f("x.cedar", text);
  EXPECT_EQ(d.Render(f),
            "x.cedar:10:5: error[CH9999]: here\n"
            "   |\n"
            "10 | \tab cd\n"
            "   | \t   ^^\n"
            "   = help: a hint\n");
}

}  // namespace
}  // namespace charter::internal

namespace charter::internal {
namespace {

// The scan before parsing (issue 15, "Hostile input"): token limits with the
// position of the first token past them, long unary runs, and groups.
TEST(ParserScan, TokensPerPolicy) {
  CompileOptions options;
  options.max_policy_tokens = 12;
  // 9 tokens each (a policy's `;` is its own): both pass; the third policy
  // has 13, and its 13th, the `;`, is the first past the limit.
  Parse p(std::string(kScope) + ";\n" + kScope + ";\n" + "permit(principal, action, resource) when { true };",
          options);
  ASSERT_EQ(p.diags.size(), 1u) << p.All();
  EXPECT_EQ(p.diag().code, "CH0005");
  EXPECT_EQ(p.diag().message, "policy has more than 12 tokens");
  EXPECT_EQ(p.Underlined(), ";");
  EXPECT_EQ(p.diag().span.begin, p.source.text().rfind(';'));
  // At 13 the same text passes: the count is exact.
  options.max_policy_tokens = 13;
  Parse q(std::string(kScope) + ";\n" + kScope + ";\n" + "permit(principal, action, resource) when { true };",
          options);
  EXPECT_TRUE(q.diags.empty()) << q.All();
}

TEST(ParserScan, TokensInTheText) {
  CompileOptions options;
  options.max_tokens = 13;
  // 9 tokens a policy: the 14th token of the text is the second's `action`.
  Parse p(std::string(kScope) + ";\n" + kScope + ";", options);
  ASSERT_EQ(p.diags.size(), 1u) << p.All();
  EXPECT_EQ(p.diag().code, "CH0006");
  EXPECT_EQ(p.Underlined(), "action");
  // Strings and comments are one token or none, whatever they hold: the
  // annotation is 5 tokens, the policy 9, exactly the limit.
  options.max_tokens = 14;
  Parse q(std::string("// ( [ { ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! !\n@id(\"((((((((((((((\")\n") + kScope + ";",
          options);
  EXPECT_EQ(q.diags.size(), 0u) << q.All();
}

TEST(ParserScan, LongUnaryRun) {
  Parse p(std::string(kScope) + " when { " + std::string(100000, '!') + "true };");
  ASSERT_EQ(p.diags.size(), 1u) << p.All();
  EXPECT_EQ(p.diag().code, "CH0119");
  EXPECT_EQ(p.Underlined(), std::string(100000, '!'));
  // `!=` is not `!`; a run broken by a comment is still one run.
  Parse q(std::string(kScope) + " when { 1 != 2 && " + std::string(8, '-') + "// c\n" +
          std::string(9, '-') + "1 == 1 };");
  ASSERT_GE(q.diags.size(), 1u);
  EXPECT_EQ(q.diag().code, "CH0119");
  EXPECT_EQ(q.Underlined(), std::string(8, '-') + "// c\n" + std::string(9, '-'));
}

TEST(ParserScan, NestingCountsAsBefore) {
  CompileOptions options;
  options.max_nesting = 3;
  Parse p(std::string(kScope) + " when { if (if true then true else false) then [[1]] else true };", options);
  ASSERT_EQ(p.diags.size(), 1u) << p.All();
  EXPECT_EQ(p.diag().code, "CH0003");
}

// A byte order mark before the text: it is accepted, and positions after it
// are those of the source (ANTLR's input stream dropped it, and every
// position after it was one scalar value short).
TEST(ParserScan, ByteOrderMark) {
  Parse p("\xEF\xBB\xBFpermit(principal, action, resource) when { 1 + };");
  ASSERT_EQ(p.diags.size(), 1u) << p.All();
  EXPECT_EQ(p.diag().code, "CH0101");
  EXPECT_EQ(p.diag().span.begin, p.source.text().find('}'));
  Parse q("\xEF\xBB\xBFpermit(principal, action, resource) when { x };");
  ASSERT_EQ(q.diags.size(), 1u) << q.All();
  EXPECT_EQ(q.Underlined(), "x");
  Parse ok("\xEF\xBB\xBFpermit(principal, action, resource);");
  EXPECT_TRUE(ok.diags.empty()) << ok.All();
  EXPECT_EQ(ok.set.policies.size(), 1u);
}

// A set larger than a group (65,536 tokens) parses a group at a time, with
// the same numbering, duplicate ids across groups and positions in later
// groups.
TEST(ParserScan, GroupsOfPolicies) {
  std::string text;
  for (int i = 0; i < 6000; ++i) text += std::string(kScope) + " when { context.a" + std::to_string(i) + " };\n";
  text += "@id(\"policy5\") " + std::string(kScope) + ";\n";
  size_t bad = text.size();
  text += "permit(principal, action resource);\n";
  text += std::string(kScope) + ";\n";
  Parse p(text);
  ASSERT_EQ(p.diags.size(), 2u) << p.All();
  EXPECT_EQ(p.diag(0).code, "CH0101");
  EXPECT_GT(p.diag(0).span.begin, bad);
  EXPECT_EQ(p.Underlined(0), "resource");
  EXPECT_EQ(p.diag(1).code, "CH0125");
  ASSERT_EQ(p.set.policies.size(), 6001u);
  EXPECT_EQ(p.set.policies[5999].id, "policy5999");
  EXPECT_EQ(p.set.policies[6000].id, "policy6002");
  EXPECT_EQ(p.Text(p.set.policies[6000].span), std::string(kScope) + ";");
}

// Cedar text with a fault: a scheduling declaration (a word or a string
// where a policy would begin) is CH0800 wherever it stands among the
// policies; any other fault, even one at a word inside a policy, is the
// syntax error it is.
TEST(ParserCedarText, DeclarationsAreCH0800AndOtherFaultsSyntaxErrors) {
  {
    Parse p(std::string(kScope) + ";\n" + kScope + ";\nqueue \"q\" { cohort: ml; }\n\"x\" y;\n" + kScope + ";");
    ASSERT_EQ(p.diags.size(), 2u) << p.All();
    EXPECT_EQ(p.diag(0).code, "CH0800");
    EXPECT_EQ(p.Underlined(0), "queue \"q\"");
    EXPECT_EQ(p.diag(1).code, "CH0800");
    EXPECT_EQ(p.Underlined(1), "\"x\" y");
    EXPECT_EQ(p.set.policies.size(), 3u);
  }
  {
    Parse p(std::string(kScope) + " when { principal y };");
    ASSERT_GE(p.diags.size(), 1u);
    EXPECT_EQ(p.diag(0).code, "CH0101") << p.All();
    EXPECT_EQ(p.Underlined(0), "y");
  }
  {
    Parse p(std::string(kScope) + ";\n" + kScope + " when { 1 + };");
    ASSERT_GE(p.diags.size(), 1u);
    EXPECT_EQ(p.diag(0).code, "CH0101") << p.All();
    EXPECT_EQ(p.set.policies.size(), 1u);
  }
}

}  // namespace
}  // namespace charter::internal
