// The Triton subject of `warpcheck fuzz layouts --against=triton`: each batch of pairs
// is compiled on the CPU by the pip `triton` package (tools/oracle/
// triton_fuzz_compile.py, parallel worker processes), and Triton's PTX is then run and
// proven by verify/fuzz's CheckTritonKernel. This is the tools/ half: files, the Python
// process, and Triton's verdicts on what it could not compile.
#ifndef WARPCHECK_TOOLS_WARPCHECK_FUZZ_TRITON_H_
#define WARPCHECK_TOOLS_WARPCHECK_FUZZ_TRITON_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "verify/fuzz/campaign.h"

namespace warpcheck::cli {

struct TritonSubject {
  std::string python = "python3";
  std::string script;    // tools/oracle/triton_fuzz_compile.py
  std::string work_dir;  // TTGIR, PTX and results of every compile
  int jobs = 1;
  // A compile that has not answered by then is killed: the pair is inconclusive (stage
  // "triton/timeout", counted in `errors` too).
  double timeout_seconds = 60;
  // Pairs Triton did not compile, by reason (filled by Check).
  std::map<std::string, int64_t> errors;
  // name -> PTX path of the last batch, for saving failures.
  std::map<std::string, std::string> ptx_of;
  std::map<std::string, int64_t> shared_of;
  int64_t batches = 0;

  // Compiles and checks a batch. A pair Triton rejects is out of scope (stage
  // "triton", counted in `errors`); a Triton crash (abort) is a failure at
  // "triton/crash"; one past timeout_seconds is inconclusive ("triton/timeout"); rank-3
  // pairs are out of scope (the harness is rank 1-2).
  std::vector<verify::fuzz::PairOutcome> Check(const std::vector<verify::fuzz::FuzzPair>& pairs,
                                               const std::vector<verify::fuzz::CheckOptions>& checks);
  // The PTX file Triton produced for `pair` in the latest batch it was in ("" if none).
  std::string PtxFor(const verify::fuzz::FuzzPair& pair) const;
  int64_t SharedFor(const verify::fuzz::FuzzPair& pair) const;
};

// Whether `python -c "import triton"` works (CI skips the Triton campaign otherwise).
bool TritonAvailable(const std::string& python);

}  // namespace warpcheck::cli

#endif  // WARPCHECK_TOOLS_WARPCHECK_FUZZ_TRITON_H_
