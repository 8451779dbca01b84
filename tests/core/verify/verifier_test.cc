// The verifier accepts what the compiler writes and rejects every kind of
// corruption with a message saying what is wrong; it never crashes.
#include "verify/verifier.h"

#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bytecode/opcodes.h"
#include "charter/charter.h"
#include "flatbuffers/flatbuffers.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "testing/status_matchers.h"

namespace charter::internal {
namespace {

using ::charter_testing::IsOk;
using ::charter_testing::StatusIs;

std::string CompileText(const std::string& text) {
  SourceFile source("v.cedar", text);
  absl::StatusOr<Bundle> b = Compile(source, {}, nullptr);
  EXPECT_THAT(b, IsOk());
  return std::string(b->bytes());
}

constexpr char kPolicies[] = R"(
  @id("a") permit(principal == User::"alice", action in [Action::"x", Action::"y"], resource)
    when { principal.team == "ml" && resource has owner } unless { context.flag };
  @id("b") forbid(principal, action, resource) when { if principal.x then true else false };
)";

// A bundle written with hand-made code for one policy.
std::string HandMade(std::vector<uint64_t> code, uint16_t registers = 4, uint32_t version = kFormatVersion,
                     fb::Effect effect = fb::Effect::Permit) {
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<flatbuffers::String>> strings{fbb.CreateString("attr")};
  std::vector<int64_t> longs{7};
  std::vector<flatbuffers::Offset<fb::EntityConst>> entities{
      fb::CreateEntityConst(fbb, fbb.CreateString("User"), fbb.CreateString("alice"))};
  std::vector<flatbuffers::Offset<fb::Policy>> policies{fb::CreatePolicy(
      fbb, fbb.CreateString("p"), effect, 0, nullptr, registers, fbb.CreateVector(code))};
  auto root = fb::CreateBundle(fbb, version, 0, 0, fbb.CreateVector(strings), fbb.CreateVector(longs),
                               fbb.CreateVector(entities), fbb.CreateVector(policies));
  fb::FinishBundleBuffer(fbb, root);
  return std::string(reinterpret_cast<const char*>(fbb.GetBufferPointer()), fbb.GetSize());
}

uint64_t I(Op op, uint32_t a, uint32_t b, uint32_t c) { return Insn::Encode(op, a, b, c); }

// A bundle with constant sets (each element a kind and an index) and one
// record shape (keys "a" < "b"), around hand-made code.
std::string WithConstSets(std::vector<uint64_t> code,
                          const std::vector<std::vector<std::pair<fb::ScalarKind, uint32_t>>>& sets,
                          std::vector<std::string> string_pool = {"a", "b"},
                          std::vector<int64_t> longs = {7, 8}) {
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<flatbuffers::String>> strings;
  for (const std::string& s : string_pool) strings.push_back(fbb.CreateString(s));
  std::vector<flatbuffers::Offset<fb::EntityConst>> entities{
      fb::CreateEntityConst(fbb, fbb.CreateString("User"), fbb.CreateString("alice")),
      fb::CreateEntityConst(fbb, fbb.CreateString("User"), fbb.CreateString("alice"))};
  std::vector<flatbuffers::Offset<fb::ConstSet>> const_sets;
  for (const auto& set : sets) {
    std::vector<fb::ConstScalar> elems;
    for (auto [kind, index] : set) elems.emplace_back(kind, index);
    const_sets.push_back(fb::CreateConstSet(fbb, fbb.CreateVectorOfStructs(elems)));
  }
  std::vector<flatbuffers::Offset<fb::RecordShape>> shapes{fb::CreateRecordShape(
      fbb, fbb.CreateVector(std::vector<uint32_t>{0, 1}), fbb.CreateVector(std::vector<uint32_t>{0, 1}))};
  std::vector<flatbuffers::Offset<fb::Policy>> policies{fb::CreatePolicy(
      fbb, fbb.CreateString("p"), fb::Effect::Permit, 0, nullptr, 4, fbb.CreateVector(code))};
  auto root = fb::CreateBundle(fbb, kFormatVersion, 0, 0, fbb.CreateVector(strings), fbb.CreateVector(longs),
                               fbb.CreateVector(entities), fbb.CreateVector(policies), 0, 0,
                               fbb.CreateVector(shapes), fbb.CreateVector(const_sets));
  fb::FinishBundleBuffer(fbb, root);
  return std::string(reinterpret_cast<const char*>(fbb.GetBufferPointer()), fbb.GetSize());
}

// A hand-made bundle of `version` with one policy, the sections given (in
// the order given), and, with `v3_scheduling`, bytes in the field where
// version 3 kept its scheduling table (field 12, deprecated since). The
// field's bytes are written last, so that they lie inside the buffer, as
// version 3's compiler wrote its table.
std::string WithSections(uint32_t version, bool v3_scheduling,
                         const std::vector<std::pair<std::string, std::string>>& sections) {
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<uint64_t> code{I(Op::kRetBool, 0, 1, 0)};
  std::vector<flatbuffers::Offset<fb::Policy>> policy{
      fb::CreatePolicy(fbb, fbb.CreateString("p"), fb::Effect::Permit, 0, nullptr, 4, fbb.CreateVector(code))};
  auto policies = fbb.CreateVector(policy);
  std::vector<flatbuffers::Offset<fb::Section>> made;
  for (const auto& [name, data] : sections) {
    made.push_back(fb::CreateSection(fbb, fbb.CreateString(name),
                                     fbb.CreateVector(reinterpret_cast<const uint8_t*>(data.data()), data.size())));
  }
  auto section_vector = fbb.CreateVector(made);
  auto legacy = fbb.CreateVector(std::vector<uint8_t>{1, 2, 3, 4});
  fb::BundleBuilder bundle(fbb);
  bundle.add_format_version(version);
  bundle.add_policies(policies);
  if (!sections.empty()) bundle.add_sections(section_vector);
  if (v3_scheduling) fbb.AddOffset(4 + 2 * 12, legacy);
  fb::FinishBundleBuffer(fbb, bundle.Finish());
  return std::string(reinterpret_cast<const char*>(fbb.GetBufferPointer()), fbb.GetSize());
}

std::string Reject(const std::string& bytes) {
  absl::StatusOr<const fb::Bundle*> r = VerifyBundle(bytes, {});
  EXPECT_THAT(r, StatusIs(absl::StatusCode::kInvalidArgument));
  return r.ok() ? "" : std::string(r.status().message());
}

TEST(Verifier, AcceptsCompiledBundles) {
  std::string bytes = CompileText(kPolicies);
  absl::StatusOr<const fb::Bundle*> r = VerifyBundle(bytes, {});
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ((*r)->policies()->size(), 2u);
}

// Bytes after the bundle's end (issue 15: 4 KB of garbage appended still
// verified) are refused, however few; the bundle itself still verifies.
TEST(Verifier, RejectsBytesAfterTheBundle) {
  std::string bytes = CompileText(kPolicies);
  for (size_t extra : {size_t{4}, size_t{8}, size_t{4096}}) {
    std::string longer = bytes + std::string(extra, '\x5a');
    EXPECT_EQ(Reject(longer), absl::StrCat("invalid bundle: ", extra, " bytes after the end of the bundle (",
                                           bytes.size(), " bytes)"));
  }
  EXPECT_THAT(VerifyBundle(bytes, {}), IsOk());
}

// FlatBuffers' own Verifier checks a vector's length prefix for alignment,
// not its 8-byte elements; this bundle (found by bundle_fuzz under UBSan)
// has its long constants at an address that is 4 mod 8.
TEST(Verifier, RejectsMisalignedLongConstants) {
  std::ifstream in(std::string(CHARTER_SOURCE_DIR) + "/fuzz/corpus/bundle/misaligned-longs",
                   std::ios::binary);
  ASSERT_TRUE(in.good());
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Bundle bundle = Bundle::FromBytes(bytes);  // copied to an aligned buffer
  absl::StatusOr<const fb::Bundle*> r = VerifyBundle(bundle.bytes(), {});
  ASSERT_THAT(r, StatusIs(absl::StatusCode::kInvalidArgument,
                          "invalid bundle: long constants are not 8-byte aligned"));
}

// A policy set with no long constants has an empty `longs` vector, which
// FlatBuffers leaves unaligned: that is no fault.
TEST(Verifier, AcceptsAnEmptyUnalignedVector) {
  for (const char* text : {"permit(principal, action, resource);",
                           "permit(principal, action, resource) when { context.n > 1 };"}) {
    Bundle bundle = Bundle::FromBytes(CompileText(text));
    absl::StatusOr<const fb::Bundle*> r = VerifyBundle(bundle.bytes(), {});
    EXPECT_THAT(r, IsOk()) << text;
  }
}

TEST(Verifier, AcceptsMinimalHandMadeCode) {
  EXPECT_THAT(VerifyBundle(HandMade({I(Op::kRetBool, 0, 1, 0)}), {}), IsOk());
}

TEST(Verifier, RejectsWrongIdentifierAndTinyInput) {
  EXPECT_EQ(Reject("hello"), "invalid bundle: too small to be a bundle");
  std::string bytes = CompileText(kPolicies);
  bytes[4] = 'X';
  EXPECT_EQ(Reject(bytes), "invalid bundle: not a Charter bundle (wrong file identifier)");
}

TEST(Verifier, RejectsTruncation) {
  std::string bytes = CompileText(kPolicies);
  for (size_t n = 0; n < bytes.size(); n += 7) {
    EXPECT_THAT(VerifyBundle(bytes.substr(0, n), {}), StatusIs(absl::StatusCode::kInvalidArgument)) << "truncated to " << n;
  }
}

TEST(Verifier, SurvivesEveryFlippedByte) {
  // Each single-byte corruption is either rejected or still a valid bundle;
  // an Engine built from a survivor must answer without crashing.
  std::string bytes = CompileText(kPolicies);
  Entities entities;
  Request request = Request::Create({"User", "alice"}, {"Action", "x"}, {"Doc", "d"});
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string copy = bytes;
    copy[i] = static_cast<char>(copy[i] ^ 0x5A);
    absl::StatusOr<Engine> engine = Engine::Create(Bundle::FromBytes(copy));
    if (engine.ok()) engine->Authorize(request, entities);
  }
}

TEST(Verifier, RejectsBadCode) {
  EXPECT_EQ(Reject(HandMade({})), "invalid bundle: policy `p`: no code");
  EXPECT_EQ(Reject(HandMade({I(Op::kBool, 0, 1, 0)})),
            "invalid bundle: policy `p`: code does not end with a return");
  EXPECT_EQ(Reject(HandMade({0xFF, I(Op::kRetBool, 0, 1, 0)})),
            "invalid bundle: policy `p`: unknown opcode 255 at pc 0");
  EXPECT_EQ(Reject(HandMade({I(Op::kBool, 4, 1, 0), I(Op::kRet, 0, 0, 0)})),
            "invalid bundle: policy `p`: Bool at pc 0: register out of range");
  EXPECT_EQ(Reject(HandMade({I(Op::kStr, 0, 0, 1), I(Op::kRet, 0, 0, 0)})),
            "invalid bundle: policy `p`: Str at pc 0: string constant out of range");
  EXPECT_EQ(Reject(HandMade({I(Op::kLong, 0, 0, 1), I(Op::kRet, 0, 0, 0)})),
            "invalid bundle: policy `p`: Long at pc 0: long constant out of range");
  EXPECT_EQ(Reject(HandMade({I(Op::kEntity, 0, 0, 1), I(Op::kRet, 0, 0, 0)})),
            "invalid bundle: policy `p`: Entity at pc 0: entity constant out of range");
  EXPECT_EQ(Reject(HandMade({I(Op::kVar, 0, 4, 0), I(Op::kRet, 0, 0, 0)})),
            "invalid bundle: policy `p`: Var at pc 0: unknown request variable");
  EXPECT_EQ(Reject(HandMade({I(Op::kBool, 0, 2, 0), I(Op::kRet, 0, 0, 0)})),
            "invalid bundle: policy `p`: Bool at pc 0: flag is not 0 or 1");
  EXPECT_EQ(Reject(HandMade({I(Op::kRet, 0, 0, 9)})),
            "invalid bundle: policy `p`: Ret at pc 0: unused operand is not zero");
}

TEST(Verifier, JumpsMustGoForwardInsideTheCode) {
  // A backward jump could loop forever.
  EXPECT_EQ(Reject(HandMade({I(Op::kBool, 0, 1, 0), I(Op::kJump, 0, 0, 0), I(Op::kRet, 0, 0, 0)})),
            "invalid bundle: policy `p`: Jump at pc 1: jump target out of range");
  EXPECT_EQ(Reject(HandMade({I(Op::kJump, 0, 0, 0), I(Op::kRet, 0, 0, 0)})),
            "invalid bundle: policy `p`: Jump at pc 0: jump target out of range");
  EXPECT_EQ(Reject(HandMade({I(Op::kJumpIfTrue, 0, 0, 2), I(Op::kRet, 0, 0, 0)})),
            "invalid bundle: policy `p`: JumpIfTrue at pc 0: jump target out of range");
  EXPECT_THAT(VerifyBundle(HandMade({I(Op::kJump, 0, 0, 1), I(Op::kRet, 0, 0, 0)}), {}), IsOk());
}

TEST(Verifier, RegisterRangesMustFitTheRegisterFile) {
  // MakeSet b=count c=first; Call b=builtin (Contains has arity 2).
  EXPECT_EQ(Reject(HandMade({I(Op::kMakeSet, 0, 60000, 0), I(Op::kRet, 0, 0, 0)})),
            "invalid bundle: policy `p`: MakeSet at pc 0: register range out of range");
  EXPECT_EQ(Reject(HandMade({I(Op::kMakeSet, 0, 2, 3), I(Op::kRet, 0, 0, 0)})),
            "invalid bundle: policy `p`: MakeSet at pc 0: register range out of range");
  EXPECT_THAT(VerifyBundle(HandMade({I(Op::kMakeSet, 0, 4, 0), I(Op::kRetBool, 0, 1, 0)}), {}), IsOk());
  EXPECT_EQ(Reject(HandMade({I(Op::kCall, 0, 0, 3), I(Op::kRet, 0, 0, 0)})),
            "invalid bundle: policy `p`: Call at pc 0: register range out of range");
  EXPECT_EQ(Reject(HandMade({I(Op::kCall, 0, 999, 0), I(Op::kRet, 0, 0, 0)})),
            "invalid bundle: policy `p`: Call at pc 0: unknown builtin");
  EXPECT_EQ(Reject(HandMade({I(Op::kMakeRecord, 0, 0, 0), I(Op::kRet, 0, 0, 0)})),
            "invalid bundle: policy `p`: MakeRecord at pc 0: record shape out of range");
  EXPECT_EQ(Reject(HandMade({I(Op::kLike, 0, 0, 0), I(Op::kRet, 0, 0, 0)})),
            "invalid bundle: policy `p`: Like at pc 0: pattern out of range");
}

TEST(Verifier, ChecksConstantSetsAndTheirElements) {
  using K = fb::ScalarKind;
  const std::vector<uint64_t> code{I(Op::kConstSet, 0, 0, 0), I(Op::kRetBool, 0, 1, 0)};
  EXPECT_THAT(VerifyBundle(WithConstSets(code, {{{K::Bool, 1}, {K::Long, 0}, {K::String, 1}, {K::Entity, 0}}}), {}), IsOk());
  EXPECT_EQ(Reject(WithConstSets({I(Op::kConstSet, 0, 0, 1), I(Op::kRetBool, 0, 1, 0)}, {{{K::Long, 0}}})),
            "invalid bundle: policy `p`: ConstSet at pc 0: constant set out of range");
  EXPECT_EQ(Reject(WithConstSets(code, {{{K::Bool, 2}}})), "invalid bundle: constant set: boolean is not 0 or 1");
  EXPECT_EQ(Reject(WithConstSets(code, {{{K::Long, 2}}})),
            "invalid bundle: constant set: long constant out of range");
  EXPECT_EQ(Reject(WithConstSets(code, {{{K::String, 2}}})),
            "invalid bundle: constant set: string constant out of range");
  EXPECT_EQ(Reject(WithConstSets(code, {{{K::Entity, 2}}})),
            "invalid bundle: constant set: entity constant out of range");
  EXPECT_EQ(Reject(WithConstSets(code, {{{static_cast<K>(9), 0}}})),
            "invalid bundle: constant set: unknown element kind");
  // Unique by value, not by index: a pool may repeat a constant.
  EXPECT_EQ(Reject(WithConstSets(code, {{{K::Long, 0}, {K::Long, 0}}})),
            "invalid bundle: constant set has two equal elements");
  EXPECT_EQ(Reject(WithConstSets(code, {{{K::Long, 0}, {K::Long, 1}}}, {"a", "b"}, {7, 7})),
            "invalid bundle: constant set has two equal elements");
  EXPECT_EQ(Reject(WithConstSets(code, {{{K::String, 0}, {K::String, 2}}}, {"a", "b", "a"})),
            "invalid bundle: constant set has two equal elements");
  EXPECT_EQ(Reject(WithConstSets(code, {{{K::Entity, 0}, {K::Entity, 1}}})),
            "invalid bundle: constant set has two equal elements");
  // Long 7 and String "7" differ, so do true and the long 1.
  EXPECT_THAT(VerifyBundle(WithConstSets(code, {{{K::Long, 0}, {K::String, 0}, {K::Bool, 1}}}, {"7", "b"}, {7, 1}), {}), IsOk());
}

TEST(Verifier, ChecksTheRangesOfExtendingInstructions) {
  // SetExtend b=count c=first; RecordExtend b=shape c=first (the shape has 2 keys).
  EXPECT_THAT(VerifyBundle(WithConstSets({I(Op::kSetExtend, 0, 3, 1), I(Op::kRecordExtend, 0, 0, 2), I(Op::kRetBool, 0, 1, 0)}, {}), {}), IsOk());
  EXPECT_EQ(Reject(WithConstSets({I(Op::kSetExtend, 0, 4, 1), I(Op::kRetBool, 0, 1, 0)}, {})),
            "invalid bundle: policy `p`: SetExtend at pc 0: register range out of range");
  EXPECT_EQ(Reject(WithConstSets({I(Op::kRecordExtend, 0, 0, 3), I(Op::kRetBool, 0, 1, 0)}, {})),
            "invalid bundle: policy `p`: RecordExtend at pc 0: register range out of range");
  EXPECT_EQ(Reject(WithConstSets({I(Op::kRecordExtend, 0, 1, 0), I(Op::kRetBool, 0, 1, 0)}, {})),
            "invalid bundle: policy `p`: RecordExtend at pc 0: record shape out of range");
  // The typed opcodes take the operands of their checked twins.
  EXPECT_EQ(Reject(HandMade({I(Op::kTJumpIfFalse, 0, 0, 0), I(Op::kRet, 0, 0, 0)})),
            "invalid bundle: policy `p`: TJumpIfFalse at pc 0: jump target out of range");
  EXPECT_EQ(Reject(HandMade({I(Op::kTLt, 0, 1, 9), I(Op::kRet, 0, 0, 0)})),
            "invalid bundle: policy `p`: TLt at pc 0: register out of range");
}

// Typed opcodes on values of the wrong type (a hostile bundle, or inputs
// that do not conform to the schema) answer something, and never crash.
TEST(Verifier, TypedOpcodesOnWrongTypesAreSafe) {
  std::string bytes = HandMade({I(Op::kStr, 0, 0, 0), I(Op::kEntity, 1, 0, 0), I(Op::kTLt, 2, 0, 1),
                                I(Op::kTAdd, 2, 0, 1), I(Op::kTNot, 3, 1, 0), I(Op::kTNeg, 3, 0, 0),
                                I(Op::kTJumpIfTrue, 0, 0, 8), I(Op::kTJumpIfFalse, 1, 0, 8),
                                I(Op::kRetBool, 0, 1, 0)});
  absl::StatusOr<Engine> engine = Engine::Create(Bundle::FromBytes(bytes));
  ASSERT_THAT(engine, IsOk());
  absl::StatusOr<Entities> entities = Entities::FromJson("[]");
  ASSERT_THAT(entities, IsOk());
  Decision d = engine->Authorize(Request::Create({"User", "a"}, {"Action", "v"}, {"Doc", "d"}), *entities);
  EXPECT_LE(d.errors.size(), 1u);
}

TEST(Verifier, RejectsBadHeaderFields) {
  EXPECT_EQ(Reject(HandMade({I(Op::kRetBool, 0, 1, 0)}, 4, 99)),
            "invalid bundle: format version 99, this engine reads " + std::to_string(kOldestFormatVersion) + " to " +
                std::to_string(kFormatVersion) + " (the bundle is newer: use the charter that built it)");
  EXPECT_EQ(Reject(HandMade({I(Op::kRetBool, 0, 1, 0)}, 0)),
            "invalid bundle: policy `p`: register count out of range");
  EXPECT_EQ(Reject(HandMade({I(Op::kRetBool, 0, 1, 0)}, 300)),
            "invalid bundle: policy `p`: register count out of range");
  EXPECT_EQ(Reject(HandMade({I(Op::kRetBool, 0, 1, 0)}, 4, kFormatVersion, static_cast<fb::Effect>(7))),
            "invalid bundle: policy `p`: unknown effect");
}

// Sections: names not empty, sorted and unique; the core keeps their bytes
// and Engine::section finds them. A version 3 bundle is read unless it has
// the scheduling table that version 4 keeps in a section.
TEST(Verifier, ChecksSectionsAndVersion3Scheduling) {
  EXPECT_EQ(Reject(WithSections(3, true, {})),
            "invalid bundle: format version 3 with a scheduling configuration, which this engine reads from a "
            "section (rebuild it from its sources)");
  EXPECT_THAT(VerifyBundle(WithSections(3, false, {}), {}), IsOk());
  EXPECT_EQ(Reject(WithSections(kFormatVersion, false, {{"b", "x"}, {"a", "y"}})),
            "invalid bundle: sections are not sorted and unique (`a`)");
  EXPECT_EQ(Reject(WithSections(kFormatVersion, false, {{"a", "x"}, {"a", "y"}})),
            "invalid bundle: sections are not sorted and unique (`a`)");
  EXPECT_EQ(Reject(WithSections(kFormatVersion, false, {{"", "x"}})),
            "invalid bundle: section without a name, or its name is not valid UTF-8");
  absl::StatusOr<Engine> engine =
      Engine::Create(Bundle::FromBytes(WithSections(kFormatVersion, false, {{"a", "first"}, {"b", "second"}})));
  ASSERT_THAT(engine, IsOk());
  EXPECT_EQ(engine->section("a"), std::optional<std::string_view>("first"));
  EXPECT_EQ(engine->section("b"), std::optional<std::string_view>("second"));
  EXPECT_EQ(engine->section("c"), std::nullopt);
}

TEST(Verifier, EnforcesLimits) {
  std::string bytes = CompileText(kPolicies);
  VerifyOptions small;
  small.max_bundle_bytes = 16;
  EXPECT_THAT(VerifyBundle(bytes, small), StatusIs(absl::StatusCode::kInvalidArgument));
  VerifyOptions few;
  few.max_policies = 1;
  EXPECT_THAT(VerifyBundle(bytes, few), StatusIs(absl::StatusCode::kInvalidArgument,
                                                 "invalid bundle: more policies than the limit"));
}

TEST(Verifier, EngineRefusesUnverifiableBundles) {
  absl::StatusOr<Engine> engine = Engine::Create(Bundle::FromBytes("not a bundle at all, no"));
  ASSERT_THAT(engine, StatusIs(absl::StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace charter::internal
