// charter/prove.h: each property's answers on small policy sets, the
// reasons for "unknown", and counterexamples that the engine decides as
// claimed (the differential test, differential_main.cc, covers generated
// sets).
#include "charter/prove.h"

#include <map>
#include <string>
#include <vector>

#include "charter/charter.h"
#include "charter/schema.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace charter {
namespace {

using ::testing::HasSubstr;

constexpr const char* kSchema = R"(
entity Org;
entity Team in [Org];
entity User in [Team] { admin: Bool, rank: Long, boss?: User, name: String, tags: Set<String> };
action view appliesTo { principal: User, resource: Org, context: { n: Long, ok?: Bool } };
action edit appliesTo { principal: User, resource: Team };
)";

Schema ParseSchema(const char* text) {
  absl::StatusOr<Schema> s = Schema::Parse(SourceFile("s.cedarschema", text), {}, nullptr);
  EXPECT_TRUE(s.ok()) << s.status();
  return *std::move(s);
}

Schema MakeSchema() { return ParseSchema(kSchema); }

std::vector<ProofAnswer> ProveWith(const char* schema_text, ProofProperty p, const std::string& policies,
                                   ProveOptions options) {
  Schema schema = ParseSchema(schema_text);
  absl::StatusOr<std::vector<ProofAnswer>> a = Prove(p, {SourceFile("p.cedar", policies)}, schema, options);
  EXPECT_TRUE(a.ok()) << a.status();
  return a.ok() ? *a : std::vector<ProofAnswer>{};
}

std::vector<ProofAnswer> ProveOne(ProofProperty p, const std::string& policies, ProveOptions options = {}) {
  return ProveWith(kSchema, p, policies, options);
}

ProveOptions View() {
  ProveOptions o;
  o.action = EntityUid{"Action", "view"};
  return o;
}

// The counterexample loads with the schema and the policies decide it as `allowed`.
void ExpectDecidesWith(const char* schema_text, const std::string& policies, const Counterexample& c,
                       bool allowed) {
  Schema schema = ParseSchema(schema_text);
  absl::StatusOr<Entities> e = Entities::FromJson(c.entities_json, schema);
  ASSERT_TRUE(e.ok()) << e.status() << "\n" << c.entities_json;
  absl::StatusOr<Request> r = Request::FromJson(c.request_json, schema);
  ASSERT_TRUE(r.ok()) << r.status() << "\n" << c.request_json;
  CompileOptions options;
  options.schema = &schema;
  absl::StatusOr<Bundle> b = Compile(SourceFile("p.cedar", policies), options, nullptr);
  ASSERT_TRUE(b.ok()) << b.status();
  absl::StatusOr<Engine> engine = Engine::Create(*std::move(b));
  ASSERT_TRUE(engine.ok());
  EXPECT_EQ(engine->Authorize(*r, *e).allowed, allowed) << c.entities_json << "\n" << c.request_json;
}

void ExpectDecides(const std::string& policies, const Counterexample& c, bool allowed) {
  ExpectDecidesWith(kSchema, policies, c, allowed);
}

TEST(Prove, EverySignatureOfTheSchema) {
  std::vector<ProofAnswer> a = ProveOne(ProofProperty::kAlwaysDenies, "forbid(principal, action, resource);");
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0].signature.ToString(), "User, Action::\"edit\", Team");
  EXPECT_EQ(a[1].signature.ToString(), "User, Action::\"view\", Org");
  for (const ProofAnswer& x : a) EXPECT_EQ(x.result, ProofResult::kHolds) << x.reason;
}

TEST(Prove, AlwaysAllowsFailsWithARealCounterexample) {
  const std::string p = "permit(principal, action, resource) when { principal.admin };";
  std::vector<ProofAnswer> a = ProveOne(ProofProperty::kAlwaysAllows, p, View());
  ASSERT_EQ(a.size(), 1u);
  ASSERT_EQ(a[0].result, ProofResult::kDoesNotHold) << a[0].reason;
  ASSERT_EQ(a[0].counterexamples.size(), 1u);
  ExpectDecides(p, a[0].counterexamples[0], false);
  EXPECT_THAT(a[0].counterexamples[0].decision_json, HasSubstr("\"decision\":\"deny\""));
}

TEST(Prove, ForbidOverPermitAndErrorsSkipThePolicy) {
  // The forbid errs when the principal is not in the store (its attribute
  // cannot be read): an erring forbid is skipped, so this allows then.
  const std::string p =
      "permit(principal, action, resource);\n"
      "forbid(principal, action, resource) when { principal.rank > 0 };";
  std::vector<ProofAnswer> a = ProveOne(ProofProperty::kAlwaysDenies, p, View());
  ASSERT_EQ(a[0].result, ProofResult::kDoesNotHold);
  ExpectDecides(p, a[0].counterexamples[0], true);
  std::vector<ProofAnswer> b = ProveOne(ProofProperty::kAlwaysAllows, p, View());
  ASSERT_EQ(b[0].result, ProofResult::kDoesNotHold);
  ExpectDecides(p, b[0].counterexamples[0], false);
}

TEST(Prove, OverflowIsAnError) {
  const std::string p = "permit(principal, action, resource) when { principal has boss && principal.boss.rank + 1 > 0 };";
  std::vector<ProofAnswer> a = ProveOne(ProofProperty::kNeverErrors, p, View());
  ASSERT_EQ(a[0].result, ProofResult::kDoesNotHold) << a[0].reason;
  EXPECT_THAT(a[0].counterexamples[0].decision_json, HasSubstr("\"errors\":[{"));
  // Guarded: no error is possible (rank < 100 before the addition).
  const std::string q =
      "permit(principal, action == Action::\"view\", resource) when { context.n < 100 && context.n + 1 > 0 };";
  std::vector<ProofAnswer> b = ProveOne(ProofProperty::kNeverErrors, q, View());
  EXPECT_EQ(b[0].result, ProofResult::kHolds) << b[0].reason;
}

TEST(Prove, HierarchyThroughATypeBetween) {
  // A user is in an Org only through a Team: the counterexample needs one.
  const std::string p = "permit(principal, action, resource) when { principal in resource };";
  std::vector<ProofAnswer> a = ProveOne(ProofProperty::kAlwaysDenies, p, View());
  ASSERT_EQ(a[0].result, ProofResult::kDoesNotHold) << a[0].reason;
  EXPECT_THAT(a[0].counterexamples[0].entities_json, HasSubstr("\"type\":\"Team\""));
  ExpectDecides(p, a[0].counterexamples[0], true);
}

TEST(Prove, TransitivityHolds) {
  // Whoever is in the resource's Team... a user in Team t that is in Org o
  // is in o: so this forbid covers the permit whenever the permit applies.
  const std::string p =
      "permit(principal, action == Action::\"view\", resource) when { principal in Team::\"t\" && Team::\"t\" in resource };\n"
      "forbid(principal, action, resource) when { principal in resource };";
  std::vector<ProofAnswer> a = ProveOne(ProofProperty::kAlwaysDenies, p, View());
  EXPECT_EQ(a[0].result, ProofResult::kHolds) << a[0].reason;
}

TEST(Prove, OutsideTheEncodingIsUnknownWithWhere) {
  const std::string p = "permit(principal, action, resource)\n  when { principal.name like \"a*\" };";
  std::vector<ProofAnswer> a = ProveOne(ProofProperty::kAlwaysDenies, p, View());
  ASSERT_EQ(a[0].result, ProofResult::kUnknown);
  EXPECT_EQ(a[0].reason, "`like` in policy `policy0` at p.cedar:2:10 is outside the encoding");
  const std::string q = "permit(principal, action, resource) when { principal.tags.contains(\"x\") };";
  std::vector<ProofAnswer> b = ProveOne(ProofProperty::kAlwaysDenies, q, View());
  ASSERT_EQ(b[0].result, ProofResult::kUnknown);
  EXPECT_THAT(b[0].reason, HasSubstr("the method `.contains()` in policy `policy0` at p.cedar:1:"));
  std::vector<ProofAnswer> d = ProveOne(ProofProperty::kAlwaysDenies,
      "permit(principal, action, resource) when { principal.tags == principal.tags };", View());
  ASSERT_EQ(d[0].result, ProofResult::kUnknown);
  EXPECT_THAT(d[0].reason, HasSubstr("the attribute `tags` of type `Set<String>`"));
  // A policy that cannot apply to the signature does not matter.
  std::vector<ProofAnswer> c = ProveOne(ProofProperty::kAlwaysDenies,
                                   "permit(principal, action == Action::\"edit\", resource) when { principal.tags.contains(\"x\") };",
                                   View());
  EXPECT_EQ(c[0].result, ProofResult::kHolds) << c[0].reason;
}

TEST(Prove, StringsAndOptionalContext) {
  const std::string p =
      "permit(principal, action == Action::\"view\", resource) when { principal.name == \"root\" && context has ok && context.ok };";
  std::vector<ProofAnswer> a = ProveOne(ProofProperty::kAlwaysDenies, p, View());
  ASSERT_EQ(a[0].result, ProofResult::kDoesNotHold) << a[0].reason;
  EXPECT_THAT(a[0].counterexamples[0].entities_json, HasSubstr("\"name\":\"root\""));
  ExpectDecides(p, a[0].counterexamples[0], true);
}

TEST(Prove, ChangeReview) {
  Schema schema = MakeSchema();
  const std::string old_p = "permit(principal, action, resource) when { principal.admin };";
  const std::string new_p = "permit(principal, action, resource) when { principal.admin || principal.rank > 5 };";
  ProveOptions o = View();
  auto run = [&](ProofProperty p, const std::string& a, const std::string& b) {
    absl::StatusOr<std::vector<ProofAnswer>> r =
        ProveChange(p, {SourceFile("old.cedar", a)}, {SourceFile("new.cedar", b)}, schema, o);
    EXPECT_TRUE(r.ok()) << r.status();
    return r->front();
  };
  EXPECT_EQ(run(ProofProperty::kImplies, old_p, new_p).result, ProofResult::kDoesNotHold);
  EXPECT_EQ(run(ProofProperty::kImplies, new_p, old_p).result, ProofResult::kHolds);
  EXPECT_EQ(run(ProofProperty::kEquivalent, old_p, new_p).result, ProofResult::kDoesNotHold);
  EXPECT_EQ(run(ProofProperty::kEquivalent, old_p, "permit(principal, action, resource) when { !!principal.admin };")
                .result,
            ProofResult::kHolds);
  ProofAnswer c = run(ProofProperty::kCompare, old_p, new_p);
  EXPECT_EQ(c.result, ProofResult::kDoesNotHold);
  EXPECT_EQ(c.reason, "more permissive");
  ASSERT_EQ(c.counterexamples.size(), 1u);
  EXPECT_THAT(c.counterexamples[0].decision_json, HasSubstr("\"old\":{\"decision\":\"deny\""));
  ProofAnswer d = run(ProofProperty::kCompare, new_p, old_p);
  EXPECT_EQ(d.result, ProofResult::kHolds);
  EXPECT_EQ(d.reason, "less permissive");
}

TEST(Prove, Disjoint) {
  Schema schema = MakeSchema();
  ProveOptions o = View();
  auto run = [&](const std::string& a, const std::string& b) {
    absl::StatusOr<std::vector<ProofAnswer>> r =
        ProveChange(ProofProperty::kDisjoint, {SourceFile("a.cedar", a)}, {SourceFile("b.cedar", b)}, schema, o);
    EXPECT_TRUE(r.ok()) << r.status();
    return r->front();
  };
  ProofAnswer held = run("permit(principal, action, resource) when { principal.rank > 5 };",
                         "permit(principal, action, resource) when { principal.rank < 3 };");
  EXPECT_EQ(held.result, ProofResult::kHolds) << held.reason;
  ProofAnswer both = run("permit(principal, action, resource) when { principal.rank > 5 };",
                         "permit(principal, action, resource) when { principal.rank < 7 };");
  ASSERT_EQ(both.result, ProofResult::kDoesNotHold);
  ASSERT_EQ(both.counterexamples.size(), 1u);
  // Both sets allow it; a small rank (6), not 2^63-1.
  EXPECT_THAT(both.counterexamples[0].decision_json, HasSubstr("\"new\":{\"decision\":\"allow\""));
  EXPECT_THAT(both.counterexamples[0].entities_json, HasSubstr("\"rank\":6"));
  EXPECT_FALSE(Prove(ProofProperty::kDisjoint, {SourceFile("p.cedar", "permit(principal, action, resource);")},
                     schema, o)
                   .ok());
}

// The answers of a policy property, by policy id (the one signature of `view`).
std::map<std::string, ProofAnswer> PerPolicy(ProofProperty p, const std::string& policies, ProveOptions o = View()) {
  std::map<std::string, ProofAnswer> out;
  for (ProofAnswer& a : ProveOne(p, policies, o)) out[a.policy] = std::move(a);
  return out;
}

constexpr const char* kPolicies = R"(
@id("admins") permit(principal, action == Action::"view", resource) when { principal in resource && principal.admin };
@id("members") permit(principal, action == Action::"view", resource) when { principal in resource };
@id("never") permit(principal, action == Action::"view", resource) when { principal.rank > 5 && principal.rank < 3 };
@id("always") permit(principal, action == Action::"view", resource) unless { false };
@id("bosses") permit(principal, action == Action::"view", resource) when { principal has boss };
@id("no-bosses") forbid(principal, action == Action::"view", resource) when { principal has boss };
@id("edit") permit(principal, action == Action::"edit", resource);
)";

TEST(Prove, Vacuous) {
  std::map<std::string, ProofAnswer> a = PerPolicy(ProofProperty::kVacuous, kPolicies);
  // `edit` cannot match a `view` signature: left out of this one, and (only
  // `view` asked for) answered without a signature.
  ASSERT_EQ(a.size(), 7u);
  EXPECT_EQ(a["never"].result, ProofResult::kHolds);
  EXPECT_THAT(a["never"].reason, HasSubstr("matches no request"));
  EXPECT_EQ(a["always"].result, ProofResult::kHolds);
  EXPECT_THAT(a["always"].reason, HasSubstr("matches every request"));
  EXPECT_EQ(a["edit"].result, ProofResult::kHolds);
  EXPECT_TRUE(a["edit"].signature.principal_type.empty());
  ASSERT_EQ(a["members"].result, ProofResult::kDoesNotHold);
  ASSERT_EQ(a["members"].counterexamples.size(), 2u);
  EXPECT_EQ(a["members"].counterexamples[0].label, "matched");
  EXPECT_THAT(a["members"].counterexamples[0].decision_json,
              HasSubstr("\"policy\":{\"id\":\"members\",\"outcome\":\"satisfied\"}"));
  EXPECT_EQ(a["members"].counterexamples[1].label, "not matched");
  EXPECT_THAT(a["members"].counterexamples[1].decision_json, HasSubstr("\"outcome\":\"not-satisfied\""));
}

TEST(Prove, ShadowedRedundantOverridden) {
  std::map<std::string, ProofAnswer> sh = PerPolicy(ProofProperty::kShadowed, kPolicies);
  EXPECT_EQ(sh["admins"].result, ProofResult::kHolds) << sh["admins"].reason;  // `members` and `always` cover it
  EXPECT_EQ(sh["members"].result, ProofResult::kHolds);                       // `always` covers it
  EXPECT_EQ(sh["always"].result, ProofResult::kDoesNotHold);
  EXPECT_EQ(sh["no-bosses"].result, ProofResult::kDoesNotHold);  // the only forbid
  std::map<std::string, ProofAnswer> ov = PerPolicy(ProofProperty::kOverridden, kPolicies);
  EXPECT_EQ(ov.count("no-bosses"), 0u);  // a forbid: not asked
  EXPECT_EQ(ov["bosses"].result, ProofResult::kHolds) << ov["bosses"].reason;
  ASSERT_EQ(ov["always"].result, ProofResult::kDoesNotHold);
  EXPECT_THAT(ov["always"].counterexamples[0].decision_json, HasSubstr("\"decision\":\"allow\""));
  std::map<std::string, ProofAnswer> re = PerPolicy(ProofProperty::kRedundant, kPolicies);
  EXPECT_EQ(re["bosses"].result, ProofResult::kHolds);
  EXPECT_EQ(re["admins"].result, ProofResult::kHolds);
  ASSERT_EQ(re["no-bosses"].result, ProofResult::kDoesNotHold);
  EXPECT_THAT(re["no-bosses"].counterexamples[0].decision_json, HasSubstr("\"withoutPolicy\":\"allow\""));
  ASSERT_EQ(re["always"].result, ProofResult::kDoesNotHold);
  // One policy.
  ProveOptions o = View();
  o.policy_id = "bosses";
  std::vector<ProofAnswer> one = ProveOne(ProofProperty::kOverridden, kPolicies, o);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].policy, "bosses");
  Schema schema = MakeSchema();
  o.policy_id = "no-bosses";
  EXPECT_FALSE(Prove(ProofProperty::kOverridden, {SourceFile("p.cedar", kPolicies)}, schema, o).ok());
  o.policy_id = "nope";
  EXPECT_FALSE(Prove(ProofProperty::kShadowed, {SourceFile("p.cedar", kPolicies)}, schema, o).ok());
}

// An attribute of an enumerated entity type (not in a hierarchy) is one of
// its choices; one in a hierarchy stays outside the encoding.
TEST(Prove, EnumeratedAttributes) {
  absl::StatusOr<Schema> schema = Schema::Parse(SourceFile("e.cedarschema", R"(
entity Kind enum ["admin", "workload"];
entity Host;
entity Identity { kind: Kind };
action run appliesTo { principal: Identity, resource: Host, context: { via?: Kind } };
)"),
                                                {}, nullptr);
  ASSERT_TRUE(schema.ok()) << schema.status();
  auto run = [&](ProofProperty p, const std::string& text) {
    absl::StatusOr<std::vector<ProofAnswer>> a = Prove(p, {SourceFile("p.cedar", text)}, *schema, {});
    EXPECT_TRUE(a.ok()) << a.status();
    return a.ok() && a->size() == 1 ? a->front() : ProofAnswer{};
  };
  const std::string set = R"(
permit(principal, action, resource) when { principal.kind != Kind::"workload" };
)";
  // Something is allowed: an admin; never a workload (both choices tried).
  ProofAnswer some = run(ProofProperty::kAlwaysDenies, set);
  ASSERT_EQ(some.result, ProofResult::kDoesNotHold) << some.reason;
  EXPECT_THAT(some.counterexamples[0].entities_json, HasSubstr("\"id\":\"admin\""));
  ProofAnswer admins = run(ProofProperty::kAlwaysDenies, set + "forbid(principal, action, resource) when { principal.kind == Kind::\"admin\" };");
  EXPECT_EQ(admins.result, ProofResult::kHolds) << admins.reason;
  // `!=` both choices: no third value.
  ProofAnswer third = run(ProofProperty::kAlwaysDenies, R"(
permit(principal, action, resource) when { principal.kind != Kind::"admin" && principal.kind != Kind::"workload" };
)");
  EXPECT_EQ(third.result, ProofResult::kHolds) << third.reason;
  ProofAnswer ctx = run(ProofProperty::kAlwaysDenies, R"(
permit(principal, action, resource) when { context has via && context.via == Kind::"workload" };
)");
  ASSERT_EQ(ctx.result, ProofResult::kDoesNotHold) << ctx.reason;
  EXPECT_THAT(ctx.counterexamples[0].request_json, HasSubstr("\"via\":{\"__entity\":{\"type\":\"Kind\",\"id\":\"workload\"}}"));
}

TEST(Prove, FaultsAreErrors) {
  Schema schema = MakeSchema();
  EXPECT_FALSE(Prove(ProofProperty::kAlwaysAllows, {SourceFile("p.cedar", "permit(principal, action, resource) when { principal.nope };")},
                     schema, {})
                   .ok());
  ProveOptions o;
  o.principal_type = "Nobody";
  EXPECT_FALSE(Prove(ProofProperty::kAlwaysAllows, {SourceFile("p.cedar", "permit(principal, action, resource);")},
                     schema, o)
                   .ok());
}


// Records read through their fields, datetimes compared, action groups,
// `where`, and forbids outside the encoding left out (issue 36, point 3).
constexpr const char* kContractSchema = R"(
entity Team;
entity Kind enum ["person", "robot"];
entity Conn { contract: { owner?: User, review: datetime, meta: { ok: Bool, tags: Set<String> } } };
entity User in [Team] { conn: Conn, kind: Kind };
action write;
action edit, del in [write] appliesTo { principal: User, resource: Team, context: { now: datetime } };
)";

Schema ContractSchema() { return ParseSchema(kContractSchema); }

std::vector<ProofAnswer> ProveContract(ProofProperty p, const std::string& policies, ProveOptions options = {}) {
  return ProveWith(kContractSchema, p, policies, options);
}

void ExpectContractDecides(const std::string& policies, const Counterexample& c, bool allowed) {
  ExpectDecidesWith(kContractSchema, policies, c, allowed);
}

ProveOptions Edit() {
  ProveOptions o;
  o.action = EntityUid{"Action", "edit"};
  return o;
}

TEST(Prove, RecordFieldsAndDatetimes) {
  const std::string p =
      "permit(principal, action == Action::\"edit\", resource) when { principal.conn.contract has owner && "
      "context.now <= principal.conn.contract.review && principal.conn.contract.meta.ok };";
  std::vector<ProofAnswer> a = ProveContract(ProofProperty::kAlwaysDenies, p, Edit());
  ASSERT_EQ(a.size(), 1u);
  ASSERT_EQ(a[0].result, ProofResult::kDoesNotHold) << a[0].reason;
  const Counterexample& c = a[0].counterexamples[0];
  EXPECT_THAT(c.request_json, HasSubstr("{\"__extn\":{\"fn\":\"datetime\",\"arg\":\""));
  EXPECT_THAT(c.entities_json, HasSubstr("\"owner\":{\"__entity\""));
  EXPECT_THAT(c.entities_json, HasSubstr("\"meta\":{\"ok\":true,\"tags\":[]}"));
  ExpectContractDecides(p, c, true);
  // The same condition as a bound: the set allows nothing it does not.
  Schema schema = ContractSchema();
  absl::StatusOr<std::vector<ProofAnswer>> b =
      ProveChange(ProofProperty::kImplies, {SourceFile("bound.cedar", p)},
                  {SourceFile("p.cedar", p + "\nforbid(principal, action, resource) when { "
                                             "principal.conn.contract.review < context.now };")},
                  schema, Edit());
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ((*b)[0].result, ProofResult::kHolds) << (*b)[0].reason;
  // Past the review date nothing is allowed: `<` on datetimes.
  std::vector<ProofAnswer> d = ProveContract(
      ProofProperty::kAlwaysDenies,
      p + "\nforbid(principal, action, resource) when { principal.conn.contract.review < context.now };",
      [] {
        ProveOptions o = Edit();
        o.where.emplace_back("where.cedar",
                             "permit(principal, action, resource) when { principal.conn.contract.review < context.now };");
        return o;
      }());
  EXPECT_EQ(d[0].result, ProofResult::kHolds) << d[0].reason;
  // A record used as a whole is outside.
  std::vector<ProofAnswer> w = ProveContract(
      ProofProperty::kAlwaysDenies,
      "permit(principal, action, resource) when { principal.conn.contract == principal.conn.contract };", Edit());
  ASSERT_EQ(w[0].result, ProofResult::kUnknown);
  EXPECT_THAT(w[0].reason, HasSubstr("the record `contract` as a whole"));
}

TEST(Prove, ActionGroupsAndWhere) {
  const std::string p =
      "permit(principal, action in Action::\"write\", resource) when { principal in resource };\n"
      "forbid(principal, action in Action::\"write\", resource) when { principal.kind == Kind::\"robot\" };";
  ProveOptions o;
  o.action = EntityUid{"Action", "write"};
  o.where.emplace_back("where.cedar", "permit(principal, action, resource) when { principal.kind == Kind::\"robot\" };");
  std::vector<ProofAnswer> a = ProveContract(ProofProperty::kAlwaysDenies, p, o);
  ASSERT_EQ(a.size(), 2u);  // edit and del, the group's actions
  for (const ProofAnswer& x : a) EXPECT_EQ(x.result, ProofResult::kHolds) << x.reason;
  // Without the forbid a robot writes; the counterexample is one `where` allows.
  const std::string q = "permit(principal, action in Action::\"write\", resource) when { principal in resource };";
  std::vector<ProofAnswer> b = ProveContract(ProofProperty::kAlwaysDenies, q, o);
  ASSERT_EQ(b.size(), 2u);
  ASSERT_EQ(b[0].result, ProofResult::kDoesNotHold) << b[0].reason;
  EXPECT_THAT(b[0].counterexamples[0].entities_json, HasSubstr("\"kind\":{\"__entity\":{\"type\":\"Kind\",\"id\":\"robot\"}}"));
  ExpectContractDecides(q, b[0].counterexamples[0], true);
  // Without `where`, a person's request is a counterexample too.
  o.where.clear();
  std::vector<ProofAnswer> c = ProveContract(ProofProperty::kAlwaysDenies, p, o);
  EXPECT_EQ(c[0].result, ProofResult::kDoesNotHold) << c[0].reason;
  // A `where` outside the encoding makes every answer unknown.
  o.where.emplace_back("where.cedar", "permit(principal, action, resource) when { principal.conn.contract.meta.tags.contains(\"x\") };");
  std::vector<ProofAnswer> d = ProveContract(ProofProperty::kAlwaysDenies, p, o);
  EXPECT_EQ(d[0].result, ProofResult::kUnknown);
}

TEST(Prove, ForbidsOutsideTheEncodingAreLeftOutWhereSound) {
  const std::string outside = "forbid(principal, action, resource) when { principal.conn.contract.meta.tags.contains(\"x\") };";
  // Holds without the forbid, so with it.
  const std::string p = "permit(principal, action, resource) when { principal.kind == Kind::\"robot\" };\n"
                        "forbid(principal, action, resource) when { principal.kind == Kind::\"robot\" };\n" + outside;
  std::vector<ProofAnswer> a = ProveContract(ProofProperty::kAlwaysDenies, p, Edit());
  EXPECT_EQ(a[0].result, ProofResult::kHolds) << a[0].reason;
  EXPECT_THAT(a[0].reason, HasSubstr("even without `policy2` (outside the encoding, left out"));
  // A counterexample without it that it does not deny is a real one.
  const std::string q = "permit(principal, action, resource) when { principal in resource };\n" + outside;
  std::vector<ProofAnswer> b = ProveContract(ProofProperty::kAlwaysDenies, q, Edit());
  ASSERT_EQ(b[0].result, ProofResult::kDoesNotHold) << b[0].reason;
  ExpectContractDecides(q, b[0].counterexamples[0], true);
  // One it denies proves nothing: unknown. (Every request here: a principal
  // outside the resource, or one whose tags are the default, empty.)
  const std::string r = "permit(principal, action, resource);\n"
                        "forbid(principal, action, resource) unless { principal in resource && "
                        "principal.conn.contract.meta.tags.contains(\"x\") };";
  std::vector<ProofAnswer> c = ProveContract(ProofProperty::kAlwaysDenies, r, Edit());
  ASSERT_EQ(c[0].result, ProofResult::kUnknown);
  EXPECT_THAT(c[0].reason, HasSubstr("does not break it with them"));
  // Properties that a forbid can make fail never leave it out.
  std::vector<ProofAnswer> d = ProveContract(ProofProperty::kNeverErrors, p, Edit());
  ASSERT_EQ(d[0].result, ProofResult::kUnknown);
  EXPECT_THAT(d[0].reason, HasSubstr("`.contains()` in policy `policy2`"));
  std::vector<ProofAnswer> e = ProveContract(ProofProperty::kAlwaysAllows, p, Edit());
  EXPECT_EQ(e[0].result, ProofResult::kUnknown);
}

}  // namespace
}  // namespace charter
