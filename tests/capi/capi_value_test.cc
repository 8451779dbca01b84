// The C API's version 4 (bindings/c/include/charter.h, "values built in
// code"): charter_value_*, charter_request_new_value and
// charter_entities_extend_values. A context built as a value must give the
// request its JSON text gives: the same decisions on the governance
// example's requests, the same acceptance and refusal against a schema.
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "charter.h"
#include "charter/json.h"
#include "gtest/gtest.h"

namespace {

std::string Str(const char* p, size_t n) { return p == nullptr ? std::string() : std::string(p, n); }

std::string Message(charter_error* e) {
  size_t n = 0;
  const char* m = charter_error_message(e, &n);
  return Str(m, n);
}

std::string Read(const std::string& path) {
  std::ifstream in(std::string(CHARTER_SOURCE_DIR) + "/" + path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

charter_uid Uid(std::string_view type, std::string_view id) {
  return charter_uid{type.data(), type.size(), id.data(), id.size()};
}

// A value from JSON in Cedar's value encoding, as a binding makes one from
// its dict: {"__extn": {"fn", "arg"}} an extension, {"__entity": {"type",
// "id"}} an entity, arrays sets, objects records (numbers are not needed).
charter_value* FromJson(const charter::JsonValue& v) {
  charter_value* out = nullptr;
  charter_error* e = nullptr;
  if (v.is_bool()) {
    EXPECT_EQ(charter_value_bool(v.as_bool(), &out, &e), CHARTER_OK);
  } else if (v.is_string()) {
    EXPECT_EQ(charter_value_string(v.as_string().data(), v.as_string().size(), &out, &e), CHARTER_OK);
  } else if (v.is_array()) {
    EXPECT_EQ(charter_value_set(&out, &e), CHARTER_OK);
    for (size_t i = 0; i < v.size(); ++i) EXPECT_EQ(charter_value_set_add(out, FromJson(v.at(i)), &e), CHARTER_OK);
  } else if (v.is_object() && v.size() == 1 && v.key(0) == "__extn") {
    std::string_view fn = v.member(0).Find("fn")->as_string(), arg = v.member(0).Find("arg")->as_string();
    EXPECT_EQ(charter_value_extension(fn.data(), fn.size(), arg.data(), arg.size(), &out, &e), CHARTER_OK);
  } else if (v.is_object() && v.size() == 1 && v.key(0) == "__entity") {
    std::string_view type = v.member(0).Find("type")->as_string(), id = v.member(0).Find("id")->as_string();
    charter_uid uid = Uid(type, id);
    EXPECT_EQ(charter_value_entity(&uid, &out, &e), CHARTER_OK);
  } else {
    EXPECT_TRUE(v.is_object());
    EXPECT_EQ(charter_value_record(&out, &e), CHARTER_OK);
    for (size_t i = 0; i < v.size(); ++i) {
      EXPECT_EQ(charter_value_record_add(out, v.key(i).data(), v.key(i).size(), FromJson(v.member(i)), &e),
                CHARTER_OK);
    }
  }
  return out;
}

// A decision, written out for comparing.
std::string Decide(const charter_engine* engine, const charter_entities* entities, const charter_request* request) {
  charter_eval_context* context = nullptr;
  charter_error* e = nullptr;
  EXPECT_EQ(charter_eval_context_new(&context, &e), CHARTER_OK);
  EXPECT_EQ(charter_authorize(engine, entities, request, context, &e), CHARTER_OK) << Message(e);
  char* json = nullptr;
  size_t n = 0;
  EXPECT_EQ(charter_eval_context_decision_json(context, &json, &n, &e), CHARTER_OK);
  std::string out(json, n);
  charter_free(json);
  charter_eval_context_free(context);
  return out;
}

// The uid of a request part in the text form.
struct ParsedUid {
  char buffer[256];
  charter_uid uid;
};

void ParseUid(std::string_view text, ParsedUid* out) {
  charter_error* e = nullptr;
  ASSERT_EQ(charter_uid_parse(text.data(), text.size(), out->buffer, sizeof(out->buffer), &out->uid, &e), CHARTER_OK);
}

// Every request of the governance example, its context given as JSON text
// and as a value: the same decision, typed and untyped.
void GovernanceBothWays(bool typed) {
  const std::string schema_text = Read("stdlib/governance.cedarschema");
  const std::string policies = Read("examples/governance/policies.cedar");
  const std::string entities_text = Read("examples/governance/entities.json");
  const std::string requests_text = Read("examples/governance/requests.json");
  charter_error* e = nullptr;
  charter_schema* schema = nullptr;
  ASSERT_EQ(charter_schema_parse(schema_text.data(), schema_text.size(), nullptr, 0, &schema, &e), CHARTER_OK);
  charter_compile_options options{};
  options.schema = typed ? schema : nullptr;
  charter_engine* engine = nullptr;
  ASSERT_EQ(charter_engine_compile_with(policies.data(), policies.size(), &options, &engine, &e), CHARTER_OK)
      << Message(e);
  charter_entities* entities = nullptr;
  ASSERT_EQ(charter_entities_from_json_with(entities_text.data(), entities_text.size(), typed ? schema : nullptr,
                                            nullptr, 0, &entities, &e),
            CHARTER_OK)
      << Message(e);
  absl::StatusOr<charter::JsonDocument> doc = charter::JsonDocument::Parse(requests_text);
  ASSERT_TRUE(doc.ok());
  const charter::JsonValue requests = doc->root();
  ASSERT_GT(requests.size(), 20u);
  size_t allowed = 0, with_context = 0;
  for (size_t i = 0; i < requests.size(); ++i) {
    const charter::JsonValue r = requests.at(i);
    ParsedUid p, a, res;
    ParseUid(r.Find("principal")->as_string(), &p);
    ParseUid(r.Find("action")->as_string(), &a);
    ParseUid(r.Find("resource")->as_string(), &res);
    // The context's own text: from its offset to the end of the request's object.
    const charter::JsonValue c = *r.Find("context");
    size_t begin = c.offset(), end = requests_text.find('\n', begin);
    std::string context_text = requests_text.substr(begin, end - begin);
    context_text = context_text.substr(0, context_text.rfind('}'));  // the request's closing brace
    charter_request* by_json = nullptr;
    ASSERT_EQ(charter_request_new_with(&p.uid, &a.uid, &res.uid, context_text.data(), context_text.size(),
                                       typed ? schema : nullptr, nullptr, 0, &by_json, &e),
              CHARTER_OK)
        << i << ": " << Message(e);
    charter_value* value = FromJson(c);
    charter_request* by_value = nullptr;
    ASSERT_EQ(charter_request_new_value(&p.uid, &a.uid, &res.uid, value, typed ? schema : nullptr, nullptr, 0,
                                        &by_value, &e),
              CHARTER_OK)
        << i << ": " << Message(e);
    with_context += c.size() > 0;
    char *t1 = nullptr, *t2 = nullptr;
    size_t n1 = 0, n2 = 0;
    ASSERT_EQ(charter_request_context_cedar(by_json, &t1, &n1, &e), CHARTER_OK);
    ASSERT_EQ(charter_request_context_cedar(by_value, &t2, &n2, &e), CHARTER_OK);
    EXPECT_EQ(std::string(t1, n1), std::string(t2, n2)) << i;
    charter_free(t1);
    charter_free(t2);
    std::string d1 = Decide(engine, entities, by_json), d2 = Decide(engine, entities, by_value);
    EXPECT_EQ(d1, d2) << "request " << i;
    allowed += d1.find("\"allow\"") != std::string::npos;
    charter_value_free(value);
    charter_request_free(by_json);
    charter_request_free(by_value);
  }
  EXPECT_GT(allowed, 0u);
  EXPECT_GT(with_context, 10u);
  charter_entities_free(entities);
  charter_engine_free(engine);
  charter_schema_free(schema);
}

TEST(CApiValue, GovernanceDecisionsEqualTheJsonPathTyped) { GovernanceBothWays(true); }
TEST(CApiValue, GovernanceDecisionsEqualTheJsonPathUntyped) { GovernanceBothWays(false); }

// ---- a small typed world with every kind of value -----------------------------------

constexpr std::string_view kSchema = R"(
entity Team;
entity User in [Team];
entity Task;
action submit appliesTo { principal: User, resource: Task, context: {
  gpus: Long, now: datetime, team: Team, tags: Set<String>, ok: Bool,
  src?: ipaddr, budget?: decimal, limit?: duration, meta?: { zone: String } } };
)";

constexpr std::string_view kPolicies = R"(@id("submit")
permit (principal in Team::"ml", action == Action::"submit", resource)
when { context.gpus <= 8 && context.now < datetime("2026-01-01") && context.team == Team::"ml" &&
       context.tags.contains("train") && context.ok };
)";

constexpr std::string_view kEntities = R"([
  {"uid": {"type": "User", "id": "alice"}, "attrs": {}, "parents": [{"type": "Team", "id": "ml"}]},
  {"uid": {"type": "Team", "id": "ml"}, "attrs": {}, "parents": []},
  {"uid": {"type": "Task", "id": "t1"}, "attrs": {}, "parents": []}
])";

charter_value* Long(int64_t n) {
  charter_value* v = nullptr;
  EXPECT_EQ(charter_value_long(n, &v, nullptr), CHARTER_OK);
  return v;
}
charter_value* String(std::string_view s) {
  charter_value* v = nullptr;
  EXPECT_EQ(charter_value_string(s.data(), s.size(), &v, nullptr), CHARTER_OK);
  return v;
}
charter_value* Bool(bool b) {
  charter_value* v = nullptr;
  EXPECT_EQ(charter_value_bool(b, &v, nullptr), CHARTER_OK);
  return v;
}
charter_value* Extn(std::string_view fn, std::string_view arg) {
  charter_value* v = nullptr;
  EXPECT_EQ(charter_value_extension(fn.data(), fn.size(), arg.data(), arg.size(), &v, nullptr), CHARTER_OK);
  return v;
}
charter_value* Entity(std::string_view type, std::string_view id) {
  charter_value* v = nullptr;
  charter_uid uid = Uid(type, id);
  EXPECT_EQ(charter_value_entity(&uid, &v, nullptr), CHARTER_OK);
  return v;
}
charter_value* Set(std::vector<charter_value*> elements) {
  charter_value* v = nullptr;
  EXPECT_EQ(charter_value_set(&v, nullptr), CHARTER_OK);
  for (charter_value* e : elements) EXPECT_EQ(charter_value_set_add(v, e, nullptr), CHARTER_OK);
  return v;
}
charter_value* Record(std::vector<std::pair<std::string_view, charter_value*>> fields) {
  charter_value* v = nullptr;
  EXPECT_EQ(charter_value_record(&v, nullptr), CHARTER_OK);
  for (auto& [k, f] : fields) EXPECT_EQ(charter_value_record_add(v, k.data(), k.size(), f, nullptr), CHARTER_OK);
  return v;
}

struct World {
  charter_schema* schema = nullptr;
  charter_engine* engine = nullptr;
  charter_engine* untyped = nullptr;
  charter_entities* entities = nullptr;
  World() {
    charter_error* e = nullptr;
    EXPECT_EQ(charter_schema_parse(kSchema.data(), kSchema.size(), nullptr, 0, &schema, &e), CHARTER_OK) << Message(e);
    charter_compile_options options{};
    options.schema = schema;
    EXPECT_EQ(charter_engine_compile_with(kPolicies.data(), kPolicies.size(), &options, &engine, &e), CHARTER_OK)
        << Message(e);
    EXPECT_EQ(charter_engine_compile_with(kPolicies.data(), kPolicies.size(), nullptr, &untyped, &e), CHARTER_OK)
        << Message(e);
    EXPECT_EQ(charter_entities_from_json_with(kEntities.data(), kEntities.size(), schema, nullptr, 0, &entities, &e),
              CHARTER_OK)
        << Message(e);
  }
  ~World() {
    charter_entities_free(entities);
    charter_engine_free(engine);
    charter_engine_free(untyped);
    charter_schema_free(schema);
  }

  // The context both ways, with the schema or without: both accepted with
  // the same decision ("" when both refuse; a mismatch fails the test).
  // Frees `value`.
  std::string Both(std::string_view json, charter_value* value, bool typed, charter_status* refused = nullptr) {
    charter_uid p = Uid("User", "alice"), a = Uid("Action", "submit"), r = Uid("Task", "t1");
    charter_error *e1 = nullptr, *e2 = nullptr;
    charter_request *q1 = nullptr, *q2 = nullptr;
    charter_status s1 = charter_request_new_with(&p, &a, &r, json.data(), json.size(), typed ? schema : nullptr,
                                                 nullptr, 0, &q1, &e1);
    charter_status s2 =
        charter_request_new_value(&p, &a, &r, value, typed ? schema : nullptr, nullptr, 0, &q2, &e2);
    charter_value_free(value);
    EXPECT_EQ(s1, s2) << json << "\n json: " << (e1 ? Message(e1) : "ok") << "\n value: " << (e2 ? Message(e2) : "ok");
    std::string out;
    if (s1 == CHARTER_OK && s2 == CHARTER_OK) {
      out = Decide(typed ? engine : untyped, entities, q1);
      EXPECT_EQ(out, Decide(typed ? engine : untyped, entities, q2)) << json;
    }
    if (refused != nullptr) *refused = s2;
    if (e2 != nullptr) last_error = Message(e2);
    if (e1 != nullptr) last_json_error = Message(e1);
    charter_error_free(e1);
    charter_error_free(e2);
    charter_request_free(q1);
    charter_request_free(q2);
    return out;
  }
  std::string last_error, last_json_error;
};

charter_value* FullContext() {
  return Record({{"gpus", Long(4)},
                 {"now", Extn("datetime", "2025-11-03T09:00:00Z")},
                 {"team", Entity("Team", "ml")},
                 {"tags", Set({String("train"), String("gpu"), String("train")})},
                 {"ok", Bool(true)},
                 {"src", Extn("ip", "10.0.0.1")},
                 {"budget", Extn("decimal", "12.50")},
                 {"limit", Extn("duration", "1h30m")},
                 {"meta", Record({{"zone", String("eu")}})}});
}

constexpr std::string_view kFullJson =
    R"({"gpus": 4, "now": {"__extn": {"fn": "datetime", "arg": "2025-11-03T09:00:00Z"}},
        "team": {"__entity": {"type": "Team", "id": "ml"}}, "tags": ["train", "gpu", "train"], "ok": true,
        "src": {"__extn": {"fn": "ip", "arg": "10.0.0.1"}}, "budget": {"__extn": {"fn": "decimal", "arg": "12.50"}},
        "limit": {"__extn": {"fn": "duration", "arg": "1h30m"}}, "meta": {"zone": "eu"}})";

TEST(CApiValue, EveryKindTypedAndUntyped) {
  World w;
  std::string typed = w.Both(kFullJson, FullContext(), true);
  EXPECT_NE(typed.find("\"allow\""), std::string::npos) << typed;
  std::string untyped = w.Both(kFullJson, FullContext(), false);
  EXPECT_NE(untyped.find("\"allow\""), std::string::npos) << untyped;
}

TEST(CApiValue, ValueJsonIsCedarsEncoding) {
  charter_value* v = Record({{"now", Extn("datetime", "2025-11-03")}, {"t", Entity("Team", "ml")},
                             {"xs", Set({Long(1), String("a")})}});
  char* json = nullptr;
  size_t n = 0;
  ASSERT_EQ(charter_value_json(v, &json, &n, nullptr), CHARTER_OK);
  EXPECT_EQ(std::string(json, n),
            R"({"now":{"__extn":{"fn":"datetime","arg":"2025-11-03"}},"t":{"__entity":{"type":"Team","id":"ml"}},)"
            R"("xs":[1,"a"]})");
  charter_free(json);
  EXPECT_EQ(charter_value_get_kind(v), CHARTER_VALUE_RECORD);
  charter_value_free(v);
}

TEST(CApiValue, PlainFormsUnderASchemaAsTheJsonReaderTakesThem) {
  World w;
  // An extension value as its string, an entity as {"type", "id"}, an
  // extension as {"fn", "arg"} without `__extn`.
  std::string json =
      R"({"gpus": 4, "now": "2025-11-03T09:00:00Z", "team": {"type": "Team", "id": "ml"}, "tags": ["train"],
          "ok": true, "src": {"fn": "ip", "arg": "10.0.0.1"}})";
  charter_value* v = Record({{"gpus", Long(4)},
                             {"now", String("2025-11-03T09:00:00Z")},
                             {"team", Record({{"type", String("Team")}, {"id", String("ml")}})},
                             {"tags", Set({String("train")})},
                             {"ok", Bool(true)},
                             {"src", Record({{"fn", String("ip")}, {"arg", String("10.0.0.1")}})}});
  EXPECT_NE(w.Both(json, v, true).find("\"allow\""), std::string::npos);
  // Untyped, the same record is a record: `context.team == Team::"ml"` is false.
  v = Record({{"gpus", Long(4)},
              {"now", Extn("datetime", "2025-11-03T09:00:00Z")},
              {"team", Record({{"type", String("Team")}, {"id", String("ml")}})},
              {"tags", Set({String("train")})},
              {"ok", Bool(true)}});
  json = R"({"gpus": 4, "now": {"__extn": {"fn": "datetime", "arg": "2025-11-03T09:00:00Z"}},
             "team": {"type": "Team", "id": "ml"}, "tags": ["train"], "ok": true})";
  EXPECT_NE(w.Both(json, v, false).find("\"deny\""), std::string::npos);
  // Records in the escapes' shapes are the escapes, as their JSON is.
  v = Record({{"gpus", Long(4)},
              {"now", Record({{"__extn", Record({{"fn", String("datetime")}, {"arg", String("2025-11-03")}})}})},
              {"team", Record({{"__entity", Record({{"type", String("Team")}, {"id", String("ml")}})}})},
              {"tags", Set({String("train")})},
              {"ok", Bool(true)}});
  json = R"({"gpus": 4, "now": {"__extn": {"fn": "datetime", "arg": "2025-11-03"}},
             "team": {"__entity": {"type": "Team", "id": "ml"}}, "tags": ["train"], "ok": true})";
  EXPECT_NE(w.Both(json, v, false).find("\"allow\""), std::string::npos);
}

TEST(CApiValue, SetsOfMixedKinds) {
  World w;
  // Untyped: Cedar's JSON takes a set of mixed kinds, and so does a value.
  std::string json = R"({"xs": [1, "a", true, {"__entity": {"type": "Team", "id": "ml"}}]})";
  charter_value* v = Record({{"xs", Set({Long(1), String("a"), Bool(true), Entity("Team", "ml")})}});
  EXPECT_NE(w.Both(json, v, false).find("\"deny\""), std::string::npos);
  // Typed: a Set<String> holding a Long is refused both ways.
  json = R"({"gpus": 1, "now": "2025-01-01", "team": {"__entity": {"type": "Team", "id": "ml"}},
             "tags": ["a", 1], "ok": true})";
  v = Record({{"gpus", Long(1)},
              {"now", String("2025-01-01")},
              {"team", Entity("Team", "ml")},
              {"tags", Set({String("a"), Long(1)})},
              {"ok", Bool(true)}});
  charter_status refused = CHARTER_OK;
  w.Both(json, v, true, &refused);
  EXPECT_EQ(refused, CHARTER_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(w.last_error, "context: context: attribute `tags[1]`: expected `String`, found a long");
}

TEST(CApiValue, IntegerBounds) {
  World w;
  const int64_t max = std::numeric_limits<int64_t>::max(), min = std::numeric_limits<int64_t>::min();
  std::string json = R"({"hi": 9223372036854775807, "lo": -9223372036854775808})";
  w.Both(json, Record({{"hi", Long(max)}, {"lo", Long(min)}}), false);
  charter_uid p = Uid("User", "alice"), a = Uid("Action", "submit"), r = Uid("Task", "t1");
  charter_request* q = nullptr;
  charter_value* v = Record({{"hi", Long(max)}, {"lo", Long(min)}});
  ASSERT_EQ(charter_request_new_value(&p, &a, &r, v, nullptr, nullptr, 0, &q, nullptr), CHARTER_OK);
  char* text = nullptr;
  size_t n = 0;
  ASSERT_EQ(charter_request_context_cedar(q, &text, &n, nullptr), CHARTER_OK);
  EXPECT_NE(std::string(text, n).find("9223372036854775807"), std::string::npos) << std::string(text, n);
  charter_free(text);
  charter_request_free(q);
  charter_value_free(v);
}

TEST(CApiValue, ContextsRefusedAgainstASchemaBothWays) {
  World w;
  struct Case {
    std::string_view json;
    charter_value* value;
    std::string_view message;
  };
  Case cases[] = {
      // A wrong kind.
      {R"({"gpus": "4", "now": "2025-01-01", "team": {"__entity": {"type": "Team", "id": "ml"}}, "tags": [],
           "ok": true})",
       Record({{"gpus", String("4")}, {"now", String("2025-01-01")}, {"team", Entity("Team", "ml")},
               {"tags", Set({})}, {"ok", Bool(true)}}),
       "context: context: attribute `gpus`: expected `Long`, found a string"},
      // A missing attribute.
      {R"({"gpus": 4})", Record({{"gpus", Long(4)}}), "context: context: lacks the required attribute `now`"},
      // An undeclared attribute.
      {R"({"gpus": 4, "now": "2025-01-01", "team": {"__entity": {"type": "Team", "id": "ml"}}, "tags": [],
           "ok": true, "extra": 1})",
       Record({{"gpus", Long(4)}, {"now", String("2025-01-01")}, {"team", Entity("Team", "ml")}, {"tags", Set({})},
               {"ok", Bool(true)}, {"extra", Long(1)}}),
       "context: context: attribute `extra` is not declared in the schema"},
      // A bad datetime.
      {R"({"gpus": 4, "now": {"__extn": {"fn": "datetime", "arg": "yesterday"}},
           "team": {"__entity": {"type": "Team", "id": "ml"}}, "tags": [], "ok": true})",
       Record({{"gpus", Long(4)}, {"now", Extn("datetime", "yesterday")}, {"team", Entity("Team", "ml")},
               {"tags", Set({})}, {"ok", Bool(true)}}),
       ""},
      // An entity of the wrong type.
      {R"({"gpus": 4, "now": "2025-01-01", "team": {"__entity": {"type": "User", "id": "ml"}}, "tags": [],
           "ok": true})",
       Record({{"gpus", Long(4)}, {"now", String("2025-01-01")}, {"team", Entity("User", "ml")}, {"tags", Set({})},
               {"ok", Bool(true)}}),
       "context: context: attribute `team`: expected an entity of type `Team`, found `User::\"ml\"`"},
      // `unknown`, refused whatever the type.
      {R"({"gpus": {"__extn": {"fn": "unknown", "arg": "x"}}})",
       Record({{"gpus", Record({{"__extn", Record({{"fn", String("unknown")}, {"arg", String("x")}})}})}}), ""},
  };
  for (Case& c : cases) {
    charter_status refused = CHARTER_OK;
    w.Both(c.json, c.value, true, &refused);
    EXPECT_EQ(refused, CHARTER_ERROR_INVALID_ARGUMENT) << c.json;
    if (!c.message.empty()) {
      EXPECT_EQ(w.last_error, c.message) << "json: " << w.last_json_error;
    }
  }
  // Untyped, an unknown extension function is refused both ways.
  charter_status refused = CHARTER_OK;
  w.Both(R"({"x": {"__extn": {"fn": "nope", "arg": "1"}}})", Record({{"x", Extn("nope", "1")}}), false, &refused);
  EXPECT_EQ(refused, CHARTER_ERROR_INVALID_ARGUMENT);
  // So is a key given twice (a value can say it; JSON text too).
  w.Both(R"({"x": 1, "x": 2})", Record({{"x", Long(1)}, {"x", Long(2)}}), false, &refused);
  EXPECT_EQ(refused, CHARTER_ERROR_INVALID_ARGUMENT);
}

TEST(CApiValue, BadArguments) {
  charter_error* e = nullptr;
  charter_value* v = nullptr;
  EXPECT_EQ(charter_value_long(1, nullptr, &e), CHARTER_ERROR_NULL_HANDLE);
  charter_error_free(e);
  e = nullptr;
  EXPECT_EQ(charter_value_string(nullptr, 3, &v, &e), CHARTER_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(Message(e), "the string is NULL with a nonzero length");
  charter_error_free(e);
  e = nullptr;
  EXPECT_EQ(charter_value_string("\xff", 1, &v, &e), CHARTER_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(Message(e), "the string is not UTF-8");
  charter_error_free(e);
  e = nullptr;
  EXPECT_EQ(charter_value_entity(nullptr, &v, &e), CHARTER_ERROR_NULL_HANDLE);
  charter_error_free(e);
  e = nullptr;
  // An entity's type is checked where it is used, as in JSON text.
  charter_uid empty = Uid("", "x");
  ASSERT_EQ(charter_value_entity(&empty, &v, &e), CHARTER_OK);
  charter_value* bad = Record({{"t", v}});
  charter_uid p0 = Uid("User", "alice"), a0 = Uid("Action", "submit"), r0 = Uid("Task", "t1");
  charter_request* q0 = nullptr;
  EXPECT_EQ(charter_request_new_value(&p0, &a0, &r0, bad, nullptr, nullptr, 0, &q0, &e),
            CHARTER_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(Message(e), "context: context: attribute `t`: `` is not a valid entity type name");
  charter_error_free(e);
  e = nullptr;
  charter_value_free(bad);
  EXPECT_EQ(charter_value_string(nullptr, 0, &v, &e), CHARTER_OK);  // the empty string
  EXPECT_EQ(charter_value_get_kind(v), CHARTER_VALUE_STRING);

  charter_value* set = Set({});
  charter_value* record = Record({});
  // Wrong kinds: a set is added to, a record keyed.
  EXPECT_EQ(charter_value_set_add(record, v, &e), CHARTER_ERROR_INVALID_ARGUMENT);
  charter_error_free(e);
  e = nullptr;
  EXPECT_EQ(charter_value_record_add(set, "k", 1, v, &e), CHARTER_ERROR_INVALID_ARGUMENT);
  charter_error_free(e);
  e = nullptr;
  EXPECT_EQ(charter_value_set_add(v, set, &e), CHARTER_ERROR_INVALID_ARGUMENT);  // a string is no set
  charter_error_free(e);
  e = nullptr;
  EXPECT_EQ(charter_value_set_add(set, set, &e), CHARTER_ERROR_INVALID_ARGUMENT);
  charter_error_free(e);
  e = nullptr;
  EXPECT_EQ(charter_value_record_add(record, "k", 1, record, &e), CHARTER_ERROR_INVALID_ARGUMENT);
  charter_error_free(e);
  e = nullptr;
  // NULL handles.
  EXPECT_EQ(charter_value_set_add(nullptr, v, &e), CHARTER_ERROR_NULL_HANDLE);
  charter_error_free(e);
  e = nullptr;
  EXPECT_EQ(charter_value_set_add(set, nullptr, &e), CHARTER_ERROR_NULL_HANDLE);
  charter_error_free(e);
  e = nullptr;
  EXPECT_EQ(charter_value_record_add(record, nullptr, 1, v, &e), CHARTER_ERROR_INVALID_ARGUMENT);
  charter_error_free(e);
  e = nullptr;
  EXPECT_EQ(charter_value_get_kind(nullptr), -1);
  // The failures left `v` with the caller; a success takes it.
  EXPECT_EQ(charter_value_get_kind(v), CHARTER_VALUE_STRING);
  ASSERT_EQ(charter_value_set_add(set, v, &e), CHARTER_OK);
  // A handle of another kind is refused.
  charter_eval_context* context = nullptr;
  ASSERT_EQ(charter_eval_context_new(&context, nullptr), CHARTER_OK);
  EXPECT_EQ(charter_value_set_add(set, reinterpret_cast<charter_value*>(context), &e), CHARTER_ERROR_BAD_HANDLE);
  charter_error_free(e);
  e = nullptr;
  EXPECT_EQ(charter_value_get_kind(reinterpret_cast<charter_value*>(context)), -1);
  charter_eval_context_free(context);

  // A context that is not a record; a NULL context is the empty one.
  charter_uid p = Uid("User", "alice"), a = Uid("Action", "submit"), r = Uid("Task", "t1");
  charter_request* q = nullptr;
  EXPECT_EQ(charter_request_new_value(&p, &a, &r, set, nullptr, nullptr, 0, &q, &e), CHARTER_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(Message(e), "the context must be a record (charter_value_record)");
  charter_error_free(e);
  e = nullptr;
  EXPECT_EQ(charter_request_new_value(nullptr, &a, &r, nullptr, nullptr, nullptr, 0, &q, &e),
            CHARTER_ERROR_NULL_HANDLE);
  charter_error_free(e);
  e = nullptr;
  EXPECT_EQ(charter_request_new_value(&p, &a, &r, nullptr, nullptr, nullptr, 0, nullptr, &e),
            CHARTER_ERROR_NULL_HANDLE);
  charter_error_free(e);
  e = nullptr;
  ASSERT_EQ(charter_request_new_value(&p, &a, &r, nullptr, nullptr, nullptr, 0, &q, &e), CHARTER_OK);
  charter_request_free(q);
  // The context is read, not taken: used twice, then freed.
  ASSERT_EQ(charter_request_new_value(&p, &a, &r, record, nullptr, nullptr, 0, &q, &e), CHARTER_OK);
  charter_request_free(q);
  ASSERT_EQ(charter_request_new_value(&p, &a, &r, record, nullptr, nullptr, 0, &q, &e), CHARTER_OK);
  charter_request_free(q);
  charter_value_free(set);
  charter_value_free(record);
  charter_value_free(nullptr);
}

// A record used as a context is settled; adding to it afterwards, or adding
// it to another record, still gives the value it holds.
TEST(CApiValue, UsedThenAddedTo) {
  charter_uid p = Uid("User", "alice"), a = Uid("Action", "submit"), r = Uid("Task", "t1");
  charter_value* context = Record({{"x", Long(1)}, {"xs", Set({Long(1)})}});
  charter_request* q = nullptr;
  auto cedar = [&](const charter_value* c) {
    EXPECT_EQ(charter_request_new_value(&p, &a, &r, c, nullptr, nullptr, 0, &q, nullptr), CHARTER_OK);
    char* text = nullptr;
    size_t n = 0;
    EXPECT_EQ(charter_request_context_cedar(q, &text, &n, nullptr), CHARTER_OK);
    std::string out(text, n);
    charter_free(text);
    charter_request_free(q);
    return out;
  };
  EXPECT_EQ(cedar(context), cedar(context));
  ASSERT_EQ(charter_value_record_add(context, "y", 1, String("z"), nullptr), CHARTER_OK);
  std::string with_y = cedar(context);
  EXPECT_NE(with_y.find("\"y\": \"z\""), std::string::npos) << with_y;
  EXPECT_NE(with_y.find("\"x\": 1"), std::string::npos) << with_y;
  charter_value* outer = Record({});
  ASSERT_EQ(charter_value_record_add(outer, "inner", 5, context, nullptr), CHARTER_OK);  // takes it, settled
  std::string nested = cedar(outer);
  EXPECT_NE(nested.find("\"inner\": {"), std::string::npos) << nested;
  EXPECT_NE(nested.find("\"y\": \"z\""), std::string::npos) << nested;
  charter_value* set = Set({Long(1)});
  char* json = nullptr;
  ASSERT_EQ(charter_value_json(set, &json, nullptr, nullptr), CHARTER_OK);
  charter_free(json);
  ASSERT_EQ(charter_value_set_add(set, Long(2), nullptr), CHARTER_OK);
  ASSERT_EQ(charter_value_json(set, &json, nullptr, nullptr), CHARTER_OK);
  EXPECT_STREQ(json, "[1,2]");
  charter_free(json);
  charter_value_free(set);
  charter_value_free(outer);
}

TEST(CApiValue, EntitiesBuiltInCodeOverAStore) {
  World w;
  // bob joins team ml for this request only, with a tag.
  charter_uid uid = Uid("User", "bob");
  charter_uid team = Uid("Team", "ml");
  const charter_uid* parents[1] = {&team};
  size_t parent_counts[1] = {1};
  charter_value* attrs = Record({});
  const charter_value* attr_list[1] = {attrs};
  charter_entities* extended = nullptr;
  charter_error* e = nullptr;
  ASSERT_EQ(charter_entities_extend_values(w.entities, 1, &uid, attr_list, nullptr, parents, parent_counts, &extended,
                                           &e),
            CHARTER_OK)
      << Message(e);
  EXPECT_EQ(charter_entities_size(extended), charter_entities_size(w.entities) + 1);
  EXPECT_EQ(charter_entities_contains(extended, &uid), 1);
  charter_uid a = Uid("Action", "submit"), r = Uid("Task", "t1");
  charter_request* q = nullptr;
  charter_value* context = FullContext();
  ASSERT_EQ(charter_request_new_value(&uid, &a, &r, context, w.schema, nullptr, 0, &q, &e), CHARTER_OK) << Message(e);
  EXPECT_NE(Decide(w.engine, extended, q).find("\"allow\""), std::string::npos);
  EXPECT_NE(Decide(w.engine, w.entities, q).find("\"deny\""), std::string::npos);
  charter_request_free(q);
  charter_value_free(context);
  charter_entities_free(extended);
  // Checked against the store's schema: User declares no attribute `x`.
  charter_value_record_add(attrs, "x", 1, Long(1), nullptr);
  EXPECT_EQ(charter_entities_extend_values(w.entities, 1, &uid, attr_list, nullptr, parents, parent_counts, &extended,
                                           &e),
            CHARTER_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(Message(e).find("entity User::\"bob\""), std::string::npos) << Message(e);
  charter_error_free(e);
  e = nullptr;
  // Bad arguments.
  EXPECT_EQ(charter_entities_extend_values(nullptr, 0, nullptr, nullptr, nullptr, nullptr, nullptr, &extended, &e),
            CHARTER_ERROR_NULL_HANDLE);
  charter_error_free(e);
  e = nullptr;
  EXPECT_EQ(charter_entities_extend_values(w.entities, 1, nullptr, nullptr, nullptr, nullptr, nullptr, &extended, &e),
            CHARTER_ERROR_NULL_HANDLE);
  charter_error_free(e);
  e = nullptr;
  const charter_value* not_record[1] = {Long(3)};
  EXPECT_EQ(charter_entities_extend_values(w.entities, 1, &uid, not_record, nullptr, nullptr, nullptr, &extended, &e),
            CHARTER_ERROR_INVALID_ARGUMENT);
  charter_error_free(e);
  charter_value_free(const_cast<charter_value*>(not_record[0]));
  charter_value_free(attrs);
}

}  // namespace
