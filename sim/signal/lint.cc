#include "sim/signal/lint.h"

#include <algorithm>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"

namespace warpcheck::sim::signal {

namespace {

struct WordUse {
  std::set<int> set_writers, add_writers, writers, waiters;  // agents
  std::set<int> signal_writers;  // signal_op / putsig / inter_node notify
  std::set<int> notify_writers;  // dl.notify (64-bit)
  int first_set_op = -1, first_add_op = -1, first_notify_op = -1, first_signal_op = -1;
  std::vector<std::pair<int, int>> narrow_waits;       // (agent, op)
  std::vector<std::pair<int, int>> plain_wait_untils;  // (agent, op)
  std::vector<std::pair<int, int>> waits;              // (agent, op)
};

}  // namespace

bool HasErrors(const std::vector<SignalLint>& lints) {
  for (const SignalLint& l : lints)
    if (l.severity() == "error") return true;
  return false;
}

std::vector<SignalLint> Lint(const Machine& m) {
  const Program& p = m.program();
  std::vector<SignalLint> out;
  std::set<std::pair<std::string, std::string>> seen;
  auto add = [&](const std::string& id, const std::string& sev, const Op& op,
                 const std::string& text) {
    if (!seen.insert({id, op.site}).second) return;
    SignalLint l;
    l.set_id(id);
    l.set_severity(sev);
    l.set_site(op.site);
    l.set_text(text);
    out.push_back(std::move(l));
  };
  std::map<uint64_t, WordUse> words;
  for (int a = 0; a < m.num_agents(); ++a) {
    const AgentInfo& ai = m.info(a);
    const int me = ai.rank;
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
      int64_t rank = me, index = 0, count = 1;
      const bool r_ok = val(op.rank, me, &rank);
      const bool i_ok = val(op.index, 0, &index);
      const bool c_ok = val(op.count, 1, &count);
      auto key_ok = [&](int64_t r, int64_t i) {
        return r >= 0 && r < p.ranks && i >= 0 && i < (int64_t{1} << 30);
      };
      switch (op.kind) {
        case WAIT: {
          if (op.sem == RELEASE || op.sem == ACQ_REL)
            add("wait_release_semantics", "error", op,
                absl::StrCat(op.site, ": dl.wait with sem=", SemName(op.sem),
                             " lowers to ld.", SemName(op.sem),
                             ", which PTX does not have; ptxas rejects it"));
          if (op.by == THREAD0 || op.by == OTHER_THREADS)
            add("wait_in_divergent_code", "error", op,
                absl::StrCat(op.site, ": dl.wait reached by only some threads of the CTA: ",
                             p.amd ? "the workgroup barrier inside the AMD wait"
                                   : "its bar.warp.sync 0xffffffff",
                             " runs with threads missing (undefined; in practice a hang)"));
          if (!p.amd && c_ok && (count > 32 || count < 0))
            add("wait_count_over_32", "warning", op,
                count < 0 ? absl::StrCat(op.site, ": dl.wait count ", count,
                                         " compares as unsigned: NVIDIA polls 32 words "
                                         "(AMD waits for none)")
                          : absl::StrCat(op.site, ": dl.wait over ", count,
                                         " words: NVIDIA polls only the first 32 (lane = "
                                         "tid % 32); words 32..",
                                         count - 1, " are never read, so the wait can pass "
                                                    "early"));
          break;
        }
        case WAIT_UNTIL: {
          int threads = ai.kind == AgentKind::kCta ? p.kernels[ai.kernel].threads : 1;
          if (c_ok && count > threads)
            add("wait_until_lanes_exceed_threads", "warning", op,
                absl::StrCat(op.site, ": per-thread waits over ", count, " words but the CTA has ",
                             threads, " threads; words past ", threads, " are never waited for"));
          break;
        }
        case NOTIFY: {
          if (op.scope == GPU && op.rank_given && (!r_ok || rank != me))
            add("gpu_scope_remote_rank", "warning", op,
                absl::StrCat(op.site, ": notify with comm_scope=gpu ignores its rank operand (",
                             op.rank.text(), r_ok ? absl::StrCat(" = ", rank) : "",
                             " on rank ", me, "): it writes the caller's own ",
                             p.objects[op.object].name, ", not the peer's"));
          break;
        }
        default:
          break;
      }
      // Word uses.
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
      if (op.kind == NOTIFY && r_ok && i_ok) {
        int64_t target = op.scope == GPU ? me : rank;
        note_write(op.object, target, index, op.sig_op == ADD, op.scope == INTER_NODE, true);
      } else if ((op.kind == SIGNAL_OP || op.kind == ST_SIGNAL) && r_ok && i_ok) {
        note_write(op.object, rank, index, op.kind == SIGNAL_OP && op.sig_op == ADD,
                   op.kind == SIGNAL_OP, false);
      } else if (op.kind == PUTSIG && r_ok) {
        int64_t si = 0;
        if (val(op.signal_index, 0, &si))
          note_write(op.signal_object, rank, si, op.signal_op == ADD, true, false);
      } else if ((op.kind == WAIT || op.kind == WAIT_UNTIL) && r_ok && i_ok && c_ok) {
        int64_t lanes = op.kind == WAIT && !p.amd ? std::min<int64_t>(static_cast<uint32_t>(count), 32)
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
    });
  }
  for (const auto& [key, u] : words) {
    const std::string wn = m.WordName(key);
    const Object& obj = p.objects[KeyObject(key)];
    if (!u.notify_writers.empty() && obj.bytes != 8) {
      const Op& op = p.ops[u.first_notify_op];
      add("wait_width_mismatch", "error", op,
          absl::StrCat(op.site, ": notify writes 64-bit signals but ", obj.name, " is ",
                       SignalDtype_Name(obj.dtype), u.waits.empty() ? "" :
                       absl::StrCat("; the ", obj.bytes * 8, "-bit wait at ",
                                    p.ops[u.waits.front().second].site,
                                    " compares only part of the word")));
    }
    if (!u.signal_writers.empty())
      for (auto [a, id] : u.plain_wait_untils) {
        const Op& op = p.ops[id];
        add("wait_until_on_signal", "error", op,
            absl::StrCat(op.site, ": nvshmem_wait_until on ", wn,
                         ", which signal operations write (", p.ops[u.first_signal_op].site,
                         "); NVSHMEM requires nvshmem_signal_wait_until for signal words "
                         "(pytorch #158167: a hang)"));
      }
    if (!u.set_writers.empty() && !u.add_writers.empty()) {
      const Op& op = p.ops[u.first_add_op];
      add("mixed_set_add", "warning", op,
          absl::StrCat(wn, " is written with add (", op.site, ") and with set (",
                       p.ops[u.first_set_op].site, "): a set can clobber counted adds (B7)"));
    }
    for (auto [a, id] : u.narrow_waits) {
      bool other = false;
      for (int w : u.writers) other |= w != a && m.info(w).kind == AgentKind::kCta;
      if (other) {
        const Op& op = p.ops[id];
        add("narrow_wait_scope", "warning", op,
            absl::StrCat(op.site, ": ", m.info(a).name, " polls ", wn, " with scope=",
                         ScopeName(op.scope), " sem=", SemName(op.sem),
                         " but another CTA or GPU writes it: such a poll never sees the write "
                         "on H200 (probe T6); use scope=gpu or sys"));
      }
    }
    if (!u.writers.empty() && u.waiters.empty() && u.notify_writers.size() + u.signal_writers.size() > 0) {
      int id = u.first_notify_op >= 0 ? u.first_notify_op : u.first_signal_op;
      const Op& op = p.ops[id];
      add("unmatched_notify", "warning", op,
          absl::StrCat(op.site, " writes ", wn, " but no agent ever waits on it (a wrong rank "
                                                "or slot?)"));
    }
  }
  for (size_t k = 0; k < p.kernels.size(); ++k) {
    const Kernel& kern = p.kernels[k];
    if (!kern.cooperative || p.cta_slots <= 0) continue;
    for (int a = 0; a < m.num_agents(); ++a) {
      const AgentInfo& ai = m.info(a);
      if (ai.kind == AgentKind::kCta && ai.kernel == static_cast<int>(k) && ai.cta == 0 &&
          ai.launch_size > p.cta_slots) {
        SignalLint l;
        l.set_id("cooperative_grid_too_large");
        l.set_severity("error");
        l.set_site(kern.name);
        l.set_text(absl::StrCat("cooperative launch of ", kern.name, " with ", ai.launch_size,
                                " CTAs on rank ", ai.rank, " exceeds the ", p.cta_slots,
                                " resident slots"));
        if (seen.insert({l.id(), l.site()}).second) out.push_back(l);
      }
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const SignalLint& x, const SignalLint& y) {
    return (x.severity() == "error") > (y.severity() == "error");
  });
  return out;
}

}  // namespace warpcheck::sim::signal
