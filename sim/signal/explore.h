// Schedulers over the signal machine: one run (fifo, random) or every interleaving
// (explore).
//
// explore is a depth-first search over states with
//   * state hashing: a state reached twice is expanded once (64-bit hashes; a collision
//     would prune a state — at 10^7 states the chance is about 3e-6);
//   * partial-order reduction by stubborn sets: at each state it takes, instead of every
//     enabled transition, those of a set S of agents closed under "S's next steps conflict
//     with (or, for a blocked agent in S, could be enabled by) another agent's future". Two
//     steps conflict only on the same signal word, an overlapping data range (one side
//     writing), the same barrier, resident slots or launch. The state graph is acyclic
//     (every step makes progress), so this keeps every reachable terminal state —
//     deadlocks and completions — and, because happens-before and race flags are functions
//     of the trace, every race.
//   * the counter abstraction (README.md, "Scale"): adds to a signal word whose old value
//     nobody uses commute (footprint mode kAdd), and a wait for a count that the agents
//     other than b can no longer reach does not conflict with b's next step;
//   * barrier and launch guards: an access another agent can only make after a
//     BARRIER_ALL instance completes, or after a launch it joins ends, does not conflict
//     with b's next step when that barrier or launch cannot finish before b moves;
//   * grid-barrier and value guards: the same for a GRID_BARRIER instance, and for a wait
//     whose word the agents other than b can only set to values that fail it;
//   * lane first: a ready wait lane is taken alone when every write others can make to its
//     word before it keeps it ready and releases at least what it acquires now; the
//     terminal states are then kept up to clocks (smaller clocks, so a race is kept);
//   * symmetry reduction (symmetry.h, with a rotation group): the visited set holds the
//     least hash of a state's images under the rank rotations, so one state per orbit
//     is expanded; the states stepped and the trails stay real;
//   * bounds: --max-states and --max-memory; hitting either makes a verdict that needs
//     the whole space inconclusive.
//
// Memory. What the search holds is the stack of states on the current path (each with
// its pending choices and the event that reached it), the visited hashes and the
// reducer's footprint cache. States share what they do not change: vector clocks, and
// every word's write history (History, a persistent list), so a state on the stack costs
// its own agents, words and access logs plus the history nodes its step added, not the
// whole history again. The estimate (StateBytes) counts exactly those containers, from
// their capacities; the budget compares the running total with max_memory_bytes.
#ifndef WARPCHECK_SIM_SIGNAL_EXPLORE_H_
#define WARPCHECK_SIM_SIGNAL_EXPLORE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "proto/report.pb.h"
#include "sim/signal/machine.h"
#include "sim/signal/symmetry.h"

namespace warpcheck::sim::signal {

// The memory budget when --max-memory does not give one: 4 GiB.
inline constexpr int64_t kDefaultMaxMemory = int64_t{4} << 30;

struct ExploreOptions {
  std::string schedule = "explore";  // fifo | random | explore
  uint64_t seed = 1;
  int64_t max_states = 2000000;
  int64_t max_memory_bytes = kDefaultMaxMemory;  // estimated bytes (see above); 0: none
  bool reduce = true;  // partial-order reduction
  // With reduce: the counter abstraction (adds whose old value nobody uses commute, and
  // a wait for a count cannot pass before an adder it still needs moves; README.md,
  // "Scale"). Off: such adds conflict like any write (for the soundness test).
  bool counters = true;
  // With reduce: the synchronisation guards (README.md, "Scale: barrier and launch
  // guards"): a future access behind a BARRIER_ALL instance or a launch's end that
  // cannot complete before b moves does not conflict with b's next step, and arrivals at
  // different barrier instances do not conflict. Off: only word guards (for the
  // soundness test).
  bool sync_guards = true;
  // With sync_guards: the grid-barrier and value guards (README.md, "Scale: grid
  // barriers and writes that cannot satisfy a wait"): GRID_BARRIER instances are
  // numbered and guard what follows them like BARRIER_ALL instances, and a wait whose
  // word no agent but b can set to a satisfying value before b moves guards what follows
  // it. Off: as before them (for the soundness test).
  bool value_guards = true;
  // With reduce: lane first (README.md, "Scale: a satisfied lane reads first"): a wait
  // lane that can sample now is taken alone when every write other agents can make to
  // its word before it keeps its predicate true and releases at least what the lane
  // acquires now. The search then keeps every terminal state up to clocks: for each one
  // of the full search, one with the same control and word values and clocks no larger
  // (so it races whenever that one does). Off: such writes conflict with the lane (for
  // the soundness test).
  bool lane_first = true;
  // explore: symmetry reduction (symmetry.h): with reduce_symmetry, the visited set holds
  // the canonical hash under this group (nullptr or kind "none": the state's own hash).
  const SymmetryGroup* symmetry = nullptr;
  bool reduce_symmetry = true;
  // explore: collect ExploreResult::terminal_orbits, canonical under `symmetry` whether
  // or not it reduces (for the soundness tests).
  bool collect_orbits = false;
  // Replay: a transition may be taken only if this returns true (nullptr: all).
  std::function<bool(const State&, const Transition&)> allow;
  // Replay of a snapshot: the deadlock kept as first_deadlock is one this accepts, when
  // one is reached (nullptr: the first reached).
  std::function<bool(const State&)> prefer;
  // explore: start from this state instead of the initial one (trails start there too),
  // and stop at the first completing terminal state (deciding interleavings).
  std::optional<State> start;
  bool stop_at_complete = false;
};

enum class Ending : uint8_t { kCompletes, kDeadlock, kFault };

struct Terminal {
  Ending ending = Ending::kCompletes;
  bool race = false;
  State state;
  std::vector<Event> trail;
};

// A terminal state as the GPU comparison sees it.
struct TerminalSummary {
  SignalTerminal::Outcome outcome = SignalTerminal::OUTCOME_UNSET;  // completes | deadlock | fault
  std::vector<std::string> blocked;  // "rank1.cta0@wait#1", sorted
  std::map<std::string, int64_t> values;
  int64_t count = 0;
  bool race = false;
};

// What one state on the search stack costs (bytes), as estimated from its containers.
struct StateBytes {
  int64_t own = 0;           // agents, words, access logs, barriers, races, ...
  int64_t hist_entries = 0;  // write-history entries it reaches (shared with its parent)
};
StateBytes MeasureState(const State& s);

struct ExploreResult {
  int64_t states = 0;
  int64_t transitions = 0;
  double seconds = 0;
  bool bound_hit = false;
  bool memory_hit = false;  // the bound hit was the memory budget
  // The estimate at its peak: everything the search held, the stack depth then, and the
  // bytes per state on that stack, as stored (history shared) and as a full copy of
  // every word's history would have cost (the representation before History).
  int64_t peak_memory_bytes = 0;
  int64_t peak_depth = 0;
  int64_t state_bytes = 0;
  int64_t state_bytes_full_copy = 0;
  int64_t completes = 0, deadlocks = 0, faults = 0, races = 0;  // terminal states
  std::optional<Terminal> first_deadlock, first_complete, first_race, first_fault;
  // Distinct, at most 256. Under a symmetry, every image of each terminal state found
  // (the counts above count the states found, one per orbit).
  std::vector<TerminalSummary> terminals;
  // The distinct races (kind, access, other access) of every explored terminal state,
  // in the order found, at most kMaxRaces; first_race's state holds only its own.
  std::vector<RaceRecord> all_races;
  static constexpr size_t kMaxRaces = 64;
  // With ExploreOptions::collect_orbits (and a group): the canonical hash of every
  // explored terminal state and whether it races, sorted, distinct. Two explorations of
  // one program found the same terminal states up to the symmetry when these are equal.
  std::vector<std::pair<uint64_t, bool>> terminal_orbits;
};

ExploreResult Explore(const Machine& m, const ExploreOptions& opt);

// Blocked agents of a terminal state as "name@site" (of its image under `image`).
std::vector<std::string> BlockedSignature(const Machine& m, const State& s,
                                          const SymmetryGroup::Element* image = nullptr);
// Signal words that differ from their initial value (in its image under `image`).
std::map<std::string, int64_t> FinalValues(const Machine& m, const State& s,
                                           const SymmetryGroup::Element* image = nullptr);

}  // namespace warpcheck::sim::signal

#endif  // WARPCHECK_SIM_SIGNAL_EXPLORE_H_
