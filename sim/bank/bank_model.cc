#include "sim/bank/bank_model.h"

#include <algorithm>

namespace warpcheck::sim::bank {

namespace {

// Wavefronts of one group given its words (up to 32 lanes x 4 words).
uint32_t GroupWavefronts(uint32_t* words, int n) {
  if (n == 0) return 0;
  // Fast path: every bank sees at most one distinct word (conflict-free or broadcast).
  uint32_t first[32];
  uint32_t used = 0;
  bool simple = true;
  for (int i = 0; i < n && simple; ++i) {
    uint32_t b = words[i] & 31;
    if (!((used >> b) & 1)) {
      used |= 1u << b;
      first[b] = words[i];
    } else if (first[b] != words[i]) {
      simple = false;
    }
  }
  if (simple) return 1;
  uint32_t best = 1;
  if (n <= 32) {
    // Distinct words per bank, kept per bank (a conflicting group has few words in each
    // bank, so the scans are short). Sorting the group was most of the planner's bank
    // search. Every request's group has at most 32 words (32 x 4, 16 x 8, 8 x 16 bytes).
    uint32_t seen[32][32];
    uint8_t count[32] = {};
    for (int i = 0; i < n; ++i) {
      const uint32_t w = words[i], b = w & 31;
      int k = 0;
      while (k < count[b] && seen[b][k] != w) ++k;
      if (k < count[b]) continue;
      seen[b][count[b]++] = w;
      best = std::max<uint32_t>(best, count[b]);
    }
    return best;
  }
  // Larger groups (no request makes one): sort and count.
  std::sort(words, words + n);
  n = static_cast<int>(std::unique(words, words + n) - words);
  uint8_t per_bank[32] = {};
  for (int i = 0; i < n; ++i) best = std::max<uint32_t>(best, ++per_bank[words[i] & 31]);
  return best;
}

}  // namespace

BankCost SharedRequestCost(const uint32_t addr[32], uint32_t mask, uint32_t bytes) {
  int lanes_per_group = bytes <= 4 ? 32 : bytes == 8 ? 16 : 8;
  uint32_t words_per_lane = bytes <= 4 ? 1 : bytes / 4;
  BankCost cost;
  uint32_t words[128];
  for (int g = 0; g < 32; g += lanes_per_group) {
    int n = 0;
    for (int l = g; l < g + lanes_per_group; ++l) {
      if (!((mask >> l) & 1)) continue;
      uint32_t w0 = addr[l] / 4;
      for (uint32_t k = 0; k < words_per_lane; ++k) words[n++] = w0 + k;
    }
    if (n == 0) continue;
    cost.wavefronts += GroupWavefronts(words, n);
    cost.minimum += 1;
  }
  return cost;
}

BankCost MatrixRequestCost(const uint32_t rows[32], int matrices) {
  BankCost cost;
  uint32_t words[32];
  for (int i = 0; i < matrices; ++i) {
    int n = 0;
    for (int r = 0; r < 8; ++r) {
      uint32_t w0 = rows[8 * i + r] / 4;
      for (uint32_t k = 0; k < 4; ++k) words[n++] = w0 + k;
    }
    cost.wavefronts += GroupWavefronts(words, n);
    cost.minimum += 1;
  }
  return cost;
}

}  // namespace warpcheck::sim::bank
