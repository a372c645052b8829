// The shared-memory bank model (shared/spec/ptx-subset.md, "Counters and the bank
// model").
//
// 32 banks of 4 bytes; bank(address) = (address / 4) mod 32. A warp-level request is
// split into lane groups served separately:
//
//   bytes per lane   groups               minimum wavefronts
//   1, 2, 4          lanes 0-31           1
//   8                lanes 0-15, 16-31    2
//   16               lanes 0-7, ..., 24-31  4
//   ldmatrix/stmatrix: each 8x8 matrix (8 rows of 16 bytes) is one group
//
// Within a group every bank costs the number of *distinct* 4-byte words requested in it
// (several lanes reading one word is a broadcast: one); the group takes the maximum over
// banks (at least 1 when any lane of the group takes part), the request the sum over
// groups. Conflicts = wavefronts - minimum, where the minimum counts the groups that take
// part. Example: 32 lanes reading 4 bytes at stride 8 bytes touch banks 0,2,...,30 twice
// each with different words: 2 wavefronts, 1 conflict.
#ifndef WARPCHECK_SIM_BANK_BANK_MODEL_H_
#define WARPCHECK_SIM_BANK_BANK_MODEL_H_

#include <cstdint>

namespace warpcheck::sim::bank {

struct BankCost {
  uint32_t wavefronts = 0;
  uint32_t minimum = 0;
  uint32_t conflicts() const { return wavefronts - minimum; }
};

// `addr[l]` is lane l's shared byte address (used for the lanes in `mask`), each lane
// accessing `bytes` (1, 2, 4, 8 or 16) contiguous, aligned bytes.
BankCost SharedRequestCost(const uint32_t addr[32], uint32_t mask, uint32_t bytes);

// ldmatrix/stmatrix: `rows[8 * i + r]` is the address of row r of matrix i (16 bytes).
BankCost MatrixRequestCost(const uint32_t rows[32], int matrices);

}  // namespace warpcheck::sim::bank

#endif  // WARPCHECK_SIM_BANK_BANK_MODEL_H_
