// The language's constructs and what Cedar's semantics make of them (see
// ../shared/research/cedar-language.md), written once: the public Engine (the
// VM) decides every case in tests/core/api/language_test.cc, and the reference
// interpreter, checked against the VM, in tests/core/interp/interp_test.cc.
#ifndef CHARTER_TESTS_API_LANGUAGE_CASES_H_
#define CHARTER_TESTS_API_LANGUAGE_CASES_H_

#include <string>
#include <utility>
#include <vector>

namespace charter::cases {

// The entities the cases read: alice, her team and organization, a task.
inline constexpr char kLanguageEntities[] = R"([
  {"uid": {"type": "User", "id": "alice"},
   "attrs": {"level": 3, "name": "alice@example.com", "roles": ["admin", "dev"],
             "profile": {"team": "ml", "age": 30}, "big": 9007199254740991,
             "manager": {"__entity": {"type": "User", "id": "bob"}},
             "addr": {"__extn": {"fn": "ip", "arg": "192.168.1.7"}},
             "limit": {"__extn": {"fn": "decimal", "arg": "12.5"}},
             "since": {"__extn": {"fn": "datetime", "arg": "2024-05-01T10:00:00Z"}}},
   "parents": [{"type": "Team", "id": "ml"}],
   "tags": {"env": "prod", "tier": 2}},
  {"uid": {"type": "Team", "id": "ml"}, "attrs": {}, "parents": [{"type": "Org", "id": "acme"}]},
  {"uid": {"type": "NS::Task", "id": "t1"}, "attrs": {"owner": {"__entity": {"type": "User", "id": "alice"}}},
   "parents": []}
])";

// `permit(principal, action, resource) when { condition };` decided for
// alice viewing task t1: "true" (allowed), "false", or "error: " and the
// message of the error that skipped the policy.
struct LanguageCase {
  const char* condition;
  const char* outcome;
};

inline constexpr LanguageCase kLanguageCases[] = {
    // literals and the condition's type
    {"true", "true"},
    {"false", "false"},
    {"1", "error: type error: expected bool, got long"},
    {"\"a\" == \"a\"", "true"},
    {"NS::Task::\"t1\" == resource", "true"},
    // checked 64-bit arithmetic
    {"1 + 2 * 3 == 7", "true"},
    {"10 - 20 == -10", "true"},
    {"-principal.level == -3", "true"},
    {"--3 == 3", "true"},
    {"9223372036854775807 + 1 == 0", "error: integer overflow while attempting to add the values 9223372036854775807 and 1"},
    {"-9223372036854775808 - 1 == 0", "error: integer overflow while attempting to subtract the values -9223372036854775808 and 1"},
    {"9223372036854775807 * 2 == 0", "error: integer overflow while attempting to multiply the values 9223372036854775807 and 2"},
    {"-(-9223372036854775808) == 0", "error: integer overflow while attempting to negate the value -9223372036854775808"},
    {"-9223372036854775808 == -9223372036854775807 - 1", "true"},
    {"\"a\" + 1 == 1", "error: type error: expected long, got string"},
    {"\"a\" * 2 == 1", "error: type error: expected long, got string"},
    {"1 - \"a\" == 1", "error: type error: expected long, got string"},
    // comparisons of longs, datetimes and durations
    {"1 < 2 && 2 <= 2 && 3 > 2 && 3 >= 3", "true"},
    {"2 < 1", "false"},
    {"principal.level > 5", "false"},
    {"\"a\" < \"b\"", "error: type error: expected long, got string"},
    {"1 < true", "error: type error: expected long, got bool"},
    {"datetime(\"2024-01-01\") < principal.since", "true"},
    {"duration(\"1h\") >= duration(\"60m\")", "true"},
    {"duration(\"1h\") >= 1", "error: type error: expected duration, got long"},
    // equality is total: values of different types are unequal
    {"1 == \"1\"", "false"},
    {"[1, 2] == [2, 1, 1]", "true"},
    {"{a: 1, b: [true]} == {b: [true], a: 1}", "true"},
    {"{a: 1} == {a: 1, b: 2}", "false"},
    {"principal == User::\"alice\"", "true"},
    {"principal != User::\"bob\"", "true"},
    // set methods and `in` a set
    {"principal.roles.contains(\"admin\")", "true"},
    {"principal.roles.contains(1)", "false"},
    {"principal.roles.containsAll([\"dev\", \"admin\"])", "true"},
    {"principal.roles.containsAll([\"dev\", \"ops\"])", "false"},
    {"principal.roles.containsAny([\"ops\", \"dev\"])", "true"},
    {"[].isEmpty() && ![1].isEmpty()", "true"},
    {"\"abc\".contains(\"a\")", "error: type error: expected set, got string"},
    {"[1].containsAll(1)", "error: type error: expected set, got long"},
    {"principal in [Team::\"ml\", Team::\"other\"]", "true"},
    {"principal in [Team::\"other\"]", "false"},
    {"principal in [Team::\"ml\", 1]", "error: type error: expected set of entities, got long"},
    {"principal.roles.containsAll([\"admin\", \"x\"])", "false"},
    {"principal.roles.containsAny([\"x\", \"dev\"])", "true"},
    {"[].isEmpty()", "true"},
    // attributes, records and `has`
    {"{a: 1, \"b c\": \"x\"}[\"b c\"] == \"x\"", "true"},
    {"{a: 1}.b == 1", "error: record does not have the attribute `b`"},
    {"{a: 1} has a && !({a: 1} has b)", "true"},
    {"principal.profile.team == \"ml\"", "true"},
    {"principal has profile.team && !(principal has profile.nope)", "true"},
    {"principal has nope.team", "false"},
    {"principal[\"profile\"][\"age\"] == 30", "true"},
    {"principal.nope", "error: `User::\"alice\"` does not have the attribute `nope`"},
    {"principal.profile.nope", "error: record does not have the attribute `nope`"},
    {"principal.manager.level == 1", "error: entity `User::\"bob\"` does not exist"},
    {"principal.level.x == 1", "error: type error: expected record or entity, got long"},
    {"principal has profile.team", "true"},
    {"principal has profile.nope", "false"},
    {"principal has level.x", "error: type error: expected record or entity, got long"},
    {"principal.manager has level", "false"},
    {"1 has a", "error: type error: expected record or entity, got long"},
    {"context has a", "false"},
    // `like` patterns
    {"principal.name like \"*@example.com\"", "true"},
    {"principal.name like \"alice*\"", "true"},
    {"principal.name like \"*ice@*.com\"", "true"},
    {"principal.name like \"bob*\"", "false"},
    {"\"a*b\" like \"a\\*b\"", "true"},
    {"\"axb\" like \"a\\*b\"", "false"},
    {"\"\" like \"*\"", "true"},
    {"\"ab\" like \"a*b*\"", "true"},
    {"\"aXbXb\" like \"a*b\"", "true"},
    {"\"aa\" like \"a*a*a\"", "false"},
    {"\"caf\\u{e9}\" like \"caf*\"", "true"},
    {"1 like \"*\"", "error: type error: expected string, got long"},
    {"principal.name like \"*ice*exa*\"", "true"},
    {"principal.name like \"alice\"", "false"},
    {"\"aaa\" like \"*a*a*a*\"", "true"},
    {"\"aa\" like \"*a*a*a*\"", "false"},
    {"\"日本語\" like \"日*語\"", "true"},
    // `in` the hierarchy, and `is`
    {"principal is User", "true"},
    {"resource is NS::Task", "true"},
    {"resource is Task", "false"},
    {"principal is User in Team::\"ml\"", "true"},
    {"principal is Team in 1", "false"},
    {"principal is User in 1", "error: type error: expected entity or set of entities, got long"},
    {"1 is User", "error: type error: expected entity, got long"},
    {"principal in Team::\"ml\"", "true"},
    {"principal in Org::\"acme\"", "true"},
    {"principal in principal", "true"},
    {"User::\"zed\" in User::\"zed\"", "true"},
    {"User::\"zed\" in Team::\"ml\"", "false"},
    {"principal in [Team::\"x\", Org::\"acme\"]", "true"},
    {"1 in Team::\"ml\"", "error: type error: expected entity, got long"},
    {"principal in 1", "error: type error: expected entity or set of entities, got long"},
    {"principal is User in Org::\"acme\"", "true"},
    // tags
    {"principal.hasTag(\"env\") && principal.getTag(\"env\") == \"prod\"", "true"},
    {"principal.hasTag(\"nope\")", "false"},
    {"User::\"ghost\".hasTag(\"env\")", "false"},
    {"principal.getTag(\"nope\") == 1", "error: `User::\"alice\"` does not have the tag `nope`"},
    {"User::\"ghost\".getTag(\"env\") == 1", "error: entity `User::\"ghost\"` does not exist"},
    // `&&`, `||`, `!` and `if`: short-circuit and bool-typed
    {"if principal.level == 3 then true else principal.nope", "true"},
    {"if 1 then true else false", "error: type error: expected bool, got long"},
    {"(if false then 1 else 2) == 2", "true"},
    {"false && 1", "false"},
    {"true || 1", "true"},
    {"true && 1", "error: type error: expected bool, got long"},
    {"1 && true", "error: type error: expected bool, got long"},
    {"!(1 == 2)", "true"},
    {"!1", "error: type error: expected bool, got long"},
    {"if principal.level > 2 then true else 1", "true"},
    // extension types and functions, from text and from entity JSON
    {"ip(\"10.0.0.1\").isIpv4() && ip(\"::1\").isLoopback()", "true"},
    {"ip(\"10.1.2.3\").isInRange(ip(\"10.0.0.0/8\"))", "true"},
    {"ip(\"10.0.0.1/24\") == ip(\"10.0.0.0/24\")", "false"},
    {"decimal(\"1.0\") == decimal(\"1.00\")", "true"},
    {"decimal(\"1.5\").lessThan(decimal(\"2.25\"))", "true"},
    {"datetime(\"2024-01-01\") < datetime(\"2024-01-01T00:00:01Z\")", "true"},
    {"duration(\"1h30m\").toMinutes() == 90", "true"},
    {"datetime(\"2024-01-02T03:04:05Z\").toDate() == datetime(\"2024-01-02\")", "true"},
    {"datetime(\"2024-01-01\").offset(duration(\"1d\")) == datetime(\"2024-01-02\")", "true"},
    {"ip(\"not an ip\").isIpv4()", "error: invalid IP address `not an ip`"},
    {"decimal(1) == decimal(\"1.0\")", "error: type error: expected string, got long"},
    {"duration(\"1h\") < datetime(\"2024-01-01\")", "error: type error: expected duration, got datetime"},
    {"principal.addr.isInRange(ip(\"192.168.0.0/16\"))", "true"},
    {"principal.limit == decimal(\"12.50\")", "true"},
    {"principal.since > datetime(\"2024-01-01\")", "true"},
    {"ip(\"nope\").isIpv4()", "error: invalid IP address `nope`"},
    {"principal.limit.greaterThan(decimal(\"12.4999\"))", "true"},
    {"principal.since.offset(duration(\"1d\")).toDate() == datetime(\"2024-05-02\")", "true"},
};

// Flat chains far longer than any stack could recurse over (`false || false
// || ...`, `0 + 1 + 1 ...`, `true && true && ...`), as condition and outcome.
inline std::vector<std::pair<std::string, std::string>> LongChainCases() {
  constexpr int kLinks = 50000;
  std::string ors = "false";
  std::string sum = "0";
  std::string ands = "true";
  for (int i = 0; i < kLinks; ++i) {
    ors += " || false";
    sum += " + 1";
    ands += " && true";
  }
  return {
      {ors + " || principal.level == 3", "true"},
      {ors + " || true", "true"},
      {ors, "false"},
      {ors + " || 1", "error: type error: expected bool, got long"},
      {sum + " == " + std::to_string(kLinks), "true"},
      {ands + " && principal.nope", "error: `User::\"alice\"` does not have the attribute `nope`"},
  };
}

}  // namespace charter::cases

#endif  // CHARTER_TESTS_API_LANGUAGE_CASES_H_
