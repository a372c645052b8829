// RaceShadow (sim/machine/race.h) against a plain model of the same rules: per cell the
// last write and the readers since it in first-read order (a thread that reads again
// keeps its place), words split into byte cells by 1- and 2-byte accesses and merged
// back by a whole-word write. The shadow keeps readers in a pooled linked list with a
// tail and the largest tid read (appends above it skip the walk) and makes byte cells
// only for words that split; every Read and Write must report the same conflict (the
// same earlier access, byte and kind) and count the same same-value writes as the model.
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "sim/machine/race.h"

namespace warpcheck::sim::machine {
namespace {

bool Ordered(const Accessor& a, const Stamp& s) {
  if (s.epoch != a.me.epoch || s.tid == a.me.tid) return true;
  const uint32_t other_warp = s.tid / 32;
  if (other_warp == a.warp) {
    if (a.last_full_gen > s.wgen) return true;
    return a.lane_gen > s.wgen && ((a.lane_sync_mask >> (s.tid % 32)) & 1);
  }
  return a.warp_view[other_warp] > s.wclk;
}

bool SameStamp(const Stamp& a, const Stamp& b) {
  return a.epoch == b.epoch && a.tid == b.tid && a.pc == b.pc && a.wgen == b.wgen &&
         a.wclk == b.wclk;
}

class ModelShadow {
 public:
  explicit ModelShadow(uint32_t bytes) : words_((bytes + 3) / 4) {}

  Conflict Read(const Accessor& a, uint32_t offset, uint32_t size) {
    Conflict out;
    if (offset % 4 == 0 && size % 4 == 0) {
      for (uint32_t w = offset / 4; w < (offset + size) / 4; ++w) {
        Word& word = words_[w];
        if (word.split) {
          for (uint32_t b = 0; b < 4; ++b) CheckRead(a, word.bytes[b], 4 * w + b, &out);
        } else {
          CheckRead(a, word.whole, 4 * w, &out);
        }
      }
      return out;
    }
    for (uint32_t at = offset; at < offset + size; ++at) {
      Word& word = Split(at / 4);
      CheckRead(a, word.bytes[at % 4], at, &out);
    }
    return out;
  }

  Conflict Write(const Accessor& a, uint32_t offset, uint32_t size, const uint8_t* data,
                 const uint8_t* memory, uint64_t* same) {
    Conflict out;
    if (offset % 4 == 0 && size % 4 == 0) {
      for (uint32_t w = offset / 4; w < (offset + size) / 4; ++w) {
        const uint8_t* d = data + (4 * w - offset);
        const uint8_t* m = memory + 4 * w;
        Word& word = words_[w];
        if (word.split) {
          for (uint32_t b = 0; b < 4; ++b)
            CheckWrite(a, word.bytes[b], 4 * w + b, d[b] == m[b], same, &out);
          word.whole.write = a.me;
          word.whole.readers.clear();
          word.split = false;
        } else {
          CheckWrite(a, word.whole, 4 * w, std::memcmp(d, m, 4) == 0, same, &out);
        }
      }
      return out;
    }
    for (uint32_t at = offset; at < offset + size; ++at) {
      Word& word = Split(at / 4);
      CheckWrite(a, word.bytes[at % 4], at, data[at - offset] == memory[at], same, &out);
    }
    return out;
  }

 private:
  struct Cell {
    Stamp write;
    std::vector<Stamp> readers;  // of readers[0].epoch, in first-read order
  };
  struct Word {
    Cell whole;
    Cell bytes[4];
    bool split = false;
  };

  Word& Split(uint32_t w) {
    Word& word = words_[w];
    if (!word.split) {
      for (Cell& c : word.bytes) c = word.whole;
      word.split = true;
    }
    return word;
  }

  static void CheckRead(const Accessor& a, Cell& c, uint32_t offset, Conflict* out) {
    if (!out->found && c.write.epoch == a.me.epoch && !Ordered(a, c.write)) {
      *out = Conflict{true, c.write, true, offset};
    }
    if (c.readers.empty() || c.readers[0].epoch != a.me.epoch) {
      c.readers = {a.me};
      return;
    }
    for (Stamp& s : c.readers) {
      if (s.tid == a.me.tid) {
        s = a.me;
        return;
      }
    }
    c.readers.push_back(a.me);
  }

  static void CheckWrite(const Accessor& a, Cell& c, uint32_t offset, bool same_value,
                         uint64_t* same, Conflict* out) {
    if (c.write.epoch == a.me.epoch && !Ordered(a, c.write)) {
      if (same_value) {
        ++*same;
      } else if (!out->found) {
        *out = Conflict{true, c.write, true, offset};
      }
    }
    if (!out->found && !c.readers.empty() && c.readers[0].epoch == a.me.epoch) {
      for (const Stamp& s : c.readers) {
        if (!Ordered(a, s)) {
          *out = Conflict{true, s, false, offset};
          break;
        }
      }
    }
    c.write = a.me;
    c.readers.clear();
  }

  std::vector<Word> words_;
};

TEST(MachineRaceShadowTest, AgreesWithThePlainModelOnRandomAccesses) {
  constexpr uint32_t kBytes = 64;
  std::mt19937 rng(7);
  int conflicts = 0, same_values = 0;
  // 1 to 16 warps: a thread's `seen` bit is its own (1, 2, 4 or 8 words of it); 32 warps:
  // tids t and t + 512 share one, so appends past a set bit walk the list.
  for (int run = 0; run < 750; ++run) {
    const uint32_t kWarps = run < 150 ? 1 : run < 300 ? 4 : run < 450 ? 8 : run < 600 ? 16 : 32;
    RaceShadow shadow;
    shadow.Reset(kBytes, 32 * kWarps);
    ModelShadow model(kBytes);
    std::vector<uint8_t> memory(kBytes, 0);
    uint64_t same_shadow = 0, same_model = 0;
    uint32_t epoch = 1, pc = 0;
    uint32_t view[32] = {};
    // Mostly increasing tids (warps in order, lanes in order), with rereads and jumps back.
    uint32_t tid = 0;
    // 0: sweeps, 1: random threads, 2: few threads, 3: long reader lists (many threads
    // reading a few words again and again, few writes).
    const int mode = run % 4;
    for (int op = 0; op < 400; ++op) {
      if (rng() % 97 == 0) {
        ++epoch;
        shadow.NewEpoch();
        tid = 0;
      }
      if (mode == 0) {
        tid = rng() % 8 == 0 ? rng() % (32 * kWarps) : (tid + 1 + rng() % 3) % (32 * kWarps);
      } else if (mode == 1) {
        tid = rng() % (32 * kWarps);
      } else if (mode == 2) {
        tid = rng() % 5;
      } else {
        tid = rng() % 2 == 0 ? (tid + 1) % (32 * kWarps) : rng() % (32 * kWarps);
      }
      for (uint32_t& v : view) v = rng() % 4;
      Accessor a;
      a.me.epoch = epoch;
      a.me.tid = static_cast<uint16_t>(tid);
      a.me.pc = static_cast<uint16_t>(pc++);
      a.me.wgen = rng() % 4;
      a.me.wclk = rng() % 4;
      a.warp = tid / 32;
      a.lane = tid % 32;
      a.last_full_gen = rng() % 4;
      a.lane_gen = rng() % 4;
      a.lane_sync_mask = static_cast<uint32_t>(rng());
      a.warp_view = view;
      const uint32_t size = 1u << (rng() % 5);  // 1..16 bytes, aligned as the machine checks
      const uint32_t offset = (rng() % (mode == 3 ? 16 : kBytes)) / size * size;
      Conflict got, want;
      if (rng() % (mode == 3 ? 60 : 3) == 0) {
        if (mode == 3) {
          // A writer ordered after most readers (those stamped below 3), so that the
          // conflict it reports is one deep in a long list.
          for (uint32_t& v : view) v = 3;
          a.last_full_gen = 3;
          a.lane_gen = 0;
        }
        uint8_t data[16];
        for (uint32_t i = 0; i < size; ++i) data[i] = static_cast<uint8_t>(rng() % 2);
        got = shadow.Write(a, offset, size, data, memory.data(), &same_shadow);
        want = model.Write(a, offset, size, data, memory.data(), &same_model);
        std::memcpy(memory.data() + offset, data, size);
      } else {
        got = shadow.Read(a, offset, size);
        want = model.Read(a, offset, size);
      }
      ASSERT_EQ(got.found, want.found) << "run " << run << " op " << op;
      if (want.found) {
        ++conflicts;
        EXPECT_TRUE(SameStamp(got.prev, want.prev)) << "run " << run << " op " << op;
        EXPECT_EQ(got.prev_is_write, want.prev_is_write) << "run " << run << " op " << op;
        EXPECT_EQ(got.offset, want.offset) << "run " << run << " op " << op;
      }
      ASSERT_EQ(same_shadow, same_model) << "run " << run << " op " << op;
    }
    same_values += static_cast<int>(same_model);
  }
  // The sequences reach every outcome: races found, same-value writes counted.
  EXPECT_GT(conflicts, 2000);
  EXPECT_GT(same_values, 100);
}

// ReadLanes and WriteLanes (one warp instruction's word-aligned accesses, lanes in
// order, the store's bytes copied lane by lane) against the model's per-lane Read and
// Write, interleaved with single accesses of every size so that the batched calls meet
// split words, pending logs of both kinds and reader lists. A conflict stops a batch at
// its lane; the rest of the lanes go in the next call, as Machine does.
TEST(MachineRaceShadowTest, WarpBatchesAgreeWithPerLaneAccesses) {
  constexpr uint32_t kBytes = 256;
  std::mt19937 rng(11);
  int conflicts = 0, batches = 0, same_values = 0;
  for (int run = 0; run < 400; ++run) {
    const uint32_t kWarps = 1u << (run % 5);  // 1..16 warps
    const uint32_t threads = 32 * kWarps;
    RaceShadow shadow;
    shadow.Reset(kBytes, threads);
    ModelShadow model(kBytes);
    std::vector<uint8_t> memory(kBytes, 0), model_memory(kBytes, 0);
    uint64_t same_shadow = 0, same_model = 0;
    uint32_t epoch = 1, pc = 0;
    uint32_t view[32] = {};
    uint32_t lane_gens[32], lane_masks[32];
    for (int op = 0; op < 300; ++op) {
      if (rng() % 41 == 0) {
        ++epoch;
        shadow.NewEpoch();
      }
      for (uint32_t& v : view) v = rng() % 4;
      for (int l = 0; l < 32; ++l) {
        lane_gens[l] = rng() % 4;
        lane_masks[l] = static_cast<uint32_t>(rng());
      }
      const uint32_t warp = rng() % kWarps;
      Accessor a;
      a.me.epoch = epoch;
      a.me.tid = static_cast<uint16_t>(32 * warp);
      a.me.pc = static_cast<uint16_t>(pc++);
      a.me.wgen = rng() % 4;
      a.me.wclk = rng() % 4;
      a.warp = warp;
      a.last_full_gen = rng() % 4;
      a.warp_view = view;
      a.base_tid = 32 * warp;
      a.lane_gens = lane_gens;
      a.lane_sync_masks = lane_masks;
      const bool write = rng() % 3 == 0;
      if (rng() % 2 == 0) {
        // A single access of 1..16 bytes by one lane.
        a.SetLane(rng() % 32);
        const uint32_t size = 1u << (rng() % 5);
        const uint32_t offset = (rng() % kBytes) / size * size;
        Conflict got, want;
        if (write) {
          uint8_t data[16];
          for (uint32_t i = 0; i < size; ++i) data[i] = static_cast<uint8_t>(rng() % 2);
          got = shadow.Write(a, offset, size, data, memory.data(), &same_shadow);
          want = model.Write(a, offset, size, data, model_memory.data(), &same_model);
          std::memcpy(memory.data() + offset, data, size);
          std::memcpy(model_memory.data() + offset, data, size);
        } else {
          got = shadow.Read(a, offset, size);
          want = model.Read(a, offset, size);
        }
        ASSERT_EQ(got.found, want.found) << "run " << run << " op " << op;
        if (want.found) {
          EXPECT_TRUE(SameStamp(got.prev, want.prev)) << "run " << run << " op " << op;
          EXPECT_EQ(got.offset, want.offset) << "run " << run << " op " << op;
        }
        continue;
      }
      // A warp instruction: random lanes, 4-32 bytes each at aligned offsets (often
      // the same few words, so lanes conflict with each other and with earlier ones);
      // 32 (a v4 of 8-byte elements) is WriteLanes's general size, the others its
      // fixed ones.
      ++batches;
      const uint32_t size = 4u << (rng() % 4);
      const uint32_t span = rng() % 2 == 0 ? kBytes : 32;
      uint32_t offsets[32];
      uint8_t data[32 * 32];
      for (int l = 0; l < 32; ++l) {
        offsets[l] = (rng() % span) / size * size;
        for (uint32_t i = 0; i < size; ++i) data[l * size + i] = static_cast<uint8_t>(rng() % 2);
      }
      const uint32_t mask = rng() % 4 == 0 ? ~0u : static_cast<uint32_t>(rng());
      // The model, lane by lane: the conflicting lanes in order.
      std::vector<std::pair<uint32_t, Conflict>> want;
      for (uint32_t m = mask; m != 0; m &= m - 1) {
        const uint32_t l = static_cast<uint32_t>(__builtin_ctz(m));
        Accessor al = a;
        al.SetLane(l);
        Conflict c;
        if (write) {
          c = model.Write(al, offsets[l], size, data + l * size, model_memory.data(),
                          &same_model);
          std::memcpy(model_memory.data() + offsets[l], data + l * size, size);
        } else {
          c = model.Read(al, offsets[l], size);
        }
        if (c.found) want.emplace_back(l, c);
      }
      // The lanes' bytes for ReadLanes: exact, or sometimes the whole memory.
      uint32_t lo = ~0u, hi = 0;
      for (uint32_t m = mask; m != 0; m &= m - 1) {
        lo = std::min(lo, offsets[__builtin_ctz(m)]);
        hi = std::max(hi, offsets[__builtin_ctz(m)] + size);
      }
      if (rng() % 4 == 0) {
        lo = 0;
        hi = kBytes;
      }
      std::vector<std::pair<uint32_t, Conflict>> got;
      for (uint32_t lanes = mask; lanes != 0;) {
        uint32_t lane = 99;
        const Conflict c =
            write ? shadow.WriteLanes(a, &lanes, offsets, size, data, memory.data(),
                                      &same_shadow, &lane)
                  : shadow.ReadLanes(a, &lanes, offsets, size, &lane, lo, hi);
        if (!c.found) {
          ASSERT_EQ(lanes, 0u);
          break;
        }
        got.emplace_back(lane, c);
        if (write) std::memcpy(memory.data() + offsets[lane], data + lane * size, size);
      }
      ASSERT_EQ(got.size(), want.size()) << "run " << run << " op " << op;
      for (size_t i = 0; i < got.size(); ++i) {
        ++conflicts;
        EXPECT_EQ(got[i].first, want[i].first) << "run " << run << " op " << op;
        EXPECT_TRUE(SameStamp(got[i].second.prev, want[i].second.prev))
            << "run " << run << " op " << op;
        EXPECT_EQ(got[i].second.prev_is_write, want[i].second.prev_is_write)
            << "run " << run << " op " << op;
        EXPECT_EQ(got[i].second.offset, want[i].second.offset) << "run " << run << " op " << op;
      }
      ASSERT_EQ(same_shadow, same_model) << "run " << run << " op " << op;
      ASSERT_EQ(memory, model_memory) << "run " << run << " op " << op;
    }
    same_values += static_cast<int>(same_model);
  }
  EXPECT_GT(batches, 40000);
  EXPECT_GT(conflicts, 2000);
  EXPECT_GT(same_values, 100);
}

}  // namespace
}  // namespace warpcheck::sim::machine
