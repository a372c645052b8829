// The conversion prover (verify/ptx): verdicts on small hand-written kernels whose
// answer is known, the counterexample's story and its input, and — over the whole
// corpus of Triton kernels — agreement with the simulator: every kernel holds, and the
// symbolic run evaluated on the spec's own input gives the simulator's final buffers
// byte for byte (the two executions cannot drift apart unnoticed).
#include <filesystem>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "sim/launch/buffer_fill.h"
#include "sim/launch/launch_spec.h"
#include "sim/machine/launch.h"
#include "sim/ptx/parser.h"
#include "verify/ptx/prove_conversion.h"

namespace warpcheck::verify::ptx {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// A one-warp kernel: thread t reads `in` at byte offset t*W + SRC_OFFSET into %r2, runs
// BODY (which must leave the value to store in %r3), stores it at t*W of `out`.
std::string Kernel(const std::string& body, int width_bytes = 4,
                   const std::string& src_offset = "0", const std::string& src_xor = "0") {
  std::string ld = width_bytes == 16 ? "ld.global.v4.b32 {%r2, %r5, %r6, %r7}, [%rd4+SRC];"
                                     : "ld.global.b32 %r2, [%rd4+SRC];";
  std::string st = width_bytes == 16 ? "st.global.v4.b32 [%rd5], {%r3, %r5, %r6, %r7};"
                                     : "st.global.b32 [%rd5], %r3;";
  std::string text = absl::StrCat(R"(.version 8.7
.target sm_90a
.address_size 64
.shared .align 16 .b8 smem[1024];
.visible .entry kernel(.param .u64 in_ptr, .param .u64 out_ptr)
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<16>;
  ld.param.u64 %rd1, [in_ptr];
  ld.param.u64 %rd2, [out_ptr];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, WIDTH;
  xor.b64 %rd6, %rd3, XOR;
  add.s64 %rd4, %rd1, %rd6;
  add.s64 %rd5, %rd2, %rd3;
  )", ld, "\n", body, "\n  ", st, R"(
  ret;
}
)");
  return absl::StrReplaceAll(text, {{"WIDTH", absl::StrCat(width_bytes)}, {"SRC", src_offset}, {"XOR", src_xor}});
}

LaunchSpec Spec(uint64_t bytes, uint32_t element_bytes, BufferParam::Fill fill = BufferParam::IOTA) {
  LaunchSpec s;
  s.set_ptx_file("<test>");
  s.mutable_grid()->set_x(1);
  s.mutable_block()->set_x(32);
  BufferParam* in = s.add_param()->mutable_buffer();
  in->set_name("in");
  in->set_size_bytes(bytes);
  in->set_fill(fill);
  in->set_element_bytes(element_bytes);
  in->set_seed(7);
  BufferParam* out = s.add_param()->mutable_buffer();
  out->set_name("out");
  out->set_size_bytes(bytes);
  out->set_fill(BufferParam::POISON);
  out->set_element_bytes(element_bytes);
  auto* eq = s.add_expect()->mutable_buffers_equal();
  eq->set_a("in");
  eq->set_b("out");
  return s;
}

ConversionProof Prove(const std::string& ptx, const LaunchSpec& spec,
                      ConversionProofOptions options = {}) {
  auto module = sim::ptx::ParseModule(ptx, "test.ptx");
  EXPECT_TRUE(module.ok()) << module.status();
  auto proof = ProveLaunch(spec, *module, options);
  EXPECT_TRUE(proof.ok()) << proof.status();
  return proof.ok() ? *proof : ConversionProof{};
}

bool SimulatorOk(const std::string& ptx, const LaunchSpec& spec) {
  auto module = sim::ptx::ParseModule(ptx, "test.ptx");
  auto run = sim::machine::RunLaunchSpecOnModule(spec, *module, ".", {});
  EXPECT_TRUE(run.ok()) << run.status();
  return run.ok() && run->report.ok();
}

TEST(ProveConversion, CopyHolds) {
  ConversionProof p = Prove(Kernel("  mov.b32 %r3, %r2;"), Spec(128, 4));
  EXPECT_EQ(p.verdict, ProofVerdict::kHolds) << p.reason;
  EXPECT_EQ(p.elements, 32u);
  EXPECT_EQ(p.elements_syntactic, 32u);
  EXPECT_EQ(p.threads, 32u);
}

// Arithmetic on the data that cancels is equal for every input only by reasoning: the
// solver, not the atoms, proves it.
TEST(ProveConversion, CancellingArithmeticIsProvenByTheSolver) {
  ConversionProof p = Prove(Kernel("  add.s32 %r8, %r2, 5;\n  xor.b32 %r9, %r8, 12;\n"
                                   "  xor.b32 %r10, %r9, 12;\n  sub.s32 %r3, %r10, 5;"),
                            Spec(128, 4));
  EXPECT_EQ(p.verdict, ProofVerdict::kHolds) << p.reason;
  EXPECT_EQ(p.elements_syntactic, 0u);
  EXPECT_EQ(p.queries, 1);
  EXPECT_GT(p.symbolic_ops, 0u);
}

TEST(ProveConversion, WrongArithmeticIsViolatedWithTheInputThatShowsIt) {
  // x + 1 - 1 with the second constant wrong only when bit 31 of x is set.
  ConversionProof p = Prove(Kernel("  shr.u32 %r8, %r2, 31;\n  add.s32 %r3, %r2, %r8;"),
                            Spec(128, 4));
  ASSERT_EQ(p.verdict, ProofVerdict::kViolated);
  const ConversionCounterexample& c = p.counterexample;
  EXPECT_NE(c.expected, c.actual);
  EXPECT_GE(c.expected, 0x80000000u);  // only such inputs break it
  EXPECT_EQ(c.reg, "%r3");
  EXPECT_EQ(c.holds_element, -1);
  EXPECT_FALSE(c.input.empty());
}

// Thread 5 stores its neighbour's element: named in the user's terms, and the model's
// input makes the two elements differ.
TEST(ProveConversion, MisroutedElementIsNamed) {
  std::string body =
      "  shfl.sync.bfly.b32 %r8, %r2, 1, 31, -1;\n"
      "  setp.eq.u32 %p1, %r1, 5;\n"
      "  selp.b32 %r3, %r8, %r2, %p1;";
  ConversionProofOptions o;
  o.shape = {4, 8};
  ConversionProof p = Prove(Kernel(body), Spec(128, 4), o);
  ASSERT_EQ(p.verdict, ProofVerdict::kViolated) << p.reason;
  const ConversionCounterexample& c = p.counterexample;
  EXPECT_EQ(c.element, 5);
  EXPECT_EQ(c.coords, "(0, 5)");
  EXPECT_EQ(c.thread, 5);
  EXPECT_EQ(c.holds_element, 4);
  EXPECT_EQ(c.holds_coords, "(0, 4)");
  EXPECT_EQ(c.reg, "%r3");
  EXPECT_THAT(c.text, HasSubstr("thread 5 register %r3 (lane 5, warp 0"));
  EXPECT_THAT(c.text, HasSubstr("stores `in` element (0, 4) into element (0, 5) of `out`"));
  EXPECT_NE(c.expected, c.actual);
}

// The point of proving: with 8-bit IOTA tags, element k and k + 256 carry the same tag,
// so a kernel that copies the wrong 16 bytes passes the simulator on IOTA — and is
// refuted by the prover.
TEST(ProveConversion, CatchesWhatTheDistinctTagInputMisses) {
  // Thread t copies the 16 bytes at (16 t) ^ 256: element k of `out` gets element
  // k ^ 256 of `in`, which carries the same 8-bit IOTA tag.
  std::string ptx = Kernel("  mov.b32 %r3, %r2;", 16, "0", "256");
  LaunchSpec spec = Spec(512, 1);
  EXPECT_TRUE(SimulatorOk(ptx, spec)) << "IOTA 8-bit tags repeat every 256 elements";
  ConversionProof p = Prove(ptx, spec);
  ASSERT_EQ(p.verdict, ProofVerdict::kViolated);
  EXPECT_EQ(p.counterexample.holds_element, p.counterexample.element ^ 256);
  EXPECT_NE(p.counterexample.expected, p.counterexample.actual);
}

// Lane-parity selects (popc of tid bits, as our shuffle planner emits them) are concrete;
// brev of data is a bit move: reversing twice is the identity by construction.
TEST(ProveConversion, PopcAndBrev) {
  std::string body =
      "  and.b32 %r8, %r1, 6;\n"
      "  popc.b32 %r9, %r8;\n"
      "  and.b32 %r10, %r9, 1;\n"
      "  setp.eq.u32 %p1, %r10, 1;\n"
      "  brev.b32 %r11, %r2;\n"
      "  brev.b32 %r12, %r11;\n"
      "  selp.b32 %r3, %r12, %r2, %p1;";
  ConversionProof p = Prove(Kernel(body), Spec(128, 4));
  EXPECT_EQ(p.verdict, ProofVerdict::kHolds) << p.reason;
  EXPECT_EQ(p.elements_syntactic, 32u);
  std::string wrong = absl::StrReplaceAll(body, {{"selp.b32 %r3, %r12", "selp.b32 %r3, %r11"}});
  ConversionProof q = Prove(Kernel(wrong), Spec(128, 4));
  ASSERT_EQ(q.verdict, ProofVerdict::kViolated);
  // Only lanes with one of tid bits 1, 2 set store the reversed word.
  int lane = q.counterexample.thread;
  EXPECT_EQ(__builtin_popcount(lane & 6) & 1, 1);
}

TEST(ProveConversion, DataDependentBranchIsInconclusiveAtItsLine) {
  std::string body =
      "  setp.eq.u32 %p1, %r2, 7;\n"
      "  @%p1 bra DONE;\n"
      "DONE:\n"
      "  mov.b32 %r3, %r2;";
  ConversionProof p = Prove(Kernel(body), Spec(128, 4));
  EXPECT_EQ(p.verdict, ProofVerdict::kInconclusive);
  EXPECT_THAT(p.reason, HasSubstr("depends on the data"));
  EXPECT_EQ(p.instruction, "bra");
  EXPECT_GT(p.line, 0u);
}

TEST(ProveConversion, StepBoundIsInconclusive) {
  ConversionProofOptions o;
  o.exec.max_steps_per_thread = 3;
  ConversionProof p = Prove(Kernel("  mov.b32 %r3, %r2;"), Spec(128, 4), o);
  EXPECT_EQ(p.verdict, ProofVerdict::kInconclusive);
  EXPECT_THAT(p.reason, HasSubstr("bound hit"));
}

TEST(ProveConversion, OutOfBoundsIsAFaultForEveryInput) {
  ConversionProof p = Prove(Kernel("  mov.b32 %r3, %r2;", 4, "4"), Spec(128, 4));
  EXPECT_EQ(p.verdict, ProofVerdict::kViolated);
  EXPECT_THAT(p.reason, HasSubstr("out_of_bounds"));
}

TEST(ProveConversion, UninitialisedSharedMemoryIsCaught) {
  std::string body =
      "  mov.u32 %r8, smem;\n"
      "  shl.b32 %r9, %r1, 2;\n"
      "  add.s32 %r10, %r8, %r9;\n"
      "  st.shared.b32 [%r10], %r2;\n"
      "  bar.sync 0;\n"
      "  ld.shared.b32 %r3, [%r10+128];";  // nobody stored there
  ConversionProof p = Prove(Kernel(body), Spec(128, 4));
  ASSERT_EQ(p.verdict, ProofVerdict::kViolated);
  EXPECT_EQ(p.counterexample.holds_element, -1);
}

TEST(ProveConversion, ThroughSharedMemoryWithABarrierHolds) {
  std::string body =
      "  mov.u32 %r8, smem;\n"
      "  shl.b32 %r9, %r1, 2;\n"
      "  add.s32 %r10, %r8, %r9;\n"
      "  xor.b32 %r11, %r10, 4;\n"       // store at the neighbour's slot
      "  st.shared.b32 [%r11], %r2;\n"
      "  bar.sync 0;\n"
      "  xor.b32 %r12, %r10, 4;\n"
      "  ld.shared.b32 %r3, [%r12];";
  EXPECT_EQ(Prove(Kernel(body), Spec(128, 4)).verdict, ProofVerdict::kHolds);
}

TEST(ProveConversion, MissingBarrierIsARace) {
  std::string body =
      "  mov.u32 %r8, smem;\n"
      "  shl.b32 %r9, %r1, 2;\n"
      "  add.s32 %r10, %r8, %r9;\n"
      "  xor.b32 %r11, %r10, 4;\n"
      "  st.shared.b32 [%r11], %r2;\n"
      "  ld.shared.b32 %r3, [%r11];";  // reads back its own store: fine...
  EXPECT_EQ(Prove(Kernel(body), Spec(128, 4)).verdict, ProofVerdict::kHolds);
  std::string racy = absl::StrReplaceAll(body, {{"ld.shared.b32 %r3, [%r11];",
                                                 "ld.shared.b32 %r3, [%r10];"}});
  ConversionProof p = Prove(Kernel(racy), Spec(128, 4));  // ...the neighbour's is a race
  EXPECT_EQ(p.verdict, ProofVerdict::kViolated);
  EXPECT_THAT(p.reason, HasSubstr("shared_race"));
  EXPECT_THAT(p.reason, HasSubstr("no barrier orders the two"));
}

TEST(ProveConversion, NoExpectationIsAnInputError) {
  LaunchSpec spec = Spec(128, 4);
  spec.clear_expect();
  auto module = sim::ptx::ParseModule(Kernel("  mov.b32 %r3, %r2;"), "test.ptx");
  auto proof = ProveLaunch(spec, *module, {});
  EXPECT_EQ(proof.status().code(), absl::StatusCode::kInvalidArgument);
}

// ---- the corpus ----------------------------------------------------------------------

std::vector<std::string> CorpusSpecs() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(fs::path(WARPCHECK_SOURCE_DIR) / "corpus/triton")) {
    if (e.path().extension() == ".textproto") out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Every Triton kernel of the corpus holds for every input, and the symbolic run on the
// spec's own input computes what the simulator computes, every buffer byte for byte.
TEST(ProveConversion, EveryCorpusKernelHoldsAndAgreesWithTheSimulator) {
  std::vector<std::string> specs = CorpusSpecs();
  ASSERT_GT(specs.size(), 300u);
  for (const std::string& path : specs) {
    SCOPED_TRACE(path);
    auto spec = sim::launch::LoadLaunchSpec(path);
    ASSERT_TRUE(spec.ok()) << spec.status();
    std::string dir = sim::launch::SpecDir(path);
    auto module = sim::ptx::ParseModuleFile((fs::path(dir) / spec->ptx_file()).string());
    ASSERT_TRUE(module.ok()) << module.status();
    auto proof = ProveLaunch(*spec, *module, {});
    ASSERT_TRUE(proof.ok()) << proof.status();
    EXPECT_EQ(proof->verdict, ProofVerdict::kHolds) << proof->reason;
    std::vector<std::vector<uint8_t>> inputs;
    for (const auto& p : spec->param()) {
      if (!p.has_buffer()) continue;
      auto bytes = sim::launch::FillBuffer(p.buffer(), dir);
      ASSERT_TRUE(bytes.ok());
      inputs.push_back(*bytes);
    }
    auto symbolic = EvaluateOnInputs(*spec, *module, inputs, {});
    ASSERT_TRUE(symbolic.ok()) << symbolic.status();
    auto sim = sim::machine::RunLaunchSpecOnModule(*spec, *module, dir, {});
    ASSERT_TRUE(sim.ok()) << sim.status();
    ASSERT_EQ(sim->buffers.size(), symbolic->size());
    for (size_t b = 0; b < symbolic->size(); ++b) {
      EXPECT_TRUE(sim->buffers[b].bytes == (*symbolic)[b]) << "buffer " << sim->buffers[b].name;
    }
  }
}

}  // namespace
}  // namespace warpcheck::verify::ptx
