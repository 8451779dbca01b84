// The register VM. One execute loop; dispatch by computed goto where the
// compiler has it (define CHARTER_VM_SWITCH to force the switch); hot state
// in locals; one exit path for errors that records the pc.
#include "vm/vm.h"

#include "common/strings.h"
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

uint32_t Resolve(const EntityRef* e, const EntityStore* store) {
  return e->uid != kNoUid ? e->uid : store->Find(e->type, e->id);
}

std::string TypeError(std::string_view expected, const Value& got) {
  return Cat("type error: expected ", expected, ", got ", TypeName(got.type));
}

// `a in b` for two entities: reflexive, then the precomputed ancestors.
bool EntityIn(const EntityRef* a, const EntityRef* b, const EntityStore* store) {
  if (Equal(Value::Entity(a), Value::Entity(b))) return true;
  uint32_t ua = Resolve(a, store);
  if (ua == kNoUid) return false;
  uint32_t ub = Resolve(b, store);
  if (ub == kNoUid) return false;
  return store->HasAncestor(ua, ub);
}

}  // namespace

EvalResult Evaluate(const Program& program, const PolicyCode& policy, const Environment& env) {
  Value regs[kMaxRegisters];
  for (uint32_t i = 0; i < policy.num_registers; ++i) regs[i] = Value::Bool(false);
  const uint64_t* const code = policy.code;
  const EntityStore* const store = env.store;
  uint32_t pc = 0;
  Insn insn{0};
  EvalResult result;

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
      found = FindField(base, name);
      if (found == nullptr) {
        result.error = Cat("record does not have the attribute `", name, "`");
        goto error;
      }
    } else if (base.type == Type::kEntity) {
      uint32_t uid = Resolve(base.entity, store);
      const EntityData* data = uid == kNoUid ? nullptr : store->data(uid);
      if (data == nullptr) {
        result.error = Cat("entity `", EntityToCedar(base.entity->type, base.entity->id),
                                    "` does not exist");
        goto error;
      }
      found = FindField(data->attrs, name);
      if (found == nullptr) {
        result.error = Cat("`", EntityToCedar(base.entity->type, base.entity->id),
                                    "` does not have the attribute `", name, "`");
        goto error;
      }
    } else {
      result.error = TypeError("record or entity", base);
      goto error;
    }
    regs[insn.a()] = *found;
    NEXT();
  }
  CASE(Has) {
    const Value& base = regs[insn.b()];
    std::string_view name = program.string_view(insn.c());
    bool has = false;
    if (base.type == Type::kRecord) {
      has = FindField(base, name) != nullptr;
    } else if (base.type == Type::kEntity) {
      uint32_t uid = Resolve(base.entity, store);
      const EntityData* data = uid == kNoUid ? nullptr : store->data(uid);
      has = data != nullptr && FindField(data->attrs, name) != nullptr;
    } else {
      result.error = TypeError("record or entity", base);
      goto error;
    }
    regs[insn.a()] = Value::Bool(has);
    NEXT();
  }
  CASE(Eq) {
    regs[insn.a()] = Value::Bool(Equal(regs[insn.b()], regs[insn.c()]));
    NEXT();
  }
  CASE(Not) {
    const Value& v = regs[insn.b()];
    if (v.type != Type::kBool) {
      result.error = TypeError("bool", v);
      goto error;
    }
    regs[insn.a()] = Value::Bool(!v.b);
    NEXT();
  }
  CASE(In) {
    const Value& lhs = regs[insn.b()];
    const Value& rhs = regs[insn.c()];
    if (lhs.type != Type::kEntity) {
      result.error = TypeError("entity", lhs);
      goto error;
    }
    bool in = false;
    if (rhs.type == Type::kEntity) {
      in = EntityIn(lhs.entity, rhs.entity, store);
    } else if (rhs.type == Type::kSet) {
      // Every element is type-checked before the answer, as in Cedar.
      for (uint32_t i = 0; i < rhs.size; ++i) {
        if (rhs.elements[i].type != Type::kEntity) {
          result.error = TypeError("set of entities", rhs.elements[i]);
          goto error;
        }
      }
      for (uint32_t i = 0; i < rhs.size && !in; ++i) {
        in = EntityIn(lhs.entity, rhs.elements[i].entity, store);
      }
    } else {
      result.error = TypeError("entity or set of entities", rhs);
      goto error;
    }
    regs[insn.a()] = Value::Bool(in);
    NEXT();
  }
  CASE(CheckBool) {
    if (regs[insn.a()].type != Type::kBool) {
      result.error = TypeError("bool", regs[insn.a()]);
      goto error;
    }
    NEXT();
  }
  CASE(JumpIfFalse) {
    const Value& v = regs[insn.a()];
    if (v.type != Type::kBool) {
      result.error = TypeError("bool", v);
      goto error;
    }
    if (!v.b) pc = insn.c();
    NEXT();
  }
  CASE(JumpIfTrue) {
    const Value& v = regs[insn.a()];
    if (v.type != Type::kBool) {
      result.error = TypeError("bool", v);
      goto error;
    }
    if (v.b) pc = insn.c();
    NEXT();
  }
  CASE(Jump) {
    pc = insn.c();
    NEXT();
  }
  CASE(Ret) {
    const Value& v = regs[insn.a()];
    if (v.type != Type::kBool) {
      result.error = TypeError("bool", v);
      goto error;
    }
    result.outcome = v.b ? Outcome::kTrue : Outcome::kFalse;
    return result;
  }
  CASE(RetBool) {
    result.outcome = insn.b() != 0 ? Outcome::kTrue : Outcome::kFalse;
    return result;
  }

#ifndef CHARTER_COMPUTED_GOTO
    }
  }
#endif
#undef CASE
#undef NEXT

error:
  result.outcome = Outcome::kError;
  result.error_pc = pc - 1;
  return result;
}

}  // namespace charter::internal
