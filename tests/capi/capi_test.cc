// The C API (bindings/c/include/charter.h): decisions, errors with places,
// NULL and bad handles, the engine handle's swap, entity extension, bundles
// and the scheduling cycle. (examples/embedding/decide.c, built as a C11
// program against the installed library, is tested by tests/consumer.)
#include "charter.h"

#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "charter/charter.h"
#include "gtest/gtest.h"

namespace {

constexpr std::string_view kPolicies = R"(
@id("ml-submit")
permit (principal in Team::"ml", action == Action::"submit", resource)
when { context.gpus <= 8 };

@id("suspended")
forbid (principal, action, resource) when { principal has suspended && principal.suspended };

@id("errs")
permit (principal, action == Action::"view", resource) when { principal.missing == 1 };
)";

constexpr std::string_view kEntities = R"([
  {"uid": {"type": "User", "id": "alice"}, "attrs": {}, "parents": [{"type": "Team", "id": "ml"}]},
  {"uid": {"type": "User", "id": "bob"}, "attrs": {"suspended": true}, "parents": [{"type": "Team", "id": "ml"}]}
])";

std::string Message(charter_error* e) {
  size_t n = 0;
  const char* m = charter_error_message(e, &n);
  return std::string(m, n);
}

// Owns what a test makes, freeing it at the end.
struct Fixture {
  charter_engine* engine = nullptr;
  charter_entities* entities = nullptr;
  charter_eval_context* context = nullptr;
  Fixture() {
    charter_error* e = nullptr;
    EXPECT_EQ(charter_engine_compile(kPolicies.data(), kPolicies.size(), nullptr, 0, &engine, &e), CHARTER_OK)
        << Message(e);
    EXPECT_EQ(charter_entities_from_json(kEntities.data(), kEntities.size(), nullptr, 0, &entities, &e), CHARTER_OK)
        << Message(e);
    EXPECT_EQ(charter_eval_context_new(&context, &e), CHARTER_OK);
  }
  ~Fixture() {
    charter_eval_context_free(context);
    charter_entities_free(entities);
    charter_engine_free(engine);
  }
};

charter_request* MakeRequest(std::string_view principal, std::string_view action, std::string_view context) {
  std::string_view resource = "Task::\"t1\"";
  charter_request* r = nullptr;
  charter_error* e = nullptr;
  EXPECT_EQ(charter_request_new(principal.data(), principal.size(), action.data(), action.size(), resource.data(),
                                resource.size(), context.data(), context.size(), &r, &e),
            CHARTER_OK)
      << Message(e);
  return r;
}

std::vector<std::string> Reasons(const charter_eval_context* c) {
  std::vector<std::string> out;
  for (size_t i = 0; i < charter_eval_context_reason_count(c); ++i) {
    size_t n = 0;
    const char* p = charter_eval_context_reason(c, i, &n);
    out.emplace_back(p, n);
  }
  return out;
}

TEST(CApi, Version) {
  EXPECT_EQ(std::string(charter_version()), std::string(charter::Version()));
  EXPECT_EQ(charter_c_api_version(), CHARTER_C_API_VERSION);
  EXPECT_STREQ(charter_status_name(CHARTER_ERROR_BAD_HANDLE), "bad_handle");
}

TEST(CApi, DecidesAsTheCppApi) {
  Fixture f;
  ASSERT_EQ(charter_engine_policy_count(f.engine), 3u);
  ASSERT_EQ(charter_entities_size(f.entities), 2u);
  charter_error* e = nullptr;

  charter_request* alice = MakeRequest("User::\"alice\"", "Action::\"submit\"", R"({"gpus": 4})");
  ASSERT_EQ(charter_authorize(f.engine, f.entities, alice, f.context, &e), CHARTER_OK);
  EXPECT_EQ(charter_eval_context_allowed(f.context), 1);
  EXPECT_EQ(Reasons(f.context), std::vector<std::string>{"ml-submit"});
  char* json = nullptr;
  size_t json_length = 0;
  ASSERT_EQ(charter_eval_context_decision_json(f.context, &json, &json_length, &e), CHARTER_OK);
  EXPECT_EQ(std::string(json, json_length), R"({"decision":"allow","reasons":["ml-submit"],"errors":[]})");
  EXPECT_EQ(std::strlen(json), json_length);
  charter_free(json);

  charter_request* many = MakeRequest("User::\"alice\"", "Action::\"submit\"", R"({"gpus": 16})");
  ASSERT_EQ(charter_authorize(f.engine, f.entities, many, f.context, &e), CHARTER_OK);
  EXPECT_EQ(charter_eval_context_allowed(f.context), 0);
  EXPECT_TRUE(Reasons(f.context).empty());

  charter_request* bob = MakeRequest("User::\"bob\"", "Action::\"submit\"", R"({"gpus": 1})");
  ASSERT_EQ(charter_authorize(f.engine, f.entities, bob, f.context, &e), CHARTER_OK);
  EXPECT_EQ(charter_eval_context_allowed(f.context), 0);
  EXPECT_EQ(Reasons(f.context), std::vector<std::string>{"suspended"});

  // An erring policy is skipped and reported, not a failure of the call.
  charter_request* view = MakeRequest("User::\"alice\"", "Action::\"view\"", "");
  ASSERT_EQ(charter_authorize(f.engine, f.entities, view, f.context, &e), CHARTER_OK);
  EXPECT_EQ(charter_eval_context_allowed(f.context), 0);
  ASSERT_EQ(charter_eval_context_error_count(f.context), 1u);
  size_t n = 0;
  const char* policy = charter_eval_context_error_policy(f.context, 0, &n);
  EXPECT_EQ(std::string(policy, n), "errs");
  const char* message = charter_eval_context_error_message(f.context, 0, &n);
  EXPECT_NE(std::string(message, n).find("missing"), std::string::npos) << std::string(message, n);
  EXPECT_EQ(charter_eval_context_error_policy(f.context, 1, &n), nullptr);
  EXPECT_EQ(n, 0u);

  // No entities at all: alice is in no team.
  ASSERT_EQ(charter_authorize(f.engine, nullptr, alice, f.context, &e), CHARTER_OK);
  EXPECT_EQ(charter_eval_context_allowed(f.context), 0);

  for (charter_request* r : {alice, many, bob, view}) charter_request_free(r);
}

TEST(CApi, RequestsByUidsAndFromJson) {
  Fixture f;
  charter_error* e = nullptr;
  // Ids need no escaping as uids: a quote and a backslash.
  std::string_view id = "a\"b\\c";
  charter_uid p{"User", 4, id.data(), id.size()}, a{"Action", 6, "submit", 6}, r{"Task", 4, "t", 1};
  charter_request* request = nullptr;
  ASSERT_EQ(charter_request_new_uids(&p, &a, &r, nullptr, 0, &request, &e), CHARTER_OK) << Message(e);
  charter_request_free(request);

  std::string_view json = R"({"principal": {"type": "User", "id": "alice"}, "action": "Action::\"submit\"",
    "resource": "Task::\"t1\"", "context": {"gpus": 2}})";
  ASSERT_EQ(charter_request_from_json(json.data(), json.size(), &request, &e), CHARTER_OK) << Message(e);
  ASSERT_EQ(charter_authorize(f.engine, f.entities, request, f.context, &e), CHARTER_OK);
  EXPECT_EQ(charter_eval_context_allowed(f.context), 1);
  charter_request_free(request);

  std::string_view bad = R"({"principal": "User::\"alice\"", "action": 3})";
  ASSERT_EQ(charter_request_from_json(bad.data(), bad.size(), &request, &e), CHARTER_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(charter_error_source(e, nullptr)), "request.json");
  EXPECT_EQ(charter_error_line(e), 1u);
  EXPECT_GT(charter_error_column(e), 1u);
  charter_error_free(e);
}

TEST(CApi, BadRequestsSayWhy) {
  charter_error* e = nullptr;
  charter_request* r = nullptr;
  std::string_view principal = "alice", action = "Action::\"submit\"", resource = "Task::\"t\"";
  ASSERT_EQ(charter_request_new(principal.data(), principal.size(), action.data(), action.size(), resource.data(),
                                resource.size(), nullptr, 0, &r, &e),
            CHARTER_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(Message(e).find("the principal `alice` is not an entity reference"), std::string::npos) << Message(e);
  charter_error_free(e);

  std::string_view context = "{\"gpus\": tru}";
  principal = "User::\"alice\"";
  ASSERT_EQ(charter_request_new(principal.data(), principal.size(), action.data(), action.size(), resource.data(),
                                resource.size(), context.data(), context.size(), &r, &e),
            CHARTER_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(Message(e).rfind("context.json:1:10: ", 0), 0u) << Message(e);
  EXPECT_EQ(charter_error_line(e), 1u);
  EXPECT_EQ(charter_error_column(e), 10u);
  charter_error_free(e);

  // A NULL pointer with a length is refused, not read.
  ASSERT_EQ(charter_request_new(nullptr, 5, action.data(), action.size(), resource.data(), resource.size(), nullptr,
                                0, &r, &e),
            CHARTER_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(Message(e), "the principal is NULL with a nonzero length");
  charter_error_free(e);
  // Without an error out parameter, the status alone.
  EXPECT_EQ(charter_request_new(nullptr, 5, nullptr, 0, nullptr, 0, nullptr, 0, &r, nullptr),
            CHARTER_ERROR_INVALID_ARGUMENT);
}

TEST(CApi, PolicyErrorsHaveAPlaceAndADetail) {
  charter_error* e = nullptr;
  charter_engine* engine = nullptr;
  std::string_view text = "permit (principal, action, resource)\nwhen { 1 + };";
  ASSERT_EQ(charter_engine_compile(text.data(), text.size(), nullptr, 0, &engine, &e),
            CHARTER_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(engine, nullptr);
  EXPECT_EQ(charter_error_status(e), CHARTER_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(Message(e).rfind("policies.cedar:2:", 0), 0u) << Message(e);
  EXPECT_EQ(std::string(charter_error_source(e, nullptr)), "policies.cedar");
  EXPECT_EQ(charter_error_line(e), 2u);
  EXPECT_GT(charter_error_column(e), 0u);
  size_t n = 0;
  const char* d = charter_error_detail(e, &n);
  std::string detail(d, n);
  EXPECT_NE(detail.find("when { 1 + };"), std::string::npos) << detail;
  EXPECT_NE(detail.find('^'), std::string::npos) << detail;
  charter_error_free(e);

  // Validation against a schema: an unknown attribute fails the compile.
  std::string_view schema = "entity User; action view appliesTo { principal: User, resource: User };";
  std::string_view typed = "permit (principal, action == Action::\"view\", resource) when { principal.age > 3 };";
  ASSERT_EQ(charter_engine_compile(typed.data(), typed.size(), schema.data(), schema.size(), &engine, &e),
            CHARTER_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(Message(e).find("age"), std::string::npos) << Message(e);
  charter_error_free(e);
  std::string_view bad_schema = "entity User in ;";
  ASSERT_EQ(charter_engine_compile(typed.data(), typed.size(), bad_schema.data(), bad_schema.size(), &engine, &e),
            CHARTER_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(charter_error_source(e, nullptr)), "schema");
  EXPECT_EQ(charter_error_line(e), 1u);
  charter_error_free(e);
}

TEST(CApi, EntityErrorsHaveAPlace) {
  charter_error* e = nullptr;
  charter_entities* entities = nullptr;
  std::string_view json = "[\n  {\"uid\": {\"type\": \"User\", \"id\": \"a\"}, \"attrs\": {\"n\": 99999999999999999999}}\n]";
  ASSERT_EQ(charter_entities_from_json(json.data(), json.size(), nullptr, 0, &entities, &e),
            CHARTER_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(Message(e).rfind("entities.json:2:", 0), 0u) << Message(e);
  EXPECT_EQ(charter_error_line(e), 2u);
  charter_error_free(e);
}

TEST(CApi, NullAndBadHandlesAreStatuses) {
  Fixture f;
  charter_error* e = nullptr;
  charter_request* r = MakeRequest("User::\"alice\"", "Action::\"submit\"", R"({"gpus": 1})");

  EXPECT_EQ(charter_authorize(nullptr, f.entities, r, f.context, &e), CHARTER_ERROR_NULL_HANDLE);
  EXPECT_EQ(Message(e), "a NULL charter_engine handle");
  charter_error_free(e);
  EXPECT_EQ(charter_authorize(f.engine, f.entities, nullptr, f.context, &e), CHARTER_ERROR_NULL_HANDLE);
  charter_error_free(e);
  EXPECT_EQ(charter_authorize(f.engine, f.entities, r, nullptr, &e), CHARTER_ERROR_NULL_HANDLE);
  charter_error_free(e);

  // A handle of another kind, passed through a cast.
  auto* wrong = reinterpret_cast<const charter_engine*>(f.entities);
  EXPECT_EQ(charter_authorize(wrong, f.entities, r, f.context, &e), CHARTER_ERROR_BAD_HANDLE);
  EXPECT_NE(Message(e).find("not a live charter_engine handle"), std::string::npos);
  charter_error_free(e);
  EXPECT_EQ(charter_engine_policy_count(wrong), 0u);

  // A freed handle (its memory not yet reused) is refused too, and freeing
  // it again does nothing.
  charter_engine* engine = nullptr;
  ASSERT_EQ(charter_engine_compile(kPolicies.data(), kPolicies.size(), nullptr, 0, &engine, &e), CHARTER_OK);
  charter_engine_free(engine);
  EXPECT_EQ(charter_authorize(engine, f.entities, r, f.context, &e), CHARTER_ERROR_BAD_HANDLE);
  charter_error_free(e);
  charter_engine_free(engine);

  // Readers of a NULL handle answer "nothing".
  EXPECT_EQ(charter_eval_context_allowed(nullptr), 0);
  EXPECT_EQ(charter_eval_context_reason_count(nullptr), 0u);
  EXPECT_EQ(charter_entities_size(nullptr), 0u);
  EXPECT_EQ(charter_engine_handle_generation(nullptr), 0u);
  EXPECT_EQ(charter_error_status(nullptr), CHARTER_ERROR_NULL_HANDLE);
  EXPECT_EQ(std::string(charter_error_message(nullptr, nullptr)), "a NULL charter_error");
  // Out parameters must be given.
  EXPECT_EQ(charter_engine_compile(kPolicies.data(), kPolicies.size(), nullptr, 0, nullptr, &e),
            CHARTER_ERROR_NULL_HANDLE);
  charter_error_free(e);
  // Freeing NULL does nothing.
  charter_engine_free(nullptr);
  charter_entities_free(nullptr);
  charter_request_free(nullptr);
  charter_eval_context_free(nullptr);
  charter_engine_handle_free(nullptr);
  charter_error_free(nullptr);
  charter_request_free(r);
}

TEST(CApi, BundlesAndTheEngineHandle) {
  Fixture f;
  charter_error* e = nullptr;
  void* bytes = nullptr;
  size_t length = 0;
  ASSERT_EQ(charter_compile_bundle(kPolicies.data(), kPolicies.size(), nullptr, 0, &bytes, &length, &e), CHARTER_OK);
  charter_engine* from_bytes = nullptr;
  ASSERT_EQ(charter_engine_from_bundle(bytes, length, &from_bytes, &e), CHARTER_OK) << Message(e);
  EXPECT_EQ(charter_engine_policy_count(from_bytes), 3u);

  // A corrupt bundle is refused by the verifier.
  std::string corrupt(static_cast<const char*>(bytes), length);
  corrupt.resize(corrupt.size() / 2);
  charter_engine* bad = nullptr;
  EXPECT_EQ(charter_engine_from_bundle(corrupt.data(), corrupt.size(), &bad, &e), CHARTER_ERROR_INVALID_ARGUMENT);
  charter_error_free(e);
  charter_free(bytes);

  std::string_view deny_all = "@id(\"nobody\") forbid (principal, action, resource);";
  charter_engine* deny = nullptr;
  ASSERT_EQ(charter_engine_compile(deny_all.data(), deny_all.size(), nullptr, 0, &deny, &e), CHARTER_OK);

  charter_engine_handle* handle = nullptr;
  ASSERT_EQ(charter_engine_handle_new(from_bytes, &handle, &e), CHARTER_OK);
  charter_engine_free(from_bytes);  // the handle shares the engine
  EXPECT_EQ(charter_engine_handle_generation(handle), 1u);
  charter_request* r = MakeRequest("User::\"alice\"", "Action::\"submit\"", R"({"gpus": 1})");
  ASSERT_EQ(charter_engine_handle_authorize(handle, f.entities, r, f.context, &e), CHARTER_OK);
  EXPECT_EQ(charter_eval_context_allowed(f.context), 1);

  ASSERT_EQ(charter_engine_handle_swap(handle, deny, &e), CHARTER_OK);
  EXPECT_EQ(charter_engine_handle_generation(handle), 2u);
  ASSERT_EQ(charter_engine_handle_authorize(handle, f.entities, r, f.context, &e), CHARTER_OK);
  EXPECT_EQ(charter_eval_context_allowed(f.context), 0);
  EXPECT_EQ(Reasons(f.context), std::vector<std::string>{"nobody"});

  // A bundle that cannot be read leaves the current engine in place.
  std::string_view missing = "/nonexistent/charter-test.bundle";
  EXPECT_EQ(charter_engine_handle_swap_bundle(handle, missing.data(), missing.size(), &e), CHARTER_ERROR_NOT_FOUND);
  EXPECT_NE(Message(e).find(missing), std::string::npos) << Message(e);
  charter_error_free(e);
  EXPECT_EQ(charter_engine_handle_generation(handle), 2u);
  std::string_view path = "examples/governance/policies.cedar";  // not a bundle
  EXPECT_EQ(charter_engine_handle_swap_bundle(handle, path.data(), path.size(), &e), CHARTER_ERROR_INVALID_ARGUMENT);
  charter_error_free(e);
  EXPECT_EQ(charter_engine_handle_generation(handle), 2u);

  charter_request_free(r);
  charter_engine_free(deny);
  charter_engine_handle_free(handle);
}

// A path is its bytes, all of them: one with a NUL byte is refused, not
// opened as the path before the NUL (the file below exists under that
// shorter name). A NULL schema with a length is refused, not taken for no
// schema.
TEST(CApi, PathsWithANulByteAndNullSchemasWithALengthAreRefused) {
  charter_error* e = nullptr;
  void* bytes = nullptr;
  size_t length = 0;
  ASSERT_EQ(charter_compile_bundle(kPolicies.data(), kPolicies.size(), nullptr, 0, &bytes, &length, &e), CHARTER_OK);
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("charter-capi-nul-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::string good = (dir / "good.bundle").string();
  std::ofstream(good, std::ios::binary).write(static_cast<const char*>(bytes), static_cast<std::streamsize>(length));
  charter_free(bytes);

  charter_engine* engine = nullptr;
  ASSERT_EQ(charter_engine_load_bundle(good.data(), good.size(), &engine, &e), CHARTER_OK) << Message(e);
  charter_engine_handle* handle = nullptr;
  ASSERT_EQ(charter_engine_handle_new(engine, &handle, &e), CHARTER_OK);
  charter_engine_free(engine);
  engine = nullptr;

  std::string with_nul = good + std::string("\0.other", 7);
  EXPECT_EQ(charter_engine_load_bundle(with_nul.data(), with_nul.size(), &engine, &e), CHARTER_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(engine, nullptr);
  EXPECT_EQ(Message(e), "the path holds a NUL byte (at byte " + std::to_string(good.size()) + " of " +
                            std::to_string(with_nul.size()) + ")");
  charter_error_free(e);
  EXPECT_EQ(charter_engine_handle_swap_bundle(handle, with_nul.data(), with_nul.size(), &e),
            CHARTER_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(Message(e).rfind("the path holds a NUL byte", 0), 0u) << Message(e);
  charter_error_free(e);
  EXPECT_EQ(charter_engine_handle_generation(handle), 1u);
  charter_engine_handle_free(handle);
  std::filesystem::remove_all(dir);

  const std::string kNullSchema = "the schema is NULL with a nonzero length (pass NULL and 0 for no schema)";
  EXPECT_EQ(charter_engine_compile(kPolicies.data(), kPolicies.size(), nullptr, 12, &engine, &e),
            CHARTER_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(engine, nullptr);
  EXPECT_EQ(Message(e), kNullSchema);
  charter_error_free(e);
  bytes = nullptr;
  EXPECT_EQ(charter_compile_bundle(kPolicies.data(), kPolicies.size(), nullptr, 12, &bytes, &length, &e),
            CHARTER_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(bytes, nullptr);
  EXPECT_EQ(Message(e), kNullSchema);
  charter_error_free(e);
  charter_entities* entities = nullptr;
  EXPECT_EQ(charter_entities_from_json(kEntities.data(), kEntities.size(), nullptr, 12, &entities, &e),
            CHARTER_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(entities, nullptr);
  EXPECT_EQ(Message(e), kNullSchema);
  charter_error_free(e);
}

TEST(CApi, EntitiesExtendForOneRequest) {
  Fixture f;
  charter_error* e = nullptr;
  std::string_view extra = R"([{"uid": {"type": "User", "id": "carol"}, "attrs": {},
                               "parents": [{"type": "Team", "id": "ml"}]}])";
  charter_entities* extended = nullptr;
  ASSERT_EQ(charter_entities_extend(f.entities, extra.data(), extra.size(), &extended, &e), CHARTER_OK) << Message(e);
  EXPECT_EQ(charter_entities_size(extended), 3u);
  EXPECT_EQ(charter_entities_size(f.entities), 2u);
  charter_request* carol = MakeRequest("User::\"carol\"", "Action::\"submit\"", R"({"gpus": 1})");
  ASSERT_EQ(charter_authorize(f.engine, extended, carol, f.context, &e), CHARTER_OK);
  EXPECT_EQ(charter_eval_context_allowed(f.context), 1);
  ASSERT_EQ(charter_authorize(f.engine, f.entities, carol, f.context, &e), CHARTER_OK);
  EXPECT_EQ(charter_eval_context_allowed(f.context), 0);

  // A uid the base store has already is an error; so is a non-array.
  std::string_view dup = R"([{"uid": {"type": "User", "id": "alice"}, "attrs": {"x": 1}, "parents": []}])";
  charter_entities* bad = nullptr;
  EXPECT_EQ(charter_entities_extend(f.entities, dup.data(), dup.size(), &bad, &e), CHARTER_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(Message(e).find("alice"), std::string::npos) << Message(e);
  charter_error_free(e);
  std::string_view object = "{}";
  EXPECT_EQ(charter_entities_extend(f.entities, object.data(), object.size(), &bad, &e),
            CHARTER_ERROR_INVALID_ARGUMENT);
  charter_error_free(e);
  charter_request_free(carol);
  charter_entities_free(extended);
}

TEST(CApi, SchedulingCycle) {
  std::string_view state = R"({
    "resource_flavors": ["default"],
    "cluster_queues": [{"name": "team-a", "resource_groups": [{"covered_resources": ["cpu"],
      "flavors": [{"name": "default", "quotas": {"cpu": {"nominal": 4}}}]}]}],
    "pending": [{"name": "w1", "cluster_queue": "team-a", "pod_sets": [{"name": "main", "count": 2,
      "requests": {"cpu": "1"}}]}]})";
  charter_error* e = nullptr;
  char* result = nullptr;
  size_t length = 0;
  ASSERT_EQ(charter_schedule_cycle(state.data(), state.size(), 0, &result, &length, &e), CHARTER_OK) << Message(e);
  std::string out(result, length);
  charter_free(result);
  EXPECT_EQ(out.rfind(R"({"admitted":[{"name":"w1","cluster_queue":"team-a")", 0), 0u) << out;

  std::string_view bad = R"({"cluster_queues": [{"name": "q", "cohort": "nowhere"}]})";
  ASSERT_EQ(charter_schedule_cycle(bad.data(), bad.size(), 0, &result, &length, &e), CHARTER_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(charter_error_source(e, nullptr)), "state.json");
  EXPECT_EQ(charter_error_line(e), 1u);
  charter_error_free(e);
}

TEST(CApi, OneEngineManyThreads) {
  Fixture f;
  std::vector<std::thread> threads;
  std::vector<int> wrong(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      charter_eval_context* context = nullptr;
      charter_eval_context_new(&context, nullptr);
      charter_request* alice = MakeRequest("User::\"alice\"", "Action::\"submit\"", R"({"gpus": 1})");
      charter_request* bob = MakeRequest("User::\"bob\"", "Action::\"submit\"", R"({"gpus": 1})");
      for (int i = 0; i < 2000; ++i) {
        charter_request* r = i % 2 ? alice : bob;
        if (charter_authorize(f.engine, f.entities, r, context, nullptr) != CHARTER_OK ||
            charter_eval_context_allowed(context) != (i % 2)) {
          ++wrong[t];
        }
      }
      charter_request_free(alice);
      charter_request_free(bob);
      charter_eval_context_free(context);
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(wrong, std::vector<int>(4, 0));
}

}  // namespace
