// The printer's layout and the trees built in code (sim/ptx/codegen.h):
//
//   * LocateAsPrinted gives every statement the line and column ParseModule reads from
//     PrintModule's text (Triton's PTX and the corpus kernels);
//   * a harness built as a tree (EmitHarnessModule) is the tree ParseModule reads from its
//     printed text, positions included, on a sample of Triton's test pairs in both
//     harnesses, and the text `convert emit` writes (EmitHarness, made without the tree)
//     is that printed text on every corpus pair: the simulator runs exactly what
//     `convert emit` writes;
//   * what a tree keeps for printing ([r+0], the leading comment, the blank line after the
//     register declarations) survives the round trip.
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/base/tsv.h"
#include "sim/machine/program.h"
#include "sim/plan/problem.h"
#include "sim/ptx/codegen.h"
#include "sim/ptx/parser.h"
#include "sim/ptx/printer.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/sanitized.h"

namespace warpcheck::sim::ptx {
namespace {

std::string SourceDir() {
  const char* env = std::getenv("WARPCHECK_SOURCE_DIR");
  return env != nullptr ? env : WARPCHECK_SOURCE_DIR;
}

// Expects the positions LocateAsPrinted sets (kernels, parameters, variables, statements,
// instructions) to be equal in `a` and `b`.
void ExpectSamePositions(const Module& a, const Module& b, const std::string& what) {
  ASSERT_EQ(a.variables.size(), b.variables.size()) << what;
  for (size_t i = 0; i < a.variables.size(); ++i) {
    EXPECT_EQ(a.variables[i].loc, b.variables[i].loc) << what << " variable " << i;
  }
  ASSERT_EQ(a.kernels.size(), b.kernels.size()) << what;
  for (size_t k = 0; k < a.kernels.size(); ++k) {
    const Kernel& ka = a.kernels[k];
    const Kernel& kb = b.kernels[k];
    EXPECT_EQ(ka.loc, kb.loc) << what;
    ASSERT_EQ(ka.params.size(), kb.params.size()) << what;
    for (size_t i = 0; i < ka.params.size(); ++i) {
      EXPECT_EQ(ka.params[i].loc, kb.params[i].loc) << what << " param " << i;
    }
    ASSERT_EQ(ka.body.size(), kb.body.size()) << what;
    for (size_t i = 0; i < ka.body.size(); ++i) {
      const Statement& sa = ka.body[i];
      const Statement& sb = kb.body[i];
      ASSERT_EQ(sa.loc, sb.loc) << what << " statement " << i << " (line " << sb.loc.line
                                << ")";
      ASSERT_EQ(sa.insn.loc, sb.insn.loc) << what << " statement " << i;
      ASSERT_EQ(sa.var.loc, sb.var.loc) << what << " statement " << i;
    }
  }
}

// Expects `built` (a tree made in code, or one relocated) to be what ParseModule reads from
// its printed text: the same tree and, with positions, the same positions.
void ExpectIsParseOfPrint(const Module& built, const std::string& what) {
  const std::string text = PrintModule(built);
  absl::StatusOr<Module> parsed = ParseModule(text, "<emitted>");
  ASSERT_TRUE(parsed.ok()) << what << ": " << parsed.status() << "\n" << text;
  ExpectSamePositions(built, *parsed, what);
  Module a = built, b = *parsed;
  ClearLocations(&a);
  ClearLocations(&b);
  EXPECT_TRUE(a == b) << what;
}

// In the sanitizer job's -O0 build (WARPCHECK_SANITIZED, tools/sanitize.sh) the two
// corpus-wide tests below take every third file and every fourth pair: all of them took
// 17 and 24 s there (6 and 4 s sampled), most of ptx_printer_test's time, running the same
// code on more input.
constexpr size_t kFileStride = warpcheck::testing::kSanitized ? 3 : 1;
constexpr int kPairStride = warpcheck::testing::kSanitized ? 4 : 1;

TEST(PtxPrinterTest, LocateAsPrintedGivesTheParsersPositions) {
  std::vector<std::string> files;
  for (const char* dir : {"tests/sim/machine/testdata", "corpus"}) {
    for (const auto& e :
         std::filesystem::recursive_directory_iterator(std::filesystem::path(SourceDir()) / dir)) {
      if (e.is_regular_file() && e.path().extension() == ".ptx") files.push_back(e.path());
    }
  }
  ASSERT_GE(files.size(), 10u);
  std::sort(files.begin(), files.end());
  for (size_t i = 0; i < files.size(); i += kFileStride) {
    const std::string& f = files[i];
    ASSERT_OK_AND_ASSIGN(Module m, ParseModuleFile(f));
    LocateAsPrinted(&m);  // positions in the file become positions in the printed text
    ExpectIsParseOfPrint(m, f);
  }
}

TEST(PtxPrinterTest, WhatATreeKeepsForPrintingSurvives) {
  const std::string text =
      "// head\n"
      "//\n"
      ".version 8.0\n"
      ".target sm_90\n"
      ".address_size 64\n"
      "\n"
      ".shared .align 16 .b8 s[64];\n"
      "\n"
      ".visible .entry k(\n"
      "\t.param .u64 p\n"
      ")\n"
      "{\n"
      "\t.reg .pred %p<1>;\n"
      "\t.reg .b32 %r<3>;\n"
      "\n"
      "\tmov.u32 %r0, s;\n"
      "\tld.shared.b32 %r1, [%r0+0];\n"
      "\tld.shared.b32 %r2, [%r0];\n"
      "\tsetp.eq.u32 %p0, %r1, 0;\n"
      "$L:\n"
      "\t@!%p0 st.shared.b32 [%r0+4], %r2;\n"
      "\tret;\n"
      "}\n";
  ASSERT_OK_AND_ASSIGN(Module m, ParseModule(text, "t.ptx"));
  const Operand& plus_zero = m.kernels[0].body[3].insn.operands[1];
  EXPECT_TRUE(plus_zero.zero_offset_written);
  EXPECT_FALSE(m.kernels[0].body[4].insn.operands[1].zero_offset_written);
  Module with_comment = m;
  with_comment.comment = {"head", ""};
  EXPECT_TRUE(with_comment == m) << "equality ignores the comment";
  EXPECT_EQ(PrintModule(with_comment), text);
  // The guarded store's opcode is after `@!%p0 `.
  EXPECT_EQ(m.kernels[0].body[7].insn.loc, (SourceLoc{21, 8}));
  Module located = with_comment;
  LocateAsPrinted(&located);
  ExpectSamePositions(located, m, "the sample");
}

// Every `every`-th ok pair of corpus/plan/triton_costs.tsv that the planner takes.
std::vector<plan::ConversionProblem> SampleProblems(int every) {
  auto t = base::ReadTsvFile(SourceDir() + "/corpus/plan/triton_costs.tsv");
  EXPECT_TRUE(t.ok()) << t.status();
  std::vector<plan::ConversionProblem> out;
  if (!t.ok()) return out;
  int row = 0;
  for (const auto& c : t->rows) {
    if (t->Cell(c, "status") != "ok" || (row++ % every) != 0) continue;
    std::vector<int64_t> shape;
    for (absl::string_view s : absl::StrSplit(t->Cell(c, "shape"), 'x')) {
      int64_t v = 0;
      EXPECT_TRUE(absl::SimpleAtoi(s, &v));
      shape.push_back(v);
    }
    int warps = 0;
    EXPECT_TRUE(absl::SimpleAtoi(t->Cell(c, "num_warps"), &warps));
    auto dtype = plan::ParseDType(t->Cell(c, "dtype"));
    EXPECT_TRUE(dtype.ok());
    auto p = plan::MakeProblem(t->Cell(c, "src"), t->Cell(c, "dst"), shape, *dtype, warps);
    if (p.ok()) out.push_back(*std::move(p));
  }
  return out;
}

TEST(PtxPrinterTest, EmittedTreeIsTheParseOfItsText) {
  const std::vector<plan::ConversionProblem> problems = SampleProblems(23);
  ASSERT_GE(problems.size(), 50u);
  int checked = 0;
  bool saw_loop = false, saw_smem = false;
  for (const plan::ConversionProblem& p : problems) {
    auto trip = PlanRoundTrip(p, plan::PlanOptions{});
    if (!trip.ok()) continue;
    for (Harness h : {Harness::kOnce, Harness::kRoundTrip, Harness::kCheck}) {
      const Module m = EmitHarnessModule(p, trip->forward, &trip->backward, h);
      EXPECT_EQ(m.file, "<emitted>");
      EXPECT_EQ(PrintModule(m), EmitHarness(p, trip->forward, &trip->backward, h));
      ExpectIsParseOfPrint(m, absl::StrCat(p.src_attr, " -> ", p.dst_attr));
      const std::string text = PrintModule(m);
      saw_loop = saw_loop || absl::StrContains(text, "$L_loop:");
      saw_smem = saw_smem || absl::StrContains(text, "+0];");
      ++checked;
    }
  }
  EXPECT_GE(checked, 100);
  EXPECT_TRUE(saw_loop && saw_smem) << "the sample covers loops and shared memory";
}

// EmitHarness writes the text from the code generator's record without building the tree
// (sim/ptx/codegen.cc, Writer::AppendBody): on every corpus pair and every harness it is
// byte for byte PrintModule of the tree the simulator runs.
TEST(PtxPrinterTest, EmittedTextIsThePrintOfTheTreeOnEveryCorpusPair) {
  const std::vector<plan::ConversionProblem> problems = SampleProblems(kPairStride);
  ASSERT_GE(problems.size(), 1000u / kPairStride);
  int checked = 0, differ = 0;
  for (const plan::ConversionProblem& p : problems) {
    auto trip = PlanRoundTrip(p, plan::PlanOptions{});
    if (!trip.ok()) continue;
    for (Harness h : {Harness::kOnce, Harness::kRoundTrip, Harness::kCheck}) {
      const std::string text = EmitHarness(p, trip->forward, &trip->backward, h);
      const std::string printed =
          PrintModule(EmitHarnessModule(p, trip->forward, &trip->backward, h));
      ++checked;
      if (text != printed && ++differ <= 3) {
        EXPECT_EQ(text, printed) << p.src_attr << " -> " << p.dst_attr;
      }
    }
  }
  EXPECT_EQ(differ, 0);
  EXPECT_GE(checked, 2000 / kPairStride);
}

// StreamHarness makes the tree's statements one at a time into one reused Instruction
// (the simulator's decoder reads them so, without the tree): every statement of every
// harness on a sample of pairs equals the tree's, label or instruction, and each
// instruction's text is the tree's as printed.
TEST(PtxPrinterTest, StreamedStatementsAreTheTrees) {
  const std::vector<plan::ConversionProblem> problems = SampleProblems(7 * kPairStride);
  ASSERT_GE(problems.size(), 100u / kPairStride);
  int checked = 0, differ = 0;
  Instruction in;  // reused across statements, pairs and harnesses
  for (const plan::ConversionProblem& p : problems) {
    auto trip = PlanRoundTrip(p, plan::PlanOptions{});
    if (!trip.ok()) continue;
    for (Harness h : {Harness::kOnce, Harness::kRoundTrip, Harness::kCheck}) {
      const Module m = EmitHarnessModule(p, trip->forward, &trip->backward, h);
      const std::shared_ptr<const HarnessStream> stream =
          StreamHarness(p, trip->forward, &trip->backward, h);
      const Kernel& k = m.kernels[0];
      const Kernel& f = stream->frame().kernels[0];
      EXPECT_EQ(f.registers, k.registers);
      EXPECT_EQ(f.params, k.params);
      EXPECT_EQ(stream->frame().variables, m.variables);
      ASSERT_GE(k.body.size(), f.body.size());
      ASSERT_EQ(stream->size(), k.body.size() - f.body.size());
      EXPECT_EQ(CheckLoopPc(*stream), CheckLoopPc(k));
      size_t pc = 0;
      for (size_t i = 0; i < stream->size(); ++i) {
        const Statement& t = k.body[f.body.size() + i];
        const char* label = stream->Statement(i, &in);
        EXPECT_EQ(label == nullptr ? nullptr : stream->Label(i), label);
        bool same;
        if (t.kind == Statement::Kind::kLabel) {
          same = label != nullptr && t.label == label;
        } else {
          same = label == nullptr && in == t.insn &&
                 stream->InstructionText(pc++) == PrintInstruction(t.insn);
        }
        if (!same && ++differ <= 3) {
          ADD_FAILURE() << p.src_attr << " -> " << p.dst_attr << " statement " << i << ": "
                        << (t.kind == Statement::Kind::kLabel ? t.label
                                                              : PrintInstruction(t.insn));
        }
      }
      ++checked;
    }
  }
  EXPECT_EQ(differ, 0);
  EXPECT_GE(checked, 300 / kPairStride);
}

// The decoder reads the stream as it reads the tree: DecodeStream's Program is
// Decode's, instruction by instruction (every field), with the same texts, slots,
// parameters and shared symbols.
TEST(PtxPrinterTest, DecodedStreamIsTheDecodedTree) {
  const std::vector<plan::ConversionProblem> problems = SampleProblems(7 * kPairStride);
  int checked = 0;
  for (const plan::ConversionProblem& p : problems) {
    auto trip = PlanRoundTrip(p, plan::PlanOptions{});
    if (!trip.ok()) continue;
    for (Harness h : {Harness::kOnce, Harness::kRoundTrip, Harness::kCheck}) {
      const Module m = EmitHarnessModule(p, trip->forward, &trip->backward, h);
      auto a = machine::Decode(m, m.kernels[0]);
      auto b = machine::DecodeStream(StreamHarness(p, trip->forward, &trip->backward, h));
      ASSERT_TRUE(a.ok()) << a.status();
      ASSERT_TRUE(b.ok()) << b.status();
      ASSERT_EQ(a->code.size(), b->code.size());
      ASSERT_EQ(a->text.size(), b->text.size());
      for (size_t pc = 0; pc < a->code.size(); ++pc) {
        const machine::Insn& x = a->code[pc];
        const machine::Insn& y = b->code[pc];
        const bool same =
            x.fn == y.fn && x.kind == y.kind && x.op_class == y.op_class &&
            x.guard == y.guard && x.guard_neg == y.guard_neg && x.nd == y.nd &&
            x.ns == y.ns && std::memcmp(x.d, y.d, sizeof x.d) == 0 &&
            std::memcmp(x.s, y.s, sizeof x.s) == 0 && x.p[0] == y.p[0] && x.p[1] == y.p[1] &&
            x.q == y.q && x.q_neg == y.q_neg && x.has_p1 == y.has_p1 && x.space == y.space &&
            x.ebytes == y.ebytes && x.vec == y.vec && x.sext == y.sext &&
            x.offset == y.offset && x.dmask == y.dmask && x.aux == y.aux &&
            x.aux2 == y.aux2 && x.target == y.target && x.member_slot == y.member_slot &&
            x.line == y.line && x.column == y.column;
        ASSERT_TRUE(same) << p.src_attr << " -> " << p.dst_attr << " pc " << pc << ": "
                          << a->text[pc];
        ASSERT_EQ(a->text[pc], b->text[pc]);
      }
      EXPECT_EQ(a->num_slots, b->num_slots);
      EXPECT_EQ(a->num_preds, b->num_preds);
      EXPECT_EQ(a->num_register_slots, b->num_register_slots);
      EXPECT_EQ(a->slot_init, b->slot_init);
      EXPECT_EQ(a->zero_slots, b->zero_slots);
      EXPECT_EQ(a->param_bytes, b->param_bytes);
      EXPECT_EQ(a->params.size(), b->params.size());
      EXPECT_EQ(a->shared_symbols, b->shared_symbols);
      EXPECT_EQ(a->static_shared_bytes, b->static_shared_bytes);
      EXPECT_EQ(a->specials.size(), b->specials.size());
      EXPECT_EQ(a->address_slots.size(), b->address_slots.size());
      ++checked;
    }
  }
  EXPECT_GE(checked, 300 / kPairStride);
}

}  // namespace
}  // namespace warpcheck::sim::ptx
