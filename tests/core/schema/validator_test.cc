// The strict validator: every error and warning kind, with its code, its
// message and the exact text it underlines; and the flow-sensitive rules
// (`has` guards through &&, ||, if; singleton booleans) that decide accept
// or reject as Cedar's validator does.
#include <string>
#include <vector>

#include "charter/schema.h"
#include "gtest/gtest.h"
#include "testing/status_matchers.h"

namespace charter {
namespace {

using ::charter_testing::IsOk;

constexpr char kSchema[] = R"(
entity Team;
entity User in [Team] {
  level: Long,
  name: String,
  manager?: User,
  roles: Set<String>,
  profile: { dept: String, mfa?: Bool },
};
entity Task in [Team] { owner: User, priority: Long, start: datetime, budget: decimal } tags String;
entity Color enum ["red", "green"];
action view appliesTo { principal: User, resource: Task, context: { ip: ipaddr, now: datetime } };
action edit in [view] appliesTo { principal: [User], resource: [Task] };
action paint appliesTo { principal: User, resource: Color };
)";

struct Result {
  bool ok;
  std::vector<Diagnostic> diags;
  std::string text;
  std::string Underlined(size_t i) const {
    const Span& s = diags[i].span;
    return text.substr(s.begin, s.end - s.begin);
  }
  // The first diagnostic of the given severity, or -1.
  int First(Severity sev) const {
    for (size_t i = 0; i < diags.size(); ++i) {
      if (diags[i].severity == sev) return static_cast<int>(i);
    }
    return -1;
  }
};

Result Check(const std::string& policies, const char* schema_text = kSchema) {
  SourceFile schema_source("schema.cedarschema", schema_text);
  Diagnostics sd;
  absl::StatusOr<Schema> schema = Schema::Parse(schema_source, {}, &sd);
  EXPECT_THAT(schema, IsOk()) << sd.Render(schema_source);
  SourceFile source("policies.cedar", policies);
  Diagnostics d;
  absl::Status st = Validate(*schema, source, {}, &d);
  return Result{st.ok(), d.items(), policies};
}

// Expects an error with `code` as the first error, with this message and
// this underlined text.
void ExpectError(const std::string& policy, const std::string& code, const std::string& message,
                 const std::string& underlined) {
  Result r = Check(policy);
  EXPECT_FALSE(r.ok) << policy;
  int i = r.First(Severity::kError);
  ASSERT_GE(i, 0) << policy;
  EXPECT_EQ(r.diags[i].code, code) << policy << "\n" << r.diags[i].message;
  EXPECT_EQ(r.diags[i].message, message) << policy;
  EXPECT_EQ(r.Underlined(i), underlined) << policy;
}

void ExpectValid(const std::string& policy) {
  Result r = Check(policy);
  std::string all;
  for (const Diagnostic& d : r.diags) all += d.code + " " + d.message + "\n";
  EXPECT_TRUE(r.ok) << policy << "\n" << all;
}

TEST(Validator, AcceptsWellTypedPolicies) {
  ExpectValid(R"(permit(principal, action == Action::"view", resource) when { principal.level > 3 };)");
  ExpectValid(R"(permit(principal in Team::"ml", action in [Action::"view"], resource is Task);)");
  ExpectValid(R"(permit(principal, action, resource) when { principal has manager && principal.manager.level > 1 };)");
  ExpectValid(R"(permit(principal, action, resource) when { if principal has manager then principal.manager.level > 1 else true };)");
  ExpectValid(R"(permit(principal, action, resource) when { principal.profile has mfa && principal.profile.mfa };)");
  ExpectValid(R"(permit(principal, action, resource is Task) when { resource.hasTag("env") && resource.getTag("env") == "prod" };)");
  ExpectValid(R"(permit(principal, action == Action::"view", resource) when { context.ip.isInRange(ip("10.0.0.0/8")) && context.now < datetime("2030-01-01") };)");
  ExpectValid(R"(permit(principal, action, resource is Task) when { resource.budget.lessThan(decimal("10.5")) };)");
  ExpectValid(R"(permit(principal, action == Action::"paint", resource) when { resource == Color::"red" };)");
  // Short-circuiting with singleton booleans: the right side is never checked.
  ExpectValid(R"(permit(principal, action, resource) when { false && 1 };)");
  ExpectValid(R"(permit(principal, action, resource) when { principal is Task && principal.priority > 1 };)");
  ExpectValid(R"(permit(principal, action, resource) when { principal.roles.contains("admin") };)");
  ExpectValid(R"(permit(principal, action, resource) when { 1 == "a" };)");  // literals: False
}

TEST(Validator, HasGuardsFlowThroughOrAndIf) {
  // `||` keeps only what both sides prove.
  Result r = Check(R"(permit(principal, action, resource) when { (principal has manager || true) && principal.manager.level > 1 };)");
  EXPECT_FALSE(r.ok);
  ExpectValid(R"(permit(principal, action, resource) when { (principal has manager || principal has manager) && principal.manager.level > 1 };)");
  // The else branch does not get the test's capability.
  r = Check(R"(permit(principal, action, resource) when { if principal has manager then true else principal.manager.level > 1 };)");
  EXPECT_FALSE(r.ok);
  // A has-path guards every step.
  ExpectValid(R"(permit(principal, action, resource) when { principal has manager.level && principal.manager.level > 1 };)");
}

TEST(Validator, UnknownEntityType) {
  ExpectError(R"(permit(principal == Usr::"a", action, resource);)", "CH0501", "unknown entity type `Usr`",
              R"(Usr::"a")");
}

TEST(Validator, UnknownAction) {
  ExpectError(R"(permit(principal, action == Action::"delete", resource);)", "CH0502",
              R"(unknown action `Action::"delete"`)", R"(Action::"delete")");
}

TEST(Validator, InvalidEnumValue) {
  ExpectError(R"(permit(principal, action, resource) when { resource == Color::"blue" };)", "CH0503",
              R"(`Color::"blue"` is not one of the values of enumerated type `Color`)", R"(Color::"blue")");
}

TEST(Validator, UnexpectedType) {
  ExpectError(R"(permit(principal, action, resource) when { principal.name + 1 > 2 };)", "CH0510",
              "expected `Long`, found `String`", "principal.name");
  ExpectError(R"(permit(principal, action, resource) when { principal.level like "a*" };)", "CH0510",
              "expected `String`, found `Long`", "principal.level");
}

TEST(Validator, IncompatibleTypes) {
  ExpectError(R"(permit(principal, action, resource) when { principal.level == principal.name };)", "CH0511",
              "`==` has incompatible types `Long` and `String`", "principal.level == principal.name");
  ExpectError(R"(permit(principal, action, resource) when { [1, "a"].isEmpty() };)", "CH0511",
              "the set literal has incompatible types `Long` and `String`", R"([1, "a"])");
  ExpectError(R"(permit(principal, action, resource) when { (if principal.level > 1 then 1 else "a") == 1 };)",
              "CH0511", "`if ... then ... else` has incompatible types `Long` and `String`",
              R"(if principal.level > 1 then 1 else "a")");
}

TEST(Validator, UnknownAttribute) {
  ExpectError(R"(permit(principal, action, resource) when { principal.levle > 1 };)", "CH0512",
              "`User` has no attribute `levle`", "principal.levle");
}

TEST(Validator, OptionalAttributeWithoutHas) {
  ExpectError(R"(permit(principal, action, resource) when { principal.manager.level > 1 };)", "CH0513",
              "attribute `manager` of `User` is optional and may be absent here", "principal.manager");
  // A record is named by the expression that reads it, not by its whole type.
  ExpectError(R"(permit(principal, action, resource) when { principal.profile.mfa };)", "CH0513",
              "attribute `mfa` of record `principal.profile` is optional and may be absent here",
              "principal.profile.mfa");
  ExpectError(R"(permit(principal, action, resource) when { principal["profile"]["mfa"] };)", "CH0513",
              "attribute `mfa` of record `principal.profile` is optional and may be absent here",
              R"(principal["profile"]["mfa"])");
  ExpectError(R"(permit(principal, action, resource) when { {a: principal.profile}.a.mfa };)", "CH0513",
              "attribute `mfa` of `{dept: String, mfa?: Bool}` is optional and may be absent here",
              "{a: principal.profile}.a.mfa");
}

TEST(Validator, EmptySetLiteral) {
  ExpectError(R"(permit(principal, action, resource) when { principal.roles.containsAll([]) };)", "CH0514",
              "empty set literals are forbidden in policies", "[]");
}

TEST(Validator, ExtensionConstructors) {
  ExpectError(R"(permit(principal, action, resource) when { ip(principal.name).isIpv4() };)", "CH0515",
              "the argument of `ip` must be a string literal in a validated policy", "ip(principal.name)");
  ExpectError(R"(permit(principal, action, resource) when { ip("10.0.0.256").isIpv4() };)", "CH0516",
              R"(`ip("10.0.0.256")` is not a valid `ipaddr`)", R"(ip("10.0.0.256"))");
}

// Cedar parses an extension call with the wrong number of arguments and its
// strict validator refuses it ("wrong number of arguments in extension
// function application"), as cedar-wasm 4.13.0 answers for each case here;
// a call that is never evaluated (after `true ||`) is not checked.
TEST(Validator, ExtensionCallsWithTheWrongArity) {
  ExpectError(R"(permit(principal, action, resource) when { ip("1.2.3.4").isIpv4(1) };)", "CH0520",
              "`isIpv4` takes 0 arguments, 1 given", R"(ip("1.2.3.4").isIpv4(1))");
  ExpectError(R"(permit(principal, action, resource) when { decimal("1.0", "2.0").lessThan(decimal("2.0")) };)",
              "CH0520", "`decimal` takes 1 argument, 2 given", R"(decimal("1.0", "2.0"))");
  ExpectError(R"(permit(principal, action == Action::"view", resource) when { context.ip.isInRange() };)",
              "CH0520", "`isInRange` takes 1 argument, 0 given", "context.ip.isInRange()");
  ExpectError(R"(permit(principal, action, resource) when { ip(principal.name, 2).isIpv4() };)", "CH0520",
              "`ip` takes 1 argument, 2 given", "ip(principal.name, 2)");
  ExpectError(R"(permit(principal, action, resource) when { datetime("2024-01-01").toTime(1) == duration("1h") };)",
              "CH0520", "`toTime` takes 0 arguments, 1 given", R"(datetime("2024-01-01").toTime(1))");
  ExpectValid(R"(permit(principal, action, resource) when { true || ip() };)");
}

TEST(Validator, Tags) {
  ExpectError(R"(permit(principal, action, resource is Task) when { resource.getTag("env") == "prod" };)",
              "CH0517", "the tag may be absent from this `Task`", R"(resource.getTag("env"))");
  // On a type without tags `hasTag` is `False`, so what it guards is never
  // checked (which is why CH0518, getTag on such a type, was retired).
  ExpectValid(R"(permit(principal, action, resource) when { principal.hasTag("a") && principal.getTag("a") == "x" };)");
}

TEST(Validator, Warnings) {
  Result r = Check(R"(permit(principal == Team::"a", action == Action::"view", resource);)");
  EXPECT_TRUE(r.ok);
  ASSERT_GE(r.diags.size(), 2u);
  EXPECT_EQ(r.diags[0].code, "CH0530");
  EXPECT_EQ(r.diags[0].severity, Severity::kWarning);
  EXPECT_EQ(r.diags[0].message, "no action in the schema applies to this policy's scope");
  EXPECT_EQ(r.Underlined(0), R"(permit(principal == Team::"a", action == Action::"view", resource);)");
  EXPECT_EQ(r.diags[1].code, "CH0531");
  EXPECT_EQ(r.Underlined(1), "permit");
}

TEST(Validator, UnknownEntityTypeInConditions) {
  ExpectError(R"(permit(principal, action, resource) when { principal is Usr };)", "CH0501",
              "unknown entity type `Usr`", "principal is Usr");
  ExpectError(R"(permit(principal, action, resource) when { principal in Grp::"a" };)", "CH0501",
              "unknown entity type `Grp`", R"(Grp::"a")");
}

TEST(Validator, WrongOperandTypes) {
  ExpectError(R"(permit(principal, action, resource) when { principal in 1 };)", "CH0510",
              "expected `Set<entity>` or `entity`, found `Long`", "1");
  ExpectError(R"(permit(principal, action, resource) when { principal.level.isIpv4() };)", "CH0510",
              "expected `ipaddr`, found `Long`", "principal.level");
}

TEST(Validator, TooDeepToValidate) {
  std::string policy = "permit(principal, action, resource) when { principal.level > 0";
  for (int i = 0; i < 5001; ++i) policy += " || principal.level > 0";
  policy += " };";
  ExpectError(policy, "CH0519", "policy is too deeply nested to validate", policy);
}

TEST(Validator, ImpossiblePolicy) {
  Result r = Check(R"(permit(principal, action, resource) when { principal is Team };)");
  EXPECT_TRUE(r.ok);
  ASSERT_EQ(r.diags.size(), 1u);
  EXPECT_EQ(r.diags[0].code, "CH0531");
  EXPECT_EQ(r.diags[0].severity, Severity::kWarning);
  EXPECT_EQ(r.diags[0].message, "policy is impossible: it is false for every request the schema allows");
  EXPECT_EQ(r.Underlined(0), "permit");
}

TEST(Validator, TemplatesAreCheckedForEveryLink) {
  ExpectValid(R"(permit(principal == ?principal, action, resource in ?resource) when { principal.level > 0 };)");
}

// Links validated as Cedar 4.13.0's validator (cedar-wasm `validate`)
// validates them: a slot bound to an undeclared entity type is an error of
// the link (and its scope then applies to nothing, a warning); a type that
// no action takes there is a warning only; an enumerated type's id outside
// its values is not checked in a link; the template's own faults are
// reported once, not for each link.
Result CheckLinked(const std::string& policies, const std::vector<TemplateLink>& links) {
  SourceFile schema_source("schema.cedarschema", kSchema);
  absl::StatusOr<Schema> schema = Schema::Parse(schema_source, {}, nullptr);
  EXPECT_THAT(schema, IsOk());
  SourceFile source("policies.cedar", policies);
  Diagnostics d;
  absl::Status st = Validate(*schema, source, links, {}, &d);
  return Result{st.ok(), d.items(), policies};
}

TEST(Validator, TemplateLinksAreValidatedAsCedarDoes) {
  const std::string tmpl = R"(@id("t") permit(principal == ?principal, action == Action::"view", resource);)";
  auto link = [](std::string type, std::string id) {
    return TemplateLink{"t", "l", EntityUid{std::move(type), std::move(id)}, std::nullopt};
  };
  // Declared, and the action takes it: clean.
  Result ok = CheckLinked(tmpl, {link("User", "alice")});
  EXPECT_TRUE(ok.ok);
  EXPECT_TRUE(ok.diags.empty());
  // Undeclared: an error (the template underlined), then the warning.
  Result nope = CheckLinked(tmpl, {link("Nope", "x")});
  EXPECT_FALSE(nope.ok);
  ASSERT_EQ(nope.diags.size(), 2u);
  const std::vector<std::string> expected = {
      "CH0521", "link `l` binds `?principal` to `Nope::\"x\"`, whose entity type `Nope` the schema does not declare",
      tmpl};
  EXPECT_EQ(nope.diags[0].code, expected[0]);
  EXPECT_EQ(nope.diags[0].message, expected[1]);
  EXPECT_EQ(nope.Underlined(0), expected[2]);
  EXPECT_EQ(nope.diags[1].code, "CH0530");
  EXPECT_EQ(nope.diags[1].severity, Severity::kWarning);
  // Declared, but no action takes it as a principal: a warning only.
  for (const TemplateLink& l : {link("Team", "ml"), link("Color", "blue"), link("Action", "view")}) {
    Result r = CheckLinked(tmpl, {l});
    EXPECT_TRUE(r.ok) << l.principal->ToString();
    ASSERT_EQ(r.diags.size(), 1u) << l.principal->ToString();
    EXPECT_EQ(r.diags[0].code, "CH0530");
    EXPECT_EQ(r.diags[0].message,
              "link `l`: no action in the schema applies to this template's scope once linked");
  }
  // `in`: a type whose members the action takes applies.
  Result in = CheckLinked(R"(@id("t") permit(principal in ?principal, action == Action::"view", resource);)",
                          {link("Team", "ml")});
  EXPECT_TRUE(in.ok);
  EXPECT_TRUE(in.diags.empty());
  // The resource slot, with the suggestion of a namespaced name.
  Result res = CheckLinked(R"(@id("t") permit(principal, action, resource == ?resource);)",
                           {TemplateLink{"t", "l", std::nullopt, EntityUid{"Nope", "x"}}});
  EXPECT_FALSE(res.ok);
  ASSERT_GE(res.diags.size(), 1u);
  EXPECT_EQ(res.diags[0].code, "CH0521");
  // A template's fault is the template's, once, however many links.
  Result body = CheckLinked(
      R"(@id("t") permit(principal == ?principal, action == Action::"view", resource) when { 1 + "a" };)",
      {link("User", "a"), TemplateLink{"t", "l2", EntityUid{"User", "b"}, std::nullopt}});
  EXPECT_FALSE(body.ok);
  size_t errors = 0;
  for (const Diagnostic& d : body.diags) errors += d.severity == Severity::kError;
  EXPECT_EQ(errors, 2u);  // Cedar's two: the operand, and the condition's type
  // A link to no template: Compile's message.
  Result missing = CheckLinked(tmpl, {TemplateLink{"x", "l", EntityUid{"User", "a"}, std::nullopt}});
  EXPECT_FALSE(missing.ok);
}

// The types the checker gives each written expression (an editor's hover):
// by span, each type once, the checker's own nodes (the scope as a test,
// the conditions joined) left out.
TEST(ExpressionTypes, AreTheCheckersTypesOfWhatIsWritten) {
  SourceFile schema_source("schema.cedarschema", kSchema);
  absl::StatusOr<Schema> schema = Schema::Parse(schema_source, {}, nullptr);
  ASSERT_THAT(schema, IsOk());
  const std::string text =
      "permit (principal, action == Action::\"view\", resource == Task::\"t\")\n"
      "when { principal.level > 2 && principal.roles.contains(\"a\") };";
  std::vector<ExpressionType> types = ExpressionTypes(*schema, SourceFile("p.cedar", text), {});
  std::vector<std::string> shown;
  for (const ExpressionType& t : types) {
    std::string line = text.substr(t.begin, t.end - t.begin) + ":";
    for (const std::string& type : t.types) line += " " + type;
    shown.push_back(line);
  }
  EXPECT_EQ(shown, (std::vector<std::string>{
                       "Action::\"view\": Action",
                       "Task::\"t\": Task",
                       "principal.level > 2 && principal.roles.contains(\"a\"): Bool",
                       "principal.level > 2: Bool",
                       "principal.level: Long",
                       "principal: User",
                       "2: Long",
                       "principal.roles.contains(\"a\"): Bool",
                       "principal.roles: Set<String>",
                       "principal: User",
                       "\"a\": String",
                   }));
  // A policy that does not parse has none; one that does not validate has
  // those the checker reached.
  EXPECT_TRUE(ExpressionTypes(*schema, SourceFile("p.cedar", "permit (principal"), {}).empty());
  std::vector<ExpressionType> partial =
      ExpressionTypes(*schema, SourceFile("p.cedar", "permit (principal, action, resource) when { principal.nope == 1 };"), {});
  ASSERT_FALSE(partial.empty());
}

}  // namespace
}  // namespace charter
