// The simulator against an H200 (shared/spec/ptx-subset.md: "when in doubt, a real
// H200: write a tiny kernel, run it there, and encode what the hardware does as a
// test"). tests/sim/machine/testdata/hw holds the probes (gen_probe.py), the runner
// (gpu_run.py, CUDA driver API through ctypes) and what the H200 answered:
//
//   hw_probe.h200.txt  every word hw_probe.ptx wrote: NaN bits of f16/bf16/f32/f64
//                      conversions and arithmetic, division by zero, shifts and bfe past
//                      the width, prmt modes, sign extension of narrow cvt results, the
//                      shared window base (0x400), and 84 shfl clamp/segmask cases;
//   ncu_h200.txt       Nsight Compute's shared-memory wavefronts and bank conflicts for
//                      the bank-model probes and the Triton samples.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/machine/launch.h"
#include "tests/testing/status_matchers.h"

namespace warpcheck::sim::machine {
namespace {

std::string Dir() {
  const char* env = std::getenv("WARPCHECK_SOURCE_DIR");
  return std::string(env != nullptr ? env : WARPCHECK_SOURCE_DIR) +
         "/tests/sim/machine/testdata";
}

std::vector<std::string> Lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> out;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] != '#') out.push_back(line);
  }
  return out;
}

TEST(MachineHwProbeTest, EveryProbeWordMatchesTheH200) {
  std::vector<std::string> want = Lines(Dir() + "/hw/hw_probe.h200.txt");
  std::vector<std::string> names = Lines(Dir() + "/hw/cases.txt");
  ASSERT_EQ(want.size(), 2944u);
  // With race detection and every ld/st lane by lane, and without both (the ld/st fast
  // path).
  for (bool races : {true, false}) {
    SCOPED_TRACE(races ? "detect_races" : "no race detection");
    RunOptions ro;
    ro.detect_races = races;
    ro.fast_ldst = !races;
    ro.zero_every_register = races;
    ASSERT_OK_AND_ASSIGN(
        LaunchResult r,
        RunLaunchSpecFileWithBuffers(Dir() + "/hw/hw_probe.textproto", ro));
    ASSERT_TRUE(r.report.ok());
    const std::vector<uint8_t>& out = r.buffers[0].bytes;
    ASSERT_EQ(out.size(), 4 * want.size());
    int scalars = 0;
    for (const std::string& n : names) scalars += n.rfind("shfl", 0) != 0;
    for (size_t k = 0; k < want.size(); ++k) {
      // Word 69 is the high half of a generic shared address: the window moves per process.
      if (k == 69) continue;
      uint32_t got;
      std::memcpy(&got, out.data() + 4 * k, 4);
      std::string name = k < size_t(scalars) ? names[k]
                         : k >= 256          ? names[scalars + (k - 256) / 32] + " lane " +
                                          std::to_string((k - 256) % 32)
                                    : "unused";
      EXPECT_EQ(got, std::stoul(want[k], nullptr, 16)) << "word " << k << ": " << name;
    }
  }
}

TEST(MachineHwProbeTest, WavefrontsAndConflictsMatchNsightCompute) {
  std::vector<std::string> rows = Lines(Dir() + "/hw/ncu_h200.txt");
  ASSERT_GE(rows.size(), 16u);
  for (const std::string& row : rows) {
    std::istringstream in(row);
    std::string spec;
    uint64_t ld, st, cld, cst;
    in >> spec >> ld >> st >> cld >> cst;
    SCOPED_TRACE(spec);
    for (bool races : {true, false}) {  // the ld/st fast path counts for the bank model too
      RunOptions ro;
      ro.detect_races = races;
      ro.fast_ldst = !races;
      ASSERT_OK_AND_ASSIGN(SimReport r,
                           RunLaunchSpecFile(Dir() + "/" + spec + ".textproto", ro));
      EXPECT_EQ(r.counters().at("smem_wavefronts.load"), ld);
      EXPECT_EQ(r.counters().at("smem_wavefronts.store"), st);
      EXPECT_EQ(r.counters().at("bank_conflicts.load"), cld);
      EXPECT_EQ(r.counters().at("bank_conflicts.store"), cst);
    }
  }
}

}  // namespace
}  // namespace warpcheck::sim::machine
