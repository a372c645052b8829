// Bit-exact semantics of the scalar instructions (shared/spec/ptx-subset.md
// "Instructions"): integer ops on 16/32/64 bits, shifts past the width, bfe/bfi, prmt in
// every mode, lop3, setp with combining, selp, cvt (integer widths, float rounding),
// mov packing, f32 arithmetic, atomics, special registers, local and generic memory.
// Expected values are written out literally (worked by hand from the PTX manual).
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "absl/strings/str_cat.h"
#include "sim/machine/float_bits.h"
#include "sim/machine/semantics.h"
#include "tests/sim/machine/machine_test_util.h"
#include "tests/testing/status_matchers.h"

namespace warpcheck::sim::machine {
namespace {

using testing::BodyOptions;
using testing::BodyRun;
using testing::RunBody;

// One thread computes a list of values; value k is stored (zero-extended) at byte 8k.
struct Case {
  std::string code;  // computes %rd9 (64-bit) from scratch registers
  uint64_t expected;
};

void ExpectCases(const std::vector<Case>& cases) {
  std::string body;
  for (size_t k = 0; k < cases.size(); ++k) {
    absl::StrAppend(&body, "  ", cases[k].code, "\n  st.global.u64 [%rd2+", 8 * k,
                    "], %rd9;\n");
  }
  BodyOptions o;
  o.threads = 1;
  o.stride = static_cast<uint32_t>(8 * cases.size());
  ASSERT_OK_AND_ASSIGN(BodyRun r, RunBody(body, o));
  ASSERT_TRUE(r.report.ok()) << r.Faults();
  for (size_t k = 0; k < cases.size(); ++k) {
    EXPECT_EQ(r.At<uint64_t>(k), cases[k].expected)
        << "case " << k << ": " << cases[k].code << std::hex << " got 0x"
        << r.At<uint64_t>(k) << " want 0x" << cases[k].expected;
  }
}

// Helpers to write the result register: 32-bit and 16-bit results widen with cvt.
std::string R32(const std::string& op) { return op + " cvt.u64.u32 %rd9, %r9;"; }
std::string R16(const std::string& op) { return op + " cvt.u64.u16 %rd9, %h9;"; }
std::string R64(const std::string& op) { return op; }
std::string P(const std::string& op, const std::string& p = "%p9") {
  return op + " selp.u64 %rd9, 1, 0, " + p + ";";
}

// bfe over positions and lengths at and past the width (the machine computes the
// field in closed form; this is the PTX manual's bit loop).
uint64_t BfeReference(uint64_t a, uint32_t pos, uint32_t len, int bits, bool is_signed) {
  const uint32_t msb = static_cast<uint32_t>(bits) - 1;
  uint64_t sbit = 0;
  if (is_signed && len != 0) sbit = (a >> std::min(pos + len - 1, msb)) & 1;
  uint64_t d = 0;
  for (uint32_t i = 0; i <= msb; ++i) {
    uint64_t bit = (i < len && pos + i <= msb) ? (a >> (pos + i)) & 1 : sbit;
    d |= bit << i;
  }
  return d;
}

TEST(MachineSemanticsTest, BfeSweep) {
  const uint32_t kFields[] = {0, 1, 3, 8, 15, 16, 31, 32, 33, 48, 63, 64, 65, 255};
  const uint64_t kValues[] = {0xF0E1D2C3B4A59687ull, 0x0123456789ABCDEFull};
  std::vector<Case> cases;
  for (int bits : {32, 64}) {
    for (bool is_signed : {false, true}) {
      for (uint64_t value : kValues) {
        const uint64_t a = bits == 32 ? value & 0xFFFFFFFFull : value;
        for (uint32_t pos : kFields) {
          for (uint32_t len : kFields) {
            const std::string type = absl::StrCat(is_signed ? "s" : "u", bits);
            const std::string op = absl::StrCat("bfe.", type, bits == 32 ? " %r9, " : " %rd9, ",
                                                a, ", ", pos, ", ", len, ";");
            uint64_t want = BfeReference(a, pos, len, bits, is_signed);
            cases.push_back({bits == 32 ? R32(op) : R64(op), want});
            // pos and len in registers (immediates decode to a field mask made once).
            const std::string reg_op =
                absl::StrCat("mov.u32 %r1, ", pos, "; mov.u32 %r2, ", len, "; bfe.", type,
                             bits == 32 ? " %r9, " : " %rd9, ", a, ", %r1, %r2;");
            cases.push_back({bits == 32 ? R32(reg_op) : R64(reg_op), want});
          }
        }
      }
    }
  }
  ExpectCases(cases);
}

// bfi likewise: base with bits pos + i (i < len, pos + i <= msb) taken from bit i of a.
uint64_t BfiReference(uint64_t a, uint64_t base, uint32_t pos, uint32_t len, int bits) {
  const uint32_t msb = static_cast<uint32_t>(bits) - 1;
  uint64_t d = base;
  for (uint32_t i = 0; i < len && pos + i <= msb; ++i) {
    const uint64_t bit = uint64_t{1} << (pos + i);
    d = (d & ~bit) | (((a >> i) & 1) ? bit : 0);
  }
  return d;
}

TEST(MachineSemanticsTest, BfiSweep) {
  const uint32_t kFields[] = {0, 1, 3, 8, 15, 16, 31, 32, 33, 48, 63, 64, 65, 255};
  std::vector<Case> cases;
  for (int bits : {32, 64}) {
    const uint64_t width = bits == 32 ? 0xFFFFFFFFull : ~uint64_t{0};
    const uint64_t a = 0xF0E1D2C3B4A59687ull & width, base = 0x0123456789ABCDEFull & width;
    for (uint32_t pos : kFields) {
      for (uint32_t len : kFields) {
        const std::string op =
            absl::StrCat("bfi.b", bits, bits == 32 ? " %r9, " : " %rd9, ", a, ", ", base, ", ",
                         pos, ", ", len, ";");
        cases.push_back({bits == 32 ? R32(op) : R64(op), BfiReference(a, base, pos, len, bits)});
        const std::string reg_op =
            absl::StrCat("mov.u32 %r1, ", pos, "; mov.u32 %r2, ", len, "; bfi.b", bits,
                         bits == 32 ? " %r9, " : " %rd9, ", a, ", ", base, ", %r1, %r2;");
        cases.push_back(
            {bits == 32 ? R32(reg_op) : R64(reg_op), BfiReference(a, base, pos, len, bits)});
      }
    }
  }
  ExpectCases(cases);
}

TEST(MachineSemanticsTest, IntegerArithmetic) {
  ExpectCases({
      {R32("mov.u32 %r1, 0xFFFFFFFF; add.u32 %r9, %r1, 2;"), 1},
      {R16("mov.u16 %h1, 0xFFFF; add.u16 %h9, %h1, 3;"), 2},
      {R16("mov.u16 %h1, 0xFFFF; mul.lo.u16 %h9, %h1, %h1;"), 1},
      {R16("mov.u16 %h1, 0x8000; sub.s16 %h9, %h1, 1;"), 0x7FFF},
      {R32("mov.u32 %r1, 0xFFFFFFFF; mul.hi.u32 %r9, %r1, %r1;"), 0xFFFFFFFE},
      {R32("mul.hi.s32 %r9, -1, 2;"), 0xFFFFFFFF},
      {R64("mul.wide.s32 %rd9, -1, 3;"), 0xFFFFFFFFFFFFFFFD},
      {R64("mov.u32 %r1, 0xFFFFFFFF; mul.wide.u32 %rd9, %r1, 3;"), 0x2FFFFFFFD},
      {R32("mov.u16 %h1, 0xFFFF; mul.wide.u16 %r9, %h1, %h1;"), 0xFFFE0001},
      {R32("mad.lo.s32 %r9, -3, 5, 100;"), 85},
      {R64("mov.u32 %r1, 0xFFFFFFFF; mad.wide.u32 %rd9, %r1, 2, 1;"), 0x1FFFFFFFF},
      {R32("mov.u32 %r1, 0x80000000; mad.hi.u32 %r9, %r1, 4, 7;"), 9},
      {R64("mul.hi.u64 %rd9, -1, -1;"), 0xFFFFFFFFFFFFFFFE},
      {R64("mul.hi.s64 %rd9, -1, -1;"), 0},
      {R64("mul.lo.u64 %rd9, 0x100000001, 0x100000001;"), 0x200000001},
      {R32("div.s32 %r9, -7, 2;"), 0xFFFFFFFD},
      {R32("rem.s32 %r9, -7, 2;"), 0xFFFFFFFF},
      {R32("div.u32 %r9, 7, 0;"), 0xFFFFFFFF},
      {R32("rem.u32 %r9, 7, 0;"), 0xFFFFFFFF},  // as the H200 (hw probe)
      {R32("rem.s32 %r9, -7, 0;"), 0xFFFFFFFF},
      {R32("mov.u32 %r1, 0x80000000; div.s32 %r9, %r1, -1;"), 0x80000000},
      {R32("min.s32 %r9, -1, 1;"), 0xFFFFFFFF},
      {R32("min.u32 %r9, -1, 1;"), 1},
      {R16("max.s16 %h9, -5, -3;"), 0xFFFD},
      {R64("max.u64 %rd9, -1, 3;"), 0xFFFFFFFFFFFFFFFF},
      {R32("neg.s32 %r9, 5;"), 0xFFFFFFFB},
      {R32("abs.s32 %r9, -5;"), 5},
      {R32("mov.u32 %r1, 0x80000000; abs.s32 %r9, %r1;"), 0x80000000},
      {R16("not.b16 %h9, 0x00FF;"), 0xFF00},
      {R32("cnot.b32 %r9, 0;"), 1},
      {R32("cnot.b32 %r9, 5;"), 0},
      {R32("popc.b64 %r9, 0xF0F00000000;"), 8},
      {R32("clz.b32 %r9, 1;"), 31},
      {R32("clz.b32 %r9, 0;"), 32},
      {R32("clz.b64 %r9, 1;"), 63},
      {R32("brev.b32 %r9, 1;"), 0x80000000},
      {R64("brev.b64 %rd9, 3;"), 0xC000000000000000},
      {R32("add.sat.s32 %r9, 0x7FFFFFFF, 1;"), 0x7FFFFFFF},
      {R32("mov.u32 %r1, 0x80000000; sub.sat.s32 %r9, %r1, 1;"), 0x80000000},
      {R32("and.b32 %r9, 0xF0F0, 0xFF00;"), 0xF000},
      {R32("or.b32 %r9, 0xF0F0, 0xFF00;"), 0xFFF0},
      {R32("xor.b32 %r9, 0xF0F0, 0xFF00;"), 0x0FF0},
  });
}

TEST(MachineSemanticsTest, ShiftsSaturatePastTheWidth) {
  ExpectCases({
      {R32("shl.b32 %r9, 1, 31;"), 0x80000000},
      {R32("shl.b32 %r9, 1, 32;"), 0},
      {R32("shl.b32 %r9, 1, 1000;"), 0},
      {R32("mov.u32 %r1, 0xFFFFFFFF; shl.b32 %r9, 1, %r1;"), 0},
      {R32("shr.u32 %r9, 0x80000000, 31;"), 1},
      {R32("shr.u32 %r9, 0x80000000, 32;"), 0},
      {R32("mov.u32 %r1, 0x80000000; shr.s32 %r9, %r1, 31;"), 0xFFFFFFFF},
      {R32("mov.u32 %r1, 0x80000000; shr.s32 %r9, %r1, 40;"), 0xFFFFFFFF},
      {R32("shr.s32 %r9, 0x40000000, 40;"), 0},
      {R64("shl.b64 %rd9, 1, 63;"), 0x8000000000000000},
      {R64("shl.b64 %rd9, 1, 64;"), 0},
      {R64("mov.b64 %rd1, 0x8000000000000000; shr.s64 %rd9, %rd1, 70;"),
       0xFFFFFFFFFFFFFFFF},
      {R16("mov.u16 %h1, 0x8000; shr.s16 %h9, %h1, 20;"), 0xFFFF},
      {R16("shl.b16 %h9, 1, 16;"), 0},
      {R16("shl.b16 %h9, 1, 15;"), 0x8000},
  });
}

TEST(MachineSemanticsTest, BitFields) {
  ExpectCases({
      {R32("bfe.u32 %r9, 0xABCD1234, 8, 8;"), 0x12},
      {R32("bfe.s32 %r9, 0x0000F000, 12, 4;"), 0xFFFFFFFF},
      {R32("bfe.s32 %r9, 0x00007000, 12, 4;"), 7},
      {R32("bfe.s32 %r9, 0xABCD1234, 28, 8;"), 0xFFFFFFFA},
      {R32("bfe.u32 %r9, 0xABCD1234, 28, 8;"), 0xA},
      {R32("bfe.u32 %r9, 0xABCD1234, 0, 0;"), 0},
      {R32("bfe.s32 %r9, 0xABCD1234, 0, 0;"), 0},
      {R32("bfe.u32 %r9, 0xABCD1234, 40, 8;"), 0},
      {R32("bfe.s32 %r9, 0xABCD1234, 40, 8;"), 0xFFFFFFFF},  // sign bit = bit 31
      {R32("bfe.u32 %r9, 0xABCD1234, 0x104, 0x204;"), 3},    // only the low 8 bits count
      {R64("bfe.u64 %rd9, 0xF000000000000000, 60, 4;"), 0xF},
      {R64("bfe.s64 %rd9, 0x0800000000000000, 56, 4;"), 0xFFFFFFFFFFFFFFF8},
      {R32("bfi.b32 %r9, 0xF, 0xFFFF0000, 4, 8;"), 0xFFFF00F0},
      {R32("bfi.b32 %r9, 0xFF, 0, 28, 8;"), 0xF0000000},
      {R32("bfi.b32 %r9, 0xFF, 0x12345678, 0, 0;"), 0x12345678},
      {R64("bfi.b64 %rd9, 1, 0, 63, 1;"), 0x8000000000000000},
  });
}

// prmt's default mode with the selector as an immediate (decoded to byte shifts, with
// fixed code for the codegen's 0x5410 / 0x7632 / 0x5432 / 0x7610, and a two-halves path
// for the other aligned 16-bit picks: 0x3210, 0x1054, 0x1076 ...) and in a register (per
// lane) agree with Prmt for byte picks, sign replication and the ignored upper half of c
// (0x3240 and 0x5421 look like halves but are not).
TEST(MachineSemanticsTest, PrmtImmediateAndRegisterSelectorsAgree) {
  const uint32_t a = 0x80FF7F01u, b = 0x7E8108C3u;
  const uint32_t kSelectors[] = {0x5410, 0x7632, 0x3210, 0x7654, 0x1054, 0x3276, 0x0123,
                                 0x4567, 0x7531, 0x0000, 0x7777, 0x3340, 0x000A, 0xB000,
                                 0x89AB, 0xFFFF, 0xFFFF5410u, 0x12347632u, 0x5432,
                                 0x7610, 0x1076, 0x3254, 0x7676, 0x3240, 0x5421,
                                 0xABCD5432u};
  std::vector<Case> cases;
  for (uint32_t sel : kSelectors) {
    const uint64_t want = Prmt(a, b, sel, ptx::PrmtMode::kDefault);
    cases.push_back(
        {R32(absl::StrCat("prmt.b32 %r9, ", a, ", ", b, ", ", sel, ";")), want});
    cases.push_back({R32(absl::StrCat("mov.u32 %r1, ", sel, "; prmt.b32 %r9, ", a, ", ", b,
                                      ", %r1;")),
                     want});
    // a and b from registers: the immediate and the register selector give the same word.
    cases.push_back({R32(absl::StrCat("mov.u32 %r3, ", a, "; add.u32 %r3, %r3, %r0; mov.u32 %r4, ",
                                      b, "; prmt.b32 %r9, %r3, %r4, ", sel,
                                      "; sub.u32 %r9, %r9, 0; mov.u32 %r5, ", sel,
                                      "; prmt.b32 %r6, %r3, %r4, %r5; sub.u32 %r9, %r9, %r6;")),
                     0});
  }
  ExpectCases(cases);
}

// shl/shr with an immediate amount (ShiftConst, one count for the warp) against the
// register form (Shift, a count per lane), in full warps (the vector loops) on values
// that differ per lane, for every width and kind and amounts around each width: every
// lane's difference must be 0, and the lanes' values must match a host reference.
TEST(MachineSemanticsTest, ShiftImmediateAndRegisterAmountsAgree) {
  const uint32_t kAmounts[] = {0, 1, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 255, 256, 4096};
  struct Form {
    const char* op;
    const char* reg;  // register of the width
    const char* src;  // a lane-dependent value of the width
  };
  const Form kForms[] = {
      {"shl.b16", "%h", "%h1"},  {"shr.u16", "%h", "%h1"},  {"shr.s16", "%h", "%h1"},
      {"shl.b32", "%r", "%r1"},  {"shr.u32", "%r", "%r1"},  {"shr.s32", "%r", "%r1"},
      {"shl.b64", "%rd", "%rd4"}, {"shr.u64", "%rd", "%rd4"}, {"shr.s64", "%rd", "%rd4"}};
  // %r1 = tid * 0x9E3779B9 (lanes with either sign), %h1 its low half, %rd4 = %r1 * %r1
  // (signed, wide). %rd9 ORs every lane's differences; %rd10 sums the results.
  std::string body =
      "mul.lo.u32 %r1, %r0, 0x9E3779B9; cvt.u16.u32 %h1, %r1; mul.wide.s32 %rd4, %r1, %r1;"
      " xor.b64 %rd4, %rd4, 0x8000000000000000; mov.u64 %rd9, 0; mov.u64 %rd10, 0;\n";
  for (const Form& f : kForms) {
    const std::string r = f.reg;
    for (uint32_t n : kAmounts) {
      absl::StrAppend(&body, "  mov.u32 %r2, ", n, "; ", f.op, " ", r, "20, ", f.src, ", ",
                      n, "; ", f.op, " ", r, "21, ", f.src, ", %r2; xor.b", r == "%h" ? 16
                      : r == "%r" ? 32 : 64, " ", r, "22, ", r, "20, ", r, "21;");
      if (r == "%h") {
        absl::StrAppend(&body, " cvt.u64.u16 %rd5, %h22; cvt.u64.u16 %rd6, %h20;");
      } else if (r == "%r") {
        absl::StrAppend(&body, " cvt.u64.u32 %rd5, %r22; cvt.u64.u32 %rd6, %r20;");
      } else {
        absl::StrAppend(&body, " mov.b64 %rd5, %rd22; mov.b64 %rd6, %rd20;");
      }
      absl::StrAppend(&body, " or.b64 %rd9, %rd9, %rd5; add.s64 %rd10, %rd10, %rd6;\n");
    }
  }
  absl::StrAppend(&body, "  st.global.u64 [%rd2], %rd9; st.global.u64 [%rd2+8], %rd10;");
  BodyOptions o;
  o.threads = 64;
  o.stride = 16;
  ASSERT_OK_AND_ASSIGN(BodyRun run, RunBody(body, o));
  ASSERT_TRUE(run.report.ok()) << run.Faults();
  for (uint32_t t = 0; t < o.threads; ++t) {
    EXPECT_EQ(run.At<uint64_t>(2 * t), 0u) << "thread " << t;
    // The host reference of the same sum.
    const uint32_t r1 = t * 0x9E3779B9u;
    const uint16_t h1 = uint16_t(r1);
    const uint64_t rd4 =
        uint64_t(int64_t(int32_t(r1)) * int64_t(int32_t(r1))) ^ 0x8000000000000000ull;
    uint64_t sum = 0;
    for (int form = 0; form < 9; ++form) {
      for (uint32_t n : kAmounts) {
        const int kind = form % 3, bits = form < 3 ? 16 : form < 6 ? 32 : 64;
        const uint64_t v = bits == 16 ? h1 : bits == 32 ? r1 : rd4;
        const uint64_t m = bits == 64 ? ~0ull : (1ull << bits) - 1;
        const int64_t sv = bits == 16 ? int16_t(v) : bits == 32 ? int32_t(v) : int64_t(v);
        uint64_t want;
        if (kind == 0) {
          want = n >= uint32_t(bits) ? 0 : (v << n) & m;
        } else if (kind == 1) {
          want = n >= uint32_t(bits) ? 0 : v >> n;
        } else {
          want = uint64_t(n >= uint32_t(bits) ? (sv < 0 ? -1 : 0) : sv >> n) & m;
        }
        sum += want;
      }
    }
    EXPECT_EQ(run.At<uint64_t>(2 * t + 1), sum) << "thread " << t;
  }
}

// Registers start at 0. A full warp zeroes only the registers that may be read before
// they are written (Program::zero_slots); RunBody's second run fills the others with a
// pattern, so each case here fails if its register is wrongly left out: read before its
// first write, written first under a guard, first written past a branch (that skips the write), read by
// another lane (shfl) before its first write.
TEST(MachineSemanticsTest, RegistersReadBeforeTheyAreWrittenStartAtZero) {
  const std::string body = R"(
    add.u32 %r50, %r40, 1; mov.u32 %r40, 3;
    add.u32 %r43, %r43, 3;
    setp.lt.u32 %p1, %r0, 16; @%p1 mov.u32 %r44, 5; add.u32 %r45, %r44, 0; mov.u32 %r44, 6;
    shfl.sync.idx.b32 %r46, %r48, 0, 31, -1; mov.u32 %r48, 8;
    bra L1;
    mov.u32 %r63, 4;
  L1:
    add.u32 %r64, %r63, 1;
    add.u32 %r47, %r49, 2; mov.u32 %r49, 9;
    st.global.u32 [%rd2], %r50; st.global.u32 [%rd2+4], %r43; st.global.u32 [%rd2+8], %r45;
    st.global.u32 [%rd2+12], %r46; st.global.u32 [%rd2+16], %r47;
    st.global.u32 [%rd2+20], %r64;)";
  BodyOptions o;
  o.threads = 64;
  o.stride = 24;
  ASSERT_OK_AND_ASSIGN(BodyRun run, RunBody(body, o));
  ASSERT_TRUE(run.report.ok()) << run.Faults();
  for (uint32_t t = 0; t < o.threads; ++t) {
    EXPECT_EQ(run.At<uint32_t>(6 * t), 1u) << t;
    EXPECT_EQ(run.At<uint32_t>(6 * t + 1), 3u) << t;
    EXPECT_EQ(run.At<uint32_t>(6 * t + 2), t < 16 ? 5u : 0u) << t;
    EXPECT_EQ(run.At<uint32_t>(6 * t + 3), 0u) << t;
    EXPECT_EQ(run.At<uint32_t>(6 * t + 4), 2u) << t;
    EXPECT_EQ(run.At<uint32_t>(6 * t + 5), 1u) << t;  // the write of %r63 was skipped
  }
}

TEST(MachineSemanticsTest, PrmtEveryMode) {
  const uint32_t a = 0x33221100, b = 0x77665544;
  using M = ptx::PrmtMode;
  EXPECT_EQ(Prmt(a, b, 0x3210, M::kDefault), 0x33221100u);
  EXPECT_EQ(Prmt(a, b, 0x7654, M::kDefault), 0x77665544u);
  EXPECT_EQ(Prmt(a, b, 0x5410, M::kDefault), 0x55441100u);
  EXPECT_EQ(Prmt(a, b, 0x1032, M::kDefault), 0x11003322u);
  EXPECT_EQ(Prmt(a, b, 0xFFFF3210, M::kDefault), 0x33221100u);    // only 16 bits of c
  EXPECT_EQ(Prmt(0x12, 0x34, 0x3340, M::kDefault), 0x00003412u);  // Triton's i8 packing
  EXPECT_EQ(Prmt(0x80FF7F01, 0, 0x000A, M::kDefault), 0x010101FFu);  // sign replicate
  EXPECT_EQ(Prmt(0x80FF7F01, 0, 0x0008, M::kDefault), 0x01010100u);
  EXPECT_EQ(Prmt(0x80FF7F01, 0, 0xB000, M::kDefault),
            0xFF010101u);  // sel 3 | 8: 0x80 -> ff
  EXPECT_EQ(Prmt(a, b, 0, M::kF4e), 0x33221100u);
  EXPECT_EQ(Prmt(a, b, 1, M::kF4e), 0x44332211u);
  EXPECT_EQ(Prmt(a, b, 3, M::kF4e), 0x66554433u);
  EXPECT_EQ(Prmt(a, b, 0, M::kB4e), 0x55667700u);
  EXPECT_EQ(Prmt(a, b, 2, M::kB4e), 0x77001122u);
  EXPECT_EQ(Prmt(a, b, 3, M::kB4e), 0x00112233u);
  EXPECT_EQ(Prmt(a, b, 2, M::kRc8), 0x22222222u);
  EXPECT_EQ(Prmt(a, b, 0, M::kEcl), 0x33221100u);
  EXPECT_EQ(Prmt(a, b, 1, M::kEcl), 0x33221111u);
  EXPECT_EQ(Prmt(a, b, 3, M::kEcl), 0x33333333u);
  EXPECT_EQ(Prmt(a, b, 0, M::kEcr), 0x00000000u);
  EXPECT_EQ(Prmt(a, b, 1, M::kEcr), 0x11111100u);
  EXPECT_EQ(Prmt(a, b, 2, M::kEcr), 0x22221100u);
  EXPECT_EQ(Prmt(a, b, 3, M::kEcr), 0x33221100u);
  EXPECT_EQ(Prmt(a, b, 0, M::kRc16), 0x11001100u);
  EXPECT_EQ(Prmt(a, b, 1, M::kRc16), 0x33223322u);
  EXPECT_EQ(Prmt(a, b, 5, M::kRc16), 0x33223322u);  // only c[1:0]
  // Through the machine (decode picks the mode).
  ExpectCases({
      {R32("prmt.b32 %r9, 0x33221100, 0x77665544, 0x5410;"), 0x55441100},
      {R32("prmt.b32.f4e %r9, 0x33221100, 0x77665544, 1;"), 0x44332211},
      {R32("prmt.b32.b4e %r9, 0x33221100, 0x77665544, 2;"), 0x77001122},
      {R32("prmt.b32.rc8 %r9, 0x33221100, 0x77665544, 2;"), 0x22222222},
      {R32("prmt.b32.ecl %r9, 0x33221100, 0x77665544, 1;"), 0x33221111},
      {R32("prmt.b32.ecr %r9, 0x33221100, 0x77665544, 2;"), 0x22221100},
      {R32("prmt.b32.rc16 %r9, 0x33221100, 0x77665544, 1;"), 0x33223322},
  });
}

TEST(MachineSemanticsTest, Lop3) {
  const uint32_t a = 0xF0F0F0F0, b = 0xCCCCCCCC, c = 0xAAAAAAAA;
  EXPECT_EQ(Lop3(a, b, c, 0xF0), a);
  EXPECT_EQ(Lop3(a, b, c, 0xCC), b);
  EXPECT_EQ(Lop3(a, b, c, 0xAA), c);
  EXPECT_EQ(Lop3(a, b, c, 0x96), a ^ b ^ c);
  EXPECT_EQ(Lop3(a, b, c, 0xE8), (a & b) | (a & c) | (b & c));
  EXPECT_EQ(Lop3(a, b, c, 0x80), a & b & c);
  EXPECT_EQ(Lop3(a, b, c, 0x00), 0u);
  EXPECT_EQ(Lop3(a, b, c, 0xFF), 0xFFFFFFFFu);
  ExpectCases({{R32("lop3.b32 %r9, 0xF0F0F0F0, 0xCCCCCCCC, 0xAAAAAAAA, 0x96;"),
                0xF0F0F0F0u ^ 0xCCCCCCCCu ^ 0xAAAAAAAAu}});
}

TEST(MachineSemanticsTest, SetpCombiningAndSelp) {
  ExpectCases({
      {P("setp.lt.s32 %p9|%p8, -1, 0;"), 1},
      {P("setp.lt.s32 %p8|%p9, -1, 0;"), 0},
      {P("setp.lt.u32 %p9, -1, 0;"), 0},
      {P("setp.lo.u32 %p9, 1, 2;"), 1},
      {P("setp.hs.u16 %p9, 0xFFFF, 1;"), 1},
      {P("setp.ge.s64 %p9, -1, 0;"), 0},
      {P("setp.ne.b32 %p9, 3, 3;"), 0},
      {P("setp.eq.u32 %p1, 0, 1; setp.eq.u32.and %p9, 1, 1, %p1;"), 0},
      {P("setp.eq.u32 %p1, 0, 1; setp.eq.u32.and %p9, 1, 1, !%p1;"), 1},
      {P("setp.eq.u32 %p1, 0, 1; setp.eq.u32.and %p8|%p9, 1, 1, !%p1;"), 0},
      {P("setp.eq.u32 %p1, 0, 0; setp.ne.u32.or %p9, 1, 1, %p1;"), 1},
      {P("setp.eq.u32 %p1, 0, 0; setp.ne.u32.xor %p9, 1, 2, %p1;"), 0},
      {P("setp.eq.u32 %p1, 0, 0; setp.ne.u32.xor %p8|%p9, 1, 2, %p1;"), 1},
      {P("setp.lt.f32 %p9, 0f7FC00000, 0f3F800000;"), 0},
      {P("setp.ltu.f32 %p9, 0f7FC00000, 0f3F800000;"), 1},
      {P("setp.nan.f32 %p9, 0f7FC00000, 0f3F800000;"), 1},
      {P("setp.num.f32 %p9, 0f3F800000, 0f3F800000;"), 1},
      {P("setp.ne.f32 %p9, 0f7FC00000, 0f7FC00000;"), 0},
      {P("setp.gt.f64 %p9, 0d4000000000000000, 0d3FF0000000000000;"), 1},
      {P("setp.eq.f32 %p9, 0f80000000, 0f00000000;"), 1},  // -0 == +0
      {R32("setp.eq.u32 %p1, 1, 1; selp.b32 %r9, 5, 7, %p1;"), 5},
      {R32("setp.eq.u32 %p1, 1, 1; selp.b32 %r9, 5, 7, !%p1;"), 7},
      {R64("setp.eq.u32 %p1, 1, 2; selp.b64 %rd9, 5, 0x100000000, %p1;"), 0x100000000},
      {P("setp.eq.u32 %p1, 1, 1; setp.eq.u32 %p2, 1, 2; and.pred %p9, %p1, %p2;"), 0},
      {P("setp.eq.u32 %p1, 1, 1; setp.eq.u32 %p2, 1, 2; or.pred %p9, %p1, %p2;"), 1},
      {P("setp.eq.u32 %p1, 1, 1; not.pred %p9, %p1;"), 0},
      {P("mov.pred %p9, 1;"), 1},
  });
}

TEST(MachineSemanticsTest, CvtIntegerWidths) {
  ExpectCases({
      {R64("mov.u32 %r1, 0xFFFFFFFF; cvt.u64.u32 %rd9, %r1;"), 0xFFFFFFFF},
      {R64("mov.u32 %r1, 0xFFFFFFFF; cvt.s64.s32 %rd9, %r1;"), 0xFFFFFFFFFFFFFFFF},
      {R64("mov.u32 %r1, 0xFFFFFFFF; cvt.u64.s32 %rd9, %r1;"), 0xFFFFFFFFFFFFFFFF},
      {R32("mov.b64 %rd1, 0x123456789; cvt.u32.u64 %r9, %rd1;"), 0x23456789},
      {R16("cvt.u16.u32 %h9, 0x12345;"), 0x2345},
      {R32("mov.u16 %h1, 0x8000; cvt.s32.s16 %r9, %h1;"), 0xFFFF8000},
      {R32("mov.u16 %h1, 0x8000; cvt.u32.s16 %r9, %h1;"), 0xFFFF8000},
      {R32("mov.u16 %h1, 0x8000; cvt.s32.u16 %r9, %h1;"), 0x8000},
      {R32("mov.u16 %h1, 0x1F0; cvt.u32.u8 %r9, %h1;"), 0xF0},
      {R32("mov.u16 %h1, 0x1F0; cvt.s32.s8 %r9, %h1;"), 0xFFFFFFF0},
      {R16("cvt.sat.u8.s32 %h9, -5;"), 0},
      {R16("cvt.sat.s8.s32 %h9, 300;"), 127},
      {R16("cvt.sat.s8.s32 %h9, -300;"), 0xFF80},  // sign-extended to the register
      {R32("cvt.sat.u16.u32 %r9, 70000;"), 0xFFFF},
      {R32("cvt.sat.u32.s64 %r9, -1;"), 0},
      {R32("mov.u32 %r1, 0xFFFFFFFF; cvt.sat.s32.u32 %r9, %r1;"), 0x7FFFFFFF},
      {R32("cvt.s16.s32 %r9, 0x18000;"), 0xFFFF8000},
      {R32("cvt.u16.s32 %r9, 0x18000;"), 0x8000},
  });
}

TEST(MachineSemanticsTest, CvtFloatRounding) {
  ExpectCases({
      {R16("cvt.rn.f16.f32 %h9, 0f3F800000;"), 0x3C00},
      {R16("cvt.rn.f16.f32 %h9, 0f477FE000;"), 0x7BFF},  // 65504, the largest finite
      {R16("cvt.rn.f16.f32 %h9, 0f477FF000;"), 0x7C00},  // 65520: the tie goes to inf
      {R16("cvt.rz.f16.f32 %h9, 0f477FF000;"), 0x7BFF},
      {R16("cvt.rn.f16.f32 %h9, 0f3F801000;"), 0x3C00},  // 1 + 2^-11: tie to even (down)
      {R16("cvt.rn.f16.f32 %h9, 0f3F803000;"), 0x3C02},  // 1 + 3*2^-11: tie to even (up)
      {R16("cvt.rn.f16.f32 %h9, 0f3F801001;"), 0x3C01},  // just above the tie
      {R16("cvt.rm.f16.f32 %h9, 0fBF801000;"), 0xBC01},
      {R16("cvt.rp.f16.f32 %h9, 0f3F801000;"), 0x3C01},
      {R16("cvt.rz.f16.f32 %h9, 0fBF801000;"), 0xBC00},
      {R16("cvt.rn.f16.f32 %h9, 0f33800000;"), 0x0001},  // 2^-24: smallest subnormal
      {R16("cvt.rn.f16.f32 %h9, 0f33000000;"), 0x0000},  // 2^-25: tie to even zero
      {R16("cvt.rn.f16.f32 %h9, 0f33400000;"), 0x0001},  // 1.5 * 2^-25
      {R16("cvt.rn.f16.f32 %h9, 0f38800000;"), 0x0400},  // 2^-14: smallest normal
      {R16("cvt.rn.f16.f32 %h9, 0fC0000000;"), 0xC000},
      {R16("cvt.rn.f16.f32 %h9, 0f7FC00000;"), 0x7FFF},  // NaN: canonical
      {R16("cvt.rn.f16.f32 %h9, 0fFF800000;"), 0xFC00},
      {R16("cvt.rn.f16.f32 %h9, 0f80000000;"), 0x8000},
      {R32("mov.b16 %h1, 0x3C00; cvt.f32.f16 %f1, %h1; mov.b32 %r9, %f1;"), 0x3F800000},
      {R32("mov.b16 %h1, 0x0001; cvt.f32.f16 %f1, %h1; mov.b32 %r9, %f1;"), 0x33800000},
      {R32("mov.b16 %h1, 0x7C00; cvt.f32.f16 %f1, %h1; mov.b32 %r9, %f1;"), 0x7F800000},
      {R32("mov.b16 %h1, 0x8000; cvt.f32.f16 %f1, %h1; mov.b32 %r9, %f1;"), 0x80000000},
      {R16("cvt.rn.bf16.f32 %h9, 0f3F808000;"), 0x3F80},  // tie to even
      {R16("cvt.rn.bf16.f32 %h9, 0f3F818000;"), 0x3F82},
      {R16("cvt.rn.bf16.f32 %h9, 0f3F800001;"), 0x3F80},
      {R16("cvt.rz.bf16.f32 %h9, 0f3F81FFFF;"), 0x3F81},
      {R16("cvt.rn.bf16.f32 %h9, 0f7F7FFFFF;"), 0x7F80},  // rounds to inf
      {R16("cvt.rn.bf16.f32 %h9, 0fFFC00001;"), 0x7FFF},
      {R32("mov.b16 %h1, 0x3F80; cvt.f32.bf16 %f1, %h1; mov.b32 %r9, %f1;"), 0x3F800000},
      {R32("cvt.rn.f16x2.f32 %r9, 0f3F800000, 0f40000000;"), 0x3C004000},
      {R32("cvt.rn.bf16x2.f32 %r9, 0f3F800000, 0f40000000;"), 0x3F804000},
      {R32("cvt.rzi.s32.f32 %r9, 0fC02CCCCD;"), 0xFFFFFFFE},  // -2.7 -> -2
      {R32("cvt.rni.s32.f32 %r9, 0f40200000;"), 2},           // 2.5 -> 2
      {R32("cvt.rni.s32.f32 %r9, 0f40600000;"), 4},           // 3.5 -> 4
      {R32("cvt.rmi.s32.f32 %r9, 0fC0200000;"), 0xFFFFFFFD},  // -2.5 -> -3
      {R32("cvt.rpi.s32.f32 %r9, 0f40066666;"), 3},           // 2.1 -> 3
      {R32("cvt.rzi.s32.f32 %r9, 0f501502F9;"), 0x7FFFFFFF},  // 1e10 saturates
      {R32("cvt.rzi.u32.f32 %r9, 0fC0A00000;"), 0},           // -5 -> 0
      {R32("cvt.rzi.s32.f32 %r9, 0f7FC00000;"), 0},           // NaN -> 0
      {R32("cvt.rn.f32.s32 %f1, 16777217; mov.b32 %r9, %f1;"), 0x4B800000},
      {R32("cvt.rn.f32.s32 %f1, 16777219; mov.b32 %r9, %f1;"), 0x4B800002},
      {R32("mov.u32 %r1, 0xFFFFFFFF; cvt.rn.f32.u32 %f1, %r1; mov.b32 %r9, %f1;"),
       0x4F800000},
      {R32("mov.u32 %r1, 0xFFFFFFFF; cvt.rz.f32.u32 %f1, %r1; mov.b32 %r9, %f1;"),
       0x4F7FFFFF},
      {R32("cvt.rn.f32.s32 %f1, -1; mov.b32 %r9, %f1;"), 0xBF800000},
      {R64("cvt.f64.f32 %fd1, 0f3F800000; mov.b64 %rd9, %fd1;"), 0x3FF0000000000000},
      {R32("cvt.rn.f32.f64 %f1, 0d3FF0000010000000; mov.b32 %r9, %f1;"), 0x3F800000},
      {R32("cvt.rni.f32.f32 %f1, 0f40200000; mov.b32 %r9, %f1;"),
       0x40000000},  // 2.5 -> 2.0
      {R32("cvt.ftz.f32.f32 %f1, 0f00000001; mov.b32 %r9, %f1;"), 0},
  });
}

TEST(MachineSemanticsTest, FloatBitsDirect) {
  using F = FloatFormat;
  EXPECT_EQ(ConvertFloat(0x3F800000, F::kF32, F::kF16, ptx::Rounding::kRn), 0x3C00u);
  EXPECT_EQ(ConvertFloat(0x3C00, F::kF16, F::kF64, ptx::Rounding::kRn),
            0x3FF0000000000000u);
  EXPECT_EQ(ConvertFloat(0x0200, F::kF16, F::kF32, ptx::Rounding::kRn),
            0x38000000u);  // 2^-15
  EXPECT_EQ(ConvertFloat(0x7F7FFFFF, F::kF32, F::kF16, ptx::Rounding::kRm), 0x7BFFu);
  EXPECT_EQ(ConvertFloat(0xFF7FFFFF, F::kF32, F::kF16, ptx::Rounding::kRm), 0xFC00u);
  EXPECT_EQ(ConvertFloat(0x00000001, F::kF32, F::kF16, ptx::Rounding::kRp), 0x0001u);
  EXPECT_EQ(ConvertFloat(0x80000001, F::kF32, F::kF16, ptx::Rounding::kRn), 0x8000u);
  EXPECT_EQ(IntToFloat(false, 0xFFFFFFFFFFFFFFFFull, F::kF32, ptx::Rounding::kRn),
            0x5F800000u);
  EXPECT_EQ(FloatToInt(0x4F000000, F::kF32, 32, true, ptx::Rounding::kRzi),
            0x7FFFFFFFu);  // 2^31
  EXPECT_EQ(FloatToInt(0xCF000000, F::kF32, 32, true, ptx::Rounding::kRzi), 0x80000000u);
  EXPECT_EQ(FloatToInt(0x5F800000, F::kF32, 64, false, ptx::Rounding::kRzi),
            ~uint64_t{0});
  // Exhaustive: every f16 widens to f32 and narrows back to itself (NaN: canonical).
  for (uint32_t h = 0; h < 0x10000; ++h) {
    uint64_t f = ConvertFloat(h, F::kF16, F::kF32, ptx::Rounding::kRn);
    uint64_t back = ConvertFloat(f, F::kF32, F::kF16, ptx::Rounding::kRn);
    if (IsNan(h, F::kF16)) {
      EXPECT_EQ(back, 0x7FFFu);
    } else {
      ASSERT_EQ(back, h) << std::hex << h;
    }
    uint64_t bf = ConvertFloat(h, F::kBf16, F::kF32, ptx::Rounding::kRn);
    if (!IsNan(h, F::kBf16)) {
      ASSERT_EQ(bf, uint64_t{h} << 16);
    }
  }
  // f32 -> f16 agrees with an f64 reference for a sweep of values near each binade.
  for (uint32_t bits = 0x30000000; bits < 0x48000000; bits += 0x00001234) {
    float f;
    std::memcpy(&f, &bits, 4);
    uint64_t h = ConvertFloat(bits, F::kF32, F::kF16, ptx::Rounding::kRn);
    uint64_t back = ConvertFloat(h, F::kF16, F::kF32, ptx::Rounding::kRn);
    float g;
    uint32_t b32 = uint32_t(back);
    std::memcpy(&g, &b32, 4);
    // The result is one of the two neighbours and no farther than the other one.
    uint64_t other = h + (g < f ? 1 : -1);
    uint64_t ob = ConvertFloat(other, F::kF16, F::kF32, ptx::Rounding::kRn);
    float o;
    uint32_t o32 = uint32_t(ob);
    std::memcpy(&o, &o32, 4);
    if (h != 0x7C00) {
      ASSERT_LE(std::abs(double(g) - f), std::abs(double(o) - f)) << std::hex << bits;
    }
  }
}

TEST(MachineSemanticsTest, FloatArithmetic) {
  ExpectCases({
      {R32("add.f32 %f1, 0f3F800000, 0f33800000; mov.b32 %r9, %f1;"),
       0x3F800000},  // tie: even
      {R32("add.f32 %f1, 0f3F800001, 0f33800000; mov.b32 %r9, %f1;"), 0x3F800002},
      {R32("add.rn.f32 %f1, 0f7F800000, 0fFF800000; mov.b32 %r9, %f1;"), 0x7FFFFFFF},
      {R32("mul.f32 %f1, 0f3F800800, 0f3F800800; add.f32 %f1, %f1, 0fBF800000; mov.b32 "
           "%r9, %f1;"),
       0x3A000000},
      {R32("fma.rn.f32 %f1, 0f3F800800, 0f3F800800, 0fBF800000; mov.b32 %r9, %f1;"),
       0x3A000400},
      {R32("sub.f32 %f1, 0f40000000, 0f3F800000; mov.b32 %r9, %f1;"), 0x3F800000},
      {R32("min.f32 %f1, 0f7FC00000, 0f3F800000; mov.b32 %r9, %f1;"), 0x3F800000},
      {R32("min.f32 %f1, 0f00000000, 0f80000000; mov.b32 %r9, %f1;"), 0x80000000},
      {R32("max.f32 %f1, 0f80000000, 0f00000000; mov.b32 %r9, %f1;"), 0x00000000},
      {R32("max.f32 %f1, 0f7FC00000, 0f7FC00001; mov.b32 %r9, %f1;"), 0x7FFFFFFF},
      {R32("add.f32 %f1, 0f00000001, 0f00000000; mov.b32 %r9, %f1;"), 0x00000001},
      {R32("add.ftz.f32 %f1, 0f00000001, 0f00000000; mov.b32 %r9, %f1;"), 0x00000000},
      {R32("add.sat.f32 %f1, 0f3F400000, 0f3F000000; mov.b32 %r9, %f1;"), 0x3F800000},
      {R32("neg.f32 %f1, 0f3F800000; mov.b32 %r9, %f1;"), 0xBF800000},
      {R32("abs.f32 %f1, 0fBF800000; mov.b32 %r9, %f1;"), 0x3F800000},
      {R64("add.f64 %fd1, 0d3FF0000000000000, 0d3CA0000000000000; mov.b64 %rd9, %fd1;"),
       0x3FF0000000000000},
      {R64("fma.rn.f64 %fd1, 0d4000000000000000, 0d4008000000000000, 0d3FF0000000000000; "
           "mov.b64 %rd9, %fd1;"),
       0x401C000000000000},  // 2*3+1 = 7
      // f64 NaNs: the first NaN operand, quieted; invalid operations 0xFFF8... (H200).
      {R64("add.f64 %fd1, 0d3FF0000000000000, 0d7FF0000000000002; mov.b64 %rd9, %fd1;"),
       0x7FF8000000000002},
      {R64("add.f64 %fd1, 0d7FF8000000000001, 0d7FF8000000000002; mov.b64 %rd9, %fd1;"),
       0x7FF8000000000001},
      {R64("mul.f64 %fd1, 0d0000000000000000, 0dFFF0000000000000; mov.b64 %rd9, %fd1;"),
       0xFFF8000000000000},
      {R64("cvt.f64.f32 %fd1, 0fFF800001; mov.b64 %rd9, %fd1;"), 0xFFF8000020000000},
      {R32("cvt.rn.f32.f64 %f1, 0d7FF0000020000000; mov.b32 %r9, %f1;"), 0x7FC00001},
  });
}

TEST(MachineSemanticsTest, MovPacking) {
  ExpectCases({
      {R32("mov.b16 %h1, 0x1111; mov.b16 %h2, 0x2222; mov.b32 %r9, {%h1, %h2};"),
       0x22221111},
      {R32("mov.b32 %r1, 0x44443333; mov.b32 {%h3, %h4}, %r1; mov.b32 %r9, {%h4, %h3};"),
       0x33334444},
      {R64("mov.b32 %r1, 0xAAAA0001; mov.b32 %r2, 0xBBBB0002; mov.b64 %rd9, {%r1, %r2};"),
       0xBBBB0002AAAA0001},
      {R32("mov.b64 %rd1, 0x1122334455667788; mov.b64 {%r1, %r2}, %rd1; mov.b32 %r9, "
           "%r2;"),
       0x11223344},
      {R32("mov.b64 %rd1, 0x1122334455667788; mov.b64 {_, %r2}, %rd1; mov.b32 %r9, %r2;"),
       0x11223344},
      {R16("mov.b64 %rd1, 0x1122334455667788; mov.b64 {%h1, %h2, %h3, %h9}, %rd1;"),
       0x1122},
      {R32("mov.b32 %r9, 0f3F800000;"), 0x3F800000},
      {R64("mov.u64 %rd9, -2;"), 0xFFFFFFFFFFFFFFFE},
      {R32("mov.u32 %r9, -2;"), 0xFFFFFFFE},
  });
}

TEST(MachineSemanticsTest, SpecialRegisters) {
  // Two CTAs of 64 threads; each thread writes 6 words at (ctaid * 64 + tid) * 32.
  std::string body = R"(
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mad.lo.u32 %r3, %r1, %r2, %r0;
  mul.wide.u32 %rd3, %r3, 32;
  add.s64 %rd3, %rd0, %rd3;
  mov.u32 %r4, %laneid;
  st.global.u32 [%rd3], %r4;
  mov.u32 %r4, %warpid;
  st.global.u32 [%rd3+4], %r4;
  st.global.u32 [%rd3+8], %r2;
  st.global.u32 [%rd3+12], %r1;
  mov.u32 %r4, %nctaid.x;
  st.global.u32 [%rd3+16], %r4;
  mov.u32 %r4, %lanemask_lt;
  st.global.u32 [%rd3+20], %r4;
  mov.u32 %r4, %lanemask_ge;
  st.global.u32 [%rd3+24], %r4;
  mov.u32 %r4, %tid.y;
  st.global.u32 [%rd3+28], %r4;
)";
  BodyOptions o;
  o.threads = 64;
  o.grid = 2;
  o.stride = 32;
  ASSERT_OK_AND_ASSIGN(BodyRun r, RunBody(body, o));
  ASSERT_TRUE(r.report.ok()) << r.Faults();
  for (uint32_t g = 0; g < 128; ++g) {
    uint32_t tid = g % 64, lane = tid % 32;
    EXPECT_EQ(r.At<uint32_t>(8 * g + 0), lane);
    EXPECT_EQ(r.At<uint32_t>(8 * g + 1), tid / 32);
    EXPECT_EQ(r.At<uint32_t>(8 * g + 2), 64u);
    EXPECT_EQ(r.At<uint32_t>(8 * g + 3), g / 64);
    EXPECT_EQ(r.At<uint32_t>(8 * g + 4), 2u);
    EXPECT_EQ(r.At<uint32_t>(8 * g + 5), (1u << lane) - 1);
    EXPECT_EQ(r.At<uint32_t>(8 * g + 6), ~((1u << lane) - 1));
    EXPECT_EQ(r.At<uint32_t>(8 * g + 7), 0u);
  }
}

TEST(MachineSemanticsTest, GlobalLoadsStoresAndVectors) {
  // in is IOTA of u16: element i = i. Each thread loads a v4.b16 at element 4*tid and
  // writes the elements reversed as one v2.b32 and one 64-bit value.
  std::string body = R"(
  mul.wide.u32 %rd3, %r0, 8;
  add.s64 %rd3, %rd1, %rd3;
  ld.global.v4.b16 {%h1, %h2, %h3, %h4}, [%rd3];
  mov.b32 %r1, {%h4, %h3};
  mov.b32 %r2, {%h2, %h1};
  st.global.v2.b32 [%rd2], {%r1, %r2};
  ld.global.nc.L1::evict_last.b64 %rd4, [%rd3];
  st.global.b64 [%rd2+8], %rd4;
  ld.global.s16 %r3, [%rd3+2];
  st.global.b32 [%rd2+16], %r3;
)";
  BodyOptions o;
  o.threads = 32;
  o.stride = 24;
  ASSERT_OK_AND_ASSIGN(BodyRun r, RunBody(body, o));
  ASSERT_TRUE(r.report.ok()) << r.Faults();
  for (uint32_t t = 0; t < 32; ++t) {
    uint64_t e = 4 * t;
    EXPECT_EQ(r.At<uint32_t>(6 * t + 0), uint32_t(((e + 2) << 16) | (e + 3)));
    EXPECT_EQ(r.At<uint32_t>(6 * t + 1), uint32_t((e << 16) | (e + 1)));
    EXPECT_EQ(r.At<uint64_t>(3 * t + 1),
              e | (e + 1) << 16 | (e + 2) << 32 | (e + 3) << 48);
    EXPECT_EQ(r.At<uint32_t>(6 * t + 4), uint32_t(e + 1));
  }
  EXPECT_EQ(r.Counter("global_bytes.load"), 32 * (8 + 8 + 2));
  EXPECT_EQ(r.Counter("global_bytes.store"), 32 * (8 + 8 + 4));
}

TEST(MachineSemanticsTest, SignExtendingLoadIntoWiderRegister) {
  std::string body = R"(
  mov.u32 %r1, 0xFFFF80F0;
  st.global.b32 [%rd2], %r1;
  ld.global.s8 %r2, [%rd2];
  ld.global.u8 %r3, [%rd2];
  ld.global.s16 %h1, [%rd2];
  cvt.u32.u16 %r4, %h1;
  st.global.v4.b32 [%rd2], {%r2, %r3, %r4, 7};
)";
  BodyOptions o;
  o.threads = 1;
  o.stride = 16;
  ASSERT_OK_AND_ASSIGN(BodyRun r, RunBody(body, o));
  ASSERT_TRUE(r.report.ok()) << r.Faults();
  EXPECT_EQ(r.At<uint32_t>(0), 0xFFFFFFF0u);
  EXPECT_EQ(r.At<uint32_t>(1), 0xF0u);
  EXPECT_EQ(r.At<uint32_t>(2), 0x80F0u);
  EXPECT_EQ(r.At<uint32_t>(3), 7u);
}

TEST(MachineSemanticsTest, Atomics) {
  std::string body = R"(
  atom.global.add.u32 %r1, [%rd0+512], 1;
  st.global.u32 [%rd2], %r1;
  atom.global.max.s32 %r2, [%rd0+516], %r0;
  atom.global.min.u32 %r2, [%rd0+520], %r0;
  red.global.add.u64 [%rd0+528], 2;
  atom.global.inc.u32 %r3, [%rd0+536], 4;
  atom.global.exch.b32 %r4, [%rd0+540], %r0;
  atom.global.cas.b32 %r5, [%rd0+544], 0, 9;
  atom.shared.add.u32 %r6, [smem], 3;
  bar.sync 0;
  ld.shared.u32 %r7, [smem];
  st.global.u32 [%rd0+548], %r7;
  atom.global.add.f32 %f1, [%rd0+552], 0f3F800000;
)";
  BodyOptions o;
  o.threads = 64;
  o.stride = 4;
  o.out_bytes = 1024;
  o.extra_decls = ".shared .align 4 .b8 smem[4];";
  ASSERT_OK_AND_ASSIGN(BodyRun r, RunBody(body, o));
  ASSERT_TRUE(r.report.ok()) << r.Faults();
  // Deterministic order: thread t runs the add t-th.
  for (uint32_t t = 0; t < 64; ++t) EXPECT_EQ(r.At<uint32_t>(t), t);
  EXPECT_EQ(r.At<uint32_t>(128), 64u);          // add
  EXPECT_EQ(r.At<uint32_t>(129), 63u);          // max
  EXPECT_EQ(r.At<uint32_t>(130), 0u);           // min
  EXPECT_EQ(r.At<uint64_t>(66), 128u);          // red.add.u64
  EXPECT_EQ(r.At<uint32_t>(134), 64u % 5);      // inc wraps at 4: 0,1,2,3,4,0,...
  EXPECT_EQ(r.At<uint32_t>(135), 63u);          // exch: the last one
  EXPECT_EQ(r.At<uint32_t>(136), 9u);           // cas succeeded once
  EXPECT_EQ(r.At<uint32_t>(137), 192u);         // shared add
  EXPECT_EQ(r.At<uint32_t>(138), 0x42800000u);  // 64.0f
}

TEST(MachineSemanticsTest, LocalAndGenericMemory) {
  std::string body = R"(
  .local .align 8 .b8 buf[16];
  mov.u64 %rd3, buf;
  st.local.u32 [%rd3+4], %r0;
  cvta.local.u64 %rd4, %rd3;
  ld.u32 %r1, [%rd4+4];
  mov.u64 %rd5, smem;
  cvta.shared.u64 %rd5, %rd5;
  mul.wide.u32 %rd6, %r0, 4;
  add.s64 %rd6, %rd5, %rd6;
  add.u32 %r3, %r0, 1000;
  st.u32 [%rd6], %r3;
  cvta.to.shared.u64 %rd7, %rd6;
  cvt.u32.u64 %r4, %rd7;
  ld.shared.u32 %r5, [%r4];
  st.global.v2.u32 [%rd2], {%r1, %r5};
)";
  BodyOptions o;
  o.threads = 32;
  o.stride = 8;
  o.extra_decls = ".shared .align 16 .b8 smem[128];";
  ASSERT_OK_AND_ASSIGN(BodyRun r, RunBody(body, o));
  ASSERT_TRUE(r.report.ok()) << r.Faults();
  for (uint32_t t = 0; t < 32; ++t) {
    EXPECT_EQ(r.At<uint32_t>(2 * t), t);
    EXPECT_EQ(r.At<uint32_t>(2 * t + 1), 1000 + t);
  }
}

TEST(MachineSemanticsTest, ModuleVariablesWithInitialisers) {
  std::string body = R"(
  mov.u64 %rd3, table;
  mul.wide.u32 %rd4, %r0, 4;
  add.s64 %rd3, %rd3, %rd4;
  ld.global.u32 %r1, [%rd3];
  ld.const.f32 %f1, [scale];
  mov.b32 %r2, %f1;
  st.global.v2.u32 [%rd2], {%r1, %r2};
)";
  BodyOptions o;
  o.threads = 4;
  o.extra_decls =
      ".global .align 4 .u32 table[4] = {10, 20, 30, -1};\n"
      ".const .align 4 .f32 scale = 0f40490FDB;\n";
  ASSERT_OK_AND_ASSIGN(BodyRun r, RunBody(body, o));
  ASSERT_TRUE(r.report.ok()) << r.Faults();
  EXPECT_EQ(r.At<uint32_t>(0), 10u);
  EXPECT_EQ(r.At<uint32_t>(2), 20u);
  EXPECT_EQ(r.At<uint32_t>(6), 0xFFFFFFFFu);
  EXPECT_EQ(r.At<uint32_t>(1), 0x40490FDBu);
}

TEST(MachineSemanticsTest, UnsupportedCombinationsAreInputErrors) {
  const char* bodies[] = {
      "add.rz.f32 %f1, %f2, %f3;",
      "mul.u32 %r1, %r2, %r3;",  // needs .lo/.hi/.wide
      "add.u32 %r1, %p1, 1;",
      "mov.u32 %h1, 5;",  // 16-bit register, 32-bit result
      "ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8 {%r1}, [%r2];",
      "ld.shared::cluster.u32 %r1, [%r2];",
  };
  for (const char* b : bodies) {
    absl::StatusOr<BodyRun> r = RunBody(b);
    EXPECT_THAT(r, StatusIs(absl::StatusCode::kInvalidArgument, "body.ptx:")) << b;
  }
}

}  // namespace
}  // namespace warpcheck::sim::machine
