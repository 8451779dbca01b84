// Cedar's JSON policy format -> AST. The main check is against Cedar itself:
// data/oracle_pairs.jsonl holds policy texts with the JSON cedar-wasm makes
// of them (data/make_oracle_pairs.js writes it), and each JSON must read into
// the same tree as the text parses into. Then policy sets, template links,
// and the diagnostics (code, message, underlined text) of faulty input.
#include "policy_json/policy_json.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "charter/compiler.h"
#include "charter/diagnostics.h"
#include "gtest/gtest.h"
#include "json/json.h"
#include "syntax/parser.h"

namespace charter::internal {
namespace {

using ast::Expr;

// --- an AST printer that ignores spans ------------------------------------
// Records and annotations print sorted (their order has no meaning), and
// `action in [A]` prints as `action in A` (Cedar writes the one as the other).

std::string Quote(const std::string& s) {
  std::string out;
  json::AppendQuoted(&out, s);
  return out;
}

std::string Show(const Expr& e) {
  auto args = [&](size_t from) {
    std::string s;
    for (size_t i = from; i < e.args.size(); ++i) s += " " + Show(*e.args[i]);
    return s;
  };
  switch (e.kind) {
    case Expr::Kind::kBool: return e.b ? "true" : "false";
    case Expr::Kind::kLong: return std::to_string(e.i);
    case Expr::Kind::kString: return Quote(e.str);
    case Expr::Kind::kEntity: return e.entity.type + "::" + Quote(e.entity.id);
    case Expr::Kind::kVar: return std::string(ast::VarText(e.var));
    case Expr::Kind::kSlot: return "(slot " + e.str + ")";
    case Expr::Kind::kAttr: return "(. " + Show(*e.args[0]) + " " + Quote(e.str) + ")";
    case Expr::Kind::kHas: {
      std::string path = Quote(e.str);
      for (size_t i = 1; i < e.keys.size(); ++i) path += "." + Quote(e.keys[i]);
      return "(has " + Show(*e.args[0]) + " " + path + ")";
    }
    case Expr::Kind::kUnary:
      return std::string("(") + (e.uop == ast::UnaryOp::kNot ? "!" : "neg") + args(0) + ")";
    case Expr::Kind::kBinary: return "(" + std::string(ast::BinaryOpText(e.bop)) + args(0) + ")";
    case Expr::Kind::kIf: return "(if" + args(0) + ")";
    case Expr::Kind::kLike: {
      std::string p;
      for (const ast::PatternElem& el : e.pattern) p += el.wildcard ? "<*>" : "<" + Quote(el.literal) + ">";
      return "(like " + Show(*e.args[0]) + " " + p + ")";
    }
    case Expr::Kind::kIs: return "(is " + Show(*e.args[0]) + " " + e.str + args(1) + ")";
    case Expr::Kind::kSet: return "[" + args(0) + "]";
    case Expr::Kind::kRecord: {
      std::vector<std::string> fields;
      for (size_t i = 0; i < e.keys.size(); ++i) fields.push_back(Quote(e.keys[i]) + ": " + Show(*e.args[i]));
      std::sort(fields.begin(), fields.end());
      std::string s = "{";
      for (const std::string& f : fields) s += " " + f;
      return s + "}";
    }
    case Expr::Kind::kMethod: return "(." + e.str + args(0) + ")";
    case Expr::Kind::kCall: return "(" + e.str + args(0) + ")";
  }
  return "?";
}

std::string ShowEntity(const ast::EntityRef& e) { return e.type + "::" + Quote(e.id); }

std::string ShowScope(const ast::ScopeConstraint& c) {
  std::string target = c.slot ? "?slot" : ShowEntity(c.entity);
  switch (c.kind) {
    case ast::ScopeConstraint::Kind::kAny: return "any";
    case ast::ScopeConstraint::Kind::kEq: return "== " + target;
    case ast::ScopeConstraint::Kind::kIn: return "in " + target;
    case ast::ScopeConstraint::Kind::kIs: return "is " + c.type;
    case ast::ScopeConstraint::Kind::kIsIn: return "is " + c.type + " in " + target;
  }
  return "?";
}

std::string ShowAction(const ast::ActionConstraint& c) {
  switch (c.kind) {
    case ast::ActionConstraint::Kind::kAny: return "any";
    case ast::ActionConstraint::Kind::kEq: return "== " + ShowEntity(c.entities.at(0));
    case ast::ActionConstraint::Kind::kIn: return "in " + ShowEntity(c.entities.at(0));
    case ast::ActionConstraint::Kind::kInList: {
      if (c.entities.size() == 1) return "in " + ShowEntity(c.entities[0]);
      std::string s = "in [";
      for (const ast::EntityRef& e : c.entities) s += " " + ShowEntity(e);
      return s + "]";
    }
  }
  return "?";
}

std::string ShowPolicy(const ast::Policy& p, bool with_id = true) {
  std::string s = with_id ? "id " + Quote(p.id) + "\n" : "";
  std::vector<std::string> annotations;
  for (const ast::Annotation& a : p.annotations) annotations.push_back("@" + a.key + "(" + Quote(a.value) + ")");
  std::sort(annotations.begin(), annotations.end());
  for (const std::string& a : annotations) s += a + "\n";
  s += p.effect == ast::Effect::kPermit ? "permit\n" : "forbid\n";
  s += "principal " + ShowScope(p.principal) + "\n";
  s += "action " + ShowAction(p.action) + "\n";
  s += "resource " + ShowScope(p.resource) + "\n";
  for (const ast::Condition& c : p.conditions) s += (c.when ? "when " : "unless ") + Show(*c.body) + "\n";
  return s;
}

// --- parsing helpers -------------------------------------------------------

struct Read {
  explicit Read(std::string text, const CompileOptions& options = {})
      : source("policies.json", std::move(text)) {
    set = ParsePolicySetJson(source, options, &diags, &links);
  }
  std::string Underlined(size_t i = 0) const {
    const Span s = diags.items().at(i).span;
    return source.text().substr(s.begin, s.end - s.begin);
  }
  std::string Text(Span s) const { return source.text().substr(s.begin, s.end - s.begin); }
  const Diagnostic& diag(size_t i = 0) const { return diags.items().at(i); }
  std::string All() const {
    std::string out;
    for (size_t i = 0; i < diags.size(); ++i) {
      out += diag(i).code + " " + diag(i).message + " [" + Underlined(i) + "]\n";
    }
    return out;
  }
  std::string Shown() const {
    std::string s;
    for (const ast::Policy& p : set.policies) s += ShowPolicy(p);
    return s;
  }

  SourceFile source;
  Diagnostics diags;
  std::vector<TemplateLink> links;
  ast::PolicySet set;
};

std::string ParseText(const std::string& text, std::string* errors) {
  SourceFile source("policies.cedar", text);
  Diagnostics diags;
  ast::PolicySet set = ParsePolicySet(source, {}, &diags);
  for (const Diagnostic& d : diags.items()) *errors += d.code + " " + d.message + "\n";
  std::string s;
  for (const ast::Policy& p : set.policies) s += ShowPolicy(p);
  return s;
}

struct Pair {
  std::string text;
  std::string json;  // the JSON text of the policy
};

std::vector<Pair> LoadPairs() {
  std::ifstream in(std::string(CHARTER_SOURCE_DIR) + "/tests/core/policy_json/data/oracle_pairs.jsonl");
  std::vector<Pair> pairs;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    absl::StatusOr<json::Document> doc = json::Parse(line);
    if (!doc.ok()) {
      ADD_FAILURE() << "bad data line: " << doc.status();
      continue;
    }
    const json::Value* text = doc->root().Find("text");
    const json::Value* j = doc->root().Find("json");
    if (text == nullptr || j == nullptr || line.back() != '}') {
      ADD_FAILURE() << "bad data line: " << line;
      continue;
    }
    // "json" is the last member: its text runs to the closing brace.
    pairs.push_back({std::string(text->as_string()), line.substr(j->offset(), line.size() - 1 - j->offset())});
  }
  return pairs;
}

// ---------------------------------------------------------------------------
// Against Cedar: every policy text and its JSON give the same tree.

TEST(PolicyJsonOracle, SameTreeAsTheText) {
  std::vector<Pair> pairs = LoadPairs();
  ASSERT_GE(pairs.size(), 300u) << "regenerate data/oracle_pairs.jsonl";
  size_t templates = 0, same = 0;
  for (const Pair& pair : pairs) {
    std::string text_errors;
    std::string from_text = ParseText(pair.text, &text_errors);
    Read r(pair.json);
    // Cedar printed them, so both read them: extension calls with the wrong
    // number of arguments too, which fail only when evaluated.
    ASSERT_TRUE(text_errors.empty()) << pair.text << "\n" << text_errors;
    ASSERT_TRUE(r.diags.empty()) << pair.json << "\n" << r.All();
    ASSERT_EQ(r.set.policies.size(), 1u) << pair.json;
    EXPECT_EQ(r.Shown(), from_text) << pair.text << "\n" << pair.json;
    if (r.set.policies[0].is_template()) ++templates;
    ++same;
  }
  EXPECT_GT(templates, 0u);
  EXPECT_GE(same, 300u);
}

// The same policies as one policy set object: the keys are the ids, and
// policies with slots go under "templates".
TEST(PolicyJsonOracle, AsOnePolicySet) {
  std::vector<Pair> pairs = LoadPairs();
  std::string statics, templates;
  std::vector<std::string> expected;
  size_t n = 0;
  for (size_t i = 0; i < pairs.size(); ++i) {
    Read one(pairs[i].json);
    if (!one.diags.empty()) continue;  // see SameTreeAsTheText
    ++n;
    ASSERT_EQ(one.set.policies.size(), 1u);
    bool is_template = one.set.policies[0].is_template();
    std::string& list = is_template ? templates : statics;
    list += (list.empty() ? "" : ",\n") + Quote("k" + std::to_string(i)) + ": " + pairs[i].json;
    expected.resize(i + 1);
    expected[i] = ShowPolicy(one.set.policies[0], false);
  }
  Read r("{\"staticPolicies\": {" + statics + "},\n\"templates\": {" + templates + "},\n\"templateLinks\": []}");
  ASSERT_TRUE(r.diags.empty()) << r.All();
  ASSERT_EQ(r.set.policies.size(), n);
  for (const ast::Policy& p : r.set.policies) {
    ASSERT_EQ(p.id[0], 'k');
    size_t i = std::stoul(p.id.substr(1));
    EXPECT_EQ(ShowPolicy(p, false), expected.at(i)) << p.id;
  }
}

// ---------------------------------------------------------------------------
// Single policies

constexpr char kScopeAll[] = R"("principal": {"op": "All"}, "action": {"op": "All"}, "resource": {"op": "All"})";

std::string Policy(const std::string& fields) { return std::string("{\"effect\": \"permit\", ") + kScopeAll + ", " + fields + "}"; }
std::string When(const std::string& body) { return Policy(R"("conditions": [{"kind": "when", "body": )" + body + "}]"); }

// The condition of a one-policy JSON, shown; "" with a failure if it does not read.
std::string ShowWhen(const std::string& body) {
  Read r(When(body));
  EXPECT_TRUE(r.diags.empty()) << body << "\n" << r.All();
  if (r.set.policies.size() != 1 || r.set.policies[0].conditions.size() != 1) return "";
  return Show(*r.set.policies[0].conditions[0].body);
}

TEST(PolicyJson, LonePolicyIdsAndSpans) {
  Read r(Policy(R"("conditions": [])"));
  ASSERT_TRUE(r.diags.empty()) << r.All();
  ASSERT_EQ(r.set.policies.size(), 1u);
  const ast::Policy& p = r.set.policies[0];
  EXPECT_EQ(p.id, "policy0");
  EXPECT_EQ(r.Text(p.span), r.source.text());
  EXPECT_EQ(r.Text(p.effect_span), "\"permit\"");
  EXPECT_EQ(r.Text(p.principal.span), R"({"op": "All"})");

  Read named(Policy(R"("conditions": [], "annotations": {"doc": null, "id": "mine"})"));
  ASSERT_TRUE(named.diags.empty()) << named.All();
  EXPECT_EQ(named.set.policies.at(0).id, "mine");
  ASSERT_EQ(named.set.policies[0].annotations.size(), 2u);
  EXPECT_EQ(named.set.policies[0].annotations[0].key, "doc");
  EXPECT_EQ(named.set.policies[0].annotations[0].value, "");
  EXPECT_EQ(named.Text(named.set.policies[0].annotations[1].span), R"("id": "mine")");
}

TEST(PolicyJson, ScopeForms) {
  Read r(R"({"effect": "forbid",
    "principal": {"op": "is", "entity_type": "NS::User", "in": {"entity": {"__entity": {"type": "G", "id": "g"}}}},
    "action": {"op": "in", "entities": [{"type": "Action", "id": "a"}, {"type": "NS::Action", "id": "b"}]},
    "resource": {"op": "all", "ignored": 1},
    "conditions": []})");
  ASSERT_TRUE(r.diags.empty()) << r.All();
  EXPECT_EQ(r.Shown(), "id \"policy0\"\nforbid\nprincipal is NS::User in G::\"g\"\n"
                       "action in [ Action::\"a\" NS::Action::\"b\"]\nresource any\n");
  EXPECT_EQ(r.Text(r.set.policies[0].principal.entity.span), R"({"__entity": {"type": "G", "id": "g"}})");

  // As in Cedar: keys beside `type` and `id` are ignored, `entity` wins over `slot`.
  Read extra(R"({"effect": "permit",
    "principal": {"op": "==", "entity": {"type": "User", "id": "a", "note": 1}, "slot": "?principal"},
    "action": {"op": "==", "entity": {"type": "Action", "id": "v"}},
    "resource": {"op": "in", "slot": "?resource"}, "conditions": []})");
  ASSERT_TRUE(extra.diags.empty()) << extra.All();
  EXPECT_EQ(extra.Shown(), "id \"policy0\"\npermit\nprincipal == User::\"a\"\naction == Action::\"v\"\n"
                           "resource in ?slot\n");
  EXPECT_TRUE(extra.set.policies[0].is_template());
}

TEST(PolicyJson, Expressions) {
  EXPECT_EQ(ShowWhen(R"({"Value": [1, -2, "s", true, {"a": {"__entity": {"type": "U", "id": "x"}}}]})"),
            R"([ 1 -2 "s" true { "a": U::"x"}])");
  EXPECT_EQ(ShowWhen(R"({"Value": {"__extn": {"fn": "ip", "arg": "1.2.3.4"}}})"), R"((ip "1.2.3.4"))");
  EXPECT_EQ(ShowWhen(R"({"Value": {"__extn": {"fn": "decimal", "args": ["1.0"]}}})"), R"((decimal "1.0"))");
  EXPECT_EQ(ShowWhen(R"({"Value": {"__extn": {"fn": "isIpv4", "arg": {"__extn": {"fn": "ip", "arg": "::1"}}}}})"),
            R"((.isIpv4 (ip "::1")))");
  // Objects that only look like escapes are records, as in Cedar.
  EXPECT_EQ(ShowWhen(R"({"Value": {"__entity": {"type": "U"}}})"), R"({ "__entity": { "type": "U"}})");
  EXPECT_EQ(ShowWhen(R"({"Value": {"__extn": {"fn": "ip"}, "x": 1}})"), R"({ "__extn": { "fn": "ip"} "x": 1})");
  EXPECT_EQ(ShowWhen(R"({"has": {"left": {"Var": "context"}, "attr": ["a", "b", "c"]}})"),
            R"((has context "a"."b"."c"))");
  EXPECT_EQ(ShowWhen(R"({"like": {"left": {"Value": "x"}, "pattern": [{"Literal": "a"}, {"Literal": "*"},
                "Wildcard", {"Wildcard": null}, {"Literal": ""}, {"Literal": "b"}]}})"),
            R"((like "x" <"a*"><*><"b">))");
  EXPECT_EQ(ShowWhen(R"({"isInRange": [{"ip": [{"Value": "1.1.1.1"}]}, {"ip": [{"Value": "1.0.0.0/8"}]}]})"),
            R"((.isInRange (ip "1.1.1.1") (ip "1.0.0.0/8")))");
  EXPECT_EQ(ShowWhen(R"({"is": {"left": {"Var": "principal"}, "entity_type": "User", "in": {"Var": "resource"}}})"),
            "(is principal User resource)");
  EXPECT_EQ(ShowWhen(R"({"if-then-else": {"if": {"Value": true}, "then": {"Set": []}, "else": {"Record": {}}}})"),
            "(if true [] {})");
  EXPECT_EQ(ShowWhen(R"({"getTag": {"right": {"Value": "t"}, "left": {"Var": "principal"}}})"),
            R"((.getTag principal "t"))");
  EXPECT_EQ(ShowWhen(R"({"!=": {"left": {"neg": {"arg": {"Value": 1}}}, "right": {"!": {"arg": {"Value": false}}}}})"),
            "(!= (neg 1) (! false))");
}

TEST(PolicyJson, SpansCoverTheJsonValue) {
  Read r(When(R"({"==": {"left": {"Var": "principal"}, "right": {"Value": "x"}}})"));
  ASSERT_TRUE(r.diags.empty()) << r.All();
  const ast::Condition& c = r.set.policies.at(0).conditions.at(0);
  EXPECT_EQ(r.Text(c.body->span), R"({"==": {"left": {"Var": "principal"}, "right": {"Value": "x"}}})");
  EXPECT_EQ(r.Text(c.body->args[0]->span), R"({"Var": "principal"})");
  EXPECT_EQ(r.Text(c.body->args[1]->span), R"({"Value": "x"})");
}

std::string Repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

// Chains the text writes without brackets are read without recursion and
// are bounded, as in the text, by max_expression_depth.
TEST(PolicyJson, LongChains) {
  auto chain = [](int n) {
    return Repeat(R"({"&&": {"left": )", n) + R"({"Value": true})" + Repeat(R"(, "right": {"Value": true}}})", n);
  };
  Read r(When(chain(999)));
  EXPECT_TRUE(r.diags.empty()) << r.All().substr(0, 500);
  EXPECT_EQ(r.set.policies.size(), 1u);

  Read over(When(chain(1000)));
  ASSERT_EQ(over.diags.size(), 1u) << over.All().substr(0, 500);
  EXPECT_EQ(over.diag().code, "CH0302");
  EXPECT_EQ(over.diag().message, "expression is more than 1000 operators deep");
  EXPECT_EQ(over.Underlined().substr(0, 9), R"({"&&": {")");

  CompileOptions deep;
  deep.max_expression_depth = 30000;
  std::string attrs = Repeat(R"({".": {"left": )", 20000) + R"({"Var": "context"})" + Repeat(R"(, "attr": "a"}})", 20000);
  Read a(When(attrs), deep);
  EXPECT_TRUE(a.diags.empty()) << a.All().substr(0, 500);

  // The JSON itself may nest only as deep as such an expression needs.
  std::string nots = Repeat(R"({"!": {"arg": )", 2000) + R"({"Value": true})" + Repeat("}}", 2000);
  Read d(When(nots));
  ASSERT_EQ(d.diags.size(), 1u);
  EXPECT_EQ(d.diag().code, "CH0302");
  EXPECT_EQ(d.diag().message, "JSON nested deeper than 3016 levels");

  // Right-nested `&&` needs brackets in the text: it counts as nesting.
  std::string nested = R"({"Value": true})";
  for (int i = 0; i < 100; ++i) nested = R"({"&&": {"left": {"Value": true}, "right": )" + nested + "}}";
  Read n(When(nested));
  ASSERT_EQ(n.diags.size(), 1u) << n.All();
  EXPECT_EQ(n.diag().code, "CH0302");
  EXPECT_EQ(n.diag().message, "expression nested deeper than 64 levels");

  CompileOptions wide;
  wide.max_nesting = 200;
  Read w(When(nested), wide);
  EXPECT_TRUE(w.diags.empty()) << w.All();
}

TEST(PolicyJson, NestedValuesCountAsNesting) {
  std::string v = "1";
  for (int i = 0; i < 70; ++i) v = "[" + v + "]";
  Read r(When(R"({"Value": )" + v + "}"));
  ASSERT_EQ(r.diags.size(), 1u) << r.All();
  EXPECT_EQ(r.diag().code, "CH0302");
}

// ---------------------------------------------------------------------------
// Policy sets and links

constexpr char kTemplate[] = R"({"effect": "permit",
  "principal": {"op": "==", "slot": "?principal"}, "action": {"op": "All"},
  "resource": {"op": "in", "slot": "?resource"}, "conditions": []})";
constexpr char kStatic[] = R"({"effect": "forbid", "principal": {"op": "All"}, "action": {"op": "All"},
  "resource": {"op": "All"}, "conditions": [{"kind": "unless", "body": {"Value": false}}]})";

TEST(PolicyJsonSet, PoliciesTemplatesAndLinks) {
  Read r(std::string(R"({"staticPolicies": {"s1": )") + kStatic + R"(, "s2": )" + kStatic +
         R"(}, "templates": {"t1": )" + kTemplate + R"(}, "templateLinks": [
           {"templateId": "t1", "newId": "l1", "values": {"?principal": {"type": "User", "id": "a"},
                                                          "?resource": {"__entity": {"type": "F", "id": "f"}}}}]})");
  ASSERT_TRUE(r.diags.empty()) << r.All();
  ASSERT_EQ(r.set.policies.size(), 3u);
  EXPECT_EQ(r.set.policies[0].id, "s1");
  EXPECT_EQ(r.set.policies[1].id, "s2");
  EXPECT_EQ(r.set.policies[2].id, "t1");
  EXPECT_TRUE(r.set.policies[2].is_template());
  ASSERT_EQ(r.links.size(), 1u);
  EXPECT_EQ(r.links[0].template_id, "t1");
  EXPECT_EQ(r.links[0].link_id, "l1");
  ASSERT_TRUE(r.links[0].principal.has_value());
  EXPECT_EQ(r.links[0].principal->type, "User");
  EXPECT_EQ(r.links[0].principal->id, "a");
  ASSERT_TRUE(r.links[0].resource.has_value());
  EXPECT_EQ(r.links[0].resource->type, "F");

  Read empty("{}");
  EXPECT_TRUE(empty.diags.empty()) << empty.All();
  EXPECT_TRUE(empty.set.policies.empty());
}

// Cedar keeps a template without slots apart from the policies: only its
// links are active, each a copy.
TEST(PolicyJsonSet, TemplateWithoutSlots) {
  Read r(std::string(R"({"templates": {"t": )") + kStatic + R"(}, "templateLinks": [
      {"templateId": "t", "newId": "a", "values": {}}, {"templateId": "t", "newId": "b", "values": {}}]})");
  ASSERT_TRUE(r.diags.empty()) << r.All();
  ASSERT_EQ(r.set.policies.size(), 2u);
  EXPECT_EQ(r.set.policies[0].id, "a");
  EXPECT_EQ(r.set.policies[1].id, "b");
  EXPECT_EQ(ShowPolicy(r.set.policies[0], false), ShowPolicy(r.set.policies[1], false));
  EXPECT_TRUE(r.links.empty());
}

struct Fault {
  std::string json, code, message, underlined;
};

void ExpectFault(const Fault& f) {
  Read r(f.json);
  ASSERT_FALSE(r.diags.empty()) << f.json;
  EXPECT_EQ(r.diag().code, f.code) << f.json << "\n" << r.All();
  EXPECT_EQ(r.diag().message, f.message) << f.json;
  EXPECT_EQ(r.Underlined(), f.underlined) << f.json;
  EXPECT_FALSE(!r.diag().message.empty() && r.diag().message[0] >= 'A' && r.diag().message[0] <= 'Z')
      << "messages are lowercase: " << r.diag().message;
}

TEST(PolicyJsonSet, LinkFaults) {
  std::string set = std::string(R"({"staticPolicies": {"s": )") + kStatic + R"(}, "templates": {"t": )" + kTemplate + "}, ";
  ExpectFault({set + R"("templateLinks": [{"templateId": "nope", "newId": "l", "values": {}}]})", "CH0314",
               "there is no template `nope`", "\"nope\""});
  ExpectFault({set + R"("templateLinks": [{"templateId": "s", "newId": "l", "values": {}}]})", "CH0314",
               "there is no template `s`", "\"s\""});
  ExpectFault({set + R"("templateLinks": [{"templateId": "t", "newId": "l", "values": {"?principal": {"type": "U", "id": "a"}}}]})",
               "CH0314", "the link `l` does not bind `?resource` of the template `t`",
               R"({"?principal": {"type": "U", "id": "a"}})"});
  ExpectFault({set + R"("templateLinks": [{"templateId": "t", "newId": "s", "values": {"?principal": {"type": "U", "id": "a"}, "?resource": {"type": "U", "id": "a"}}}]})",
               "CH0313", "duplicate policy id `s`", "\"s\""});
  ExpectFault({set + R"("templateLinks": [{"templateId": "t", "newId": "l", "values": {"?other": {"type": "U", "id": "a"}}}]})",
               "CH0309", "unknown slot `?other`", "\"?other\""});
  ExpectFault({set + R"("templateLinks": [{"templateId": "t", "newId": "l", "values": {}, "extra": 1}]})",
               "CH0303", "unknown key `extra` in a template link", "\"extra\""});
  ExpectFault({std::string(R"({"templates": {"t": )") + kStatic +
                   R"(}, "templateLinks": [{"templateId": "t", "newId": "l", "values": {"?principal": {"type": "U", "id": "a"}}}]})",
               "CH0314", "the link `l` binds `?principal`, which the template `t` does not have",
               R"({"?principal": {"type": "U", "id": "a"}})"});
  ExpectFault({std::string(R"({"staticPolicies": {"x": )") + kTemplate + "}}", "CH0317",
               "the static policy `x` contains the slot `?principal`", R"({"op": "==", "slot": "?principal"})"});
  ExpectFault({std::string(R"({"staticPolicies": {"x": )") + kStatic + R"(}, "templates": {"x": )" + kTemplate + "}}",
               "CH0313", "duplicate policy id `x`", "\"x\""});
  ExpectFault({R"({"policies": {}})", "CH0303", "unknown key `policies` in a policy set", "\"policies\""});
}

// ---------------------------------------------------------------------------
// Faults in single policies

TEST(PolicyJsonFaults, Structure) {
  ExpectFault({"{\"effect\": ", "CH0300", "invalid JSON: unexpected end of input", ""});
  ExpectFault({"[1]", "CH0304", "expected a policy or a policy set object, found an array", "[1]"});
  ExpectFault({Policy(R"("conditions": [], "when": [])"), "CH0303", "unknown key `when` in a policy", "\"when\""});
  ExpectFault({std::string("{\"effect\": \"permit\", ") + kScopeAll + "}", "CH0305", "a policy lacks `conditions`",
               std::string("{\"effect\": \"permit\", ") + kScopeAll + "}"});
  ExpectFault({std::string("{\"effect\": \"allow\", ") + kScopeAll + ", \"conditions\": []}", "CH0318",
               "unknown effect `allow`", "\"allow\""});
  ExpectFault({Policy(R"("conditions": {})"), "CH0304", "`conditions` must be an array, found an object", "{}"});
  ExpectFault({Policy(R"("conditions": [{"kind": "if", "body": {"Value": true}}])"), "CH0318",
               "unknown condition kind `if`", "\"if\""});
  ExpectFault({Policy(R"("conditions": [], "annotations": {"a b": "x"})"), "CH0316",
               "`a b` is not a valid annotation key", "\"a b\""});
  ExpectFault({Policy(R"("conditions": [], "annotations": {"a": 1})"), "CH0316",
               "the annotation `a` must be a string or `null`, found a number", "1"});
}

TEST(PolicyJsonFaults, Scope) {
  auto with = [](const std::string& principal, const std::string& action = R"({"op": "All"})") {
    return "{\"effect\": \"permit\", \"principal\": " + principal + ", \"action\": " + action +
           ", \"resource\": {\"op\": \"All\"}, \"conditions\": []}";
  };
  ExpectFault({with(R"({"op": "like"})"), "CH0318", "unknown operator `like` in the `principal` constraint", "\"like\""});
  ExpectFault({with(R"({"op": "=="})"), "CH0305", "the `principal` constraint lacks `entity` or `slot`", R"({"op": "=="})"});
  ExpectFault({with(R"({"op": "==", "slot": "?resource"})"), "CH0309",
               "the slot `?resource` cannot constrain `principal`", "\"?resource\""});
  ExpectFault({with(R"({"op": "in", "slot": "?x"})"), "CH0309", "unknown slot `?x`", "\"?x\""});
  ExpectFault({with(R"({"op": "==", "entity": {"type": "User"}})"), "CH0308",
               "an entity uid needs a string `type` and a string `id`", R"({"type": "User"})"});
  ExpectFault({with(R"({"op": "==", "entity": {"__expr": "User::\"a\""}})"), "CH0308",
               "the `__expr` escape is no longer supported", R"({"__expr": "User::\"a\""})"});
  ExpectFault({with(R"({"op": "==", "entity": {"type": "if::User", "id": "a"}})"), "CH0311",
               "`if::User` is not a valid entity type name", "\"if::User\""});
  ExpectFault({with(R"({"op": "is", "entity_type": "__cedar::X"})"), "CH0311",
               "`__cedar::X` is not a valid entity type name", "\"__cedar::X\""});
  ExpectFault({with(R"({"op": "is", "entity_type": "U", "entity": {"type": "U", "id": "a"}})"), "CH0303",
               "unknown key `entity` in the `principal` constraint", "\"entity\""});
  ExpectFault({with(R"({"op": "All"})", R"({"op": "==", "entity": {"type": "User", "id": "a"}})"), "CH0315",
               "expected an entity of type `Action`, found `User`", R"({"type": "User", "id": "a"})"});
  ExpectFault({with(R"({"op": "All"})", R"({"op": "==", "slot": "?principal"})"), "CH0309",
               "slots are not allowed in the `action` constraint", "\"?principal\""});
  ExpectFault({with(R"({"op": "All"})", R"({"op": "is", "entity_type": "Action"})"), "CH0318",
               "unknown operator `is` in the `action` constraint", "\"is\""});
}

TEST(PolicyJsonFaults, Expressions) {
  auto fault = [](const std::string& body, const std::string& code, const std::string& message,
                  const std::string& underlined) { ExpectFault({When(body), code, message, underlined}); };
  fault("{}", "CH0307", "an empty object is not an expression", "{}");
  fault(R"({"Value": 1, "Var": "principal"})", "CH0307", "an expression has one key, found `Value` and `Var`", "\"Var\"");
  fault("1", "CH0304", "an expression must be an object, found a number", "1");
  fault(R"({"foo": []})", "CH0306", "unknown operator `foo`", "\"foo\"");
  fault(R"({"unknown": [{"Value": "x"}]})", "CH0312", "`unknown` is not a known function", "\"unknown\"");
  fault(R"({"isIpv4": []})", "CH0319", "the method `isIpv4` lacks its receiver", R"({"isIpv4": []})");
  fault(R"({"ip": {"Value": "x"}})", "CH0304", "the arguments of `ip` must be an array, found an object", R"({"Value": "x"})");
  fault(R"({"Value": null})", "CH0310", "`null` is not a value", "null");
  fault(R"({"Value": 1.5})", "CH0310", "`1.5` is not an integer; only integers are values", "1.5");
  fault(R"({"Value": 9223372036854775808})", "CH0310", "integer `9223372036854775808` does not fit in 64 bits",
        "9223372036854775808");
  fault(R"({"Value": {"__expr": "1"}})", "CH0310", "the `__expr` escape is no longer supported", R"({"__expr": "1"})");
  fault(R"({"Value": {"__extn": {"fn": "foo", "arg": "1"}}})", "CH0312", "`foo` is not a known extension function", "\"foo\"");
  fault(R"({"Value": {"__entity": {"type": "A B", "id": "1"}}})", "CH0311", "`A B` is not a valid entity type name", "\"A B\"");
  fault(R"({"Var": "user"})", "CH0318", "unknown variable `user`", "\"user\"");
  fault(R"({"Slot": "?principal"})", "CH0309", "the template slot `?principal` is in a `when` clause", R"({"Slot": "?principal"})");
  fault(R"({"Slot": "?p"})", "CH0309", "unknown slot `?p`", "\"?p\"");
  fault(R"({"==": {"left": {"Value": 1}}})", "CH0305", "`==` lacks `right`", R"({"left": {"Value": 1}})");
  fault(R"({"!": {"arg": {"Value": true}, "x": 1}})", "CH0303", "unknown key `x` in `!`", "\"x\"");
  fault(R"({".": {"left": {"Var": "context"}, "attr": 1}})", "CH0304", "`attr` of `.` must be a string, found a number", "1");
  fault(R"({"has": {"left": {"Var": "context"}, "attr": []}})", "CH0304", "`attr` of `has` must not be an empty array", "[]");
  fault(R"({"like": {"left": {"Value": "a"}, "pattern": ["wildcard"]}})", "CH0318",
        "a pattern element must be `\"Wildcard\"` or `{\"Literal\": ...}`", "\"wildcard\"");
  fault(R"({"is": {"left": {"Var": "principal"}, "entity_type": "in"}})", "CH0311", "`in` is not a valid entity type name", "\"in\"");
  fault(R"({"if-then-else": {"if": {"Value": true}, "then": {"Value": 1}}})", "CH0305", "`if-then-else` lacks `else`",
        R"({"if": {"Value": true}, "then": {"Value": 1}})");
  fault(R"({"Set": {}})", "CH0304", "`Set` must be an array, found an object", "{}");

  // An extension call with the wrong number of arguments reads, as Cedar
  // reads it; it fails when evaluated (tests/core/interp/).
  for (const char* body : {R"({"ip": []})", R"({"isInRange": [{"Var": "context"}]})",
                           R"({"Value": {"__extn": {"fn": "decimal", "args": ["1.0", "2.0"]}}})"}) {
    Read r(When(body));
    EXPECT_TRUE(r.diags.empty()) << body << "\n" << r.All();
  }
  fault(R"({"Value": {"__extn": {"fn": "contains", "args": [[1], 1]}}})", "CH0312",
        "`contains` is not a known extension function", "\"contains\"");
  fault(R"({"contains": [{"Value": [1]}, {"Value": 1}]})", "CH0304", "the body of `contains` must be an object, found an array",
        R"([{"Value": [1]}, {"Value": 1}])");
}

TEST(PolicyJsonFaults, Limits) {
  CompileOptions small;
  small.max_source_bytes = 10;
  Read r(Policy(R"("conditions": [])"), small);
  ASSERT_EQ(r.diags.size(), 1u);
  EXPECT_EQ(r.diag().code, "CH0301");

  // Each faulty policy of a set reports once; the good ones stay.
  Read set(std::string(R"({"staticPolicies": {"a": {"effect": "x"}, "b": )") + kStatic + R"(, "c": []}})");
  EXPECT_EQ(set.diags.size(), 2u) << set.All();
  ASSERT_EQ(set.set.policies.size(), 1u);
  EXPECT_EQ(set.set.policies[0].id, "b");

  CompileOptions one;
  one.max_errors = 1;
  Read capped(std::string(R"({"staticPolicies": {"a": {"effect": "x"}, "c": []}})"), one);
  EXPECT_EQ(capped.diags.size(), 1u);
}

}  // namespace
}  // namespace charter::internal
