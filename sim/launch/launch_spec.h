// Reading, validating and judging launch specs (proto/launch.proto,
// warpcheck.LaunchSpec).
//
// A launch spec says how to run one PTX kernel and what must hold afterwards; the same
// file runs in the simulator (`warpcheck sim run`) and on a GPU (`warpcheck gpu run`).
// This file holds the parts both runners share, so that a spec means the same thing to
// both: text-format loading with file:line:col errors, the validity rules, and the
// evaluation of expectations over the final buffer contents (with the names reports use).
//
//   ASSIGN_OR_RETURN(LaunchSpec spec, LoadLaunchSpec("corpus/triton/x.textproto"));
//   ... run it, collect std::vector<NamedBuffer> buffers in param order ...
//   std::vector<SimExpectationResult> r = EvaluateExpectations(spec, buffers);
#ifndef WARPCHECK_SIM_LAUNCH_LAUNCH_SPEC_H_
#define WARPCHECK_SIM_LAUNCH_LAUNCH_SPEC_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "proto/launch.pb.h"
#include "proto/report.pb.h"

namespace warpcheck::sim::launch {

// A buffer's final bytes, by the name its BufferParam gave it.
struct NamedBuffer {
  std::string name;
  std::vector<uint8_t> bytes;
};

// Parses text-format `text`; `origin` (usually the file name) prefixes error positions.
// Errors: InvalidArgument "origin:line:col: message" (unknown field, syntax), or whatever
//   ValidateLaunchSpec reports.
[[nodiscard]] absl::StatusOr<LaunchSpec> ParseLaunchSpec(absl::string_view text,
                                                         absl::string_view origin);

// Reads and parses the file. Errors: NotFound (unreadable), as ParseLaunchSpec.
[[nodiscard]] absl::StatusOr<LaunchSpec> LoadLaunchSpec(const std::string& path);

// The folder relative paths in a spec at `path` are resolved against ("" for the cwd).
[[nodiscard]] std::string SpecDir(const std::string& path);

// Grid/block extents with 0 read as 1 (proto3 cannot tell unset from 0).
[[nodiscard]] inline uint32_t DimOr1(uint32_t v) { return v == 0 ? 1 : v; }

// The rules every runner relies on:
//   ptx_file set; grid.x, block.x >= 1 (y, z: 0 means 1); block has at most 1024 threads;
//   every param has a kind; buffer names non-empty and unique; element_bytes 0/1/2/4/8;
//   IOTA size a multiple of element_bytes; every expectation names existing buffers.
// Errors: InvalidArgument naming the offending param or expectation.
[[nodiscard]] absl::Status ValidateLaunchSpec(const LaunchSpec& spec);

// The name reports use for expectation `e`: its `name` if set, else a rendering such as
// "buffers_equal(in, out)".
[[nodiscard]] std::string ExpectationName(const Expectation& e);

// Judges every expectation of `spec` against the final buffers, in spec order.
// Requires: ValidateLaunchSpec(spec) ok. A buffer missing from `buffers` fails its
//   expectation (detail says so) rather than aborting.
// Ensures: one result per expectation; `detail` for a failed buffers_equal gives the
// number
//   of differing bytes and the first differing offset with both byte values.
[[nodiscard]] std::vector<SimExpectationResult> EvaluateExpectations(
    const LaunchSpec& spec, absl::Span<const NamedBuffer> buffers);

// The bytes a scalar or pointer param passes to the kernel: `bits` little-endian, cut
// to `size` bytes (4 for u32, s32 and f32, whose bits are the IEEE single; 8 for u64,
// s64, null_ptr and buffers). A buffer passes `buffer_address`; null_ptr passes 0.
struct ParamValue {
  uint64_t bits = 0;
  uint32_t size = 0;  // 0 when the param has no kind
};
[[nodiscard]] ParamValue EncodeParam(const Param& param, uint64_t buffer_address);

// What every runner reports about a finished run, from its buffers' final bytes.
struct RunVerdict {
  // Name and Sha256Hex(bytes), in `buffers` order; the sha256 is empty when JudgeRun was
  // told not to hash (a caller that only wants the verdict: hashing 16 KiB costs more
  // than simulating a small kernel's loads).
  std::vector<SimBuffer> buffers;
  std::vector<SimExpectationResult> expectations;  // EvaluateExpectations(spec, buffers)
  bool ok = false;  // !faulted and every expectation holds
};
// Requires: ValidateLaunchSpec(spec) ok.
// Ensures: as RunVerdict's fields say (ok does not depend on `hash_buffers`).
[[nodiscard]] RunVerdict JudgeRun(const LaunchSpec& spec,
                                  absl::Span<const NamedBuffer> buffers, bool faulted,
                                  bool hash_buffers = true);

// The first difference between two byte strings, for reports. -1 when equal (sizes too).
[[nodiscard]] int64_t FirstDifference(absl::Span<const uint8_t> a,
                                      absl::Span<const uint8_t> b);

// One buffer of two runs of the same spec (e.g. GPU vs simulator, `warpcheck gpu diff`).
struct BufferComparison {
  std::string name;
  bool equal = false;
  std::string sha256_a;  // "" when the buffer is missing from that side
  std::string sha256_b;
  int64_t first_difference = -1;  // byte offset; -1 when equal
  uint64_t differing_bytes = 0;   // over the common length, plus the length difference
};

// Compares the buffers of two runs by name, in `a`'s order, then any only in `b`.
// Ensures: equal == (both present && bytes identical) == (sha256_a == sha256_b,
// non-empty).
[[nodiscard]] std::vector<BufferComparison> CompareBuffers(
    absl::Span<const NamedBuffer> a, absl::Span<const NamedBuffer> b);

}  // namespace warpcheck::sim::launch

#endif  // WARPCHECK_SIM_LAUNCH_LAUNCH_SPEC_H_
