#include "sim/signal/machine.h"

#include <algorithm>
#include <functional>

#include "absl/hash/hash.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "sim/base/check.h"
#include "sim/base/field_position.h"
#include "sim/base/status_macros.h"

namespace warpcheck::sim::signal {

// ---- Clock ----------------------------------------------------------------------------


Clock Clock::Make(std::vector<uint32_t> v) {
  while (!v.empty() && v.back() == 0) v.pop_back();
  Clock c;
  if (v.empty()) return c;
  uint64_t h = 0x1234567;
  for (uint32_t x : v) h = HashMix(h, x);
  c.d_ = std::make_shared<const Data>(Data{std::move(v), h});
  return c;
}

Clock Clock::Joined(const Clock& o) const {
  if (!o.d_ || d_ == o.d_) return *this;
  if (!d_) return o;
  const auto& a = d_->v;
  const auto& b = o.d_->v;
  bool a_covers = a.size() >= b.size(), b_covers = b.size() >= a.size();
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    if (a[i] < b[i]) a_covers = false;
    if (b[i] < a[i]) b_covers = false;
  }
  if (a_covers) return *this;
  if (b_covers) return o;
  std::vector<uint32_t> v(std::max(a.size(), b.size()), 0);
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = std::max(i < a.size() ? a[i] : 0u, i < b.size() ? b[i] : 0u);
  return Make(std::move(v));
}

Clock Clock::Ticked(int comp) const {
  std::vector<uint32_t> v = d_ ? d_->v : std::vector<uint32_t>();
  if (static_cast<int>(v.size()) <= comp) v.resize(comp + 1, 0);
  ++v[comp];
  return Make(std::move(v));
}

uint64_t Clock::HashPermuted(const std::vector<int32_t>& to,
                             std::vector<uint32_t>* scratch) const {
  if (!d_) return 0;
  scratch->assign(to.size(), 0);
  for (size_t i = 0; i < d_->v.size(); ++i) (*scratch)[to[i]] = d_->v[i];
  size_t n = scratch->size();
  while (n > 0 && (*scratch)[n - 1] == 0) --n;
  if (n == 0) return 0;
  uint64_t h = 0x1234567;
  for (size_t i = 0; i < n; ++i) h = HashMix(h, (*scratch)[i]);
  return h;
}

bool Clock::LessEq(const Clock& o) const {
  if (!d_ || d_ == o.d_) return true;
  for (size_t i = 0; i < d_->v.size(); ++i)
    if (d_->v[i] > o.at(static_cast<int>(i))) return false;
  return true;
}

bool Clock::operator==(const Clock& o) const {
  if (d_ == o.d_) return true;
  if (!d_ || !o.d_) return false;
  return d_->v == o.d_->v;
}

// ---- History ----------------------------------------------------------------------------

void History::push_back(HistEntry e) {
  auto n = std::make_shared<Node>();
  n->size = static_cast<uint32_t>(size()) + 1;
  n->e = std::move(e);
  n->parent = std::move(head_);
  head_ = std::move(n);
  index_.reset();
}

HistEntry& History::back() {
  WARPCHECK_CHECK(head_ != nullptr) << "History::back() of an empty history";
  // Always a fresh node: cheap (one entry), and no state that shares the old one sees
  // the change.
  auto n = std::make_shared<Node>(*head_);
  head_ = n;
  index_.reset();
  return n->e;
}

const std::vector<const HistEntry*>& History::Index() const {
  if (!index_ || index_->size() != size()) {
    auto v = std::make_shared<std::vector<const HistEntry*>>(size());
    size_t i = size();
    for (const Node* n = head_.get(); n; n = n->parent.get()) (*v)[--i] = &n->e;
    index_ = std::move(v);
  }
  return *index_;
}

bool Conflicts(const Access2& a, const Access2& b) {
  if (a.res != b.res) return false;
  if (a.object != b.object && a.object != -2 && b.object != -2) return false;
  if (a.mode == Mode::kRead && b.mode == Mode::kRead) return false;
  if (a.mode == Mode::kAdd && b.mode == Mode::kAdd) return false;
  if (a.rank >= 0 && b.rank >= 0 && a.rank != b.rank) return false;
  if (a.lo >= 0 && b.lo >= 0 && (a.hi <= b.lo || b.hi <= a.lo)) return false;
  return true;
}

// ---- Instantiation ----------------------------------------------------------------------

absl::StatusOr<Machine> Machine::Create(const Program& p) {
  Machine m(p);
  RETURN_IF_ERROR(m.Instantiate());
  m.ComputeWriters();
  return m;
}

absl::Status Machine::Instantiate() {
  const Program& p = *p_;
  std::vector<int64_t> base(p.num_slots(), 0);
  base[kSlotN] = p.ranks;
  base[kSlotG] = p.ctas;
  base[kSlotE] = p.iterations;
  for (size_t i = 0; i < p.param_values.size(); ++i) base[kNumFixedSlots + i] = p.param_values[i];
  for (size_t i = 0; i < p.objects.size(); ++i) {
    const Object& o = p.objects[i];
    // An error at the object's `size` in the program file (sim/base/field_position.h).
    auto size_error = [&](const std::string& what) {
      return sim::base::LocateInTextProtoFile(
          sim::base::WithField(
              absl::InvalidArgumentError(absl::StrCat(p.file, ": object ", o.name, what)),
              absl::StrCat("objects[", i, "].size")),
          p.file, p.proto);
    };
    int64_t n = 0;
    if (!o.size.Eval(base.data(), &n))
      return size_error(absl::StrCat(": size: ", o.size.ErrorAt(base.data())));
    if (n < 1 || n > (int64_t{1} << 30))
      return size_error(absl::StrCat(": size ", n, " is outside 1..2^30"));
    sizes_.push_back(n);
  }
  for (const Op& op : p.ops)
    if (op.kind == HOST_COLLECTIVE && !coll_ids_.count(op.name))
      coll_ids_.emplace(op.name, static_cast<int>(coll_ids_.size()));

  // Launch counts per (rank, kernel), to name CTAs.
  std::map<std::pair<int, int>, int> launch_count;
  bool simple_names = p.kernels.size() == 1;
  std::vector<AgentInfo> ctas;
  std::map<int, std::vector<std::pair<int, int64_t>>> stream_launches;  // offset, grid
  for (int r = 0; r < p.ranks; ++r) {
    for (size_t si = 0; si < p.streams.size(); ++si) {
      AgentInfo st;
      st.kind = AgentKind::kStream;
      st.rank = r;
      st.stream = static_cast<int>(si);
      st.name = absl::StrCat("rank", r, ".", p.streams[si].name);
      st.frame0 = base;
      st.frame0[kSlotR] = r;
      int stream_id = static_cast<int>(info_.size());
      st.stream_agent = stream_id;
      info_.push_back(st);
      // Walk the stream's (static) control flow to find its launches.
      std::vector<int64_t> frame = info_[stream_id].frame0;
      int launch_ordinal = 0;
      int steps = 0;
      std::function<absl::Status(const std::vector<int>&)> walk =
          [&](const std::vector<int>& body) -> absl::Status {
        for (int id : body) {
          if (++steps > 1000000)
            return absl::InvalidArgumentError(absl::StrCat(
                p.file, ": streams[", si, "]: more than 10^6 host ops; bound the loops"));
          const Op& op = p.ops[id];
          auto ev = [&](const Ex& e, const char* f, int64_t* v) -> absl::Status {
            if (!e.Eval(frame.data(), v))
              return absl::InvalidArgumentError(absl::StrCat(p.file, ": ", op.path, ".", f,
                                                             ": ", e.ErrorAt(frame.data())));
            return absl::OkStatus();
          };
          if (op.kind == FOR) {
            int64_t from, to, step;
            RETURN_IF_ERROR(ev(op.from, "from", &from));
            RETURN_IF_ERROR(ev(op.to, "to", &to));
            RETURN_IF_ERROR(ev(op.step, "step", &step));
            if (step <= 0)
              return absl::InvalidArgumentError(
                  absl::StrCat(p.file, ": ", op.path, ".step: must be positive, is ", step));
            for (int64_t v = from; v < to; v += step) {
              frame[op.var_slot] = v;
              RETURN_IF_ERROR(walk(op.body));
            }
          } else if (op.kind == IF) {
            int64_t c;
            RETURN_IF_ERROR(ev(op.cond, "cond", &c));
            RETURN_IF_ERROR(walk(c ? op.body : op.else_body));
          } else if (op.kind == LAUNCH) {
            const Kernel& k = p.kernels[op.kernel];
            int64_t grid;
            RETURN_IF_ERROR(ev(k.grid, "grid (of the launched kernel)", &grid));
            if (grid < 0 || grid > 4096)
              return absl::InvalidArgumentError(absl::StrCat(
                  p.file, ": kernel ", k.name, ": grid ", grid, " on rank ", r,
                  " is outside 0..4096"));
            int n = ++launch_count[{r, op.kernel}];
            stream_launches[stream_id].push_back({static_cast<int>(ctas.size()), grid});
            std::vector<AgentInfo> batch;
            for (int64_t c = 0; c < grid; ++c) {
              AgentInfo a;
              a.kind = AgentKind::kCta;
              a.rank = r;
              a.stream = static_cast<int>(si);
              a.stream_agent = stream_id;
              a.kernel = op.kernel;
              a.launch = launch_ordinal;
              a.kernel_launch = n;
              a.launch_size = static_cast<int>(grid);
              a.cta = static_cast<int>(c);
              a.frame0 = frame;
              a.frame0[kSlotC] = c;
              a.name = absl::StrCat("rank", r, ".", simple_names ? "" : k.name + ".",
                                    n > 1 ? absl::StrCat("L", n, ".") : "", "cta", c);
              batch.push_back(std::move(a));
            }
            ctas.insert(ctas.end(), batch.begin(), batch.end());
            // Record (stream, launch ordinal) -> batch start later.
            ++launch_ordinal;
          }
        }
        return absl::OkStatus();
      };
      RETURN_IF_ERROR(walk(p.streams[si].body));
    }
  }
  // CTAs after all streams; fill launch tables.
  const int first_cta = static_cast<int>(info_.size());
  for (auto& [stream_id, list] : stream_launches) {
    for (auto [offset, grid] : list) {
      info_[stream_id].launches.push_back(first_cta + offset);
      info_[stream_id].launch_sizes.push_back(static_cast<int>(grid));
      for (int64_t c = 0; c < grid; ++c) ctas[offset + c].launch_first = first_cta + offset;
    }
  }
  for (AgentInfo& a : ctas) info_.push_back(std::move(a));
  int comp = 0;
  for (AgentInfo& a : info_) {
    a.comp_t0 = comp++;
    if (a.kind == AgentKind::kCta) {
      a.comp_rest = comp++;
      a.comp_px = comp++;
    } else {
      a.comp_rest = a.comp_px = a.comp_t0;
    }
  }
  num_comps_ = comp;
  return absl::OkStatus();
}

State Machine::Initial() const {
  State s;
  s.agents.resize(info_.size());
  s.slots_used.assign(p_->ranks, 0);
  s.barrier_calls.assign(p_->ranks, 0);
  for (size_t a = 0; a < info_.size(); ++a) {
    AgentState& as = s.agents[a];
    as.frame = info_[a].frame0;
    if (info_[a].kind == AgentKind::kStream) {
      as.status = Status::kRunning;
      as.stack.push_back(StackEntry{});
    }
  }
  for (size_t a = 0; a < info_.size(); ++a)
    if (info_[a].kind == AgentKind::kStream) Normalize(s, static_cast<int>(a));
  return s;
}

const std::vector<int>& Machine::List(int agent, int32_t list) const {
  if (list < 0) {
    const AgentInfo& ai = info_[agent];
    return ai.kind == AgentKind::kStream ? p_->streams[ai.stream].body
                                         : p_->kernels[ai.kernel].body;
  }
  const Op& op = p_->ops[list / 2];
  return (list & 1) ? op.else_body : op.body;
}

int Machine::CurrentOp(const State& s, int agent) const {
  const AgentState& as = s.agents[agent];
  if (as.status != Status::kRunning || as.stack.empty()) return -1;
  const StackEntry& e = as.stack.back();
  const std::vector<int>& l = List(agent, e.list);
  return e.pos < static_cast<int>(l.size()) ? l[e.pos] : -1;
}

std::string Machine::WordName(int object, int rank, int64_t index) const {
  return absl::StrCat(p_->objects[object].name, "@", rank, "[", index, "]");
}
std::string Machine::WordName(uint64_t key) const {
  return WordName(KeyObject(key), KeyRank(key), KeyIndex(key));
}

// ---- Helpers ---------------------------------------------------------------------------

void Machine::Fault(State& s, int a, const std::string& what) const {
  if (!s.fault.empty()) return;
  s.fault = absl::StrCat(info_[a].name, ": ", what);
  s.fault_agent = a;
}

bool Machine::Eval(State& s, int a, const Ex& e, int64_t* v) const {
  if (e.Eval(s.agents[a].frame.data(), v)) return true;
  Fault(s, a, e.ErrorAt(s.agents[a].frame.data()));
  return false;
}

bool Machine::ResolveWord(State& s, int a, int object, int64_t rank, int64_t index,
                          uint64_t* key) const {
  if (rank < 0 || rank >= p_->ranks) {
    Fault(s, a, absl::StrCat("rank ", rank, " of ", p_->objects[object].name,
                             " is outside 0..", p_->ranks - 1));
    return false;
  }
  if (index < 0 || index >= sizes_[object]) {
    Fault(s, a, absl::StrCat("out of bounds: ", WordName(object, static_cast<int>(rank), index),
                             " (", p_->objects[object].name, " has ", sizes_[object],
                             " elements)"));
    return false;
  }
  if (p_->objects[object].local && rank != info_[a].rank) {
    Fault(s, a, absl::StrCat(p_->objects[object].name, " is local to each rank; rank ",
                             info_[a].rank, " cannot reach rank ", rank, "'s copy"));
    return false;
  }
  *key = WordKey(object, static_cast<int>(rank), index);
  return true;
}

bool Machine::ResolveRange(State& s, int a, int object, int64_t rank, int64_t lo,
                           int64_t n) const {
  uint64_t k;
  if (n < 0) {
    Fault(s, a, absl::StrCat("negative count ", n));
    return false;
  }
  if (!ResolveWord(s, a, object, rank, lo, &k)) return false;
  if (n > 0 && !ResolveWord(s, a, object, rank, lo + n - 1, &k)) return false;
  return true;
}

Word& Machine::GetWord(State& s, uint64_t key) const {
  auto it = s.words.find(key);
  if (it != s.words.end()) return it->second;
  Word w;
  w.value = p_->objects[KeyObject(key)].init;
  return s.words.emplace(key, std::move(w)).first->second;
}

const Word* Machine::FindWord(const State& s, uint64_t key) const {
  auto it = s.words.find(key);
  return it == s.words.end() ? nullptr : &it->second;
}

bool Machine::ScopeIncludes(SignalScope scope, int a, int b) const {
  switch (scope) {
    case CTA: return a == b;
    case GPU: return info_[a].rank == info_[b].rank;
    default: return true;
  }
}

int64_t Machine::Visible(const State& s, int agent, uint64_t key, SignalScope scope,
                         SignalSem sem) const {
  const Word* w = FindWord(s, key);
  int64_t init = p_->objects[KeyObject(key)].init;
  if (!w) return init;
  if (scope != CTA && sem != WEAK) return w->value;
  // Narrow view: the value cached when the wait first polled (see ArmWait).
  const AgentState& as = s.agents[agent];
  if (as.wait_armed && KeyRank(key) == as.wait_rank) {
    int64_t l = KeyIndex(key) - as.wait_index;
    if (l >= 0 && l < static_cast<int64_t>(as.cached.size()) && !FirstPoll(as, static_cast<int>(l)))
      return as.cached[l];
  }
  return w->value;
}

bool Machine::Satisfies(SignalCmp cmp, int64_t v, int64_t t, int bytes) const {
  if (bytes == 4) {
    v = static_cast<int32_t>(v);
    t = static_cast<int32_t>(t);
  }
  switch (cmp) {
    case EQ: return v == t;
    case NE: return v != t;
    case GT: return v > t;
    case GE: return v >= t;
    case LT: return v < t;
    case LE: return v <= t;
    default: return false;
  }
}

void Machine::AddRace(State& s, RaceRecord r) const {
  ++s.race_count;
  if (s.races.size() < 8) s.races.push_back(std::move(r));
}

void Machine::WriteWord(State& s, int a, int op, uint64_t key, int64_t value, WriteKind kind,
                        const Clock& rel, SignalScope scope, bool rmw, Event* ev) const {
  Word& w = GetWord(s, key);
  HistEntry h;
  h.agent = a;
  h.op = op;
  h.before = w.value;
  h.after = value;
  h.kind = kind;
  const AgentState& as = s.agents[a];
  h.clk = as.t0.Joined(as.rest);
  w.hist.push_back(std::move(h));
  if (ev) {
    ev->has_word = true;
    ev->word = key;
    ev->before = w.value;
    ev->after = value;
  }
  w.value = value;
  if (rmw && !w.rel.empty()) {
    // An RMW continues the release sequence of the version it read. For adds the agent
    // whose scope decides is the lowest-numbered releaser rather than the last, so that
    // two adds give the same state in either order (the counter abstraction).
    w.rel = w.rel.Joined(rel);
    if (!rel.empty() && (kind != WriteKind::kAdd || w.rel_agent < 0 || a < w.rel_agent)) {
      w.rel_agent = a;
      w.rel_scope = scope;
    }
  } else {
    w.rel = rel;
    w.rel_agent = rel.empty() ? -1 : a;
    w.rel_scope = scope;
  }
}

bool Machine::Synchronizes(int writer, SignalScope wscope, int reader, SignalScope rscope,
                           SignalSem rsem) const {
  return rsem != WEAK && ScopeIncludes(wscope, writer, reader) &&
         ScopeIncludes(rscope, reader, writer);
}

bool Machine::AcquiresNow(const State& s, int reader, uint64_t key, SignalScope rscope,
                          SignalSem rsem) const {
  const Word* w = FindWord(s, key);
  if (!w || w->rel.empty() || rsem == WEAK) return false;
  return w->rel_agent < 0 || Synchronizes(w->rel_agent, w->rel_scope, reader, rscope, rsem);
}

void Machine::AcquireFrom(State& s, int a, const Word& w, SignalScope scope, SignalSem sem,
                          bool t0, bool rest) const {
  if (w.rel.empty() || sem == WEAK) return;
  int wr = w.rel_agent;
  if (wr >= 0 && !Synchronizes(wr, w.rel_scope, a, scope, sem)) return;
  AgentState& as = s.agents[a];
  if (sem == ACQUIRE || sem == ACQ_REL) {
    if (t0) as.t0 = as.t0.Joined(w.rel);
    if (rest) as.rest = as.rest.Joined(w.rel);
  } else {
    as.pending_acq = as.pending_acq.Joined(w.rel);
  }
}

void Machine::DataAccess(State& s, int a, int op, int object, int rank, int64_t lo,
                         int64_t n, bool write, int64_t tag, int comp1, const Clock& clk1,
                         int comp2, const Clock* clk2, const Clock& check1,
                         const Clock* check2, const Ex* expect, const int64_t* frame) const {
  if (n <= 0) return;
  const int64_t hi = lo + n;
  std::vector<Access>& log = s.data[(static_cast<uint64_t>(object) << 32) | rank];
  auto hb = [&](const Access& x, const Clock& c) {
    if (x.c1 >= 0 && c.at(x.c1) < x.t1) return false;
    if (x.c2 >= 0 && c.at(x.c2) < x.t2) return false;
    return true;
  };
  auto ordered = [&](const Access& x) {
    if (x.agent == a) return true;
    return hb(x, check1) && (!check2 || hb(x, *check2));
  };
  const std::string range = absl::StrCat(p_->objects[object].name, "@", rank, "[", lo,
                                         n > 1 ? absl::StrCat("..", hi, ")") : "]");
  for (const Access& x : log) {
    if (x.hi <= lo || hi <= x.lo) continue;
    if (!x.write && !write) continue;
    if (x.agent == a) continue;  // program order
    if (ordered(x)) continue;
    RaceRecord r;
    r.kind = write ? (x.write ? SignalRace::write_write : SignalRace::write_after_read)
                   : SignalRace::read_unpublished;
    r.agent = a;
    r.op = op;
    r.other_agent = x.agent;
    r.other_op = x.op;
    r.text = absl::StrCat(info_[a].name, " ", p_->ops[op].site, " ",
                          write ? "writes " : "reads ", range, " unordered with ",
                          info_[x.agent].name, " ", p_->ops[x.op].site, " ",
                          x.write ? "write" : "read", " (no happens-before)");
    AddRace(s, std::move(r));
    break;
  }
  if (!write && expect && expect->present()) {
    int64_t want = 0;
    if (expect->Eval(frame, &want)) {
      // The value each element holds: the latest write covering it.
      for (int64_t e = lo; e < hi; ++e) {
        int64_t v = p_->objects[object].init;
        for (auto it = log.rbegin(); it != log.rend(); ++it)
          if (it->write && it->lo <= e && e < it->hi) {
            v = it->tag;
            break;
          }
        if (v != want) {
          RaceRecord r;
          r.kind = SignalRace::read_stale;
          r.agent = a;
          r.op = op;
          r.other_agent = a;
          r.other_op = op;
          r.text = absl::StrCat(info_[a].name, " ", p_->ops[op].site, " reads ",
                                p_->objects[object].name, "@", rank, "[", e, "] = ", v,
                                ", expected ", want);
          AddRace(s, std::move(r));
          break;
        }
      }
    }
  }
  Access acc;
  acc.lo = lo;
  acc.hi = hi;
  acc.write = write;
  acc.c1 = comp1;
  acc.t1 = clk1.at(comp1);
  if (comp2 >= 0 && clk2) {
    acc.c2 = comp2;
    acc.t2 = clk2->at(comp2);
  }
  acc.tag = tag;
  acc.agent = a;
  acc.op = op;
  if (write) {
    // Accesses this write covers and follows can no longer race with anything new.
    log.erase(std::remove_if(log.begin(), log.end(),
                             [&](const Access& x) {
                               return x.lo >= lo && x.hi <= hi && ordered(x);
                             }),
              log.end());
  } else {
    // Keep one read per (agent, op, range).
    for (const Access& x : log)
      if (!x.write && x.agent == a && x.op == op && x.lo == lo && x.hi == hi &&
          x.c1 == acc.c1 && x.t1 == acc.t1)
        return;
  }
  log.push_back(acc);
}

}  // namespace warpcheck::sim::signal
