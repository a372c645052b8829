#include "sim/machine/program.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "sim/base/status_macros.h"
#include "sim/machine/memory.h"
#include "sim/machine/semantics.h"
#include "sim/ptx/codegen.h"
#include "sim/ptx/printer.h"

namespace warpcheck::sim::machine {

using ptx::Operand;
using ptx::OperandKind;
using ptx::Space;
using ptx::Type;

namespace {

uint64_t AlignUp(uint64_t v, uint64_t a) { return a <= 1 ? v : (v + a - 1) / a * a; }

uint32_t ElemBytes(Type t) { return std::max(1, ptx::TypeBits(t) / 8); }

uint64_t WidthMask(int bits) {
  return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
}


}  // namespace

uint64_t ImmValue(const Operand& o, Type t) {
  int bits = ptx::TypeBits(t);
  switch (o.imm_kind) {
    case ptx::ImmKind::kInt:
      if (t == Type::kF32) {
        float f = static_cast<float>(static_cast<int64_t>(o.bits));
        uint32_t b;
        std::memcpy(&b, &f, 4);
        return b;
      }
      if (t == Type::kF64) {
        double d = static_cast<double>(static_cast<int64_t>(o.bits));
        uint64_t b;
        std::memcpy(&b, &d, 8);
        return b;
      }
      return bits >= 64 ? o.bits : o.bits & WidthMask(bits);
    case ptx::ImmKind::kF32:
      if (t == Type::kF64) {
        float f;
        uint32_t b32 = static_cast<uint32_t>(o.bits);
        std::memcpy(&f, &b32, 4);
        double d = f;
        uint64_t b;
        std::memcpy(&b, &d, 8);
        return b;
      }
      return o.bits;
    case ptx::ImmKind::kF64:
      if (t == Type::kF32) {
        double d;
        std::memcpy(&d, &o.bits, 8);
        float f = static_cast<float>(d);
        uint32_t b;
        std::memcpy(&b, &f, 4);
        return b;
      }
      return o.bits;
  }
  return o.bits;
}

DecodeCtx::DecodeCtx(const ptx::Module& module, const ptx::Kernel& kernel,
                     Program* program)
    : module_(module), kernel_(kernel), program_(program) {}

absl::Status DecodeCtx::Error(const ptx::SourceLoc& loc, absl::string_view what) const {
  return absl::InvalidArgumentError(
      absl::StrCat(module_.file.empty() ? "<ptx>" : module_.file, ":", loc.line, ":",
                   loc.column, ": ", what));
}

absl::Status DecodeCtx::Init() {
  Program& p = *program_;
  p.kernel = kernel_.name;
  p.reqntid = kernel_.reqntid;
  p.maxntid = kernel_.maxntid;
  // Predicates: 0 = constant false, 1 = constant true, 2 = sink, then registers.
  pred_false_ = 0;
  pred_true_ = 1;
  sink_pred_ = 2;
  uint32_t npreds = 3;
  uint32_t nslots = 0;
  reg_index_.reserve(kernel_.registers.size());
  reg_bits_.reserve(kernel_.registers.size());
  for (const ptx::Register& r : kernel_.registers) {
    reg_bits_.push_back(static_cast<uint8_t>(ptx::TypeBits(r.type)));
    if (r.type == Type::kPred) {
      reg_index_.push_back(npreds++);
    } else {
      reg_index_.push_back(nslots++);
    }
  }
  if (npreds > kNoGuard) return Error(kernel_.loc, "too many predicate registers");
  sink_slot_ = nslots++;
  p.num_slots = nslots;
  p.num_register_slots = nslots;
  p.num_preds = npreds;
  p.slot_init.assign(nslots, 0);

  // Parameters.
  uint32_t off = 0;
  for (const ptx::Param& prm : kernel_.params) {
    uint32_t elem = ElemBytes(prm.type);
    uint32_t size = prm.count > 0 ? elem * static_cast<uint32_t>(prm.count) : elem;
    uint32_t align =
        std::max<uint32_t>(prm.align > 0 && prm.count > 0 ? prm.align : elem, 1);
    off = static_cast<uint32_t>(AlignUp(off, align));
    p.params.push_back(ParamSlot{prm.name, prm.type, off, size, prm.is_ptr});
    symbols_[prm.name] = Symbol{Space::kParam, off};
    off += size;
  }
  p.param_bytes = off;

  // Shared (static module variables, then the kernel's own), dynamic, local; globals.
  uint64_t shared = 0, local = 0;
  uint32_t dyn_align = 0;
  std::vector<const ptx::Variable*> dynamic;
  auto place = [&](const ptx::Variable& v) -> absl::Status {
    uint64_t elem = ElemBytes(v.type);
    uint64_t align = v.align > 0 ? v.align : elem;
    uint64_t size = elem * static_cast<uint64_t>(v.count < 0 ? 1 : v.count);
    switch (v.space) {
      case Space::kShared:
        if (v.is_extern) {
          dyn_align = std::max<uint32_t>(dyn_align, static_cast<uint32_t>(align));
          dynamic.push_back(&v);
          return absl::OkStatus();
        }
        shared = AlignUp(shared, align);
        symbols_[v.name] = Symbol{Space::kShared, kSharedBase + shared};
        p.shared_symbols.emplace_back(v.name, kSharedBase + shared);
        shared += size;
        return absl::OkStatus();
      case Space::kLocal:
        local = AlignUp(local, align);
        symbols_[v.name] = Symbol{Space::kLocal, local};
        local += size;
        return absl::OkStatus();
      case Space::kGlobal:
      case Space::kConst: {
        GlobalVar g;
        g.name = v.name;
        g.align = static_cast<uint32_t>(align);
        g.init.assign(size, 0);
        for (size_t i = 0; i < v.init.size(); ++i) {
          uint64_t bits = v.init[i];
          std::memcpy(g.init.data() + i * elem, &bits, std::min<uint64_t>(elem, 8));
        }
        symbols_[v.name] = Symbol{v.space, 0, static_cast<int>(p.globals.size())};
        p.globals.push_back(std::move(g));
        return absl::OkStatus();
      }
      default:
        return Error(v.loc, "unsupported variable space");
    }
  };
  for (const ptx::Variable& v : module_.variables) RETURN_IF_ERROR(place(v));
  for (const ptx::Statement& s : kernel_.body) {
    if (s.kind == ptx::Statement::Kind::kVariable) RETURN_IF_ERROR(place(s.var));
  }
  if (shared > (1u << 30)) return Error(kernel_.loc, "static shared memory too large");
  p.static_shared_bytes = static_cast<uint32_t>(shared);
  p.has_dynamic_shared = !dynamic.empty();
  p.dynamic_shared_align = std::max<uint32_t>(dyn_align, 1);
  p.dynamic_shared_offset =
      static_cast<uint32_t>(AlignUp(shared, p.dynamic_shared_align));
  for (const ptx::Variable* v : dynamic) {
    symbols_[v->name] = Symbol{Space::kShared, kSharedBase + p.dynamic_shared_offset};
    p.shared_symbols.emplace_back(v->name, kSharedBase + p.dynamic_shared_offset);
  }
  p.local_bytes = static_cast<uint32_t>(AlignUp(local, 8));
  return absl::OkStatus();
}

uint32_t DecodeCtx::Const(uint64_t value) {
  // Fibonacci hashing: the top bits of value * 2^64 / phi.
  ConstCacheEntry& cached =
      const_cache_[(value * 0x9E3779B97F4A7C15ull) >> (64 - kConstCacheBits)];
  if (cached.used && cached.value == value) return cached.slot;
  auto [it, inserted] = consts_.try_emplace(value, program_->num_slots);
  if (inserted) {
    ++program_->num_slots;
    program_->slot_init.push_back(value);
  }
  cached = ConstCacheEntry{value, it->second, true};
  return it->second;
}

absl::StatusOr<uint32_t> DecodeCtx::OtherSrc(const Operand& o) {
  switch (o.kind) {
    case OperandKind::kReg:  // a predicate (Src took the value registers)
      return Error(o.loc, absl::StrCat("predicate '", o.name, "' used as a value"));
    case OperandKind::kSymbol: {
      auto it = symbols_.find(o.name);
      if (it == symbols_.end())
        return Error(o.loc, absl::StrCat("'", o.name, "' is not a variable"));
      const Symbol& s = it->second;
      if (s.global >= 0) {
        auto g = global_slots_.find(o.name);
        if (g != global_slots_.end()) return g->second;
        uint32_t slot = program_->num_slots++;
        program_->slot_init.push_back(0);
        program_->address_slots.push_back(
            AddressSlot{slot, static_cast<uint32_t>(s.global), 0});
        global_slots_.emplace(o.name, slot);
        return slot;
      }
      return Const(s.address);
    }
    case OperandKind::kSpecial: {
      if (o.special == ptx::SpecialReg::kClock ||
          o.special == ptx::SpecialReg::kClock64 ||
          o.special == ptx::SpecialReg::kGlobaltimer) {
        return Error(o.loc,
                     absl::StrCat("only mov can read ", ptx::SpecialRegName(o.special)));
      }
      auto it = specials_.find(int(o.special));
      if (it != specials_.end()) return it->second;
      uint32_t slot = program_->num_slots++;
      program_->slot_init.push_back(0);
      program_->specials.push_back(SpecialSlot{slot, o.special});
      specials_.emplace(int(o.special), slot);
      return slot;
    }
    case OperandKind::kSink:
      return Error(o.loc, "'_' cannot be read");
    default:
      return Error(o.loc, "expected a register or an immediate");
  }
}

absl::StatusOr<uint32_t> DecodeCtx::OtherDst(const Operand& o, int bits,
                                              uint64_t* dmask) {
  if (o.kind == OperandKind::kSink) {
    if (dmask != nullptr) *dmask = ~uint64_t{0};
    return sink_slot_;
  }
  if (o.kind != OperandKind::kReg) return Error(o.loc, "expected a destination register");
  if (IsPredReg(o))
    return Error(o.loc, absl::StrCat("predicate '", o.name, "' used as a value"));
  int rb = RegBits(o);
  if (rb < bits) {
    return Error(o.loc, absl::StrCat("register '", o.name, "' has ", rb,
                                     " bits; the instruction writes ", bits));
  }
  if (dmask != nullptr) *dmask = WidthMask(rb);
  writes_.push_back(reg_index_[o.reg]);
  return reg_index_[o.reg];
}

absl::Status DecodeCtx::PredSrc(const Operand& o, uint16_t* index, bool* negated) {
  *negated = false;
  if (o.kind == OperandKind::kImm && o.imm_kind == ptx::ImmKind::kInt) {
    *index = o.bits != 0 ? pred_true_ : pred_false_;
    return absl::OkStatus();
  }
  if (!IsPredReg(o)) return Error(o.loc, "expected a predicate");
  *index = static_cast<uint16_t>(reg_index_[o.reg]);
  *negated = o.negated;
  return absl::OkStatus();
}

absl::StatusOr<uint16_t> DecodeCtx::PredDst(const Operand& o) {
  if (o.kind == OperandKind::kSink) return sink_pred_;
  if (!IsPredReg(o)) return Error(o.loc, "expected a predicate register");
  return static_cast<uint16_t>(reg_index_[o.reg]);
}

absl::Status DecodeCtx::Address(const Operand& o, Space space, uint32_t* base,
                                int64_t* offset) {
  if (o.kind != OperandKind::kAddress) return Error(o.loc, "expected an address");
  *offset = o.offset;
  if (o.name.empty()) {
    *base = Const(0);
    return absl::OkStatus();
  }
  if (o.base_is_reg) {
    // What Src says about the register (without building an Operand for it).
    if (kernel_.registers[o.reg].type == Type::kPred) {
      return Error(o.loc, absl::StrCat("predicate '", o.name, "' used as a value"));
    }
    *base = reg_index_[o.reg];
    reads_.push_back(*base);
    return absl::OkStatus();
  }
  auto it = symbols_.find(o.name);
  if (it == symbols_.end())
    return Error(o.loc, absl::StrCat("'", o.name, "' is not a variable"));
  const Symbol& s = it->second;
  bool generic = space == Space::kNone || space == Space::kGeneric;
  if (s.global >= 0) {
    if (!generic && space != Space::kGlobal && space != Space::kConst) {
      return Error(o.loc, absl::StrCat("'", o.name, "' is not in the ",
                                       ptx::SpaceName(space), " space"));
    }
    Operand sym;
    sym.kind = OperandKind::kSymbol;
    sym.name = o.name;
    sym.loc = o.loc;
    ASSIGN_OR_RETURN(*base, Src(sym, Type::kU64));
    return absl::OkStatus();
  }
  if (generic) {
    if (s.space == Space::kShared) {
      *base = Const(kSharedWindow + s.address);
      return absl::OkStatus();
    }
    if (s.space == Space::kLocal) {
      *base = Const(kLocalWindow + s.address);
      return absl::OkStatus();
    }
    return Error(o.loc, absl::StrCat("parameter '", o.name, "' needs ld.param"));
  }
  Space want = space == Space::kSharedCluster ? Space::kShared : space;
  if (s.space != want) {
    return Error(o.loc, absl::StrCat("'", o.name, "' is not in the ",
                                     ptx::SpaceName(space), " space"));
  }
  *base = Const(s.address);
  return absl::OkStatus();
}

absl::StatusOr<uint32_t> DecodeCtx::LabelPc(const Operand& o) const {
  auto it = labels_.find(o.name);
  if (it == labels_.end())
    return Error(o.loc, absl::StrCat("unknown label '", o.name, "'"));
  return it->second;
}

std::string InsnTexts::operator[](size_t pc) const {
  if (pc < streamed_) return stream_->InstructionText(pc);
  pc -= streamed_;
  if (insns_[pc] != nullptr) return ptx::PrintInstruction(*insns_[pc]);
  size_t k = 0;
  for (size_t i = 0; i < pc; ++i) k += insns_[i] == nullptr ? 1 : 0;
  return fixed_[k];
}

namespace {

// Which register slots a full warp must zero when it starts (Program::zero_slots).
//
// Every lane of a full warp starts at pc 0 and, until it reaches a branch or an exit,
// runs the instructions in pc order, each once: a guarded instruction or a warp-level or
// barrier wait changes when a lane runs an instruction, never the order. On that
// straight-line prefix a slot whose first access is a write of an unguarded instruction
// (a Dst of its decode) holds, in every lane, a value that lane wrote before anything
// reads it: such an instruction writes the slot for every lane it runs for, and the
// instructions that read other lanes' registers (shfl, ldmatrix, stmatrix) run only
// when the lanes they read have arrived, so past the write. Its initial contents are
// never seen, and need not be zeroed. Every other slot is zeroed: those read before
// they are written (a read is every Src and address base of the decode, whether or not
// the exec function reads it), written only under a guard, or first touched after the
// prefix. A launch that faults stops; nothing reads registers after that.
class ZeroSlots {
 public:
  explicit ZeroSlots(uint32_t register_slots) : state_(register_slots, kUntouched) {}
  void Add(const Insn& insn, const DecodeCtx& ctx) {
    if (!open_) return;
    if (insn.kind == InsnKind::kBranch || insn.kind == InsnKind::kExit) {
      open_ = false;
      return;
    }
    for (uint32_t s : ctx.reads()) {
      if (s < state_.size() && state_[s] == kUntouched) state_[s] = kReadFirst;
    }
    if (insn.guard != kNoGuard) return;
    for (uint32_t s : ctx.writes()) {
      if (s < state_.size() && state_[s] == kUntouched) state_[s] = kWrittenFirst;
    }
  }
  std::vector<uint32_t> Slots() const {
    std::vector<uint32_t> out;
    for (uint32_t s = 0; s < state_.size(); ++s) {
      if (state_[s] != kWrittenFirst) out.push_back(s);
    }
    return out;
  }

 private:
  enum : uint8_t { kUntouched, kReadFirst, kWrittenFirst };
  std::vector<uint8_t> state_;
  bool open_ = true;
};

}  // namespace

namespace {

// Decodes `in` as the next instruction of `p` (Decode's and DecodeStream's step).
absl::Status DecodeNext(DecodeCtx& ctx, const ptx::Instruction& in, Program& p,
                        ZeroSlots& zero) {
  // Decoded in place (an error discards the whole Program).
  Insn& insn = p.code.emplace_back();
  ctx.ClearAccesses();
  DecodeFn fn = SemanticsOf(in.op);
  RETURN_IF_ERROR(fn(ctx, in, &insn));
  if (in.guard.has_value()) {
    uint16_t g = 0;
    bool neg = false;
    RETURN_IF_ERROR(ctx.PredSrc(*in.guard, &g, &neg));
    insn.guard = g;
    insn.guard_neg = neg;
  }
  insn.op_class = static_cast<uint8_t>(ptx::ResolveClass(in.op, in.mods));
  insn.line = static_cast<uint32_t>(in.loc.line);
  insn.column = static_cast<uint32_t>(in.loc.column);
  zero.Add(insn, ctx);
  return absl::OkStatus();
}

// Decode's and DecodeStream's end: the register slots to zero, and the exit at the end.
void Finish(const ZeroSlots& zero, int kernel_line, Program& p) {
  p.zero_slots = zero.Slots();
  // Falling off the end of the kernel exits.
  Insn end;
  end.kind = InsnKind::kExit;
  end.fn = ExecNop;
  end.op_class = static_cast<uint8_t>(ptx::OpClass::kBranch);
  end.line = p.code.empty() ? static_cast<uint32_t>(kernel_line) : p.code.back().line;
  p.code.push_back(end);
  p.text.AddFixed("exit (end of kernel)");
}

}  // namespace

absl::StatusOr<Program> Decode(const ptx::Module& module, const ptx::Kernel& kernel) {
  Program p;
  DecodeCtx ctx(module, kernel, &p);
  RETURN_IF_ERROR(ctx.Init());
  absl::flat_hash_map<std::string, uint32_t> labels;
  uint32_t pc = 0;
  for (const ptx::Statement& s : kernel.body) {
    if (s.kind == ptx::Statement::Kind::kLabel) labels[s.label] = pc;
    if (s.kind == ptx::Statement::Kind::kInstruction) ++pc;
  }
  ctx.SetLabelPcs(std::move(labels));
  p.code.reserve(pc + 1);  // the instructions and the exit at the end
  p.text.Reserve(pc + 1);
  ZeroSlots zero(p.num_register_slots);
  for (const ptx::Statement& s : kernel.body) {
    if (s.kind != ptx::Statement::Kind::kInstruction) continue;
    RETURN_IF_ERROR(DecodeNext(ctx, s.insn, p, zero));
    p.text.Add(&s.insn);
  }
  Finish(zero, kernel.loc.line, p);
  return p;
}

absl::StatusOr<Program> DecodeStream(std::shared_ptr<const ptx::HarnessStream> stream) {
  const ptx::Module& module = stream->frame();
  const ptx::Kernel& kernel = module.kernels[0];
  Program p;
  DecodeCtx ctx(module, kernel, &p);
  // The frame's body is the opening declarations: Init places no variable of it, and
  // it has no label or instruction.
  RETURN_IF_ERROR(ctx.Init());
  absl::flat_hash_map<std::string, uint32_t> labels;
  ptx::Instruction in;
  uint32_t pc = 0;
  for (size_t i = 0; i < stream->size(); ++i) {
    if (const char* label = stream->Label(i)) {
      labels[label] = pc;
    } else {
      ++pc;
    }
  }
  ctx.SetLabelPcs(std::move(labels));
  p.code.reserve(pc + 1);
  p.text.SetStream(stream, pc);
  p.text.Reserve(1);
  ZeroSlots zero(p.num_register_slots);
  for (size_t i = 0; i < stream->size(); ++i) {
    if (stream->Label(i) != nullptr) continue;
    stream->Statement(i, &in);
    RETURN_IF_ERROR(DecodeNext(ctx, in, p, zero));
  }
  Finish(zero, kernel.loc.line, p);
  return p;
}

}  // namespace warpcheck::sim::machine
