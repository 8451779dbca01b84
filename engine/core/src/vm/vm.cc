// The register VM. One execute loop; dispatch by computed goto where the
// compiler has it (define CHARTER_VM_SWITCH to force the switch); hot state
// in locals; one exit path for errors that records the pc.
#include "vm/vm.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <new>
#include <type_traits>

#include "common/like.h"
#include "common/strings.h"
#include "builtins/builtins.h"
#include "bytecode/opcodes.h"

#if defined(__GNUC__) && !defined(CHARTER_VM_SWITCH)
#define CHARTER_COMPUTED_GOTO 1
#endif

namespace charter::internal {

const char* DispatchKind() {
#ifdef CHARTER_COMPUTED_GOTO
  return "computed-goto";
#else
  return "switch";
#endif
}

namespace {

// An entity's uid in the store: known already, from the binding for the
// program's entity constants, or found by (type, id).
uint32_t Resolve(const EntityRef* e, const Program& program, const Environment& env) {
  if (e->uid != kNoUid) return e->uid;
  if (env.binding != nullptr) {
    int64_t k = program.entity_index(e);
    if (k >= 0) {
      uint32_t uid = env.binding->entity_uid(static_cast<uint32_t>(k));
      // A store built in code may have gained the entity since it was bound.
      if (uid != kNoUid || !env.store->built_in_code()) return uid;
    }
  }
  return env.store->Resolve(*e);
}

// The field `strings[k]` of a record. A record of the store's entity data
// with a binding: by the address of the store's copy of the key, without
// comparing strings (records that long are searched by key instead).
constexpr uint32_t kLinearFields = 16;
const Value* FindAttr(const Value& record, uint32_t k, const Program& program, const Environment& env) {
  if (env.binding != nullptr && record.interned_keys && record.size <= kLinearFields) {
    const StoreBinding::Key& key = env.binding->key(k);
    if (!key.present) return nullptr;
    for (uint32_t i = 0; i < record.size; ++i) {
      const std::string_view& f = record.fields[i].key;
      if (f.data() == key.interned.data() && f.size() == key.interned.size()) {
        return &record.fields[i].value;
      }
    }
    return nullptr;
  }
  return FindField(record, program.string_view(k));
}

// A typed opcode's boolean operand, read as a byte: a register that holds
// no boolean (a hostile bundle, or inputs that do not conform to the
// schema) gives some answer, and never an invalid `bool` load.
bool BoolBits(const Value& v) {
  unsigned char byte;
  std::memcpy(&byte, &v.b, 1);
  return byte != 0;
}

// Errors are appended to a buffer the caller keeps, so that a steady
// stream of erring requests allocates nothing once the buffer has grown.
void TypeError(std::string* error, std::string_view expected, const Value& got) {
  CatAppend(error, "type error: expected ", expected, ", got ", TypeName(got.type));
}

// `a in b` for two entities: reflexive, then the precomputed ancestors.
bool EntityIn(const EntityRef* a, const EntityRef* b, const Program& program, const Environment& env) {
  if (Equal(Value::Entity(a), Value::Entity(b))) return true;
  uint32_t ua = Resolve(a, program, env);
  if (ua == kNoUid) return false;
  uint32_t ub = Resolve(b, program, env);
  if (ub == kNoUid) return false;
  return env.store->HasAncestor(ua, ub);
}

// `<` and friends: two longs, two datetimes or two durations.
bool Comparable(const Value& a, const Value& b, std::string* error) {
  bool ordered = a.type == Type::kLong || a.type == Type::kDatetime || a.type == Type::kDuration;
  if (!ordered) {
    TypeError(error, "long", a);
    return false;
  }
  if (b.type != a.type) {
    TypeError(error, TypeName(a.type), b);
    return false;
  }
  return true;
}

// Whether both operands of an arithmetic opcode are longs; the type error
// of the first that is not, otherwise.
bool Longs(const Value& a, const Value& b, std::string* error) {
  if (a.type != Type::kLong) {
    TypeError(error, "long", a);
    return false;
  }
  if (b.type != Type::kLong) {
    TypeError(error, "long", b);
    return false;
  }
  return true;
}

void Overflow(std::string* error, const char* verb, int64_t a, int64_t b) {
  CatAppend(error, "integer overflow while attempting to ", verb, " the values ", a, " and ", b);
}

// -a of a long, or an overflow error for the one long that has no negation.
bool Negate(const Value& a, Value* out, std::string* error) {
  if (a.i == INT64_MIN) {
    CatAppend(error, "integer overflow while attempting to negate the value ", a.i);
    return false;
  }
  *out = Value::Long(-a.i);
  return true;
}

// Appends to elems[0, unique) each of src[0, n) it does not hold yet, and
// returns the new count (sets keep one copy of each value).
uint32_t AddUnique(Value* elems, uint32_t unique, const Value* src, uint32_t n, WalkBudget* work) {
  return AppendUnique(elems, unique, src, n, work);
}

// The deepest Value::depth of vs[0, n).
uint32_t MaxDepth(const Value* vs, uint32_t n) {
  uint32_t depth = 0;
  for (uint32_t i = 0; i < n; ++i) depth = std::max<uint32_t>(depth, vs[i].depth);
  return depth;
}

void DepthError(std::string* error, uint32_t limit) {
  CatAppend(error, "sets and records nested more than ", limit, " deep (the limit, max_value_depth)");
}

void WorkError(std::string* error, uint64_t limit) {
  CatAppend(error, "comparing and hashing the values of this request took more than ", limit,
            " steps (the limit, max_decision_work)");
}

void MemoryError(std::string* error, size_t limit) {
  CatAppend(error, "the sets and records built for this request need more than ", limit,
            " bytes (the limit, max_decision_bytes)");
}

// The sets a run is building with SetExtend, by register. A literal of n
// elements is a MakeSet and then one SetExtend a chunk (lower.cc); copying
// the set and hashing it again at each chunk made a literal of 80,000
// elements cost 2,500 copies of half of it (issue 15). A builder keeps the
// array it last wrote into the register (with room to grow, doubling) and
// a hash table of its elements, so the next SetExtend on that register
// appends in place when the register still holds exactly that set (same
// array, same size): nothing else can see the array past a set's size, so
// values made from it earlier are unchanged. Any other set is copied once.
// The arena is not reset during a run, so an (array, size) pair names one set.
constexpr size_t kSmallSetExtend = 256;

class SetBuilders {
 public:
  // R[a] extended by src[0, n) into *out; R[a] must be a set. False when
  // that would allocate more than `room` bytes (arena and tables together).
  bool Extend(uint32_t a, const Value& base, const Value* src, uint32_t n, Arena* scratch, size_t room,
              WalkBudget* work, Value* out) {
    Builder& b = builders_[a];
    // A step for each element hashed (value/walk.h).
    work->Take(n);
    if (b.elems == nullptr || b.elems != base.elements || b.size != base.size) {
      work->Take(base.size);
      size_t capacity = std::max<size_t>(64, 2 * (size_t{base.size} + n));
      if (capacity > UINT32_MAX || capacity * (sizeof(Value) + kTableBytesPerElement) > room) return false;
      b.capacity = static_cast<uint32_t>(capacity);
      b.elems = scratch->AllocateArray<Value>(b.capacity);
      b.size = 0;
      b.table.clear();
      b.hashes.clear();
      for (uint32_t i = 0; i < base.size; ++i) Insert(b, base.elements[i], /*known_unique=*/true, work);
    } else if (size_t{b.size} + n > b.capacity) {
      size_t capacity = std::max<size_t>(2 * size_t{b.capacity}, size_t{b.size} + n);
      if (capacity > UINT32_MAX || capacity * (sizeof(Value) + kTableBytesPerElement) > room) return false;
      Value* elems = scratch->AllocateArray<Value>(capacity);
      std::copy(b.elems, b.elems + b.size, elems);
      b.elems = elems;
      b.capacity = static_cast<uint32_t>(capacity);
    }
    // src is in the registers, never in b.elems: read before written.
    for (uint32_t i = 0; i < n; ++i) Insert(b, src[i], false, work);
    *out = Value::Set(b.elems, b.size);
    return true;
  }

  // The bytes the builders' hash tables hold, which count against the
  // decision's limit as the arena's do.
  size_t heap_bytes() const { return heap_bytes_; }

 private:
  static constexpr uint32_t kEmpty = 0xFFFFFFFF;
  // A table of at most 4 slots an element (4 bytes each) and a hash (8).
  static constexpr size_t kTableBytesPerElement = 4 * sizeof(uint32_t) + sizeof(uint64_t);
  struct Builder {
    Value* elems = nullptr;
    uint32_t size = 0;
    uint32_t capacity = 0;
    std::vector<uint32_t> table;   // indices into elems, at most half full
    std::vector<uint64_t> hashes;  // of elems[0, size)
  };

  static void Place(Builder& b, uint32_t index) {
    size_t mask = b.table.size() - 1;
    size_t s = static_cast<size_t>(b.hashes[index]) & mask;
    while (b.table[s] != kEmpty) s = (s + 1) & mask;
    b.table[s] = index;
  }

  void Insert(Builder& b, const Value& v, bool known_unique, WalkBudget* work) {
    if (2 * (size_t{b.size} + 1) > b.table.size()) {
      size_t cap = 64;
      while (cap < 4 * (size_t{b.size} + 1)) cap *= 2;
      heap_bytes_ += (cap - b.table.size()) * sizeof(uint32_t);
      b.table.assign(cap, kEmpty);
      for (uint32_t k = 0; k < b.size; ++k) Place(b, k);
    }
    uint64_t hash = HashValue(v, work);
    size_t mask = b.table.size() - 1;
    size_t s = static_cast<size_t>(hash) & mask;
    for (; b.table[s] != kEmpty; s = (s + 1) & mask) {
      if (known_unique) continue;
      uint32_t k = b.table[s];
      if (b.hashes[k] == hash && Equal(b.elems[k], v, work)) return;
    }
    b.table[s] = b.size;
    size_t before = b.hashes.capacity();
    b.hashes.push_back(hash);
    heap_bytes_ += (b.hashes.capacity() - before) * sizeof(uint64_t);
    b.elems[b.size++] = v;
  }

  std::array<Builder, kMaxRegisters> builders_;
  size_t heap_bytes_ = 0;
};

// The records a run is building in place, by register. A record literal
// of n keys is a MakeRecord and then one RecordExtend a chunk (lower.cc);
// merging each chunk into a copy of the record so far made a literal of
// 60,000 keys cost 1.74 GB and 7.9 s a decision (issue 32). Where nothing
// can read the record between two of them (PolicyCode::pending_record), the
// builder appends each chunk's fields to an array of its own (doubling),
// the register holding an empty record meanwhile, and the instruction that
// ends the run of them sorts the fields once, the last of equal keys
// winning as in a merge. The array is the builder's alone until then.
class RecordBuilders {
 public:
  bool pending(uint32_t a) const { return builders_[a].pending; }

  // Starts register a's record from `base` (a record). False when that
  // would allocate more than `room` bytes.
  bool Start(uint32_t a, const Value& base, Arena* scratch, size_t room) {
    Builder& b = builders_[a];
    b = Builder{};
    if (!Reserve(b, base.size, scratch, room)) return false;
    std::copy(base.fields, base.fields + base.size, b.fields);
    b.size = base.size;
    b.depth = std::max<uint16_t>(1, base.depth);
    b.pending = true;
    return true;
  }

  // Appends shape's keys with the values R[c + order[i]] (at `values`), of
  // depth `depth` at most, to register a's record.
  bool Add(uint32_t a, const RecordShapeView& shape, const Value* values, uint16_t depth, Arena* scratch,
           size_t room) {
    Builder& b = builders_[a];
    uint32_t n = static_cast<uint32_t>(shape.keys.size());
    if (!Reserve(b, n, scratch, room)) return false;
    for (uint32_t i = 0; i < n; ++i) b.fields[b.size++] = RecordField{shape.keys[i], values[shape.order[i]]};
    b.depth = std::max(b.depth, depth);
    return true;
  }

  // Register a's record, sorted by key, the last of equal keys kept.
  Value Finish(uint32_t a) {
    Builder& b = builders_[a];
    b.pending = false;
    std::stable_sort(b.fields, b.fields + b.size,
                     [](const RecordField& x, const RecordField& y) { return x.key < y.key; });
    uint32_t out = 0;
    for (uint32_t i = 0; i < b.size; ++i) {
      if (i + 1 < b.size && b.fields[i + 1].key == b.fields[i].key) continue;
      b.fields[out++] = b.fields[i];
    }
    Value record = Value::Record(b.fields, out);
    record.depth = b.depth;
    return record;
  }

 private:
  struct Builder {
    RecordField* fields = nullptr;
    uint32_t size = 0;
    uint32_t capacity = 0;
    uint16_t depth = 0;  // the record's
    bool pending = false;
  };

  static bool Reserve(Builder& b, size_t more, Arena* scratch, size_t room) {
    if (b.size + more <= b.capacity) return true;
    size_t capacity = std::max<size_t>({32, 2 * size_t{b.capacity}, b.size + more});
    if (capacity > UINT32_MAX || capacity * sizeof(RecordField) > room) return false;
    RecordField* fields = scratch->AllocateArray<RecordField>(capacity);
    std::copy(b.fields, b.fields + b.size, fields);
    b.fields = fields;
    b.capacity = static_cast<uint32_t>(capacity);
    return true;
  }

  std::array<Builder, kMaxRegisters> builders_;
};

}  // namespace

const StoreBinding* StoreBinding::Prepare(const std::shared_ptr<const Program>& program,
                                          const std::shared_ptr<const EntityStore>& store) {
  if (program_ != program || store_ != store) {
    // A new pair: remember it, and bind if it comes again.
    program_ = program;
    store_ = store;
    bound_ = false;
    return nullptr;
  }
  // A store built in code may have interned keys since (its entity uids
  // only grow: Resolve looks up those the binding lacks).
  if (!bound_ || key_generation_ != store->key_generation()) {
    key_generation_ = store->key_generation();
    keys_.resize(program->num_strings());
    for (uint32_t k = 0; k < keys_.size(); ++k) {
      const std::string_view* interned = store->InternedKey(program->string_view(k));
      keys_[k] = interned != nullptr ? Key{*interned, true} : Key{{}, false};
    }
    entity_uids_.resize(program->num_entities());
    for (uint32_t k = 0; k < entity_uids_.size(); ++k) {
      const EntityRef* e = program->entity(k);
      entity_uids_[k] = store->Find(e->type, e->id);
    }
    bound_ = true;
  }
  return this;
}

bool MatchPattern(std::string_view s, const std::vector<PatternPart>& parts) {
  // The one matcher of `like` (common/like.h), linear in the text and the
  // pattern whatever they hold; the VM's own `find` loop was O(text x
  // literal) on text such as "aaa...a" against "a...ab".
  return MatchLike(s, parts);
}

Outcome Run(const Program& program, const PolicyCode& policy, const Environment& env,
            Arena* scratch, EvalError* failure) {
  std::string* const error = &failure->message;
  error->clear();
  // The register file, left uninitialized but for the policy's registers:
  // constructing all 256 Values on every run was a fifth of a decision.
  union RegisterFile {
    RegisterFile() {}
    Value values[kMaxRegisters];
  } file;
  Value* const regs = file.values;
  for (uint32_t i = 0; i < policy.num_registers; ++i) regs[i] = Value::Bool(false);
  const uint64_t* const code = policy.code;
  const EntityStore* const store = env.store;
  uint32_t pc = 0;
  Insn insn{0};
  std::unique_ptr<SetBuilders> set_builders;  // made by the first large SetExtend
  std::unique_ptr<RecordBuilders> record_builders;  // made by the first pending record
  const EvalLimits& limits = program.limits();
  // INVARIANT: every caller gives the decision's budget (Environment::work).
  WalkBudget* const work = env.work;
  // The bytes this decision may still allocate for values: the scratch
  // arena is the decision's (reset before its first policy), and the set
  // builders' tables count too.
  auto room = [&]() -> size_t {
    size_t used = scratch->bytes_allocated() + (set_builders != nullptr ? set_builders->heap_bytes() : 0);
    return used < limits.max_decision_bytes ? limits.max_decision_bytes - used : 0;
  };

#ifdef CHARTER_COMPUTED_GOTO
  static const void* const kDispatch[] = {
#define OP(name, a, b, c, synopsis) &&L_##name,
#include "bytecode/opcodes.def"
#undef OP
  };
#define CASE(name) L_##name:
#define NEXT()                        \
  do {                                \
    insn.word = code[pc++];           \
    goto* kDispatch[insn.raw_op()];   \
  } while (0)
  NEXT();
#else
#define CASE(name) case Op::k##name:
#define NEXT() continue
  for (;;) {
    insn.word = code[pc++];
    switch (insn.op()) {
#endif

// The families of opcodes that come untyped and typed (T...), each written
// once, as Lua's op_arith serves its variants. `checked` (a constant) says
// whether the opcode checks its operands' types; a typed one relies on the
// validator's proof, and only reads the payload (see opcodes.def).

// A boolean operand into `out`: checked, or read as a byte.
#define BOOL_OPERAND(checked, v, out)  \
  do {                                 \
    const Value& bool_operand = (v);   \
    if (checked) {                     \
      if (bool_operand.type != Type::kBool) { \
        TypeError(error, "bool", bool_operand); \
        goto error;                    \
      }                                \
      out = bool_operand.b;            \
    } else {                           \
      out = BoolBits(bool_operand);    \
    }                                  \
  } while (0)
// R[a] = !R[b].
#define OP_NOT(name, checked)           \
  CASE(name) {                          \
    bool b;                             \
    BOOL_OPERAND(checked, regs[insn.b()], b); \
    regs[insn.a()] = Value::Bool(!b);   \
    NEXT();                             \
  }
// if R[a] == when goto c.
#define OP_JUMP_IF(name, checked, when) \
  CASE(name) {                          \
    bool b;                             \
    BOOL_OPERAND(checked, regs[insn.a()], b); \
    if (b == (when)) pc = insn.c();     \
    NEXT();                             \
  }
// R[a] = -R[b], overflow an error.
#define OP_NEG(name, checked)                                \
  CASE(name) {                                               \
    const Value& v = regs[insn.b()];                         \
    if ((checked) && v.type != Type::kLong) {                \
      TypeError(error, "long", v);                           \
      goto error;                                            \
    }                                                        \
    if (!Negate(v, &regs[insn.a()], error)) goto error;      \
    NEXT();                                                  \
  }
// R[a] = R[b] op R[c] on longs, overflow (`overflows`, a __builtin_*_overflow)
// an error.
#define OP_ARITH(name, checked, overflows, verb)             \
  CASE(name) {                                               \
    const Value& l = regs[insn.b()];                         \
    const Value& r = regs[insn.c()];                         \
    if ((checked) && !Longs(l, r, error)) goto error;        \
    int64_t result;                                          \
    if (overflows(l.i, r.i, &result)) {                      \
      Overflow(error, verb, l.i, r.i);                       \
      goto error;                                            \
    }                                                        \
    regs[insn.a()] = Value::Long(result);                    \
    NEXT();                                                  \
  }
// R[a] = R[b] op R[c] on two longs, datetimes or durations (their payloads
// order alike).
#define OP_COMPARE(name, checked, op)                        \
  CASE(name) {                                               \
    const Value& l = regs[insn.b()];                         \
    const Value& r = regs[insn.c()];                         \
    if ((checked) && !Comparable(l, r, error)) goto error;   \
    regs[insn.a()] = Value::Bool(l.i op r.i);                \
    NEXT();                                                  \
  }

  CASE(Bool) {
    regs[insn.a()] = Value::Bool(insn.b() != 0);
    NEXT();
  }
  CASE(Long) {
    regs[insn.a()] = Value::Long(program.long_at(insn.c()));
    NEXT();
  }
  CASE(Str) {
    regs[insn.a()] = program.string(insn.c());
    NEXT();
  }
  CASE(Entity) {
    regs[insn.a()] = Value::Entity(program.entity(insn.c()));
    NEXT();
  }
  CASE(Var) {
    regs[insn.a()] = env.vars[insn.b()];
    NEXT();
  }
  CASE(Attr) {
    const Value& base = regs[insn.b()];
    std::string_view name = program.string_view(insn.c());
    const Value* found = nullptr;
    if (base.type == Type::kRecord) {
      found = FindAttr(base, insn.c(), program, env);
      if (found == nullptr) {
        CatAppend(error, "record does not have the attribute `", name, "`");
        goto error;
      }
    } else if (base.type == Type::kEntity) {
      uint32_t uid = Resolve(base.entity, program, env);
      const EntityData* data = uid == kNoUid ? nullptr : store->data(uid);
      if (data == nullptr) {
        error->append("entity `");
        AppendEntityToCedar(error, base.entity->type, base.entity->id);
        error->append("` does not exist");
        goto error;
      }
      found = FindAttr(data->attrs, insn.c(), program, env);
      if (found == nullptr) {
        error->push_back('`');
        AppendEntityToCedar(error, base.entity->type, base.entity->id);
        CatAppend(error, "` does not have the attribute `", name, "`");
        goto error;
      }
    } else {
      TypeError(error, "record or entity", base);
      goto error;
    }
    regs[insn.a()] = *found;
    NEXT();
  }
  CASE(Has) {
    const Value& base = regs[insn.b()];
    bool has = false;
    if (base.type == Type::kRecord) {
      has = FindAttr(base, insn.c(), program, env) != nullptr;
    } else if (base.type == Type::kEntity) {
      uint32_t uid = Resolve(base.entity, program, env);
      const EntityData* data = uid == kNoUid ? nullptr : store->data(uid);
      has = data != nullptr && FindAttr(data->attrs, insn.c(), program, env) != nullptr;
    } else {
      TypeError(error, "record or entity", base);
      goto error;
    }
    regs[insn.a()] = Value::Bool(has);
    NEXT();
  }
  CASE(Eq) {
    const Value& l = regs[insn.b()];
    const Value& r = regs[insn.c()];
    if (l.type != Type::kSet && l.type != Type::kRecord) {
      regs[insn.a()] = Value::Bool(Equal(l, r));  // scalars: no walk
      NEXT();
    }
    bool equal = Equal(l, r, work);
    if (work->exhausted()) goto work_error;
    regs[insn.a()] = Value::Bool(equal);
    NEXT();
  }
  OP_NOT(Not, true)
  CASE(In) {
    const Value& lhs = regs[insn.b()];
    const Value& rhs = regs[insn.c()];
    if (lhs.type != Type::kEntity) {
      TypeError(error, "entity", lhs);
      goto error;
    }
    bool in = false;
    if (rhs.type == Type::kEntity) {
      in = EntityIn(lhs.entity, rhs.entity, program, env);
    } else if (rhs.type == Type::kSet) {
      // Every element is type-checked before the answer, as in Cedar; each
      // is a step of the decision's walks.
      if (!work->Take(rhs.size)) goto work_error;
      for (uint32_t i = 0; i < rhs.size; ++i) {
        if (rhs.elements[i].type != Type::kEntity) {
          TypeError(error, "set of entities", rhs.elements[i]);
          goto error;
        }
      }
      for (uint32_t i = 0; i < rhs.size && !in; ++i) {
        in = EntityIn(lhs.entity, rhs.elements[i].entity, program, env);
      }
    } else {
      TypeError(error, "entity or set of entities", rhs);
      goto error;
    }
    regs[insn.a()] = Value::Bool(in);
    NEXT();
  }
  CASE(CheckBool) {
    bool b;
    BOOL_OPERAND(true, regs[insn.a()], b);
    (void)b;
    NEXT();
  }
  OP_JUMP_IF(JumpIfFalse, true, false)
  OP_JUMP_IF(JumpIfTrue, true, true)
  CASE(Jump) {
    pc = insn.c();
    NEXT();
  }
  CASE(Ret) {
    bool b;
    BOOL_OPERAND(true, regs[insn.a()], b);
    return b ? Outcome::kTrue : Outcome::kFalse;
  }
  CASE(RetBool) {
    return insn.b() != 0 ? Outcome::kTrue : Outcome::kFalse;
  }

  OP_NEG(Neg, true)
  OP_ARITH(Add, true, __builtin_add_overflow, "add")
  OP_ARITH(Sub, true, __builtin_sub_overflow, "subtract")
  OP_ARITH(Mul, true, __builtin_mul_overflow, "multiply")
  OP_COMPARE(Lt, true, <)
  OP_COMPARE(Le, true, <=)
  OP_COMPARE(Gt, true, >)
  OP_COMPARE(Ge, true, >=)
  CASE(Is) {
    const Value& v = regs[insn.b()];
    if (v.type != Type::kEntity) {
      TypeError(error, "entity", v);
      goto error;
    }
    regs[insn.a()] = Value::Bool(v.entity->type == program.string_view(insn.c()));
    NEXT();
  }
  CASE(Like) {
    const Value& v = regs[insn.b()];
    if (v.type != Type::kString) {
      TypeError(error, "string", v);
      goto error;
    }
    regs[insn.a()] = Value::Bool(MatchPattern(v.string(), program.pattern(insn.c())));
    NEXT();
  }
  CASE(MakeSet) {
    uint32_t n = insn.b();
    const Value* src = &regs[insn.c()];
    uint32_t depth = 1 + MaxDepth(src, n);
    if (depth > limits.max_value_depth) {
      DepthError(error, limits.max_value_depth);
      goto error;
    }
    if (sizeof(Value) * n > room()) {
      MemoryError(error, limits.max_decision_bytes);
      goto error;
    }
    Value* elems = scratch->AllocateArray<Value>(n);
    Value set = Value::Set(elems, AddUnique(elems, 0, src, n, work));
    if (work->exhausted()) goto work_error;
    set.depth = static_cast<uint16_t>(depth);
    regs[insn.a()] = set;
    NEXT();
  }
  CASE(MakeRecord) {
    const RecordShapeView& shape = program.shape(insn.b());
    uint32_t n = static_cast<uint32_t>(shape.keys.size());
    const Value* src = &regs[insn.c()];
    uint32_t depth = 1 + MaxDepth(src, n);
    if (depth > limits.max_value_depth) {
      DepthError(error, limits.max_value_depth);
      goto error;
    }
    if (policy.pending_record(pc - 1)) {
      // The first chunk of a record built in place (RecordBuilders).
      if (record_builders == nullptr) record_builders = std::make_unique<RecordBuilders>();
      if (!record_builders->Start(insn.a(), Value::Record(nullptr, 0), scratch, room()) ||
          !record_builders->Add(insn.a(), shape, src, static_cast<uint16_t>(depth), scratch, room())) {
        MemoryError(error, limits.max_decision_bytes);
        goto error;
      }
      regs[insn.a()] = Value::Record(nullptr, 0);
      NEXT();
    }
    if (sizeof(RecordField) * n > room()) {
      MemoryError(error, limits.max_decision_bytes);
      goto error;
    }
    RecordField* fields = scratch->AllocateArray<RecordField>(n);
    for (uint32_t i = 0; i < n; ++i) {
      fields[i].key = shape.keys[i];
      fields[i].value = src[shape.order[i]];
    }
    Value record = Value::Record(fields, n);
    record.depth = static_cast<uint16_t>(depth);
    regs[insn.a()] = record;
    NEXT();
  }
  CASE(Call) {
    CallContext ctx{store, scratch, work};
    Value out;
    bool called = CallBuiltin(static_cast<Builtin>(insn.b()), &regs[insn.c()], ctx, &out, error);
    if (work->exhausted()) {
      error->clear();
      goto work_error;
    }
    if (!called) goto error;
    regs[insn.a()] = out;
    NEXT();
  }

  CASE(ConstSet) {
    regs[insn.a()] = program.const_set(insn.c());
    NEXT();
  }
  CASE(SetExtend) {
    // Reads every operand before it writes R[a].
    const Value base = regs[insn.a()];
    if (base.type != Type::kSet) {
      TypeError(error, "set", base);
      goto error;
    }
    uint32_t n = insn.b();
    const Value* src = &regs[insn.c()];
    uint32_t depth = std::max<uint32_t>(base.depth, 1 + MaxDepth(src, n));
    if (depth > limits.max_value_depth) {
      DepthError(error, limits.max_value_depth);
      goto error;
    }
    Value set;
    if (size_t{base.size} + n <= kSmallSetExtend) {
      // A small set: copied, as it costs little and allocates nothing more.
      if (sizeof(Value) * (size_t{base.size} + n) > room()) {
        MemoryError(error, limits.max_decision_bytes);
        goto error;
      }
      Value* elems = scratch->AllocateArray<Value>(size_t{base.size} + n);
      for (uint32_t i = 0; i < base.size; ++i) elems[i] = base.elements[i];
      set = Value::Set(elems, AddUnique(elems, base.size, src, n, work));
    } else {
      if (set_builders == nullptr) set_builders = std::make_unique<SetBuilders>();
      if (!set_builders->Extend(insn.a(), base, src, n, scratch, room(), work, &set)) {
        MemoryError(error, limits.max_decision_bytes);
        goto error;
      }
    }
    if (work->exhausted()) goto work_error;
    set.depth = static_cast<uint16_t>(depth);
    regs[insn.a()] = set;
    NEXT();
  }
  CASE(RecordExtend) {
    const RecordShapeView& shape = program.shape(insn.b());
    uint32_t n = static_cast<uint32_t>(shape.keys.size());
    const Value* src = &regs[insn.c()];
    const uint32_t a = insn.a();
    const bool pending = policy.pending_record(pc - 1);
    uint32_t depth = 1 + MaxDepth(src, n);
    if (record_builders != nullptr && record_builders->pending(a)) {
      // R[a] is a record built in place, which only this instruction reads.
      if (depth > limits.max_value_depth) {
        DepthError(error, limits.max_value_depth);
        goto error;
      }
      if (!record_builders->Add(a, shape, src, static_cast<uint16_t>(depth), scratch, room())) {
        MemoryError(error, limits.max_decision_bytes);
        goto error;
      }
      regs[a] = pending ? Value::Record(nullptr, 0) : record_builders->Finish(a);
      NEXT();
    }
    const Value base = regs[a];
    if (base.type != Type::kRecord) {
      TypeError(error, "record", base);
      goto error;
    }
    depth = std::max<uint32_t>(depth, base.depth);
    if (depth > limits.max_value_depth) {
      DepthError(error, limits.max_value_depth);
      goto error;
    }
    if (pending) {
      if (record_builders == nullptr) record_builders = std::make_unique<RecordBuilders>();
      if (!record_builders->Start(a, base, scratch, room()) ||
          !record_builders->Add(a, shape, src, static_cast<uint16_t>(depth), scratch, room())) {
        MemoryError(error, limits.max_decision_bytes);
        goto error;
      }
      regs[a] = Value::Record(nullptr, 0);
      NEXT();
    }
    // A merge of two key-sorted field lists; the new value wins a key both have.
    if (sizeof(RecordField) * (size_t{base.size} + n) > room()) {
      MemoryError(error, limits.max_decision_bytes);
      goto error;
    }
    RecordField* fields = scratch->AllocateArray<RecordField>(size_t{base.size} + n);
    uint32_t i = 0, j = 0, out = 0;
    while (i < base.size || j < n) {
      if (j == n || (i < base.size && base.fields[i].key < shape.keys[j])) {
        fields[out++] = base.fields[i++];
        continue;
      }
      if (i < base.size && base.fields[i].key == shape.keys[j]) ++i;
      fields[out].key = shape.keys[j];
      fields[out++].value = src[shape.order[j]];
      ++j;
    }
    Value record = Value::Record(fields, out);
    record.depth = static_cast<uint16_t>(depth);
    regs[a] = record;
    NEXT();
  }
  // The typed opcodes: the validator proved the operands' types.
  OP_NOT(TNot, false)
  OP_JUMP_IF(TJumpIfFalse, false, false)
  OP_JUMP_IF(TJumpIfTrue, false, true)
  OP_NEG(TNeg, false)
  OP_ARITH(TAdd, false, __builtin_add_overflow, "add")
  OP_ARITH(TSub, false, __builtin_sub_overflow, "subtract")
  OP_ARITH(TMul, false, __builtin_mul_overflow, "multiply")
  OP_COMPARE(TLt, false, <)
  OP_COMPARE(TLe, false, <=)
  OP_COMPARE(TGt, false, >)
  OP_COMPARE(TGe, false, >=)

#ifndef CHARTER_COMPUTED_GOTO
    }
  }
#endif
#undef OP_COMPARE
#undef OP_ARITH
#undef OP_NEG
#undef OP_JUMP_IF
#undef OP_NOT
#undef BOOL_OPERAND
#undef CASE
#undef NEXT

work_error:
  WorkError(error, limits.max_decision_work);
error:
  // Every instruction is fetched with pc++ before it runs (and a jump sets
  // pc only once it cannot fail), so the one that failed is at pc - 1.
  failure->pc = pc - 1;
  return Outcome::kError;
}

Span SpanAt(const PolicyCode& policy, uint32_t pc) {
  const auto* spans = policy.source != nullptr ? policy.source->pc_spans() : nullptr;
  if (spans == nullptr) return {};
  // The compiler writes the table in pc order, one entry at most an
  // instruction (a hostile bundle's order gives a wrong span, never a read
  // out of bounds).
  uint32_t lo = 0, hi = spans->size();
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (spans->Get(mid)->pc() < pc) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  if (lo == spans->size() || spans->Get(lo)->pc() != pc) return {};
  const fb::PcSpan* s = spans->Get(lo);
  return Span{s->begin(), s->end()};
}

}  // namespace charter::internal
