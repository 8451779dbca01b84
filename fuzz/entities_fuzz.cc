// Fuzz target: arbitrary bytes as each JSON input a user or a network gives
// beside the policies: an entity store, one request, a batch of requests and
// template links, each also read with a fixed schema (schema-directed
// parsing: plain entity and extension forms, conformance checks). Reading must never crash; a refusal must be
// InvalidArgument with "SOURCE:LINE:COL: " in front; and whatever loads must
// be usable: every uid of a loaded store is decided against a fixed policy
// set that reads attributes, tags and the hierarchy, and every loaded
// request is decided against that store and an empty one. The bytes are
// also laid over a fixed store (Entities::Extend): what that accepts, one
// store read from both texts at once accepts too, and decides alike.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "unwrap/unwrap.h"
#include "charter/compiler.h"
#include "charter/decision.h"
#include "charter/diagnostics.h"
#include "charter/engine.h"
#include "charter/entities.h"
#include "charter/request.h"
#include "charter/schema.h"
#include "entities/entity_store.h"

namespace {

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "entities_fuzz invariant failed: %s\n", what);
    std::abort();
  }
}

// "NAME:LINE:COL: message" (or "NAME: message" for faults with no place).
void CheckRefusal(const absl::Status& status, std::string_view name) {
  Check(status.code() == absl::StatusCode::kInvalidArgument ||
            status.code() == absl::StatusCode::kResourceExhausted,
        "refusal code");
  const std::string_view m(status.message().data(), status.message().size());
  Check(m.substr(0, name.size()) == name && m.size() > name.size() && m[name.size()] == ':',
        "refusal names its source");
}

// Policies that touch every part of an entity: attributes (present or not,
// any type), tags, `in` over the hierarchy, and the context.
constexpr std::string_view kPolicies = R"(
permit(principal, action, resource) when { principal in resource };
permit(principal, action, resource) when { principal has name && principal.name like "*a*" };
forbid(principal, action, resource) when { resource.level > 3 };
permit(principal, action, resource) when { principal.hasTag("team") && principal.getTag("team") == resource };
permit(principal, action, resource) when { context has flag && context.flag };
permit(principal, action, resource) when { resource.readers.contains(principal) };
permit(principal, action == Action::"view", resource) when { resource in principal.manager };
)";

const charter::Engine& FixedEngine() {
  static const charter::Engine* engine = [] {
    charter::SourceFile source("fixed.cedar", std::string(kPolicies));
    charter::Diagnostics diagnostics;
    absl::StatusOr<charter::Bundle> bundle = charter::Compile(source, {}, &diagnostics);
    Check(bundle.ok(), "the fixed policies compile");
    absl::StatusOr<charter::Engine> e = charter::Engine::Create(*std::move(bundle));
    Check(e.ok(), "the fixed bundle verifies");
    return new charter::Engine(*std::move(e));
  }();
  return *engine;
}

// A schema with every kind of type, for the schema-directed readers. The
// seed corpus's typed-*.json files are written for it.
constexpr std::string_view kSchema = R"(
entity Team;
entity Color enum ["red", "green"];
entity User in [Team] {
  name?: String, level?: Long, admin?: Bool, manager?: User, color?: Color,
  addr?: ipaddr, budget?: decimal, start?: datetime, ttl?: duration,
  roles?: Set<String>, readers?: Set<User>, profile?: { dept: String, floor?: Long },
} tags String;
entity Task in [Team] { owner: User, level: Long } tags Set<Long>;
action group;
action view in [group] appliesTo {
  principal: User, resource: [Task, User, Color], context: { flag?: Bool, who?: User, at?: datetime }
};
)";

const charter::Schema& FixedSchema() {
  static const charter::Schema* schema = [] {
    absl::StatusOr<charter::Schema> s =
        charter::Schema::Parse(charter::SourceFile("fixed.cedarschema", std::string(kSchema)), {}, nullptr);
    Check(s.ok(), "the fixed schema reads");
    return new charter::Schema(*std::move(s));
  }();
  return *schema;
}

void CheckDecision(const charter::Decision& d, const charter::Engine& engine) {
  for (const std::string& id : d.reasons) {
    bool known = false;
    for (const std::string& p : engine.policy_ids()) known = known || p == id;
    Check(known, "reasons are policy ids");
  }
  Check(!d.ToJson().empty(), "decision serializes");
}

// The store the input is laid over: a hierarchy, an entity only mentioned
// in an attribute (User::"bob") and one only named as a parent (Team::"root").
constexpr std::string_view kBase = R"([
{"uid": {"type": "Team", "id": "ml"}, "attrs": {"level": 2}, "parents": [{"type": "Team", "id": "root"}]},
{"uid": {"type": "User", "id": "alice"}, "attrs": {"name": "alice", "manager": {"__entity": {"type": "User", "id": "bob"}}},
 "parents": [{"type": "Team", "id": "ml"}], "tags": {"team": {"__entity": {"type": "Team", "id": "ml"}}}},
{"uid": {"type": "Task", "id": "t"}, "attrs": {"level": 1, "readers": [{"__entity": {"type": "User", "id": "alice"}}]},
 "parents": [{"type": "Team", "id": "ml"}]}
])";

const charter::Entities& FixedBase() {
  static const charter::Entities* base = [] {
    absl::StatusOr<charter::Entities> e = charter::Entities::FromJson(kBase, "base.json");
    Check(e.ok(), "the fixed base reads");
    return new charter::Entities(*std::move(e));
  }();
  return *base;
}

// The input laid over the fixed base, against the two read as one store.
void CheckExtend(std::string_view input, const charter::EntitiesOptions& options, const charter::Engine& engine) {
  absl::StatusOr<charter::Entities> extended = FixedBase().Extend(input, "extension.json", options);
  if (!extended.ok()) {
    CheckRefusal(extended.status(), "extension.json");
    return;
  }
  Check(FixedBase().size() == 3, "the base is unchanged");
  // The input is a JSON array: its elements after the base's.
  size_t open = input.find('[');
  size_t close = input.rfind(']');
  Check(open != std::string_view::npos && close != std::string_view::npos && open < close, "an extension is an array");
  std::string merged(kBase.substr(0, kBase.rfind(']')));
  std::string_view inner = input.substr(open + 1, close - open - 1);
  if (inner.find_first_not_of(" \t\r\n") != std::string_view::npos) merged += ",";
  merged += inner;
  merged += "]";
  absl::StatusOr<charter::Entities> whole = charter::Entities::FromJson(merged, "merged.json", options);
  Check(whole.ok(), "what Extend accepts, one store of both accepts");
  Check(whole->size() == extended->size(), "both hold the same entities");
  const charter::internal::EntityStore& store = charter::internal::Unwrap::Store(*extended);
  const size_t n = store.num_uids() < 12 ? store.num_uids() : 12;
  for (size_t p = 0; p < n; ++p) {
    const auto& pr = store.ref(static_cast<uint32_t>(p));
    for (size_t r = 0; r < n; ++r) {
      const auto& rr = store.ref(static_cast<uint32_t>(r));
      charter::Request q = charter::Request::Create({std::string(pr.type), std::string(pr.id)}, {"Action", "view"},
                                                    {std::string(rr.type), std::string(rr.id)});
      Check(engine.Authorize(q, *extended).ToJson() == engine.Authorize(q, *whole).ToJson(),
            "an extension decides as one store of both");
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const charter::Engine& engine = FixedEngine();

  charter::EntitiesOptions options;
  options.max_nesting = 16;
  absl::StatusOr<charter::Entities> entities =
      charter::Entities::FromJson(input, "entities.json", options);
  if (!entities.ok()) CheckRefusal(entities.status(), "entities.json");

  absl::StatusOr<charter::Request> request = charter::Request::FromJson(input, "request.json");
  if (!request.ok()) CheckRefusal(request.status(), "request.json");

  absl::StatusOr<std::vector<charter::Request>> requests =
      charter::Request::ArrayFromJson(input, "requests.json");
  if (!requests.ok()) CheckRefusal(requests.status(), "requests.json");

  absl::StatusOr<std::vector<charter::TemplateLink>> links =
      charter::ParseTemplateLinks(input, "links.json");
  if (!links.ok()) CheckRefusal(links.status(), "links.json");

  // The same bytes read with the schema.
  absl::StatusOr<charter::Entities> typed =
      charter::Entities::FromJson(input, FixedSchema(), "typed.json", options);
  if (!typed.ok()) CheckRefusal(typed.status(), "typed.json");
  absl::StatusOr<charter::Request> typed_request =
      charter::Request::FromJson(input, FixedSchema(), "typed-request.json");
  if (!typed_request.ok()) CheckRefusal(typed_request.status(), "typed-request.json");
  absl::StatusOr<std::vector<charter::Request>> typed_requests =
      charter::Request::ArrayFromJson(input, FixedSchema(), "typed-requests.json");
  if (!typed_requests.ok()) CheckRefusal(typed_requests.status(), "typed-requests.json");
  if (typed.ok()) {
    // What conforms loads the schema's actions, and decides.
    const charter::internal::EntityStore& store = charter::internal::Unwrap::Store(*typed);
    Check(store.Find("Action", "view") != charter::internal::kNoUid, "the schema's actions are in the store");
    const size_t n = store.num_uids() < 8 ? store.num_uids() : 8;
    for (size_t p = 0; p < n; ++p) {
      const auto& pr = store.ref(static_cast<uint32_t>(p));
      charter::Request q = charter::Request::Create({std::string(pr.type), std::string(pr.id)},
                                                    {"Action", "view"}, {"Task", "t"});
      CheckDecision(engine.Authorize(q, *typed), engine);
    }
    if (typed_request.ok()) CheckDecision(engine.Authorize(*typed_request, *typed), engine);
  }
  if (typed_request.ok()) CheckDecision(engine.Authorize(*typed_request, charter::Entities()), engine);
  if (typed_requests.ok()) {
    for (const charter::Request& q : *typed_requests) CheckDecision(engine.Authorize(q, charter::Entities()), engine);
  }

  CheckExtend(input, options, engine);

  const charter::Entities empty;
  if (entities.ok()) {
    // Every uid (with data or a mere parent) as principal and resource,
    // capped so that one input stays cheap.
    const charter::internal::EntityStore& store = charter::internal::Unwrap::Store(*entities);
    const size_t n = store.num_uids() < 16 ? store.num_uids() : 16;
    for (size_t p = 0; p < n; ++p) {
      const auto& pr = store.ref(static_cast<uint32_t>(p));
      Check(store.Find(pr.type, pr.id) == p, "a uid finds itself");
      for (size_t r = 0; r < n; ++r) {
        const auto& rr = store.ref(static_cast<uint32_t>(r));
        charter::Request q = charter::Request::Create(
            {std::string(pr.type), std::string(pr.id)}, {"Action", "view"},
            {std::string(rr.type), std::string(rr.id)});
        CheckDecision(engine.Authorize(q, *entities), engine);
      }
    }
  }
  const charter::Entities& store = entities.ok() ? *entities : empty;
  if (request.ok()) {
    CheckDecision(engine.Authorize(*request, store), engine);
    CheckDecision(engine.Authorize(*request, empty), engine);
  }
  if (requests.ok()) {
    for (const charter::Request& q : *requests) CheckDecision(engine.Authorize(q, store), engine);
  }
  return 0;
}
