// The disassembler, driven by the operand kinds of opcodes.def.
#include "disassemble/disasm.h"

#include <algorithm>
#include <string_view>
#include <utility>
#include <vector>

#include "builtins/builtins.h"
#include "bytecode/opcodes.h"
#include "bytecode/operands.h"
#include "common/strings.h"
#include "common/utf8.h"
#include "value/value.h"

namespace charter::internal {
namespace {

// The operands of one instruction, each as its kind reads, joined by ", ".
std::string Operands(const fb::Bundle* b, Insn insn) {
  const OpInfo& info = kOpInfo[insn.raw_op()];
  auto quote = [](std::string_view s) {
    std::string q;
    AppendQuotedCedar(&q, s);
    return q;
  };
  std::vector<std::string> operands;
  for (auto [kind, v] : {std::pair{info.a, insn.a()}, std::pair{info.b, insn.b()},
                         std::pair{info.c, insn.c()}}) {
    switch (kind) {
      case Operand::kNone: break;
      case Operand::kReg: operands.push_back(Cat("r", v)); break;
      case Operand::kVar: {
        constexpr const char* kVars[] = {"principal", "action", "resource", "context"};
        operands.push_back(kVars[v]);
        break;
      }
      case Operand::kFlag: operands.push_back(v != 0 ? "true" : "false"); break;
      case Operand::kLong: operands.push_back(Cat(b->longs()->Get(v))); break;
      case Operand::kStr: operands.push_back(quote(b->strings()->Get(v)->str())); break;
      case Operand::kEntity: {
        const fb::EntityConst* e = b->entities()->Get(v);
        operands.push_back(Cat(e->type()->str(), "::", quote(e->id()->str())));
        break;
      }
      case Operand::kTarget: operands.push_back(Cat("-> ", v)); break;
      case Operand::kPattern: {  // as written after `like`
        std::string text = "\"";
        for (const fb::PatternElem* e : *b->patterns()->Get(v)->elems()) {
          if (e->wildcard()) {
            text += "*";
            continue;
          }
          for (char c : e->literal()->string_view()) {
            if (c == '"' || c == '\\' || c == '*') text.push_back('\\');
            text.push_back(c);
          }
        }
        operands.push_back(text + "\"");
        break;
      }
      case Operand::kShape: {  // the keys in the literal's order
        const fb::RecordShape* shape = b->record_shapes()->Get(v);
        std::vector<std::string> keys(shape->keys()->size());
        for (uint32_t i = 0; i < keys.size(); ++i) {
          keys[shape->order()->Get(i)] = b->strings()->Get(shape->keys()->Get(i))->str();
        }
        std::string text = "{";
        for (size_t i = 0; i < keys.size(); ++i) text += (i > 0 ? ", " : "") + keys[i];
        operands.push_back(text + "}");
        break;
      }
      case Operand::kConstSet: {  // as a set literal; a long one shortened
        constexpr uint32_t kShown = 16;
        const auto* elems = b->const_sets()->Get(v)->elems();
        std::string text = "[";
        for (uint32_t i = 0; i < elems->size() && i < kShown; ++i) {
          if (i > 0) text += ", ";
          const fb::ConstScalar* e = elems->Get(i);
          switch (e->kind()) {
            case fb::ScalarKind::Bool: text += e->index() != 0 ? "true" : "false"; break;
            case fb::ScalarKind::Long: text += Cat(b->longs()->Get(e->index())); break;
            case fb::ScalarKind::String: text += quote(b->strings()->Get(e->index())->str()); break;
            default: {
              const fb::EntityConst* ent = b->entities()->Get(e->index());
              text += Cat(ent->type()->str(), "::", quote(ent->id()->str()));
              break;
            }
          }
        }
        if (elems->size() > kShown) text += Cat(", … ", elems->size() - kShown, " more");
        operands.push_back(text + "]");
        break;
      }
      case Operand::kBuiltin:
        operands.push_back(std::string(kBuiltins[v].name));
        break;
      case Operand::kCount: operands.push_back(Cat(v)); break;
      case Operand::kRegs: {  // r3..r5, r3 alone, or () for none
        uint32_t n = RegisterRangeLength(b, insn);
        operands.push_back(n == 0   ? "()"
                           : n == 1 ? Cat("r", v)
                                    : Cat("r", v, "..r", v + n - 1));
        break;
      }
    }
  }
  std::string out;
  for (size_t i = 0; i < operands.size(); ++i) out += (i > 0 ? ", " : "") + operands[i];
  return out;
}

// The source span of each pc, the first the pc-to-span table gives it.
void AddSpans(const fb::Policy* p, DisassembledPolicy* out) {
  if (p->pc_spans() == nullptr) return;
  for (const fb::PcSpan* span : *p->pc_spans()) {
    DisassembledInstruction& insn = out->code[span->pc()];  // INVARIANT: verified, pc < code size
    if (insn.has_span) continue;
    insn.has_span = true;
    insn.span = Span{span->begin(), span->end()};
  }
}

// Where the synopsis column starts, unless the operands reach past it.
constexpr size_t kSynopsisColumn = 44;

}  // namespace

Disassembly DisassembleBundle(const fb::Bundle* b) {
  Disassembly out;
  if (b->policies() == nullptr) return out;
  for (const fb::Policy* p : *b->policies()) {
    DisassembledPolicy& policy = out.policies.emplace_back();
    policy.id = p->id()->str();
    policy.permit = p->effect() == fb::Effect::Permit;
    policy.registers = p->num_registers();
    policy.code.reserve(p->code()->size());
    for (uint32_t pc = 0; pc < p->code()->size(); ++pc) {
      Insn insn{p->code()->Get(pc)};
      const OpInfo& info = kOpInfo[insn.raw_op()];
      DisassembledInstruction& i = policy.code.emplace_back();
      i.pc = pc;
      i.opcode = std::string(info.name);
      i.operands = Operands(b, insn);
      i.synopsis = std::string(info.synopsis);
    }
    AddSpans(p, &policy);
  }
  return out;
}

std::string PolicyHeader(const DisassembledPolicy& p) {
  // (The id's control characters escaped: it comes from the input.)
  return Cat("policy ", EscapeControls(p.id), " (", p.permit ? "permit" : "forbid", ", ", p.registers, " registers)");
}

std::string InstructionLine(const DisassembledInstruction& i, bool synopsis) {
  std::string line = Cat("  ", i.pc, i.pc < 10 ? "  " : " ", i.opcode);
  line.resize(std::max<size_t>(line.size() + 1, 18), ' ');
  line += i.operands;
  while (!line.empty() && line.back() == ' ') line.pop_back();
  if (synopsis) {
    line.resize(std::max<size_t>(line.size() + 2, kSynopsisColumn), ' ');
    CatAppend(&line, "; ", i.synopsis);
  }
  return line;
}

std::string ListingText(const Disassembly& d, bool synopsis) {
  std::string out;
  for (const DisassembledPolicy& p : d.policies) {
    CatAppend(&out, PolicyHeader(p), "\n");
    for (const DisassembledInstruction& i : p.code) CatAppend(&out, InstructionLine(i, synopsis), "\n");
  }
  return out;
}

std::string Disassemble(const fb::Bundle* b) { return ListingText(DisassembleBundle(b), false); }

}  // namespace charter::internal
