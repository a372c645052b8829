// Memories of the machine: the address map, global regions, and the shared-memory race
// shadow.
//
// Address map (64-bit generic addresses):
//
//   0                      null: every access faults (out_of_bounds)
//   kGlobalBase + ...      global buffers and .global/.const variables, each at a
//                          distinct 1 MiB-aligned address with an unmapped gap after it
//   kLocalWindow + off     the executing thread's .local memory
//   kSharedWindow + a      the executing CTA's shared memory (a from kSharedBase)
//
// State-space addresses (ld.shared, ld.local, ld.param) are offsets from 0 in their
// space; `cvta` adds or removes the window base. (The race shadow of shared memory is
// in race.h.)
#ifndef WARPCHECK_SIM_MACHINE_MEMORY_H_
#define WARPCHECK_SIM_MACHINE_MEMORY_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace warpcheck::sim::machine {

constexpr uint64_t kGlobalBase = 0x0000'7000'0000'0000ull;
constexpr uint64_t kRegionAlign = 1ull << 20;
constexpr uint64_t kLocalWindow = 0x0000'7ffe'0000'0000ull;
constexpr uint64_t kSharedWindow = 0x0000'7fff'0000'0000ull;
constexpr uint64_t kWindowSize = 1ull << 32;
// Shared-memory addresses start here: an H200 reserves the first 1 KiB of every CTA's
// shared window (measured: `mov.u32 %r, first_shared_array` gives 0x400 on sm_90).
constexpr uint32_t kSharedBase = 0x400;

// One global allocation (a buffer of the launch or a module variable).
struct Region {
  std::string name;
  uint64_t base = 0;
  uint64_t size = 0;
  std::vector<uint8_t> data;
};

class GlobalMemory {
 public:
  // Ensures: the region's base (1 MiB aligned, above every earlier region plus a gap).
  uint64_t Add(std::string name, std::vector<uint8_t> data);
  // Ensures: a pointer to `size` bytes at `addr` when they lie in one region, else null.
  uint8_t* Find(uint64_t addr, uint64_t size) {
    Region* r = RegionAt(addr);
    if (r == nullptr || addr + size - r->base > r->size) return nullptr;
    return r->data.data() + (addr - r->base);
  }
  // Ensures: the region whose bytes include `addr`, else null.
  Region* RegionAt(uint64_t addr) {
    if (last_ != nullptr && addr - last_->base < last_->size) return last_;
    return RegionAtSlow(addr);
  }
  const std::vector<std::unique_ptr<Region>>& regions() const { return regions_; }
  Region* region(size_t i) { return regions_[i].get(); }

 private:
  Region* RegionAtSlow(uint64_t addr);
  // The last region whose base is <= addr, else null.
  Region* Candidate(uint64_t addr) const;
  std::vector<std::unique_ptr<Region>> regions_;  // sorted by base
  Region* last_ = nullptr;
  uint64_t next_ = kGlobalBase;
};

}  // namespace warpcheck::sim::machine

#endif  // WARPCHECK_SIM_MACHINE_MEMORY_H_
