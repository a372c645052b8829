// Layout algebra and encoding conversion speed.
//
//   build/tests/bench/layout_benchmark --benchmark_out=layout.json --benchmark_out_format=json
//
// The 128x128 cases are the sizes convert_layout planning works on: an mma v2/v3
// accumulator and its dot operands with 4 and 8 warps. BM_Identity* is the in-run
// baseline: the same operation on an identity layout of the same size, so figures can be
// read as ratios against it.
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "sim/layout/encoding.h"
#include "sim/layout/linear_layout.h"

namespace warpcheck::sim::layout {
namespace {

const SourceLocation kWhere{"bench", 1, 1};

EncodingPtr MustParse(const std::string& text) {
  auto e = ParseEncoding(text, kWhere);
  if (!e.ok()) std::abort();
  return *e;
}

LinearLayout MustConvert(const std::string& text, std::vector<int64_t> shape) {
  auto l = ToLinearLayout(*MustParse(text), shape);
  if (!l.ok()) std::abort();
  return *l;
}

std::string Mma(int version, int warps) {
  std::string w = version == 2 ? (warps == 4 ? "[2, 2]" : "[4, 2]") : (warps == 4 ? "[4, 1]" : "[8, 1]");
  std::string instr = version == 2 ? "[16, 8]" : "[16, 128, 16]";
  return "#ttg.nvidia_mma<{versionMajor = " + std::to_string(version) +
         ", versionMinor = 0, warpsPerCTA = " + w + ", instrShape = " + instr + "}>";
}

std::string Blocked(int warps) {
  return std::string("#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], "
                     "warpsPerCTA = [") +
         std::to_string(warps) + ", 1], order = [1, 0]}>";
}

std::string DotA(int warps) {
  return "#ttg.dot_op<{opIdx = 0, parent = " + Mma(2, warps) + ", kWidth = 2}>";
}

void BM_EncodingToLayout(benchmark::State& state, std::string attr) {
  EncodingPtr e = MustParse(attr);
  std::vector<int64_t> shape = {128, 128};
  for (auto _ : state) {
    auto l = ToLinearLayout(*e, shape);
    benchmark::DoNotOptimize(l);
  }
}
BENCHMARK_CAPTURE(BM_EncodingToLayout, mma_v2_4warps, Mma(2, 4));
BENCHMARK_CAPTURE(BM_EncodingToLayout, mma_v2_8warps, Mma(2, 8));
BENCHMARK_CAPTURE(BM_EncodingToLayout, mma_v3_4warps, Mma(3, 4));
BENCHMARK_CAPTURE(BM_EncodingToLayout, mma_v3_8warps, Mma(3, 8));
BENCHMARK_CAPTURE(BM_EncodingToLayout, dot_op_a_4warps, DotA(4));
BENCHMARK_CAPTURE(BM_EncodingToLayout, dot_op_a_8warps, DotA(8));
BENCHMARK_CAPTURE(BM_EncodingToLayout, blocked_4warps, Blocked(4));

void BM_ParseEncoding(benchmark::State& state, std::string attr) {
  for (auto _ : state) {
    auto e = ParseEncoding(attr, kWhere);
    benchmark::DoNotOptimize(e);
  }
}
BENCHMARK_CAPTURE(BM_ParseEncoding, dot_op_a, DotA(4));

// dst.invertAndCompose(src): the register/lane/warp map of a layout conversion.
void BM_InvertAndCompose(benchmark::State& state, std::string src, std::string dst) {
  LinearLayout s = MustConvert(src, {128, 128});
  LinearLayout d = MustConvert(dst, {128, 128});
  for (auto _ : state) {
    LinearLayout c = d.InvertAndCompose(s);
    benchmark::DoNotOptimize(c);
  }
}
BENCHMARK_CAPTURE(BM_InvertAndCompose, mma_v2_to_blocked_4warps, Mma(2, 4), Blocked(4));
BENCHMARK_CAPTURE(BM_InvertAndCompose, blocked_to_dot_a_4warps, Blocked(4), DotA(4));
BENCHMARK_CAPTURE(BM_InvertAndCompose, mma_v3_to_blocked_8warps, Mma(3, 8), Blocked(8));
BENCHMARK_CAPTURE(BM_InvertAndCompose, mma_v2_to_dot_a_8warps, Mma(2, 8), DotA(8));

// compose: register layout -> tensor -> shared-memory offset (the smem staging map).
void BM_Compose(benchmark::State& state, std::string reg) {
  LinearLayout r = MustConvert(reg, {128, 128});
  LinearLayout shared =
      MustConvert("#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, "
                  "elementBitWidth = 16}>",
                  {128, 128});
  LinearLayout tensor_to_offset = shared.Invert();
  for (auto _ : state) {
    LinearLayout c = r.Compose(tensor_to_offset);
    benchmark::DoNotOptimize(c);
  }
}
BENCHMARK_CAPTURE(BM_Compose, mma_v2_4warps_to_nvmma128, Mma(2, 4));
BENCHMARK_CAPTURE(BM_Compose, mma_v3_8warps_to_nvmma128, Mma(3, 8));
BENCHMARK_CAPTURE(BM_Compose, dot_op_a_8warps_to_nvmma128, DotA(8));

// Baselines: the same operations on identity layouts with as many input bits (14).
LinearLayout Identity128x128() {
  return LinearLayout::Identity1D(128, "register", "dim1") *
         LinearLayout::Identity1D(128, "register", "dim0");
}
void BM_IdentityInvertAndCompose(benchmark::State& state) {
  LinearLayout a = Identity128x128();
  for (auto _ : state) {
    LinearLayout c = a.InvertAndCompose(a);
    benchmark::DoNotOptimize(c);
  }
}
BENCHMARK(BM_IdentityInvertAndCompose);
void BM_IdentityCompose(benchmark::State& state) {
  LinearLayout a = Identity128x128();
  LinearLayout b = a.Invert();
  for (auto _ : state) {
    LinearLayout c = a.Compose(b);
    benchmark::DoNotOptimize(c);
  }
}
BENCHMARK(BM_IdentityCompose);

}  // namespace
}  // namespace warpcheck::sim::layout
