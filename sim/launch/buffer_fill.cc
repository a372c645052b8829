#include "sim/launch/buffer_fill.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <system_error>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "sim/base/file.h"

namespace warpcheck::sim::launch {
namespace {

std::string Describe(const BufferParam& b) {
  return absl::StrCat("buffer \"", b.name(), "\" (", BufferParam::Fill_Name(b.fill()),
                      ", ", b.size_bytes(), " bytes)");
}

uint64_t SplitMix64(uint64_t& state) {
  state += 0x9E3779B97F4A7C15ull;
  uint64_t z = state;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

absl::StatusOr<std::vector<uint8_t>> ReadFileFill(const BufferParam& b,
                                                  const std::string& spec_dir) {
  if (b.path().empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(Describe(b), ": FILE fill needs `path`"));
  }
  std::string path = b.path();
  if (path[0] != '/' && !spec_dir.empty()) path = absl::StrCat(spec_dir, "/", path);
  // The size first, so that an oversized file is refused without being read.
  std::error_code size_error;
  const uintmax_t file_size = std::filesystem::file_size(path, size_error);
  if (size_error)
    return absl::NotFoundError(absl::StrCat(Describe(b), ": cannot read ", path));
  if (static_cast<uint64_t>(file_size) > kMaxBufferBytes) {
    return absl::ResourceExhaustedError(absl::StrCat(
        Describe(b), ": ", path, " is larger than ", kMaxBufferBytes, " bytes"));
  }
  if (b.size_bytes() != 0 && b.size_bytes() != static_cast<uint64_t>(file_size)) {
    return absl::InvalidArgumentError(absl::StrCat(Describe(b), ": ", path, " has ",
                                                   file_size, " bytes, size_bytes says ",
                                                   b.size_bytes()));
  }
  absl::StatusOr<std::string> text = base::ReadFile(path);
  if (!text.ok())
    return absl::NotFoundError(absl::StrCat(Describe(b), ": cannot read ", path));
  if (text->size() < file_size)
    return absl::NotFoundError(absl::StrCat(Describe(b), ": short read from ", path));
  return std::vector<uint8_t>(text->begin(), text->begin() + file_size);
}

// `n` bytes of SplitMix64 words from `seed`: whole words little-endian, the tail from one
// more word's low bytes. Appended a chunk at a time from the stack, never zero-filled
// first (a vector made at its size is, which cost as many instructions as the fill).
std::vector<uint8_t> RandomBytes(size_t n, uint64_t seed) {
  std::vector<uint8_t> bytes;
  bytes.reserve(n);
  uint64_t state = seed;
  uint8_t chunk[512];  // a multiple of 8: every word fits whole, also the tail's
  while (bytes.size() < n) {
    const size_t take = std::min(sizeof chunk, n - bytes.size());
    for (size_t i = 0; i < take; i += 8) {
      uint64_t word = SplitMix64(state);
      // The byte order of `word >> 8k` is little-endian: on a big-endian host the bytes
      // are swapped first.
      if constexpr (std::endian::native == std::endian::big) word = __builtin_bswap64(word);
      std::memcpy(chunk + i, &word, 8);
    }
    bytes.insert(bytes.end(), chunk, chunk + take);
  }
  return bytes;
}

}  // namespace

absl::StatusOr<std::vector<uint8_t>> FillBuffer(const BufferParam& b,
                                                const std::string& spec_dir) {
  if (b.fill() == BufferParam::FILE) return ReadFileFill(b, spec_dir);
  if (b.size_bytes() > kMaxBufferBytes) {
    return absl::ResourceExhaustedError(
        absl::StrCat(Describe(b), ": larger than ", kMaxBufferBytes, " bytes"));
  }
  uint32_t element_bytes = b.element_bytes() == 0 ? 1 : b.element_bytes();
  if (element_bytes != 1 && element_bytes != 2 && element_bytes != 4 &&
      element_bytes != 8) {
    return absl::InvalidArgumentError(absl::StrCat(
        Describe(b), ": element_bytes must be 1, 2, 4 or 8, got ", element_bytes));
  }
  const size_t size = static_cast<size_t>(b.size_bytes());
  // Each fill makes its vector with its bytes (one pass over the memory, not a zero fill
  // and then another).
  switch (b.fill()) {
    case BufferParam::ZERO:
      return std::vector<uint8_t>(size, 0);
    case BufferParam::POISON:
      return std::vector<uint8_t>(size, 0xA5);
    case BufferParam::RANDOM:
      return RandomBytes(size, b.seed());
    case BufferParam::IOTA: {
      std::vector<uint8_t> bytes(size);
      if (bytes.size() % element_bytes != 0) {
        return absl::InvalidArgumentError(
            absl::StrCat(Describe(b), ": IOTA size is not a multiple of element_bytes ",
                         element_bytes));
      }
      // i mod 2^(8*element_bytes) little-endian: the low element_bytes bytes of i, one
      // store of the element's width each.
      const uint64_t n = bytes.size() / element_bytes;
      auto iota = [&]<typename T>(T) {
        for (uint64_t i = 0; i < n; ++i) {
          const T v = static_cast<T>(i);
          if constexpr (std::endian::native == std::endian::little) {
            std::memcpy(bytes.data() + i * sizeof(T), &v, sizeof(T));
          } else {
            for (size_t k = 0; k < sizeof(T); ++k) {
              bytes[i * sizeof(T) + k] = static_cast<uint8_t>(v >> (8 * k));
            }
          }
        }
      };
      switch (element_bytes) {
        case 1: iota(uint8_t{}); break;
        case 2: iota(uint16_t{}); break;
        case 4: iota(uint32_t{}); break;
        default: iota(uint64_t{}); break;
      }
      return bytes;
    }
    default:
      return absl::InvalidArgumentError(
          absl::StrCat(Describe(b), ": unknown fill ", static_cast<int>(b.fill())));
  }
}

}  // namespace warpcheck::sim::launch
