// SHA-256 (FIPS 180-4) of a byte string, as lowercase hex.
//
// This is the one hash every launch result uses: the simulator's report
// (`sim.buffers[].sha256`) and the GPU runner's (tools/gpu) hash buffer bytes with it, so
// equal hashes mean bit-identical buffers. Computed by OpenSSL's libcrypto (a shared
// library: tools/gpu/make_carry.sh packs it for the device machine with the others).
#ifndef WARPCHECK_SIM_LAUNCH_SHA256_H_
#define WARPCHECK_SIM_LAUNCH_SHA256_H_

#include <array>
#include <cstdint>
#include <string>

#include "absl/types/span.h"

namespace warpcheck::sim::launch {

// Ensures: the 32-byte digest of `data`.
[[nodiscard]] std::array<uint8_t, 32> Sha256(absl::Span<const uint8_t> data);

// Ensures: 64 lowercase hex digits, e.g. Sha256Hex("abc") = "ba7816bf...f20015ad".
[[nodiscard]] std::string Sha256Hex(absl::Span<const uint8_t> data);

}  // namespace warpcheck::sim::launch

#endif  // WARPCHECK_SIM_LAUNCH_SHA256_H_
