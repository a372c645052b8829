// Running the warpcheck CLI in-process from tests (Bloaty's RunBloaty idea): the real
// dispatcher, its exit code, stdout, stderr and the Report proto it built.
#ifndef WARPCHECK_TESTS_TESTING_CLI_RUNNER_H_
#define WARPCHECK_TESTS_TESTING_CLI_RUNNER_H_

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tools/warpcheck/cli.h"

namespace warpcheck::cli::testing {

struct Result {
  int code;
  std::string out;
  std::string err;
  Report report;
};

// args without the program name, e.g. {"signal", "run", "x.textproto"}.
inline Result RunCli(std::vector<std::string> args) {
  args.insert(args.begin(), "warpcheck");
  std::ostringstream out, err;
  Result r;
  r.code = RunWarpcheck(args, out, err, &r.report);
  r.out = out.str();
  r.err = err.str();
  return r;
}

// A per-process path in the temp directory. The process id keeps parallel runs apart:
// ctest starts one process per test case, and the gtest seed alone (derived from the
// clock) was equal for two cases started in the same millisecond, which then removed
// each other's file (SvgCliTest.WaitForGraphOf* failed together under `ctest -j2`).
inline std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          (name + "." + std::to_string(::getpid()) + "." +
           std::to_string(::testing::UnitTest::GetInstance()->random_seed())))
      .string();
}

inline std::string ReadAll(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace warpcheck::cli::testing

#endif  // WARPCHECK_TESTS_TESTING_CLI_RUNNER_H_
