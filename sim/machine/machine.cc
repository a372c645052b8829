#include "sim/machine/machine.h"

#include <algorithm>
#include <array>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "sim/base/check.h"
#include "sim/machine/semantics.h"

namespace warpcheck::sim::machine {

namespace {

int Popcount(uint32_t m) { return Popcount32(m); }

}  // namespace

Machine::Machine(const Program& program, Options options, Dim3 grid, Dim3 block,
                 uint32_t dynamic_shared_bytes, std::vector<uint8_t> params,
                 GlobalMemory* global, const std::vector<uint64_t>& global_var_addrs)
    : program_(program),
      options_(options),
      grid_(grid),
      block_(block),
      dynamic_shared_bytes_(dynamic_shared_bytes),
      params_(std::move(params)),
      global_(global) {
  WARPCHECK_CHECK(block.Count() >= 1 && block.Count() <= 1024);
  if (options_.shared_cost_memo == nullptr) {
    own_cost_memo_ = std::make_unique<SharedCostMemo>();
    cost_memo_ = own_cost_memo_.get();
  } else {
    cost_memo_ = options_.shared_cost_memo;
  }
  shared_bytes_ = program.static_shared_bytes;
  if (program.has_dynamic_shared || dynamic_shared_bytes > 0) {
    shared_bytes_ = program.dynamic_shared_offset + dynamic_shared_bytes;
  }
  warps_per_cta_ = (block.Count() + 31) / 32;
  if (options_.quantum == 0) options_.quantum = 1;
  if (options_.max_resident_ctas == 0) options_.max_resident_ctas = 1;
  // Register file template of the slots above the registers (which start at 0):
  // constants, plus the addresses of module variables.
  const uint32_t first = program.num_register_slots;
  reg_template_.resize(size_t{program.num_slots - first} * 32);
  for (uint32_t s = first; s < program.num_slots; ++s) {
    uint64_t v = program.slot_init[s];
    for (int l = 0; l < 32; ++l) reg_template_[size_t{s - first} * 32 + l] = v;
  }
  for (const AddressSlot& a : program.address_slots) {
    uint64_t v = global_var_addrs[a.global_var] + uint64_t(a.offset);
    for (int l = 0; l < 32; ++l) reg_template_[size_t{a.slot - first} * 32 + l] = v;
  }
}

void Machine::InitCta(Cta& c, uint32_t linear) {
  c.linear = linear;
  c.id[0] = linear % grid_.x;
  c.id[1] = (linear / grid_.x) % grid_.y;
  c.id[2] = linear / (grid_.x * grid_.y);
  c.shared.assign(shared_bytes_, 0);
  if (options_.detect_races) c.shadow.Reset(shared_bytes_, block_.Count());
  c.local.assign(size_t{program_.local_bytes} * block_.Count(), 0);
  c.live_threads = block_.Count();
  c.epoch = 0;
  c.wvc.assign(size_t{warps_per_cta_} * warps_per_cta_, 0);
  c.done = false;
  for (Barrier& b : c.barriers) b = Barrier{};
  c.warps.resize(warps_per_cta_);
  for (uint32_t i = 0; i < warps_per_cta_; ++i) {
    Warp& w = c.warps[i];
    w = Warp{};
    w.index = i;
    w.base_tid = i * 32;
    uint32_t n = std::min<uint32_t>(32, block_.Count() - w.base_tid);
    w.valid = n == 32 ? 0xFFFFFFFFu : (1u << n) - 1;
    InitWarp(c, w);
  }
}

void Machine::InitWarp(Cta& c, Warp& w) {
  (void)c;
  w.preds.assign(program_.num_preds, 0);
  w.preds[1] = 0xFFFFFFFFu;  // constant true (DecodeCtx: 0 false, 1 true, 2 sink)
  w.regs.reset();
  w.regs_ready = false;
}

void Machine::InitRegs(Cta& c, Warp& w) {
  // Registers 0, then the template. A full warp zeroes only the registers that may be
  // read before they are written (Program::zero_slots); the zero fill of every register
  // was a fifth of a small launch's instructions.
  const size_t zero = size_t{program_.num_register_slots} * 32;
  w.regs.reset(new uint64_t[zero + reg_template_.size()]);
  uint64_t* regs = w.regs.get();
  if (w.valid == 0xFFFFFFFFu && !options_.zero_every_register) {
    if (options_.poison_unzeroed_registers) {
      std::fill_n(regs, zero, 0xA5A5A5A5A5A5A5A5ull);
    }
    for (uint32_t s : program_.zero_slots) std::fill_n(regs + size_t{s} * 32, 32, 0);
  } else {
    std::fill_n(regs, zero, 0);
  }
  std::copy(reg_template_.begin(), reg_template_.end(), regs + zero);
  w.regs_ready = true;
  for (const SpecialSlot& s : program_.specials) {
    uint64_t* r = regs + size_t{s.slot} * 32;
    for (int l = 0; l < 32; ++l) {
      uint32_t tid = w.base_tid + l;
      uint32_t tx = tid % block_.x, ty = (tid / block_.x) % block_.y,
               tz = tid / (block_.x * block_.y);
      uint64_t v = 0;
      switch (s.reg) {
        case ptx::SpecialReg::kTidX:
          v = tx;
          break;
        case ptx::SpecialReg::kTidY:
          v = ty;
          break;
        case ptx::SpecialReg::kTidZ:
          v = tz;
          break;
        case ptx::SpecialReg::kNtidX:
          v = block_.x;
          break;
        case ptx::SpecialReg::kNtidY:
          v = block_.y;
          break;
        case ptx::SpecialReg::kNtidZ:
          v = block_.z;
          break;
        case ptx::SpecialReg::kCtaidX:
          v = c.id[0];
          break;
        case ptx::SpecialReg::kCtaidY:
          v = c.id[1];
          break;
        case ptx::SpecialReg::kCtaidZ:
          v = c.id[2];
          break;
        case ptx::SpecialReg::kNctaidX:
          v = grid_.x;
          break;
        case ptx::SpecialReg::kNctaidY:
          v = grid_.y;
          break;
        case ptx::SpecialReg::kNctaidZ:
          v = grid_.z;
          break;
        case ptx::SpecialReg::kLaneid:
          v = l;
          break;
        case ptx::SpecialReg::kWarpid:
          v = w.index;
          break;
        case ptx::SpecialReg::kNwarpid:
          v = warps_per_cta_;
          break;
        case ptx::SpecialReg::kLanemaskEq:
          v = 1u << l;
          break;
        case ptx::SpecialReg::kLanemaskLe:
          v = l == 31 ? 0xFFFFFFFFu : (2u << l) - 1;
          break;
        case ptx::SpecialReg::kLanemaskLt:
          v = (1u << l) - 1;
          break;
        case ptx::SpecialReg::kLanemaskGe:
          v = ~((1u << l) - 1);
          break;
        case ptx::SpecialReg::kLanemaskGt:
          v = l == 31 ? 0 : ~((2u << l) - 1);
          break;
        default:
          v = 0;
          break;
      }
      r[l] = v;
    }
  }
}

// ---- faults -------------------------------------------------------------------------

Fault Machine::MakeFault(const Cta& c, const Warp& w, int lane, uint32_t pc,
                         const char* kind, std::string text) const {
  Fault f;
  f.kind = kind;
  f.cta[0] = c.id[0];
  f.cta[1] = c.id[1];
  f.cta[2] = c.id[2];
  f.thread = w.base_tid + uint32_t(lane);
  f.pc = pc;
  f.line = pc < program_.code.size() ? program_.code[pc].line : 0;
  f.text = std::move(text);
  return f;
}

bool Machine::AddFault(Fault f) {
  bool race = f.kind == "shared_race";
  if (race) {
    if (races_ >= options_.max_reported_races) return true;
    ++races_;
  }
  faults_.push_back(std::move(f));
  if (!race) stopped_ = true;
  return race;
}

void Machine::RecordWatchedStore(const Exec& x, int lane, uint32_t element) {
  Fault f = MakeFault(*x.cta, *x.w, lane, x.pc, "watch", "");
  StoreRecord r;
  std::copy(f.cta, f.cta + 3, r.cta);
  r.thread = f.thread;
  r.pc = x.pc;
  r.line = f.line;
  r.text = program_.text[x.pc];
  r.element = element;
  watch_hit_ = std::move(r);
}

bool Machine::FaultAt(Exec& x, int lane, const char* kind, std::string text) {
  std::string full = absl::StrCat(text, " (", program_.text[x.pc], ")");
  return AddFault(MakeFault(*x.cta, *x.w, lane, x.pc, kind, std::move(full)));
}

std::string Machine::Where(const Warp& w, int lane) const {
  uint32_t bit = 1u << lane;
  if (!(w.valid & bit)) return "does not exist";
  if (w.exited & bit) return "has exited";
  uint32_t pc = w.converged ? w.pc : w.lane_pc[lane];
  std::string at = absl::StrFormat("pc %u, line %u: %s", pc, program_.code[pc].line,
                                   program_.text[pc]);
  if (w.waiting & bit) {
    if (w.wait_kind[lane] == WaitKind::kBarrier) {
      return absl::StrCat("waits at barrier ", w.wait_barrier[lane], " (", at, ")");
    }
    return absl::StrCat("waits at a warp-level instruction (", at, ")");
  }
  return absl::StrCat("runs at ", at);
}

// ---- the warp scheduler -------------------------------------------------------------

void Machine::Diverge(Warp& w) {
  if (!w.converged) return;
  for (int l = 0; l < 32; ++l) w.lane_pc[l] = w.pc;
  w.converged = false;
}

void Machine::TryReconverge(Warp& w) {
  if (w.converged) return;
  uint32_t live = w.Live();
  if (live == 0) return;
  if (w.waiting != 0 && w.waiting != live) return;
  uint32_t pc = w.lane_pc[__builtin_ctz(live)];
  for (uint32_t m = live; m != 0; m &= m - 1) {
    if (w.lane_pc[__builtin_ctz(m)] != pc) return;
  }
  w.converged = true;
  w.pc = pc;
}

void Machine::MoveLanes(Warp& w, uint32_t lanes, uint32_t pc) {
  if (lanes == 0) return;
  if (w.converged) {
    if (lanes == w.Live()) {
      w.pc = pc;
      return;
    }
    Diverge(w);
  }
  for (uint32_t m = lanes; m != 0; m &= m - 1) w.lane_pc[__builtin_ctz(m)] = pc;
  TryReconverge(w);
}

void Machine::ReleaseLanes(Warp& w, uint32_t lanes) {
  if (lanes == 0) return;
  w.waiting &= ~lanes;
  for (uint32_t m = lanes; m != 0; m &= m - 1)
    w.wait_kind[__builtin_ctz(m)] = WaitKind::kNone;
  if (w.converged) {
    ++w.pc;
    return;
  }
  for (uint32_t m = lanes; m != 0; m &= m - 1) ++w.lane_pc[__builtin_ctz(m)];
  TryReconverge(w);
}

void Machine::ExitLanes(Cta& c, Warp& w, uint32_t lanes) {
  if (lanes == 0) return;
  w.exited |= lanes;
  c.live_threads -= Popcount(lanes);
  TryReconverge(w);
  if (w.waiting != 0) CheckWarpWaits(c, w);
  for (uint32_t id = 0; id < 16 && !stopped_; ++id) MaybeCompleteBarrier(c, id);
  if (c.live_threads == 0) c.done = true;
}

uint32_t Machine::MemberMask(const Warp& w, const Insn& in, int lane) const {
  if (in.member_slot == kAllLanes) return 0xFFFFFFFFu;
  return uint32_t(w.regs[size_t{in.member_slot} * 32 + lane]);
}

void Machine::ArriveWarpSync(Cta& c, Warp& w, const Insn& in, uint32_t pc,
                             uint32_t arrive) {
  // Fast path: converged, every live lane arrives, and each lane's member mask names
  // exactly the live lanes it must wait for (all of them here) plus itself.
  uint32_t live = w.Live();
  if (w.converged && arrive == live) {
    bool ok = true;
    if (in.member_slot != kAllLanes) {
      const uint64_t* mm = w.regs.get() + size_t{in.member_slot} * 32;
      for (uint32_t m = arrive; m != 0 && ok; m &= m - 1) {
        uint32_t member = uint32_t(mm[__builtin_ctz(m)]);
        if ((member & live) != live) ok = false;
      }
    }
    if (ok) {
      Exec x{this, &c, &w, w.regs.get(), w.preds.data(), pc};
      if (!in.fn(x, in, arrive)) return;
      w.pc = pc + 1;
      return;
    }
  }
  Diverge(w);
  for (uint32_t m = arrive; m != 0; m &= m - 1) {
    int l = __builtin_ctz(m);
    w.lane_pc[l] = pc;
    w.wait_kind[l] = WaitKind::kWarpSync;
  }
  w.waiting |= arrive;
  CheckWarpWaits(c, w);
  TryReconverge(w);
}

// Runs every warp-level instruction whose member lanes have all arrived; faults when a
// member lane waits somewhere else.
void Machine::CheckWarpWaits(Cta& c, Warp& w) {
  bool again = true;
  while (again && !stopped_) {
    again = false;
    uint32_t live = w.Live();
    uint32_t sync_waiters = 0;
    for (uint32_t m = w.waiting & live; m != 0; m &= m - 1) {
      int l = __builtin_ctz(m);
      if (w.wait_kind[l] == WaitKind::kWarpSync) sync_waiters |= 1u << l;
    }
    if (sync_waiters == 0) return;
    // Lanes ready to run, grouped by pc.
    uint32_t ready = 0;
    for (uint32_t m = sync_waiters; m != 0; m &= m - 1) {
      int l = __builtin_ctz(m);
      uint32_t pc = w.converged ? w.pc : w.lane_pc[l];
      const Insn& in = program_.code[pc];
      uint32_t member = MemberMask(w, in, l);
      if (in.member_slot != kAllLanes && !((member >> l) & 1)) {
        AddFault(
            MakeFault(c, w, l, pc, "non_member_lane",
                      absl::StrFormat("lane %d executes a warp-level instruction whose "
                                      "membermask 0x%08x does not name it (%s)",
                                      l, member, program_.text[pc])));
        return;
      }
      uint32_t need = member & live;
      bool ok = true;
      for (uint32_t k = need; k != 0; k &= k - 1) {
        int o = __builtin_ctz(k);
        uint32_t bit = 1u << o;
        uint32_t opc = w.converged ? w.pc : w.lane_pc[o];
        if ((w.waiting & bit) && (w.wait_kind[o] == WaitKind::kBarrier || opc != pc)) {
          AddFault(MakeFault(
              c, w, l, pc, "divergent_sync",
              absl::StrFormat("lane %d waits at line %u (%s) for lane %d, which %s", l,
                              in.line, program_.text[pc], o, Where(w, o))));
          return;
        }
        if (!(w.waiting & bit)) ok = false;
      }
      if (ok) ready |= 1u << l;
    }
    if (ready == 0) return;
    // Run the group of the first ready lane's pc.
    int first = __builtin_ctz(ready);
    uint32_t pc = w.converged ? w.pc : w.lane_pc[first];
    uint32_t group = 0;
    for (uint32_t m = ready; m != 0; m &= m - 1) {
      int l = __builtin_ctz(m);
      if ((w.converged ? w.pc : w.lane_pc[l]) == pc) group |= 1u << l;
    }
    const Insn& in = program_.code[pc];
    Exec x{this, &c, &w, w.regs.get(), w.preds.data(), pc};
    if (!in.fn(x, in, group)) return;
    ReleaseLanes(w, group);
    again = true;
  }
}

void Machine::ArriveBarrier(Cta& c, Warp& w, const Insn& in, uint32_t pc,
                            uint32_t arrive) {
  int first = __builtin_ctz(arrive);
  uint64_t id64 = w.regs[size_t{in.s[0]} * 32 + first];
  bool arrive_only = in.aux & 1, aligned = in.aux & 2, has_count = in.aux & 4;
  if (id64 > 15) {
    AddFault(MakeFault(
        c, w, first, pc, "invalid_operand",
        absl::StrFormat("barrier id %u is not in 0..15 (%s)", id64, program_.text[pc])));
    return;
  }
  uint32_t id = uint32_t(id64);
  uint32_t count = has_count ? uint32_t(w.regs[size_t{in.s[1]} * 32 + first]) : 0;
  Barrier& b = c.barriers[id];
  if (b.arrived == 0) {
    b.expected = count;
  } else if (count != b.expected) {
    AddFault(MakeFault(
        c, w, first, pc, "barrier_deadlock",
        absl::StrFormat("barrier %u is used with thread counts %u and %u in one "
                        "phase (%s)",
                        id, b.expected, count, program_.text[pc])));
    return;
  }
  if (!arrive_only) {
    if (b.wait_pc == 0xFFFFFFFFu) {
      b.wait_pc = pc;
    } else if (pc != b.wait_pc && (aligned || (program_.code[b.wait_pc].aux & 2))) {
      AddFault(MakeFault(
          c, w, first, pc, "divergent_sync",
          absl::StrFormat(
              "threads wait at barrier %u at two different instructions: line %u "
              "(%s) and line %u (%s)",
              id, program_.code[b.wait_pc].line, program_.text[b.wait_pc],
              program_.code[pc].line, program_.text[pc])));
      return;
    }
  }
  b.arrived += Popcount(arrive);
  b.warp_mask |= 1u << w.index;
  if (arrive_only) {
    MoveLanes(w, arrive, pc + 1);
  } else {
    if (!(w.converged && arrive == w.Live())) Diverge(w);
    for (uint32_t m = arrive; m != 0; m &= m - 1) {
      int l = __builtin_ctz(m);
      if (!w.converged) w.lane_pc[l] = pc;
      w.wait_kind[l] = WaitKind::kBarrier;
      w.wait_barrier[l] = uint8_t(id);
    }
    w.waiting |= arrive;
    TryReconverge(w);
    uint32_t others = w.waiting & ~arrive;
    if (others != 0) CheckWarpWaits(c, w);
  }
  if (!stopped_) MaybeCompleteBarrier(c, id);
}

void Machine::MaybeCompleteBarrier(Cta& c, uint32_t id) {
  Barrier& b = c.barriers[id];
  if (b.arrived == 0) return;
  uint32_t need = b.expected != 0 ? b.expected : c.live_threads;
  if (b.arrived >= need) CompleteBarrier(c, id);
}

void Machine::CompleteBarrier(Cta& c, uint32_t id) {
  Barrier b = c.barriers[id];
  c.barriers[id] = Barrier{};
  ++counters_.barriers;
  uint32_t nw = warps_per_cta_;
  if (b.expected == 0 || b.arrived >= c.live_threads) {
    ++c.epoch;  // every live thread took part: everything before is ordered
    if (options_.detect_races) c.shadow.NewEpoch();
  } else if (options_.detect_races) {
    // A subset of warps: join their warp clocks, and the lanes within each.
    std::vector<uint32_t> join(nw, 0);
    for (uint32_t w = 0; w < nw; ++w) {
      if (!((b.warp_mask >> w) & 1)) continue;
      ++c.wvc[size_t{w} * nw + w];
      for (uint32_t k = 0; k < nw; ++k)
        join[k] = std::max(join[k], c.wvc[size_t{w} * nw + k]);
    }
    for (uint32_t w = 0; w < nw; ++w) {
      if (!((b.warp_mask >> w) & 1)) continue;
      for (uint32_t k = 0; k < nw; ++k) c.wvc[size_t{w} * nw + k] = join[k];
      WarpSyncClocks(c.warps[w], c.warps[w].Live());
    }
  }
  for (Warp& w : c.warps) {
    uint32_t lanes = 0;
    for (uint32_t m = w.waiting; m != 0; m &= m - 1) {
      int l = __builtin_ctz(m);
      if (w.wait_kind[l] == WaitKind::kBarrier && w.wait_barrier[l] == id)
        lanes |= 1u << l;
    }
    ReleaseLanes(w, lanes);
  }
}

void Machine::Deadlock(Cta& c) {
  // Warp-level waits that can never complete.
  for (Warp& w : c.warps) {
    for (uint32_t m = w.waiting & w.Live(); m != 0; m &= m - 1) {
      int l = __builtin_ctz(m);
      if (w.wait_kind[l] != WaitKind::kWarpSync) continue;
      uint32_t pc = w.converged ? w.pc : w.lane_pc[l];
      const Insn& in = program_.code[pc];
      uint32_t need = MemberMask(w, in, l) & w.Live() & ~w.waiting;
      std::string missing = need != 0 ? absl::StrCat("lane ", __builtin_ctz(need), " ",
                                                     Where(w, __builtin_ctz(need)))
                                      : "its member lanes wait elsewhere";
      AddFault(MakeFault(c, w, l, pc, "divergent_sync",
                         absl::StrFormat("lane %d waits at line %u (%s) forever: %s", l,
                                         in.line, program_.text[pc], missing)));
      return;
    }
  }
  // CTA barriers.
  for (uint32_t id = 0; id < 16; ++id) {
    const Barrier& b = c.barriers[id];
    if (b.arrived == 0) continue;
    uint32_t need = b.expected != 0 ? b.expected : c.live_threads;
    // The first waiting thread, and the first live thread that is not at this barrier.
    const Warp* ww = nullptr;
    int wl = 0;
    std::string absent;
    for (const Warp& w : c.warps) {
      for (uint32_t m = w.Live(); m != 0; m &= m - 1) {
        int l = __builtin_ctz(m);
        bool here = (w.waiting >> l & 1) && w.wait_kind[l] == WaitKind::kBarrier &&
                    w.wait_barrier[l] == id;
        if (here && ww == nullptr) {
          ww = &w;
          wl = l;
        }
        if (!here && absent.empty()) {
          absent = absl::StrCat("; thread ", w.base_tid + l, " ", Where(w, l));
        }
      }
    }
    if (ww == nullptr) continue;
    uint32_t pc = ww->converged ? ww->pc : ww->lane_pc[wl];
    AddFault(MakeFault(
        c, *ww, wl, pc, "barrier_deadlock",
        absl::StrFormat("barrier %u waits for %u threads but only %u arrived and "
                        "no other thread can move%s",
                        id, need, b.arrived, absent)));
    return;
  }
  // Nothing waits and nothing runs: cannot happen unless every thread exited.
  for (const Warp& w : c.warps) {
    if (w.Live() != 0) {
      AddFault(MakeFault(c, w, __builtin_ctz(w.Live()), w.converged ? w.pc : 0,
                         "barrier_deadlock", "no thread of the CTA can move"));
      return;
    }
  }
}

void Machine::TraceLine(const Cta& c, const Warp& w, uint32_t pc, uint32_t mask) {
  *options_.trace << absl::StrFormat("cta %u,%u,%u warp %u pc %u line %u mask %08x  %s\n",
                                     c.id[0], c.id[1], c.id[2], w.index, pc,
                                     program_.code[pc].line, mask, program_.text[pc]);
}

bool Machine::RunWarp(Cta& c, Warp& w) {
  bool progressed = false;
  if (!w.regs_ready) InitRegs(c, w);
  Exec x{this, &c, &w, w.regs.get(), w.preds.data(), 0};
  const uint32_t quantum = options_.quantum;
  const bool straight = options_.fast_straight_line && options_.trace == nullptr;
  for (uint32_t n = 0; n < quantum; ++n) {
    if (straight && w.converged) {
      const StraightEnd end = RunStraightLine(w, x, quantum, &n, &progressed);
      if (end == StraightEnd::kStop) return true;
      if (end == StraightEnd::kQuantum) break;
    }
    const uint32_t runnable = w.valid & ~w.exited & ~w.waiting;
    if (runnable == 0) break;
    uint32_t pc = 0, mask = 0;
    if (!NextIssue(c, w, runnable, &pc, &mask)) return true;
    progressed = true;
    if (Issue(c, w, x, pc, mask)) return true;
  }
  return progressed;
}

Machine::StraightEnd Machine::RunStraightLine(Warp& w, Exec& x, uint32_t quantum,
                                              uint32_t* n_io, bool* progressed) {
  // Converged straight-line code: plain instructions one after another, as the general
  // step (NextIssue + Issue) runs them (the same budget check, counters, pc updates and
  // stop decisions), with the lane mask, the issue count and the counters kept in
  // locals. A plain instruction changes no lane's state (exits, waits, pcs), so the mask
  // holds until the loop meets another kind, the budget edge (the general step then
  // faults exactly as before) or the end of the quantum.
  const uint32_t mask = w.valid & ~w.exited & ~w.waiting;
  if (mask == 0) return StraightEnd::kOther;
  const Insn* code = program_.code.data();
  const uint64_t budget = options_.max_instructions_per_thread;
  const uint32_t lanes = Popcount(mask);
  // The general step issues while issued + 1 + max_extra <= budget.
  const uint64_t limit = budget >= w.max_extra ? budget - w.max_extra : 0;
  uint32_t n = *n_io;
  uint32_t pc = w.pc;
  uint64_t issued = w.issued;
  uint64_t warp_n = 0, thread_n = 0;
  bool stop = false;
  while (n < quantum) {
    const Insn& in = code[pc];
    if (in.kind != InsnKind::kPlain || issued >= limit) break;
    w.issued = ++issued;  // read by the clock registers (sem_int.cc)
    uint32_t emask = mask;
    if (in.guard != kNoGuard) emask &= w.preds[in.guard] ^ (in.guard_neg ? ~0u : 0u);
    ++warp_n;
    ++n;
    if (emask != 0) {
      thread_n += emask == mask ? lanes : Popcount(emask);
      ++counters_.by_class[in.op_class];
      x.pc = pc;
      if (!in.fn(x, in, emask)) {
        stop = true;
        break;
      }
    }
    w.pc = ++pc;
    if (stopped_) {
      stop = true;
      break;
    }
  }
  *n_io = n;
  counters_.warp_instructions += warp_n;
  counters_.thread_instructions += thread_n;
  if (warp_n != 0) *progressed = true;
  if (stop) return StraightEnd::kStop;
  return n >= quantum ? StraightEnd::kQuantum : StraightEnd::kOther;
}

bool Machine::NextIssue(Cta& c, Warp& w, uint32_t runnable, uint32_t* pc_out,
                        uint32_t* mask_out) {
  const uint64_t budget = options_.max_instructions_per_thread;
  uint32_t pc, mask;
  bool over;
  if (w.converged) {
    pc = w.pc;
    mask = runnable;
    over = ++w.issued + w.max_extra > budget;
  } else {
    // The lowest pc among the runnable lanes, and every lane at it.
    pc = 0xFFFFFFFFu;
    mask = 0;
    for (uint32_t m = runnable; m != 0; m &= m - 1) {
      int l = __builtin_ctz(m);
      uint32_t p = w.lane_pc[l];
      if (p < pc) {
        pc = p;
        mask = 1u << l;
      } else if (p == pc) {
        mask |= 1u << l;
      }
    }
    for (uint32_t m = mask; m != 0; m &= m - 1) {
      uint64_t e = ++w.lane_extra[__builtin_ctz(m)];
      if (e > w.max_extra) w.max_extra = e;
    }
    over = w.issued + w.max_extra > budget;
  }
  if (over) {
    AddFault(MakeFault(c, w, __builtin_ctz(mask), pc, "instruction_budget",
                       absl::StrFormat("thread executed more than %u instructions (endless "
                                       "loop?)",
                                       budget)));
    return false;
  }
  *pc_out = pc;
  *mask_out = mask;
  return true;
}

bool Machine::Issue(Cta& c, Warp& w, Exec& x, uint32_t pc, uint32_t mask) {
  const Insn& in = program_.code[pc];
  uint32_t emask = mask;
  if (in.guard != kNoGuard) emask &= w.preds[in.guard] ^ (in.guard_neg ? ~0u : 0u);
  ++counters_.warp_instructions;
  if (emask != 0) {
    counters_.thread_instructions += emask == 0xFFFFFFFFu ? 32 : Popcount(emask);
    ++counters_.by_class[in.op_class];
  }
  if (options_.trace != nullptr) TraceLine(c, w, pc, emask);
  x.pc = pc;
  switch (in.kind) {
    case InsnKind::kPlain:
      if (emask != 0 && !in.fn(x, in, emask)) return true;
      if (w.converged) {
        w.pc = pc + 1;
      } else {
        MoveLanes(w, mask, pc + 1);
      }
      break;
    case InsnKind::kBranch: {
      uint32_t fall = mask & ~emask;
      if (w.converged && fall == 0) {
        w.pc = in.target;
      } else if (w.converged && emask == 0) {
        w.pc = pc + 1;
      } else {
        Diverge(w);
        for (uint32_t m = emask; m != 0; m &= m - 1) w.lane_pc[__builtin_ctz(m)] = in.target;
        for (uint32_t m = fall; m != 0; m &= m - 1) w.lane_pc[__builtin_ctz(m)] = pc + 1;
        TryReconverge(w);
      }
      break;
    }
    case InsnKind::kExit:
      MoveLanes(w, mask & ~emask, pc + 1);
      ExitLanes(c, w, emask);
      break;
    case InsnKind::kWarpSync:
      MoveLanes(w, mask & ~emask, pc + 1);
      if (emask != 0) ArriveWarpSync(c, w, in, pc, emask);
      break;
    case InsnKind::kBarrier:
      if ((mask & ~emask) != 0) {
        Diverge(w);
        MoveLanes(w, mask & ~emask, pc + 1);
      }
      if (emask != 0) ArriveBarrier(c, w, in, pc, emask);
      break;
  }
  return stopped_;
}

void Machine::Run() {
  uint32_t total = grid_.Count();
  uint32_t next = 0;
  std::vector<std::unique_ptr<Cta>> resident;
  while (!stopped_ && (next < total || !resident.empty())) {
    while (resident.size() < options_.max_resident_ctas && next < total) {
      auto c = std::make_unique<Cta>();
      InitCta(*c, next++);
      resident.push_back(std::move(c));
    }
    for (size_t i = 0; i < resident.size() && !stopped_;) {
      Cta& c = *resident[i];
      bool progress = false;
      for (Warp& w : c.warps) {
        if (RunWarp(c, w)) progress = true;
        if (stopped_) break;
      }
      if (stopped_) break;
      if (c.done) {
        resident.erase(resident.begin() + i);
        continue;
      }
      if (!progress) {
        Deadlock(c);
        break;
      }
      ++i;
    }
  }
}

// ---- race detection -----------------------------------------------------------------

void Machine::WarpSyncClocks(Warp& w, uint32_t mask) {
  if (!options_.detect_races || mask == 0) return;
  ++w.wgen;
  if ((mask & w.Live()) == w.Live()) w.last_full_gen = w.wgen;
  for (uint32_t m = mask; m != 0; m &= m - 1) {
    int l = __builtin_ctz(m);
    w.lane_gen[l] = w.wgen;
    w.lane_sync_mask[l] = mask;
  }
}

bank::BankCost SharedCostMemo::Cost(uint32_t pc, const uint32_t addr[32], uint32_t mask,
                                    uint32_t bytes) {
  if (mask == 0) return bank::SharedRequestCost(addr, mask, bytes);
  const uint32_t base = addr[__builtin_ctz(mask)] & ~uint32_t{127};
  uint32_t rel[32];
  if (mask == 0xFFFFFFFFu) {
    for (int l = 0; l < 32; ++l) rel[l] = addr[l] - base;
  } else {
    // Lanes outside the mask 0, without a branch per lane: the lane's bit from a table
    // (a shift by the lane index does not vectorise on baseline x86-64; a compare does).
    static constexpr auto kLaneBit = [] {
      std::array<uint32_t, 32> bits{};
      for (int l = 0; l < 32; ++l) bits[l] = 1u << l;
      return bits;
    }();
    for (int l = 0; l < 32; ++l) {
      const uint32_t keep = (mask & kLaneBit[l]) != 0 ? ~0u : 0u;
      rel[l] = (addr[l] - base) & keep;
    }
  }
  const size_t set = pc % next_.size();
  Entry* ways = &entries_[set * kWays];
  for (uint32_t i = 0; i < kWays; ++i) {
    const Entry& e = ways[i];
    if (e.pc == pc && e.mask == mask && e.bytes == bytes &&
        std::memcmp(e.rel, rel, sizeof rel) == 0) {
      return e.cost;
    }
  }
  Entry& e = ways[next_[set]];
  next_[set] = uint8_t((next_[set] + 1) % kWays);
  e.pc = pc;
  e.mask = mask;
  e.bytes = bytes;
  std::memcpy(e.rel, rel, sizeof rel);
  e.cost = bank::SharedRequestCost(addr, mask, bytes);
  return e.cost;
}

Accessor Machine::MakeAccessor(const Exec& x, int lane) const {
  const Cta& c = *x.cta;
  const Warp& w = *x.w;
  Accessor a;
  a.me.epoch = c.epoch + 1;
  a.me.tid = uint16_t(w.base_tid + lane);
  a.me.pc = uint16_t(std::min<uint32_t>(x.pc, 0xFFFF));
  a.me.wgen = w.wgen;
  a.me.wclk = c.wvc[size_t{w.index} * warps_per_cta_ + w.index];
  a.warp = w.index;
  a.lane = uint32_t(lane);
  a.last_full_gen = w.last_full_gen;
  a.lane_gen = w.lane_gen[lane];
  a.lane_sync_mask = w.lane_sync_mask[lane];
  a.warp_view = &c.wvc[size_t{w.index} * warps_per_cta_];
  a.base_tid = w.base_tid;
  a.lane_gens = w.lane_gen;
  a.lane_sync_masks = w.lane_sync_mask;
  return a;
}

bool Machine::RaceFault(Exec& x, int lane, const Conflict& conflict, bool write) {
  const Program& p = program_;
  uint32_t ppc = conflict.prev.pc;
  std::string prev_at =
      ppc < p.code.size()
          ? absl::StrFormat("at line %u (%s)", p.code[ppc].line, p.text[ppc])
          : std::string("(instruction unknown)");
  std::string text = absl::StrFormat(
      "thread %u %s shared byte 0x%x at line %u (%s); thread %u %s it %s with no barrier "
      "in "
      "between",
      x.w->base_tid + lane, write ? "writes" : "reads", kSharedBase + conflict.offset,
      p.code[x.pc].line, p.text[x.pc], conflict.prev.tid,
      conflict.prev_is_write ? "wrote" : "read", prev_at);
  return AddFault(MakeFault(*x.cta, *x.w, lane, x.pc, "shared_race", std::move(text)));
}

bool Machine::CheckSharedRead(Exec& x, int lane, uint32_t offset, uint32_t size) {
  return CheckSharedRead(x, MakeAccessor(x, lane), lane, offset, size);
}

bool Machine::CheckSharedWrite(Exec& x, int lane, uint32_t offset, uint32_t size,
                               const uint8_t* data) {
  return CheckSharedWrite(x, MakeAccessor(x, lane), lane, offset, size, data);
}

}  // namespace warpcheck::sim::machine
