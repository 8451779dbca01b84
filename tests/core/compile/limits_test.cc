// The limits of a bundle (issue 15): whatever the compiler accepts, the
// verifier accepts, and each limit the verifier enforces is a diagnostic of
// the compiler at the clause or policy that crosses it (CH0202 to CH0205),
// never an "internal error" when the bundle is verified. Each limit is
// tested lowered through CompileOptions, with the verifier given the same
// limit: the largest input within it compiles and verifies, one step more
// is the diagnostic.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "charter/charter.h"
#include "charter/bundle_generated.h"
#include "gtest/gtest.h"
#include "testing/status_matchers.h"

namespace charter {
namespace {

using ::charter_testing::IsOk;
using ::charter_testing::StatusIs;

struct Result {
  absl::StatusOr<Bundle> bundle;
  Diagnostics diagnostics;
};

Result CompileText(const std::string& text, const CompileOptions& options,
                   const std::vector<TemplateLink>& links = {}) {
  Result r{absl::InternalError("not compiled"), {}};
  r.bundle = Compile(SourceFile("limits.cedar", text), links, options, &r.diagnostics);
  return r;
}

// The only diagnostic's code, and the first error as the status has it.
void ExpectOnly(const Result& r, const std::string& code, const std::string& message) {
  ASSERT_THAT(r.bundle, StatusIs(absl::StatusCode::kInvalidArgument, message));
  ASSERT_EQ(r.diagnostics.size(), 1u) << r.bundle.status();
  EXPECT_EQ(r.diagnostics.items()[0].code, code);
}

void ExpectVerifies(const Result& r, const VerifyOptions& options) {
  ASSERT_THAT(r.bundle, IsOk());
  absl::StatusOr<Engine> engine = Engine::Create(*r.bundle, options);
  EXPECT_THAT(engine, IsOk());
}

std::string Chain(int n) {
  std::string s = "context.a0";
  for (int i = 1; i < n; ++i) absl::StrAppend(&s, " || context.a", i);
  return s;
}

TEST(Limits, DefaultsAreTheVerifiers) {
  CompileOptions c;
  VerifyOptions v;
  EXPECT_EQ(c.max_code_words, v.max_code_words);
  EXPECT_EQ(c.max_policies, v.max_policies);
  EXPECT_EQ(c.max_bundle_bytes, v.max_bundle_bytes);
  EXPECT_EQ(c.max_bundle_tables, v.max_tables);
}

// CH0202: the instructions of one policy. The chain's condition is the
// clause that crosses the limit.
TEST(Limits, CodeLength) {
  // Find the longest chain that fits 40 instructions: it verifies with a
  // verifier limited to 40, and one term more is CH0202 at the condition.
  CompileOptions options;
  options.max_code_words = 40;
  VerifyOptions verify;
  verify.max_code_words = 40;
  int fits = 0;
  for (int n = 1; n < 40; ++n) {
    Result r = CompileText(absl::StrCat("permit(principal, action, resource)\nwhen { ", Chain(n), " };"), options);
    if (!r.bundle.ok()) break;
    ExpectVerifies(r, verify);
    fits = n;
  }
  ASSERT_GT(fits, 3);
  ExpectOnly(CompileText(absl::StrCat("permit(principal, action, resource)\nwhen { ", Chain(fits + 1), " };"),
                         options),
             "CH0202",
             "limits.cedar:2:8: this condition takes the policy's code past the limit of 40 instructions");
  // And with the limit of the verifier's default, the bundle that fits 40
  // does not verify under 39: the two limits count the same instructions.
  Result r = CompileText(absl::StrCat("permit(principal, action, resource)\nwhen { ", Chain(fits), " };"), options);
  verify.max_code_words = internal::fb::GetBundle(r.bundle->bytes().data())->policies()->Get(0)->code()->size() - 1;
  EXPECT_THAT(Engine::Create(*r.bundle, verify), StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(Limits, CodeLengthInTheActionScope) {
  CompileOptions options;
  options.max_code_words = 20;
  std::string actions;
  for (int i = 0; i < 10; ++i) absl::StrAppend(&actions, i == 0 ? "" : ", ", "Action::\"a", i, "\"");
  ExpectOnly(CompileText(absl::StrCat("permit(principal,\n  action in [", actions, "],\n  resource);"), options),
             "CH0202", "limits.cedar:2:3: the action scope takes the policy's code past the limit of 20 instructions");
}

// CH0203: policies and template links together.
TEST(Limits, PolicyCount) {
  CompileOptions options;
  options.max_policies = 3;
  VerifyOptions verify;
  verify.max_policies = 3;
  std::string three = "permit(principal, action, resource);\nforbid(principal, action, resource);\n"
                      "@id(\"third\") permit(principal, action, resource);\n";
  ExpectVerifies(CompileText(three, options), verify);
  ExpectOnly(CompileText(three + "@id(\"fourth\")\npermit(principal, action, resource);\n", options), "CH0203",
             "limits.cedar:4:1: the policy set has 4 policies, more than the limit of 3; `fourth` is the first "
             "past it");
  // A template's links count as policies; the one past the limit is named.
  std::string t = "@id(\"t\")\npermit(principal == ?principal, action, resource);\n";
  std::vector<TemplateLink> links;
  for (int i = 0; i < 4; ++i) links.push_back({"t", absl::StrCat("link", i), EntityUid{"User", "a"}, {}});
  ExpectOnly(CompileText(t, options, links), "CH0203",
             "limits.cedar:1:1: the policy set has 4 policies, more than the limit of 3; `link3` is the first "
             "past it");
  links.pop_back();
  ExpectVerifies(CompileText(t, options, links), verify);
}

// CH0204: a record shape is named by a 16-bit operand. Literals with the
// same keys share a shape, so 65,537 literals of one key list compile and
// decide correctly (the 65,537th used to be built with the first shape's
// keys: `{zz: 1}` became `{a: 1}`).
TEST(Limits, RecordShapes) {
  // 65,537 literals are about 460,000 tokens in one policy, past the parser's
  // default of 262,144 tokens a policy (CH0005): raise that limit here.
  CompileOptions tokens;
  tokens.max_policy_tokens = size_t{1} << 21;
  std::string same = "[";
  for (int i = 0; i < 65536; ++i) absl::StrAppend(&same, "{a: context.n}, ");
  same += "{zz: 1}]";
  Result r = CompileText(absl::StrCat("permit(principal, action, resource) when { ", same, ".contains(context.r) };"),
                         tokens);
  ASSERT_THAT(r.bundle, IsOk());
  absl::StatusOr<Engine> engine = Engine::Create(*r.bundle);
  ASSERT_THAT(engine, IsOk());
  absl::StatusOr<Entities> entities = Entities::FromJson("[]");
  ASSERT_THAT(entities, IsOk());
  auto decide = [&](const std::string& context) {
    absl::StatusOr<Request> request = Request::FromJson(absl::StrCat(
        R"({"principal": "User::\"a\"", "action": "Action::\"view\"", "resource": "Doc::\"d\"", "context": )",
        context, "}"));
    EXPECT_THAT(request, IsOk());
    return engine->Authorize(*request, *entities).allowed;
  };
  EXPECT_FALSE(decide(R"({"n": 0, "r": {"a": 1}})"));
  EXPECT_TRUE(decide(R"({"n": 0, "r": {"zz": 1}})"));
  EXPECT_TRUE(decide(R"({"n": 7, "r": {"a": 7}})"));

  // 65,537 different key lists: the last one is CH0204.
  std::string many = "[";
  for (int i = 0; i < 65536; ++i) absl::StrAppend(&many, "{k", i, ": context.n}, ");
  many += "\n{last: 1}]";
  ExpectOnly(CompileText(absl::StrCat("permit(principal, action, resource) when { ", many, ".isEmpty() };"), tokens),
             "CH0204",
             "limits.cedar:2:1: the policy set has more than 65536 record shapes (record literals with different "
             "keys, 32 keys to a shape)");
}

// CH0205: the bundle's bytes and FlatBuffers tables.
TEST(Limits, BundleBytes) {
  std::string text;
  for (int i = 0; i < 20; ++i) absl::StrAppend(&text, "@id(\"p", i, "\")\npermit(principal, action, resource) when { ", Chain(20), " };\n");
  Result whole = CompileText(text, {});
  ASSERT_THAT(whole.bundle, IsOk());
  const size_t size = whole.bundle->bytes().size();
  // Just big enough: it verifies under the same limit.
  CompileOptions options;
  options.max_bundle_bytes = size;
  VerifyOptions verify;
  verify.max_bundle_bytes = size;
  ExpectVerifies(CompileText(text, options), verify);
  // Half of it: a policy in the middle crosses the limit.
  options.max_bundle_bytes = size / 2;
  Result half = CompileText(text, options);
  ASSERT_THAT(half.bundle,
              StatusIs(absl::StatusCode::kInvalidArgument,
                       testing::HasSubstr(absl::StrCat("the bundle is larger than the limit of ", size / 2, " bytes"))));
  ASSERT_EQ(half.diagnostics.size(), 1u);
  EXPECT_EQ(half.diagnostics.items()[0].code, "CH0205");
  // One byte short: the constants, written last, cross it.
  options.max_bundle_bytes = size - 1;
  Result short_one = CompileText(text, options);
  ASSERT_THAT(short_one.bundle, StatusIs(absl::StatusCode::kInvalidArgument));
  ASSERT_EQ(short_one.diagnostics.size(), 1u);
  EXPECT_EQ(short_one.diagnostics.items()[0].code, "CH0205");
}

TEST(Limits, BundleTables) {
  // Each policy and annotation is a table, and so is each pattern and its
  // parts (the wildcards and the literals between them).
  std::string text =
      "@id(\"a\") @note(\"x\")\npermit(principal, action, resource) when { context.s like \"a*b*c\" };\n"
      "@id(\"b\")\npermit(principal, action, resource) when { context.s like \"*\" };\n";
  int fits = 0;
  for (int t = 1; t < 40; ++t) {
    CompileOptions options;
    options.max_bundle_tables = t;
    Result r = CompileText(text, options);
    if (!r.bundle.ok()) {
      ASSERT_EQ(r.diagnostics.size(), 1u);
      EXPECT_EQ(r.diagnostics.items()[0].code, "CH0205");
      continue;
    }
    fits = t;
    VerifyOptions verify;
    verify.max_tables = t;
    ExpectVerifies(r, verify);
    // The count is exact: one table fewer does not verify.
    verify.max_tables = t - 1;
    EXPECT_THAT(Engine::Create(*r.bundle, verify), StatusIs(absl::StatusCode::kInvalidArgument));
    break;
  }
  ASSERT_GT(fits, 0);
  CompileOptions options;
  options.max_bundle_tables = fits - 1;
  Result r = CompileText(text, options);
  ASSERT_THAT(r.bundle,
              StatusIs(absl::StatusCode::kInvalidArgument,
                       absl::StrCat("limits.cedar:3:1: with policy `b` the bundle has more than the limit of ", fits - 1,
                                    " tables (policies, annotations, entity and pattern constants)")));
}

}  // namespace
}  // namespace charter
