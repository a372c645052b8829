// The warpcheck binary: everything happens in RunWarpcheck (tools/warpcheck/cli.h) so
// that tests can run the real dispatcher in-process.
#include <iostream>
#include <string>
#include <vector>

#include "tools/warpcheck/cli.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  return warpcheck::cli::RunWarpcheck(args, std::cout, std::cerr);
}
