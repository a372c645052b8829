// Initial contents of a launch spec's buffers (proto/launch.proto, BufferParam).
//
// Shared by everything that runs a LaunchSpec (the simulator, tools/gpu's CUDA runner) so
// that both start from the same bytes; a GPU-vs-simulator diff is only meaningful if they
// do. The fills, exactly:
//
//   ZERO    every byte 0x00
//   POISON  every byte 0xA5
//   IOTA    element i (element_bytes wide, 1/2/4/8, default 1) = i mod
//   2^(8*element_bytes),
//           little-endian; size_bytes must be a multiple of element_bytes
//   RANDOM  the byte stream of SplitMix64 seeded with `seed`: word k (k = 0, 1, ...) is
//             state += 0x9E3779B97F4A7C15; z = state;
//             z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9;
//             z = (z ^ (z >> 27)) * 0x94D049BB133111EB;
//             word = z ^ (z >> 31)
//           written little-endian, 8 bytes per word, cut to size_bytes (element_bytes is
//           irrelevant). Python: see tests/sim/launch/buffer_fill_test.cc for vectors.
//   FILE    the bytes of `path`, relative to spec_dir (absolute paths are kept); with
//           size_bytes = 0 the buffer takes the file's size, otherwise the sizes must
//           match
//
// Example: IOTA, element_bytes 2, size_bytes 6 -> 00 00 01 00 02 00.
#ifndef WARPCHECK_SIM_LAUNCH_BUFFER_FILL_H_
#define WARPCHECK_SIM_LAUNCH_BUFFER_FILL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/launch.pb.h"

namespace warpcheck::sim::launch {

// Largest buffer a launch spec may ask for (1 GiB).
inline constexpr uint64_t kMaxBufferBytes = uint64_t{1} << 30;

// The initial bytes of `buffer`.
// Requires: nothing; bad input is an error.
// Ensures: on success, exactly size_bytes bytes (FILE with size_bytes 0: the file's
// size),
//   filled as described above.
// Errors: InvalidArgument (element_bytes not 0/1/2/4/8, IOTA size not a multiple of the
//   element, FILE missing path or size mismatch, unknown fill), NotFound (FILE
//   unreadable), ResourceExhausted (more than kMaxBufferBytes).
[[nodiscard]] absl::StatusOr<std::vector<uint8_t>> FillBuffer(
    const BufferParam& buffer, const std::string& spec_dir);

}  // namespace warpcheck::sim::launch

#endif  // WARPCHECK_SIM_LAUNCH_BUFFER_FILL_H_
