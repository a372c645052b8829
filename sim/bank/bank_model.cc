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
  // Distinct words per bank: an open-addressing set of the words seen (key word + 1, 0
  // empty; words are addresses / 4 < 2^30), at most half full. Sorting the group was
  // most of the planner's bank search.
  const int log_cap = n <= 32 ? 6 : 8;
  const uint32_t cap = 1u << log_cap;
  uint32_t table[256];
  std::fill(table, table + cap, 0u);
  uint8_t per_bank[32] = {};
  uint32_t best = 1;
  for (int i = 0; i < n; ++i) {
    const uint32_t key = words[i] + 1;
    uint32_t h = (key * 0x9E3779B1u) >> (32 - log_cap);
    while (table[h] != 0 && table[h] != key) h = (h + 1) & (cap - 1);
    if (table[h] == key) continue;
    table[h] = key;
    best = std::max<uint32_t>(best, ++per_bank[words[i] & 31]);
  }
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
