// Program: a verified bundle, decoded once into the tables the VM reads.
// Immutable after construction; shared by every Engine copy and thread.
#ifndef CHARTER_VM_PROGRAM_H_
#define CHARTER_VM_PROGRAM_H_

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "charter/bundle.h"
#include "charter/bundle_generated.h"
#include "value/value.h"
#include "vm/scope_index.h"

namespace charter::internal {

struct PolicyCode {
  std::string_view id;
  bool forbid = false;
  const uint64_t* code = nullptr;
  uint32_t size = 0;
  uint32_t num_registers = 0;
  const fb::Policy* source = nullptr;
  // One bit an instruction (bit pc % 64 of word pc / 64): set on a
  // MakeRecord or RecordExtend whose record no instruction can read before a
  // RecordExtend extends it further (FindPendingRecords), so that the VM may
  // build it in place and sort it once at the end.
  const uint64_t* pending_records = nullptr;
  bool pending_record(uint32_t pc) const { return (pending_records[pc / 64] >> (pc % 64)) & 1; }
};

// Limits on what a bundle's code may do while it decides a request
// (VerifyOptions' evaluation limits, as the VM reads them).
struct EvalLimits {
  uint16_t max_value_depth = 1000;               // Value::depth
  size_t max_decision_bytes = size_t{128} << 20;  // the scratch arena's bytes
  uint64_t max_decision_work = uint64_t{1} << 26;  // WalkBudget steps a decision
};

// The MakeRecord and RecordExtend instructions of `code` (verified) whose
// record is next read by a RecordExtend of the same register, the record's
// only reader: no instruction in between names the register, and no jump
// from between them lands after that RecordExtend. Code compiled from a
// record literal of more than one chunk is of this kind (lower.cc).
std::vector<uint64_t> FindPendingRecords(const fb::Bundle* root, const uint64_t* code, uint32_t size);

struct PatternPart {
  bool wildcard;
  std::string_view literal;
};

struct RecordShapeView {
  std::vector<std::string_view> keys;  // sorted
  std::vector<uint32_t> order;         // register offset of each sorted key
};

class Program {
 public:
  // INVARIANT: `root` points into `bundle` and has passed VerifyBundle.
  Program(Bundle bundle, const fb::Bundle* root, const EvalLimits& limits = {});

  const fb::Bundle* root() const { return root_; }
  const std::vector<PolicyCode>& policies() const { return policies_; }
  const Value& string(uint32_t k) const { return strings_[k]; }
  std::string_view string_view(uint32_t k) const { return strings_[k].string(); }
  int64_t long_at(uint32_t k) const { return longs_[k]; }
  const EntityRef* entity(uint32_t k) const { return &entities_[k]; }
  size_t num_strings() const { return strings_.size(); }
  size_t num_entities() const { return entities_.size(); }
  // The index of an entity constant of this program, or -1 for any other
  // entity reference.
  int64_t entity_index(const EntityRef* e) const {
    return e >= entities_.data() && e < entities_.data() + entities_.size() ? e - entities_.data() : -1;
  }
  const std::vector<PatternPart>& pattern(uint32_t k) const { return patterns_[k]; }
  const RecordShapeView& shape(uint32_t k) const { return shapes_[k]; }
  const Value& const_set(uint32_t k) const { return const_sets_[k]; }
  // The fingerprint of the schema a typed bundle was compiled with, or empty.
  std::string_view schema_fingerprint() const { return schema_fingerprint_; }
  const ScopeIndex& scope_index() const { return scope_index_; }
  const EvalLimits& limits() const { return limits_; }

 private:
  Bundle bundle_;
  const fb::Bundle* root_;
  std::vector<PolicyCode> policies_;
  std::vector<std::vector<uint64_t>> pending_records_;  // PolicyCode::pending_records
  EvalLimits limits_;
  std::vector<Value> strings_;
  std::vector<int64_t> longs_;
  std::vector<EntityRef> entities_;
  std::vector<std::vector<PatternPart>> patterns_;
  std::vector<RecordShapeView> shapes_;
  std::vector<std::vector<Value>> const_set_elements_;
  std::vector<Value> const_sets_;  // each points into const_set_elements_
  std::string_view schema_fingerprint_;
  ScopeIndex scope_index_;  // built last, from the tables above
};

}  // namespace charter::internal

#endif  // CHARTER_VM_PROGRAM_H_
