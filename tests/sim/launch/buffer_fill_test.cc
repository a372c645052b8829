#include "sim/launch/buffer_fill.h"

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/launch/sha256.h"
#include "tests/testing/status_matchers.h"

namespace warpcheck::sim::launch {
namespace {

using ::testing::Each;
using ::testing::ElementsAre;
using ::testing::Eq;

BufferParam Buffer(BufferParam::Fill fill, uint64_t size, uint32_t element_bytes = 0,
                   uint64_t seed = 0) {
  BufferParam b;
  b.set_name("in");
  b.set_fill(fill);
  b.set_size_bytes(size);
  b.set_element_bytes(element_bytes);
  b.set_seed(seed);
  return b;
}

TEST(FillBufferTest, ZeroAndPoison) {
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> zero,
                       FillBuffer(Buffer(BufferParam::ZERO, 5), ""));
  EXPECT_THAT(zero, ElementsAre(0, 0, 0, 0, 0));
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> poison,
                       FillBuffer(Buffer(BufferParam::POISON, 300), ""));
  EXPECT_EQ(poison.size(), 300u);
  EXPECT_THAT(poison, Each(Eq(0xA5)));
}

TEST(FillBufferTest, IotaBytesWrapsAt256) {
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> b,
                       FillBuffer(Buffer(BufferParam::IOTA, 258), ""));
  EXPECT_EQ(b[0], 0);
  EXPECT_EQ(b[255], 255);
  EXPECT_EQ(b[256], 0);
  EXPECT_EQ(b[257], 1);
}

TEST(FillBufferTest, IotaIsLittleEndianPerElement) {
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> h,
                       FillBuffer(Buffer(BufferParam::IOTA, 6, 2), ""));
  EXPECT_THAT(h, ElementsAre(0x00, 0x00, 0x01, 0x00, 0x02, 0x00));
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> w,
                       FillBuffer(Buffer(BufferParam::IOTA, 8, 4), ""));
  EXPECT_THAT(w, ElementsAre(0, 0, 0, 0, 1, 0, 0, 0));
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> d,
                       FillBuffer(Buffer(BufferParam::IOTA, 16, 8), ""));
  EXPECT_THAT(d, ElementsAre(0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0));
}

TEST(FillBufferTest, IotaSixteenBitWrapsAt65536) {
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> h,
                       FillBuffer(Buffer(BufferParam::IOTA, 2 * 65537, 2), ""));
  EXPECT_EQ(h[2 * 258], 0x02);  // element 258 = 0x0102
  EXPECT_EQ(h[2 * 258 + 1], 0x01);
  EXPECT_EQ(h[2 * 65536], 0);
  EXPECT_EQ(h[2 * 65536 + 1], 0);
}

// Vectors from the SplitMix64 reference (Python, as documented in buffer_fill.h).
TEST(FillBufferTest, RandomIsSplitMix64LittleEndian) {
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> r0,
                       FillBuffer(Buffer(BufferParam::RANDOM, 12, 0, 0), ""));
  EXPECT_THAT(r0, ElementsAre(0xaf, 0xcd, 0x1d, 0x7b, 0x39, 0xa8, 0x20, 0xe2, 0xf4, 0x65,
                              0xb9, 0xa1));
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> r1,
                       FillBuffer(Buffer(BufferParam::RANDOM, 10, 4, 1234), ""));
  EXPECT_THAT(r1,
              ElementsAre(0xdb, 0x1c, 0x18, 0x2f, 0x1b, 0xf6, 0x0c, 0xbb, 0x24, 0x65));
}

TEST(FillBufferTest, RandomIsDeterministicAndSeeded) {
  ASSERT_OK_AND_ASSIGN(auto a, FillBuffer(Buffer(BufferParam::RANDOM, 4096, 1, 7), ""));
  ASSERT_OK_AND_ASSIGN(auto b, FillBuffer(Buffer(BufferParam::RANDOM, 4096, 1, 7), ""));
  ASSERT_OK_AND_ASSIGN(auto c, FillBuffer(Buffer(BufferParam::RANDOM, 4096, 1, 8), ""));
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  // A prefix of a longer stream is the shorter stream.
  ASSERT_OK_AND_ASSIGN(auto d, FillBuffer(Buffer(BufferParam::RANDOM, 13, 1, 7), ""));
  EXPECT_TRUE(std::equal(d.begin(), d.end(), a.begin()));
}

TEST(FillBufferTest, FileIsRelativeToSpecDir) {
  std::string dir = ::testing::TempDir();
  if (!dir.empty() && dir.back() == '/') dir.pop_back();
  {
    std::ofstream out(dir + "/fill_test.bin", std::ios::binary);
    out.write("\x01\x02\x03", 3);
  }
  BufferParam b = Buffer(BufferParam::FILE, 0);
  b.set_path("fill_test.bin");
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> bytes, FillBuffer(b, dir));
  EXPECT_THAT(bytes, ElementsAre(1, 2, 3));
  b.set_size_bytes(3);
  EXPECT_OK(FillBuffer(b, dir));
  b.set_size_bytes(4);
  EXPECT_THAT(FillBuffer(b, dir),
              StatusIs(absl::StatusCode::kInvalidArgument, "has 3 bytes"));
  b.set_path("no_such_file.bin");
  EXPECT_THAT(FillBuffer(b, dir), StatusIs(absl::StatusCode::kNotFound, "cannot read"));
  std::remove((dir + "/fill_test.bin").c_str());
}

TEST(FillBufferTest, RejectsBadInput) {
  EXPECT_THAT(
      FillBuffer(Buffer(BufferParam::IOTA, 8, 3), ""),
      StatusIs(absl::StatusCode::kInvalidArgument, "element_bytes must be 1, 2, 4 or 8"));
  EXPECT_THAT(FillBuffer(Buffer(BufferParam::IOTA, 7, 2), ""),
              StatusIs(absl::StatusCode::kInvalidArgument, "not a multiple"));
  EXPECT_THAT(FillBuffer(Buffer(BufferParam::ZERO, kMaxBufferBytes + 1), ""),
              StatusIs(absl::StatusCode::kResourceExhausted, "larger than"));
  EXPECT_THAT(FillBuffer(Buffer(BufferParam::FILE, 4), ""),
              StatusIs(absl::StatusCode::kInvalidArgument, "needs `path`"));
}

// Fill and hash together, against Python: hashlib.sha256(bytes(range(100))).
TEST(FillBufferTest, HashOfIotaMatchesPython) {
  ASSERT_OK_AND_ASSIGN(auto b, FillBuffer(Buffer(BufferParam::IOTA, 100, 1), ""));
  EXPECT_EQ(Sha256Hex(b),
            "bce0aff19cf5aa6a7469a30d61d04e4376e4bbf6381052ee9e7f33925c954d52");
}

}  // namespace
}  // namespace warpcheck::sim::launch
