// Steady-state evaluation allocates nothing: this binary replaces the global
// operator new and delete with counting ones, warms an EvalContext up on the
// governance example's requests, then decides them all again and again and
// expects no allocation at all. It also checks that the context's decisions
// are those of the allocating Authorize.
#include <atomic>
#include <cstdlib>
#include <fstream>
#include <new>
#include <sstream>
#include <string>
#include <vector>

#include "charter/charter.h"
#include "gtest/gtest.h"
#include "testing/status_matchers.h"

namespace {

using ::charter_testing::IsOk;
std::atomic<long> g_allocations{0};
}  // namespace

void* operator new(std::size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  std::abort();
}
void* operator new[](std::size_t n) { return operator new(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(n == 0 ? 1 : n);
}
void* operator new[](std::size_t n, const std::nothrow_t& t) noexcept { return operator new(n, t); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

namespace charter {
namespace {

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Governance {
  Engine engine;
  Entities entities;
  std::vector<Request> requests;
};

Governance Load() {
  std::string dir = std::string(CHARTER_SOURCE_DIR) + "/examples/governance/";
  std::string text = Read(dir + "policies.cedar");
  SourceFile source("policies.cedar", text);
  Diagnostics diagnostics;
  absl::StatusOr<Bundle> bundle = Compile(source, {}, &diagnostics);
  EXPECT_THAT(bundle, IsOk()) << diagnostics.Render(source);
  absl::StatusOr<Engine> engine = Engine::Create(*std::move(bundle));
  EXPECT_THAT(engine, IsOk());
  absl::StatusOr<Entities> entities = Entities::FromJson(Read(dir + "entities.json"));
  EXPECT_THAT(entities, IsOk());
  absl::StatusOr<std::vector<Request>> requests = Request::ArrayFromJson(Read(dir + "requests.json"));
  EXPECT_THAT(requests, IsOk());
  return Governance{*std::move(engine), *std::move(entities), *std::move(requests)};
}

TEST(ZeroAllocations, SteadyStateAuthorizeAllocatesNothing) {
  Governance g = Load();
  ASSERT_GT(g.requests.size(), 5u);
  EvalContext context;
  size_t errors = 0;
  for (const Request& r : g.requests) {
    g.engine.Authorize(r, g.entities, &context);
    EXPECT_EQ(context.ToDecision().ToJson(), g.engine.Authorize(r, g.entities).ToJson());
    errors += context.errors().size();
  }
  EXPECT_GT(errors, 0u) << "the example is meant to include a policy that errs";
  for (int warm = 0; warm < 2; ++warm) {
    for (const Request& r : g.requests) g.engine.Authorize(r, g.entities, &context);
  }
  long before = g_allocations.load();
  size_t allowed = 0;
  for (int round = 0; round < 100; ++round) {
    for (const Request& r : g.requests) allowed += g.engine.Authorize(r, g.entities, &context);
  }
  long after = g_allocations.load();
  EXPECT_EQ(after - before, 0) << "allocations in " << 100 * g.requests.size() << " decisions";
  EXPECT_GT(allowed, 0u);
}

// The scope index's paths: entities with a few ancestors (listed), one
// with more than ScopeIndex::kMaxRequestAncestors (each `in` target asked of
// the store instead), action groups, `is`, and policies filed by action.
TEST(ZeroAllocations, ScopeIndexPathsAllocateNothing) {
  std::string entities = "[";
  for (int i = 0; i < 60; ++i) {  // a chain g0 -> g1 -> ... -> g59
    entities += "{\"uid\":{\"type\":\"G\",\"id\":\"g" + std::to_string(i) +
                "\"},\"attrs\":{},\"parents\":[" +
                (i < 59 ? "{\"type\":\"G\",\"id\":\"g" + std::to_string(i + 1) + "\"}" : "") + "]},";
  }
  entities += R"(
    {"uid":{"type":"User","id":"deep"},"attrs":{"level":1},"parents":[{"type":"G","id":"g0"}]},
    {"uid":{"type":"User","id":"alice"},"attrs":{"level":3},"parents":[{"type":"Team","id":"ml"}]},
    {"uid":{"type":"Team","id":"ml"},"attrs":{},"parents":[]},
    {"uid":{"type":"Action","id":"view"},"attrs":{},"parents":[{"type":"Action","id":"read"}]},
    {"uid":{"type":"Task","id":"t1"},"attrs":{"gpus":4},"parents":[{"type":"Namespace","id":"ns"}]}
  ])";
  absl::StatusOr<Entities> store = Entities::FromJson(entities);
  ASSERT_THAT(store, IsOk());
  SourceFile source("paths.cedar", R"(
    permit(principal in G::"g50", action == Action::"view", resource);
    permit(principal in Team::"ml", action in [Action::"view", Action::"edit"], resource in Namespace::"ns")
      when { principal.level > 2 };
    forbid(principal, action in Action::"read", resource is Task) when { resource.gpus > 8 };
    permit(principal == User::"alice", action, resource) when { resource.missing };
    permit(principal is User, action, resource);
  )");
  Diagnostics diagnostics;
  absl::StatusOr<Bundle> bundle = Compile(source, {}, &diagnostics);
  ASSERT_THAT(bundle, IsOk()) << diagnostics.Render(source);
  absl::StatusOr<Engine> engine = Engine::Create(*std::move(bundle));
  ASSERT_THAT(engine, IsOk());
  std::vector<Request> requests;
  for (const char* user : {"deep", "alice", "nobody"}) {
    for (const char* action : {"view", "edit", "read"}) {
      for (const char* task : {"t1", "t2"}) {
        requests.push_back(Request::Create({"User", user}, {"Action", action}, {"Task", task}));
      }
    }
  }
  EvalContext context;
  size_t errors = 0;
  for (const Request& r : requests) {
    engine->Authorize(r, *store, &context);
    EXPECT_EQ(context.ToDecision().ToJson(), engine->Authorize(r, *store).ToJson());
    errors += context.errors().size();
  }
  EXPECT_GT(errors, 0u) << "alice's policy reads a missing attribute";
  long before = g_allocations.load();
  size_t allowed = 0;
  for (int round = 0; round < 100; ++round) {
    for (const Request& r : requests) allowed += engine->Authorize(r, *store, &context);
  }
  EXPECT_EQ(g_allocations.load() - before, 0) << "allocations in " << 100 * requests.size() << " decisions";
  EXPECT_GT(allowed, 0u);
}

// Where the vector below escapes to, so that the compiler cannot elide its
// allocations (C++ allows eliding a new/delete pair it can see whole).
std::vector<int>* volatile g_escaped = nullptr;

TEST(ZeroAllocations, TheCounterCounts) {
  long before = g_allocations.load();
  g_escaped = new std::vector<int>(100);
  delete g_escaped;
  g_escaped = nullptr;
  EXPECT_GE(g_allocations.load() - before, 2);
}

}  // namespace
}  // namespace charter
