// Symmetry reduction over ranks: one state per orbit of the rank rotations that
// preserve the program.
//
// A rank permutation π is a symmetry of the machine when mapping a state through π
// (agent a of rank r becomes the agent at the same place on rank π(r); every rank held
// by the state, every signal word and data element, every clock component, every data
// tag mapped with it) commutes with Step: Step(π s, π t) = π Step(s, t). Then the states
// reachable from s and from π s are images of each other, and so are their terminal
// states (deadlocks, completions, races), so the search needs to expand only one state
// of each orbit {π s}: the visited set stores a canonical hash (the least hash of the
// images, Canonical()) instead of the state's own hash. Trails stay real: the search
// still steps real states, it only skips a state whose orbit it has already expanded.
// With the stubborn sets of explore.h this keeps, for every reachable terminal state,
// one of its orbit (both reductions keep every terminal state reachable from the states
// they expand, on an acyclic graph).
//
// The group. Only the rotations r -> r + k mod N are tried (the ring and full-mesh
// protocols address peers as (r + j) % N). DetectSymmetry checks the generator r -> r+1
// on the compiled program, instantiated: every rank must have the same agents (streams,
// launches, CTAs), and each agent's walk (WalkProgram: loops unrolled, both sides of
// branches not known statically) must equal the walk of its image op for op — the same
// ops, the same frame apart from the rank, and operands that map:
//   * a rank operand (rank, src_rank) of the image is π of the agent's;
//   * an index operand (index, src_index, signal_index, element by element over count)
//     names element μ_X(i) of the image's object X, where μ_X is one permutation of X's
//     elements for the whole program, found from these pairs and checked consistent; the
//     words a range wait polls (lanes, lane_if applied) map as a set;
//   * a data tag (STORE tag, LOAD expect) maps by one permutation of the object's tags
//     (a put or a copy stays within its object);
//   * every other operand (values, counts, compares) is equal;
//   * an operand that depends on a value only known at run time (an ATOMIC result) must
//     not depend on the rank, and rank and index operands must be known; no loop or
//     branch may depend on such a value and the rank together (both ways are walked,
//     so the walks cannot show whether the ranks branch alike).
// Anything else rejects the group with a reason (`none: <why>`), and the search runs
// without it: a program whose ranks differ (rank 0 special), nodes (ranks_per_node),
// releasing adds together with gpu/cta scopes (Machine::WriteWord keeps the
// lowest-numbered agent's scope, which a rotation does not preserve: rejected when a
// gpu/cta-scoped op touches an object that is added to), an object too
// large to map. Loops over peers in a fixed order (FOR q in 0..N) are not rotations of
// each other, so those programs are rejected too (README.md, "Scale").
#ifndef WARPCHECK_SIM_SIGNAL_SYMMETRY_H_
#define WARPCHECK_SIM_SIGNAL_SYMMETRY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "sim/signal/machine.h"

namespace warpcheck::sim::signal {

// The rotation group found (or none), as the maps of each element π^k, k = 0..order-1.
struct SymmetryGroup {
  // "rotation" or "none".
  std::string kind = "none";
  // Why none (empty for a group).
  std::string reason;
  int order = 1;
  struct Element {
    std::vector<int32_t> agent;  // agent a -> π^k a
    std::vector<int32_t> comp;   // clock component -> its image
    std::vector<int32_t> rank;   // rank -> π^k rank
    std::vector<std::vector<int64_t>> index;  // per object: element -> image (empty: same)
    // Per object: data tag -> image (absent: same).
    std::vector<absl::flat_hash_map<int64_t, int64_t>> tag;
    int64_t MapIndex(int object, int64_t i) const {
      const auto& v = index[object];
      return v.empty() || i < 0 || i >= static_cast<int64_t>(v.size()) ? i : v[i];
    }
  };
  std::vector<Element> elements;  // [0] is the identity
  // "rotation of 8 ranks (8 elements)" or "none (<reason>)".
  std::string Describe() const;
};

// Ensures: the rotation group when the machine is rotation-symmetric (see above), else
// kind "none" with the reason.
SymmetryGroup DetectSymmetry(const Machine& m);

// The canonical hash of a state under a group: the least hash of its images. States of
// one orbit get the same value; the hash of a state under the trivial group is one image.
class SymmetryHasher {
 public:
  SymmetryHasher(const Machine& m, const SymmetryGroup& g) : m_(m), g_(g) {}
  uint64_t Canonical(const State& s);
  // The hash of π^k s (exposed for the tests: images of one state).
  uint64_t ImageHash(const State& s, int k);

 private:
  uint64_t ClockHash(const Clock& c, int k);
  // Per rank, a hash of its agents' control state that a rotation carries along: the
  // candidates k are those whose image puts the least sequence first.
  void Candidates(const State& s, std::vector<int>* ks);
  uint64_t AgentHash(const State& s, int a, int k);
  int64_t MapIndex(int k, int object, int64_t i) const {
    return g_.elements[k].MapIndex(object, i);
  }

  const Machine& m_;
  const SymmetryGroup& g_;
  absl::flat_hash_map<uint64_t, uint64_t> clock_cache_;  // (clock hash, k) -> image hash
  std::vector<uint32_t> scratch_;
  std::vector<uint64_t> sig_;
  std::vector<int> ks_;
};

}  // namespace warpcheck::sim::signal

#endif  // WARPCHECK_SIM_SIGNAL_SYMMETRY_H_
