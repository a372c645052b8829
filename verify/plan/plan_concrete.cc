#include "verify/plan/plan_concrete.h"

#include <bit>
#include <functional>

#include "absl/strings/str_cat.h"

namespace warpcheck::verify::plan {

using sim::plan::OpKind;
using sim::plan::SetupValue;

std::optional<std::pair<uint32_t, uint32_t>> WordByte(const sim::plan::WordView& view,
                                                      int element_bytes, uint32_t word,
                                                      int j) {
  const uint32_t b = static_cast<uint32_t>(j);
  if (view.upw == 2) return std::make_pair(view.Reg(word / 2, 0), 4 * (word % 2) + b);
  if (view.pk() > 0) {
    const uint32_t slot = b / element_bytes;
    if (slot >= (1u << view.pk())) return std::nullopt;
    return std::make_pair(view.Reg(word, slot), b % element_bytes);
  }
  if (j >= element_bytes) return std::nullopt;
  return std::make_pair(view.Reg(word, 0), b);
}

MatrixPiece MatrixByte(bool trans, uint32_t lane, int j) {
  const uint32_t b = static_cast<uint32_t>(j);
  if (!trans) return {lane / 4, 4 * (lane % 4) + b};
  return {2 * (lane % 4) + b / 2, 2 * (lane / 4) + b % 2};
}

uint32_t SetupAt(const SetupValue& v, uint32_t tid) {
  switch (v.kind) {
    case SetupValue::Kind::kTidParity:
      return static_cast<uint32_t>(std::popcount(tid & v.mask) & 1);
    case SetupValue::Kind::kTidMaskZero:
      return (tid & v.mask) == 0 ? 1 : 0;
    case SetupValue::Kind::kTidLinear:
    case SetupValue::Kind::kSmemAddr: {
      uint32_t x = v.constant;
      for (size_t b = 0; b < v.coeff.size(); ++b) {
        if ((tid >> b) & 1) x ^= v.coeff[b];
      }
      return v.kind == SetupValue::Kind::kSmemAddr
                 ? x * static_cast<uint32_t>(v.element_bytes)
                 : x;
    }
  }
  return 0;
}

bool IsStore(const sim::plan::Op& op) {
  return op.kind == OpKind::kStShared || op.kind == OpKind::kStMatrix;
}
bool IsLoad(const sim::plan::Op& op) {
  return op.kind == OpKind::kLdShared || op.kind == OpKind::kLdMatrix;
}
bool IsAccess(const sim::plan::Op& op) { return IsStore(op) || IsLoad(op); }

int AccessBytes(const sim::plan::Op& op) {
  if (IsMatrix(op)) return 16;
  const size_t n = IsStore(op) ? op.in.size() : op.out.size();
  return static_cast<int>(n) * op.elem_bytes;
}

std::string OpName(const sim::plan::Op& op) {
  if (IsMatrix(op)) {
    return absl::StrCat(op.kind == OpKind::kStMatrix ? "stmatrix" : "ldmatrix", ".x",
                        MatrixCount(op), op.trans ? ".trans" : "");
  }
  return IsStore(op) ? "st.shared" : "ld.shared";
}

WarpRequest RequestOf(const sim::plan::Program& p, int k, uint32_t warp) {
  const sim::plan::Op& op = p.ops[k];
  WarpRequest r;
  for (uint32_t l = 0; l < 32; ++l) {
    const uint32_t t = (warp << 5) | l;
    r.addr[l] = SetupAt(p.setup[op.addr], t) + op.imm;
    if (op.pred < 0 || SetupAt(p.setup[op.pred], t)) r.mask |= 1u << l;
  }
  if (r.mask == 0) return r;
  r.cost = IsMatrix(op) ? sim::bank::MatrixRequestCost(r.addr, MatrixCount(op))
                        : sim::bank::SharedRequestCost(
                              r.addr, r.mask, static_cast<uint32_t>(AccessBytes(op)));
  return r;
}

namespace {

// One matrix op for every thread: each byte of a lane's word i goes to (or comes from)
// the row that lane 8i + row of its warp addresses. Stores follow the holder's predicate.
void RunMatrix(const sim::plan::Program& p, int k, ConcreteRun& run,
               const std::function<std::array<uint32_t, 4>&(int, int)>& word) {
  const sim::plan::Op& op = p.ops[k];
  const bool store = op.kind == OpKind::kStMatrix;
  const sim::plan::Words& ids = store ? op.in : op.out;
  for (int tid = 0; tid < run.threads; ++tid) {
    const uint32_t t = static_cast<uint32_t>(tid);
    if (store && op.pred >= 0 && !SetupAt(p.setup[op.pred], t)) continue;
    for (size_t i = 0; i < ids.size(); ++i) {
      for (int j = 0; j < 4; ++j) {
        const MatrixPiece m = MatrixByte(op.trans, t & 31, j);
        const uint32_t provider = (t & ~31u) | static_cast<uint32_t>(8 * i + m.row);
        const uint64_t row = uint64_t{SetupAt(p.setup[op.addr], provider)} + op.imm;
        if (row + 16 > run.smem.size()) {
          if (!run.out_of_bounds) run.out_of_bounds = std::make_pair(k, tid);
          continue;
        }
        const size_t at = row + m.col;
        if (store) {
          run.smem[at] = word(tid, ids[i])[j];
          ++run.writers[at];
        } else {
          word(tid, ids[i])[j] = run.smem[at];
        }
      }
    }
  }
}

}  // namespace

absl::StatusOr<ConcreteRun> RunConcrete(const sim::plan::ConversionProblem& problem,
                                        const sim::plan::ConversionPlan& plan) {
  const sim::plan::Program& p = plan.program;
  const int eb = problem.element_bytes();
  if (static_cast<int>(p.inputs.size()) != plan.src_view.words()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "plan: ", p.inputs.size(), " input words, the source view has ",
        plan.src_view.words()));
  }
  ConcreteRun run;
  run.threads = problem.threads();
  run.num_words = p.num_words;
  run.words.assign(static_cast<size_t>(run.threads) * p.num_words,
                   {kJunkTag, kJunkTag, kJunkTag, kJunkTag});
  run.smem.assign(static_cast<size_t>(p.smem_bytes), kUnwrittenTag);
  run.writers.assign(static_cast<size_t>(p.smem_bytes), 0);
  auto word = [&](int tid, int id) -> std::array<uint32_t, 4>& {
    return run.words[static_cast<size_t>(tid) * p.num_words + id];
  };
  for (int tid = 0; tid < run.threads; ++tid) {
    const uint32_t lane = tid & 31, warp = tid >> 5;
    for (size_t x = 0; x < p.inputs.size(); ++x) {
      for (int j = 0; j < 4; ++j) {
        auto rb = WordByte(plan.src_view, eb, static_cast<uint32_t>(x), j);
        if (!rb) continue;
        word(tid, p.inputs[x])[j] = Tag(problem.src.Apply(rb->first, lane, warp), rb->second);
      }
    }
  }
  for (size_t k = 0; k < p.ops.size(); ++k) {
    const sim::plan::Op& op = p.ops[k];
    if (IsMatrix(op)) {
      RunMatrix(p, static_cast<int>(k), run, word);
      continue;
    }
    for (int tid = 0; tid < run.threads; ++tid) {
      const uint32_t t = static_cast<uint32_t>(tid);
      switch (op.kind) {
        case OpKind::kSelp:
          word(tid, op.out[0]) = SetupAt(p.setup[op.pred], t) ? word(tid, op.in[0])
                                                               : word(tid, op.in[1]);
          break;
        case OpKind::kShflBfly:
          word(tid, op.out[0]) = word(static_cast<int>((t & ~31u) | ((t ^ op.imm) & 31)),
                                      op.in[0]);
          break;
        case OpKind::kShflIdx:
          word(tid, op.out[0]) = word(
              static_cast<int>((t & ~31u) | (SetupAt(p.setup[op.addr], t) & 31)), op.in[0]);
          break;
        case OpKind::kPrmt: {
          std::array<uint32_t, 4> out;
          for (int b = 0; b < 4; ++b) {
            const uint32_t n = (op.imm >> (4 * b)) & 7;
            out[b] = word(tid, op.in[n >> 2])[n & 3];
          }
          word(tid, op.out[0]) = out;
          break;
        }
        case OpKind::kStShared:
        case OpKind::kLdShared: {
          const bool store = op.kind == OpKind::kStShared;
          if (store && op.pred >= 0 && !SetupAt(p.setup[op.pred], t)) break;
          const uint32_t a = SetupAt(p.setup[op.addr], t) + op.imm;
          const sim::plan::Words& ids = store ? op.in : op.out;
          const uint64_t end = uint64_t{a} + ids.size() * op.elem_bytes;
          if (end > run.smem.size()) {
            if (!run.out_of_bounds) run.out_of_bounds = std::make_pair(static_cast<int>(k), tid);
            break;
          }
          for (size_t i = 0; i < ids.size(); ++i) {
            for (int j = 0; j < op.elem_bytes && j < 4; ++j) {
              const size_t at = a + i * op.elem_bytes + j;
              if (store) {
                run.smem[at] = word(tid, ids[i])[j];
                ++run.writers[at];
              } else {
                word(tid, ids[i])[j] = run.smem[at];
              }
            }
          }
          break;
        }
        case OpKind::kBarSync:
        case OpKind::kBarWarp:
        case OpKind::kStMatrix:
        case OpKind::kLdMatrix:
          break;
      }
    }
  }
  return run;
}

}  // namespace warpcheck::verify::plan
