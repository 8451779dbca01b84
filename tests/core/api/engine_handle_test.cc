// EngineHandle: swaps while calls are in flight. Four threads decide with
// reusable contexts while the main thread swaps between two policy sets;
// every decision must come whole from one of them. Also built with
// ThreadSanitizer by `make tsan`.
#include <atomic>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "charter/charter.h"
#include "gtest/gtest.h"
#include "testing/status_matchers.h"

namespace charter {
namespace {

using ::charter_testing::IsOk;
using ::charter_testing::StatusIs;

Engine Make(const std::string& id) {
  SourceFile source("p.cedar", "@id(\"" + id + "\") permit(principal == User::\"u\", action, resource);\n"
                               "@id(\"" + id + "-2\") permit(principal, action, resource in Team::\"t\");");
  absl::StatusOr<Bundle> bundle = Compile(source, {}, nullptr);
  EXPECT_THAT(bundle, IsOk());
  absl::StatusOr<Engine> engine = Engine::Create(*std::move(bundle));
  EXPECT_THAT(engine, IsOk());
  return *std::move(engine);
}

TEST(EngineHandle, SwapsWhileCallsAreInFlight) {
  EngineHandle handle(Make("old"));
  absl::StatusOr<Entities> entities = Entities::FromJson(
      R"([{"uid":{"type":"Doc","id":"d"},"attrs":{},"parents":[{"type":"Team","id":"t"}]}])");
  ASSERT_THAT(entities, IsOk());
  Request request = Request::Create({"User", "u"}, {"Action", "view"}, {"Doc", "d"});
  std::atomic<bool> stop{false};
  std::atomic<int> bad{0};
  std::atomic<long> calls{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      EvalContext context;
      while (!stop.load()) {
        bool allowed = handle.Authorize(request, *entities, &context);
        auto reasons = context.reasons();
        // Both reasons come from one policy set: "X" and "X-2".
        if (!allowed || reasons.size() != 2 || std::string(reasons[0]) + "-2" != reasons[1]) ++bad;
        Decision d = handle.Authorize(request, *entities);
        if (!d.allowed || d.reasons.size() != 2 || d.reasons[0] + "-2" != d.reasons[1]) ++bad;
        ++calls;
      }
    });
  }
  Engine a = Make("a");
  Engine b = Make("b");
  for (int i = 0; i < 200; ++i) {
    handle.Swap(i % 2 ? a : b);
    if (i % 50 == 0) std::this_thread::yield();
  }
  // Let the readers see the last engine for a while, then stop.
  while (calls.load() < 1000) std::this_thread::yield();
  stop = true;
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(handle.generation(), 201u);
  EXPECT_EQ(handle.Get()->Authorize(request, *entities).reasons[0], "a");
}

TEST(EngineHandle, ABadBundleKeepsTheCurrentEngine) {
  EngineHandle handle(Make("keep"));
  absl::Status s = handle.SwapBundle(Bundle::FromBytes("not a bundle"));
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_EQ(handle.generation(), 1u);
  EXPECT_EQ(handle.Get()->policy_ids()[0], "keep");
}

}  // namespace
}  // namespace charter
