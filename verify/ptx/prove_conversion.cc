#include "verify/ptx/prove_conversion.h"

#include <algorithm>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "sim/base/status_macros.h"
#include "verify/smt/smt.h"

namespace warpcheck::verify::ptx {

namespace sp = ::warpcheck::sim::ptx;

const char* ProofVerdictName(ProofVerdict v) {
  switch (v) {
    case ProofVerdict::kHolds:
      return "holds";
    case ProofVerdict::kViolated:
      return "violated";
    case ProofVerdict::kInconclusive:
      return "inconclusive";
  }
  return "?";
}

namespace {

const SymBuffer* FindBuffer(const SymRunResult& r, const std::string& name) {
  for (const SymBuffer& b : r.buffers) {
    if (b.name == name) return &b;
  }
  return nullptr;
}

// Flat element index -> "(r, c)" for a row-major shape, or the index.
std::string Coords(int64_t e, const std::vector<int64_t>& shape) {
  if (shape.empty()) return absl::StrCat(e);
  std::vector<int64_t> c(shape.size());
  for (size_t k = shape.size(); k-- > 0;) {
    c[k] = e % shape[k];
    e /= shape[k];
  }
  return absl::StrCat("(", absl::StrJoin(c, ", "), ")");
}

// The atoms of element e of a buffer (element_bytes * 8 of them).
std::vector<Atom> ElementAtoms(const SymBuffer& b, uint64_t e, uint32_t eb) {
  return std::vector<Atom>(b.bits.begin() + static_cast<ptrdiff_t>(e * eb * 8),
                           b.bits.begin() + static_cast<ptrdiff_t>((e + 1) * eb * 8));
}

// The instructions of the kernel in the order sym_exec numbers them.
std::vector<const sp::Instruction*> Code(const sp::Module& module, const std::string& name) {
  std::vector<const sp::Instruction*> code;
  for (const sp::Kernel& k : module.kernels) {
    if (!(name.empty() ? module.kernels.size() == 1 : k.name == name)) continue;
    for (const sp::Statement& s : k.body) {
      if (s.kind == sp::Statement::Kind::kInstruction) code.push_back(&s.insn);
    }
  }
  return code;
}

struct Comparison {
  std::string name;
  const SymBuffer* a = nullptr;
  const SymBuffer* b = nullptr;
  uint32_t eb = 1;
  std::vector<uint64_t> differing;  // elements whose atoms differ
  std::vector<smt::Term> diseq;     // a[e] != b[e] for those
};

// Which `a` element (all bits, in order) the atoms are, or -1.
int64_t WhichElement(SymbolicLaunch& launch, const std::vector<Atom>& atoms,
                     const SymBuffer& a) {
  if (!IsInput(atoms[0])) return -1;
  uint64_t bit = InputBit(atoms[0]);
  const InputRegion& r = launch.RegionOf(bit);
  if (r.name != a.name) return -1;
  uint64_t rel = bit - r.first_bit;
  uint64_t ebits = uint64_t{r.element_bytes} * 8;
  if (rel % ebits != 0 || atoms.size() != ebits) return -1;
  for (size_t i = 1; i < atoms.size(); ++i) {
    if (atoms[i] != atoms[0] + i) return -1;
  }
  return static_cast<int64_t>(rel / ebits);
}

void Describe(SymbolicLaunch& launch, const sp::Module& module,
              const warpcheck::LaunchSpec& spec, const Comparison& c, uint64_t e,
              const smt::Model& model, const ConversionProofOptions& options,
              ConversionCounterexample* cex) {
  cex->expectation = c.name;
  cex->buffer = c.b->name;
  cex->element = static_cast<int64_t>(e);
  cex->coords = Coords(cex->element, options.shape);
  std::vector<Atom> atoms = ElementAtoms(*c.b, e, c.eb);
  cex->holds_element = WhichElement(launch, atoms, *c.a);
  if (cex->holds_element >= 0) cex->holds_coords = Coords(cex->holds_element, options.shape);
  smt::Term ta = launch.ToTerm(FromAtoms(ElementAtoms(*c.a, e, c.eb)));
  smt::Term tb = launch.ToTerm(FromAtoms(atoms));
  cex->expected = model.Bits(ta).value_or(0);
  cex->actual = model.Bits(tb).value_or(0);
  const StoreSite& site = c.b->stores[e * c.eb];
  std::string what =
      cex->holds_element >= 0
          ? absl::StrCat("`", c.a->name, "` element ", cex->holds_coords)
          : absl::StrCat("0x", absl::Hex(cex->actual), " (not one element of `", c.a->name, "`)");
  if (site.thread < 0) {
    cex->text = absl::StrCat("no thread stores element ", cex->coords, " of `", c.b->name,
                             "`: it keeps its initial value, where ", c.name,
                             " wants `", c.a->name, "` element ", cex->coords);
    return;
  }
  std::vector<const sp::Instruction*> code = Code(module, spec.kernel());
  cex->thread = site.thread;
  cex->cta = site.cta;
  cex->line = site.line;
  if (site.pc < code.size()) {
    const sp::Instruction& in = *code[site.pc];
    cex->instruction = in.opcode_text;
    const sp::Operand& data = in.operands.size() > 1 ? in.operands[1] : in.operands[0];
    const sp::Operand& reg =
        data.kind == sp::OperandKind::kVector && site.elem < data.elems.size()
            ? data.elems[site.elem]
            : data;
    cex->reg = reg.kind == sp::OperandKind::kReg ? reg.name : "an immediate";
  }
  cex->text = absl::StrCat("thread ", site.thread, " register ", cex->reg, " (lane ",
                           site.thread % 32, ", warp ", site.thread / 32,
                           site.cta != 0 ? absl::StrCat(", CTA ", site.cta) : "", ", line ",
                           site.line, " `", cex->instruction, "`) stores ", what,
                           " into element ", cex->coords, " of `", c.b->name, "`, where ",
                           c.name, " wants `", c.a->name, "` element ", cex->coords);
}

// The model's values of every input element variable, as bytes of the buffers.
std::vector<CexByte> ModelInput(SymbolicLaunch& launch, const smt::Model& model) {
  std::vector<CexByte> out;
  for (const SymbolicLaunch::ElementVarRef& v : launch.ElementVars()) {
    const InputRegion& r = launch.inputs()[v.region];
    if (!r.is_buffer) continue;  // uninitialised shared memory: not an input we can set
    std::optional<uint64_t> bits = model.Bits(v.var);
    if (!bits) continue;
    for (uint32_t k = 0; k < r.element_bytes; ++k) {
      out.push_back(CexByte{r.name, v.element * r.element_bytes + k,
                            static_cast<uint8_t>(*bits >> (8 * k))});
    }
  }
  return out;
}

}  // namespace

absl::StatusOr<ConversionProof> ProveLaunch(const warpcheck::LaunchSpec& spec,
                                            const sp::Module& module,
                                            const ConversionProofOptions& options) {
  if (spec.expect_size() == 0) {
    return absl::InvalidArgumentError(
        "launch spec: no `expect { buffers_equal { a: ... b: ... } }`: nothing to prove");
  }
  smt::Context ctx;
  ASSIGN_OR_RETURN(std::unique_ptr<SymbolicLaunch> launch,
                   SymbolicLaunch::Create(spec, module, &ctx, options.exec));
  SymRunResult run = launch->Run();
  ConversionProof proof;
  proof.thread_steps = run.thread_steps;
  proof.symbolic_ops = run.symbolic_ops;
  proof.threads = run.threads;
  proof.assumptions = {
      "the run is race-free (the simulator's race detector checks this: `warpcheck sim "
      "run`)",
      "the launch parameters are the spec's (loops run the spec's trip count, unrolled)"};
  proof.line = run.line;
  proof.instruction = run.insn;
  if (run.status == RunStatus::kInconclusive) {
    proof.verdict = ProofVerdict::kInconclusive;
    proof.reason = run.reason;
    return proof;
  }
  if (run.status == RunStatus::kFault) {
    // Addresses and control do not depend on the data, so the fault happens for every
    // input: the spec's own input is a witness.
    proof.verdict = ProofVerdict::kViolated;
    proof.reason = absl::StrCat("the kernel faults for every input: ", run.reason);
    return proof;
  }
  std::vector<Comparison> comps;
  for (const warpcheck::Expectation& e : spec.expect()) {
    if (!e.has_buffers_equal()) continue;
    Comparison c;
    c.name = absl::StrCat("buffers_equal(", e.buffers_equal().a(), ", ", e.buffers_equal().b(), ")");
    c.a = FindBuffer(run, e.buffers_equal().a());
    c.b = FindBuffer(run, e.buffers_equal().b());
    if (c.a == nullptr || c.b == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("launch spec: ", c.name, " names a buffer that is not a parameter"));
    }
    if (c.a->bits.size() != c.b->bits.size()) {
      proof.verdict = ProofVerdict::kViolated;
      proof.reason = absl::StrCat(c.name, ": the buffers differ in size");
      return proof;
    }
    c.eb = std::min<uint32_t>(c.a->element_bytes, 8);
    if (c.a->bits.size() % (size_t{c.eb} * 8) != 0) c.eb = 1;
    uint64_t n = c.a->bits.size() / (size_t{c.eb} * 8);
    proof.elements += n;
    for (uint64_t k = 0; k < n; ++k) {
      std::vector<Atom> x = ElementAtoms(*c.a, k, c.eb), y = ElementAtoms(*c.b, k, c.eb);
      if (x == y) {
        ++proof.elements_syntactic;
        continue;
      }
      c.differing.push_back(k);
      c.diseq.push_back(launch->ToTerm(FromAtoms(x)) != launch->ToTerm(FromAtoms(y)));
    }
    comps.push_back(std::move(c));
  }
  std::vector<smt::Term> all;
  for (const Comparison& c : comps) all.insert(all.end(), c.diseq.begin(), c.diseq.end());
  smt::SolverOptions so;
  so.rlimit = options.rlimit;
  smt::SolverResult r =
      ctx.Check("conversion.some_element_differs", {smt::Or(ctx, all)}, so);
  proof.queries = 1;
  proof.solver_ms = r.ms;
  switch (r.result) {
    case smt::SatResult::kUnsat:
      proof.verdict = ProofVerdict::kHolds;
      return proof;
    case smt::SatResult::kUnknown:
      proof.verdict = ProofVerdict::kInconclusive;
      proof.reason = absl::StrCat("the solver gave up: ", r.reason_unknown);
      return proof;
    case smt::SatResult::kError:
      return r.error;
    case smt::SatResult::kSat:
      break;
  }
  proof.verdict = ProofVerdict::kViolated;
  for (const Comparison& c : comps) {
    for (size_t i = 0; i < c.differing.size(); ++i) {
      if (r.model.Bool(c.diseq[i]).value_or(false)) {
        Describe(*launch, module, spec, c, c.differing[i], r.model, options,
                 &proof.counterexample);
        proof.reason = proof.counterexample.text;
        proof.counterexample.input = ModelInput(*launch, r.model);
        return proof;
      }
    }
  }
  return absl::InternalError("conversion proof: the model satisfies no disequality");
}

absl::StatusOr<std::vector<std::vector<uint8_t>>> EvaluateOnInputs(
    const warpcheck::LaunchSpec& spec, const sp::Module& module,
    const std::vector<std::vector<uint8_t>>& inputs, const SymExecOptions& options) {
  smt::Context ctx;
  ASSIGN_OR_RETURN(std::unique_ptr<SymbolicLaunch> launch,
                   SymbolicLaunch::Create(spec, module, &ctx, options));
  SymRunResult run = launch->Run();
  if (run.status != RunStatus::kOk) {
    return absl::FailedPreconditionError(absl::StrCat("the symbolic run ended: ", run.reason));
  }
  if (inputs.size() != run.buffers.size()) {
    return absl::InvalidArgumentError("EvaluateOnInputs: one input per buffer param");
  }
  std::vector<std::vector<uint8_t>> out;
  for (const SymBuffer& b : run.buffers) {
    std::vector<uint8_t> bytes(b.bits.size() / 8, 0);
    for (size_t k = 0; k < b.bits.size(); ++k) {
      Atom a = b.bits[k];
      int bit;
      if (IsConst(a)) {
        bit = static_cast<int>(a);
      } else if (IsInput(a)) {
        uint64_t ib = InputBit(a);
        const InputRegion& r = launch->RegionOf(ib);
        if (!r.is_buffer) {
          return absl::FailedPreconditionError(
              absl::StrCat("`", b.name, "` holds uninitialised shared memory"));
        }
        uint64_t rel = ib - r.first_bit;
        size_t which = 0;
        while (which < run.buffers.size() && run.buffers[which].name != r.name) ++which;
        bit = (inputs[which][rel / 8] >> (rel % 8)) & 1;
      } else {
        return absl::FailedPreconditionError(
            absl::StrCat("`", b.name, "` holds the result of a symbolic operation"));
      }
      bytes[k / 8] |= static_cast<uint8_t>(bit << (k % 8));
    }
    out.push_back(std::move(bytes));
  }
  return out;
}

}  // namespace warpcheck::verify::ptx
