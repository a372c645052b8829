// Consistency of the op table (Spike's check-opcode-overlap idea): every opcode has one
// entry at its index, a unique name, valid modifier categories and operand shapes, a
// counter class, and semantics in sim/machine; canonical spellings read back.
#include <set>
#include <string>

#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/machine/semantics.h"
#include "sim/ptx/op_table.h"
#include "tests/testing/status_matchers.h"

namespace warpcheck::sim::ptx {
namespace {

TEST(PtxOpTableTest, EveryOpcodeHasOneWellFormedEntry) {
  absl::Span<const OpDesc> table = OpTable();
  ASSERT_EQ(table.size(), size_t(Opcode::kNumOpcodes));
  std::set<std::string> names;
  for (size_t i = 0; i < table.size(); ++i) {
    const OpDesc& d = table[i];
    SCOPED_TRACE(d.name);
    EXPECT_EQ(size_t(d.op), i) << "table order";
    EXPECT_TRUE(names.insert(d.name).second) << "duplicate name";
    EXPECT_LE(d.min_types, d.max_types);
    EXPECT_LE(d.max_types, 2);
    EXPECT_LT(int(d.op_class), int(OpClass::kNumClasses));
    EXPECT_NE(std::string(d.summary), "");
    // Operand shapes: letters from op_table.h, forms with distinct operand counts.
    std::set<size_t> counts;
    for (absl::string_view form : absl::StrSplit(d.operands, '|')) {
      std::vector<absl::string_view> letters =
          absl::StrSplit(form, ',', absl::SkipEmpty());
      EXPECT_TRUE(counts.insert(letters.size()).second)
          << "two forms with one operand count";
      for (absl::string_view l : letters) {
        EXPECT_EQ(l.size(), 1u);
        EXPECT_NE(std::string("dpPDsSqVali").find(l[0]), std::string::npos) << l;
      }
    }
    // The semantics column.
    EXPECT_NE(machine::SemanticsOf(d.op), nullptr);
    // Types are a category exactly when the op takes type modifiers.
    bool has_type = std::string(d.modifiers).find("type") != std::string::npos;
    EXPECT_EQ(has_type, d.max_types > 0);
  }
}

TEST(PtxOpTableTest, NamesAreNotPrefixesThatShadowModifiers) {
  // "bar.sync" and "bar.warp.sync" must both be reachable by longest-prefix lookup.
  for (const char* text :
       {"bar.sync", "bar.warp.sync", "bar.arrive", "barrier.sync.aligned",
        "shfl.sync.idx.b32", "vote.sync.ballot.b32",
        "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16",
        "stmatrix.sync.aligned.m8n8.x2.shared::cta.b16"}) {
    ASSERT_OK_AND_ASSIGN(ParsedOpcode p, ParseOpcode(text));
    EXPECT_TRUE(absl::StartsWith(text, Desc(p.op).name)) << text;
  }
}

TEST(PtxOpTableTest, ModifiersResolveByOpcode) {
  ASSERT_OK_AND_ASSIGN(ParsedOpcode setp, ParseOpcode("setp.lo.u32.and"));
  EXPECT_EQ(setp.mods.cmp, CmpOp::kLo);
  EXPECT_EQ(setp.mods.bool_op, BoolOp::kAnd);
  ASSERT_OK_AND_ASSIGN(ParsedOpcode mul, ParseOpcode("mul.lo.u32"));
  EXPECT_EQ(mul.mods.mul, MulMode::kLo);
  ASSERT_OK_AND_ASSIGN(ParsedOpcode atom, ParseOpcode("atom.acq_rel.gpu.global.and.b32"));
  EXPECT_EQ(atom.mods.atom, AtomOp::kAnd);
  EXPECT_EQ(atom.mods.sem, Sem::kAcqRel);
  EXPECT_EQ(atom.mods.scope, Scope::kGpu);
  ASSERT_OK_AND_ASSIGN(ParsedOpcode vote, ParseOpcode("vote.sync.uni.pred"));
  EXPECT_EQ(vote.mods.vote, VoteMode::kUni);
  ASSERT_OK_AND_ASSIGN(ParsedOpcode bra, ParseOpcode("bra.uni"));
  EXPECT_TRUE(bra.mods.uni);
  ASSERT_OK_AND_ASSIGN(ParsedOpcode ld,
                       ParseOpcode("ld.global.L1::evict_last.L2::cache_hint.v4.b32"));
  EXPECT_EQ(ld.mods.hints,
            (std::vector<std::string>{"L1::evict_last", "L2::cache_hint"}));
  ASSERT_OK_AND_ASSIGN(ParsedOpcode fence, ParseOpcode("fence.proxy.async.shared::cta"));
  EXPECT_EQ(fence.mods.space, Space::kShared);
  EXPECT_THAT(ParseOpcode("add.eq.u32"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "modifier '.eq' is not supported on 'add'"));
  EXPECT_THAT(ParseOpcode("mov.u32.u32"),
              StatusIs(absl::StatusCode::kInvalidArgument, "too many type modifiers"));
}

TEST(PtxOpTableTest, CanonicalSpellingsReadBack) {
  const char* texts[] = {"ld.relaxed.gpu.global.L1::no_allocate.v2.u64",
                         "st.volatile.shared.v4.b16",
                         "atom.global.cas.b64",
                         "red.release.sys.global.add.u32",
                         "cvt.rn.sat.f16.f32",
                         "cvta.to.shared.u64",
                         "setp.neu.ftz.f32.xor",
                         "prmt.b32.ecl",
                         "mad.wide.s16",
                         "shfl.sync.down.b32",
                         "ldmatrix.sync.aligned.m8n8.x1.shared.b16",
                         "membar.gl",
                         "fence.sc.cta",
                         "createpolicy.fractional.L2::evict_last.b64",
                         "fma.rn.ftz.sat.f32"};
  for (const char* t : texts) {
    ASSERT_OK_AND_ASSIGN(ParsedOpcode p, ParseOpcode(t));
    std::string canon = FormatOpcode(p.op, p.mods);
    ASSERT_OK_AND_ASSIGN(ParsedOpcode q, ParseOpcode(canon));
    EXPECT_EQ(q.op, p.op) << t;
    EXPECT_TRUE(q.mods == p.mods) << t << " -> " << canon;
  }
}

TEST(PtxOpTableTest, ClassesHaveDistinctCounterNames) {
  std::set<std::string> names;
  for (int i = 0; i < int(OpClass::kNumClasses); ++i) {
    EXPECT_TRUE(names.insert(OpClassName(OpClass(i))).second);
  }
  EXPECT_EQ(ResolveClass(Opcode::kLd, ParseOpcode("ld.shared.u32")->mods),
            OpClass::kLdShared);
  EXPECT_EQ(ResolveClass(Opcode::kSt, ParseOpcode("st.global.u32")->mods),
            OpClass::kStGlobal);
  EXPECT_EQ(ResolveClass(Opcode::kLd, ParseOpcode("ld.u32")->mods), OpClass::kLdGeneric);
  EXPECT_EQ(ResolveClass(Opcode::kLd, ParseOpcode("ld.param.u32")->mods),
            OpClass::kLdParam);
}

}  // namespace
}  // namespace warpcheck::sim::ptx
