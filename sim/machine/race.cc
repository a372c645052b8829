#include "sim/machine/race.h"

#include <algorithm>
#include <cstring>

namespace warpcheck::sim::machine {

void RaceShadow::Reset(uint32_t bytes, uint32_t threads) {
  seen_words_ = 1;
  while (seen_words_ < kSeenWords && 64 * seen_words_ < threads) seen_words_ *= 2;
  uint32_t words = (bytes + 3) / 4;
  words_.assign(words, Cell{});
  bytes_.clear();
  NewEpoch();
  // A launch's CTA starts with an empty pool; most reader lists of a small kernel fit
  // in this (growing from nothing copied the pool a dozen times per launch).
  pool_.reserve(256);
  pending_.reserve(512);  // likewise the pending reads of an epoch
  if (pending_offsets_.size() < 1024) pending_offsets_.resize(1024);
}

inline bool RaceShadow::Ordered(const Accessor& a, const Stamp& s) {
  if (s.epoch != a.me.epoch || s.tid == a.me.tid) return true;
  uint32_t other_warp = s.tid / 32;
  if (other_warp == a.warp) {
    if (a.last_full_gen > s.wgen) return true;
    return a.lane_gen > s.wgen && ((a.lane_sync_mask >> (s.tid % 32)) & 1);
  }
  return a.warp_view[other_warp] > s.wclk;
}

// A read's check against the cell's last write (inline in Read's word loop). The read
// joins the cell's readers later (AddReader, from the pending log or at once).
inline void RaceShadow::CheckRead(const Accessor& a, const Cell& c, uint32_t offset,
                                  Conflict* out) {
  if (!out->found && c.write.epoch == a.me.epoch && !Ordered(a, c.write)) {
    out->found = true;
    out->prev = c.write;
    out->prev_is_write = true;
    out->offset = offset;
  }
}

// Inline in Read's word loop (one call per lane and word: the call itself was a sixth
// of the function's cost); a walk of the list is AddListedReader.
inline void RaceShadow::AddReader(const Stamp& me, Cell& c) {
  const uint32_t word = (me.tid >> 6) & (seen_words_ - 1);
  const uint64_t bit = uint64_t{1} << (me.tid & 63);
  if (c.read.epoch != me.epoch) {
    c.read = me;
    c.more = 0;
    c.tail = 0;
    // All kSeenWords words (a few fixed-size stores; a loop of seen_words_ became a
    // memset call): the words from seen_words_ on are never read.
    std::memset(c.seen, 0, sizeof c.seen);
    c.seen[word] = bit;
    c.max_tid = me.tid;
    return;
  }
  if (c.read.tid == me.tid) {
    c.read = me;
    return;
  }
  if ((c.seen[word] & bit) != 0 && me.tid <= c.max_tid) {
    AddListedReader(me, c);
    return;
  }
  AppendReader(me, c);
}

void RaceShadow::AddListedReader(const Stamp& me, Cell& c) {
  // Update this thread's stamp where it is listed, or append it.
  for (uint32_t idx = c.more; idx != 0;) {
    Node& n = pool_[idx - 1];
    for (uint32_t i = 0; i < n.count; ++i) {
      if (n.s[i].tid == me.tid) {
        n.s[i] = me;
        return;
      }
    }
    idx = n.next;
  }
  AppendReader(me, c);
}

inline void RaceShadow::AppendReader(const Stamp& me, Cell& c) {
  c.seen[(me.tid >> 6) & (seen_words_ - 1)] |= uint64_t{1} << (me.tid & 63);
  c.max_tid = me.tid > c.max_tid ? me.tid : c.max_tid;
  if (c.tail != 0) {
    Node& n = pool_[c.tail - 1];
    if (n.count < Node::kStamps) {
      n.s[n.count++] = me;
      return;
    }
  }
  AppendNode(me, c);
}

void RaceShadow::AppendNode(const Stamp& me, Cell& c) {
  const uint32_t last = c.tail;
  pool_.push_back(Node{});
  Node& n = pool_.back();
  n.s[0] = me;
  n.count = 1;
  uint32_t fresh = static_cast<uint32_t>(pool_.size());
  if (last == 0) {
    c.more = fresh;
  } else {
    pool_[last - 1].next = fresh;
  }
  c.tail = fresh;
}

// Inline in Write's word loop; the reader list beyond the first reader is
// CheckListedReaders.
template <uint32_t kBytes>
inline void RaceShadow::CheckWrite(const Accessor& a, Cell& c, uint32_t offset,
                                   const uint8_t* d, const uint8_t* m, uint64_t* same_count,
                                   Conflict* out) {
  if (c.write.epoch == a.me.epoch && !Ordered(a, c.write)) {
    // The bytes are compared only here, for an unordered earlier write (the same-value
    // rule), not for every write.
    if (std::memcmp(d, m, kBytes) == 0) {
      ++*same_count;
    } else if (!out->found) {
      out->found = true;
      out->prev = c.write;
      out->prev_is_write = true;
      out->offset = offset;
    }
  }
  if (c.read.epoch == a.me.epoch && !out->found) {
    if (!Ordered(a, c.read)) {
      out->found = true;
      out->prev = c.read;
      out->offset = offset;
    } else if (c.more != 0) {
      CheckListedReaders(a, c, offset, out);
    }
  }
  c.write = a.me;
  c.read.epoch = 0;
  c.more = 0;
  c.tail = 0;
}

inline void RaceShadow::CheckWordWrite(const Accessor& a, uint32_t w, const uint8_t* d,
                                       const uint8_t* m, uint64_t* same_value,
                                       Conflict* out) {
  Cell& c = words_[w];
  if (c.split) {
    Cell* cells = ByteCells(c);
    for (uint32_t b = 0; b < 4; ++b) {
      CheckWrite<1>(a, cells[b], 4 * w + b, d + b, m + b, same_value, out);
    }
    // The whole word is now one write: merge back.
    c.write = a.me;
    c.read.epoch = 0;
    c.more = 0;
    c.tail = 0;
    c.split = 0;
  } else {
    CheckWrite<4>(a, c, 4 * w, d, m, same_value, out);
  }
}

void RaceShadow::CheckListedReaders(const Accessor& a, const Cell& c, uint32_t offset,
                                    Conflict* out) {
  for (uint32_t idx = c.more; idx != 0 && !out->found; idx = pool_[idx - 1].next) {
    const Node& n = pool_[idx - 1];
    for (uint32_t i = 0; i < n.count; ++i) {
      if (!Ordered(a, n.s[i])) {
        out->found = true;
        out->prev = n.s[i];
        out->offset = offset;
        break;
      }
    }
  }
}

uint32_t RaceShadow::CopyList(uint32_t more, uint32_t* last) {
  uint32_t head = 0, tail = 0;
  for (uint32_t idx = more; idx != 0;) {
    Node copy = pool_[idx - 1];
    uint32_t next = copy.next;
    copy.next = 0;
    pool_.push_back(copy);
    uint32_t fresh = static_cast<uint32_t>(pool_.size());
    if (tail == 0) {
      head = fresh;
    } else {
      pool_[tail - 1].next = fresh;
    }
    tail = fresh;
    idx = next;
  }
  *last = tail;
  return head;
}

void RaceShadow::Split(uint32_t word, uint32_t epoch) {
  if (words_[word].group == 0) {
    bytes_.resize(bytes_.size() + 4);
    words_[word].group = static_cast<uint32_t>(bytes_.size() / 4);
  }
  Cell& w = words_[word];
  // A reader list of an earlier epoch points into a pool that NewEpoch emptied: it is
  // never read again (readers count only in their epoch), so it is dropped, not copied.
  if (w.read.epoch != epoch) {
    w.more = 0;
    w.tail = 0;
  }
  Cell* cells = ByteCells(w);
  for (int b = 0; b < 4; ++b) {
    Cell& c = cells[b];
    c = w;
    c.split = 0;
    c.group = 0;
    if (w.more != 0 && b != 0) c.more = CopyList(w.more, &c.tail);
  }
  w.split = 1;
}

void RaceShadow::AddPendingReaders() {
  for (const PendingRead& p : pending_) {
    const uint32_t* offset = pending_offsets_.data() + p.first;
    Stamp me = p.me;
    for (uint32_t m = p.mask; m != 0; m &= m - 1) {
      me.tid = uint16_t(p.me.tid + __builtin_ctz(m));
      const uint32_t at = *offset++;
      for (uint32_t w = at / 4; w < (at + p.size) / 4; ++w) {
        Cell& c = words_[w];
        c.pending_epoch = 0;
        if (c.split) {
          Cell* cells = ByteCells(c);
          for (uint32_t b = 0; b < 4; ++b) AddReader(me, cells[b]);
        } else {
          AddReader(me, c);
        }
      }
    }
  }
  pending_.clear();
  pending_used_ = 0;
  pending_marked_ = 0;
  pending_lo_ = ~uint32_t{0};
  pending_hi_ = 0;
}

void RaceShadow::MarkPendingWords(uint32_t epoch) {
  for (; pending_marked_ < pending_.size(); ++pending_marked_) {
    const PendingRead& p = pending_[pending_marked_];
    const uint32_t* offset = pending_offsets_.data() + p.first;
    for (uint32_t m = p.mask; m != 0; m &= m - 1) {
      const uint32_t at = *offset++;
      for (uint32_t w = at / 4; w < (at + p.size) / 4; ++w) words_[w].pending_epoch = epoch;
    }
  }
}

inline void RaceShadow::AddPendingReadersOf(uint32_t offset, uint32_t size, uint32_t epoch) {
  if (pending_.empty() || offset >= pending_hi_ || offset + size <= pending_lo_) return;
  MarkPendingWords(epoch);
  for (uint32_t w = offset / 4; w <= (offset + size - 1) / 4; ++w) {
    if (words_[w].pending_epoch == epoch) {
      AddPendingReaders();
      return;
    }
  }
}

inline uint32_t* RaceShadow::PendingOffsets(uint32_t n) {
  if (pending_used_ + n > pending_offsets_.size()) {
    pending_offsets_.resize(std::max(2 * pending_offsets_.size(), pending_used_ + n));
  }
  return pending_offsets_.data() + pending_used_;
}

inline void RaceShadow::WidenPending(uint32_t lo, uint32_t hi) {
  pending_lo_ = lo < pending_lo_ ? lo : pending_lo_;
  pending_hi_ = hi > pending_hi_ ? hi : pending_hi_;
}

inline void RaceShadow::WidenWritten(uint32_t lo, uint32_t hi) {
  written_lo_ = lo < written_lo_ ? lo : written_lo_;
  written_hi_ = hi > written_hi_ ? hi : written_hi_;
}

Conflict RaceShadow::Read(const Accessor& a, uint32_t offset, uint32_t size) {
  Conflict out;
  if ((offset & 3) == 0 && (size & 3) == 0) {
    if (offset < written_hi_ && offset + size > written_lo_) {
      for (uint32_t w = offset / 4; w < (offset + size) / 4; ++w) {
        const Cell& c = words_[w];
        if (c.split) {
          const Cell* cells = ByteCells(c);
          for (uint32_t b = 0; b < 4; ++b) CheckRead(a, cells[b], 4 * w + b, &out);
        } else {
          CheckRead(a, c, 4 * w, &out);
        }
      }
    }
    pending_.push_back(PendingRead{a.me, 1, size, static_cast<uint32_t>(pending_used_)});
    *PendingOffsets(1) = offset;
    ++pending_used_;
    WidenPending(offset, offset + size);
    return out;
  }
  AddPendingReadersOf(offset, size, a.me.epoch);
  for (uint32_t at = offset; at < offset + size; ++at) {
    uint32_t w = at / 4;
    if (!words_[w].split) Split(w, a.me.epoch);
    Cell& c = ByteCells(words_[w])[at % 4];
    CheckRead(a, c, at, &out);
    AddReader(a.me, c);
  }
  return out;
}

Conflict RaceShadow::ReadLanes(const Accessor& a, uint32_t* lanes,
                               const uint32_t offsets[32], uint32_t size, uint32_t* lane,
                               uint32_t lo, uint32_t hi) {
  Conflict out;
  const uint32_t first = static_cast<uint32_t>(pending_used_);
  uint32_t* slot = PendingOffsets(32);
  uint32_t m = *lanes, done = 0;
  // [lo, hi): a superset of the bytes the lanes read (and of those logged when a
  // conflict stops early).
  WidenPending(lo, hi);
  if (hi <= written_lo_ || lo >= written_hi_) {
    // No cell of [lo, hi) holds a write of this epoch, so no read conflicts: only the log.
    done = m;
    if (m == 0xFFFFFFFFu) {
      std::memcpy(slot, offsets, 32 * sizeof(uint32_t));
      slot += 32;
      m = 0;
    }
    for (; m != 0; m &= m - 1) *slot++ = offsets[__builtin_ctz(m)];
  } else {
    Accessor at_lane = a;  // moved to a lane only when a check needs its ordering state
    const uint32_t epoch = a.me.epoch;
    const uint32_t words = size / 4;
    while (m != 0) {
      const uint32_t l = static_cast<uint32_t>(__builtin_ctz(m));
      m &= m - 1;
      done |= uint32_t{1} << l;
      const uint32_t offset = offsets[l];
      *slot++ = offset;
      for (uint32_t w = offset / 4; w < offset / 4 + words; ++w) {
        const Cell& c = words_[w];
        if (c.split) {
          const Cell* cells = ByteCells(c);
          for (uint32_t b = 0; b < 4; ++b) {
            if (cells[b].write.epoch != epoch) continue;
            at_lane.SetLane(l);
            CheckRead(at_lane, cells[b], 4 * w + b, &out);
          }
        } else if (c.write.epoch == epoch) {
          at_lane.SetLane(l);
          CheckRead(at_lane, c, 4 * w, &out);
        }
      }
      if (out.found) {
        *lane = l;
        break;
      }
    }
  }
  pending_used_ = static_cast<size_t>(slot - pending_offsets_.data());
  Stamp me = a.me;
  me.tid = uint16_t(a.base_tid);
  pending_.push_back(PendingRead{me, done, size, first});
  *lanes = m;
  return out;
}

Conflict RaceShadow::Write(const Accessor& a, uint32_t offset, uint32_t size,
                           const uint8_t* data, const uint8_t* memory,
                           uint64_t* same_value) {
  AddPendingReadersOf(offset, size, a.me.epoch);
  WidenWritten(offset, offset + size);
  Conflict out;
  if ((offset & 3) == 0 && (size & 3) == 0) {
    for (uint32_t w = offset / 4; w < (offset + size) / 4; ++w) {
      CheckWordWrite(a, w, data + (4 * w - offset), memory + 4 * w, same_value, &out);
    }
    return out;
  }
  for (uint32_t at = offset; at < offset + size; ++at) {
    uint32_t w = at / 4;
    if (!words_[w].split) Split(w, a.me.epoch);
    CheckWrite<1>(a, ByteCells(words_[w])[at % 4], at, data + (at - offset), memory + at,
               same_value, &out);
  }
  return out;
}

Conflict RaceShadow::WriteLanes(const Accessor& a, uint32_t* lanes,
                                const uint32_t offsets[32], uint32_t size,
                                const uint8_t* data, uint8_t* memory, uint64_t* same_value,
                                uint32_t* lane) {
  // The common sizes with the word count and the copy fixed at compile time.
  switch (size) {
    case 4: return WriteLanesOf<1>(a, lanes, offsets, size, data, memory, same_value, lane);
    case 8: return WriteLanesOf<2>(a, lanes, offsets, size, data, memory, same_value, lane);
    case 16: return WriteLanesOf<4>(a, lanes, offsets, size, data, memory, same_value, lane);
    default: return WriteLanesOf<0>(a, lanes, offsets, size, data, memory, same_value, lane);
  }
}

template <uint32_t kWords>
Conflict RaceShadow::WriteLanesOf(const Accessor& a, uint32_t* lanes,
                                  const uint32_t offsets[32], uint32_t size,
                                  const uint8_t* data, uint8_t* memory,
                                  uint64_t* same_value, uint32_t* lane) {
  Conflict out;
  Accessor at_lane = a;
  const uint32_t epoch = a.me.epoch;
  const uint32_t words = kWords != 0 ? kWords : size / 4;
  const uint32_t bytes = 4 * words;
  uint32_t m = *lanes;
  uint32_t lo = ~uint32_t{0}, hi = 0;  // the bytes of the lanes written (checked) so far
  while (m != 0) {
    const uint32_t l = static_cast<uint32_t>(__builtin_ctz(m));
    m &= m - 1;
    at_lane.SetLane(l);
    const uint32_t offset = offsets[l];
    const uint8_t* d = data + size_t{l} * bytes;
    lo = offset < lo ? offset : lo;
    hi = offset > hi ? offset : hi;
    AddPendingReadersOf(offset, bytes, epoch);
    const uint32_t w0 = offset / 4;
    for (uint32_t k = 0; k < words; ++k) {
      CheckWordWrite(at_lane, w0 + k, d + 4 * k, memory + 4 * (w0 + k), same_value, &out);
    }
    if (out.found) {
      *lane = l;
      break;
    }
    std::memcpy(memory + offset, d, bytes);  // a fixed-size move for kWords != 0
  }
  if (lo <= hi) WidenWritten(lo, hi + bytes);
  *lanes = m;
  return out;
}

}  // namespace warpcheck::sim::machine
