// The reference interpreter: the language's cases (tests/core/api/language_cases.h,
// which the public Engine decides too), each checked to agree with the VM;
// where errors point, wrong arities, templates, the JSON policy format, long
// chains, and the tracing hook.
#include "interp/interp.h"

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "charter/charter.h"
#include "gtest/gtest.h"
#include "testing/status_matchers.h"
#include "tests/core/api/language_cases.h"

namespace charter::internal::interp {
namespace {

using ::charter_testing::IsOk;

std::string Text(const Decision& d) {
  if (!d.errors.empty()) return "error: " + d.errors[0].message;
  return d.allowed ? "true" : "false";
}

class InterpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto e = Entities::FromJson(charter::cases::kLanguageEntities);
    ASSERT_THAT(e, IsOk());
    entities_ = *std::move(e);
  }

  Request Alice() const {
    return Request::Create({"User", "alice"}, {"Action", "view"}, {"NS::Task", "t1"});
  }

  // The interpreter's outcome of `permit(principal, action, resource) when
  // { EXPR };` for alice ("true", "false" or "error: ..."), checked to be the
  // VM's too.
  std::string Eval(const std::string& expr) {
    return Decide("permit(principal, action, resource) when { " + expr + " };", {});
  }

  std::string Decide(const std::string& text, const std::vector<TemplateLink>& links) {
    SourceFile source("t.cedar", text);
    auto set = ReadLinkedPolicySet(source, links, {}, nullptr);
    auto bundle = Compile(source, links, {}, nullptr);
    EXPECT_EQ(set.ok(), bundle.ok()) << text;
    if (!set.ok()) {
      EXPECT_EQ(set.status().message(), bundle.status().message());
      return "rejected: " + std::string(set.status().message());
    }
    auto engine = Engine::Create(*std::move(bundle));
    EXPECT_THAT(engine, IsOk());
    Decision interp = Authorize(**set, Alice(), entities_);
    Decision vm = engine->Authorize(Alice(), entities_);
    // With positions: both point at the same expression when they err.
    EXPECT_EQ(interp.ToJsonWithPositions(), vm.ToJsonWithPositions()) << text;
    last_text_ = text;
    last_ = interp;
    return Text(interp);
  }

  // The text the error of `permit(principal, action, resource) when { EXPR };`
  // points at, the same for the interpreter and the VM (as Decide checks).
  std::string Where(const std::string& expr) {
    Eval(expr);
    if (last_.errors.empty()) return "no error";
    Span s = last_.errors[0].span;
    return last_text_.substr(s.begin, s.end - s.begin);
  }

  Entities entities_;
  std::string last_text_;
  Decision last_;
};

TEST_F(InterpTest, ErrorsPointWhereTheVmFails) {
  EXPECT_EQ(Where("principal.nope"), "principal.nope");
  EXPECT_EQ(Where("principal.level"), "principal.level");
  EXPECT_EQ(Where("principal.level + \"a\" + 1 == 2"), "principal.level + \"a\"");
  EXPECT_EQ(Where("principal.level && true"), "principal.level");
  EXPECT_EQ(Where("false || principal.level"), "principal.level");
  EXPECT_EQ(Where("true && true && principal.level"), "principal.level");
  EXPECT_EQ(Where("true && principal.level && true"), "principal.level");
  // In a longer chain, an inner link's right operand is checked as the next
  // link's left one.
  EXPECT_EQ(Where("true && true && principal.level && true"), "true && true && principal.level");
  EXPECT_EQ(Where("false || false || principal.level || true"), "false || false || principal.level");
  EXPECT_EQ(Where("if principal.level then true else false"), "principal.level");
  EXPECT_EQ(Where("principal in principal.level"), "principal in principal.level");
  EXPECT_EQ(Where("principal.profile.age.x == 1"), "principal.profile.age.x");
}

TEST_F(InterpTest, EveryLanguageCase) {
  for (const charter::cases::LanguageCase& c : charter::cases::kLanguageCases) {
    EXPECT_EQ(Eval(c.condition), c.outcome) << c.condition;
  }
}

// Cedar 4.5 parses an extension call with the wrong number of arguments,
// evaluates its arguments and then fails the call (each case below was
// checked with cedar-wasm 4.13.0: checkParsePolicySet and isAuthorized). The
// set and tag methods are still refused by the parser, as Cedar refuses them.
TEST_F(InterpTest, ExtensionCallsWithTheWrongArity) {
  auto wrong = [](std::string_view fn, int expected, int got) {
    return "error: wrong number of arguments provided to extension function `" + std::string(fn) +
           "`: expected " + std::to_string(expected) + ", got " + std::to_string(got);
  };
  EXPECT_EQ(Eval(R"(decimal("1.0", "2.0"))"), wrong("decimal", 1, 2));
  EXPECT_EQ(Eval(R"(decimal("x", "y"))"), wrong("decimal", 1, 2));
  EXPECT_EQ(Eval("decimal()"), wrong("decimal", 1, 0));
  EXPECT_EQ(Eval("ip()"), wrong("ip", 1, 0));
  EXPECT_EQ(Eval("ip(1, 2)"), wrong("ip", 1, 2));
  EXPECT_EQ(Eval("ip(ip())"), wrong("ip", 1, 0));
  EXPECT_EQ(Eval(R"("1.0".lessThan())"), wrong("lessThan", 2, 1));
  EXPECT_EQ(Eval(R"(decimal("1.0").lessThan(decimal("2.0"), 3))"), wrong("lessThan", 2, 3));
  EXPECT_EQ(Eval(R"(ip("1.2.3.4").isIpv4(1))"), wrong("isIpv4", 1, 2));
  EXPECT_EQ(Eval("1.isIpv4(2)"), wrong("isIpv4", 1, 2));
  EXPECT_EQ(Eval(R"(ip("1.1.1.1").isInRange())"), wrong("isInRange", 2, 1));
  EXPECT_EQ(Eval(R"(ip("1.1.1.1").isInRange(1, 2))"), wrong("isInRange", 2, 3));
  EXPECT_EQ(Eval(R"(datetime("2024-01-01").toTime(1))"), wrong("toTime", 1, 2));
  EXPECT_EQ(Eval(R"(duration("1h").toDays(1))"), wrong("toDays", 1, 2));
  EXPECT_EQ(Eval(R"(datetime("2024-01-01").offset())"), wrong("offset", 2, 1));
  // The arguments are evaluated first: their error wins.
  EXPECT_EQ(Eval("ip(principal.nope, 2)"), "error: `User::\"alice\"` does not have the attribute `nope`");
  // A call that is not evaluated does not err.
  EXPECT_EQ(Eval("true || ip()"), "true");
  EXPECT_EQ(Eval("if false then decimal() else true"), "true");
  // The policy is skipped and reported; the others still decide.
  {
    SourceFile source("t.cedar",
                      "permit(principal, action, resource) when { ip() };\n"
                      "permit(principal, action, resource);");
    auto set = ReadLinkedPolicySet(source, {}, {}, nullptr);
    auto bundle = Compile(source, {}, {}, nullptr);
    ASSERT_THAT(set, IsOk());
    ASSERT_THAT(bundle, IsOk());
    auto engine = Engine::Create(*std::move(bundle));
    ASSERT_THAT(engine, IsOk());
    for (const Decision& d : {Authorize(**set, Alice(), entities_), engine->Authorize(Alice(), entities_)}) {
      EXPECT_TRUE(d.allowed);
      ASSERT_EQ(d.errors.size(), 1u);
      EXPECT_EQ("error: " + d.errors[0].message, wrong("ip", 1, 0));
    }
  }
  // The JSON policy format reads them too.
  EXPECT_EQ(Decide(R"({"effect": "permit", "principal": {"op": "All"}, "action": {"op": "All"},
    "resource": {"op": "All"}, "conditions": [{"kind": "when",
      "body": {"decimal": [{"Value": "1.0"}, {"Value": "2.0"}]}}]})", {}),
            wrong("decimal", 1, 2));
  EXPECT_EQ(Decide(R"({"effect": "permit", "principal": {"op": "All"}, "action": {"op": "All"},
    "resource": {"op": "All"}, "conditions": [{"kind": "when",
      "body": {"Value": {"__extn": {"fn": "ip", "args": []}}}}]})", {}),
            wrong("ip", 1, 0));
  // The set and tag methods: parse errors.
  EXPECT_EQ(Eval("[1].contains()"), "rejected: t.cedar:1:44: `contains` takes 1 argument, 0 given");
  EXPECT_EQ(Eval(R"(principal.hasTag("a", "b"))"),
            "rejected: t.cedar:1:44: `hasTag` takes 1 argument, 2 given");
}

// The same for every extension function and method of the registry, as
// tests/core/extensions/oracle_check.js recorded Cedar's answers: it parses, and
// the VM and the interpreter fail it with Cedar's message.
TEST_F(InterpTest, ExtensionCallsWithTheWrongArityAsCedarAnswers) {
  struct Case {
    const char* condition;
    bool parses;
    const char* error;
  };
  const Case cases[] = {
#define ARITY_CASE(condition, parses, error) {condition, parses, error},
#include "tests/core/extensions/extension_cases.inc"
  };
  ASSERT_GE(std::size(cases), 30u);
  for (const Case& c : cases) {
    ASSERT_TRUE(c.parses) << c.condition;
    EXPECT_EQ(Eval(c.condition), std::string("error: ") + c.error);
  }
}

TEST_F(InterpTest, ScopeAndConditions) {
  EXPECT_EQ(Decide("permit(principal == User::\"alice\", action == Action::\"view\", "
                   "resource is NS::Task in NS::Task::\"t1\");", {}),
            "true");
  EXPECT_EQ(Decide("permit(principal in Org::\"acme\", action in [Action::\"edit\", Action::\"view\"], "
                   "resource);", {}),
            "true");
  EXPECT_EQ(Decide("permit(principal is Team, action, resource);", {}), "false");
  // Conditions in order: a false `when` hides a later error.
  EXPECT_EQ(Decide("permit(principal, action, resource) when { false } when { 1 };", {}), "false");
  EXPECT_EQ(Decide("permit(principal, action, resource) unless { false } when { 1 };", {}),
            "error: type error: expected bool, got long");
  // A satisfied forbid wins; an erring one is skipped.
  EXPECT_EQ(Decide("permit(principal, action, resource); forbid(principal, action, resource);", {}),
            "false");
  EXPECT_EQ(Decide("permit(principal, action, resource);"
                   "forbid(principal, action, resource) when { principal.nope };", {}),
            "error: `User::\"alice\"` does not have the attribute `nope`");
}

TEST_F(InterpTest, Templates) {
  const std::string text =
      "@id(\"t\") permit(principal == ?principal, action, resource in ?resource);\n"
      "@id(\"s\") forbid(principal, action, resource) when { principal.level > 5 };\n";
  TemplateLink yes{"t", "yes", EntityUid{"User", "alice"}, EntityUid{"NS::Task", "t1"}};
  TemplateLink no{"t", "no", EntityUid{"User", "bob"}, EntityUid{"NS::Task", "t1"}};
  EXPECT_EQ(Decide(text, {no}), "false");
  EXPECT_EQ(Decide(text, {no, yes}), "true");
  SourceFile source("t.cedar", text);
  auto set = ReadLinkedPolicySet(source, {no, yes}, {}, nullptr);
  ASSERT_THAT(set, IsOk());
  ASSERT_EQ((*set)->instances.size(), 3u);
  EXPECT_EQ((*set)->instances[0].id, "s");
  EXPECT_EQ((*set)->instances[2].id, "yes");
  // Links that do not fit: the compiler's messages.
  EXPECT_EQ(Decide(text, {TemplateLink{"x", "l", {}, {}}}), "rejected: link `l`: there is no template `x`");
  EXPECT_EQ(Decide(text, {TemplateLink{"t", "s", EntityUid{"User", "a"}, EntityUid{"User", "a"}}}),
            "rejected: link `s`: the policy id `s` is already taken");
  EXPECT_EQ(Decide(text, {TemplateLink{"t", "l", EntityUid{"User", "a"}, {}}}),
            "rejected: link `l`: template `t` needs a value for `?resource`");
}

TEST_F(InterpTest, JsonPolicyFormat) {
  EXPECT_EQ(Decide(R"({"effect": "permit",
    "principal": {"op": "==", "entity": {"type": "User", "id": "alice"}},
    "action": {"op": "All"}, "resource": {"op": "All"},
    "conditions": [{"kind": "when", "body": {"Value": true}}]})", {}),
            "true");
}

TEST_F(InterpTest, SyntaxErrorsAreRejected) {
  EXPECT_EQ(Decide("permit(principal, action, resource) when { && };", {}).substr(0, 20),
            "rejected: t.cedar:1:");
}

// Chains far longer than any stack could recurse over.
TEST_F(InterpTest, LongChains) {
  for (const auto& [condition, outcome] : charter::cases::LongChainCases()) EXPECT_EQ(Eval(condition), outcome);
}

TEST_F(InterpTest, TracerSeesEveryValue) {
  SourceFile source("t.cedar", "permit(principal, action, resource) when { principal.level + 1 > 3 };");
  auto set = ReadLinkedPolicySet(source, {}, {}, nullptr);
  ASSERT_THAT(set, IsOk());
  struct Recorder : Tracer {
    std::vector<std::string> seen;
    const SourceFile* source;
    void OnValue(const ast::Expr& e, const Value& v) override {
      seen.push_back(source->text().substr(e.span.begin, e.span.end - e.span.begin) + " = " +
                     ToCedar(v));
    }
  } recorder;
  recorder.source = &source;
  EntityRef refs[3];
  Request alice = Alice();
  Env env = MakeEnv(alice, entities_, refs);
  Arena scratch;
  PolicyResult r = EvaluatePolicy((*set)->instances[0], env, &scratch, &recorder);
  EXPECT_EQ(r.outcome, Outcome::kTrue);
  EXPECT_EQ(recorder.seen, (std::vector<std::string>{
                               "principal = User::\"alice\"", "principal.level = 3", "1 = 1",
                               "principal.level + 1 = 4", "3 = 3", "principal.level + 1 > 3 = true"}));
}

TEST_F(InterpTest, ResultSaysWhatDecided) {
  SourceFile source("t.cedar",
                    "permit(principal, action == Action::\"edit\", resource);\n"
                    "permit(principal, action, resource) when { true } unless { principal.level == 3 };\n"
                    "permit(principal, action, resource) when { principal.profile.nope };\n");
  auto set = ReadLinkedPolicySet(source, {}, {}, nullptr);
  ASSERT_THAT(set, IsOk());
  EntityRef refs[3];
  Request alice = Alice();
  Env env = MakeEnv(alice, entities_, refs);
  Arena scratch;
  PolicyResult a = EvaluatePolicy((*set)->instances[0], env, &scratch);
  EXPECT_EQ(a.outcome, Outcome::kFalse);
  EXPECT_EQ(a.part, Part::kAction);
  PolicyResult b = EvaluatePolicy((*set)->instances[1], env, &scratch);
  EXPECT_EQ(b.outcome, Outcome::kFalse);
  EXPECT_EQ(b.part, Part::kCondition);
  EXPECT_EQ(b.condition, 1u);
  PolicyResult c = EvaluatePolicy((*set)->instances[2], env, &scratch);
  EXPECT_EQ(c.outcome, Outcome::kError);
  ASSERT_NE(c.error_at, nullptr);
  EXPECT_EQ(source.text().substr(c.error_at->span.begin, c.error_at->span.end - c.error_at->span.begin),
            "principal.profile.nope");
}

// The governance example: every request decided alike by both.
TEST(InterpGovernance, AgreesWithTheVm) {
  auto read = [](const std::string& path) {
    std::ifstream in(std::string(CHARTER_SOURCE_DIR) + "/" + path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  };
  SourceFile source("policies.cedar", read("examples/governance/policies.cedar"));
  auto set = ReadLinkedPolicySet(source, {}, {}, nullptr);
  ASSERT_THAT(set, IsOk());
  auto bundle = Compile(source, {}, nullptr);
  ASSERT_THAT(bundle, IsOk());
  auto engine = Engine::Create(*std::move(bundle));
  ASSERT_THAT(engine, IsOk());
  auto entities = Entities::FromJson(read("examples/governance/entities.json"));
  ASSERT_THAT(entities, IsOk());
  auto requests = Request::ArrayFromJson(read("examples/governance/requests.json"));
  ASSERT_THAT(requests, IsOk());
  ASSERT_GT(requests->size(), 10u);
  for (const Request& r : *requests) {
    EXPECT_EQ(Authorize(**set, r, *entities).ToJson(), engine->Authorize(r, *entities).ToJson());
  }
}

}  // namespace
}  // namespace charter::internal::interp
