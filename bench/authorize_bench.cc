// Authorize throughput through the public API: a policy set of ten rules in
// the language of the first slice (scopes with `==` and `in`, `when` with
// `==`, `&&`, attributes and literals), compiled once, against a store of a
// few dozen entities built from Cedar's JSON format. Measures one
// Engine::Authorize call per iteration, for a request that is allowed and one
// that is denied.
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "charter/charter.h"

namespace {

constexpr char kPolicies[] = R"(
@id("admins-everything")
permit(principal in Group::"admins", action, resource);

@id("public-view")
permit(principal, action == Action::"view", resource in Folder::"public");

@id("team-submit")
permit(principal, action == Action::"submitTask", resource)
when { principal.team == resource.team && resource.approved == true };

@id("locked-no-delete")
forbid(principal, action == Action::"delete", resource) when { resource.locked == true };

@id("u0-edits")
permit(principal == User::"u0", action == Action::"edit", resource);

@id("ml-view")
permit(principal in Group::"ml", action == Action::"view", resource in Folder::"ml");

@id("suspended")
forbid(principal, action, resource) when { principal.suspended == true };

@id("owner-edit")
permit(principal, action == Action::"edit", resource) when { resource.owner == principal.name };

@id("senior-view")
permit(principal, action == Action::"view", resource) when { principal.level == 3 };

@id("contractors-no-delete")
forbid(principal in Group::"contractors", action == Action::"delete", resource);
)";

// 24 users in three teams, 3 groups, 2 folders and 12 documents.
std::string EntitiesJson() {
  const char* teams[] = {"ml", "infra", "data"};
  const char* groups[] = {"ml", "admins", "contractors"};
  std::string json = "[";
  for (int i = 0; i < 24; ++i) {
    absl::StrAppend(&json, R"({"uid":{"type":"User","id":"u)", i, R"("},"attrs":{"name":"u)", i,
                    R"(","team":")", teams[i % 3], R"(","level":)", i % 4,
                    R"(,"suspended":)", i == 23 ? "true" : "false",
                    R"(},"parents":[{"type":"Group","id":")", groups[(i / 2) % 3], R"("}]},)");
  }
  for (const char* g : groups) {
    absl::StrAppend(&json, R"({"uid":{"type":"Group","id":")", g, R"("},"attrs":{},"parents":[]},)");
  }
  for (const char* f : {"public", "ml"}) {
    absl::StrAppend(&json, R"({"uid":{"type":"Folder","id":")", f, R"("},"attrs":{},"parents":[]},)");
  }
  for (int i = 0; i < 12; ++i) {
    absl::StrAppend(&json, i ? "," : "", R"({"uid":{"type":"Document","id":"d)", i,
                    R"("},"attrs":{"team":")", teams[i % 3], R"(","owner":"u)", i,
                    R"(","approved":)", i % 2 ? "false" : "true", R"(,"locked":)",
                    i % 4 == 1 ? "true" : "false", R"(},"parents":[{"type":"Folder","id":")",
                    i % 2 ? "public" : "ml", R"("}]})");
  }
  json += "]";
  return json;
}

struct Fixture {
  std::string error;  // empty when the fixture is usable
  absl::StatusOr<charter::Engine> engine = absl::UnknownError("not built");
  absl::StatusOr<charter::Entities> entities = absl::UnknownError("not built");
};

const Fixture& GetFixture() {
  static const Fixture* fixture = [] {
    auto* f = new Fixture;
    charter::SourceFile source("bench.cedar", kPolicies);
    charter::Diagnostics diagnostics;
    absl::StatusOr<charter::Bundle> bundle = charter::Compile(source, {}, &diagnostics);
    if (!bundle.ok()) {
      f->error = absl::StrCat("compile: ", bundle.status().ToString(), "\n",
                              diagnostics.Render(source));
      return f;
    }
    f->engine = charter::Engine::Create(*std::move(bundle));
    if (!f->engine.ok()) f->error = absl::StrCat("engine: ", f->engine.status().ToString());
    f->entities = charter::Entities::FromJson(EntitiesJson(), "bench-entities.json");
    if (!f->entities.ok()) f->error = absl::StrCat("entities: ", f->entities.status().ToString());
    return f;
  }();
  return *fixture;
}

void RunAuthorize(benchmark::State& state, const charter::Request& request, bool want_allowed) {
  const Fixture& f = GetFixture();
  if (!f.error.empty()) {
    state.SkipWithError(f.error.c_str());
    return;
  }
  charter::Decision first = f.engine->Authorize(request, *f.entities);
  if (first.allowed != want_allowed || !first.errors.empty()) {
    std::string message = absl::StrCat("unexpected decision ", first.ToJson());
    state.SkipWithError(message.c_str());
    return;
  }
  for (auto _ : state) {
    charter::Decision decision = f.engine->Authorize(request, *f.entities);
    benchmark::DoNotOptimize(decision);
  }
  state.SetItemsProcessed(state.iterations());
}

// u4 (team infra, a contractor) submits a task on d4 (team infra, approved):
// permitted by team-submit.
void BM_AuthorizeAllow(benchmark::State& state) {
  RunAuthorize(state,
               charter::Request::Create({"User", "u4"}, {"Action", "submitTask"},
                                        {"Document", "d4"}),
               true);
}
BENCHMARK(BM_AuthorizeAllow);

// u5 (a contractor) deletes d5 (locked): two forbids are satisfied.
void BM_AuthorizeDeny(benchmark::State& state) {
  RunAuthorize(state,
               charter::Request::Create({"User", "u5"}, {"Action", "delete"}, {"Document", "d5"}),
               false);
}
BENCHMARK(BM_AuthorizeDeny);

}  // namespace
