// Shared-memory race detection (shared/spec/ptx-subset.md, "Execution model").
//
// A race is two accesses to the same byte by different threads, at least one a write,
// with nothing ordering them. Orderings the machine knows:
//
//   CTA epoch      a bar.sync / barrier.sync that every live thread took part in ends
//                  an epoch; every access of an earlier epoch is ordered before every
//                  later one. (Most kernels need nothing else.)
//   warp syncs     bar.warp.sync, ldmatrix, stmatrix order the lanes they include:
//                  each sync bumps the warp's generation; a sync of all live lanes is
//                  "full". Lane K's access at generation g is ordered before lane L's
//                  later access when a full sync happened after g, or L's latest sync
//                  happened after g and included K. (Chains through several partial
//                  syncs are not followed: at worst a false race, never a missed one.)
//   warp clocks    a barrier among a subset of warps (bar.sync 1, 64) joins vector
//                  clocks over warps; warp W' is ordered before W when W's clock of W'
//                  passed the W' clock stamped on the access.
//
// Shadow memory follows FastTrack: per location the last write and the reads since
// it (in the current epoch). Locations are 4-byte words; a word touched by a 1- or
// 2-byte access splits into four byte cells (exact per-byte semantics) and merges back
// on the next whole-word write. Reader lists beyond the first reader live in a bump
// pool that is emptied at every new epoch, so steady-state checking allocates nothing.
//
// Pending readers. A reader list is only ever consulted by a later write of the same
// epoch (or copied when a word splits), and in the common kernel shape (store, barrier,
// load, barrier) no write follows the loads within their epoch. So a word-aligned read
// is checked against the cells' last writes at once (that conflict is reported by the
// read itself; a read outside the bytes written in the epoch so far has none to check
// and touches no cell), but joins the cells' reader lists later: it is logged, and the log
// is replayed in order (AddPendingReaders) before a write or a byte-granular read
// touches a word with a logged read (those are the only operations that read, reset or
// split a word's lists; on other words they commute with the pending additions, which
// touch other cells). Which words have logged reads is worked out only when needed: an
// access outside the log's byte range has none; one inside it first marks the words of
// the entries logged since the last marking (Cell::pending_epoch). A new epoch drops the
// log, because readers of an earlier epoch are never consulted. Every Read and Write
// therefore sees exactly the lists it would have seen with the readers added at once.
// (Loads of one buffer and stores into another within an epoch, as the round-trip
// harness does, replay nothing.) A warp instruction's reads are one log entry
// (ReadLanes: the lanes' offsets, each lane's thread being base tid + lane).
//
// A write that races only with earlier writes of the same bytes (Triton stores
// broadcast data from every thread that holds it) is not a fault; it is counted.
#ifndef WARPCHECK_SIM_MACHINE_RACE_H_
#define WARPCHECK_SIM_MACHINE_RACE_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/base/attributes.h"

namespace warpcheck::sim::machine {

// One access, as remembered by the shadow (16 bytes).
struct Stamp {
  uint32_t epoch = 0;  // CTA epoch + 1 (0: none)
  uint16_t tid = 0;
  uint16_t pc = 0;    // saturates at 0xFFFF
  uint32_t wgen = 0;  // the accessing warp's sync generation
  uint32_t wclk = 0;  // the accessing warp's own warp clock
};

// What the shadow needs to know about the accessing thread and its ordering state.
struct Accessor {
  Stamp me;
  uint32_t warp = 0;
  uint32_t lane = 0;
  // Ordering knowledge: the warp's last full sync, this lane's latest sync and who was
  // in it, and this warp's view of every warp's clock.
  uint32_t last_full_gen = 0;
  uint32_t lane_gen = 0;
  uint32_t lane_sync_mask = 0;
  const uint32_t* warp_view = nullptr;
  // The warp's per-lane ordering state, for ReadLanes/WriteLanes, which move the
  // accessor from lane to lane themselves: lane L is thread base_tid + L with
  // lane_gens[L] and lane_sync_masks[L] (Machine::MakeAccessor sets them).
  uint32_t base_tid = 0;
  const uint32_t* lane_gens = nullptr;
  const uint32_t* lane_sync_masks = nullptr;
  // Makes this the accessor of lane `lane` of the warp (requires the three above).
  void SetLane(uint32_t l) {
    me.tid = uint16_t(base_tid + l);
    lane = l;
    lane_gen = lane_gens[l];
    lane_sync_mask = lane_sync_masks[l];
  }
};

// A race found by Read/Write: the earlier access it conflicts with.
struct Conflict {
  bool found = false;
  Stamp prev;
  bool prev_is_write = false;
  uint32_t offset = 0;  // byte offset of the first conflicting byte
};

class RaceShadow {
 public:
  // `bytes` of shared memory, accessed by threads with tids below `threads`.
  void Reset(uint32_t bytes, uint32_t threads);
  // Call when the CTA epoch advances (old readers are dead: their pool is reused, and
  // pending ones are dropped unrecorded).
  void NewEpoch() {
    pool_.clear();
    pending_.clear();
    pending_used_ = 0;
    pending_marked_ = 0;
    pending_lo_ = ~uint32_t{0};
    pending_hi_ = 0;
    written_lo_ = ~uint32_t{0};
    written_hi_ = 0;
  }

  // Checks and records a read / write of [offset, offset + size). `data` (writes) is
  // the bytes being written, compared with `memory` (the current contents) to tell
  // benign same-value writes; `*same_value` counts those.
  Conflict Read(const Accessor& a, uint32_t offset, uint32_t size);
  // One warp instruction's word-aligned reads: lane L of *lanes reads
  // [offsets[L], offsets[L] + size), lanes in increasing order, exactly as a.SetLane(L)
  // then Read(a, offsets[L], size) for each. Requires: size a multiple of 4, every
  // offset a multiple of 4, a.lane_gens and a.lane_sync_masks set. Stops after the first
  // lane whose read conflicts: returns its conflict, sets *lane to it and clears it and
  // the lanes before it from *lanes (call again for the rest); otherwise returns no
  // conflict with *lanes 0. One pending-log entry per call instead of one per lane.
  // [lo, hi) covers the bytes of every lane of *lanes (a superset will do: it only
  // decides which words may be looked at; the caller has it from its address pass).
  Conflict ReadLanes(const Accessor& a, uint32_t* lanes, const uint32_t offsets[32],
                     uint32_t size, uint32_t* lane, uint32_t lo, uint32_t hi);
  // The same for one warp instruction's word-aligned writes: for lane L of *lanes in
  // increasing order, a.SetLane(L), Write(a, offsets[L], size, data + L * size, memory,
  // same_value), then lane L's bytes copied to memory + offsets[L] (so a lane's
  // same-value test sees the lanes before it). Stops at the first lane whose write
  // conflicts, before copying its bytes: returns its conflict, sets *lane to it and
  // clears it and the lanes before it from *lanes; the caller copies its bytes (or stops)
  // and calls again for the rest. Requires what ReadLanes requires.
  Conflict WriteLanes(const Accessor& a, uint32_t* lanes, const uint32_t offsets[32],
                      uint32_t size, const uint8_t* data, uint8_t* memory,
                      uint64_t* same_value, uint32_t* lane);
  Conflict Write(const Accessor& a, uint32_t offset, uint32_t size, const uint8_t* data,
                 const uint8_t* memory, uint64_t* same_value);

 private:
  // WriteLanes for accesses of kWords words (0: size / 4, any multiple of 4).
  template <uint32_t kWords>
  Conflict WriteLanesOf(const Accessor& a, uint32_t* lanes, const uint32_t offsets[32],
                        uint32_t size, const uint8_t* data, uint8_t* memory,
                        uint64_t* same_value, uint32_t* lane);
  static constexpr uint32_t kSeenWords = 8;  // 512 threads
  struct Cell {
    Stamp write;
    Stamp read;          // the first reader of read.epoch
    uint32_t more = 0;   // 1 + pool index of further readers (valid with read.epoch)
    uint32_t tail = 0;   // 1 + pool index of the last node of that list (0: none)
    // Whether a thread may already be in the list: bit (tid % (64 * seen_words_)) of
    // every reader, and the largest tid. A reader whose bit is clear, or whose tid is
    // above every tid read so far, is not in the list and is appended at `tail` without
    // walking it (threads reach a word in mostly increasing tid order, and most words
    // have a few readers). Only the first seen_words_ words are used (set by the first
    // reader of an epoch): exact for CTAs of up to 16 warps, where only a thread that
    // reads a word a second time in an epoch walks. (With 128 bits, 8- and 16-warp CTAs
    // walked whole lists whenever a lower warp reached a word after a higher one: thread
    // t + 128 found thread t's bit.)
    uint64_t seen[kSeenWords];
    uint16_t max_tid = 0;
    uint8_t split = 0;  // word cells: 1 when the word lives in byte cells
    uint32_t group = 0;  // word cells: 1 + index of its four byte cells in bytes_ (0: none yet)
    // Word cells: the epoch of a logged read of this word not yet added to its readers
    // (0 or an earlier epoch: none). Set for the log's first pending_marked_ entries only:
    // words are marked when a write or byte read first falls inside the log's byte range.
    uint32_t pending_epoch = 0;
  };
  struct Node {
    static constexpr uint32_t kStamps = 3;
    Stamp s[kStamps];
    uint32_t count = 0;
    uint32_t next = 0;  // 1 + index, 0 = end
  };

  static inline bool Ordered(const Accessor& a, const Stamp& s);
  inline void CheckRead(const Accessor& a, const Cell& c, uint32_t offset, Conflict* out);
  // Checks and records a write of the whole aligned word `w` (`d` its new bytes, `m`
  // its current ones); a word split into byte cells is merged back into one write.
  // (Always inline: gcc kept it out of line in WriteLanesOf's instantiations, a call per
  // lane and word.)
  ABSL_ATTRIBUTE_ALWAYS_INLINE inline void CheckWordWrite(const Accessor& a, uint32_t w,
                                                          const uint8_t* d, const uint8_t* m,
                                                          uint64_t* same_value,
                                                          Conflict* out);
  // Checks and records a write of kBytes bytes of one cell: `d` the new bytes, `m` the
  // current ones (compared only when an unordered earlier write is found).
  template <uint32_t kBytes>
  inline void CheckWrite(const Accessor& a, Cell& c, uint32_t offset, const uint8_t* d,
                         const uint8_t* m, uint64_t* same_count, Conflict* out);
  // CheckWrite's walk of the readers after the first (the first is ordered).
  void CheckListedReaders(const Accessor& a, const Cell& c, uint32_t offset, Conflict* out);
  // Records a read by `me` in the cell's readers.
  inline void AddReader(const Stamp& me, Cell& c);
  // AddReader's case of a thread that may be in the list (its seen bit is set and its
  // tid is not above max_tid): update its stamp there, or append it.
  void AddListedReader(const Stamp& me, Cell& c);
  // Appends a thread known not to be in the list.
  inline void AppendReader(const Stamp& me, Cell& c);
  // AppendReader's case of a full (or no) last node.
  void AppendNode(const Stamp& me, Cell& c);
  // Records the pending word-aligned reads in their cells, in the order they were made.
  void AddPendingReaders();
  // AddPendingReaders when a word of [offset, offset + size) has a pending read.
  inline void AddPendingReadersOf(uint32_t offset, uint32_t size, uint32_t epoch);
  // Marks the words of the log's entries from pending_marked_ on (Cell::pending_epoch).
  void MarkPendingWords(uint32_t epoch);
  // Room for n more offsets in the log: where the next goes.
  inline uint32_t* PendingOffsets(uint32_t n);
  // Widen [pending_lo_, pending_hi_) and [written_lo_, written_hi_) to cover [lo, hi).
  inline void WidenPending(uint32_t lo, uint32_t hi);
  inline void WidenWritten(uint32_t lo, uint32_t hi);
  // Moves word `word` into its byte cells (`epoch`: the accessing thread's).
  void Split(uint32_t word, uint32_t epoch);
  // A copy of the list at `more`: its head, and its last node in *tail.
  uint32_t CopyList(uint32_t more, uint32_t* tail);
  Cell* ByteCells(const Cell& word) { return &bytes_[size_t{word.group - 1} * 4]; }

  // The words of Cell::seen in use: a power of two, 64 * seen_words_ >= the CTA's
  // threads up to 512; tid selects word (tid / 64) & (seen_words_ - 1).
  uint32_t seen_words_ = kSeenWords;
  std::vector<Cell> words_;
  // Byte cells, four per word that was ever split (Cell::group), made on its first split:
  // most words never split, and making 4 cells for every word made Reset the larger cost
  // of a small launch.
  std::vector<Cell> bytes_;
  std::vector<Node> pool_;
  // Word-aligned reads of this epoch checked against the last writes but not yet added
  // to their cells' readers (the header's "Pending readers").
  // One entry per Read or ReadLanes call: lane L of `mask` (in increasing order) is
  // thread me.tid + L reading `size` bytes at the next offset of pending_offsets_ from
  // `first` on (Read: mask 1, its own tid).
  struct PendingRead {
    Stamp me;
    uint32_t mask = 0;
    uint32_t size = 0;
    uint32_t first = 0;
  };
  std::vector<PendingRead> pending_;
  std::vector<uint32_t> pending_offsets_;  // the first pending_used_ are the log's
  size_t pending_used_ = 0;
  // The log's entries whose words carry their pending_epoch mark, and the bytes the
  // log covers ([pending_lo_, pending_hi_); empty: lo > hi).
  size_t pending_marked_ = 0;
  uint32_t pending_lo_ = ~uint32_t{0};
  uint32_t pending_hi_ = 0;
  // The bytes written in this epoch ([written_lo_, written_hi_), a superset; empty:
  // lo > hi): a read outside it meets no write of the epoch, so it cannot conflict and
  // its cells are not looked at.
  uint32_t written_lo_ = ~uint32_t{0};
  uint32_t written_hi_ = 0;
};

}  // namespace warpcheck::sim::machine

#endif  // WARPCHECK_SIM_MACHINE_RACE_H_
