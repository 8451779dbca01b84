// The C API's version 3 (bindings/c/include/charter.h, "version 3"): schema
// handles, diagnostics, compile options, policy ids and warnings, a store's
// uids, uid parse and format, requests and queries read with a schema, and a
// scheduling scenario: what the Python binding is built on.
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "charter.h"
#include "gtest/gtest.h"

namespace {

constexpr std::string_view kSchema = R"(
entity Team;
entity User in [Team] { suspended?: Bool };
entity Task;
action submit appliesTo { principal: User, resource: Task, context: { gpus: Long } };
action view appliesTo { principal: User, resource: Task };
)";

constexpr std::string_view kPolicies = R"(@id("ml-submit")
permit (principal in Team::"ml", action == Action::"submit", resource) when { context.gpus <= 8 };
@id("never") permit (principal is Task, action, resource);
)";

constexpr std::string_view kEntities = R"([
  {"uid": {"type": "User", "id": "alice"}, "attrs": {}, "parents": [{"type": "Team", "id": "ml"}]},
  {"uid": {"type": "Team", "id": "ml"}, "attrs": {}, "parents": []},
  {"uid": {"type": "Task", "id": "t1"}, "attrs": {}, "parents": []}
])";

std::string Str(const char* p, size_t n) { return p == nullptr ? std::string() : std::string(p, n); }

// A (pointer, length) result as a string: the call, then its length.
template <typename F>
std::string Get(F f) {
  size_t n = 0;
  const char* p = f(&n);
  return Str(p, n);
}

std::string Message(charter_error* e) {
  size_t n = 0;
  const char* m = charter_error_message(e, &n);
  return Str(m, n);
}

charter_uid Uid(std::string_view type, std::string_view id) {
  return charter_uid{type.data(), type.size(), id.data(), id.size()};
}

struct Typed {
  charter_schema* schema = nullptr;
  charter_engine* engine = nullptr;
  charter_entities* entities = nullptr;
  Typed() {
    charter_error* e = nullptr;
    EXPECT_EQ(charter_schema_parse(kSchema.data(), kSchema.size(), nullptr, 0, &schema, &e), CHARTER_OK);
    charter_compile_options options{};
    options.schema = schema;
    EXPECT_EQ(charter_engine_compile_with(kPolicies.data(), kPolicies.size(), &options, &engine, &e), CHARTER_OK)
        << Message(e);
    EXPECT_EQ(charter_entities_from_json_with(kEntities.data(), kEntities.size(), schema, nullptr, 0, &entities, &e),
              CHARTER_OK)
        << Message(e);
  }
  ~Typed() {
    charter_entities_free(entities);
    charter_engine_free(engine);
    charter_schema_free(schema);
  }
};

TEST(CApiV3, VersionIsAtLeastThree) { EXPECT_GE(charter_c_api_version(), 3); }

TEST(CApiV3, SchemaHandle) {
  Typed t;
  size_t n = 0;
  EXPECT_EQ(Get([&](size_t* len) { return charter_schema_fingerprint(t.schema, len); }).rfind("sha256:", 0), 0u);
  ASSERT_EQ(charter_schema_entity_type_count(t.schema), 3u);
  const char* type = charter_schema_entity_type(t.schema, 0, &n);
  EXPECT_EQ(Str(type, n), "Task");
  EXPECT_EQ(charter_schema_entity_type(t.schema, 3, &n), nullptr);
  ASSERT_EQ(charter_schema_action_count(t.schema), 2u);
  const char* action = charter_schema_action(t.schema, 0, &n);
  EXPECT_EQ(Str(action, n), "Action::\"submit\"");
  // Its JSON reads back as the same schema.
  const std::string want = Get([&](size_t* len) { return charter_schema_fingerprint(t.schema, len); });
  const char* json = charter_schema_json(t.schema, &n);
  charter_schema* again = nullptr;
  charter_error* e = nullptr;
  ASSERT_EQ(charter_schema_parse(json, n, nullptr, 0, &again, &e), CHARTER_OK);
  EXPECT_EQ(Get([&](size_t* len) { return charter_schema_fingerprint(again, len); }), want);
  charter_schema_free(again);
  // The engine and the store know the schema they were made with.
  EXPECT_EQ(Get([&](size_t* len) { return charter_engine_schema_fingerprint(t.engine, len); }), Get([&](size_t* len) { return charter_schema_fingerprint(t.schema, len); }));
  EXPECT_EQ(Get([&](size_t* len) { return charter_entities_schema_fingerprint(t.entities, len); }), Get([&](size_t* len) { return charter_schema_fingerprint(t.schema, len); }));
}

TEST(CApiV3, SchemaFaultHasEveryDiagnostic) {
  constexpr std::string_view bad = "entity User;\nentity User;\n";
  charter_schema* schema = nullptr;
  charter_error* e = nullptr;
  ASSERT_EQ(charter_schema_parse(bad.data(), bad.size(), nullptr, 0, &schema, &e), CHARTER_ERROR_INVALID_ARGUMENT);
  ASSERT_GE(charter_error_diagnostic_count(e), 1u);
  charter_diagnostic d;
  ASSERT_EQ(charter_error_diagnostic(e, 0, &d), 1);
  EXPECT_EQ(d.severity, CHARTER_SEVERITY_ERROR);
  EXPECT_EQ(Str(d.source, d.source_length), "schema.cedarschema");
  EXPECT_EQ(d.line, 2u);
  size_t n = 0;
  const char* code = charter_error_code(e, &n);
  EXPECT_EQ(Str(code, n), Str(d.code, d.code_length));
  EXPECT_FALSE(Str(code, n).empty());
  EXPECT_EQ(charter_error_diagnostic(e, 99, &d), 0);
  charter_error_free(e);
}

TEST(CApiV3, CompileOptionsNameTheSourceAndLinkTemplates) {
  constexpr std::string_view bad = "permit (principal, action, resource)\nwhen { && };";
  charter_compile_options options{};
  options.source_name = "mine.cedar";
  options.source_name_length = 10;
  charter_engine* engine = nullptr;
  charter_error* e = nullptr;
  ASSERT_NE(charter_engine_compile_with(bad.data(), bad.size(), &options, &engine, &e), CHARTER_OK);
  EXPECT_EQ(Message(e).rfind("mine.cedar:2:", 0), 0u) << Message(e);
  size_t n = 0;
  EXPECT_EQ(Get([&](size_t* len) { return charter_error_source(e, len); }), "mine.cedar");
  EXPECT_EQ(Get([&](size_t* len) { return charter_error_code(e, len); }).rfind("CH", 0), 0u);
  charter_error_free(e);

  constexpr std::string_view templ = R"(@id("t") permit (principal == ?principal, action, resource);)";
  constexpr std::string_view links =
      R"([{"template_id": "t", "link_id": "alice-may", "args": {"?principal": "User::\"alice\""}}])";
  charter_compile_options linked{};
  linked.links_json = links.data();
  linked.links_json_length = links.size();
  ASSERT_EQ(charter_engine_compile_with(templ.data(), templ.size(), &linked, &engine, &e), CHARTER_OK) << Message(e);
  ASSERT_EQ(charter_engine_policy_count(engine), 1u);
  EXPECT_EQ(Get([&](size_t* len) { return charter_engine_policy_id(engine, 0, len); }), "alice-may");
  EXPECT_EQ(charter_engine_policy_index(engine, "alice-may", 9), 0u);
  EXPECT_EQ(charter_engine_policy_index(engine, "t", 1), SIZE_MAX);
  EXPECT_EQ(charter_engine_policy_id(engine, 1, &n), nullptr);
  charter_engine_free(engine);
}

TEST(CApiV3, WarningsAndNullEntitiesOfATypedEngine) {
  Typed t;
  const size_t count = charter_engine_warning_count(t.engine);
  ASSERT_GE(count, 1u);
  bool never = false;  // `principal is Task` never applies (line 3)
  charter_diagnostic d;
  for (size_t i = 0; i < count; ++i) {
    ASSERT_EQ(charter_engine_warning(t.engine, i, &d), 1);
    EXPECT_EQ(d.severity, CHARTER_SEVERITY_WARNING);
    EXPECT_EQ(Str(d.source, d.source_length), "policies.cedar");
    never = never || d.line == 3u;
  }
  EXPECT_TRUE(never);
  EXPECT_EQ(charter_engine_warning(t.engine, count, &d), 0);
  // NULL entities are the schema's actions: a typed engine decides with them.
  charter_uid p = Uid("User", "alice"), a = Uid("Action", "view"), r = Uid("Task", "t1");
  charter_request* request = nullptr;
  charter_error* e = nullptr;
  ASSERT_EQ(charter_request_new_with(&p, &a, &r, nullptr, 0, t.schema, nullptr, 0, &request, &e), CHARTER_OK);
  charter_eval_context* context = nullptr;
  ASSERT_EQ(charter_eval_context_new(&context, &e), CHARTER_OK);
  EXPECT_EQ(charter_authorize(t.engine, nullptr, request, context, &e), CHARTER_OK);
  charter_eval_context_free(context);
  charter_request_free(request);
}

TEST(CApiV3, StoreUidsAndContains) {
  Typed t;
  charter_uid uid;
  ASSERT_EQ(charter_entities_uid(t.entities, 0, &uid), 1);
  EXPECT_EQ(Str(uid.type, uid.type_length), "User");
  EXPECT_EQ(Str(uid.id, uid.id_length), "alice");
  size_t count = 0;
  while (charter_entities_uid(t.entities, count, &uid)) ++count;
  EXPECT_EQ(count, charter_entities_size(t.entities));
  charter_uid alice = Uid("User", "alice"), zed = Uid("User", "zed");
  EXPECT_EQ(charter_entities_contains(t.entities, &alice), 1);
  EXPECT_EQ(charter_entities_contains(t.entities, &zed), 0);
}

TEST(CApiV3, UidParseAndFormat) {
  constexpr std::string_view text = R"(NS::User::"a\"b")";
  char buffer[64];
  charter_uid uid;
  charter_error* e = nullptr;
  ASSERT_EQ(charter_uid_parse(text.data(), text.size(), buffer, sizeof(buffer), &uid, &e), CHARTER_OK);
  EXPECT_EQ(Str(uid.type, uid.type_length), "NS::User");
  EXPECT_EQ(Str(uid.id, uid.id_length), "a\"b");
  char* out = nullptr;
  size_t n = 0;
  ASSERT_EQ(charter_uid_format(&uid, &out, &n, &e), CHARTER_OK);
  EXPECT_EQ(Str(out, n), text);
  charter_free(out);
  // Too small a buffer, a bad text, a type that is a reserved word.
  EXPECT_EQ(charter_uid_parse(text.data(), text.size(), buffer, 3, &uid, &e), CHARTER_ERROR_LIMIT_EXCEEDED);
  charter_error_free(e);
  e = nullptr;
  EXPECT_EQ(charter_uid_parse("User::alice", 11, buffer, sizeof(buffer), &uid, &e), CHARTER_ERROR_INVALID_ARGUMENT);
  charter_error_free(e);
  e = nullptr;
  charter_uid reserved = Uid("if", "x");
  EXPECT_EQ(charter_uid_format(&reserved, &out, &n, &e), CHARTER_ERROR_INVALID_ARGUMENT);
  std::string refused = Message(e);
  charter_error_free(e);
  e = nullptr;
  EXPECT_EQ(charter_uid_parse("if::\"x\"", 7, buffer, sizeof(buffer), &uid, &e), CHARTER_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(refused, Message(e));  // the same words as the parser's
  charter_error_free(e);
}

TEST(CApiV3, RequestsAreReadWithTheSchema) {
  Typed t;
  charter_uid p = Uid("User", "alice"), a = Uid("Action", "submit"), r = Uid("Task", "t1");
  charter_request* request = nullptr;
  charter_error* e = nullptr;
  constexpr std::string_view bad = R"({"gpus": "two"})";
  ASSERT_EQ(charter_request_new_with(&p, &a, &r, bad.data(), bad.size(), t.schema, "ctx", 3, &request, &e),
            CHARTER_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(Message(e).find("gpus"), std::string::npos) << Message(e);
  charter_error_free(e);
  e = nullptr;
  constexpr std::string_view good = R"({"gpus": 2})";
  ASSERT_EQ(charter_request_new_with(&p, &a, &r, good.data(), good.size(), t.schema, nullptr, 0, &request, &e),
            CHARTER_OK)
      << Message(e);
  charter_uid back;
  ASSERT_EQ(charter_request_uid(request, 1, &back), 1);
  EXPECT_EQ(Str(back.id, back.id_length), "submit");
  EXPECT_EQ(charter_request_uid(request, 3, &back), 0);
  char* cedar = nullptr;
  size_t n = 0;
  ASSERT_EQ(charter_request_context_cedar(request, &cedar, &n, &e), CHARTER_OK);
  EXPECT_EQ(Str(cedar, n), "{\"gpus\": 2}");
  charter_free(cedar);
  charter_eval_context* context = nullptr;
  ASSERT_EQ(charter_eval_context_new(&context, &e), CHARTER_OK);
  ASSERT_EQ(charter_authorize(t.engine, t.entities, request, context, &e), CHARTER_OK);
  EXPECT_EQ(charter_eval_context_allowed(context), 1);
  charter_eval_context_free(context);
  charter_request_free(request);
}

TEST(CApiV3, TypedBundleNeedsItsSchema) {
  Typed t;
  charter_compile_options options{};
  options.schema = t.schema;
  void* bytes = nullptr;
  size_t length = 0;
  charter_error* e = nullptr;
  ASSERT_EQ(charter_compile_bundle_with(kPolicies.data(), kPolicies.size(), &options, &bytes, &length, &e),
            CHARTER_OK);
  charter_engine* engine = nullptr;
  EXPECT_EQ(charter_engine_from_bundle_with(bytes, length, nullptr, &engine, &e), CHARTER_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(Message(e).find("no schema was given"), std::string::npos) << Message(e);
  charter_error_free(e);
  e = nullptr;
  ASSERT_EQ(charter_engine_from_bundle_with(bytes, length, t.schema, &engine, &e), CHARTER_OK) << Message(e);
  // A query on it is read with the schema: an undeclared type is refused.
  charter_uid alice = Uid("User", "alice"), submit = Uid("Action", "submit");
  charter_query* query = nullptr;
  EXPECT_EQ(charter_query_new(engine, CHARTER_UNKNOWN_RESOURCE, &alice, &submit, "Tsk", 3, nullptr, 0, nullptr, 0,
                              &query, &e),
            CHARTER_ERROR_INVALID_ARGUMENT);
  charter_error_free(e);
  e = nullptr;
  constexpr std::string_view context = R"({"gpus": 1})";
  ASSERT_EQ(charter_query_new(engine, CHARTER_UNKNOWN_RESOURCE, &alice, &submit, "Task", 4, context.data(),
                              context.size(), "context", 7, &query, &e),
            CHARTER_OK)
      << Message(e);
  charter_match_page* page = nullptr;
  ASSERT_EQ(charter_list_allowed_page(engine, t.entities, query, 0, 10, &page, &e), CHARTER_OK) << Message(e);
  ASSERT_EQ(charter_match_page_count(page), 1u);
  EXPECT_EQ(Get([&](size_t* len) { return charter_match_id(charter_match_page_at(page, 0), len); }), "t1");
  charter_match_page_free(page);
  charter_query_free(query);
  charter_engine_free(engine);
  charter_free(bytes);
}

TEST(CApiV3, ScheduleScenario) {
  constexpr std::string_view state = R"({"scenarios": [
    {"id": "one", "resource_flavors": ["default"], "cluster_queues": [], "pending": []},
    {"id": "two", "resource_flavors": ["default"], "cluster_queues": [], "pending": []}]})";
  char* result = nullptr;
  size_t n = 0;
  charter_error* e = nullptr;
  EXPECT_EQ(charter_schedule_cycle_with(state.data(), state.size(), 0, nullptr, 0, &result, &n, &e),
            CHARTER_ERROR_INVALID_ARGUMENT);  // two scenarios: name one
  charter_error_free(e);
  e = nullptr;
  ASSERT_EQ(charter_schedule_cycle_with(state.data(), state.size(), 0, "two", 3, &result, &n, &e), CHARTER_OK)
      << Message(e);
  EXPECT_GT(n, 0u);
  charter_free(result);
}

}  // namespace
