// The limits a bundle's code runs under (VerifyOptions::max_value_depth and
// max_decision_bytes), and records built in place: hostile code gets an
// evaluation error in the Decision, never a crash, and the decisions of
// compiled code do not change (issue 32, points 8, 9 and 11).
#include <string>
#include <vector>

#include "unwrap/unwrap.h"
#include "charter/charter.h"
#include "gtest/gtest.h"
#include "testing/status_matchers.h"
#include "tests/core/vm/hand_made.h"
#include "vm/authorizer.h"
#include "vm/program.h"

namespace charter::internal {
namespace {

using ::charter_testing::IsOk;

using testing::HandMadeBundle;
using testing::HandMadePolicy;
using testing::I;

Request AnyRequest() { return Request::Create({"User", "alice"}, {"Action", "view"}, {"Doc", "d"}); }

Engine Load(const HandMadeBundle& b, const VerifyOptions& options = {}) {
  absl::StatusOr<Engine> engine = Engine::Create(Bundle::FromBytes(b.Build()), options);
  EXPECT_THAT(engine, IsOk());
  return *std::move(engine);
}

// The one error of a decision, as "policy: message".
std::string OnlyError(const Decision& d) {
  EXPECT_EQ(d.errors.size(), 1u);
  return d.errors.empty() ? "" : d.errors[0].policy_id + ": " + d.errors[0].message;
}

// 100,000 sets each in the next, compared: Equal recursed once a level and
// overflowed the stack (charter authorize, the C API and serve crashed).
TEST(ValueDepth, DeepNestingIsAnEvaluationErrorNotACrash) {
  Decision d = Load(testing::NestedSets(100'000)).Authorize(AnyRequest(), Entities());
  EXPECT_FALSE(d.allowed);
  EXPECT_EQ(OnlyError(d), "nested: sets and records nested more than 1000 deep (the limit, max_value_depth)");
}

TEST(ValueDepth, TheLimitItselfIsAllowed) {
  VerifyOptions options;
  options.max_value_depth = 40;
  Decision at = Load(testing::NestedSets(40), options).Authorize(AnyRequest(), Entities());
  EXPECT_TRUE(at.allowed);  // R0 == R0
  EXPECT_TRUE(at.errors.empty());
  Decision past = Load(testing::NestedSets(41), options).Authorize(AnyRequest(), Entities());
  EXPECT_EQ(OnlyError(past), "nested: sets and records nested more than 40 deep (the limit, max_value_depth)");
  // The default allows what the compiler can write (brackets nest 64 deep).
  EXPECT_TRUE(Load(testing::NestedSets(1000)).Authorize(AnyRequest(), Entities()).allowed);
}

// Records and SetExtend count levels as MakeSet does.
TEST(ValueDepth, RecordsAndExtensionsCountToo) {
  HandMadePolicy p{"records", {}, 3};
  for (int i = 0; i < 30; ++i) {
    p.code.push_back(I(Op::kMakeRecord, 1, 0, 0));    // R1 = {a: R0}
    p.code.push_back(I(Op::kMakeSet, 0, 0, 0));       // R0 = []
    p.code.push_back(I(Op::kSetExtend, 0, 1, 1));     // R0 = R0 + [R1]
  }
  p.code.push_back(I(Op::kRetBool, 0, 1, 0));
  VerifyOptions options;
  options.max_value_depth = 60;
  EXPECT_TRUE(Load(HandMadeBundle{{"a"}, {}, {{0}}, {p}}, options).Authorize(AnyRequest(), Entities()).allowed);
  options.max_value_depth = 59;
  Decision d = Load(HandMadeBundle{{"a"}, {}, {{0}}, {p}}, options).Authorize(AnyRequest(), Entities());
  EXPECT_EQ(OnlyError(d), "records: sets and records nested more than 59 deep (the limit, max_value_depth)");
}

// 100,000 MakeSets of 255 registers: 400 MB of sets a decision before.
TEST(DecisionBytes, SetsPastTheLimitAreAnEvaluationError) {
  Engine engine = Load(testing::SetFlood(100'000));
  EvalContext context;
  for (int round = 0; round < 2; ++round) {  // the context's arena is reset between decisions
    EXPECT_FALSE(engine.Authorize(AnyRequest(), Entities(), &context));
    Decision d = context.ToDecision();
    EXPECT_EQ(OnlyError(d),
              "flood: the sets and records built for this request need more than 134217728 bytes (the limit, "
              "max_decision_bytes)");
    EXPECT_LE(Unwrap::Scratch(&context)->arena.bytes_allocated(), size_t{128} << 20);
  }
}

// The limit is the decision's: two policies of 600 KB each under 1 MiB.
TEST(DecisionBytes, PoliciesShareTheLimit) {
  HandMadeBundle b = testing::SetFlood(150, "first");
  b.policies.push_back(testing::SetFlood(150, "second").policies[0]);
  VerifyOptions options;
  options.max_decision_bytes = 1 << 20;
  Decision d = Load(b, options).Authorize(AnyRequest(), Entities());
  EXPECT_EQ(d.reasons, std::vector<std::string>{"first"});
  EXPECT_EQ(OnlyError(d),
            "second: the sets and records built for this request need more than 1048576 bytes (the limit, "
            "max_decision_bytes)");
  options.max_decision_bytes = 2 << 20;
  EXPECT_TRUE(Load(b, options).Authorize(AnyRequest(), Entities()).errors.empty());
}

// A compiled literal of n keys in chunks of 32 needs memory linear in n: the
// merge of each chunk into a copy needed n * n / 64 fields.
Decision DecideRecordLiteral(int n, size_t max_bytes, size_t* used = nullptr) {
  std::string text = "permit(principal, action, resource) when { {";
  for (int i = 0; i < n; ++i) text += (i ? ", k" : "k") + std::to_string(i) + ": " + std::to_string(i);
  text += "} == context.r && {";
  for (int i = n - 1; i >= 0; --i) text += (i != n - 1 ? ", k" : "k") + std::to_string(i) + ": " + std::to_string(i);
  text += "}.k" + std::to_string(n / 3) + " == " + std::to_string(n / 3) + " };";
  absl::StatusOr<Bundle> bundle = Compile(SourceFile("r.cedar", text), {}, nullptr);
  EXPECT_THAT(bundle, IsOk());
  VerifyOptions options;
  options.max_decision_bytes = max_bytes;
  absl::StatusOr<Engine> engine = Engine::Create(*bundle, options);
  EXPECT_THAT(engine, IsOk());
  std::string context = "{\"r\": {";
  for (int i = 0; i < n; ++i) context += (i ? ", \"k" : "\"k") + std::to_string(i) + "\": " + std::to_string(i);
  context += "}}";
  absl::StatusOr<Request> request =
      Request::Create({"User", "alice"}, {"Action", "view"}, {"Doc", "d"}, context);
  EXPECT_THAT(request, IsOk());
  EvalContext eval;
  engine->Authorize(*request, Entities(), &eval);
  if (used != nullptr) *used = Unwrap::Scratch(&eval)->arena.bytes_allocated();
  return eval.ToDecision();
}

TEST(RecordLiteral, BuiltInPlaceInLinearMemory) {
  size_t used[3];
  int sizes[3] = {2000, 4000, 8000};
  for (int k = 0; k < 3; ++k) {
    // 32 bytes a field, twice over for doubling, twice for the two literals.
    Decision d = DecideRecordLiteral(sizes[k], size_t{160} * sizes[k], &used[k]);
    EXPECT_TRUE(d.allowed) << sizes[k];
    EXPECT_TRUE(d.errors.empty()) << (d.errors.empty() ? "" : d.errors[0].message);
  }
  EXPECT_LE(used[2], 5 * used[0]) << used[0] << " " << used[1] << " " << used[2];
}

TEST(RecordLiteral, EqualsTheSameRecordFromJson) {
  for (int n : {1, 31, 32, 33, 64, 65, 200}) {
    Decision d = DecideRecordLiteral(n, size_t{1} << 20);
    EXPECT_TRUE(d.allowed) << n;
    EXPECT_TRUE(d.errors.empty()) << n;
  }
}

// Which instructions build their record in place: only where nothing can
// read it before the next RecordExtend of its register.
std::vector<bool> Pending(const std::vector<uint64_t>& code) {
  HandMadeBundle b{{"a", "b"}, {}, {{0}, {1}, {0, 1}}, {{"p", code, 4}}};
  std::string bytes = b.Build();
  const fb::Bundle* root = fb::GetBundle(bytes.data());
  std::vector<uint64_t> bits = FindPendingRecords(root, code.data(), static_cast<uint32_t>(code.size()));
  std::vector<bool> out;
  for (uint32_t pc = 0; pc < code.size(); ++pc) out.push_back((bits[pc / 64] >> (pc % 64)) & 1);
  return out;
}

TEST(PendingRecords, OnlyWhereNothingElseReadsTheRecord) {
  using V = std::vector<bool>;
  // MakeRecord R0 {a: R0}; Bool R1; RecordExtend R0 += {b: R1}; Ret.
  EXPECT_EQ(Pending({I(Op::kMakeRecord, 0, 0, 0), I(Op::kBool, 1, 1, 0), I(Op::kRecordExtend, 0, 1, 1),
                     I(Op::kRecordExtend, 0, 0, 1), I(Op::kRetBool, 0, 1, 0)}),
            (V{true, false, true, false, false}));
  // R0 read in between.
  EXPECT_EQ(Pending({I(Op::kMakeRecord, 0, 0, 0), I(Op::kEq, 1, 0, 0), I(Op::kRecordExtend, 0, 1, 1),
                     I(Op::kRetBool, 0, 1, 0)}),
            (V{false, false, false, false}));
  // R0 in the range the extension reads.
  EXPECT_EQ(Pending({I(Op::kMakeRecord, 0, 0, 0), I(Op::kRecordExtend, 0, 2, 0), I(Op::kRetBool, 0, 1, 0)}),
            (V{false, false, false}));
  // A jump from between them past the extension; a jump onto it is fine.
  EXPECT_EQ(Pending({I(Op::kMakeRecord, 0, 0, 0), I(Op::kJumpIfFalse, 1, 0, 4), I(Op::kRecordExtend, 0, 1, 1),
                     I(Op::kRetBool, 0, 1, 0), I(Op::kRetBool, 0, 0, 0)}),
            (V{false, false, false, false, false}));
  EXPECT_EQ(Pending({I(Op::kMakeRecord, 0, 0, 0), I(Op::kJumpIfFalse, 1, 0, 2), I(Op::kRecordExtend, 0, 1, 1),
                     I(Op::kRetBool, 0, 1, 0)}),
            (V{true, false, false, false}));
  // Written by another instruction in between.
  EXPECT_EQ(Pending({I(Op::kMakeRecord, 0, 0, 0), I(Op::kBool, 0, 1, 0), I(Op::kRecordExtend, 0, 1, 1),
                     I(Op::kRetBool, 0, 1, 0)}),
            (V{false, false, false, false}));
}

// Built in place or merged, a key given twice keeps its last value; a jump
// over the first chunk leaves a record that is not the builder's.
TEST(PendingRecords, InPlaceAndMergedRecordsAgree) {
  // R0 = {a: 7}; R0 += {a: 8, b: 9} (in place); R0.a == 8 && R0.b == 9.
  HandMadeBundle b{{"a", "b"}, {7, 8, 9}, {{0}, {0, 1}}, {}};
  std::vector<uint64_t> tail = {I(Op::kAttr, 1, 0, 0), I(Op::kLong, 2, 0, 1), I(Op::kEq, 1, 1, 2),
                                I(Op::kJumpIfFalse, 1, 0, 0), I(Op::kAttr, 1, 0, 1), I(Op::kLong, 2, 0, 2),
                                I(Op::kEq, 1, 1, 2), I(Op::kRet, 1, 0, 0), I(Op::kRetBool, 0, 0, 0)};
  for (bool merged : {false, true}) {
    std::vector<uint64_t> code = {I(Op::kLong, 0, 0, 0), I(Op::kMakeRecord, 0, 0, 0)};
    if (merged) code.push_back(I(Op::kEq, 3, 0, 0));  // reads R0: not in place
    code.push_back(I(Op::kLong, 1, 0, 1));
    code.push_back(I(Op::kLong, 2, 0, 2));
    code.push_back(I(Op::kRecordExtend, 0, 1, 1));
    uint32_t base = static_cast<uint32_t>(code.size());
    for (uint64_t insn : tail) {
      Insn x{insn};
      code.push_back(x.op() == Op::kJumpIfFalse ? I(Op::kJumpIfFalse, 1, 0, base + 8) : insn);
    }
    b.policies = {{"p", code, 4}};
    EXPECT_EQ(Pending(code)[1], !merged);
    Decision d = Load(b).Authorize(AnyRequest(), Entities());
    EXPECT_TRUE(d.allowed) << merged;
    EXPECT_TRUE(d.errors.empty()) << merged;
  }
}


// Sets that share their elements: S(k+1) = {S(k), {S(k)}} is two
// instructions a level, and a walk visits S(40) as a tree of about 2^41
// values. Hashing S(30) took 49 s a decision (charter authorize); S(40)
// would take a day. Each walk now takes its steps from the decision's
// max_decision_work.
TEST(DecisionWork, SharedSetsAreAnEvaluationErrorNotExponential) {
  Decision d = Load(testing::SharedSets(40)).Authorize(AnyRequest(), Entities());
  EXPECT_FALSE(d.allowed);
  EXPECT_EQ(OnlyError(d),
            "shared: comparing and hashing the values of this request took more than 67108864 steps (the "
            "limit, max_decision_work)");
  // A small budget stops it sooner, with its own number.
  VerifyOptions options;
  options.max_decision_work = 1000;
  d = Load(testing::SharedSets(40), options).Authorize(AnyRequest(), Entities());
  EXPECT_EQ(OnlyError(d),
            "shared: comparing and hashing the values of this request took more than 1000 steps (the limit, "
            "max_decision_work)");
}

// R0 nested 40 deep compared with itself, 160 steps: building each
// one-element set takes 1 (its element), and Equal takes 3 a level (the
// set, then its element in each of the two sets; the `false` inside is a
// scalar, which costs nothing).
TEST(DecisionWork, TheLimitItselfIsAllowed) {
  VerifyOptions options;
  options.max_decision_work = 160;
  Decision at = Load(testing::NestedSets(40), options).Authorize(AnyRequest(), Entities());
  EXPECT_TRUE(at.allowed);
  EXPECT_TRUE(at.errors.empty());
  options.max_decision_work = 159;
  Decision past = Load(testing::NestedSets(40), options).Authorize(AnyRequest(), Entities());
  EXPECT_FALSE(past.allowed);
  EXPECT_EQ(OnlyError(past),
            "nested: comparing and hashing the values of this request took more than 159 steps (the limit, "
            "max_decision_work)");
}

// The budget is the decision's: two policies of 160 steps each need 320,
// and each decision starts afresh.
TEST(DecisionWork, PoliciesShareTheLimit) {
  HandMadeBundle b = testing::NestedSets(40);
  b.policies.push_back(b.policies[0]);
  b.policies[0].id = "first";
  b.policies[1].id = "second";
  VerifyOptions options;
  options.max_decision_work = 320;
  Engine engine = Load(b, options);
  EvalContext context;
  for (int round = 0; round < 2; ++round) {
    EXPECT_TRUE(engine.Authorize(AnyRequest(), Entities(), &context));
    EXPECT_TRUE(context.ToDecision().errors.empty());
  }
  options.max_decision_work = 319;
  Decision d = Load(b, options).Authorize(AnyRequest(), Entities());
  EXPECT_EQ(d.reasons, std::vector<std::string>{"first"});
  EXPECT_EQ(OnlyError(d),
            "second: comparing and hashing the values of this request took more than 319 steps (the limit, "
            "max_decision_work)");
}

// A set the code built once and compared k times is walked k times, each
// walk charged: the cost of a decision stays within its budget however
// often the code looks at a large value.
Decision DecideRepeatedComparison(uint32_t compares, uint64_t max_work) {
  HandMadePolicy p{"repeat", {}, 3};
  p.code.push_back(I(Op::kMakeSet, 0, 1, 2));  // R0 = {false}
  p.code.push_back(I(Op::kMakeSet, 0, 1, 0));  // R0 = {R0}: 2 sets and `false`
  for (uint32_t i = 0; i < compares; ++i) p.code.push_back(I(Op::kEq, 1, 0, 0));
  p.code.push_back(I(Op::kRet, 1, 0, 0));
  VerifyOptions options;
  options.max_decision_work = max_work;
  return Load(HandMadeBundle{{}, {}, {}, {p}}, options).Authorize(AnyRequest(), Entities());
}

TEST(DecisionWork, EveryComparisonIsCharged) {
  // Building takes 2 steps, and each R0 == R0 takes 6 (3 a level).
  EXPECT_TRUE(DecideRepeatedComparison(1000, 6002).allowed);
  Decision d = DecideRepeatedComparison(1000, 6001);
  EXPECT_FALSE(d.allowed);
  EXPECT_EQ(OnlyError(d),
            "repeat: comparing and hashing the values of this request took more than 6001 steps (the limit, "
            "max_decision_work)");
}

// The set methods take their steps from the same budget, values of the
// request included: context.s.contains(4) looks at each of three elements.
TEST(DecisionWork, SetMethodsAreCharged) {
  absl::StatusOr<Bundle> bundle =
      Compile(SourceFile("c.cedar", "permit(principal, action, resource) when { !context.s.contains(4) };"), {},
              nullptr);
  ASSERT_THAT(bundle, IsOk());
  absl::StatusOr<Request> request =
      Request::Create({"User", "alice"}, {"Action", "view"}, {"Doc", "d"}, R"({"s": [1, 2, 3]})");
  ASSERT_THAT(request, IsOk());
  VerifyOptions options;
  options.max_decision_work = 3;
  absl::StatusOr<Engine> engine = Engine::Create(*bundle, options);
  ASSERT_THAT(engine, IsOk());
  Decision at = engine->Authorize(*request, Entities());
  EXPECT_TRUE(at.allowed);
  EXPECT_TRUE(at.errors.empty());
  options.max_decision_work = 2;
  engine = Engine::Create(*bundle, options);
  ASSERT_THAT(engine, IsOk());
  Decision past = engine->Authorize(*request, Entities());
  EXPECT_FALSE(past.allowed);
  EXPECT_EQ(OnlyError(past),
            "policy0: comparing and hashing the values of this request took more than 2 steps (the limit, "
            "max_decision_work)");
}

}  // namespace
}  // namespace charter::internal
