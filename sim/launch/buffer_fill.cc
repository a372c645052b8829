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
  std::vector<uint8_t> bytes(static_cast<size_t>(b.size_bytes()));
  switch (b.fill()) {
    case BufferParam::ZERO:
      break;
    case BufferParam::POISON:
      std::fill(bytes.begin(), bytes.end(), uint8_t{0xA5});
      break;
    case BufferParam::IOTA: {
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
      break;
    }
    case BufferParam::RANDOM: {
      uint64_t state = b.seed();
      // Whole words as one store each (the byte order of `word >> 8k` is little-endian:
      // on a big-endian host the bytes are swapped first), then the tail byte by byte.
      const size_t whole = bytes.size() / 8 * 8;
      for (size_t i = 0; i < whole; i += 8) {
        uint64_t word = SplitMix64(state);
        if constexpr (std::endian::native == std::endian::big) word = __builtin_bswap64(word);
        std::memcpy(bytes.data() + i, &word, 8);
      }
      if (whole < bytes.size()) {
        const uint64_t word = SplitMix64(state);
        for (size_t k = 0; whole + k < bytes.size(); ++k) {
          bytes[whole + k] = static_cast<uint8_t>(word >> (8 * k));
        }
      }
      break;
    }
    default:
      return absl::InvalidArgumentError(
          absl::StrCat(Describe(b), ": unknown fill ", static_cast<int>(b.fill())));
  }
  return bytes;
}

}  // namespace warpcheck::sim::launch
