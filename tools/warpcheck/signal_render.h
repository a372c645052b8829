// The picture of a signal deadlock: the wait-for graph of a SignalExplanation
// (sim/signal/explain.h), drawn with the svg builder. sim/ explains; this file draws.
//
// Nodes are agents ("rank0.cta0"), each a rounded box sized to its name and coloured by
// its state (blocked, exited, not started, not launched, running). An edge A -> B says
// "A is blocked on a word that B could still write"; it is labelled with the word and
// `want X, saw Y` (the value the wait needs and the value it observed) and, when known,
// the writer's site. Its colour and dash say what B is doing (blocked: a cycle; exited or
// not launched: B will never write). Two edges between the same pair of agents (the two
// directions of a two-agent cycle, or two words) are drawn as arcs bending to opposite
// sides, each with its label on its own arc. A blocked agent whose word nobody can still
// write (missing_notify, overshoot, ...) gets an edge to a "nobody" node. A legend below
// the graph explains every edge style and node colour that appears.
#ifndef WARPCHECK_TOOLS_WARPCHECK_SIGNAL_RENDER_H_
#define WARPCHECK_TOOLS_WARPCHECK_SIGNAL_RENDER_H_

#include <string>

#include "proto/report.pb.h"

namespace warpcheck::cli {

// Whether `r` explains a deadlock that a wait-for graph can be drawn for: a run whose
// reported outcome is deadlock or nondeterministic (a deadlocking terminal state was
// explained), or a replay that reproduced its hang.
bool HasWaitForGraph(const SignalReport& r);

// The wait-for graph as a standalone SVG document. Requires: e explains a deadlock
// (HasWaitForGraph). Ensures: one labelled edge (`<g><title>edge ...`) per e.edges()
// entry, plus one per blocked agent nobody can satisfy, and a legend.
std::string RenderWaitForSvg(const SignalExplanation& e);

}  // namespace warpcheck::cli

#endif  // WARPCHECK_TOOLS_WARPCHECK_SIGNAL_RENDER_H_
