// Fuzz target: TTGIR attribute text -> Encoding -> (printer round trip) -> LinearLayout.
//
// Properties checked on every input (a violation aborts, which the fuzzer reports):
//   * parsing never crashes; errors are InvalidArgument with a position;
//   * an accepted attribute prints canonically, and the print parses to the same print;
//   * ToLinearLayout on small shapes never crashes, and an accepted result has out-dims
//     equal to the shape.
// Built with libFuzzer under clang (-DWITH_FUZZERS=ON); under gcc the replay driver
// (fuzz_replay_main.cc) runs the seed corpus corpus/fuzz/encoding_parse/ as a ctest.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "sim/layout/encoding.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace warpcheck::sim::layout;
  std::string text(reinterpret_cast<const char*>(data), size);
  auto parsed = ParseEncoding(text, SourceLocation{});
  if (!parsed.ok()) {
    if (parsed.status().code() != absl::StatusCode::kInvalidArgument) std::abort();
    if (parsed.status().message().rfind("argument:", 0) != 0) std::abort();
    return 0;
  }
  std::string printed = PrintEncoding(**parsed);
  auto reparsed = ParseEncoding(printed, SourceLocation{});
  if (!reparsed.ok() || PrintEncoding(**reparsed) != printed) std::abort();
  const int rank = (*parsed)->Rank();
  if (rank < 1 || rank > 4) return 0;
  for (int64_t extent : {1, 16, 128}) {
    std::vector<int64_t> shape(rank, extent);
    auto layout = ToLinearLayout(**parsed, shape);
    if (!layout.ok()) continue;
    if (layout->num_out_dims() != rank) std::abort();
    for (int i = 0; i < rank; ++i) {
      if (layout->out_dims()[i].second != extent) std::abort();
    }
  }
  return 0;
}
