#include "sim/signal/lint.h"

#include <algorithm>
#include <map>
#include <set>

#include "absl/functional/function_ref.h"
#include "absl/strings/str_cat.h"

namespace warpcheck::sim::signal {

namespace {

using Id = SignalLint::Id;
using Severity = SignalLint::Severity;

// A finding of the lint being run: at `site`, saying `text` (the table entry supplies the
// id and the severity).
using Emit = absl::FunctionRef<void(const std::string& site, const std::string& text)>;

// One op of one agent's walk, with its operands evaluated where they are known.
struct OpView {
  const Machine& m;
  const Program& p;
  int agent;
  const AgentInfo& ai;
  const Op& op;
  int64_t rank = 0, index = 0, count = 1;
  bool r_ok = false, i_ok = false, c_ok = false;
  const int64_t* frame = nullptr;             // the walk's frame at this op
  const std::vector<bool>* unknown = nullptr;  // its slots not known statically
  // The value of e in this frame, when every slot it reads is known.
  bool Known(const Ex& e, int64_t* v) const {
    for (int s : e.slots())
      if ((*unknown)[s]) return false;
    return e.Eval(frame, v);
  }
};

struct WordUse {
  std::set<int> set_writers, add_writers, writers, waiters;  // agents
  std::set<int> signal_writers;  // signal_op / putsig / inter_node notify
  std::set<int> notify_writers;  // dl.notify (64-bit)
  int first_set_op = -1, first_add_op = -1, first_notify_op = -1, first_signal_op = -1;
  std::vector<std::pair<int, int>> narrow_waits;       // (agent, op)
  std::vector<std::pair<int, int>> plain_wait_untils;  // (agent, op)
  std::vector<std::pair<int, int>> waits;              // (agent, op)
};

// One signal word as the word lints see it: every op of every agent that touches it.
struct WordView {
  const Machine& m;
  const Program& p;
  uint64_t key;
  const WordUse& u;
};

// ---- lints of one op ----

void WaitReleaseSemantics(const OpView& v, Emit emit) {
  const Op& op = v.op;
  if (op.kind != WAIT || (op.sem != RELEASE && op.sem != ACQ_REL)) return;
  emit(op.site, absl::StrCat(op.site, ": dl.wait with sem=", SemName(op.sem),
                             " lowers to ld.", SemName(op.sem),
                             ", which PTX does not have; ptxas rejects it"));
}

void WaitInDivergentCode(const OpView& v, Emit emit) {
  const Op& op = v.op;
  if (op.kind != WAIT || (op.by != THREAD0 && op.by != OTHER_THREADS)) return;
  emit(op.site, absl::StrCat(op.site, ": dl.wait reached by only some threads of the CTA: ",
                             v.p.amd ? "the workgroup barrier inside the AMD wait"
                                     : "its bar.warp.sync 0xffffffff",
                             " runs with threads missing (undefined; in practice a hang)"));
}

void WaitCountOver32(const OpView& v, Emit emit) {
  const Op& op = v.op;
  const int64_t count = v.count;
  if (op.kind != WAIT || v.p.amd || !v.c_ok || (count <= 32 && count >= 0)) return;
  emit(op.site,
       count < 0 ? absl::StrCat(op.site, ": dl.wait count ", count,
                                " compares as unsigned: NVIDIA polls 32 words "
                                "(AMD waits for none)")
                 : absl::StrCat(op.site, ": dl.wait over ", count,
                                " words: NVIDIA polls only the first 32 (lane = "
                                "tid % 32); words 32..",
                                count - 1, " are never read, so the wait can pass "
                                           "early"));
}

void WaitUntilLanesExceedThreads(const OpView& v, Emit emit) {
  const Op& op = v.op;
  if (op.kind != WAIT_UNTIL) return;
  int threads = v.ai.kind == AgentKind::kCta ? v.p.kernels[v.ai.kernel].threads : 1;
  if (!v.c_ok || v.count <= threads) return;
  emit(op.site, absl::StrCat(op.site, ": per-thread waits over ", v.count,
                             " words but the CTA has ", threads, " threads; words past ",
                             threads, " are never waited for"));
}

void GpuScopeRemoteRank(const OpView& v, Emit emit) {
  const Op& op = v.op;
  const int me = v.ai.rank;
  if (op.kind != NOTIFY || op.scope != GPU || !op.rank_given || (v.r_ok && v.rank == me)) return;
  emit(op.site, absl::StrCat(op.site, ": notify with comm_scope=gpu ignores its rank operand (",
                             op.rank.text(), v.r_ok ? absl::StrCat(" = ", v.rank) : "",
                             " on rank ", me, "): it writes the caller's own ",
                             v.p.objects[op.object].name, ", not the peer's"));
}

// True when e reads only slots that are the same on every rank: N, G, E and the params.
bool RankInvariant(const Program& p, const Ex& e) {
  for (int s : e.slots()) {
    if (s == kSlotN || s == kSlotG || s == kSlotE) continue;
    if (s >= kNumFixedSlots && s < kNumFixedSlots + static_cast<int>(p.param_values.size()))
      continue;
    return false;
  }
  return true;
}

void RankOutOfRange(const OpView& v, Emit emit) {
  const Op& op = v.op;
  auto check = [&](const Ex& e, const char* field) {
    int64_t r = 0;
    if (!e.present() || !RankInvariant(v.p, e) || !v.Known(e, &r)) return;
    if (r >= 0 && r < v.p.ranks) return;
    emit(op.site, absl::StrCat(op.site, ": ", op.path, ".", field, ": rank ", r,
                               e.text() == absl::StrCat(r) ? "" : absl::StrCat(" ('", e.text(), "')"),
                               " is outside 0..", v.p.ranks - 1, " (ranks: ", v.p.ranks, ")"));
  };
  // A scope=gpu notify drops its rank operand (gpu_scope_remote_rank says so).
  if (!(op.kind == NOTIFY && op.scope == GPU)) check(op.rank, "rank");
  if (op.kind == COPY) check(op.src_rank, "src_rank");
}

void IntraNodeRemoteNode(const OpView& v, Emit emit) {
  const Op& op = v.op;
  if (op.kind != NOTIFY || op.scope != INTRA_NODE || v.p.ranks_per_node <= 0 || !v.r_ok ||
      v.rank < 0 || v.rank >= v.p.ranks)
    return;
  const int me = v.ai.rank;
  if (v.p.node_of(static_cast<int>(v.rank)) == v.p.node_of(me)) return;
  emit(op.site, absl::StrCat(op.site, ": intra_node notify from rank ", me, " (node ",
                             v.p.node_of(me), ") to rank ", v.rank, " on node ",
                             v.p.node_of(static_cast<int>(v.rank)), " (ranks_per_node ",
                             v.p.ranks_per_node,
                             "): nvshmem_ptr is NULL across nodes, so the store faults; "
                             "use scope=inter_node"));
}

void WaitNeverNotified(const OpView& v, Emit emit) {
  const Op& op = v.op;
  if (op.kind != WAIT && op.kind != WAIT_UNTIL && op.kind != STREAM_WAIT) return;
  int64_t value = 0;
  if (!v.r_ok || !v.i_ok || !v.c_ok || !v.Known(op.value, &value)) return;
  const Object& obj = v.p.objects[op.object];
  const SignalCmp cmp = op.kind == WAIT ? EQ : op.cmp;
  if (v.m.Satisfies(cmp, obj.init, value, obj.bytes)) return;  // passes on the initial value
  int64_t lanes = op.kind == STREAM_WAIT ? 1
                  : op.kind == WAIT && !v.p.amd
                      ? std::min<int64_t>(static_cast<uint32_t>(v.count), 32)
                      : std::max<int64_t>(v.count, 0);
  std::vector<int64_t> frame(v.frame, v.frame + v.unknown->size());
  for (int64_t l = 0; l < lanes && l < 4096; ++l) {
    if (v.rank < 0 || v.rank >= v.p.ranks || v.index + l < 0) return;
    if (op.lane_if.present()) {
      // Only lanes known to poll: a lane_if that cannot be evaluated is not a finding.
      frame[kSlotL] = l;
      int64_t on = 0;
      for (int s : op.lane_if.slots())
        if (s != kSlotL && (*v.unknown)[s]) return;
      if (!op.lane_if.Eval(frame.data(), &on) || !on) continue;
    }
    const uint64_t key = WordKey(op.object, static_cast<int>(v.rank), v.index + l);
    if (v.m.MayBeWritten(key)) continue;
    emit(op.site, absl::StrCat(op.site, ": ", v.ai.name, " waits on ", v.m.WordName(key),
                               " for ", CmpName(cmp), " ", value, " but no op of any agent "
                               "ever writes it (initial value ", obj.init, "): it can only hang"));
    return;
  }
}

// ---- lints of one signal word ----

void WaitWidthMismatch(const WordView& v, Emit emit) {
  const WordUse& u = v.u;
  const Object& obj = v.p.objects[KeyObject(v.key)];
  if (u.notify_writers.empty() || obj.bytes == 8) return;
  const Op& op = v.p.ops[u.first_notify_op];
  emit(op.site,
       absl::StrCat(op.site, ": notify writes 64-bit signals but ", obj.name, " is ",
                    SignalDtype_Name(obj.dtype), u.waits.empty() ? "" :
                    absl::StrCat("; the ", obj.bytes * 8, "-bit wait at ",
                                 v.p.ops[u.waits.front().second].site,
                                 " compares only part of the word")));
}

void WaitUntilOnSignal(const WordView& v, Emit emit) {
  const WordUse& u = v.u;
  if (u.signal_writers.empty()) return;
  for (auto [a, id] : u.plain_wait_untils) {
    const Op& op = v.p.ops[id];
    emit(op.site, absl::StrCat(op.site, ": nvshmem_wait_until on ", v.m.WordName(v.key),
                               ", which signal operations write (",
                               v.p.ops[u.first_signal_op].site,
                               "); NVSHMEM requires nvshmem_signal_wait_until for signal words "
                               "(pytorch #158167: a hang)"));
  }
}

void MixedSetAdd(const WordView& v, Emit emit) {
  const WordUse& u = v.u;
  if (u.set_writers.empty() || u.add_writers.empty()) return;
  const Op& op = v.p.ops[u.first_add_op];
  emit(op.site, absl::StrCat(v.m.WordName(v.key), " is written with add (", op.site,
                             ") and with set (", v.p.ops[u.first_set_op].site,
                             "): a set can clobber counted adds (B7)"));
}

void NarrowWaitScope(const WordView& v, Emit emit) {
  for (auto [a, id] : v.u.narrow_waits) {
    bool other = false;
    for (int w : v.u.writers) other |= w != a && v.m.info(w).kind == AgentKind::kCta;
    if (!other) continue;
    const Op& op = v.p.ops[id];
    emit(op.site, absl::StrCat(op.site, ": ", v.m.info(a).name, " polls ", v.m.WordName(v.key),
                               " with scope=", ScopeName(op.scope), " sem=", SemName(op.sem),
                               " but another CTA or GPU writes it: such a poll never sees the "
                               "write on H200 (probe T6); use scope=gpu or sys"));
  }
}

void UnmatchedNotify(const WordView& v, Emit emit) {
  const WordUse& u = v.u;
  if (u.writers.empty() || !u.waiters.empty() ||
      u.notify_writers.size() + u.signal_writers.size() == 0)
    return;
  int id = u.first_notify_op >= 0 ? u.first_notify_op : u.first_signal_op;
  const Op& op = v.p.ops[id];
  emit(op.site, absl::StrCat(op.site, " writes ", v.m.WordName(v.key),
                             " but no agent ever waits on it (a wrong rank or slot?)"));
}

// ---- lints of the whole program ----

void CooperativeGridTooLarge(const Machine& m, Emit emit) {
  const Program& p = m.program();
  for (size_t k = 0; k < p.kernels.size(); ++k) {
    const Kernel& kern = p.kernels[k];
    if (!kern.cooperative || p.cta_slots <= 0) continue;
    for (int a = 0; a < m.num_agents(); ++a) {
      const AgentInfo& ai = m.info(a);
      if (ai.kind == AgentKind::kCta && ai.kernel == static_cast<int>(k) && ai.cta == 0 &&
          ai.launch_size > p.cta_slots)
        emit(kern.name, absl::StrCat("cooperative launch of ", kern.name, " with ",
                                     ai.launch_size, " CTAs on rank ", ai.rank, " exceeds the ",
                                     p.cta_slots, " resident slots"));
    }
  }
}

// The tables: every lint, its severity (lint.h lists them) and its check, in the order
// in which findings are reported (before errors are moved first).
template <typename View>
struct Rule {
  Id id;
  Severity severity;
  void (*check)(const View&, Emit);
};

constexpr Rule<OpView> kOpLints[] = {
    {SignalLint::wait_release_semantics, SignalLint::error, WaitReleaseSemantics},
    {SignalLint::wait_in_divergent_code, SignalLint::error, WaitInDivergentCode},
    {SignalLint::wait_count_over_32, SignalLint::warning, WaitCountOver32},
    {SignalLint::wait_until_lanes_exceed_threads, SignalLint::warning,
     WaitUntilLanesExceedThreads},
    {SignalLint::gpu_scope_remote_rank, SignalLint::warning, GpuScopeRemoteRank},
    {SignalLint::rank_out_of_range, SignalLint::error, RankOutOfRange},
    {SignalLint::wait_never_notified, SignalLint::warning, WaitNeverNotified},
    {SignalLint::intra_node_remote_node, SignalLint::warning, IntraNodeRemoteNode},
};

constexpr Rule<WordView> kWordLints[] = {
    {SignalLint::wait_width_mismatch, SignalLint::error, WaitWidthMismatch},
    {SignalLint::wait_until_on_signal, SignalLint::error, WaitUntilOnSignal},
    {SignalLint::mixed_set_add, SignalLint::warning, MixedSetAdd},
    {SignalLint::narrow_wait_scope, SignalLint::warning, NarrowWaitScope},
    {SignalLint::unmatched_notify, SignalLint::warning, UnmatchedNotify},
};

constexpr Rule<Machine> kProgramLints[] = {
    {SignalLint::cooperative_grid_too_large, SignalLint::error, CooperativeGridTooLarge},
};

// The findings so far, each at most once per (id, site).
class Findings {
 public:
  template <typename View>
  void Run(const Rule<View>& rule, const View& v) {
    rule.check(v, [&](const std::string& site, const std::string& text) {
      if (!seen_.insert({rule.id, site}).second) return;
      SignalLint l;
      l.set_id(rule.id);
      l.set_severity(rule.severity);
      l.set_site(site);
      l.set_text(text);
      out_.push_back(std::move(l));
    });
  }
  // Ensures: errors first, otherwise in the order found.
  std::vector<SignalLint> Take() {
    std::stable_sort(out_.begin(), out_.end(), [](const SignalLint& x, const SignalLint& y) {
      return (x.severity() == SignalLint::error) > (y.severity() == SignalLint::error);
    });
    return std::move(out_);
  }

 private:
  std::set<std::pair<int, std::string>> seen_;
  std::vector<SignalLint> out_;
};

// Records which agents write, add to, signal, notify and wait on which words.
void NoteWordUses(const OpView& v, std::map<uint64_t, WordUse>& words) {
  const Op& op = v.op;
  const int a = v.agent;
  const int me = v.ai.rank;
  auto key_ok = [&](int64_t r, int64_t i) {
    return r >= 0 && r < v.p.ranks && i >= 0 && i < (int64_t{1} << 30);
  };
  auto note_write = [&](int object, int64_t r, int64_t i, bool is_add, bool signal,
                        bool notify) {
    if (!key_ok(r, i)) return;
    WordUse& u = words[WordKey(object, static_cast<int>(r), i)];
    u.writers.insert(a);
    (is_add ? u.add_writers : u.set_writers).insert(a);
    if (is_add && u.first_add_op < 0) u.first_add_op = op.id;
    if (!is_add && u.first_set_op < 0) u.first_set_op = op.id;
    if (signal) {
      u.signal_writers.insert(a);
      if (u.first_signal_op < 0) u.first_signal_op = op.id;
    }
    if (notify) {
      u.notify_writers.insert(a);
      if (u.first_notify_op < 0) u.first_notify_op = op.id;
    }
  };
  const int64_t rank = v.rank, index = v.index, count = v.count;
  if (op.kind == NOTIFY && v.r_ok && v.i_ok) {
    int64_t target = op.scope == GPU ? me : rank;
    note_write(op.object, target, index, op.sig_op == ADD, op.scope == INTER_NODE, true);
  } else if ((op.kind == SIGNAL_OP || op.kind == ST_SIGNAL) && v.r_ok && v.i_ok) {
    note_write(op.object, rank, index, op.kind == SIGNAL_OP && op.sig_op == ADD,
               op.kind == SIGNAL_OP, false);
  } else if (op.kind == PUTSIG && v.r_ok) {
    note_write(op.signal_object, rank, v.index, op.signal_op == ADD, true, false);
  } else if ((op.kind == WAIT || op.kind == WAIT_UNTIL) && v.r_ok && v.i_ok && v.c_ok) {
    int64_t lanes = op.kind == WAIT && !v.p.amd
                        ? std::min<int64_t>(static_cast<uint32_t>(count), 32)
                        : std::max<int64_t>(count, 0);
    for (int64_t l = 0; l < lanes && l < 4096; ++l) {
      if (!key_ok(rank, index + l)) break;
      WordUse& u = words[WordKey(op.object, static_cast<int>(rank), index + l)];
      u.waiters.insert(a);
      u.waits.push_back({a, op.id});
      if (op.scope == CTA || op.sem == WEAK) u.narrow_waits.push_back({a, op.id});
      if (op.kind == WAIT_UNTIL && op.plain_wait_until) u.plain_wait_untils.push_back({a, op.id});
    }
  }
}

}  // namespace

bool HasErrors(const std::vector<SignalLint>& lints) {
  for (const SignalLint& l : lints)
    if (l.severity() == SignalLint::error) return true;
  return false;
}

SignalExplanation::Cause CauseOf(SignalLint::Id id) {
  switch (id) {
    case SignalLint::wait_release_semantics: return SignalExplanation::wait_release_semantics;
    case SignalLint::wait_in_divergent_code: return SignalExplanation::wait_in_divergent_code;
    case SignalLint::wait_width_mismatch: return SignalExplanation::wait_width_mismatch;
    case SignalLint::wait_until_on_signal: return SignalExplanation::wait_until_on_signal;
    case SignalLint::cooperative_grid_too_large:
      return SignalExplanation::cooperative_grid_too_large;
    case SignalLint::rank_out_of_range: return SignalExplanation::rank_out_of_range;
    default: return SignalExplanation::CAUSE_UNSET;
  }
}

std::vector<SignalLint> Lint(const Machine& m) {
  const Program& p = m.program();
  Findings findings;
  std::map<uint64_t, WordUse> words;
  for (int a = 0; a < m.num_agents(); ++a) {
    const AgentInfo& ai = m.info(a);
    m.WalkProgram(a, [&](const Op& op, const int64_t* frame, const std::vector<bool>& unknown) {
      auto known = [&](const Ex& e) {
        for (int s : e.slots())
          if (unknown[s]) return false;
        return true;
      };
      auto val = [&](const Ex& e, int64_t dflt, int64_t* v) {
        if (!e.present()) {
          *v = dflt;
          return true;
        }
        return known(e) && e.Eval(frame, v);
      };
      OpView v{m, p, a, ai, op};
      v.frame = frame;
      v.unknown = &unknown;
      v.rank = ai.rank;
      v.r_ok = val(op.rank, ai.rank, &v.rank);
      v.i_ok = val(op.index, 0, &v.index);
      v.c_ok = val(op.count, 1, &v.count);
      for (const Rule<OpView>& rule : kOpLints) findings.Run(rule, v);
      if (op.kind == PUTSIG) {
        // NoteWordUses addresses the PUTSIG's signal word by its signal_index.
        int64_t si = 0;
        if (!val(op.signal_index, 0, &si)) return;
        v.index = si;
      }
      NoteWordUses(v, words);
    });
  }
  for (const auto& [key, u] : words)
    for (const Rule<WordView>& rule : kWordLints) findings.Run(rule, WordView{m, p, key, u});
  for (const Rule<Machine>& rule : kProgramLints) findings.Run(rule, m);
  return findings.Take();
}

}  // namespace warpcheck::sim::signal
