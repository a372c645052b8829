// Signal interpreter and explorer throughput on corpus/signal protocols.
//
//   build/tests/bench/signal_benchmark [--benchmark_filter=Explore]
//
// BM_Step: Machine::Step over a fixed schedule (the fifo run of the program, recorded
//   once), re-run from the initial state every iteration; items_per_second = steps/s.
// BM_Explore: Explore with the partial-order reduction (the default) at the program's
//   rank count (8 for the *_8ranks files); counters: states per exploration and
//   states_per_second.
// BM_ExploreSmall: the same programs at a rank count where the unreduced exploration
//   finishes (--ranks via LoadOverrides), reduced (/1) and unreduced (/0), so the
//   reduction's factor in states and time is visible side by side.
// BM_ExploreMemory: bytes per state on the search stack, shared vs full-copy histories.
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "sim/signal/explore.h"
#include "sim/signal/machine.h"
#include "sim/signal/program.h"

namespace warpcheck::sim::signal {
namespace {

// The source tree: $WARPCHECK_SOURCE_DIR, else three levels above this file.
std::string SourceDir() {
  if (const char* env = std::getenv("WARPCHECK_SOURCE_DIR")) return env;
  return std::filesystem::path(__FILE__).parent_path().parent_path().parent_path().string();
}

struct Loaded {
  std::unique_ptr<Program> p;  // the machine points into it: keep it in place
  std::unique_ptr<Machine> m;
  std::string error;
};

Loaded Load(const std::string& file, const LoadOverrides& o = {}) {
  Loaded l;
  absl::StatusOr<Program> p = LoadProgramFile(SourceDir() + "/corpus/signal/" + file, o);
  if (!p.ok()) {
    l.error = std::string(p.status().message());
    return l;
  }
  l.p = std::make_unique<Program>(*std::move(p));
  absl::StatusOr<Machine> m = Machine::Create(*l.p);
  if (!m.ok()) {
    l.error = std::string(m.status().message());
    return l;
  }
  l.m = std::make_unique<Machine>(*std::move(m));
  return l;
}

const char* const kPrograms[] = {
    "p01_producer_consumer_queue.textproto",    // 0
    "p08b_barrier_two_phase_8ranks.textproto",  // 1
    "p02_allgather_push_8ranks.textproto",      // 2
};

void BM_Step(benchmark::State& state) {
  const std::string file = kPrograms[state.range(0)];
  Loaded l = Load(file);
  if (!l.m) {
    state.SkipWithError(l.error.c_str());
    return;
  }
  const Machine& m = *l.m;
  // Record the fifo schedule once.
  const State initial = m.Initial();
  std::vector<Transition> schedule, en;
  {
    State s = initial;
    for (m.Enabled(s, &en); !en.empty(); m.Enabled(s, &en)) {
      schedule.push_back(en.front());
      m.Step(s, en.front(), nullptr);
    }
    if (!m.Done(s)) {
      state.SkipWithError("the fifo run does not complete");
      return;
    }
  }
  int64_t steps = 0;
  for (auto _ : state) {
    State s = initial;
    for (const Transition& t : schedule) m.Step(s, t, nullptr);
    benchmark::DoNotOptimize(s.words.size());
    steps += static_cast<int64_t>(schedule.size());
  }
  state.SetItemsProcessed(steps);
  state.counters["steps_per_run"] = static_cast<double>(schedule.size());
  state.counters["agents"] = m.num_agents();
  state.SetLabel(file);
}
BENCHMARK(BM_Step)->Arg(0)->Arg(1)->Arg(2);

void RunExplore(benchmark::State& state, const std::string& file, int ranks, bool reduce) {
  LoadOverrides o;
  o.ranks = ranks;
  Loaded l = Load(file, o);
  if (!l.m) {
    state.SkipWithError(l.error.c_str());
    return;
  }
  ExploreOptions opt;
  opt.reduce = reduce;
  opt.max_states = l.p->max_states;
  double states = 0, transitions = 0;
  int64_t per_run = 0;
  for (auto _ : state) {
    ExploreResult r = Explore(*l.m, opt);
    if (r.bound_hit) {
      state.SkipWithError("the exploration hit the state bound");
      return;
    }
    states += static_cast<double>(r.states);
    transitions += static_cast<double>(r.transitions);
    per_run = r.states;
  }
  state.counters["states"] = static_cast<double>(per_run);
  state.counters["states_per_second"] = benchmark::Counter(states, benchmark::Counter::kIsRate);
  state.counters["transitions_per_second"] =
      benchmark::Counter(transitions, benchmark::Counter::kIsRate);
  state.counters["ranks"] = l.p->ranks;
  state.SetLabel(file + (reduce ? " reduced" : " unreduced"));
}

// Full size (8 ranks), reduced.
void BM_Explore(benchmark::State& state) {
  RunExplore(state, kPrograms[state.range(0)], 0, true);
}
BENCHMARK(BM_Explore)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);

// Small sizes where the unreduced exploration finishes: P08b at 3 ranks, P02 at 2
// (P02 at 3 ranks passes 3,000,000 states unreduced). Args: program, reduce.
void BM_ExploreSmall(benchmark::State& state) {
  const int prog = static_cast<int>(state.range(0));
  RunExplore(state, kPrograms[prog], prog == 1 ? 3 : 2, state.range(1) != 0);
}
BENCHMARK(BM_ExploreSmall)
    ->Args({1, 1})
    ->Args({1, 0})
    ->Args({2, 1})
    ->Args({2, 0})
    ->Unit(benchmark::kMillisecond);

// Memory per state on the search stack (issue 14 item 5), on the long-loop ping-pong
// (s01: 2000 rounds, a search 8000 states deep): state_bytes as stored (write histories
// shared between states) and state_bytes_full_copy, the same states with every word's
// history copied (the representation before History); peak_memory_bytes is the search's
// whole estimate.
void BM_ExploreMemory(benchmark::State& state) {
  Loaded l = Load("s01_long_loop_ping_pong.textproto");
  if (!l.m) {
    state.SkipWithError(l.error.c_str());
    return;
  }
  ExploreOptions opt;
  ExploreResult r;
  for (auto _ : state) r = Explore(*l.m, opt);
  state.counters["states"] = static_cast<double>(r.states);
  state.counters["depth"] = static_cast<double>(r.peak_depth);
  state.counters["state_bytes"] = static_cast<double>(r.state_bytes);
  state.counters["state_bytes_full_copy"] = static_cast<double>(r.state_bytes_full_copy);
  state.counters["peak_memory_bytes"] = static_cast<double>(r.peak_memory_bytes);
}
BENCHMARK(BM_ExploreMemory)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace warpcheck::sim::signal
