#include "sim/launch/sha256.h"

#include <openssl/sha.h>

#include "absl/strings/escaping.h"
#include "absl/strings/string_view.h"
#include "sim/base/check.h"

namespace warpcheck::sim::launch {

std::array<uint8_t, 32> Sha256(absl::Span<const uint8_t> data) {
  static_assert(SHA256_DIGEST_LENGTH == 32);
  std::array<uint8_t, 32> digest;
  // OpenSSL's one-shot SHA256 cannot fail on a valid pointer; it returns `digest`.
  WARPCHECK_CHECK(SHA256(data.data(), data.size(), digest.data()) != nullptr);
  return digest;
}

std::string Sha256Hex(absl::Span<const uint8_t> data) {
  std::array<uint8_t, 32> digest = Sha256(data);
  return absl::BytesToHexString(
      absl::string_view(reinterpret_cast<const char*>(digest.data()), digest.size()));
}

}  // namespace warpcheck::sim::launch
