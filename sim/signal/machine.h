// The signal machine: states, transitions and their effects.
//
// A State is everything that decides the future of a run: every agent's control
// position, frame and clocks, every signal word's value and current version, every
// data range's access log, barrier counters and resident-slot counts. A Transition is
// one scheduler step of one agent (for a range wait, of one polling lane). Step() is
// deterministic, so a schedule (a sequence of transitions) replays exactly; the
// explorer (explore.h) decides which transitions to take.
//
// Agents are instantiated up front from the host streams (their control flow is
// static), so agent numbering is the same in every interleaving and states merge by
// hash. Invisible ops (loop and branch control, fences, syncthreads) run eagerly at the
// end of the step that reaches them; a step therefore always ends with its agent at a
// visible op, blocked, or exited.
//
// Memory model (README.md): values are sequentially consistent per word; ordering is
// tracked with vector clocks (Clock) for happens-before, and data races are conflicting
// accesses that happens-before does not order.
#ifndef WARPCHECK_SIM_SIGNAL_MACHINE_H_
#define WARPCHECK_SIM_SIGNAL_MACHINE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/report.pb.h"
#include "sim/signal/program.h"

namespace warpcheck::sim::signal {

// One step of the 64-bit hash used for states, clocks and cache keys.
inline uint64_t HashMix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  h *= 0xff51afd7ed558ccdULL;
  return h ^ (h >> 33);
}

// An immutable vector clock shared between states (copying a state copies pointers).
class Clock {
 public:
  Clock() = default;
  uint32_t at(int comp) const {
    return d_ && comp < static_cast<int>(d_->v.size()) ? d_->v[comp] : 0;
  }
  bool empty() const { return !d_; }
  Clock Joined(const Clock& o) const;
  Clock Ticked(int comp) const;
  uint64_t hash() const { return d_ ? d_->hash : 0; }
  bool operator==(const Clock& o) const;
  // Pointwise <= (the empty clock is all zeros).
  bool LessEq(const Clock& o) const;
  // The hash of the clock whose component to[i] holds this clock's component i (the
  // clock seen through a permutation of the agents; symmetry.h). Requires: `to` covers
  // every component. Ensures: equal to hash() when `to` is the identity.
  uint64_t HashPermuted(const std::vector<int32_t>& to, std::vector<uint32_t>* scratch) const;

 private:
  struct Data {
    std::vector<uint32_t> v;
    uint64_t hash;
  };
  static Clock Make(std::vector<uint32_t> v);
  std::shared_ptr<const Data> d_;
};

enum class AgentKind : uint8_t { kStream, kCta };
enum class Status : uint8_t { kNotLaunched, kNotStarted, kRunning, kExited };

// What never changes about an agent.
struct AgentInfo {
  AgentKind kind = AgentKind::kStream;
  int rank = 0;
  int stream = 0;       // the stream (index in Program::streams) that runs or launched it
  int stream_agent = 0;  // the stream's agent id
  int kernel = -1;
  int launch = -1;       // launch ordinal on its stream (CTAs)
  int kernel_launch = 1;  // which launch of its kernel on its rank (1-based)
  int launch_first = 0;  // first CTA agent of that launch
  int launch_size = 0;
  int cta = -1;
  int comp_t0 = 0, comp_rest = 0, comp_px = 0;  // clock components
  std::string name;  // "rank1.cta0", "rank0.main"
  std::vector<int64_t> frame0;  // initial frame
  std::vector<int> launches;    // stream: first CTA agent of each launch, in order
  std::vector<int> launch_sizes;
};

struct StackEntry {
  int32_t list = -1;  // -1: the agent's root body; else op id * 2 + (else_body ? 1 : 0)
  int32_t pos = 0;    // next op to run in that list
  int32_t loop_op = -1;
  int64_t to = 0, step = 0;
};

struct AgentState {
  Status status = Status::kNotLaunched;
  bool exited_early = false;
  int32_t phase = 0;
  int64_t tmp = 0;
  int32_t grid_barriers = 0;
  int32_t launches = 0;  // streams: LAUNCH ops done
  std::vector<StackEntry> stack;
  std::vector<int64_t> frame;
  // A wait in progress: its target and the lanes still polling (bit set).
  bool wait_armed = false;
  int32_t wait_rank = 0;
  int64_t wait_index = 0, wait_value = 0;
  std::vector<uint64_t> lanes;
  // A narrow-scope (cta/weak) wait: whether each lane has polled yet, and what it saw.
  std::vector<uint64_t> polled;
  std::vector<int64_t> cached;
  Clock t0, rest, px;          // thread 0, the other threads, the NVSHMEM delivery
  bool float_current = true;   // untokened loads use t0/rest
  Clock float_t0, float_rest;  // else these
  Clock fence;                 // t0 at its last fence (releases later strong writes)
  Clock pending_acq;           // relaxed reads not yet made acquire by a fence
  std::vector<std::pair<int, std::pair<Clock, Clock>>> tokens;  // slot -> clocks
};

enum class WriteKind : uint8_t { kSet, kAdd, kReset, kCas };

struct HistEntry {
  int32_t agent = -1;  // -1: initial
  int32_t op = -1;
  int64_t before = 0, after = 0;
  WriteKind kind = WriteKind::kSet;
  bool lost = false;  // a non-atomic add that overwrote a newer value
  int64_t operand = 0;  // adds: the amount added
  Clock clk;          // the writer's clock at the write
};

// A word's write history, shared between states: a persistent list (each entry points at
// the history before it), so copying a State copies one pointer per word and a step adds
// one node, instead of copying every word's whole history (which made a state on a long
// loop about 100 KB and the search stack quadratic in its depth). Reads look like a
// vector (size, [i], range-for); the first indexed read builds an index, shared by copies.
class History {
 public:
  size_t size() const { return head_ ? head_->size : 0; }
  bool empty() const { return !head_; }
  void push_back(HistEntry e);
  const HistEntry& back() const { return head_->e; }
  // Requires: !empty(). A step amends the entry it just wrote (operand, lost); a node
  // another state shares is copied first.
  HistEntry& back();
  const HistEntry& operator[](size_t i) const { return *Index()[i]; }
  // Oldest first.
  class Iterator {
   public:
    explicit Iterator(std::vector<const HistEntry*>::const_iterator it) : it_(it) {}
    const HistEntry& operator*() const { return **it_; }
    const HistEntry* operator->() const { return *it_; }
    Iterator& operator++() {
      ++it_;
      return *this;
    }
    bool operator!=(const Iterator& o) const { return it_ != o.it_; }
    bool operator==(const Iterator& o) const { return it_ == o.it_; }

   private:
    std::vector<const HistEntry*>::const_iterator it_;
  };
  Iterator begin() const { return Iterator(Index().begin()); }
  Iterator end() const { return Iterator(Index().end()); }
  // Bytes of one history node (the memory estimate counts the nodes a state adds).
  static constexpr size_t kNodeBytes = 32 + 24 + sizeof(HistEntry) + sizeof(uint32_t);

 private:
  struct Node {
    std::shared_ptr<const Node> parent;
    HistEntry e;
    uint32_t size = 0;
  };
  // Ensures: pointers to the entries, oldest first (built once per list, shared by copies).
  const std::vector<const HistEntry*>& Index() const;
  std::shared_ptr<const Node> head_;
  mutable std::shared_ptr<const std::vector<const HistEntry*>> index_;
};

struct Word {
  int64_t value = 0;
  Clock rel;                 // release clock of the current version (empty: none)
  int32_t rel_agent = -1;    // the agent whose release it is
  SignalScope rel_scope = SYS;
  History hist;
};

struct Access {
  int64_t lo = 0, hi = 0;
  bool write = false;
  int32_t c1 = -1, c2 = -1;  // epochs (component, time); c2 = -1 when one
  uint32_t t1 = 0, t2 = 0;
  int64_t tag = 0;
  int32_t agent = 0, op = 0;
};

struct Barrier {
  int32_t arrived = 0;
  Clock joined;
  std::vector<int32_t> arrivers;
};

struct RaceRecord {
  SignalRace::Kind kind = SignalRace::KIND_UNSET;
  int32_t agent = 0, op = 0, other_agent = 0, other_op = 0;
  std::string text;
};

struct State {
  std::vector<AgentState> agents;
  std::map<uint64_t, Word> words;                 // WordKey -> word
  std::map<uint64_t, std::vector<Access>> data;   // (object, rank) -> accesses
  std::map<uint64_t, Barrier> barriers;
  std::vector<int32_t> slots_used;                // per rank
  std::vector<int32_t> barrier_calls;             // per rank: BARRIER_ALL ordinal
  std::map<std::pair<int, std::string>, int32_t> coll_calls;  // (rank, name) -> ordinal
  std::vector<RaceRecord> races;                  // first few
  int32_t race_count = 0;
  std::string fault;                              // a fault ends the run
  int32_t fault_agent = -1;
};

// Barrier keys (State::barriers): kind, id (a grid barrier's id is the first CTA agent
// of its launch), instance.
inline constexpr uint64_t kBarrierAll = 1, kCollective = 2, kGrid = 3;
inline uint64_t BarrierKey(uint64_t kind, uint64_t id, uint64_t instance) {
  return (kind << 60) | (id << 32) | instance;
}

inline uint64_t WordKey(int object, int rank, int64_t index) {
  return (static_cast<uint64_t>(object) << 48) | (static_cast<uint64_t>(rank) << 32) |
         static_cast<uint64_t>(index & 0xffffffff);
}
inline int KeyObject(uint64_t k) { return static_cast<int>(k >> 48); }
inline int KeyRank(uint64_t k) { return static_cast<int>((k >> 32) & 0xffff); }
inline int64_t KeyIndex(uint64_t k) { return static_cast<int64_t>(k & 0xffffffff); }

struct Transition {
  int agent = 0;
  int lane = -1;  // a polling lane of a range wait; -1 otherwise
  bool operator==(const Transition& o) const { return agent == o.agent && lane == o.lane; }
};

// What one step did, for trails and traces.
struct Event {
  int agent = 0;
  int op = -1;  // -1: a CTA start
  int lane = -1;
  std::string what;  // "start", "write", "wait_end", "arrive", "leave", "read", "exit"...
  uint64_t word = 0;
  bool has_word = false;
  int64_t before = 0, after = 0;
  std::string text;  // one line
};

// Resources for the partial-order reduction.
enum class Res : uint8_t { kWord, kData, kBarrier, kSlot, kLaunch };
// kAdd commutes with kAdd: resident slots, and the counter abstraction's adds to a signal
// word whose old value nobody uses (NOTIFY/SIGNAL_OP/PUTSIG add, not split into a read
// and a write): the machine's state after two such adds does not depend on their order
// (README.md, "Scale").
enum class Mode : uint8_t { kRead, kWrite, kAdd };
struct Access2 {
  Res res = Res::kWord;
  Mode mode = Mode::kRead;
  int32_t object = -1;  // kWord/kData: object; others: an id
  int32_t rank = -1;    // -1: any
  int64_t lo = -1, hi = -1;  // [lo, hi); -1: any
  int32_t op = -1;           // the op it comes from (for explanations)
  int32_t guard = -1;        // Future(): the innermost wait passed before it (Guard index)
  bool value_known = false;  // kWord writes: a set of a known value
  int64_t value = 0;
  bool amount_known = false;  // kWord kAdd: the amount added, when known
  int64_t amount = 0;
};
using Footprint = std::vector<Access2>;

// An event that an agent must wait for before some of its future accesses (Future()):
//   kWord: a wait on word `key` passes (its predicate holds);
//   kBarrier: BARRIER_ALL instance `id` completes (every rank's barrier agent arrived);
//   kExit: agent `id` (a CTA of a launch the agent joins) exits;
//   kGrid: GRID_BARRIER instance `id` of the agent's own launch completes (every CTA of
//   the launch arrived).
struct Guard {
  enum class Kind : uint8_t { kWord, kBarrier, kExit, kGrid };
  Kind kind = Kind::kWord;
  int32_t id = 0;    // kBarrier, kGrid: the instance (0-based); kExit: the agent
  uint64_t key = 0;  // kWord: the word
  int64_t expected = 0;
  SignalCmp cmp = EQ;
  int bytes = 8;
  int parent = -1;  // the wait passed before this one
};
bool Conflicts(const Access2& a, const Access2& b);

class Machine {
 public:
  // Instantiates the agents (streams, and every CTA every launch will start).
  static absl::StatusOr<Machine> Create(const Program& p);

  const Program& program() const { return *p_; }
  int num_agents() const { return static_cast<int>(info_.size()); }
  const AgentInfo& info(int a) const { return info_[a]; }
  int num_components() const { return num_comps_; }

  State Initial() const;
  // Ensures: the enabled transitions, agent order then lane order.
  void Enabled(const State& s, std::vector<Transition>* out) const;
  bool AgentEnabled(const State& s, int agent) const;
  // Requires: t is enabled in s.
  void Step(State& s, const Transition& t, Event* ev) const;
  uint64_t Hash(const State& s) const;
  bool Done(const State& s) const;  // every agent exited

  // The resources agent a's next step(s) touch / could touch from here to its end.
  Footprint Next(const State& s, int agent) const;
  // With guards: each access's guard (Guard); cas_guards also guards a spinning CAS like
  // a wait (ExploreOptions::value_guards).
  Footprint Future(const State& s, int agent, std::vector<Guard>* guards = nullptr,
                   bool cas_guards = true) const;
  // True when every write to `key` anywhere in the program is by agent b, by an agent that
  // has exited, or by a CTA of a later launch on b's stream (which cannot start before b
  // exits).
  bool OnlyWrittenAfter(const State& s, uint64_t key, int b) const;
  // False only when no op of any agent's whole program (loops unrolled, both sides of
  // branches not known statically) can write `key`, at a known or an unknown address.
  bool MayBeWritten(uint64_t key) const;
  // The agents of `rank` that run BARRIER_ALL (its barrier runners), when they arrive
  // one after another: one agent, or CTAs of different launches of one stream (a launch
  // starts after the one before it has ended), perhaps with that stream (it waits in
  // each LAUNCH until the launch's CTAs have exited). Null when the rank has none or its
  // runners could interleave: then no future access is guarded by a barrier
  // (Guard::Kind::kBarrier).
  const std::vector<int>* BarrierRunners(int rank) const {
    return rank >= 0 && rank < static_cast<int>(barrier_runners_.size()) ? &barrier_runners_[rank]
                                                                        : nullptr;
  }
  // The instance of agent a's next BARRIER_ALL arrival, when a walk of its future from
  // state s can number its instances, else -1: a is its rank's only runner, or a
  // sequential runner that has started (the runners before it have exited, the ones
  // after it have not started): s.barrier_calls of its rank; or one that has not started:
  // that plus every arrival still to come from the runners of earlier launches (each
  // counted exactly by a walk of its future; -1 when one cannot be), or, when its stream
  // runs barriers too, the instance the stream's walk numbers at its LAUNCH.
  int64_t BarrierBase(const State& s, int a) const;
  // The BARRIER_ALL arrivals in agent z's whole program, or -1 when one is reached under
  // a branch or loop whose outcome is not known statically.
  int64_t StaticArrivals(int z) const {
    return z >= 0 && z < static_cast<int>(static_arrivals_.size()) ? static_arrivals_[z] : -1;
  }
  // For a blocked agent: its necessary conditions, one footprint each (every one must
  // be written by someone before it can move; the explorer picks one).
  std::vector<Footprint> NeedsAlternatives(const State& s, int agent) const;
  // Calls visit(op, frame, unknown) for every non-control op of agent a's whole program,
  // loops unrolled, both sides of branches whose condition is not known statically.
  // Ensures: false when the walk stopped early (too many accesses to track).
  bool WalkProgram(int a, const std::function<void(const Op&, const int64_t*,
                                                   const std::vector<bool>&)>& visit) const;
  // Future() of an agent that exited early, as if its EXIT had not been taken.
  Footprint AfterExit(const State& s, int agent) const;

  int64_t object_size(int object) const { return sizes_[object]; }
  // Current op of a running agent (-1 if none).
  int CurrentOp(const State& s, int agent) const;
  // "SIG@1[0]"
  std::string WordName(uint64_t key) const;
  std::string WordName(int object, int rank, int64_t index) const;
  // The op as one line with its operands evaluated in the agent's frame.
  std::string RenderOp(const State& s, int agent, int op) const;
  // Value a wait of `agent` at scope/sem sees.
  int64_t Visible(const State& s, int agent, uint64_t key, SignalScope scope,
                  SignalSem sem) const;
  bool Satisfies(SignalCmp cmp, int64_t value, int64_t target, int bytes) const;
  // Whether a read by `reader` at (rscope, rsem) acquires a version released by `writer`
  // at wscope: the acquire pattern joins the release clock only when both scopes include
  // the other party and the read is not WEAK (AcquireFrom; README, "Happens-before").
  bool Synchronizes(int writer, SignalScope wscope, int reader, SignalScope rscope,
                    SignalSem rsem) const;
  // Whether such a read of `key`'s current version in s joins a non-empty clock.
  bool AcquiresNow(const State& s, int reader, uint64_t key, SignalScope rscope,
                   SignalSem rsem) const;
  // Requires: agent a is at the armed op `op`, lane l still polling.
  // Ensures: whether that lane can take its step now (its predicate holds on the value it
  //          sees, or it is a narrow-scope lane's first poll).
  bool LaneReady(const State& s, int a, const Op& op, int l) const;
  // A lane of a narrow-scope wait that has not polled yet (its first poll is a step).
  bool FirstPoll(const AgentState& as, int lane) const {
    return !as.cached.empty() && !((as.polled[lane / 64] >> (lane % 64)) & 1);
  }
  // Polling lanes of a WAIT/WAIT_UNTIL (or spin) with `count` words: NVIDIA dl.wait
  // min(count, 32) unsigned, AMD max(count, 0), WAIT_UNTIL count capped at the CTA's
  // threads; any other op (or a negative WAIT_UNTIL count, a fault) 1.
  int64_t LaneCount(int a, const Op& op, int64_t count) const;
  // The op list for a StackEntry::list value.
  const std::vector<int>& List(int agent, int32_t list) const;

 private:
  explicit Machine(const Program& p) : p_(&p) {}
  absl::Status Instantiate();
  void Normalize(State& s, int a) const;
  bool Eval(State& s, int a, const Ex& e, int64_t* v) const;
  void Fault(State& s, int a, const std::string& what) const;
  bool ResolveWord(State& s, int a, int object, int64_t rank, int64_t index, uint64_t* key) const;
  bool ResolveRange(State& s, int a, int object, int64_t rank, int64_t lo, int64_t n) const;
  int64_t ObjectSize(int object) const { return sizes_[object]; }
  Word& GetWord(State& s, uint64_t key) const;
  const Word* FindWord(const State& s, uint64_t key) const;
  void WriteWord(State& s, int a, int op, uint64_t key, int64_t value, WriteKind kind,
                 const Clock& rel, SignalScope scope, bool rmw, Event* ev) const;
  void AcquireFrom(State& s, int a, const Word& w, SignalScope scope, SignalSem sem,
                   bool t0, bool rest) const;
  bool ScopeIncludes(SignalScope scope, int a, int b) const;
  void DataAccess(State& s, int a, int op, int object, int rank, int64_t lo, int64_t n,
                  bool write, int64_t tag, int comp1, const Clock& clk1, int comp2,
                  const Clock* clk2, const Clock& check1, const Clock* check2,
                  const Ex* expect, const int64_t* frame) const;
  void AddRace(State& s, RaceRecord r) const;
  void Exit(State& s, int a, bool early) const;
  void ArmWait(State& s, int a, const Op& op) const;
  void FinishOp(State& s, int a) const;
  void LocalOp(State& s, int a, const Op& op) const;
  void StepOp(State& s, int a, int lane, Event* ev) const;
  // One handler per op kind (StepOp dispatches). Requires: op is agent a's current op.
  void StepSignalWrite(State& s, int a, const Op& op, Event* ev) const;
  void StepWait(State& s, int a, int lane, const Op& op, Event* ev) const;
  void StepDataAccess(State& s, int a, const Op& op, Event* ev) const;
  void StepTransfer(State& s, int a, const Op& op, Event* ev) const;
  void StepFill(State& s, int a, const Op& op, Event* ev) const;
  void StepBarrier(State& s, int a, const Op& op, Event* ev) const;
  void StepLaunch(State& s, int a, const Op& op, Event* ev) const;
  void FutureOf(const State& s, int agent, Footprint* out, std::vector<Guard>* guards,
                bool cas_guards = true, std::vector<int64_t>* launch_bases = nullptr) const;
  void ComputeWriters();

  const Program* p_;
  std::vector<AgentInfo> info_;
  std::vector<int64_t> sizes_;  // object sizes
  int num_comps_ = 0;
  std::map<std::string, int> coll_ids_;
  std::map<uint64_t, std::vector<int>> writers_;  // word -> agents that may write it
  std::set<std::pair<int, int>> wild_writes_;    // (object, rank or -1) written at unknown index
  bool writers_known_ = true;
  // Per rank: its barrier runners (BarrierRunners; ComputeWriters). Empty when some rank
  // has none or runners that could interleave.
  std::vector<std::vector<int>> barrier_runners_;
  std::vector<int64_t> static_arrivals_;  // StaticArrivals
  // The BARRIER_ALL arrivals left in z's future from s, each numbered, or -1.
  int64_t RemainingArrivals(const State& s, int z) const;
};

}  // namespace warpcheck::sim::signal

#endif  // WARPCHECK_SIM_SIGNAL_MACHINE_H_
