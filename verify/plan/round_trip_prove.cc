#include "verify/plan/round_trip_prove.h"

#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "sim/plan/program.h"

namespace warpcheck::verify::plan {

using sim::plan::ConversionPlan;
using sim::plan::ConversionProblem;
using sim::plan::Op;
using sim::plan::OpKind;

namespace {

ObligationResult Named(std::string name) {
  ObligationResult ob;
  ob.name = std::move(name);
  return ob;
}

void Holds(ObligationResult& ob, std::string detail) {
  ob.verdict = Verdict::kHolds;
  ob.detail = std::move(detail);
}

void Fails(ObligationResult& ob, Verdict v, std::string detail) {
  ob.verdict = v;
  ob.detail = std::move(detail);
}

ObligationResult Chain(const ConversionPlan& fwd, const ConversionPlan& bwd) {
  ObligationResult ob = Named("roundtrip.chain");
  if (!(bwd.src_view == fwd.dst_view) || !(bwd.dst_view == fwd.src_view)) {
    Fails(ob, Verdict::kViolated,
          "the backward plan's word views are not the forward plan's, swapped: its "
          "inputs are not the forward outputs word for word");
  } else if (bwd.program.inputs.size() != fwd.program.outputs.size()) {
    Fails(ob, Verdict::kViolated,
          absl::StrCat("the backward plan reads ", bwd.program.inputs.size(),
                       " words, the forward plan writes ", fwd.program.outputs.size()));
  } else {
    Holds(ob, absl::StrCat("the backward plan reads the forward plan's ",
                           fwd.dst_view.words(), " destination words and writes its ",
                           fwd.src_view.words(), " source words"));
  }
  return ob;
}

// One shared access or barrier of the loop body: which direction, which buffer.
struct BodyOp {
  int dir = 0;    // 0 forward, 1 backward
  int index = 0;  // op index in its direction's program
  OpKind kind{};
  int buffer = -1;
  // SharedComponentKeys: accesses of one direction with different keys share no byte.
  std::optional<uint32_t> key;
  bool store = false, load = false, cta_bar = false, warp_bar = false;
};

std::vector<BodyOp> BodyOps(const ConversionPlan& fwd, const ConversionPlan& bwd) {
  std::vector<BodyOp> out;
  for (int dir = 0; dir < 2; ++dir) {
    const sim::plan::Program& p = dir == 0 ? fwd.program : bwd.program;
    std::vector<uint32_t> keys;
    const bool keyed = sim::plan::SharedComponentKeys(p, &keys);
    for (size_t k = 0; k < p.ops.size(); ++k) {
      const Op& op = p.ops[k];
      BodyOp b;
      b.dir = dir;
      b.index = static_cast<int>(k);
      b.kind = op.kind;
      b.store = op.kind == OpKind::kStShared || op.kind == OpKind::kStMatrix;
      b.load = op.kind == OpKind::kLdShared || op.kind == OpKind::kLdMatrix;
      b.cta_bar = op.kind == OpKind::kBarSync;
      b.warp_bar = op.kind == OpKind::kBarWarp;
      if ((b.store || b.load) && op.addr >= 0 &&
          op.addr < static_cast<int>(p.setup.size())) {
        b.buffer = p.setup[op.addr].buffer;
        if (keyed) b.key = keys[k];
      }
      if (b.store || b.load || b.cta_bar || b.warp_bar) out.push_back(b);
    }
  }
  return out;
}

std::string BodyOpText(const BodyOp& b) {
  return absl::StrCat(b.dir == 0 ? "forward" : "backward", " op ", b.index, " (",
                      b.store ? "store" : "load", ", buffer ", b.buffer, ")");
}

// Every conflicting pair of accesses to one buffer, in one iteration or across the back
// edge, has a barrier that orders it between them (round_trip_prove.h).
ObligationResult Buffers(const ConversionPlan& fwd, const ConversionPlan& bwd,
                         const PlanProof& fproof, const PlanProof& bproof) {
  ObligationResult ob = Named("roundtrip.buffers");
  const std::vector<BodyOp> ops = BodyOps(fwd, bwd);
  const int n = static_cast<int>(ops.size());
  // A buffer where bar.warp.sync suffices: one direction uses it, and that direction's
  // barriers are all warp barriers that its proof showed enough (barrier.scope).
  auto warp_local = [&](int buffer) {
    int dir = -1;
    for (const BodyOp& b : ops) {
      if ((b.store || b.load) && b.buffer == buffer) {
        if (dir >= 0 && dir != b.dir) return false;
        dir = b.dir;
      }
    }
    if (dir < 0) return false;
    for (const BodyOp& b : ops)
      if (b.dir == dir && b.cta_bar) return false;
    return (dir == 0 ? fproof : bproof).verdict == Verdict::kHolds;
  };
  auto ordered = [&](int from, int to, int buffer) {  // barrier strictly between, cyclic
    const bool warp_ok = warp_local(buffer);
    for (int k = (from + 1) % n; k != to; k = (k + 1) % n) {
      if (ops[k].cta_bar || (ops[k].warp_bar && warp_ok)) return true;
    }
    return false;
  };
  int pairs = 0, disjoint = 0;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      const BodyOp &a = ops[i], &b = ops[j];
      if (!(a.store || a.load) || !(b.store || b.load) || a.buffer != b.buffer) continue;
      if (!a.store && !b.store) continue;                  // two loads
      if (a.store && b.store && a.dir == b.dir) continue;  // one writer per byte
      if (i == j) continue;  // an op is a store or a load, never both
      // Components of one direction (InterleaveSharedComponents) touch disjoint bytes.
      if (a.dir == b.dir && a.key && b.key && *a.key != *b.key) {
        ++disjoint;
        continue;
      }
      ++pairs;
      if (ordered(i, j, a.buffer)) continue;
      Fails(
          ob, Verdict::kViolated,
          absl::StrCat(BodyOpText(a),
                       j > i ? " and, later in the same iteration, "
                             : " and, in the next iteration, ",
                       BodyOpText(b), " have no barrier between them that orders them"));
      return ob;
    }
  }
  Holds(ob, absl::StrCat(pairs, " conflicting access pairs, each ordered by a barrier",
                         disjoint > 0 ? absl::StrCat("; ", disjoint,
                                                     " pairs in different components of one "
                                                     "direction (disjoint bytes)")
                                      : std::string()));
  return ob;
}

// Compose(forward, backward) is the identity on elements: by the two delivers proofs,
// and, where the simplified body has no shared memory, by proving it directly.
absl::StatusOr<ObligationResult> Identity(const ConversionProblem& problem,
                                          const ConversionPlan& fwd,
                                          const ConversionPlan& bwd,
                                          const RoundTripProof& rt,
                                          const PlanProveOptions& options) {
  ObligationResult ob = Named("roundtrip.identity");
  auto delivers = [](const PlanProof& p) {
    for (const ObligationResult& o : p.obligations) {
      if (o.name == "delivers") return o.verdict;
    }
    return Verdict::kInconclusive;
  };
  const Verdict f = delivers(rt.forward), b = delivers(rt.backward);
  if (f != Verdict::kHolds || b != Verdict::kHolds ||
      rt.composition[0].verdict != Verdict::kHolds) {
    const bool violated = f == Verdict::kViolated || b == Verdict::kViolated ||
                          rt.composition[0].verdict == Verdict::kViolated;
    Fails(ob, violated ? Verdict::kViolated : Verdict::kInconclusive,
          "follows only from both directions' delivers and roundtrip.chain, which do not "
          "all hold");
    return ob;
  }
  sim::plan::Program body = sim::plan::Compose(fwd.program, bwd.program);
  sim::plan::Simplify(body);
  bool smem = false;
  for (const Op& op : body.ops) {
    smem |= op.kind != OpKind::kSelp && op.kind != OpKind::kShflBfly &&
            op.kind != OpKind::kShflIdx && op.kind != OpKind::kPrmt;
  }
  if (smem) {
    Holds(ob,
          "by forward's and backward's delivers (tags compose); the simplified body "
          "uses shared memory and is not proven as printed");
    return ob;
  }
  // The body as a src -> src plan of its own.
  ConversionProblem id = problem;
  id.dst = problem.src;
  id.dst_layout = problem.src_layout;
  id.dst_attr = problem.src_attr;
  ConversionPlan plan = fwd;
  plan.dst_view = fwd.src_view;
  plan.program = std::move(body);
  plan.cost = sim::plan::Cost{};
  auto proof = ProvePlan(id, plan, options);
  if (!proof.ok()) return proof.status();
  if (proof->verdict == Verdict::kHolds) {
    Holds(ob, absl::StrCat("by both delivers, and the simplified body (",
                           plan.program.ops.size(),
                           " register ops) proven the identity directly"));
  } else {
    Fails(ob, proof->verdict,
          absl::StrCat("the simplified body: ", proof->counterexample
                                                    ? proof->counterexample->text
                                                    : proof->reason));
  }
  ob.queries = static_cast<int>(proof->queries);
  ob.solver_ms = proof->solver_ms;
  return ob;
}

}  // namespace

absl::StatusOr<RoundTripProof> ProveRoundTrip(const ConversionProblem& problem,
                                              const ConversionPlan& forward,
                                              const ConversionPlan& backward,
                                              const PlanProveOptions& options) {
  RoundTripProof rt;
  auto f = ProvePlan(problem, forward, options);
  if (!f.ok())
    return absl::Status(f.status().code(),
                        absl::StrCat("forward: ", f.status().message()));
  rt.forward = *std::move(f);
  const ConversionProblem back = problem.Reversed();
  auto b = ProvePlan(back, backward, options);
  if (!b.ok())
    return absl::Status(b.status().code(),
                        absl::StrCat("backward: ", b.status().message()));
  rt.backward = *std::move(b);
  rt.composition.push_back(Chain(forward, backward));
  auto id = Identity(problem, forward, backward, rt, options);
  if (!id.ok())
    return absl::Status(id.status().code(),
                        absl::StrCat("round-trip body: ", id.status().message()));
  rt.composition.push_back(*std::move(id));
  rt.composition.push_back(Buffers(forward, backward, rt.forward, rt.backward));
  std::vector<std::pair<std::string, Verdict>> parts = {
      {"forward", rt.forward.verdict}, {"backward", rt.backward.verdict}};
  for (const ObligationResult& ob : rt.composition)
    parts.emplace_back(ob.name, ob.verdict);
  rt.verdict = Verdict::kHolds;
  std::vector<std::string> why;
  for (const auto& [name, v] : parts) {
    if (v == Verdict::kViolated) rt.verdict = Verdict::kViolated;
    if (v == Verdict::kInconclusive && rt.verdict == Verdict::kHolds) {
      rt.verdict = Verdict::kInconclusive;
    }
    if (v != Verdict::kHolds) why.push_back(absl::StrCat(name, ": ", VerdictName(v)));
  }
  rt.reason = absl::StrJoin(why, "; ");
  return rt;
}

warpcheck::PlanRoundTripReport ToProto(const RoundTripProof& proof,
                                       const ConversionProblem& problem,
                                       const ConversionPlan& forward,
                                       const ConversionPlan& backward) {
  warpcheck::PlanRoundTripReport r;
  r.set_verdict(ToProto(proof.verdict));
  *r.mutable_forward() = ToProto(proof.forward, problem, forward);
  *r.mutable_backward() = ToProto(proof.backward, problem.Reversed(), backward);
  for (const ObligationResult& ob : proof.composition) ToProto(ob, r.add_composition());
  r.set_reason(proof.reason);
  return r;
}

}  // namespace warpcheck::verify::plan
