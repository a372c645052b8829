#include "sim/bank/bank_model.h"

#include <algorithm>

namespace warpcheck::sim::bank {

namespace {

// The most distinct keys that share a bank, where key k lies in bank k & bank_mask
// (at least 1 when n > 0). Requires: n <= 32.
uint32_t MaxDistinctPerBank(const uint32_t* keys, int n, uint32_t bank_mask) {
  if (n == 0) return 0;
  // The common case first: every key in a bank of its own (a conflict-free request),
  // where every bank has at most one distinct key. A bank met twice (a conflict, or the
  // same key again: broadcast) goes to the count below.
  uint32_t banks = 0;
  int i0 = 0;
  for (; i0 < n; ++i0) {
    const uint32_t bit = uint32_t{1} << (keys[i0] & bank_mask);
    if (banks & bit) break;
    banks |= bit;
  }
  if (i0 == n) return 1;
  // Distinct keys per bank, kept per bank (a conflicting group has few keys in each bank,
  // so the scans are short; sorting the group was most of the planner's bank search).
  uint32_t seen[32][32];
  uint8_t count[32] = {};
  uint32_t best = 1;
  for (int i = 0; i < n; ++i) {
    const uint32_t k = keys[i], b = k & bank_mask;
    int j = 0;
    while (j < count[b] && seen[b][j] != k) ++j;
    if (j < count[b]) continue;
    seen[b][count[b]++] = k;
    best = std::max<uint32_t>(best, count[b]);
  }
  return best;
}

// Wavefronts of one group given its words (up to 32 lanes x 4 words): every bank costs
// its distinct words.
uint32_t GroupWavefronts(uint32_t* words, int n) {
  // Every request's group has at most 32 words (32 x 4, 16 x 8, 8 x 16 bytes).
  if (n <= 32) return MaxDistinctPerBank(words, n, 31);
  // Larger groups (no request makes one): sort and count.
  std::sort(words, words + n);
  n = static_cast<int>(std::unique(words, words + n) - words);
  uint32_t best = 1;
  uint8_t per_bank[32] = {};
  for (int i = 0; i < n; ++i) best = std::max<uint32_t>(best, ++per_bank[words[i] & 31]);
  return best;
}

// Wavefronts of one group whose members each access `unit` whole words (1, 2 or 4) at a
// `unit`-word aligned slot: a member's words fill the bank block (slot mod 32 / unit),
// one word per bank, so a bank's distinct words are its block's distinct slots. The
// same figure as GroupWavefronts over the words, from one key per member.
uint32_t AlignedGroupWavefronts(const uint32_t* slots, int n, uint32_t unit) {
  return MaxDistinctPerBank(slots, n, 32 / unit - 1);
}

}  // namespace

BankCost SharedRequestCost(const uint32_t addr[32], uint32_t mask, uint32_t bytes) {
  int lanes_per_group = bytes <= 4 ? 32 : bytes == 8 ? 16 : 8;
  uint32_t words_per_lane = bytes <= 4 ? 1 : bytes / 4;
  // Aligned wide accesses (as the contract asks) take one key per lane. (The lanes of a
  // mask by their set bits, in increasing order: a test per lane was most of the cost.)
  uint32_t misaligned = 0;
  if (bytes > 4) {
    if (mask == 0xFFFFFFFFu) {
      for (int l = 0; l < 32; ++l) misaligned |= addr[l];
    } else {
      for (uint32_t m = mask; m != 0; m &= m - 1) misaligned |= addr[__builtin_ctz(m)];
    }
  }
  const bool aligned = (misaligned & (bytes - 1)) == 0;
  BankCost cost;
  uint32_t words[128];
  const uint32_t group_bits = lanes_per_group == 32 ? ~0u : (1u << lanes_per_group) - 1;
  for (int g = 0; g < 32; g += lanes_per_group) {
    int n = 0;
    for (uint32_t m = (mask >> g) & group_bits; m != 0; m &= m - 1) {
      const int l = g + __builtin_ctz(m);
      uint32_t w0 = addr[l] / 4;
      if (aligned) {
        words[n++] = w0 / words_per_lane;
        continue;
      }
      for (uint32_t k = 0; k < words_per_lane; ++k) words[n++] = w0 + k;
    }
    if (n == 0) continue;
    cost.wavefronts += aligned ? AlignedGroupWavefronts(words, n, words_per_lane)
                               : GroupWavefronts(words, n);
    cost.minimum += 1;
  }
  return cost;
}

BankCost MatrixRequestCost(const uint32_t rows[32], int matrices) {
  BankCost cost;
  uint32_t misaligned = 0;
  for (int i = 0; i < 8 * matrices; ++i) misaligned |= rows[i];
  const bool aligned = (misaligned & 15) == 0;
  uint32_t words[32];
  for (int i = 0; i < matrices; ++i) {
    int n = 0;
    for (int r = 0; r < 8; ++r) {
      uint32_t w0 = rows[8 * i + r] / 4;
      if (aligned) {
        words[n++] = w0 / 4;
        continue;
      }
      for (uint32_t k = 0; k < 4; ++k) words[n++] = w0 + k;
    }
    cost.wavefronts += aligned ? AlignedGroupWavefronts(words, n, 4) : GroupWavefronts(words, n);
    cost.minimum += 1;
  }
  return cost;
}

}  // namespace warpcheck::sim::bank
