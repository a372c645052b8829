#include "sim/base/check.h"

#include <cstdio>
#include <cstdlib>

namespace warpcheck::sim::base::internal {

CheckFailure::CheckFailure(const char* file, int line, const char* condition) {
  stream_ << file << ":" << line << ": internal check failed: " << condition << ": ";
}

CheckFailure::~CheckFailure() {
  std::fprintf(stderr, "warpcheck: internal error: %s\n", stream_.str().c_str());
  std::fflush(stderr);
  std::abort();
}

}  // namespace warpcheck::sim::base::internal
