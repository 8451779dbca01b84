// Set and record literals of any length (issue 5: CH0201 used to stop them
// near 250 elements): constant sets are one instruction, other literals are
// built a chunk of registers at a time. Each case is decided by the VM and
// by the reference interpreter, which must agree.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "charter/charter.h"
#include "gtest/gtest.h"
#include "charter/bundle_generated.h"
#include "interp/interp.h"
#include "testing/status_matchers.h"

namespace charter {
namespace {

using ::charter_testing::IsOk;

struct Outcome {
  bool compiled = false;
  std::string diagnostics;
  Decision vm, interp;
  size_t registers = 0;
};

Outcome Decide(const std::string& condition, const std::string& context_json = "{}") {
  Outcome out;
  std::string text = absl::StrCat("@id(\"p\")\npermit (principal, action, resource) when { ",
                                  condition, " };\n");
  SourceFile source("literal.cedar", text);
  Diagnostics diagnostics;
  absl::StatusOr<Bundle> bundle = Compile(source, {}, &diagnostics);
  out.diagnostics = diagnostics.Render(source);
  if (!bundle.ok()) return out;
  out.compiled = true;
  out.registers = internal::fb::GetBundle(bundle->bytes().data())->policies()->Get(0)->num_registers();
  absl::StatusOr<Engine> engine = Engine::Create(*std::move(bundle));
  EXPECT_THAT(engine, IsOk());
  absl::StatusOr<Entities> entities = Entities::FromJson("[]");
  absl::StatusOr<Request> request = Request::FromJson(absl::StrCat(
      R"({"principal": "User::\"a\"", "action": "Action::\"view\"", "resource": "Doc::\"d\"", "context": )",
      context_json, "}"));
  EXPECT_THAT(entities, IsOk());
  EXPECT_THAT(request, IsOk());
  out.vm = engine->Authorize(*request, *entities);
  absl::StatusOr<std::unique_ptr<internal::PolicySet>> set =
      internal::ReadLinkedPolicySet(source, {}, {}, nullptr);
  EXPECT_THAT(set, IsOk());
  out.interp = internal::interp::Authorize(**set, *request, *entities);
  EXPECT_EQ(out.vm.ToJson(), out.interp.ToJson()) << condition.substr(0, 200);
  return out;
}

// [first, first+1, ..., first+n-1] written with `element(i)`.
template <typename F>
std::string List(int n, F element) {
  std::string s = "[";
  for (int i = 0; i < n; ++i) absl::StrAppend(&s, i == 0 ? "" : ", ", element(i));
  return s + "]";
}

std::string Record(int n, const std::string& value_prefix) {
  std::string s = "{";
  for (int i = 0; i < n; ++i) absl::StrAppend(&s, i == 0 ? "" : ", ", "k", i, ": ", value_prefix, i);
  return s + "}";
}

const int kSizes[] = {255, 256, 257, 10000};

TEST(Literals, ConstantSetsOfAnyLength) {
  for (int n : kSizes) {
    std::string set = List(n, [](int i) { return absl::StrCat(i); });
    Outcome yes = Decide(absl::StrCat(set, ".contains(", n - 1, ") && !", set, ".contains(", n, ")"));
    ASSERT_TRUE(yes.compiled) << yes.diagnostics;
    EXPECT_TRUE(yes.vm.allowed) << n;
    EXPECT_LE(yes.registers, 4u) << n;
    // Duplicates count once: n elements written twice over are the same set
    // (set equality is quadratic in the reference interpreter: not 10,000).
    if (n > 257) continue;
    std::string twice = List(2 * n, [n](int i) { return absl::StrCat("\"s", i % n, "\""); });
    std::string once = List(n, [](int i) { return absl::StrCat("\"s", i, "\""); });
    Outcome same = Decide(absl::StrCat(twice, " == ", once));
    ASSERT_TRUE(same.compiled) << same.diagnostics;
    EXPECT_TRUE(same.vm.allowed) << n;
  }
}

TEST(Literals, ComputedSetsOfAnyLength) {
  for (int n : kSizes) {
    // Every element is computed (context.x + i), so none is a constant set.
    std::string set = List(n, [](int i) { return absl::StrCat("context.x + ", i); });
    // One occurrence a condition: building it is quadratic (duplicates).
    Outcome out = Decide(absl::StrCat(set, ".containsAll([1, ", n, "])"), R"({"x": 1})");
    ASSERT_TRUE(out.compiled) << out.diagnostics;
    EXPECT_TRUE(out.vm.allowed) << n << " " << out.vm.ToJson();
    EXPECT_LE(out.registers, 64u) << n;
    if (n > 257) continue;  // each decision below builds it again
    Outcome no = Decide(absl::StrCat(set, ".contains(", n + 1, ")"), R"({"x": 1})");
    EXPECT_FALSE(no.vm.allowed) << n;
    EXPECT_TRUE(no.vm.errors.empty()) << n;
    // Evaluation order and the first error are the source's: the element
    // after the chunk boundaries errs first.
    Outcome err = Decide(
        List(n, [n](int i) { return i == n - 1 ? std::string("context.y") : absl::StrCat("context.x + ", i); }) +
            ".isEmpty()",
        R"({"x": 1})");
    ASSERT_EQ(err.vm.errors.size(), 1u) << n;
    EXPECT_EQ(err.vm.errors[0].message, "record does not have the attribute `y`");
  }
}

TEST(Literals, RecordsOfAnyLength) {
  for (int n : kSizes) {
    // Constant values and computed ones: both are built by chunks.
    std::string constant = Record(n, "");
    Outcome out = Decide(absl::StrCat(constant, ".k", n - 1, " == ", n - 1));
    ASSERT_TRUE(out.compiled) << out.diagnostics;
    EXPECT_TRUE(out.vm.allowed) << n;
    if (n > 257) continue;
    Outcome has = Decide(absl::StrCat(constant, " has k0 && !(", constant, " has k", n, ")"));
    EXPECT_TRUE(has.vm.allowed) << n;
    std::string computed = Record(n, "context.x + ");
    Outcome eq = Decide(absl::StrCat(computed, " == ", Record(n, "1 + ")), R"({"x": 1})");
    ASSERT_TRUE(eq.compiled) << eq.diagnostics;
    EXPECT_TRUE(eq.vm.allowed) << n;
    Outcome ne = Decide(absl::StrCat(computed, " == ", Record(n, "2 + ")), R"({"x": 1})");
    EXPECT_FALSE(ne.vm.allowed) << n;
    EXPECT_TRUE(ne.vm.errors.empty()) << n;
  }
}

TEST(Literals, NestedLiteralsShareTheRegisters) {
  // A set of 40 sets of 40 computed elements, inside a record inside a
  // call: every level is chunked within the registers left to it.
  std::string inner = List(40, [](int i) { return absl::StrCat("context.x + ", i); });
  std::string outer = List(40, [&](int) { return inner; });
  Outcome out = Decide(absl::StrCat("{a: {b: ", outer, "}}.a.b.contains(", inner, ")"), R"({"x": 1})");
  ASSERT_TRUE(out.compiled) << out.diagnostics;
  EXPECT_TRUE(out.vm.allowed) << out.vm.ToJson();
}

// An extension call with the wrong number of arguments parses, as in Cedar,
// and errs when evaluated, after its arguments in order (issue 15: a call of
// 300 arguments needed 300 registers and was refused with CH0201, where
// Cedar parses it).
TEST(Literals, WrongArityCallsOfAnyLength) {
  for (int n : {2, 300, 5000}) {
    std::string args = List(n, [](int i) { return absl::StrCat(i); });
    args = args.substr(1, args.size() - 2);
    Outcome out = Decide(absl::StrCat("decimal(", args, ") == decimal(\"1.0\")"));
    ASSERT_TRUE(out.compiled) << n << out.diagnostics;
    EXPECT_LE(out.registers, 4u) << n;
    EXPECT_FALSE(out.vm.allowed) << n;
    ASSERT_EQ(out.vm.errors.size(), 1u) << n;
    EXPECT_EQ(out.vm.errors[0].message,
              absl::StrCat("wrong number of arguments provided to extension function `decimal`: expected 1, got ", n));
    // An argument's error comes first, as in Cedar.
    Outcome first = Decide(absl::StrCat("ip(", args, ", context.y, 1 + \"a\").isIpv4()"));
    ASSERT_EQ(first.vm.errors.size(), 1u) << n;
    EXPECT_EQ(first.vm.errors[0].message, "record does not have the attribute `y`");
  }
}

}  // namespace
}  // namespace charter
