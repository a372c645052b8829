#include "sim/machine/memory.h"

#include <algorithm>

namespace warpcheck::sim::machine {

uint64_t GlobalMemory::Add(std::string name, std::vector<uint8_t> data) {
  auto r = std::make_unique<Region>();
  r->name = std::move(name);
  r->base = next_;
  r->size = data.size();
  r->data = std::move(data);
  // The next region starts past this one, 1 MiB aligned, with at least 1 MiB unmapped
  // in between so that overruns fault instead of landing in a neighbour.
  uint64_t end = r->base + std::max<uint64_t>(r->size, 1);
  next_ = (end + kRegionAlign - 1) / kRegionAlign * kRegionAlign + kRegionAlign;
  uint64_t base = r->base;
  regions_.push_back(std::move(r));
  return base;
}

Region* GlobalMemory::Candidate(uint64_t addr) const {
  // Regions are sorted by base: the candidate is the last one with base <= addr.
  auto it = std::upper_bound(
      regions_.begin(), regions_.end(), addr,
      [](uint64_t a, const std::unique_ptr<Region>& r) { return a < r->base; });
  return it == regions_.begin() ? nullptr : (it - 1)->get();
}

Region* GlobalMemory::RegionAtSlow(uint64_t addr) {
  Region* r = Candidate(addr);
  if (r == nullptr || addr - r->base >= r->size) return nullptr;
  last_ = r;
  return r;
}

}  // namespace warpcheck::sim::machine
