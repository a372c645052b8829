#include "sim/launch/sha256.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace warpcheck::sim::launch {
namespace {

std::string HexOf(const std::string& s) {
  return Sha256Hex(
      absl::Span<const uint8_t>(reinterpret_cast<const uint8_t*>(s.data()), s.size()));
}

// Expected digests from Python's hashlib.sha256.
TEST(Sha256Test, EmptyString) {
  EXPECT_EQ(HexOf(""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(Sha256Test, Abc) {
  EXPECT_EQ(HexOf("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

// 55 bytes fit the length in the same block; 56 need a second padding block; 64 is one
// full block plus a padding block.
TEST(Sha256Test, PaddingBoundaries) {
  EXPECT_EQ(HexOf(std::string(55, 'a')),
            "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
  EXPECT_EQ(HexOf(std::string(56, 'a')),
            "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
  EXPECT_EQ(HexOf(std::string(64, 'a')),
            "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
}

TEST(Sha256Test, AllByteValuesManyBlocks) {
  std::vector<uint8_t> data;
  for (int rep = 0; rep < 4; ++rep) {
    for (int i = 0; i < 256; ++i) data.push_back(static_cast<uint8_t>(i));
  }
  EXPECT_EQ(Sha256Hex(data),
            "785b0751fc2c53dc14a4ce3d800e69ef9ce1009eb327ccf458afe09c242c26c9");
}

}  // namespace
}  // namespace warpcheck::sim::launch
