// Fuzz target: arbitrary bytes as each JSON input a user or a network gives
// beside the policies: an entity store, one request, a batch of requests and
// template links. Reading must never crash; a refusal must be
// InvalidArgument with "SOURCE:LINE:COL: " in front; and whatever loads must
// be usable: every uid of a loaded store is decided against a fixed policy
// set that reads attributes, tags and the hierarchy, and every loaded
// request is decided against that store and an empty one.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "charter/compiler.h"
#include "charter/decision.h"
#include "charter/diagnostics.h"
#include "charter/engine.h"
#include "charter/entities.h"
#include "charter/request.h"
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

void CheckDecision(const charter::Decision& d, const charter::Engine& engine) {
  for (const std::string& id : d.reasons) {
    bool known = false;
    for (const std::string& p : engine.policy_ids()) known = known || p == id;
    Check(known, "reasons are policy ids");
  }
  Check(!d.ToJson().empty(), "decision serializes");
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

  const charter::Entities empty;
  if (entities.ok()) {
    // Every uid (with data or a mere parent) as principal and resource,
    // capped so that one input stays cheap.
    const charter::internal::EntityStore& store = entities->store();
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
