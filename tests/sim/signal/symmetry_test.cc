// sim/signal/symmetry: the rank rotations found on the compiled program (and the programs
// rejected, including ones that look symmetric), the law the canonical hash rests on
// (a state and its rotated image hash alike, along real runs), and soundness over the
// corpus: exploring with the symmetry gives the same outcome, cause, terminal states and
// terminal orbits (with their race flags) as exploring without it.
#include "sim/signal/symmetry.h"

#include <memory>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "sim/signal/driver.h"
#include "sim/signal/explore.h"
#include "sim/signal/program.h"
#include "tests/sim/signal/signal_corpus_util.h"
#include "tests/testing/status_matchers.h"

namespace warpcheck::sim::signal {
namespace {

using ::testing::HasSubstr;
using testing::CorpusDir;
using testing::CorpusFiles;
using testing::Terminals;

using testing::Build;
using testing::Sim;

Sim Load(const std::string& file, int ranks) {
  LoadOverrides o;
  o.ranks = ranks;
  absl::StatusOr<Program> p = LoadProgramFile(CorpusDir() + "/" + file, o);
  EXPECT_TRUE(p.ok()) << p.status();
  Sim s;
  if (!p.ok()) return s;
  s.p = std::make_unique<Program>(*std::move(p));
  absl::StatusOr<Machine> m = Machine::Create(*s.p);
  EXPECT_TRUE(m.ok()) << m.status();
  if (m.ok()) s.m = std::make_unique<Machine>(*std::move(m));
  return s;
}

// A ring: each rank stores its data, notifies the next rank and waits for the previous
// one, then reads what the previous rank stored. BODY_EXTRA goes after the wait.
constexpr char kRing[] = R"pb(
  ranks: 4
  objects { name: "S" dtype: U64 size: "1" init: 0 }
  objects { name: "D" dtype: F32 size: "N" init: 0 }
  kernels {
    name: "k"
    grid: "1"
    body { kind: STORE site: "st" object: "D" rank: "(r + 1) % N" index: "r" tag: "r + 7" }
    body { kind: NOTIFY site: "nt" object: "S" rank: "(r + 1) % N" index: "0" value: "1"
           scope: INTRA_NODE }
    body { kind: WAIT site: "wt" object: "S" rank: "r" index: "0" value: "1" scope: SYS
           sem: ACQUIRE }
    BODY_EXTRA
    body { kind: LOAD site: "ld" object: "D" rank: "r" index: "(r + N - 1) % N"
           expect: "(r + N - 1) % N + 7" }
  }
)pb";

std::string Ring(const std::string& extra) { return absl::StrReplaceAll(kRing, {{"BODY_EXTRA", extra}}); }

TEST(SymmetryDetectTest, RingIsARotation) {
  Sim s = Build(Ring(""));
  SymmetryGroup g = DetectSymmetry(*s.m);
  EXPECT_EQ(g.kind, "rotation") << g.reason;
  EXPECT_EQ(g.order, 4);
  ASSERT_EQ(g.elements.size(), 4u);
  // Element 1 moves rank r's data slot r of D to slot r + 1, and tag r + 7 to r + 8.
  const int d = s.p->FindObject("D");
  EXPECT_EQ(g.elements[1].MapIndex(d, 0), 1);
  EXPECT_EQ(g.elements[1].MapIndex(d, 3), 0);
  EXPECT_EQ(g.elements[3].MapIndex(d, 1), 0);
  EXPECT_EQ(g.elements[1].tag[d].at(10), 7);
  EXPECT_EQ(g.elements[2].rank[3], 1);
}

TEST(SymmetryDetectTest, RankZeroSpecialIsNone) {
  // Looks like the ring, but rank 0 notifies once more.
  Sim s = Build(Ring(R"pb(body { kind: IF cond: "r == 0"
      body { kind: NOTIFY site: "extra" object: "S" rank: "1" index: "0" value: "1"
             scope: INTRA_NODE } })pb"));
  SymmetryGroup g = DetectSymmetry(*s.m);
  EXPECT_EQ(g.kind, "none");
  EXPECT_THAT(g.reason, HasSubstr("extra"));
}

TEST(SymmetryDetectTest, ConstantRankIsNone) {
  // Every rank also writes a flag on rank 0: same code per rank, not rotation-symmetric.
  Sim s = Build(Ring(R"pb(body { kind: NOTIFY site: "to0" object: "S" rank: "0" index: "0"
                             value: "1" scope: INTRA_NODE })pb"));
  SymmetryGroup g = DetectSymmetry(*s.m);
  EXPECT_EQ(g.kind, "none");
  EXPECT_THAT(g.reason, HasSubstr("rank 0 is 0 and 0"));
}

TEST(SymmetryDetectTest, RankDependentValueIsNone) {
  Sim s = Build(Ring(R"pb(body { kind: NOTIFY site: "val" object: "S" rank: "r" index: "0"
                             value: "r + 2" scope: INTRA_NODE })pb"));
  SymmetryGroup g = DetectSymmetry(*s.m);
  EXPECT_EQ(g.kind, "none");
  EXPECT_THAT(g.reason, HasSubstr("val"));
}

TEST(SymmetryDetectTest, FixedOrderPeerLoopIsNone) {
  // FOR q in 0..N visits the peers in the same order on every rank: not a rotation.
  Sim s = Build(Ring(R"pb(body { kind: FOR var: "q" from: "0" to: "N"
      body { kind: LOAD site: "peer_ld" object: "D" rank: "r" index: "q" } })pb"));
  SymmetryGroup g = DetectSymmetry(*s.m);
  EXPECT_EQ(g.kind, "none");
  EXPECT_THAT(g.reason, HasSubstr("peer_ld"));
}

TEST(SymmetryDetectTest, RelativePeerLoopIsARotation) {
  Sim s = Build(Ring(R"pb(body { kind: FOR var: "j" from: "1" to: "N"
      body { kind: LOAD site: "peer_ld" object: "D" rank: "r" index: "(r + j) % N" } })pb"));
  SymmetryGroup g = DetectSymmetry(*s.m);
  EXPECT_EQ(g.kind, "rotation") << g.reason;
}

TEST(SymmetryDetectTest, BranchOnARunTimeValueIsNone) {
  // Same code per rank, but whether a rank enters depends on a CAS result compared with
  // its rank: the walks (both sides of the branch) cannot show it, so no group.
  Sim s = Build(Ring(R"pb(body { kind: ATOMIC_CAS site: "cas" object: "S" rank: "r" index: "0"
                             compare: "1" value: "2" scope: SYS sem: RELAXED result: "old" }
                      body { kind: IF cond: "old == r"
                             body { kind: LOAD site: "in" object: "D" rank: "r" index: "0" } })pb"));
  SymmetryGroup g = DetectSymmetry(*s.m);
  EXPECT_EQ(g.kind, "none");
  EXPECT_THAT(g.reason, HasSubstr("control flow on the rank and a value known only at run time"));
}

TEST(SymmetryDetectTest, OneRankIsNone) {
  Sim s = Build(absl::StrReplaceAll(Ring(""), {{"ranks: 4", "ranks: 1"}}));
  EXPECT_EQ(DetectSymmetry(*s.m).kind, "none");
}

// The law Canonical rests on: stepping a run and its image (every transition's agent
// mapped by π^k) keeps ImageHash(run, k) == ImageHash(image run, 0), at every step.
void CheckImagesAlongRuns(const Sim& s, int runs, int steps) {
  SymmetryGroup g = DetectSymmetry(*s.m);
  ASSERT_EQ(g.kind, "rotation") << g.reason;
  SymmetryHasher h(*s.m, g);
  std::mt19937_64 rng(7);
  std::vector<Transition> en;
  for (int run = 0; run < runs; ++run) {
    const int k = 1 + static_cast<int>(rng() % (g.order - 1));
    State a = s.m->Initial(), b = s.m->Initial();
    for (int i = 0; i < steps; ++i) {
      ASSERT_EQ(h.ImageHash(a, k), h.ImageHash(b, 0)) << "run " << run << " step " << i;
      ASSERT_EQ(h.Canonical(a), h.Canonical(b));
      s.m->Enabled(a, &en);
      if (en.empty()) break;
      Transition t = en[rng() % en.size()];
      ASSERT_LE(t.lane, 0) << "these programs' waits have one lane";
      Transition u{g.elements[k].agent[t.agent], t.lane};
      std::vector<Transition> en_b;
      s.m->Enabled(b, &en_b);
      ASSERT_NE(std::find(en_b.begin(), en_b.end(), u), en_b.end());
      s.m->Step(a, t, nullptr);
      s.m->Step(b, u, nullptr);
    }
  }
}

TEST(SymmetryHashTest, ImagesHashAlikeAlongRuns) {
  CheckImagesAlongRuns(Build(Ring("")), 20, 200);
  CheckImagesAlongRuns(Load("p01_producer_consumer_queue.textproto", 3), 20, 400);
  CheckImagesAlongRuns(Load("p03_allgather_pull_copy_engine.textproto", 3), 20, 400);
  CheckImagesAlongRuns(Load("p03_allgather_pull_copy_engine__no_barrier.textproto", 3), 40, 400);
  CheckImagesAlongRuns(Load("p06_ring_reduce_scatter.textproto", 3), 20, 400);
}

TEST(SymmetryHashTest, DifferentStatesOfOneRunHashApart) {
  // A canonical hash that lumped states together would prune real behaviour.
  Sim s = Build(Ring(""));
  SymmetryGroup g = DetectSymmetry(*s.m);
  SymmetryHasher h(*s.m, g);
  State st = s.m->Initial();
  std::vector<Transition> en;
  std::set<uint64_t> seen{h.Canonical(st)};
  for (int i = 0; i < 50; ++i) {
    s.m->Enabled(st, &en);
    if (en.empty()) break;
    s.m->Step(st, en.front(), nullptr);
    EXPECT_TRUE(seen.insert(h.Canonical(st)).second) << "step " << i;
  }
  EXPECT_TRUE(s.m->Done(st));
}

// Soundness over the corpus, two ways. (1) Without partial-order reduction, where the
// explored terminal states are all the reachable ones: the same orbits of terminal states
// (canonical hash, race flag) with and without the symmetry. (With the stubborn sets the
// terminal states kept are one per class of commuting steps, which may differ in, e.g.,
// the order of two reads in an access log, so there orbits are not compared.) (2) As
// `signal run` runs it (stubborn sets, counter abstraction): the same outcome, cause and
// terminal states (outcome, blocked agents, final values, race flag). Programs whose
// exploration passes kBound states are skipped.
constexpr int64_t kBound = 20000;

using Summary = std::tuple<testing::TerminalKey, bool>;
std::set<Summary> Summaries(const SignalReport& r) {
  std::set<Summary> out;
  for (const SignalTerminal& t : r.terminals()) {
    SignalReport one;
    *one.add_terminals() = t;
    out.insert({*Terminals(one).begin(), t.race()});
  }
  return out;
}

// Ensures: false when skipped (no group: both runs are the same search; or past kBound).
bool ExpectSameWithAndWithout(const std::string& file, int ranks) {
  const std::string what = absl::StrCat(file, " at ", ranks, " ranks");
  Sim s = Load(file, ranks);
  EXPECT_TRUE(s.m) << what;
  if (!s.m) return false;
  SymmetryGroup g = DetectSymmetry(*s.m);
  if (g.kind == "none") return false;
  ExploreOptions o;
  o.max_states = kBound;
  o.reduce = false;
  o.symmetry = &g;
  o.collect_orbits = true;
  o.reduce_symmetry = false;
  ExploreResult without = Explore(*s.m, o);
  if (!without.bound_hit) {
    o.reduce_symmetry = true;
    ExploreResult with = Explore(*s.m, o);
    EXPECT_FALSE(with.bound_hit) << what;
    EXPECT_LE(with.states, without.states) << what;
    EXPECT_EQ(with.terminal_orbits, without.terminal_orbits) << what;
    EXPECT_EQ(with.deadlocks > 0, without.deadlocks > 0) << what;
    EXPECT_EQ(with.completes > 0, without.completes > 0) << what;
    EXPECT_EQ(with.faults > 0, without.faults > 0) << what;
    EXPECT_EQ(with.races > 0, without.races > 0) << what;
  }
  RunOptions on, off;
  on.max_states = off.max_states = kBound;
  off.symmetry = false;
  absl::StatusOr<RunResult> ra = RunProgram(*s.p, off), rb = RunProgram(*s.p, on);
  EXPECT_TRUE(ra.ok() && rb.ok()) << what;
  if (!ra.ok() || !rb.ok() || ra->report.bound_hit()) return false;
  const RunResult& a = *ra;
  const RunResult& b = *rb;
  EXPECT_FALSE(b.report.bound_hit()) << what;
  EXPECT_LE(b.report.states(), a.report.states()) << what;
  EXPECT_EQ(b.report.outcome(), a.report.outcome()) << what;
  EXPECT_EQ(b.report.explanation().cause(), a.report.explanation().cause()) << what;
  if (a.report.terminals_size() < 256 && b.report.terminals_size() < 256) {
    EXPECT_EQ(Summaries(b.report), Summaries(a.report)) << what;
  }
  if (a.report.outcome() != SignalReport::static_error) {
    EXPECT_EQ(a.report.symmetry(), "off");
    EXPECT_EQ(b.report.symmetry(), g.Describe());
  }
  return true;
}

class SymmetryCorpusTest : public ::testing::TestWithParam<std::string> {};

TEST_P(SymmetryCorpusTest, SameOutcomesWithAndWithout) {
  ASSERT_OK_AND_ASSIGN(Program p, LoadProgramFile(CorpusDir() + "/" + GetParam()));
  if (!ExpectSameWithAndWithout(GetParam(), p.ranks))
    GTEST_SKIP() << GetParam() << ": no rotation, or past " << kBound << " states";
}

INSTANTIATE_TEST_SUITE_P(CorpusSignal, SymmetryCorpusTest, ::testing::ValuesIn(CorpusFiles()),
                         [](const ::testing::TestParamInfo<std::string>& i) {
                           std::string n = i.param.substr(0, i.param.rfind('.'));
                           for (char& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

TEST(SymmetryCorpusTest, RotationsAtThreeRanks) {
  // The rotation-symmetric protocols (and their mutations) at a rank count other than
  // their own, where the group has three elements.
  int checked = 0;
  for (const std::string& f : CorpusFiles()) {
    if (f.rfind("p01_", 0) != 0 && f.rfind("p03_", 0) != 0 && f.rfind("p06_", 0) != 0) continue;
    checked += ExpectSameWithAndWithout(f, 3) ? 1 : 0;
  }
  EXPECT_GE(checked, 5);
}

}  // namespace
}  // namespace warpcheck::sim::signal
