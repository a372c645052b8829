// Static checks of a signal program (signaling.md §4.2), run before any scheduling.
//
// Each agent's program is walked once with its rank and loop variables bound (loops
// unrolled; a branch on a value only known at run time is followed both ways), so a lint
// speaks about concrete words ("SIG@1[0]") and concrete ranks.
//
//   id                         severity  what
//   wait_release_semantics     error     dl.wait with sem=release/acq_rel (no such ld; ptxas fails)
//   wait_in_divergent_code     error     a dl.wait run by a subset of the CTA's threads
//   wait_width_mismatch        error     a 32-bit word used as a notify signal (notify is 64-bit)
//   wait_until_on_signal       error     nvshmem_wait_until on a word written by signal ops (B13)
//   cooperative_grid_too_large error     a cooperative launch larger than the resident slots
//   rank_out_of_range          error     a rank operand that is the same on every rank (built
//                                        from constants, N, G, E and params) outside 0..N-1
//   wait_count_over_32         warning   dl.wait over more than 32 words on NVIDIA (B6)
//   gpu_scope_remote_rank      warning   notify scope=gpu with a rank that is not the caller's (B3)
//   mixed_set_add              warning   one word written by both set and add (B7)
//   narrow_wait_scope          warning   scope=cta/weak wait on a word another CTA or GPU writes (B12)
//   wait_until_lanes_exceed_threads warning  per-thread waits over more words than threads
//   unmatched_notify           warning   a word that is notified but never waited on (B3)
//   wait_never_notified        warning   a wait on a word no op of any agent can write, whose
//                                        initial value does not satisfy it (a sure hang if reached)
//   intra_node_remote_node     warning   an intra_node notify to a rank on another node
//                                        (nvshmem_ptr is NULL there: a fault if reached)
//
// The ids and severities are the SignalLint.Id and SignalLint.Severity enums of
// proto/report.proto; lint.cc holds one check function per lint, in tables (lints of one
// op, of one signal word, of the whole program) that give each its id and severity.
#ifndef WARPCHECK_SIM_SIGNAL_LINT_H_
#define WARPCHECK_SIM_SIGNAL_LINT_H_

#include <vector>

#include "proto/report.pb.h"
#include "sim/signal/machine.h"

namespace warpcheck::sim::signal {

// Ensures: the findings, errors first, each at most once per (id, site).
std::vector<SignalLint> Lint(const Machine& m);

// Ensures: whether some finding has severity error.
bool HasErrors(const std::vector<SignalLint>& lints);

// The explanation cause of a static_error found by lint `id`.
// Ensures: the cause of the same name for a lint of severity error; CAUSE_UNSET otherwise.
SignalExplanation::Cause CauseOf(SignalLint::Id id);

}  // namespace warpcheck::sim::signal

#endif  // WARPCHECK_SIM_SIGNAL_LINT_H_
