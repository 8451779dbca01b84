// Bundles written instruction by instruction, for the tests that give the VM
// code no compiler writes (hostile bundles): a few pools and policies of
// hand-made code, encoded as the compiler encodes a bundle.
#ifndef CHARTER_TESTS_VM_HAND_MADE_H_
#define CHARTER_TESTS_VM_HAND_MADE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "bytecode/opcodes.h"
#include "charter/bundle_generated.h"
#include "flatbuffers/flatbuffers.h"

namespace charter::internal::testing {

inline uint64_t I(Op op, uint32_t a, uint32_t b, uint32_t c) { return Insn::Encode(op, a, b, c); }

struct HandMadePolicy {
  std::string id;
  std::vector<uint64_t> code;
  uint16_t registers = 4;
};

struct HandMadeBundle {
  std::vector<std::string> strings;
  std::vector<int64_t> longs;
  // Each shape's keys, as indices into `strings`, whose strings must be
  // sorted; a shape's i-th key takes the i-th register of the range.
  std::vector<std::vector<uint32_t>> shapes;
  std::vector<HandMadePolicy> policies;

  std::string Build() const {
    flatbuffers::FlatBufferBuilder fbb;
    std::vector<flatbuffers::Offset<flatbuffers::String>> pool;
    for (const std::string& s : strings) pool.push_back(fbb.CreateString(s));
    std::vector<flatbuffers::Offset<fb::RecordShape>> shape_tables;
    for (const std::vector<uint32_t>& keys : shapes) {
      std::vector<uint32_t> order(keys.size());
      for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
      shape_tables.push_back(fb::CreateRecordShape(fbb, fbb.CreateVector(keys), fbb.CreateVector(order)));
    }
    std::vector<flatbuffers::Offset<fb::Policy>> policy_tables;
    for (const HandMadePolicy& p : policies) {
      policy_tables.push_back(fb::CreatePolicy(fbb, fbb.CreateString(p.id), fb::Effect::Permit, 0, nullptr,
                                               p.registers, fbb.CreateVector(p.code)));
    }
    auto root = fb::CreateBundle(fbb, kFormatVersion, 0, 0, fbb.CreateVector(pool), fbb.CreateVector(longs), 0,
                                 fbb.CreateVector(policy_tables), 0, 0, fbb.CreateVector(shape_tables));
    fb::FinishBundleBuffer(fbb, root);
    return std::string(reinterpret_cast<const char*>(fbb.GetBufferPointer()), fbb.GetSize());
  }
};

// One policy that nests a set in itself `depth` times (MakeSet R0 = {R0}),
// then compares the result with itself and returns that.
inline HandMadeBundle NestedSets(uint32_t depth) {
  HandMadePolicy p{"nested", {}, 2};
  for (uint32_t i = 0; i < depth; ++i) p.code.push_back(I(Op::kMakeSet, 0, 1, 0));
  p.code.push_back(I(Op::kEq, 1, 0, 0));
  p.code.push_back(I(Op::kRet, 1, 0, 0));
  return HandMadeBundle{{}, {}, {}, {p}};
}

// One policy of `count` MakeSets of 255 registers each (all `false`, so
// each set has one element, yet each allocates room for 255), then `true`.
inline HandMadeBundle SetFlood(uint32_t count, std::string id = "flood") {
  HandMadePolicy p{std::move(id), {}, 256};
  for (uint32_t i = 0; i < count; ++i) p.code.push_back(I(Op::kMakeSet, 0, 255, 1));
  p.code.push_back(I(Op::kRetBool, 0, 1, 0));
  return HandMadeBundle{{}, {}, {}, {p}};
}

// One policy whose sets share their elements: S(k+1) = {S(k), {S(k)}}, so
// that S(levels) is 2 * levels instructions yet stands for a tree of about
// 2^levels sets; then a MakeSet of it with 254 other registers (hashed, as
// a set of more than 64 values is) and `true`.
inline HandMadeBundle SharedSets(uint32_t levels) {
  HandMadePolicy p{"shared", {}, 256};
  for (uint32_t i = 0; i < levels; ++i) {
    p.code.push_back(I(Op::kMakeSet, 1, 1, 0));  // R1 = {R0}
    p.code.push_back(I(Op::kMakeSet, 0, 2, 0));  // R0 = {R0, R1}
  }
  p.code.push_back(I(Op::kMakeSet, 2, 255, 0));
  p.code.push_back(I(Op::kRetBool, 0, 1, 0));
  return HandMadeBundle{{}, {}, {}, {p}};
}

}  // namespace charter::internal::testing

#endif  // CHARTER_TESTS_VM_HAND_MADE_H_
