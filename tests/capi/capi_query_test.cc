// The C API's queries (bindings/c/include/charter.h, charter_query_*): the
// listing, streamed and paged, of the governance example compared with
// `charter query --format json`, the callback that stops, the residual, and
// bad input (an unknown type, a malformed uid, a bundle's engine, NULL and
// freed handles) giving precise errors.
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "charter.h"
#include "gtest/gtest.h"

namespace {

std::string Read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string Message(charter_error* e) {
  size_t n = 0;
  const char* m = charter_error_message(e, &n);
  return std::string(m, n);
}

std::string Str(const char* p, size_t n) { return p == nullptr ? std::string() : std::string(p, n); }

// A string a reader returns with its length.
std::string Got(const charter_residual* r, const char* (*reader)(const charter_residual*, size_t*)) {
  size_t n = 0;
  const char* p = reader(r, &n);
  return Str(p, n);
}

void AppendQuoted(std::string* out, std::string_view s) {
  *out += '"';
  for (char c : s) {
    if (c == '"' || c == '\\') *out += '\\';
    *out += c;
  }
  *out += '"';
}

// A match as the "allowed" entries of `charter query --format json`.
std::string MatchJson(const charter_match* m) {
  size_t tn = 0, in = 0;
  const char* type = charter_match_type(m, &tn);
  const char* id = charter_match_id(m, &in);
  std::string out = "{\"uid\":{\"type\":";
  AppendQuoted(&out, Str(type, tn));
  out += ",\"id\":";
  AppendQuoted(&out, Str(id, in));
  out += "}";
  out += ",\"reasons\":[";
  for (size_t i = 0; i < charter_match_reason_count(m); ++i) {
    size_t n = 0;
    const char* r = charter_match_reason(m, i, &n);
    if (i > 0) out += ",";
    AppendQuoted(&out, Str(r, n));
  }
  out += "],\"errors\":[";
  for (size_t i = 0; i < charter_match_error_count(m); ++i) {
    size_t a = 0, b = 0;
    const char* p = charter_match_error_policy(m, i, &a);
    const char* msg = charter_match_error_message(m, i, &b);
    out += i > 0 ? ",{\"policy\":" : "{\"policy\":";
    AppendQuoted(&out, Str(p, a));
    out += ",\"message\":";
    AppendQuoted(&out, Str(msg, b));
    out += "}";
  }
  out += "]}";
  return out;
}

// Runs a command and returns its standard output.
std::string RunCommand(const std::string& command) {
  std::string out;
  FILE* p = popen(command.c_str(), "r");
  if (p == nullptr) return out;
  char buffer[4096];
  size_t n = 0;
  while ((n = fread(buffer, 1, sizeof buffer, p)) > 0) out.append(buffer, n);
  pclose(p);
  return out;
}

const std::string kDir = std::string(CHARTER_SOURCE_DIR) + "/examples/governance/";
const std::string kSchemaPath = std::string(CHARTER_SOURCE_DIR) + "/stdlib/governance.cedarschema";
const std::string kCli = std::string(CHARTER_BINARY_DIR) + "/cli/charter";

// The governance example, compiled from text with its schema.
struct Governance {
  charter_engine* engine = nullptr;
  charter_entities* entities = nullptr;
  Governance() {
    std::string policies = Read(kDir + "policies.cedar");
    std::string schema = Read(kSchemaPath);
    std::string json = Read(kDir + "entities.json");
    charter_error* e = nullptr;
    EXPECT_EQ(charter_engine_compile(policies.data(), policies.size(), schema.data(), schema.size(), &engine, &e),
              CHARTER_OK)
        << Message(e);
    EXPECT_EQ(charter_entities_from_json(json.data(), json.size(), schema.data(), schema.size(), &entities, &e),
              CHARTER_OK)
        << Message(e);
  }
  ~Governance() {
    charter_entities_free(entities);
    charter_engine_free(engine);
  }
  charter_query* Resources(std::string_view principal, std::string_view action, std::string_view type,
                           std::string_view context = {}) const {
    charter_query* q = nullptr;
    charter_error* e = nullptr;
    EXPECT_EQ(charter_query_resources(engine, principal.data(), principal.size(), action.data(), action.size(),
                                      type.data(), type.size(), context.data(), context.size(), &q, &e),
              CHARTER_OK)
        << Message(e);
    return q;
  }
  charter_query* Principals(std::string_view type, std::string_view action, std::string_view resource) const {
    charter_query* q = nullptr;
    charter_error* e = nullptr;
    EXPECT_EQ(charter_query_principals(engine, type.data(), type.size(), action.data(), action.size(),
                                       resource.data(), resource.size(), nullptr, 0, &q, &e),
              CHARTER_OK)
        << Message(e);
    return q;
  }
};

// Every match, page by page of `limit`.
std::vector<std::string> Paged(const Governance& g, const charter_query* q, size_t limit, size_t* pages) {
  std::vector<std::string> out;
  size_t start = 0;
  *pages = 0;
  do {
    charter_match_page* page = nullptr;
    charter_error* e = nullptr;
    EXPECT_EQ(charter_list_allowed_page(g.engine, g.entities, q, start, limit, &page, &e), CHARTER_OK) << Message(e);
    if (page == nullptr) break;
    ++*pages;
    EXPECT_LE(charter_match_page_count(page), limit);
    for (size_t i = 0; i < charter_match_page_count(page); ++i) out.push_back(MatchJson(charter_match_page_at(page, i)));
    EXPECT_EQ(charter_match_page_at(page, charter_match_page_count(page)), nullptr);
    start = charter_match_page_next(page);
    charter_match_page_free(page);
  } while (start != 0);
  return out;
}

struct Collected {
  std::vector<std::string> matches;
  size_t stop_after = 0;  // 0: never stop
};

int Collect(const charter_match* m, void* user_data) {
  auto* c = static_cast<Collected*>(user_data);
  c->matches.push_back(MatchJson(m));
  return c->stop_after != 0 && c->matches.size() >= c->stop_after ? 1 : 0;
}

// The "allowed" array of `charter query --format json`, split into entries.
std::string AllowedOfCli(const std::string& flags) {
  std::string out = RunCommand(kCli + " query --policies " + kDir + "policies.cedar --schema " + kSchemaPath +
                        " --entities " + kDir + "entities.json --format json " + flags);
  size_t at = out.find("\"allowed\":[");
  if (at == std::string::npos) return "no listing: " + out;
  return out.substr(at + 11, out.rfind("]}") - at - 11);
}

std::string Join(const std::vector<std::string>& v) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i > 0 ? "," : "") + v[i];
  return out;
}

TEST(CApiQuery, ListsAsCharterQueryDoes) {
  Governance g;
  struct Case {
    bool resources;
    std::string known, action, type, flags;
  } cases[] = {
      {true, "Governance::Member::\"alice\"", "Governance::Action::\"viewTask\"", "Governance::Task",
       "--principal 'Governance::Member::\"alice\"' --action 'Governance::Action::\"viewTask\"' "
       "--resource-type Governance::Task"},
      {false, "Governance::Task::\"vision-train-17\"", "Governance::Action::\"viewTask\"", "Governance::Member",
       "--resource 'Governance::Task::\"vision-train-17\"' --action 'Governance::Action::\"viewTask\"' "
       "--principal-type Governance::Member"},
  };
  const bool have_cli = std::ifstream(kCli).good();
  for (const Case& c : cases) {
    charter_query* q = c.resources ? g.Resources(c.known, c.action, c.type) : g.Principals(c.type, c.action, c.known);
    ASSERT_NE(q, nullptr);
    Collected streamed;
    charter_error* e = nullptr;
    ASSERT_EQ(charter_list_allowed(g.engine, g.entities, q, nullptr, Collect, &streamed, &e), CHARTER_OK)
        << Message(e);
    EXPECT_FALSE(streamed.matches.empty()) << c.flags;
    // Pages of 1, 2 and more than all give the same list.
    for (size_t limit : {1, 2, 1000}) {
      size_t pages = 0;
      EXPECT_EQ(Paged(g, q, limit, &pages), streamed.matches) << limit;
      if (limit == 1) {
        EXPECT_GE(pages, streamed.matches.size());
      } else if (limit == 1000) {
        EXPECT_EQ(pages, 1u);
      }
    }
    if (have_cli) {
      EXPECT_EQ(Join(streamed.matches), AllowedOfCli(c.flags)) << c.flags;
    }
    charter_query_free(q);
  }
  // alice may view the seven tasks of the vision team's namespaces.
  charter_query* q = g.Resources("Governance::Member::\"alice\"", "Governance::Action::\"viewTask\"",
                                 "Governance::Task");
  Collected all;
  ASSERT_EQ(charter_list_allowed(g.engine, g.entities, q, nullptr, Collect, &all, nullptr), CHARTER_OK);
  ASSERT_EQ(all.matches.size(), 7u);
  EXPECT_EQ(all.matches[0],
            R"({"uid":{"type":"Governance::Task","id":"vision-train-17"},"reasons":["teams-view-their-tasks"],"errors":[]})");
  charter_query_free(q);
}

TEST(CApiQuery, TheCallbackStopsAndTheContextIsReused) {
  Governance g;
  charter_query* q = g.Resources("Governance::Member::\"alice\"", "Governance::Action::\"viewTask\"",
                                 "Governance::Task");
  charter_eval_context* context = nullptr;
  ASSERT_EQ(charter_eval_context_new(&context, nullptr), CHARTER_OK);
  for (size_t stop : {1, 3}) {
    Collected some;
    some.stop_after = stop;
    EXPECT_EQ(charter_list_allowed(g.engine, g.entities, q, context, Collect, &some, nullptr), CHARTER_OK);
    EXPECT_EQ(some.matches.size(), stop);
  }
  // A match kept past its call is refused, not read.
  const charter_match* kept = nullptr;
  auto keep = [](const charter_match* m, void* user_data) {
    *static_cast<const charter_match**>(user_data) = m;
    return 1;
  };
  EXPECT_EQ(charter_list_allowed(g.engine, g.entities, q, context, keep, &kept, nullptr), CHARTER_OK);
  size_t n = 99;
  EXPECT_EQ(charter_match_type(kept, &n), nullptr);
  EXPECT_EQ(n, 0u);
  EXPECT_EQ(charter_match_reason_count(kept), 0u);
  charter_eval_context_free(context);
  charter_query_free(q);
}

TEST(CApiQuery, ResidualAsCharterQueryResidual) {
  Governance g;
  charter_query* q = g.Resources("Governance::Member::\"alice\"", "Governance::Action::\"viewTask\"",
                                 "Governance::Task");
  charter_residual* r = nullptr;
  charter_error* e = nullptr;
  ASSERT_EQ(charter_residual_new(g.engine, g.entities, q, &r, &e), CHARTER_OK) << Message(e);
  EXPECT_EQ(charter_residual_get_outcome(r), CHARTER_RESIDUAL_DEPENDS);
  EXPECT_EQ(charter_residual_exact(r), 0);
  size_t n = 0;
  std::string condition = Got(r, charter_residual_condition);
  EXPECT_EQ(condition.rfind("Governance::Member::\"alice\" in resource.namespace.team", 0), 0u) << condition;
  std::string condition_json = Got(r, charter_residual_condition_json);
  EXPECT_EQ(condition_json.rfind("{\"&&\":", 0), 0u) << condition_json;
  EXPECT_EQ(charter_residual_label_selector(r, &n), nullptr);
  EXPECT_EQ(n, 0u);
  std::string json = Got(r, charter_residual_json);
  std::string text = Got(r, charter_residual_text);
  if (std::ifstream(kCli).good()) {
    std::string flags = " query --policies " + kDir + "policies.cedar --schema " + kSchemaPath + " --entities " + kDir +
                        "entities.json --principal 'Governance::Member::\"alice\"' "
                        "--action 'Governance::Action::\"viewTask\"' --resource-type Governance::Task --residual";
    EXPECT_EQ(json + "\n", RunCommand(kCli + flags + " --format json"));
    EXPECT_EQ(text, RunCommand(kCli + flags));
  }
  charter_residual_free(r);
  // A second residual of the engine reuses its evaluator; nobody may view
  // as a Team, whatever the task.
  charter_query* none = nullptr;
  std::string_view p = "Governance::Team::\"vision\"", a = "Governance::Action::\"viewTask\"", t = "Governance::Task";
  EXPECT_EQ(charter_query_resources(g.engine, p.data(), p.size(), a.data(), a.size(), t.data(), t.size(), nullptr, 0,
                                    &none, &e),
            CHARTER_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(Message(e), "action `Governance::Action::\"viewTask\"` does not apply to principals of type "
                        "`Governance::Team` (it applies to `Governance::Member`, `Governance::Identity`)")
      << Message(e);
  charter_error_free(e);
  charter_query_free(q);
}

TEST(CApiQuery, BadInputSaysWhy) {
  Governance g;
  charter_error* e = nullptr;
  charter_query* q = nullptr;
  auto resources = [&](std::string_view p, std::string_view a, std::string_view t, std::string_view c = {}) {
    return charter_query_resources(g.engine, p.data(), p.size(), a.data(), a.size(), t.data(), t.size(), c.data(),
                                   c.size(), &q, &e);
  };
  std::string_view alice = "Governance::Member::\"alice\"", view = "Governance::Action::\"viewTask\"";
  // An unknown type, against the schema.
  EXPECT_EQ(resources(alice, view, "Governance::Tsk"), CHARTER_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(Message(e), "the schema declares no entity type `Governance::Tsk`");
  charter_error_free(e);
  // Not a type name at all.
  EXPECT_EQ(resources(alice, view, "Task::\"x\""), CHARTER_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(Message(e), "`Task::\"x\"` is not an entity type name (the resource type)");
  charter_error_free(e);
  // A malformed uid.
  EXPECT_EQ(resources("Governance::Member::alice", view, "Governance::Task"), CHARTER_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(Message(e).rfind("the principal `Governance::Member::alice` is not an entity reference `Type::\"id\"`: ", 0),
            0u)
      << Message(e);
  charter_error_free(e);
  // A context with a fault has its place.
  EXPECT_EQ(resources(alice, view, "Governance::Task", "{\"mfa\": tru}"), CHARTER_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(charter_error_line(e), 1u) << Message(e);
  EXPECT_EQ(Str(charter_error_source(e, nullptr), 12), "context.json") << Message(e);
  charter_error_free(e);
  // A principal that is not in the store: the listing says so, with the nearest.
  ASSERT_EQ(resources("Governance::Member::\"alyce\"", view, "Governance::Task"), CHARTER_OK);
  charter_match_page* page = nullptr;
  EXPECT_EQ(charter_list_allowed_page(g.engine, g.entities, q, 0, 10, &page, &e), CHARTER_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(Message(e), "the principal `Governance::Member::\"alyce\"` is not in the entities; did you mean "
                        "`Governance::Member::\"alice\"`?");
  charter_error_free(e);
  Collected c;
  EXPECT_EQ(charter_list_allowed(g.engine, g.entities, q, nullptr, Collect, &c, &e), CHARTER_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(c.matches.empty());
  charter_error_free(e);
  // A page of nothing, a NULL callback.
  EXPECT_EQ(charter_list_allowed_page(g.engine, g.entities, q, 0, 0, &page, &e), CHARTER_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(Message(e), "the page size (`limit`) is 0");
  charter_error_free(e);
  EXPECT_EQ(charter_list_allowed(g.engine, g.entities, q, nullptr, nullptr, nullptr, &e), CHARTER_ERROR_NULL_HANDLE);
  charter_error_free(e);
  // NULL and freed handles.
  EXPECT_EQ(charter_list_allowed_page(g.engine, g.entities, nullptr, 0, 10, &page, &e), CHARTER_ERROR_NULL_HANDLE);
  EXPECT_EQ(Message(e), "a NULL charter_query handle");
  charter_error_free(e);
  charter_query_free(q);
  EXPECT_EQ(charter_list_allowed_page(g.engine, g.entities, q, 0, 10, &page, &e), CHARTER_ERROR_BAD_HANDLE);
  charter_error_free(e);
  EXPECT_EQ(charter_query_resources(nullptr, alice.data(), alice.size(), view.data(), view.size(), "T", 1, nullptr, 0,
                                    &q, &e),
            CHARTER_ERROR_NULL_HANDLE);
  charter_error_free(e);
  EXPECT_EQ(charter_match_page_count(nullptr), 0u);
  EXPECT_EQ(charter_match_page_at(nullptr, 0), nullptr);
  EXPECT_EQ(charter_residual_get_outcome(nullptr), CHARTER_RESIDUAL_DENY);
  EXPECT_EQ(charter_residual_condition(nullptr, nullptr), nullptr);
  charter_query_free(nullptr);
  charter_match_page_free(nullptr);
  charter_residual_free(nullptr);
}

TEST(CApiQuery, WithoutASchemaAndFromABundle) {
  constexpr std::string_view kPolicies = R"(
@id("ml-view") permit (principal in Team::"ml", action == Action::"view", resource in Namespace::"ml");
@id("frozen") forbid (principal, action, resource) when { resource has frozen && resource.frozen };
)";
  constexpr std::string_view kEntities = R"([
  {"uid": {"type": "User", "id": "alice"}, "attrs": {}, "parents": [{"type": "Team", "id": "ml"}]},
  {"uid": {"type": "Task", "id": "t1"}, "attrs": {}, "parents": [{"type": "Namespace", "id": "ml"}]},
  {"uid": {"type": "Task", "id": "t2"}, "attrs": {"frozen": true}, "parents": [{"type": "Namespace", "id": "ml"}]},
  {"uid": {"type": "Task", "id": "t3"}, "attrs": {}, "parents": []}
])";
  charter_error* e = nullptr;
  charter_engine* engine = nullptr;
  charter_entities* entities = nullptr;
  ASSERT_EQ(charter_engine_compile(kPolicies.data(), kPolicies.size(), nullptr, 0, &engine, &e), CHARTER_OK);
  ASSERT_EQ(charter_entities_from_json(kEntities.data(), kEntities.size(), nullptr, 0, &entities, &e), CHARTER_OK);
  std::string_view p = "User::\"alice\"", a = "Action::\"view\"";
  charter_query* q = nullptr;
  // Without a schema a misspelt type is refused with the nearest one.
  ASSERT_EQ(charter_query_resources(engine, p.data(), p.size(), a.data(), a.size(), "Tsk", 3, nullptr, 0, &q, &e),
            CHARTER_OK);
  charter_match_page* page = nullptr;
  EXPECT_EQ(charter_list_allowed_page(engine, entities, q, 0, 10, &page, &e), CHARTER_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(Message(e), "no entity in the entities has the resource type `Tsk`; did you mean `Task`?");
  charter_error_free(e);
  charter_query_free(q);
  ASSERT_EQ(charter_query_resources(engine, p.data(), p.size(), a.data(), a.size(), "Task", 4, nullptr, 0, &q, &e),
            CHARTER_OK);
  ASSERT_EQ(charter_list_allowed_page(engine, entities, q, 0, 10, &page, &e), CHARTER_OK);
  ASSERT_EQ(charter_match_page_count(page), 1u);
  EXPECT_EQ(MatchJson(charter_match_page_at(page, 0)), R"({"uid":{"type":"Task","id":"t1"},"reasons":["ml-view"],"errors":[]})");
  EXPECT_EQ(charter_match_page_next(page), 0u);
  charter_match_page_free(page);
  charter_residual* r = nullptr;
  ASSERT_EQ(charter_residual_new(engine, entities, q, &r, &e), CHARTER_OK) << Message(e);
  EXPECT_EQ(Got(r, charter_residual_condition),
            "resource in Namespace::\"ml\" && !(resource has frozen && resource.frozen)");
  EXPECT_EQ(charter_residual_exact(r), 0);
  charter_residual_free(r);

  // An engine from a bundle lists, but has no text for a residual.
  void* bytes = nullptr;
  size_t length = 0;
  ASSERT_EQ(charter_compile_bundle(kPolicies.data(), kPolicies.size(), nullptr, 0, &bytes, &length, &e), CHARTER_OK);
  charter_engine* from_bundle = nullptr;
  ASSERT_EQ(charter_engine_from_bundle(bytes, length, &from_bundle, &e), CHARTER_OK);
  charter_free(bytes);
  ASSERT_EQ(charter_list_allowed_page(from_bundle, entities, q, 0, 10, &page, &e), CHARTER_OK);
  EXPECT_EQ(charter_match_page_count(page), 1u);
  charter_match_page_free(page);
  EXPECT_EQ(charter_residual_new(from_bundle, entities, q, &r, &e), CHARTER_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(Message(e).rfind("a residual needs the policy text: this engine was loaded from a bundle", 0), 0u);
  charter_error_free(e);
  charter_engine_free(from_bundle);
  charter_query_free(q);
  charter_entities_free(entities);
  charter_engine_free(engine);
}

}  // namespace
