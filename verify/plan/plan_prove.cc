#include "verify/plan/plan_prove.h"

#include <algorithm>
#include <bit>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "sim/bank/bank_model.h"
#include "sim/plan/f2_span.h"
#include "verify/plan/plan_concrete.h"
#include "verify/plan/plan_encode.h"

namespace warpcheck::verify::plan {

using sim::plan::OpKind;
using sim::plan::SetupValue;
using smt::Term;

std::string VerdictName(Verdict v) {
  switch (v) {
    case Verdict::kHolds: return "holds";
    case Verdict::kViolated: return "violated";
    case Verdict::kInconclusive: return "inconclusive";
  }
  return "?";
}

namespace {

// Row-major coordinates of a flat element index (dim0 slowest).
std::vector<int64_t> Coords(const std::vector<int64_t>& shape, uint64_t flat) {
  std::vector<int64_t> c(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    c[d] = static_cast<int64_t>(flat % static_cast<uint64_t>(shape[d]));
    flat /= static_cast<uint64_t>(shape[d]);
  }
  return c;
}

std::string CoordText(const std::vector<int64_t>& c) {
  return absl::StrCat("(", absl::StrJoin(c, ", "), ")");
}

std::string ThreadText(int64_t tid) {
  return absl::StrCat("thread ", tid, " (lane ", tid & 31, ", warp ", tid >> 5, ")");
}

ObligationResult Named(std::string name) {
  ObligationResult ob;
  ob.name = std::move(name);
  return ob;
}

// One stored byte of the per-thread program: store op (index into the program), its
// word (position in the op) and byte j, and what it holds (register, element byte) or
// junk. A plain store writes it at the op's address + word · elem_bytes + j; a matrix
// store where MatrixByte puts it.
struct StoreSlot {
  int op;
  int word, j;
  bool junk;
  uint32_t reg, byte;
};

class Prover {
 public:
  Prover(const sim::plan::ConversionProblem& problem, const sim::plan::ConversionPlan& plan,
         const PlanProveOptions& options)
      : pb_(problem), plan_(plan), p_(plan.program), opt_(options), enc_(ctx_, problem, plan) {
    tid_ = ctx_.BvVar("tid", enc_.tid_bits());
  }

  absl::StatusOr<PlanProof> Run();

 private:
  absl::Status Validate() const;
  // Runs a named query for `ob`. Ensures: the result; kError becomes Internal.
  absl::StatusOr<smt::SolverResult> Check(ObligationResult& ob, const std::string& name,
                                          const std::vector<Term>& assertions);
  void Violate(ObligationResult& ob, PlanCounterexample cex);
  void Unknown(ObligationResult& ob, const smt::SolverResult& r);
  bool Stop() const {
    return opt_.stop_at_first_violation && proof_.counterexample.has_value();
  }
  absl::StatusOr<const ConcreteRun*> Concrete();
  // Concretely: thread t's access of op k is live (predicate; a matrix row's lane).
  bool Accesses(int k, uint32_t t) const {
    const sim::plan::Op& op = p_.ops[k];
    if (op.pred >= 0 && SetupAt(p_.setup[op.pred], t) == 0) return false;
    return !IsMatrix(op) ||
           ((t & 31) < 8u * MatrixCount(op) && (t & CopyBits(k).rows) == 0);
  }
  // A matrix store's rows that copy another row (Triton's stmatrix over lanes that hold
  // broadcast copies, sim/plan/matrix.h): row bit b (providing lane bit b) is a copy bit
  // when the row address does not depend on it and the data lanes it stands for (lane
  // b + 2; lane b - 1 for .trans, whose row bit 0 is a word's half) hold the same
  // elements (the source's lane basis there is 0, and the op stores source words). Such
  // a row writes what the row with the bit clear writes, at the same address, so it and
  // its data lanes' slots are not counted as live stores (store.injective, store.once).
  struct Copies {
    uint32_t rows = 0, data_lanes = 0;
  };
  Copies CopyBits(int k) const {
    Copies c;
    const sim::plan::Op& op = p_.ops[k];
    if (!IsStore(op) || !IsMatrix(op)) return c;
    for (int id : op.in) {
      if (enc_.input_index()[id] < 0 || enc_.def()[id] >= 0) return c;
    }
    const SetupValue& a = p_.setup[op.addr];
    for (int b = 0; b < 3; ++b) {
      const int d = op.trans ? b - 1 : b + 2;
      if (d < 0 || d >= pb_.src.lane_bits()) continue;
      const uint32_t coeff = b < static_cast<int>(a.coeff.size()) ? a.coeff[b] : 0;
      if (coeff == 0 && pb_.src.lane[d] == 0) {
        c.rows |= 1u << b;
        c.data_lanes |= 1u << d;
      }
    }
    return c;
  }
  // Symbolically: the lane bits of `tid` in `mask` are all 0.
  Term LaneBitsClear(Term tid, uint32_t mask) {
    if (mask == 0) return ctx_.Bool(true);
    return smt::BvAnd(smt::Extract(tid, 4, 0), enc_.K(mask, 5)) == enc_.K(0, 5);
  }

  absl::Status Delivers();
  absl::Status DeliversSmem();
  absl::Status StoreInjective();
  absl::Status StoreOnce();
  absl::Status StoreEvery();
  absl::Status VectorAligned();
  absl::Status Bank(bool store);

  // Destination word u and its byte j at a concrete thread: the wanted tag.
  uint32_t WantedTag(uint32_t tid, uint32_t u, int j) const;
  absl::Status ConfirmDelivery(ObligationResult& ob, uint32_t tid, uint32_t u,
                               bool witness_based);
  // The `delivers` query of both encodings: some destination word u < words has a wrong
  // byte (`wrong`). Records the verdict (a sat answer re-checked by ConfirmDelivery) and
  // appends `ob`. Ensures: the in-range condition on u, for queries that follow.
  absl::StatusOr<Term> DecideDelivers(ObligationResult& ob, Term u, int words,
                                      const std::vector<Term>& wrong, bool witness_based);

  // Shared-memory tables.
  void BuildStoreTables();
  Term TableAddress(const std::vector<int>& ops, Term k, Term tid);
  Term TableLive(const std::vector<int>& ops, Term k, Term tid);
  Term OpAddress(int op, Term tid, std::map<int, Term>& cache);
  // The address of byte j of word `word` of op `op` in thread tid (stores and loads).
  Term ByteAddress(int op, int word, int j, Term tid, std::map<int, Term>& cache);
  // The canonical source holder of element e: (register, thread) = src^-1(e).
  std::pair<Term, Term> Holder(Term e);
  struct Lookup {
    Term found, live, addr, element;
  };
  // Where the program stores (register regp, element byte bb) of thread tidp.
  Lookup StoreOf(Term regp, Term bb, Term tidp);

  const sim::plan::ConversionProblem& pb_;
  const sim::plan::ConversionPlan& plan_;
  const sim::plan::Program& p_;
  PlanProveOptions opt_;
  smt::Context ctx_;
  PlanEncoder enc_;
  Term tid_;
  PlanProof proof_;
  std::optional<ConcreteRun> run_;
  std::vector<int> stores_, loads_;
  std::vector<StoreSlot> slots_;
  std::map<uint32_t, size_t> slot_of_key_;  // reg * 8 + byte -> first slot storing it
  int reg_width_ = 1;
  bool aligned_ = false;  // vector.aligned holds (matrix rows 16-byte aligned)
};

absl::Status Prover::Validate() const {
  const int sw = plan_.src_view.words(), dw = plan_.dst_view.words();
  if (static_cast<int>(p_.inputs.size()) != sw || static_cast<int>(p_.outputs.size()) != dw) {
    return absl::InvalidArgumentError(absl::StrCat(
        "plan: ", p_.inputs.size(), " input and ", p_.outputs.size(),
        " output words; the views have ", sw, " and ", dw));
  }
  auto word_ok = [&](int id) { return id >= 0 && id < p_.num_words; };
  for (int id : p_.inputs) if (!word_ok(id)) return absl::InvalidArgumentError("plan: bad input word");
  for (int id : p_.outputs) if (!word_ok(id)) return absl::InvalidArgumentError("plan: bad output word");
  const int ns = static_cast<int>(p_.setup.size());
  for (size_t k = 0; k < p_.ops.size(); ++k) {
    const sim::plan::Op& op = p_.ops[k];
    for (int id : op.in) if (!word_ok(id)) return absl::InvalidArgumentError(absl::StrCat("plan: op ", k, " reads a bad word"));
    for (int id : op.out) if (!word_ok(id)) return absl::InvalidArgumentError(absl::StrCat("plan: op ", k, " writes a bad word"));
    if (op.pred >= ns || op.addr >= ns) {
      return absl::InvalidArgumentError(absl::StrCat("plan: op ", k, " names a setup value that does not exist"));
    }
    const bool needs_pred = op.kind == OpKind::kSelp;
    const bool needs_addr = op.kind == OpKind::kShflIdx || IsAccess(op);
    if (IsMatrix(op) && (op.in.empty() == op.out.empty() || MatrixCount(op) > 4 ||
                         (MatrixCount(op) & (MatrixCount(op) - 1)) != 0)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "plan: op ", k, " is a matrix op of ", MatrixCount(op),
          " words; ldmatrix/stmatrix move 1, 2 or 4 matrices"));
    }
    const size_t ins = op.kind == OpKind::kSelp || op.kind == OpKind::kPrmt ? 2
                       : op.kind == OpKind::kShflBfly || op.kind == OpKind::kShflIdx ? 1
                                                                                     : 0;
    if ((needs_pred && op.pred < 0) || (needs_addr && op.addr < 0) ||
        (ins > 0 && (op.in.size() != ins || op.out.size() != 1))) {
      return absl::InvalidArgumentError(absl::StrCat("plan: op ", k, " is malformed"));
    }
    if (IsMatrix(op) && op.pred >= 0 && (p_.setup[op.pred].mask & 31) != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "plan: op ", k, " predicates ", OpName(op),
          " lane by lane; a .sync.aligned matrix op runs in every lane of a warp or none"));
    }
    if (IsAccess(op) && !IsMatrix(op) && (op.elem_bytes < 1 || op.elem_bytes > 4)) {
      return absl::UnimplementedError(absl::StrCat(
          "plan: op ", k, " accesses ", op.elem_bytes,
          "-byte elements; a 32-bit word holds at most 4 bytes"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<smt::SolverResult> Prover::Check(ObligationResult& ob, const std::string& name,
                                                const std::vector<Term>& assertions) {
  if (!enc_.status().ok()) return enc_.status();
  smt::SolverResult r = ctx_.Check(absl::StrCat("plan.", name), assertions, opt_.solver);
  if (opt_.solver.keep_smt2) proof_.smt2.emplace_back(r.query, r.smt2);
  ++ob.queries;
  ob.solver_ms += r.ms;
  ++proof_.queries;
  proof_.solver_ms += r.ms;
  if (r.result == smt::SatResult::kError) return r.error;
  return r;
}

void Prover::Violate(ObligationResult& ob, PlanCounterexample cex) {
  ob.verdict = Verdict::kViolated;
  ob.detail = cex.text;
  cex.obligation = ob.name;
  if (!proof_.counterexample) proof_.counterexample = std::move(cex);
}

void Prover::Unknown(ObligationResult& ob, const smt::SolverResult& r) {
  ob.verdict = Verdict::kInconclusive;
  ob.detail = absl::StrCat("query ", r.query, ": solver unknown (", r.reason_unknown, ")");
}

absl::StatusOr<const ConcreteRun*> Prover::Concrete() {
  if (!run_) {
    auto run = RunConcrete(pb_, plan_);
    if (!run.ok()) return run.status();
    run_ = *std::move(run);
  }
  return &*run_;
}

uint32_t Prover::WantedTag(uint32_t tid, uint32_t u, int j) const {
  auto rb = WordByte(plan_.dst_view, pb_.element_bytes(), u, j);
  if (!rb) return kJunkTag;
  return Tag(pb_.dst.Apply(rb->first, tid & 31, tid >> 5), rb->second);
}

absl::Status Prover::ConfirmDelivery(ObligationResult& ob, uint32_t tid, uint32_t u,
                                     bool witness_based) {
  auto run = Concrete();
  if (!run.ok()) return run.status();
  const auto& got = (*run)->Word(static_cast<int>(tid), p_.outputs[u]);
  for (int j = 0; j < 4; ++j) {
    const uint32_t want = WantedTag(tid, u, j);
    if (want == kJunkTag || got[j] == want) continue;
    auto rb = WordByte(plan_.dst_view, pb_.element_bytes(), u, j);
    PlanCounterexample c;
    c.thread = tid;
    c.lane = tid & 31;
    c.warp = tid >> 5;
    c.dst_word = u;
    c.reg = rb->first;
    c.expected_coords = Coords(pb_.shape, want >> 3);
    std::string what;
    if (got[j] == kJunkTag) {
      what = "a byte no element has";
    } else if (got[j] == kUnwrittenTag) {
      what = "shared memory nothing stored";
    } else {
      c.actual_coords = Coords(pb_.shape, got[j] >> 3);
      what = absl::StrCat("element ", CoordText(c.actual_coords), " byte ", got[j] & 7);
    }
    c.text = absl::StrCat(ThreadText(tid), ", destination word ", u, " (register ",
                          rb->first, ") byte ", j, ": wants element ",
                          CoordText(c.expected_coords), " byte ", want & 7,
                          ", the plan delivers ", what);
    Violate(ob, std::move(c));
    return absl::OkStatus();
  }
  if (witness_based) {
    ob.verdict = Verdict::kInconclusive;
    ob.detail = absl::StrCat(
        ThreadText(tid), ", destination word ", u,
        ": the canonical source copy does not store what this word loads, but another "
        "store delivers it (the proof only follows canonical copies)");
    return absl::OkStatus();
  }
  return absl::InternalError(absl::StrCat(
      "prove plan: the solver's counterexample (", ThreadText(tid), ", word ", u,
      ") does not reproduce concretely; an encoding bug"));
}

absl::Status Prover::Delivers() {
  ObligationResult ob = Named("delivers");
  const int words = plan_.dst_view.words();
  const int ub = PlanEncoder::WidthFor(words);
  Term u = ctx_.BvVar("u", ub);
  const int root = enc_.Root(tid_);
  std::vector<Term> wrong;
  for (int j = 0; j < 4; ++j) {
    auto want = enc_.ViewByte(pb_.dst, plan_.dst_view, u, ub, j, tid_);
    if (!want) continue;
    Term got = enc_.Word(p_.outputs[words - 1], root)[j];
    for (int o = words - 2; o >= 0; --o) {
      got = smt::Ite(u == enc_.K(o, ub), enc_.Word(p_.outputs[o], root)[j], got);
    }
    wrong.push_back(got != enc_.Tag(want->first, want->second));
  }
  return DecideDelivers(ob, u, words, wrong, /*witness_based=*/false).status();
}

absl::StatusOr<Term> Prover::DecideDelivers(ObligationResult& ob, Term u, int words,
                                            const std::vector<Term>& wrong,
                                            bool witness_based) {
  const int ub = PlanEncoder::WidthFor(words);
  Term in_range = words == (1 << ub) ? ctx_.Bool(true) : smt::BvUlt(u, enc_.K(words, ub));
  auto r = Check(ob, "delivers", {in_range, smt::Or(ctx_, wrong)});
  if (!r.ok()) return r.status();
  if (r->result == smt::SatResult::kUnsat) {
    ob.verdict = Verdict::kHolds;
  } else if (r->result == smt::SatResult::kUnknown) {
    Unknown(ob, *r);
  } else {
    const uint32_t t = static_cast<uint32_t>(*r->model.Bits(tid_));
    const uint32_t uv = static_cast<uint32_t>(*r->model.Bits(u));
    if (auto s = ConfirmDelivery(ob, t, uv, witness_based); !s.ok()) return s;
  }
  proof_.obligations.push_back(ob);
  return in_range;
}

void Prover::BuildStoreTables() {
  const int eb = pb_.element_bytes();
  reg_width_ = std::max(pb_.src.reg_bits(), 1);
  for (size_t k = 0; k < p_.ops.size(); ++k) {
    const sim::plan::Op& op = p_.ops[k];
    if (IsLoad(op)) loads_.push_back(static_cast<int>(k));
    if (!IsStore(op)) continue;
    stores_.push_back(static_cast<int>(k));
    for (size_t i = 0; i < op.in.size(); ++i) {
      const int x = enc_.input_index()[op.in[i]];
      for (int j = 0; j < WordBytesOf(op); ++j) {
        StoreSlot s{static_cast<int>(k), static_cast<int>(i), j, true, 0, 0};
        if (x >= 0 && enc_.def()[op.in[i]] < 0) {
          if (auto rb = WordByte(plan_.src_view, eb, static_cast<uint32_t>(x), j)) {
            s.junk = false;
            s.reg = rb->first;
            s.byte = rb->second;
            slot_of_key_.emplace(s.reg * 8 + s.byte, slots_.size());
          }
        }
        slots_.push_back(s);
      }
    }
  }
}

Term Prover::OpAddress(int op, Term tid, std::map<int, Term>& cache) {
  const sim::plan::Op& o = p_.ops[op];
  auto it = cache.find(o.addr);
  if (it == cache.end()) {
    sim::plan::Op base = o;
    base.imm = 0;
    it = cache.emplace(o.addr, enc_.Address(base, tid)).first;
  }
  return smt::BvAdd(it->second, enc_.K(o.imm, PlanEncoder::kAddrBits));
}

Term Prover::ByteAddress(int op, int word, int j, Term tid, std::map<int, Term>& cache) {
  const sim::plan::Op& o = p_.ops[op];
  if (IsMatrix(o)) return enc_.MatrixByteAddress(o, word, j, tid);
  return smt::BvAdd(OpAddress(op, tid, cache),
                    enc_.K(word * o.elem_bytes + j, PlanEncoder::kAddrBits));
}

Term Prover::TableAddress(const std::vector<int>& ops, Term k, Term tid) {
  std::map<int, Term> cache;
  const int kb = k.bv_width();
  Term a = OpAddress(ops.back(), tid, cache);
  for (int i = static_cast<int>(ops.size()) - 2; i >= 0; --i) {
    a = smt::Ite(k == enc_.K(i, kb), OpAddress(ops[i], tid, cache), a);
  }
  return a;
}

Term Prover::TableLive(const std::vector<int>& ops, Term k, Term tid) {
  const int kb = k.bv_width();
  // A matrix op's access of a thread is the row it addresses: live where the lane
  // supplies one.
  auto live = [&](int op) {
    const sim::plan::Op& o = p_.ops[op];
    Term l = o.pred >= 0 ? enc_.Pred(o.pred, tid) : ctx_.Bool(true);
    return IsMatrix(o) ? (l && enc_.ProvidesRow(o, tid) && LaneBitsClear(tid, CopyBits(op).rows))
                       : l;
  };
  Term l = live(ops.back());
  for (int i = static_cast<int>(ops.size()) - 2; i >= 0; --i) {
    l = smt::Ite(k == enc_.K(i, kb), live(ops[i]), l);
  }
  return l;
}

std::pair<Term, Term> Prover::Holder(Term e) {
  std::vector<uint32_t> gens(pb_.src.reg);
  gens.insert(gens.end(), pb_.src.lane.begin(), pb_.src.lane.end());
  gens.insert(gens.end(), pb_.src.warp.begin(), pb_.src.warp.end());
  sim::plan::F2Span span(gens);
  std::vector<uint32_t> img(enc_.element_bits(), 0);
  for (int i = 0; i < pb_.elem_bits_log2; ++i) img[i] = span.Solve(1u << i).value_or(0);
  const int r = pb_.src.reg_bits(), t = enc_.tid_bits();
  Term s = enc_.XorMap(e, enc_.element_bits(), img, 0, r + t);
  Term regp = r > 0 ? smt::Extract(s, r - 1, 0) : enc_.K(0, 1);
  return {regp, smt::Extract(s, r + t - 1, r)};
}

Prover::Lookup Prover::StoreOf(Term regp, Term bb, Term tidp) {
  Term key = smt::Concat(regp, bb);
  const int kw = reg_width_ + 3;
  std::map<int, Term> cache;
  // The stored element: what source register regp of thread tidp holds.
  Lookup l{ctx_.Bool(false), ctx_.Bool(false), enc_.K(0, PlanEncoder::kAddrBits),
           enc_.Element(pb_.src,
                        enc_.XorMap(regp, pb_.src.reg_bits(), pb_.src.reg, 0,
                                    enc_.element_bits()),
                        tidp)};
  for (auto it = slot_of_key_.rbegin(); it != slot_of_key_.rend(); ++it) {
    const StoreSlot& s = slots_[it->second];
    const sim::plan::Op& op = p_.ops[s.op];
    Term hit = key == enc_.K(it->first, kw);
    Term live = op.pred >= 0 ? enc_.Pred(op.pred, tidp) : ctx_.Bool(true);
    Term addr = ByteAddress(s.op, s.word, s.j, tidp, cache);
    l.found = hit || l.found;
    l.live = smt::Ite(hit, live, l.live);
    l.addr = smt::Ite(hit, addr, l.addr);
  }
  return l;
}

absl::Status Prover::DeliversSmem() {
  ObligationResult ob = Named("delivers"), bar = Named("barrier.scope");
  const int words = plan_.dst_view.words();
  // Every output is a loaded word; find (op, position) of each.
  std::vector<std::pair<int, int>> src_of(words);
  for (int o = 0; o < words; ++o) {
    const int k = enc_.def()[p_.outputs[o]];
    if (k < 0 || !IsLoad(p_.ops[k])) {
      return absl::UnimplementedError(absl::StrCat(
          "plan: destination word ", o, " is not a loaded word; a shared-memory plan "
          "is encoded when its outputs are its loads"));
    }
    const auto& out = p_.ops[k].out;
    src_of[o] = {k, static_cast<int>(std::find(out.begin(), out.end(), p_.outputs[o]) - out.begin())};
  }
  // Ordering: every store before the first barrier after the first store, every load
  // after it. Barriers before the first store (PlanOptions::barrier_before_store: the
  // previous use of the buffer) order nothing within the plan; roundtrip.buffers
  // checks them where they matter.
  int first_bar = -1;
  bool warp_bar = false;
  size_t first_store = 0;
  while (first_store < p_.ops.size() && !IsStore(p_.ops[first_store])) ++first_store;
  for (size_t k = first_store; k < p_.ops.size() && first_bar < 0; ++k) {
    if (p_.ops[k].kind == OpKind::kBarSync || p_.ops[k].kind == OpKind::kBarWarp) {
      first_bar = static_cast<int>(k);
      warp_bar = p_.ops[k].kind == OpKind::kBarWarp;
    }
  }
  for (size_t k = 0; k < p_.ops.size() && bar.verdict != Verdict::kViolated; ++k) {
    const bool before = first_bar < 0 || static_cast<int>(k) < first_bar;
    if ((IsLoad(p_.ops[k]) && before) || (IsStore(p_.ops[k]) && !before)) {
      PlanCounterexample c;
      c.text = absl::StrCat("op ", k, " (", OpName(p_.ops[k]),
                            ") is on the wrong side of the barrier after the first store",
                            first_bar < 0 ? " (there is none)" : "");
      Violate(bar, c);
    }
  }
  const int ub = PlanEncoder::WidthFor(words);
  Term u = ctx_.BvVar("u", ub);
  std::map<int, Term> cache;
  std::vector<Term> wrong, foreign;
  for (int j = 0; j < 4; ++j) {
    auto want = enc_.ViewByte(pb_.dst, plan_.dst_view, u, ub, j, tid_);
    if (!want) continue;
    Term la = enc_.K(0, PlanEncoder::kAddrBits);
    Term loaded = ctx_.Bool(false);
    for (int o = words - 1; o >= 0; --o) {
      const sim::plan::Op& op = p_.ops[src_of[o].first];
      Term a = ByteAddress(src_of[o].first, src_of[o].second, j, tid_, cache);
      Term here = u == enc_.K(o, ub);
      la = o == words - 1 ? a : smt::Ite(here, a, la);
      Term has = ctx_.Bool(j < WordBytesOf(op));
      loaded = o == words - 1 ? has : smt::Ite(here, has, loaded);
    }
    auto [regp, tidp] = Holder(want->first);
    Lookup st = StoreOf(regp, want->second, tidp);
    wrong.push_back(!loaded || !st.found || !st.live || st.addr != la ||
                    st.element != want->first);
    if (enc_.tid_bits() > 5) {
      foreign.push_back(smt::Extract(tidp, enc_.tid_bits() - 1, 5) !=
                        smt::Extract(tid_, enc_.tid_bits() - 1, 5));
    }
  }
  absl::StatusOr<Term> in_range = DecideDelivers(ob, u, words, wrong, /*witness_based=*/true);
  if (!in_range.ok()) return in_range.status();
  if (warp_bar && !foreign.empty() && bar.verdict != Verdict::kViolated) {
    auto rb = Check(bar, "barrier.scope", {*in_range, smt::Or(ctx_, foreign)});
    if (!rb.ok()) return rb.status();
    if (rb->result == smt::SatResult::kUnknown) {
      Unknown(bar, *rb);
    } else if (rb->result == smt::SatResult::kSat) {
      const uint32_t t = static_cast<uint32_t>(*rb->model.Bits(tid_));
      const uint32_t uv = static_cast<uint32_t>(*rb->model.Bits(u));
      // Concretely: the wanted element's canonical holder is in another warp.
      const uint32_t want = WantedTag(t, uv, 0);
      std::vector<uint32_t> gens(pb_.src.reg);
      gens.insert(gens.end(), pb_.src.lane.begin(), pb_.src.lane.end());
      gens.insert(gens.end(), pb_.src.warp.begin(), pb_.src.warp.end());
      const uint32_t holder =
          sim::plan::F2Span(gens).Solve(want >> 3).value_or(0) >> pb_.src.reg_bits();
      if ((holder >> 5) == (t >> 5)) {
        return absl::InternalError(absl::StrCat(
            "prove plan: barrier.scope counterexample at ", ThreadText(t),
            " does not reproduce concretely; an encoding bug"));
      }
      PlanCounterexample c;
      c.other_thread = holder;
      c.thread = t;
      c.lane = t & 31;
      c.warp = t >> 5;
      c.dst_word = uv;
      c.expected_coords = Coords(pb_.shape, want >> 3);
      c.text = absl::StrCat(ThreadText(t), ", destination word ", uv, " loads element ",
                            CoordText(c.expected_coords),
                            ", which ", ThreadText(holder),
                            " stores, after only bar.warp.sync");
      Violate(bar, c);
    } else {
      bar.verdict = Verdict::kHolds;
    }
  } else if (bar.verdict != Verdict::kViolated) {
    bar.verdict = Verdict::kHolds;
    bar.detail = warp_bar ? "one warp" : "bar.sync orders every warp's stores before the loads";
  }
  proof_.obligations.push_back(bar);
  return absl::OkStatus();
}

absl::Status Prover::StoreInjective() {
  ObligationResult ob = Named("store.injective");
  const int kb = PlanEncoder::WidthFor(stores_.size());
  const int aw = PlanEncoder::kAddrBits;
  Term k1 = ctx_.BvVar("k1", kb), k2 = ctx_.BvVar("k2", kb);
  Term t2 = ctx_.BvVar("tid2", enc_.tid_bits());
  auto size = [&](Term k) {
    Term s = enc_.K(AccessBytes(p_.ops[stores_.back()]), aw);
    for (int i = static_cast<int>(stores_.size()) - 2; i >= 0; --i) {
      s = smt::Ite(k == enc_.K(i, kb), enc_.K(AccessBytes(p_.ops[stores_[i]]), aw), s);
    }
    return s;
  };
  Term a1 = TableAddress(stores_, k1, tid_), a2 = TableAddress(stores_, k2, t2);
  Term n = enc_.K(stores_.size(), kb + 1);
  auto r = Check(ob, "store.injective",
                 {smt::BvUlt(smt::ZeroExt(k1, 1), n), smt::BvUlt(smt::ZeroExt(k2, 1), n),
                  TableLive(stores_, k1, tid_), TableLive(stores_, k2, t2),
                  k1 != k2 || tid_ != t2, smt::BvUlt(a1, smt::BvAdd(a2, size(k2))),
                  smt::BvUlt(a2, smt::BvAdd(a1, size(k1)))});
  if (!r.ok()) return r.status();
  if (r->result == smt::SatResult::kUnsat) {
    ob.verdict = Verdict::kHolds;
  } else if (r->result == smt::SatResult::kUnknown) {
    Unknown(ob, *r);
  } else {
    const int s1 = stores_[*r->model.Bits(k1)], s2 = stores_[*r->model.Bits(k2)];
    const uint32_t x1 = static_cast<uint32_t>(*r->model.Bits(tid_));
    const uint32_t x2 = static_cast<uint32_t>(*r->model.Bits(t2));
    auto at = [&](int k, uint32_t t) { return SetupAt(p_.setup[p_.ops[k].addr], t) + p_.ops[k].imm; };
    const uint32_t b1 = at(s1, x1), b2 = at(s2, x2);
    const bool overlap = b1 < b2 + AccessBytes(p_.ops[s2]) && b2 < b1 + AccessBytes(p_.ops[s1]);
    if (!overlap || !Accesses(s1, x1) || !Accesses(s2, x2) || (s1 == s2 && x1 == x2)) {
      return absl::InternalError("prove plan: store.injective counterexample does not reproduce");
    }
    auto what = [&](int k) {
      return absl::StrCat(OpName(p_.ops[k]), " (op ", k, ")",
                          IsMatrix(p_.ops[k]) ? " row addressed by " : " of ");
    };
    PlanCounterexample c;
    c.thread = x1;
    c.lane = x1 & 31;
    c.warp = x1 >> 5;
    c.other_thread = x2;
    c.text = absl::StrCat(what(s1), ThreadText(x1), " writes bytes [", b1, ", ",
                          b1 + AccessBytes(p_.ops[s1]), ") and ", what(s2), ThreadText(x2),
                          " writes bytes [", b2, ", ", b2 + AccessBytes(p_.ops[s2]),
                          "): one shared byte stored twice");
    Violate(ob, c);
  }
  proof_.obligations.push_back(ob);
  return absl::OkStatus();
}

absl::Status Prover::StoreOnce() {
  ObligationResult ob = Named("store.once");
  const int n = static_cast<int>(slots_.size());
  const int sb = PlanEncoder::WidthFor(n);
  const int ne = enc_.element_bits();
  Term s1 = ctx_.BvVar("slot1", sb), s2 = ctx_.BvVar("slot2", sb);
  Term t2 = ctx_.BvVar("tid2", enc_.tid_bits());
  // (element, byte, live and not junk) of slot s in thread t, as tables over s.
  auto at = [&](Term s, Term t) {
    std::vector<uint32_t> reg_img;
    auto entry = [&](int i) {
      const StoreSlot& x = slots_[i];
      const sim::plan::Op& op = p_.ops[x.op];
      Term live = x.junk ? ctx_.Bool(false)
                         : (op.pred >= 0 ? enc_.Pred(op.pred, t) : ctx_.Bool(true)) &&
                               LaneBitsClear(t, CopyBits(x.op).data_lanes);
      uint32_t img = 0;
      for (int b = 0; b < pb_.src.reg_bits(); ++b) if ((x.reg >> b) & 1) img ^= pb_.src.reg[b];
      return std::make_tuple(enc_.K(img, ne), enc_.K(x.byte, 3), live);
    };
    auto [e, b, l] = entry(n - 1);
    for (int i = n - 2; i >= 0; --i) {
      auto [ei, bi, li] = entry(i);
      Term here = s == enc_.K(i, sb);
      e = smt::Ite(here, ei, e);
      b = smt::Ite(here, bi, b);
      l = smt::Ite(here, li, l);
    }
    return std::make_tuple(enc_.Element(pb_.src, e, t), b, l);
  };
  auto [e1, b1, l1] = at(s1, tid_);
  auto [e2, b2, l2] = at(s2, t2);
  Term cnt = enc_.K(n, sb + 1);
  auto r = Check(ob, "store.once",
                 {smt::BvUlt(smt::ZeroExt(s1, 1), cnt), smt::BvUlt(smt::ZeroExt(s2, 1), cnt), l1,
                  l2, s1 != s2 || tid_ != t2, e1 == e2, b1 == b2});
  if (!r.ok()) return r.status();
  if (r->result == smt::SatResult::kUnsat) {
    ob.verdict = Verdict::kHolds;
  } else if (r->result == smt::SatResult::kUnknown) {
    Unknown(ob, *r);
  } else {
    const StoreSlot& x1 = slots_[*r->model.Bits(s1)];
    const StoreSlot& x2 = slots_[*r->model.Bits(s2)];
    const uint32_t y1 = static_cast<uint32_t>(*r->model.Bits(tid_));
    const uint32_t y2 = static_cast<uint32_t>(*r->model.Bits(t2));
    auto live = [&](const StoreSlot& x, uint32_t t) {
      const int pr = p_.ops[x.op].pred;
      return !x.junk && (pr < 0 || SetupAt(p_.setup[pr], t) != 0) &&
             (t & CopyBits(x.op).data_lanes) == 0;
    };
    const uint32_t g1 = Tag(pb_.src.Apply(x1.reg, y1 & 31, y1 >> 5), x1.byte);
    const uint32_t g2 = Tag(pb_.src.Apply(x2.reg, y2 & 31, y2 >> 5), x2.byte);
    if (g1 != g2 || !live(x1, y1) || !live(x2, y2)) {
      return absl::InternalError("prove plan: store.once counterexample does not reproduce");
    }
    PlanCounterexample c;
    c.thread = y1;
    c.lane = y1 & 31;
    c.warp = y1 >> 5;
    c.reg = x1.reg;
    c.other_thread = y2;
    c.expected_coords = Coords(pb_.shape, g1 >> 3);
    c.text = absl::StrCat("element ", CoordText(c.expected_coords), " byte ", g1 & 7,
                          " is stored twice: by ", ThreadText(y1), " register ", x1.reg,
                          " (op ", x1.op, ") and by ", ThreadText(y2), " register ", x2.reg,
                          " (op ", x2.op, ")");
    Violate(ob, c);
  }
  proof_.obligations.push_back(ob);
  return absl::OkStatus();
}

absl::Status Prover::StoreEvery() {
  ObligationResult ob = Named("store.every");
  const int ne = enc_.element_bits();
  Term e = ctx_.BvVar("e", ne);
  auto [regp, tidp] = Holder(e);
  std::vector<Term> missing;
  for (int bb = 0; bb < pb_.element_bytes(); ++bb) {
    Lookup st = StoreOf(regp, enc_.K(bb, 3), tidp);
    missing.push_back(!st.found || !st.live);
  }
  Term in_range = pb_.elem_bits_log2 == 0 ? (e == enc_.K(0, ne)) : ctx_.Bool(true);
  auto r = Check(ob, "store.every", {in_range, smt::Or(ctx_, missing)});
  if (!r.ok()) return r.status();
  if (r->result == smt::SatResult::kUnsat) {
    ob.verdict = Verdict::kHolds;
  } else if (r->result == smt::SatResult::kUnknown) {
    Unknown(ob, *r);
  } else {
    const uint32_t ev = static_cast<uint32_t>(*r->model.Bits(e));
    auto run = Concrete();
    if (!run.ok()) return run.status();
    // Concretely: some byte of the element is in no live store's bytes.
    std::vector<bool> seen(pb_.element_bytes(), false);
    for (size_t a = 0; a < (*run)->smem.size(); ++a) {
      const uint32_t tag = (*run)->smem[a];
      if ((*run)->writers[a] > 0 && tag < kUnwrittenTag && (tag >> 3) == ev) seen[tag & 7] = true;
    }
    const bool stored = std::all_of(seen.begin(), seen.end(), [](bool b) { return b; });
    PlanCounterexample c;
    c.expected_coords = Coords(pb_.shape, ev);
    if (stored) {
      ob.verdict = Verdict::kInconclusive;
      ob.detail = absl::StrCat("element ", CoordText(c.expected_coords),
                               " is stored, but not by its canonical source copy");
    } else {
      c.text = absl::StrCat("element ", CoordText(c.expected_coords),
                            " is never stored to shared memory");
      Violate(ob, c);
    }
  }
  proof_.obligations.push_back(ob);
  return absl::OkStatus();
}

absl::Status Prover::VectorAligned() {
  ObligationResult ob = Named("vector.aligned");
  std::vector<int> ops(stores_);
  ops.insert(ops.end(), loads_.begin(), loads_.end());
  for (int k : ops) {
    const sim::plan::Op& op = p_.ops[k];
    const size_t n = IsStore(op) ? op.in.size() : op.out.size();
    const int bytes = AccessBytes(op);
    if (IsMatrix(op) || ((n == 1 || n == 2 || n == 4) && bytes <= 16)) continue;
    PlanCounterexample c;
    c.text = absl::StrCat("op ", k, " accesses ", n, " x ", op.elem_bytes,
                          " bytes; a shared vector access is 1, 2 or 4 elements of at most 16 bytes");
    Violate(ob, c);
    proof_.obligations.push_back(ob);
    return absl::OkStatus();
  }
  const int kb = PlanEncoder::WidthFor(ops.size());
  const int aw = PlanEncoder::kAddrBits;
  Term k = ctx_.BvVar("k", kb);
  Term a = TableAddress(ops, k, tid_);
  Term size = enc_.K(AccessBytes(p_.ops[ops.back()]), aw);
  for (int i = static_cast<int>(ops.size()) - 2; i >= 0; --i) {
    size = smt::Ite(k == enc_.K(i, kb), enc_.K(AccessBytes(p_.ops[ops[i]]), aw), size);
  }
  Term bad = (a & smt::BvAdd(size, enc_.K((uint64_t{1} << aw) - 1, aw))) != enc_.K(0, aw) ||
             smt::BvUlt(enc_.K(p_.smem_bytes, aw), smt::BvAdd(a, size));
  auto r = Check(ob, "vector.aligned",
                 {smt::BvUlt(smt::ZeroExt(k, 1), enc_.K(ops.size(), kb + 1)),
                  TableLive(ops, k, tid_), bad});
  if (!r.ok()) return r.status();
  if (r->result == smt::SatResult::kUnsat) {
    ob.verdict = Verdict::kHolds;
    aligned_ = true;
  } else if (r->result == smt::SatResult::kUnknown) {
    Unknown(ob, *r);
  } else {
    const int op = ops[*r->model.Bits(k)];
    const uint32_t t = static_cast<uint32_t>(*r->model.Bits(tid_));
    const uint32_t addr = SetupAt(p_.setup[p_.ops[op].addr], t) + p_.ops[op].imm;
    const int bytes = AccessBytes(p_.ops[op]);
    if ((addr % bytes == 0 && addr + bytes <= p_.smem_bytes) || !Accesses(op, t)) {
      return absl::InternalError("prove plan: vector.aligned counterexample does not reproduce");
    }
    PlanCounterexample c;
    c.thread = t;
    c.lane = t & 31;
    c.warp = t >> 5;
    c.text = absl::StrCat(OpName(p_.ops[op]), " (op ", op, ") of ", ThreadText(t),
                          IsMatrix(p_.ops[op]) ? " addresses a 16-byte row" : " accesses ",
                          IsMatrix(p_.ops[op]) ? "" : absl::StrCat(bytes, " bytes"), " at ",
                          addr,
                          addr % bytes != 0
                              ? (IsMatrix(p_.ops[op]) ? ": not 16-byte aligned"
                                                      : ": not aligned to its size")
                              : absl::StrCat(": past the buffer's ", p_.smem_bytes, " bytes"));
    Violate(ob, c);
  }
  proof_.obligations.push_back(ob);
  return absl::OkStatus();
}

absl::Status Prover::Bank(bool store) {
  ObligationResult ob = Named(store ? "bank.store" : "bank.load");
  const std::vector<int>& ops = store ? stores_ : loads_;
  const sim::plan::Cost& cost = plan_.cost;
  const int64_t want_wf = store ? cost.wavefronts_store : cost.wavefronts_load;
  const int64_t want_cf = store ? cost.conflicts_store : cost.conflicts_load;
  const uint32_t warps = static_cast<uint32_t>(pb_.num_warps);
  // One warp-wide request of op k in warp w, priced by sim/bank.
  // A matrix op (warp-uniform predicate) is its rows, one 8-lane group per matrix.
  auto request = [&](int k, uint32_t w) { return RequestOf(p_, k, w).cost; };
  // Every warp of every op, concretely.
  auto enumerate = [&](const std::vector<int>& which, int64_t* wf, int64_t* mn) {
    for (int k : which) {
      for (uint32_t w = 0; w < warps; ++w) {
        const sim::bank::BankCost c = request(k, w);
        *wf += c.wavefronts;
        *mn += c.minimum;
      }
    }
  };
  // The lemma's XOR constant keeps a matrix row's four words together only when rows
  // are 16-byte aligned (vector.aligned); otherwise matrix ops are priced warp by warp.
  std::vector<int> lemma, rest;
  for (int k : ops) {
    const int pr = p_.ops[k].pred;
    const bool mask_pred = pr < 0 || p_.setup[pr].kind == SetupValue::Kind::kTidMaskZero;
    (mask_pred && (aligned_ || !IsMatrix(p_.ops[k])) ? lemma : rest).push_back(k);
  }
  int64_t wf = 0, mn = 0;
  std::string how = "every warp's request is the reference warp's XOR one constant (Z3); "
                    "references priced by sim/bank";
  bool translated = enc_.tid_bits() == 5 || lemma.empty();
  if (!translated) {
    const int kb = PlanEncoder::WidthFor(lemma.size());
    const int wb = enc_.tid_bits() - 5;
    Term k = ctx_.BvVar(store ? "bank_store_k" : "bank_load_k", kb);
    Term w = ctx_.BvVar("w", wb), l = ctx_.BvVar("l", 5);
    Term z5 = enc_.K(0, 5), zw = enc_.K(0, wb);
    auto a = [&](Term ww, Term ll) { return TableAddress(lemma, k, smt::Concat(ww, ll)); };
    auto r = Check(ob, store ? "bank.store.translate" : "bank.load.translate",
                   {smt::BvUlt(smt::ZeroExt(k, 1), enc_.K(lemma.size(), kb + 1)),
                    TableLive(lemma, k, smt::Concat(w, z5)),
                    (a(w, l) ^ a(zw, l)) != (a(w, z5) ^ a(zw, z5))});
    if (!r.ok()) return r.status();
    if (r->result == smt::SatResult::kUnsat) {
      translated = true;
    } else {
      how = r->result == smt::SatResult::kSat
                ? "priced warp by warp (an address immediate carries into the thread bits)"
                : "priced warp by warp (the translation query was undecided)";
    }
  }
  if (translated) {
    for (int k : lemma) {
      const sim::bank::BankCost c = request(k, 0);
      const int pr = p_.ops[k].pred;
      const uint32_t wmask = pr < 0 ? 0 : (p_.setup[pr].mask >> 5) & (warps - 1);
      const int64_t active = warps >> std::popcount(wmask);
      wf += int64_t{c.wavefronts} * active;
      mn += int64_t{c.minimum} * active;
    }
    enumerate(rest, &wf, &mn);
    if (!rest.empty()) how += "; ops with other predicates priced warp by warp";
  } else {
    enumerate(ops, &wf, &mn);
  }
  if (wf == want_wf && wf - mn == want_cf) {
    ob.verdict = Verdict::kHolds;
    if (!translated || !rest.empty()) ob.detail = how;
  } else {
    int64_t ewf = 0, emn = 0;
    enumerate(ops, &ewf, &emn);
    if (ewf != wf || emn != mn) {
      return absl::InternalError("prove plan: bank totals disagree with the enumeration");
    }
    // The request that costs the most, as an example.
    int worst = ops.empty() ? -1 : ops[0];
    uint32_t worst_w = 0, worst_c = 0;
    for (int k : ops) {
      for (uint32_t w2 = 0; w2 < warps; ++w2) {
        const uint32_t c = request(k, w2).wavefronts;
        if (c > worst_c) worst = k, worst_w = w2, worst_c = c;
      }
    }
    PlanCounterexample c;
    c.warp = worst_w;
    c.text = absl::StrCat(store ? "stores" : "loads", ": the cost model predicts ", want_wf,
                          " wavefronts (", want_cf, " conflicts), the accesses cause ", wf,
                          " (", wf - mn, " conflicts)");
    if (worst >= 0) {
      absl::StrAppend(&c.text, "; e.g. op ", worst, " in warp ", worst_w, " takes ", worst_c,
                      " wavefronts");
    }
    Violate(ob, c);
  }
  proof_.obligations.push_back(ob);
  return absl::OkStatus();
}

absl::StatusOr<PlanProof> Prover::Run() {
  if (auto s = Validate(); !s.ok()) return s;
  bool smem = false, regops = false;
  for (const sim::plan::Op& op : p_.ops) {
    smem |= IsAccess(op);
    regops |= op.kind == OpKind::kSelp || op.kind == OpKind::kShflBfly ||
              op.kind == OpKind::kShflIdx || op.kind == OpKind::kPrmt;
  }
  if (smem && regops) {
    return absl::UnimplementedError(
        "plan: shared-memory accesses mixed with register ops are not encoded");
  }
  using Step = absl::Status (Prover::*)();
  std::vector<Step> steps;
  if (smem) {
    BuildStoreTables();
    if (stores_.empty() || loads_.empty()) {
      return absl::UnimplementedError("plan: shared memory is only stored or only loaded");
    }
    for (const StoreSlot& s : slots_) {
      const int id = p_.ops[s.op].in[s.word];
      if (enc_.input_index()[id] < 0 || enc_.def()[id] >= 0) {
        return absl::UnimplementedError(
            "plan: a store of a computed word; stores of source words are encoded");
      }
    }
    steps = {&Prover::VectorAligned, &Prover::StoreInjective, &Prover::StoreOnce,
             &Prover::StoreEvery, &Prover::DeliversSmem};
  } else {
    steps = {&Prover::Delivers};
  }
  for (Step step : steps) {
    if (Stop()) break;
    if (auto s = (this->*step)(); !s.ok()) return s;
  }
  for (bool store : {true, false}) {
    if (!Stop()) {
      if (auto s = Bank(store); !s.ok()) return s;
    }
  }
  proof_.verdict = Verdict::kHolds;
  std::vector<std::string> open;
  for (const ObligationResult& ob : proof_.obligations) {
    if (ob.verdict == Verdict::kViolated) proof_.verdict = Verdict::kViolated;
    if (ob.verdict == Verdict::kInconclusive) open.push_back(absl::StrCat(ob.name, ": ", ob.detail));
  }
  if (proof_.verdict != Verdict::kViolated && !open.empty()) {
    proof_.verdict = Verdict::kInconclusive;
    proof_.reason = absl::StrJoin(open, "; ");
  }
  return proof_;
}

}  // namespace

absl::StatusOr<PlanProof> ProvePlan(const sim::plan::ConversionProblem& problem,
                                    const sim::plan::ConversionPlan& plan,
                                    const PlanProveOptions& options) {
  // A plan in shared-memory rounds is proven as its one-round program (plan_prove.h).
  if (plan.stage.has_smem() &&
      (plan.stage.smem().rounds() > 1 || plan.stage.smem().components() > 1)) {
    sim::plan::ConversionPlan one = plan;
    sim::plan::UnchunkSharedRounds(one.program);
    sim::plan::SequenceSharedComponents(one.program);
    Prover prover(problem, one, options);
    return prover.Run();
  }
  Prover prover(problem, plan, options);
  return prover.Run();
}

PlanProofObligation::Verdict ToProto(Verdict v) {
  switch (v) {
    case Verdict::kHolds: return PlanProofObligation::holds;
    case Verdict::kViolated: return PlanProofObligation::violated;
    case Verdict::kInconclusive: return PlanProofObligation::inconclusive;
  }
  return PlanProofObligation::VERDICT_UNSET;
}

void ToProto(const ObligationResult& ob, PlanProofObligation* o) {
  o->set_name(ob.name);
  o->set_verdict(ToProto(ob.verdict));
  o->set_solver_ms(ob.solver_ms);
  o->set_queries(ob.queries);
  o->set_detail(ob.detail);
}

warpcheck::PlanProofReport ToProto(const PlanProof& proof,
                                   const sim::plan::ConversionProblem& problem,
                                   const sim::plan::ConversionPlan& plan) {
  warpcheck::PlanProofReport r;
  r.set_verdict(ToProto(proof.verdict));
  for (const ObligationResult& ob : proof.obligations) ToProto(ob, r.add_obligations());
  if (proof.counterexample) {
    const PlanCounterexample& c = *proof.counterexample;
    PlanProofCounterexample* x = r.mutable_counterexample();
    x->set_obligation(c.obligation);
    x->set_thread(c.thread);
    x->set_lane(c.lane);
    x->set_warp(c.warp);
    x->set_dst_word(c.dst_word);
    x->set_register_(c.reg);
    for (int64_t v : c.expected_coords) x->add_expected(v);
    for (int64_t v : c.actual_coords) x->add_actual(v);
    x->set_other_thread(c.other_thread);
    x->set_text(c.text);
  }
  r.set_queries(proof.queries);
  r.set_solver_ms(proof.solver_ms);
  r.set_reason(proof.reason);
  r.set_strategy(plan.noop ? "noop" : sim::plan::StrategyName(plan.strategy));
  r.set_src(problem.src_attr);
  r.set_dst(problem.dst_attr);
  for (int64_t s : problem.shape) r.add_shape(s);
  r.set_dtype(sim::plan::DTypeName(problem.dtype));
  r.set_num_warps(problem.num_warps);
  return r;
}

}  // namespace warpcheck::verify::plan
