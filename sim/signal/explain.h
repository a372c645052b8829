// Explaining a hang (signaling.md §4.4), the way MUST explains an MPI deadlock: who is
// blocked where, expecting what and seeing what; the wait-for graph; and one cause.
//
// Every blocked agent gets one cause. A CTA that never started is `co_residency`; a
// barrier or collective is `co_residency` (a CTA of the grid cannot start), `cycle` (a
// missing participant is blocked elsewhere) or `collective_mismatch`; a LAUNCH is a
// `cycle` through the kernel's CTAs. For a blocked wait, the word's history and the
// agents that could still write it decide, by the first rule (kWaitRules in explain.cc,
// one function per cause) that applies:
//   scope_too_narrow  a cta-scoped (or weak) poll cannot see a writer outside its CTA
//   lost_update       a set clobbered adds, or a non-atomic add lost an increment
//   reset_race        a reset wiped a notify that happens-before does not order before it
//   overwrite         the word held the target, then a set moved it on before the poll
//   overshoot         adds moved the word past the target (== never holds again)
//   exited_writer     the only writers exited early (their skipped program writes it)
//   missing_notify    nobody can still write it (nearest miss: same object, other slot)
//   co_residency      a writer is a CTA that can never get a resident slot
//   cycle             every writer is itself blocked: the cycle, edge by edge
// The program-level cause is the agents' cause that ranks first in the order of the
// SignalExplanation.Cause enum (proto/report.proto): scope_too_narrow, lost_update,
// reset_race, overwrite, overshoot, exited_writer, co_residency, collective_mismatch,
// missing_notify, cycle; the first such agent on a tie; `deadlock` when no agent has a
// cause. A dead wait thus explains a cycle that runs through it.
#ifndef WARPCHECK_SIM_SIGNAL_EXPLAIN_H_
#define WARPCHECK_SIM_SIGNAL_EXPLAIN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "proto/report.pb.h"
#include "sim/signal/explore.h"
#include "sim/signal/machine.h"

namespace warpcheck::sim::signal {

// Requires: s is a terminal state with at least one agent not exited.
// Ensures: cause is one of the deadlock causes above, or `deadlock`; text ends with
// "cause: <cause>: <why>".
SignalExplanation ExplainDeadlock(const Machine& m, const State& s);

// The interleaving that decides between a deadlock and a completion (§4.4).
//
// The deciding step is the point of no return on the hang's trail: the last step before
// which a completion was still reachable (found by exploring from states of the trail,
// galloping back from the hang, then bisecting; at most `budget` states in all). e->deciding
// then reads "on W: decided at step K of the hang's trail: <that step>; a completion
// takes <its step> there instead; hangs when [...]; completes when [...]", the two lists
// being the accesses to the word W that step touches, from just before the divergence.
// When that costs more than `budget`, the word is the first whose order of accesses
// differs between `deadlock`'s and `complete`'s trails (never one the hang does not
// touch).
//
// Root cause: when e's cause is only the symptom (missing_notify, cycle, deadlock) and
// the deciding word's history in the hang shows an unordered reset of another agent's
// write (reset_race) or a lost update (lost_update), that becomes e's cause, and the
// text's "cause:" line names the deciding write (the symptom stays in the text).
void ExplainDecision(const Machine& m, const Terminal& deadlock, const Terminal& complete,
                     int64_t budget, SignalExplanation* e);

}  // namespace warpcheck::sim::signal

#endif  // WARPCHECK_SIM_SIGNAL_EXPLAIN_H_
