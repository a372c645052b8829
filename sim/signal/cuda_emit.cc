#include "sim/signal/cuda_emit.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "sim/expr/ast.h"
#include "sim/expr/eval.h"
#include "sim/expr/parser.h"

namespace warpcheck::sim::signal {
namespace {

using ::warpcheck::SignalOp;
using ::warpcheck::SignalProgram;
using expr::ExprKind;
using expr::ExprPtr;
using expr::Type;
using Ops = google::protobuf::RepeatedPtrField<SignalOp>;
using Names = std::vector<std::pair<std::string, Type>>;

constexpr char kPrelude[] =
#include "sim/signal/cuda_prelude.inc"
    ;

constexpr int kPad = 32;  // elements after each object copy (a 32-lane wait may run over)

std::string Lower(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

// A C string literal holding exactly `s` (for the host tables).
std::string CStr(absl::string_view s) {
  return absl::StrCat("\"", absl::CEscape(s), "\"");
}

bool IsDataKind(SignalOpKind k) {
  return k == STORE || k == LOAD || k == PUT || k == GET || k == PUTSIG || k == COPY;
}

struct Obj {
  std::string name;
  int width = 8;
  int64_t size = 1;
  int64_t init = 0;
  bool is_signal = false;
  bool is_signed = false;
  bool is_float = false;
};

struct Agent {
  std::string name;    // first launch's name; later launches insert "L<n>." before "cta"
  std::string prefix;  // "rank0." or "rank0.kernel."
  std::string suffix;  // "cta3"
  int rank = 0;
  int kernel = -1;  // -1: host stream
  int cta = 0;
  int stream = -1;
};

class Emitter {
 public:
  Emitter(const SignalProgram& p, const CudaEmitOptions& opt) : p_(p), opt_(opt) {}

  absl::StatusOr<std::string> Run();

 private:
  // ---- set-up ----
  absl::Status Prepare();
  absl::Status PrepareObjects();
  absl::Status PrepareKernels();
  absl::Status PrepareAgents();
  void NumberSites(const Ops& ops, std::map<std::string, int>& counts);
  void ClassifyObjects(const Ops& ops);
  absl::StatusOr<int64_t> EvalStatic(const std::string& where, const std::string& text,
                                     int64_t rank);
  // ---- expressions ----
  absl::StatusOr<std::string> Expr(const SignalOp& op, const std::string& text,
                                   const std::string& dflt, const Names& scope,
                                   Type want = Type::kInt);
  std::string EmitC(const expr::Expr& e);
  // ---- device code ----
  absl::Status EmitOps(const Ops& ops, Names& scope, int depth, std::string& o);
  absl::Status EmitOp(const SignalOp& op, Names& scope, int depth, std::string& o);
  // One emitter per device op kind (EmitOp dispatches); see Lowering.
  struct Lowering;
  absl::Status EmitSignalWrite(const SignalOp& op, const Lowering& lw, Names& scope, std::string& o);
  absl::Status EmitWait(const SignalOp& op, const Lowering& lw, Names& scope, std::string& o);
  absl::Status EmitAtomic(const SignalOp& op, const Lowering& lw, Names& scope, std::string& o);
  absl::Status EmitData(const SignalOp& op, const Lowering& lw, Names& scope, std::string& o);
  absl::Status EmitStore(const SignalOp& op, const Lowering& lw, int obj, Names& scope,
                         std::string& o);
  absl::Status EmitLoad(const SignalOp& op, const Lowering& lw, int obj, Names& scope,
                        std::string& o);
  absl::Status EmitCopy(const SignalOp& op, const Lowering& lw, int obj, Names& scope,
                        std::string& o);
  absl::Status EmitPutSignal(const SignalOp& op, const Lowering& lw, Names& scope,
                             std::string& o);
  absl::Status EmitFence(const SignalOp& op, const Lowering& lw, Names& scope, std::string& o);
  absl::StatusOr<int> ObjectOf(const SignalOp& op, const std::string& name);
  std::string Scope(SignalScope s, const std::string& dflt) const;
  // ---- host code ----
  absl::Status EmitHostOps(const Ops& ops, Names& scope, int depth, std::string& o);
  absl::Status EmitHostOp(const SignalOp& op, Names& scope, int depth, std::string& o);
  absl::Status EmitControl(const SignalOp& op, Names& scope, int depth, bool host,
                           std::string& o);
  // ---- the program, section by section (Run calls them in this order) ----
  void EmitHeader(std::string& o) const;
  void EmitBarrierAll(std::string& o) const;
  absl::Status EmitKernelBodies(std::string& o);
  void EmitLaunchKernels(std::string& o) const;
  void EmitHostTables(std::string& o) const;
  absl::Status EmitHostStreams(std::string& host_fns);

  std::string Site(const SignalOp& op) const { return site_name_[site_of_.at(&op)]; }
  int SiteId(const SignalOp& op) const { return site_of_.at(&op); }
  absl::Status Err(const SignalOp& op, absl::string_view what) const {
    return absl::InvalidArgumentError(absl::StrCat(Site(op), ": ", what));
  }
  std::string TierScope() const { return gpus_ ? "sys" : "gpu"; }

  const SignalProgram& p_;
  const CudaEmitOptions& opt_;
  bool gpus_ = false;
  int64_t n_ = 2, g_ = 1, e_ = 1;
  expr::Env base_env_;
  std::vector<Obj> objs_;
  int bar_obj_ = 0;
  absl::flat_hash_map<std::string, int> obj_index_;
  absl::flat_hash_map<const SignalOp*, int> site_of_;
  std::vector<std::string> site_name_;
  std::vector<std::vector<int64_t>> grid_;  // [kernel][rank]
  std::vector<int> threads_;
  int max_threads_ = 32;
  std::vector<Agent> agents_;
  std::vector<std::string> stream_names_;
  std::vector<std::string> host_vars_;  // stream FOR variables, visible in kernels
  bool explicit_streams_ = false;
  bool uses_driver_ = false;
};

// ---------------------------------------------------------------------------------------

void Emitter::NumberSites(const Ops& ops, std::map<std::string, int>& counts) {
  for (const SignalOp& op : ops) {
    std::string kind = Lower(SignalOpKind_Name(op.kind()));
    int n = ++counts[kind];
    site_of_[&op] = static_cast<int>(site_name_.size());
    site_name_.push_back(op.site().empty() ? absl::StrCat(kind, "#", n) : op.site());
    NumberSites(op.body(), counts);
    NumberSites(op.else_body(), counts);
  }
}

void Emitter::ClassifyObjects(const Ops& ops) {
  // Signal words (listed in `values`, as the simulator's words): integer objects that a
  // signal op, RESET or STREAM_WRITE touches, or a PUTSIG's signal object.
  for (const SignalOp& op : ops) {
    auto mark = [&](const std::string& name) {
      auto it = obj_index_.find(name);
      if (it != obj_index_.end() && !objs_[it->second].is_float) objs_[it->second].is_signal = true;
    };
    if (!IsDataKind(op.kind()) && !op.object().empty()) mark(op.object());
    if (op.kind() == PUTSIG) mark(op.signal_object());
    ClassifyObjects(op.body());
    ClassifyObjects(op.else_body());
  }
}

absl::StatusOr<int64_t> Emitter::EvalStatic(const std::string& where, const std::string& text,
                                            int64_t rank) {
  Names names;
  for (const auto& [name, value] : base_env_) names.push_back({name, Type::kInt});
  names.push_back({"r", Type::kInt});
  auto e = expr::ParseExpr(where, text, names);
  if (!e.ok()) return e.status();
  expr::Env env = base_env_;
  env["r"] = rank;
  return expr::Evaluate(**e, env, where);
}

absl::Status Emitter::Prepare() {
  if (opt_.tier != "cta" && opt_.tier != "gpus") {
    return absl::InvalidArgumentError(
        absl::StrCat("tier '", opt_.tier, "': expected cta or gpus"));
  }
  gpus_ = opt_.tier == "gpus";
  if (!p_.backend().empty() && p_.backend() != "nvidia") {
    return absl::InvalidArgumentError(absl::StrCat(
        "backend '", p_.backend(), "': only the NVIDIA lowering runs on the GPU"));
  }
  n_ = p_.ranks() > 0 ? p_.ranks() : 2;
  g_ = p_.ctas() > 0 ? p_.ctas() : 1;
  e_ = p_.iterations() > 0 ? p_.iterations() : 1;
  if (n_ > 64) return absl::InvalidArgumentError("more than 64 ranks");
  base_env_["N"] = n_;
  base_env_["G"] = g_;
  base_env_["E"] = e_;
  for (const SignalParam& prm : p_.params()) {
    if (base_env_.contains(prm.name()) || prm.name() == "r" || prm.name() == "c") {
      return absl::InvalidArgumentError(absl::StrCat("param '", prm.name(), "' redefines a name"));
    }
    base_env_[prm.name()] = prm.value();
  }
  // Objects, then sites (kernels then streams, pre-order), kernels and agents.
  if (absl::Status st = PrepareObjects(); !st.ok()) return st;
  std::map<std::string, int> counts;
  for (const SignalKernel& k : p_.kernels()) NumberSites(k.body(), counts);
  for (const SignalStream& s : p_.streams()) NumberSites(s.body(), counts);
  for (const SignalKernel& k : p_.kernels()) ClassifyObjects(k.body());
  for (const SignalStream& s : p_.streams()) ClassifyObjects(s.body());
  if (absl::Status st = PrepareKernels(); !st.ok()) return st;
  return PrepareAgents();
}

// The program's objects, then the hidden barrier object.
absl::Status Emitter::PrepareObjects() {
  for (const SymObject& so : p_.objects()) {
    if (so.name().empty() || obj_index_.contains(so.name())) {
      return absl::InvalidArgumentError(absl::StrCat("object '", so.name(), "': empty or duplicate name"));
    }
    Obj o;
    o.name = so.name();
    o.width = (so.dtype() == U64 || so.dtype() == I64) ? 8 : 4;
    o.is_signed = so.dtype() == I32 || so.dtype() == I64;
    o.is_float = so.dtype() == F16 || so.dtype() == BF16 || so.dtype() == F32;
    auto size = EvalStatic(absl::StrCat("object ", so.name(), " size"),
                           so.size().empty() ? "1" : so.size(), 0);
    if (!size.ok()) return size.status();
    if (*size < 0 || *size > (int64_t{1} << 24)) {
      return absl::InvalidArgumentError(absl::StrCat("object ", so.name(), ": size ", *size, " out of range"));
    }
    o.size = *size;
    o.init = so.init();
    obj_index_[o.name] = static_cast<int>(objs_.size());
    objs_.push_back(o);
  }
  bar_obj_ = static_cast<int>(objs_.size());
  Obj bar;
  bar.name = "__BARRIER";
  bar.width = 8;
  bar.size = 2 * n_;
  bar.is_signal = false;  // hidden: never listed in values
  objs_.push_back(bar);
  return absl::OkStatus();
}

// Per kernel: its threads and its grid on every rank.
absl::Status Emitter::PrepareKernels() {
  if (p_.kernels().empty()) return absl::InvalidArgumentError("program has no kernels");
  std::set<std::string> kernel_names;
  for (const SignalKernel& k : p_.kernels()) {
    if (!kernel_names.insert(k.name()).second) {
      return absl::InvalidArgumentError(absl::StrCat("kernel '", k.name(), "': duplicate name"));
    }
    int threads = k.threads() > 0 ? k.threads() : 128;
    if (threads > 1024) return absl::InvalidArgumentError(absl::StrCat("kernel ", k.name(), ": more than 1024 threads"));
    threads_.push_back(threads);
    max_threads_ = std::max(max_threads_, (threads + 31) / 32 * 32);
    std::vector<int64_t> grids;
    for (int64_t r = 0; r < n_; ++r) {
      auto grid = EvalStatic(absl::StrCat("kernel ", k.name(), " grid"),
                             k.grid().empty() ? "G" : k.grid(), r);
      if (!grid.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(
            grid.status().message(), " (the GPU emitter evaluates grids over r, N, G, E and params only)"));
      }
      if (*grid < 0 || *grid > 4096) {
        return absl::InvalidArgumentError(absl::StrCat("kernel ", k.name(), ": grid ", *grid, " on rank ", r, " out of range"));
      }
      if (k.cooperative() && p_.cta_slots() > 0 && *grid > p_.cta_slots()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "kernel ", k.name(), ": cooperative launch of ", *grid, " CTAs does not fit ",
            p_.cta_slots(), " slots (a static error; nothing to run)"));
      }
      grids.push_back(*grid);
    }
    grid_.push_back(grids);
  }
  return absl::OkStatus();
}

// Agents: CTAs (rank, kernel, cta), then host streams (rank, stream).
absl::Status Emitter::PrepareAgents() {
  bool several = p_.kernels_size() > 1;
  for (int64_t r = 0; r < n_; ++r) {
    for (int k = 0; k < p_.kernels_size(); ++k) {
      for (int64_t c = 0; c < grid_[k][r]; ++c) {
        Agent a;
        a.rank = static_cast<int>(r);
        a.kernel = k;
        a.cta = static_cast<int>(c);
        a.prefix = several ? absl::StrCat("rank", r, ".", p_.kernels(k).name(), ".")
                           : absl::StrCat("rank", r, ".");
        a.suffix = absl::StrCat("cta", c);
        a.name = a.prefix + a.suffix;
        agents_.push_back(a);
      }
    }
  }
  explicit_streams_ = p_.streams_size() > 0;
  for (int s = 0; s < p_.streams_size(); ++s) {
    stream_names_.push_back(p_.streams(s).name().empty() ? absl::StrCat("stream", s)
                                                          : p_.streams(s).name());
  }
  if (explicit_streams_) {
    for (int64_t r = 0; r < n_; ++r) {
      for (int s = 0; s < p_.streams_size(); ++s) {
        Agent a;
        a.rank = static_cast<int>(r);
        a.stream = s;
        a.name = absl::StrCat("rank", r, ".", stream_names_[s]);
        a.prefix = a.name;
        agents_.push_back(a);
      }
    }
  }
  if (agents_.size() > 100000) return absl::InvalidArgumentError("too many agents");
  return absl::OkStatus();
}

// ---- expressions ----------------------------------------------------------------------

std::string Emitter::EmitC(const expr::Expr& e) {
  auto op = [&](int i) { return EmitC(e.operand(i)); };
  switch (e.kind()) {
    case ExprKind::kIntConst:
      return absl::StrCat("(", e.int_value(), "LL)");
    case ExprKind::kBoolConst:
      return e.bool_value() ? "true" : "false";
    case ExprKind::kVar:
      return absl::StrCat("v_", e.name());
    case ExprKind::kNeg:
      return absl::StrCat("(-", op(0), ")");
    case ExprKind::kNot:
      return absl::StrCat("(!", op(0), ")");
    case ExprKind::kAdd:
      return absl::StrCat("(", op(0), " + ", op(1), ")");
    case ExprKind::kSub:
      return absl::StrCat("(", op(0), " - ", op(1), ")");
    case ExprKind::kMul:
      return absl::StrCat("(", op(0), " * ", op(1), ")");
    case ExprKind::kFloorDiv:
      return absl::StrCat("wc_fdiv(", op(0), ", ", op(1), ")");
    case ExprKind::kMod:
      return absl::StrCat("wc_mod(", op(0), ", ", op(1), ")");
    case ExprKind::kMin:
      return absl::StrCat("wc_min(", op(0), ", ", op(1), ")");
    case ExprKind::kMax:
      return absl::StrCat("wc_max(", op(0), ", ", op(1), ")");
    case ExprKind::kCdiv:
      return absl::StrCat("wc_cdiv(", op(0), ", ", op(1), ")");
    case ExprKind::kEq:
      return absl::StrCat("(", op(0), " == ", op(1), ")");
    case ExprKind::kNe:
      return absl::StrCat("(", op(0), " != ", op(1), ")");
    case ExprKind::kLt:
      return absl::StrCat("(", op(0), " < ", op(1), ")");
    case ExprKind::kLe:
      return absl::StrCat("(", op(0), " <= ", op(1), ")");
    case ExprKind::kGt:
      return absl::StrCat("(", op(0), " > ", op(1), ")");
    case ExprKind::kGe:
      return absl::StrCat("(", op(0), " >= ", op(1), ")");
    case ExprKind::kAnd:
      return absl::StrCat("(", op(0), " && ", op(1), ")");
    case ExprKind::kOr:
      return absl::StrCat("(", op(0), " || ", op(1), ")");
    case ExprKind::kSelect:
      return absl::StrCat("(", op(0), " ? ", op(1), " : ", op(2), ")");
  }
  return "0";
}

absl::StatusOr<std::string> Emitter::Expr(const SignalOp& op, const std::string& text,
                                          const std::string& dflt, const Names& scope,
                                          Type want) {
  const std::string& src = text.empty() ? dflt : text;
  auto e = expr::ParseExpr(Site(op), src, scope);
  if (!e.ok()) return e.status();
  if ((*e)->type() != want) {
    return Err(op, absl::StrCat("expression '", src, "' is not of type ", expr::TypeName(want)));
  }
  return EmitC(**e);
}

absl::StatusOr<int> Emitter::ObjectOf(const SignalOp& op, const std::string& name) {
  auto it = obj_index_.find(name);
  if (it == obj_index_.end()) return Err(op, absl::StrCat("unknown object '", name, "'"));
  return it->second;
}

std::string Emitter::Scope(SignalScope s, const std::string& dflt) const {
  switch (s) {
    case CTA:
      return "cta";
    case GPU:
      return "gpu";
    case SYS:
    case INTRA_NODE:
    case INTER_NODE:
      return TierScope();
    default:
      return dflt;
  }
}

// ---- device ops -----------------------------------------------------------------------

absl::Status Emitter::EmitOps(const Ops& ops, Names& scope, int depth, std::string& o) {
  for (const SignalOp& op : ops) {
    if (absl::Status st = EmitOp(op, scope, depth, o); !st.ok()) return st;
  }
  return absl::OkStatus();
}

#define WC_ASSIGN(lhs, expr)       \
  auto lhs##_or = (expr);          \
  if (!lhs##_or.ok()) return lhs##_or.status(); \
  const std::string lhs = *lhs##_or

// How EmitOp lowers one device op for the threads that perform it (worked out once per
// op; every per-kind emitter below reads it).
struct Emitter::Lowering {
  int site = 0;                // the op's site id (jitter, progress records)
  SignalBy by = ALL_THREADS;   // who performs it, the default resolved
  std::string by_cond;         // C condition: this thread performs it
  std::string first, stride;   // this thread's first element of a range, and the step
  std::string in2;             // indentation inside the op's block
};

// NOTIFY, SIGNAL_OP, ST_SIGNAL: a (fenced) store or add to one signal word.
absl::Status Emitter::EmitSignalWrite(const SignalOp& op, const Lowering& lw,
                                      Names& scope, std::string& o) {
  auto obj_or = ObjectOf(op, op.object());
  if (!obj_or.ok()) return obj_or.status();
  int obj = *obj_or;
  const Obj& ob = objs_[obj];
  WC_ASSIGN(idx, Expr(op, op.index(), "0", scope));
  WC_ASSIGN(val, Expr(op, op.value(), "1", scope));
  std::string rank_text = op.rank();
  std::string fence, st_scope, st_sem = "relaxed";
  bool add = op.sig_op() == ADD;
  if (op.kind() == NOTIFY) {
    SignalScope sc = op.scope() == SCOPE_UNSPECIFIED ? INTER_NODE : op.scope();  // front-end default
    if (sc == GPU || sc == CTA) {
      rank_text = "r";  // comm_scope=gpu ignores the rank operand
      fence = "membar.gl;";
      st_scope = "gpu";
    } else if (sc == INTRA_NODE || sc == SYS) {
      fence = gpus_ ? "membar.sys;" : "membar.gl;";
      st_scope = TierScope();
    } else {  // inter_node: nvshmemx_signal_op, no fence
      st_scope = TierScope();
    }
  } else if (op.kind() == SIGNAL_OP) {
    st_scope = TierScope();
  } else {  // ST_SIGNAL
    add = false;
    st_scope = Scope(op.scope(), TierScope());
    if (op.sem() == WEAK) st_sem = "";
    else if (op.sem() == RELEASE) st_sem = "release";
    else if (op.sem() == ACQUIRE || op.sem() == ACQ_REL) return Err(op, "st has no acquire/acq_rel form (ptxas rejects it)");
  }
  WC_ASSIGN(rank, Expr(op, rank_text, "r", scope));
  const char* b = ob.width == 8 ? "b64" : "b32";
  const char* u = ob.width == 8 ? "u64" : "u32";
  const char* cons = ob.width == 8 ? "l" : "r";
  const char* ct = ob.width == 8 ? "unsigned long long" : "unsigned";
  std::string st_q = st_sem.empty() ? "st.global" : absl::StrCat("st.", st_sem, ".", st_scope, ".global");
  absl::StrAppend(&o, lw.in2, "if (", lw.by_cond, ") {\n");
  absl::StrAppend(&o, lw.in2, "  wc_jitter(x, ", lw.site, ");\n");
  absl::StrAppend(&o, lw.in2, "  long long rk = ", rank, ";\n");
  absl::StrAppend(&o, lw.in2, "  char* a = wc_addr(x, ", obj, ", rk, ", idx, ", ", ob.size, "LL, ", ob.width, ");\n");
  absl::StrAppend(&o, lw.in2, "  ", ct, " v = (", ct, ")(", val, ");\n");
  absl::StrAppend(&o, lw.in2, "  if (a) {\n");
  if (!fence.empty()) absl::StrAppend(&o, lw.in2, "    asm volatile(\"", fence, "\" ::: \"memory\");\n");
  if (add) {
    std::string atom = absl::StrCat("atom.relaxed.", st_scope, ".global.add.", u, " %0, [%1], %2;");
    if (p_.no_native_p2p_atomics()) {
      // A remote add without native P2P atomics is a read, then a write (B16).
      absl::StrAppend(&o, lw.in2, "    if (rk != v_r) { ", ct, " old; asm volatile(\"ld.relaxed.", st_scope, ".global.", b,
                      " %0, [%1];\" : \"=", cons, "\"(old) : \"l\"(a) : \"memory\"); old += v; asm volatile(\"st.relaxed.", st_scope,
                      ".global.", b, " [%0], %1;\" :: \"l\"(a), \"", cons, "\"(old) : \"memory\"); } else\n");
    }
    absl::StrAppend(&o, lw.in2, "    { ", ct, " old; asm volatile(\"", atom, "\" : \"=", cons, "\"(old) : \"l\"(a), \"", cons, "\"(v) : \"memory\"); (void)old; }\n");
  } else {
    absl::StrAppend(&o, lw.in2, "    asm volatile(\"", st_q, ".", b, " [%0], %1;\" :: \"l\"(a), \"", cons, "\"(v) : \"memory\");\n");
  }
  absl::StrAppend(&o, lw.in2, "  }\n", lw.in2, "}\n");
  return absl::OkStatus();
}

// WAIT (dl.wait) and WAIT_UNTIL (signal_wait_until): the poll loop with the watchdog.
absl::Status Emitter::EmitWait(const SignalOp& op, const Lowering& lw,
                               Names& scope, std::string& o) {
  auto obj_or = ObjectOf(op, op.object());
  if (!obj_or.ok()) return obj_or.status();
  int obj = *obj_or;
  const Obj& ob = objs_[obj];
  bool wait = op.kind() == WAIT;
  if (wait && op.by() != BY_DEFAULT && op.by() != ALL_THREADS) {
    return Err(op, "WAIT from divergent per-thread code: the full-mask bar.warp.sync is undefined (C16); not emitted");
  }
  WC_ASSIGN(rank, Expr(op, op.rank(), "r", scope));
  WC_ASSIGN(idx, Expr(op, op.index(), "0", scope));
  WC_ASSIGN(cnt, Expr(op, op.count(), "1", scope));
  WC_ASSIGN(val, Expr(op, op.value(), "1", scope));
  Names lscope = scope;
  lscope.push_back({"l", Type::kInt});
  WC_ASSIGN(lane_if, Expr(op, op.lane_if(), "true", lscope, Type::kBool));
  // Defaults as in the simulator: dl.wait gpu/acquire, signal_wait_until sys/acquire.
  std::string sc = Scope(op.scope(), wait ? "gpu" : TierScope());
  std::string ld;
  SignalSem sem = op.sem() == SEM_UNSPECIFIED ? ACQUIRE : op.sem();
  if (sem == RELEASE || sem == ACQ_REL) {
    return Err(op, "a wait with sem release/acq_rel lowers to invalid PTX (ld has no such form; ptxas rejects it)");
  }
  if (sem == WEAK) ld = wait ? "ld.global" : "ld.volatile.global";
  else ld = absl::StrCat("ld.", sem == RELAXED ? "relaxed" : "acquire", ".", sc, ".global");
  const char* b = ob.width == 8 ? "b64" : "b32";
  const char* cons = ob.width == 8 ? "l" : "r";
  const char* ct = ob.width == 8 ? "unsigned long long" : "unsigned";
  std::string cmp = "eq";
  if (!wait) {
    switch (op.cmp()) {
      case NE: cmp = "ne"; break;
      case GT: cmp = "gt"; break;
      case GE: cmp = "ge"; break;
      case LT: cmp = "lt"; break;
      case LE: cmp = "le"; break;
      default: cmp = "eq"; break;
    }
  }
  std::string ty = absl::StrCat(ob.is_signed ? "s" : "u", ob.width * 8);
  std::string asm_text = absl::StrCat("{\\n\\t.reg .pred p;\\n\\t", ld, ".", b, " %0, [%2];\\n\\tsetp.", cmp, ".", ty,
                                      " p, %0, %3;\\n\\tselp.u32 %1, 1, 0, p;\\n\\t}");
  absl::StrAppend(&o, lw.in2, "long long rk = ", rank, ", base = ", idx, ";\n");
  absl::StrAppend(&o, lw.in2, ct, " v = (", ct, ")(", val, ");\n");
  if (wait) {
    // dl.wait (NVIDIA): every thread; lane l < (unsigned)count polls base + l; then
    // bar.warp.sync. At most 32 words are ever read.
    absl::StrAppend(&o, lw.in2, "unsigned cnt = (unsigned)(", cnt, ");\n");
    absl::StrAppend(&o, lw.in2, "const long long v_l = (long long)(threadIdx.x & 31);\n");
    absl::StrAppend(&o, lw.in2, "bool polls = (threadIdx.x & 31) < cnt && ", lane_if, ";\n");
    absl::StrAppend(&o, lw.in2, "wc_jitter(x, ", lw.site, ");\n");
  } else {
    // signal_wait_until: per calling thread; a range: thread l polls base + l.
    absl::StrAppend(&o, lw.in2, "long long cnt = ", cnt, ";\n");
    absl::StrAppend(&o, lw.in2, "const long long v_l = cnt == 1 ? 0 : ", lw.first, ";\n");
    absl::StrAppend(&o, lw.in2, "bool polls = (", lw.by_cond, ") && v_l >= 0 && v_l < cnt && ", lane_if, ";\n");
    absl::StrAppend(&o, lw.in2, "const unsigned m = __ballot_sync(0xffffffffu, ", lw.by_cond, ");\n");
    absl::StrAppend(&o, lw.in2, "if (", lw.by_cond, ") {\n");
    absl::StrAppend(&o, lw.in2, "wc_jitter(x, ", lw.site, ");\n");
  }
  absl::StrAppend(&o, lw.in2, "wc_wait_begin(x, ", wait ? "0xffffffffu" : "m", ", ", lw.site, ", (long long)v, ", obj, ", rk, base);\n");
  absl::StrAppend(&o, lw.in2, "if (polls && !x.aborted) {\n");
  absl::StrAppend(&o, lw.in2, "  char* a = wc_addr(x, ", obj, ", rk, base + v_l, ", ob.size, "LL, ", ob.width, ");\n");
  absl::StrAppend(&o, lw.in2, "  unsigned it = 0;\n");
  absl::StrAppend(&o, lw.in2, "  while (a) {\n");
  absl::StrAppend(&o, lw.in2, "    ", ct, " seen; unsigned ok;\n");
  absl::StrAppend(&o, lw.in2, "    asm volatile(\"", asm_text, "\" : \"=", cons, "\"(seen), \"=r\"(ok) : \"l\"(a), \"", cons, "\"(v) : \"memory\");\n");
  absl::StrAppend(&o, lw.in2, "    if (ok) break;\n");
  absl::StrAppend(&o, lw.in2, "    if (wc_poll(x, it, (long long)seen, base + v_l)) break;\n");
  absl::StrAppend(&o, lw.in2, "  }\n", lw.in2, "}\n");
  if (wait) {
    absl::StrAppend(&o, lw.in2, "asm volatile(\"bar.warp.sync 0xffffffff;\" ::: \"memory\");\n");
    absl::StrAppend(&o, lw.in2, "wc_wait_end(x, 0xffffffffu);\n");
  } else {
    absl::StrAppend(&o, lw.in2, "wc_wait_end(x, m);\n", lw.in2, "}\n");
  }
  return absl::OkStatus();
}

// ATOMIC_ADD, ATOMIC_CAS (optionally spinning); a `result` becomes a variable in scope.
absl::Status Emitter::EmitAtomic(const SignalOp& op, const Lowering& lw,
                                 Names& scope, std::string& o) {
  auto obj_or = ObjectOf(op, op.object());
  if (!obj_or.ok()) return obj_or.status();
  int obj = *obj_or;
  const Obj& ob = objs_[obj];
  WC_ASSIGN(rank, Expr(op, op.rank(), "r", scope));
  WC_ASSIGN(idx, Expr(op, op.index(), "0", scope));
  WC_ASSIGN(val, Expr(op, op.value(), "1", scope));
  std::string cmpv = "0";
  if (op.kind() == ATOMIC_CAS) {
    WC_ASSIGN(c2, Expr(op, op.compare(), "0", scope));
    cmpv = c2;
  }
  std::string sc = Scope(op.scope(), "gpu");
  std::string sem = op.sem() == ACQUIRE ? "acquire" : op.sem() == RELEASE ? "release"
                    : op.sem() == ACQ_REL ? "acq_rel" : "relaxed";
  const char* cons = ob.width == 8 ? "l" : "r";
  const char* ct = ob.width == 8 ? "unsigned long long" : "unsigned";
  std::string atom = op.kind() == ATOMIC_ADD
      ? absl::StrCat("atom.", sem, ".", sc, ".global.add.", ob.width == 8 ? "u64" : "u32", " %0, [%1], %2;")
      : absl::StrCat("atom.", sem, ".", sc, ".global.cas.", ob.width == 8 ? "b64" : "b32", " %0, [%1], %3, %2;");
  absl::StrAppend(&o, lw.in2, ct, " old = 0;\n");
  absl::StrAppend(&o, lw.in2, "if (", lw.by_cond, ") {\n");
  absl::StrAppend(&o, lw.in2, "  wc_jitter(x, ", lw.site, ");\n");
  absl::StrAppend(&o, lw.in2, "  long long rk = ", rank, ", ix = ", idx, ";\n");
  absl::StrAppend(&o, lw.in2, "  char* a = wc_addr(x, ", obj, ", rk, ix, ", ob.size, "LL, ", ob.width, ");\n");
  absl::StrAppend(&o, lw.in2, "  ", ct, " v = (", ct, ")(", val, "), cmp = (", ct, ")(", cmpv, ");\n");
  absl::StrAppend(&o, lw.in2, "  (void)cmp;\n");
  if (op.kind() == ATOMIC_CAS && op.spin()) {
    absl::StrAppend(&o, lw.in2, "  unsigned m = wc_wait_begin(x, __activemask(), ", lw.site, ", (long long)cmp, ", obj, ", rk, ix);\n");
    absl::StrAppend(&o, lw.in2, "  unsigned it = 0;\n");
    absl::StrAppend(&o, lw.in2, "  while (a && !x.aborted) {\n");
    absl::StrAppend(&o, lw.in2, "    asm volatile(\"", atom, "\" : \"=", cons, "\"(old) : \"l\"(a), \"", cons, "\"(v), \"", cons, "\"(cmp) : \"memory\");\n");
    absl::StrAppend(&o, lw.in2, "    if (old == cmp) break;\n");
    absl::StrAppend(&o, lw.in2, "    if (wc_poll(x, it, (long long)old, ix)) break;\n");
    absl::StrAppend(&o, lw.in2, "  }\n");
    absl::StrAppend(&o, lw.in2, "  wc_wait_end(x, m);\n");
  } else {
    absl::StrAppend(&o, lw.in2, "  if (a) asm volatile(\"", atom, "\" : \"=", cons, "\"(old) : \"l\"(a), \"", cons, "\"(v), \"", cons, "\"(cmp) : \"memory\");\n");
  }
  if (!op.result().empty() && lw.by == THREAD0) absl::StrAppend(&o, lw.in2, "  *x.bcast = (unsigned long long)old;\n");
  absl::StrAppend(&o, lw.in2, "}\n");
  if (!op.result().empty()) {
    if (lw.by == THREAD0) {
      // Thread 0's result, made known to the whole CTA (the simulator's CTA agent has it).
      absl::StrAppend(&o, lw.in2, "__syncthreads();\n");
      absl::StrAppend(&o, lw.in2, "v_", op.result(), " = (long long)*x.bcast;\n");
      absl::StrAppend(&o, lw.in2, "__syncthreads();\n");
    } else {
      absl::StrAppend(&o, lw.in2, "v_", op.result(), " = (long long)old;\n");
    }
    bool known = false;
    for (const auto& [name, t] : scope) known |= name == op.result();
    if (!known) scope.push_back({op.result(), Type::kInt});
  }
  return absl::OkStatus();
}

// STORE, LOAD, PUT, GET, PUTSIG: the element range this thread covers, then the kind's
// loop.
absl::Status Emitter::EmitData(const SignalOp& op, const Lowering& lw, Names& scope,
                               std::string& o) {
  auto obj_or = ObjectOf(op, op.object());
  if (!obj_or.ok()) return obj_or.status();
  int obj = *obj_or;
  WC_ASSIGN(rank, Expr(op, op.rank(), "r", scope));
  WC_ASSIGN(idx, Expr(op, op.index(), "0", scope));
  WC_ASSIGN(cnt, Expr(op, op.count(), "1", scope));
  absl::StrAppend(&o, lw.in2, "long long rk = ", rank, ", ix = ", idx, ", cnt = ", cnt, ";\n");
  absl::StrAppend(&o, lw.in2, "(void)rk;\n");
  if (op.kind() == STORE) return EmitStore(op, lw, obj, scope, o);
  if (op.kind() == LOAD) return EmitLoad(op, lw, obj, scope, o);
  if (absl::Status st = EmitCopy(op, lw, obj, scope, o); !st.ok()) return st;
  if (op.kind() == PUTSIG) return EmitPutSignal(op, lw, scope, o);
  return absl::OkStatus();
}

// STORE: each element of the range gets the tag.
absl::Status Emitter::EmitStore(const SignalOp& op, const Lowering& lw, int obj, Names& scope,
                                std::string& o) {
  const Obj& ob = objs_[obj];
  WC_ASSIGN(tag, Expr(op, op.tag(), "1", scope));
  absl::StrAppend(&o, lw.in2, "long long tag = ", tag, ";\n");
  absl::StrAppend(&o, lw.in2, "if (", lw.by_cond, ") for (long long i = ", lw.first, "; i < cnt; i += ", lw.stride, ") {\n");
  absl::StrAppend(&o, lw.in2, "  char* a = wc_addr(x, ", obj, ", rk, ix + i, ", ob.size, "LL, ", ob.width, ");\n");
  absl::StrAppend(&o, lw.in2, "  if (a) wc_st_data(a, ", ob.width, ", tag);\n", lw.in2, "}\n");
  return absl::OkStatus();
}

// LOAD: reads the range; with `expect`/`tag`, a mismatch is counted.
absl::Status Emitter::EmitLoad(const SignalOp& op, const Lowering& lw, int obj, Names& scope,
                               std::string& o) {
  const Obj& ob = objs_[obj];
  std::string expect_text = !op.expect().empty() ? op.expect() : op.tag();
  std::string expect = "0";
  if (!expect_text.empty()) {
    WC_ASSIGN(ex, Expr(op, expect_text, "0", scope));
    expect = ex;
  }
  absl::StrAppend(&o, lw.in2, "long long want = ", expect, "; (void)want;\n");
  absl::StrAppend(&o, lw.in2, "if (", lw.by_cond, ") for (long long i = ", lw.first, "; i < cnt; i += ", lw.stride, ") {\n");
  absl::StrAppend(&o, lw.in2, "  char* a = wc_addr(x, ", obj, ", rk, ix + i, ", ob.size, "LL, ", ob.width, ");\n");
  absl::StrAppend(&o, lw.in2, "  if (!a) continue;\n");
  absl::StrAppend(&o, lw.in2, "  long long got = wc_ld_data(a, ", ob.width, ");\n");
  if (!expect_text.empty()) {
    absl::StrAppend(&o, lw.in2, "  if (got != want && !x.aborted && !wc_abort_raised()) atomicAdd(&g_aux[x.r]->mismatch, 1ull);\n");
  } else {
    absl::StrAppend(&o, lw.in2, "  (void)got;\n");
  }
  absl::StrAppend(&o, lw.in2, "}\n");
  return absl::OkStatus();
}

// PUT, GET and the PUT of a PUTSIG: element-wise peer copies by the CTA.
absl::Status Emitter::EmitCopy(const SignalOp& op, const Lowering& lw, int obj, Names& scope,
                               std::string& o) {
  const Obj& ob = objs_[obj];
  // PUT: object@r[src..] -> object@rank[ix..]; GET: object@rank[src..] -> object@r[ix..];
  // PUTSIG: a PUT, then (after the CTA's copies) fence + signal. Direct peer
  // copies by the CTA (symm_at), complete when the op returns.
  WC_ASSIGN(src_idx, Expr(op, op.src_index(), op.index().empty() ? "0" : op.index(), scope));
  bool get = op.kind() == GET;
  std::string tag = "";
  if (!op.tag().empty() && !get) {
    WC_ASSIGN(t2, Expr(op, op.tag(), "0", scope));
    tag = t2;
  }
  absl::StrAppend(&o, lw.in2, "long long sx = ", src_idx, ";\n");
  absl::StrAppend(&o, lw.in2, "long long from_rank = ", get ? "rk" : "v_r", ", to_rank = ", get ? "v_r" : "rk", ";\n");
  absl::StrAppend(&o, lw.in2, "if (", lw.by_cond, ") for (long long i = ", lw.first, "; i < cnt; i += ", lw.stride, ") {\n");
  absl::StrAppend(&o, lw.in2, "  char* d = wc_addr(x, ", obj, ", to_rank, ix + i, ", ob.size, "LL, ", ob.width, ");\n");
  if (tag.empty()) {
    absl::StrAppend(&o, lw.in2, "  char* s = wc_addr(x, ", obj, ", from_rank, sx + i, ", ob.size, "LL, ", ob.width, ");\n");
    absl::StrAppend(&o, lw.in2, "  if (d && s) wc_st_data(d, ", ob.width, ", wc_ld_data(s, ", ob.width, "));\n");
  } else {
    absl::StrAppend(&o, lw.in2, "  if (d) wc_st_data(d, ", ob.width, ", ", tag, ");\n");
  }
  absl::StrAppend(&o, lw.in2, "}\n");
  return absl::OkStatus();
}

// PUTSIG, after its copies: fence, then the signal to the destination rank.
absl::Status Emitter::EmitPutSignal(const SignalOp& op, const Lowering& lw,
                                    Names& scope, std::string& o) {
  auto sobj_or = ObjectOf(op, op.signal_object());
  if (!sobj_or.ok()) return sobj_or.status();
  int sobj = *sobj_or;
  const Obj& so = objs_[sobj];
  WC_ASSIGN(sidx, Expr(op, op.signal_index(), "0", scope));
  WC_ASSIGN(sval, Expr(op, op.signal_value(), "1", scope));
  const char* cons = so.width == 8 ? "l" : "r";
  const char* ct = so.width == 8 ? "unsigned long long" : "unsigned";
  std::string fscope = TierScope();
  absl::StrAppend(&o, lw.in2, "__syncthreads();\n");
  absl::StrAppend(&o, lw.in2, "if (threadIdx.x == 0) {\n");
  absl::StrAppend(&o, lw.in2, "  wc_jitter(x, ", lw.site, ");\n");
  absl::StrAppend(&o, lw.in2, "  char* a = wc_addr(x, ", sobj, ", rk, ", sidx, ", ", so.size, "LL, ", so.width, ");\n");
  absl::StrAppend(&o, lw.in2, "  ", ct, " v = (", ct, ")(", sval, ");\n");
  absl::StrAppend(&o, lw.in2, "  asm volatile(\"fence.sc.", fscope, ";\" ::: \"memory\");\n");
  if (op.signal_op() == ADD) {
    absl::StrAppend(&o, lw.in2, "  if (a) { ", ct, " old; asm volatile(\"atom.relaxed.", fscope, ".global.add.", so.width == 8 ? "u64" : "u32",
                    " %0, [%1], %2;\" : \"=", cons, "\"(old) : \"l\"(a), \"", cons, "\"(v) : \"memory\"); (void)old; }\n");
  } else {
    absl::StrAppend(&o, lw.in2, "  if (a) asm volatile(\"st.relaxed.", fscope, ".global.", so.width == 8 ? "b64" : "b32",
                    " [%0], %1;\" :: \"l\"(a), \"", cons, "\"(v) : \"memory\");\n");
  }
  absl::StrAppend(&o, lw.in2, "}\n");
  return absl::OkStatus();
}

// FENCE, NVSHMEM_FENCE, QUIET.
absl::Status Emitter::EmitFence(const SignalOp& op, const Lowering& lw,
                                Names& scope, std::string& o) {
  std::string sc = op.kind() == FENCE ? Scope(op.scope(), TierScope()) : TierScope();
  std::string kindq = op.kind() == FENCE && (op.sem() == ACQ_REL || op.sem() == ACQUIRE || op.sem() == RELEASE) ? "acq_rel" : "sc";
  absl::StrAppend(&o, lw.in2, "if (", lw.by_cond, ") asm volatile(\"fence.", kindq, ".", sc, ";\" ::: \"memory\");\n");
  return absl::OkStatus();
}

absl::Status Emitter::EmitOp(const SignalOp& op, Names& scope, int depth, std::string& o) {
  const std::string ind(2 * depth + 2, ' ');
  const std::string sname = Site(op);
  Lowering lw;
  lw.site = SiteId(op);
  // Who performs the op: default thread 0 for NOTIFY/SIGNAL_OP/ATOMIC_*, else all threads.
  bool t0_default = op.kind() == NOTIFY || op.kind() == SIGNAL_OP || op.kind() == ATOMIC_ADD ||
                    op.kind() == ATOMIC_CAS;
  lw.by = op.by() == BY_DEFAULT ? (t0_default ? THREAD0 : ALL_THREADS) : op.by();
  lw.by_cond = lw.by == THREAD0         ? "threadIdx.x == 0"
               : lw.by == OTHER_THREADS ? "threadIdx.x != 0 && (int)threadIdx.x < x.nthreads"
                                     : "(int)threadIdx.x < x.nthreads";
  lw.first = lw.by == THREAD0 ? "0" : lw.by == OTHER_THREADS ? "(long long)threadIdx.x - 1" : "(long long)threadIdx.x";
  lw.stride = lw.by == THREAD0 ? "1" : lw.by == OTHER_THREADS ? "(long long)(x.nthreads - 1)" : "(long long)x.nthreads";
  absl::StrAppend(&o, ind, "{  // ", sname, "\n");
  lw.in2 = ind + "  ";
  const std::string& in2 = lw.in2;
  absl::Status st = absl::OkStatus();
  switch (op.kind()) {
    case NOTIFY:
    case SIGNAL_OP:
    case ST_SIGNAL:
      st = EmitSignalWrite(op, lw, scope, o);
      break;
    case WAIT:
    case WAIT_UNTIL:
      st = EmitWait(op, lw, scope, o);
      break;
    case ATOMIC_ADD:
    case ATOMIC_CAS:
      st = EmitAtomic(op, lw, scope, o);
      break;
    case STORE:
    case LOAD:
    case PUT:
    case GET:
    case PUTSIG:
      st = EmitData(op, lw, scope, o);
      break;
    case FENCE:
    case NVSHMEM_FENCE:
    case QUIET:
      st = EmitFence(op, lw, scope, o);
      break;
    case SYNCTHREADS:
      absl::StrAppend(&o, in2, "__syncthreads();\n");
      break;
    case GRID_BARRIER:
      absl::StrAppend(&o, in2, "__syncthreads();\n");
      absl::StrAppend(&o, in2, "if (threadIdx.x == 0) wc_grid_barrier(x, ", lw.site, ");\n");
      absl::StrAppend(&o, in2, "__syncthreads();\n");
      break;
    case BARRIER_ALL:
      absl::StrAppend(&o, in2, "__syncthreads();\n");
      absl::StrAppend(&o, in2, "if (threadIdx.x == 0) wc_barrier_all(x, ", lw.site, ");\n");
      absl::StrAppend(&o, in2, "__syncthreads();\n");
      break;
    case EXIT:
      absl::StrAppend(&o, in2, "return;\n");
      break;
    case FOR:
    case IF:
      st = EmitControl(op, scope, depth, /*host=*/false, o);
      break;
    default:
      return Err(op, absl::StrCat(SignalOpKind_Name(op.kind()), " is not a device op (in a kernel)"));
  }
  if (!st.ok()) return st;
  absl::StrAppend(&o, ind, "}\n");
  return absl::OkStatus();
}

// ---- host stream ops ------------------------------------------------------------------

absl::Status Emitter::EmitHostOps(const Ops& ops, Names& scope, int depth, std::string& o) {
  for (const SignalOp& op : ops) {
    if (absl::Status st = EmitHostOp(op, scope, depth, o); !st.ok()) return st;
  }
  return absl::OkStatus();
}

absl::Status Emitter::EmitHostOp(const SignalOp& op, Names& scope, int depth, std::string& o) {
  const std::string ind(2 * depth + 2, ' ');
  const int site = SiteId(op);
  absl::StrAppend(&o, ind, "{  // ", Site(op), "\n");
  const std::string in2 = ind + "  ";
  switch (op.kind()) {
    case LAUNCH: {
      int k = -1;
      for (int i = 0; i < p_.kernels_size(); ++i) {
        if (p_.kernels(i).name() == op.kernel()) k = i;
      }
      if (k < 0) return Err(op, absl::StrCat("LAUNCH of unknown kernel '", op.kernel(), "'"));
      absl::StrAppend(&o, in2, "WcHostVars hv; std::memset(&hv, 0, sizeof hv);\n");
      for (size_t h = 0; h < host_vars_.size(); ++h) {
        for (const auto& [name, t] : scope) {
          if (name == host_vars_[h]) {
            absl::StrAppend(&o, in2, "hv.v[", h, "] = v_", name, ";\n");
            break;
          }
        }
      }
      absl::StrAppend(&o, in2, "wc_host_launch(S, ", k, ", (int)v_r, hv);\n");
      absl::StrAppend(&o, in2, "wc_mark(S, ", site, ", 1);\n");
      break;
    }
    case RESET: {
      auto it = obj_index_.find(op.object());
      if (it == obj_index_.end()) return Err(op, absl::StrCat("unknown object '", op.object(), "'"));
      const Obj& ob = objs_[it->second];
      WC_ASSIGN(rank, Expr(op, op.rank(), "r", scope));
      WC_ASSIGN(idx, Expr(op, op.index(), "0", scope));
      WC_ASSIGN(cnt, Expr(op, op.count(), absl::StrCat(ob.size), scope));
      WC_ASSIGN(val, Expr(op, op.value(), "0", scope));
      absl::StrAppend(&o, in2, "wc_host_fill(S, ", it->second, ", ", rank, ", ", idx, ", ", cnt, ", ", val, ");\n");
      absl::StrAppend(&o, in2, "wc_mark(S, ", site, ", 0);\n");
      break;
    }
    case STREAM_WAIT:
    case STREAM_WRITE: {
      auto it = obj_index_.find(op.object());
      if (it == obj_index_.end()) return Err(op, absl::StrCat("unknown object '", op.object(), "'"));
      uses_driver_ = true;
      WC_ASSIGN(rank, Expr(op, op.rank(), "r", scope));
      WC_ASSIGN(idx, Expr(op, op.index(), "0", scope));
      WC_ASSIGN(val, Expr(op, op.value(), "1", scope));
      if (op.kind() == STREAM_WAIT) {
        std::string flag;
        switch (op.cmp()) {
          case CMP_UNSPECIFIED:
          case EQ: flag = "CU_STREAM_WAIT_VALUE_EQ"; break;
          case GE: flag = "CU_STREAM_WAIT_VALUE_GEQ"; break;
          default:
            return Err(op, "STREAM_WAIT supports EQ and GE (cyclic GEQ) only");
        }
        absl::StrAppend(&o, in2, "wc_host_stream_wait(S, ", it->second, ", ", rank, ", ", idx, ", ", val, ", ", flag, ", ", site, ");\n");
      } else {
        absl::StrAppend(&o, in2, "wc_host_stream_write(S, ", it->second, ", ", rank, ", ", idx, ", ", val, ");\n");
        absl::StrAppend(&o, in2, "wc_mark(S, ", site, ", 0);\n");
      }
      break;
    }
    case COPY: {
      auto it = obj_index_.find(op.object());
      if (it == obj_index_.end()) return Err(op, absl::StrCat("unknown object '", op.object(), "'"));
      WC_ASSIGN(rank, Expr(op, op.rank(), "r", scope));
      WC_ASSIGN(src_rank, Expr(op, op.src_rank(), "r", scope));
      WC_ASSIGN(idx, Expr(op, op.index(), "0", scope));
      WC_ASSIGN(src_idx, Expr(op, op.src_index(), op.index().empty() ? "0" : op.index(), scope));
      WC_ASSIGN(cnt, Expr(op, op.count(), "1", scope));
      absl::StrAppend(&o, in2, "wc_host_copy(S, ", it->second, ", ", src_rank, ", ", src_idx, ", ", rank, ", ", idx, ", ", cnt, ");\n");
      absl::StrAppend(&o, in2, "wc_mark(S, ", site, ", 0);\n");
      break;
    }
    case BARRIER_ALL:
    case HOST_COLLECTIVE:
      // A collective every rank's stream must reach: a one-CTA kernel running the
      // device barrier (the same two-phase epoch barrier as BARRIER_ALL in kernels).
      absl::StrAppend(&o, in2, "wc_host_barrier(S, ", site, ");\n");
      absl::StrAppend(&o, in2, "wc_mark(S, ", site, ", 2);\n");
      break;
    case EXIT:
      absl::StrAppend(&o, in2, "return;\n");
      break;
    case FOR:
    case IF:
      if (absl::Status st = EmitControl(op, scope, depth, /*host=*/true, o); !st.ok()) return st;
      break;
    default:
      return Err(op, absl::StrCat(SignalOpKind_Name(op.kind()),
                                  " in a host stream is not supported by the GPU emitter"));
  }
  absl::StrAppend(&o, ind, "}\n");
  return absl::OkStatus();
}

// FOR and IF, in kernels (host = false) and in host streams (host = true): C control
// flow around the bodies. Names bound inside a body (results, tokens) stay visible after
// it, because they are declared at function scope.
absl::Status Emitter::EmitControl(const SignalOp& op, Names& scope, int depth, bool host,
                                  std::string& o) {
  const std::string in2(2 * depth + 4, ' ');
  auto body = [&](const Ops& ops, Names& names) {
    return host ? EmitHostOps(ops, names, depth + 2, o) : EmitOps(ops, names, depth + 2, o);
  };
  auto keep_new = [&](const Names& inner) {
    for (size_t i = scope.size(); i < inner.size(); ++i) {
      bool known = false;
      for (const auto& [name, t] : scope) known |= name == inner[i].first;
      if (!known) scope.push_back(inner[i]);
    }
  };
  if (op.kind() == FOR) {
    if (op.var().empty()) return Err(op, "FOR without var");
    WC_ASSIGN(from, Expr(op, op.from(), "0", scope));
    WC_ASSIGN(to, Expr(op, op.to(), "0", scope));
    WC_ASSIGN(step, Expr(op, op.step(), "1", scope));
    absl::StrAppend(&o, in2, "const long long step = ", step, ";\n");
    absl::StrAppend(&o, in2, "if (step > 0) for (long long v_", op.var(), " = ", from, "; v_",
                    op.var(), " < ", to, "; v_", op.var(), " += step) {\n");
    Names inner = scope;
    inner.push_back({op.var(), Type::kInt});
    if (absl::Status st = body(op.body(), inner); !st.ok()) return st;
    inner.erase(inner.begin() + static_cast<long>(scope.size()));  // the loop variable
    keep_new(inner);
    absl::StrAppend(&o, in2, "}\n");
    return absl::OkStatus();
  }
  WC_ASSIGN(cond, Expr(op, op.cond(), "true", scope, Type::kBool));
  absl::StrAppend(&o, in2, "if (", cond, ") {\n");
  Names a = scope;
  if (absl::Status st = body(op.body(), a); !st.ok()) return st;
  absl::StrAppend(&o, in2, "} else {\n");
  Names b = scope;
  if (absl::Status st = body(op.else_body(), b); !st.ok()) return st;
  absl::StrAppend(&o, in2, "}\n");
  keep_new(a);
  keep_new(b);
  return absl::OkStatus();
}

// ---- the whole source -----------------------------------------------------------------

void CollectForVars(const Ops& ops, std::vector<std::string>& out) {
  for (const SignalOp& op : ops) {
    if (op.kind() == FOR && !op.var().empty() &&
        std::find(out.begin(), out.end(), op.var()) == out.end()) {
      out.push_back(op.var());
    }
    CollectForVars(op.body(), out);
    CollectForVars(op.else_body(), out);
  }
}

void CollectResults(const Ops& ops, std::set<std::string>& out) {
  for (const SignalOp& op : ops) {
    if (!op.result().empty()) out.insert(op.result());
    CollectResults(op.body(), out);
    CollectResults(op.else_body(), out);
  }
}

// The header comment, the #defines, the prelude and the object tables.
void Emitter::EmitHeader(std::string& o) const {
  const int nobj = static_cast<int>(objs_.size());
  const int nk = p_.kernels_size();
  const int warps = max_threads_ / 32;
  absl::StrAppend(&o, "// Generated by `warpcheck signal cuda` from SignalProgram '",
                  absl::CEscape(p_.name()), "'.\n");
  absl::StrAppend(&o, "// Tier ", opt_.tier, ". Build: nvcc -O2 -std=c++17 -arch=sm_90 THIS.cu -o prog\n");
  absl::StrAppend(&o, "// Run:   ./prog [--runs=K] [--timeout-ms=T] [--jitter-ns=J] [--seed=S]\n");
  absl::StrAppend(&o, "// Lowering: shared/spec/signaling.md §1 (NVIDIA); watchdog and tiers: §5.\n\n");
  absl::StrAppend(&o, "#define WC_N ", n_, "\n#define WC_TIER_GPUS ", gpus_ ? 1 : 0, "\n#define WC_NOBJ ", nobj,
                  "\n#define WC_NAGENT ", agents_.size(), "\n#define WC_WARPS ", warps, "\n#define WC_SLOTS ",
                  p_.cta_slots(), "\n#define WC_NKERNEL ", nk, "\n#define WC_PAD ", kPad, "\n#define WC_NHV ",
                  std::max<size_t>(1, host_vars_.size()), "\n");
  absl::StrAppend(&o, kPrelude);

  // Object tables.
  std::vector<std::string> sizes, widths, inits, names, sigs, signeds;
  for (const Obj& ob : objs_) {
    sizes.push_back(absl::StrCat(ob.size, "LL"));
    widths.push_back(absl::StrCat(ob.width));
    inits.push_back(absl::StrCat(ob.init, "LL"));
    names.push_back(CStr(ob.name));
    sigs.push_back(ob.is_signal ? "1" : "0");
    signeds.push_back(ob.is_signed ? "1" : "0");
  }
  absl::StrAppend(&o, "\nstatic const long long kObjSize[WC_NOBJ] = {", absl::StrJoin(sizes, ", "), "};\n");
  absl::StrAppend(&o, "static const int kObjWidth[WC_NOBJ] = {", absl::StrJoin(widths, ", "), "};\n");
  absl::StrAppend(&o, "static const long long kObjInit[WC_NOBJ] = {", absl::StrJoin(inits, ", "), "};\n");
  absl::StrAppend(&o, "static const char* kObjName[WC_NOBJ] = {", absl::StrJoin(names, ", "), "};\n");
  absl::StrAppend(&o, "static const int kObjSignal[WC_NOBJ] = {", absl::StrJoin(sigs, ", "), "};\n");
  absl::StrAppend(&o, "static const int kObjSigned[WC_NOBJ] = {", absl::StrJoin(signeds, ", "), "};\n");
  absl::StrAppend(&o, "#define WC_BAR_OBJ ", bar_obj_, "\n");
  absl::StrAppend(&o, "static const bool kNoNativeP2pAtomics = ", p_.no_native_p2p_atomics() ? "true" : "false", ";\n");
}

// wc_barrier_all: the device side of BARRIER_ALL.
void Emitter::EmitBarrierAll(std::string& o) const {
  // Two-phase epoch barrier among the calling CTAs of all ranks (BARRIER_ALL), thread 0.
  const std::string ts = TierScope();
  absl::StrAppend(&o, R"CU(
__device__ inline void wc_barrier_all(WcCtx& x, int site) {
  unsigned long long e = ++g_aux[x.r]->bar_epoch;
  for (int ph = 0; ph < 2; ++ph) {
    asm volatile("fence.sc.)CU", ts, R"CU(;" ::: "memory");
    for (int t = 0; t < WC_N; ++t) {
      unsigned long long* a = (unsigned long long*)(g_obj[WC_BAR_OBJ * WC_N + t]) + ph * WC_N + x.r;
      asm volatile("st.relaxed.)CU", ts, R"CU(.global.b64 [%0], %1;" :: "l"(a), "l"(e) : "memory");
    }
    for (int t = 0; t < WC_N && !x.aborted; ++t) {
      unsigned long long* a = (unsigned long long*)(g_obj[WC_BAR_OBJ * WC_N + x.r]) + ph * WC_N + t;
      unsigned m = wc_wait_begin(x, __activemask(), site, (long long)e, -1, t, 0);
      unsigned it = 0;
      while (true) {
        unsigned long long v;
        asm volatile("ld.acquire.)CU", ts, R"CU(.global.b64 %0, [%1];" : "=l"(v) : "l"(a) : "memory");
        if (v >= e) break;
        if (wc_poll(x, it, (long long)v, t)) break;
      }
      wc_wait_end(x, m);
    }
  }
}
)CU");
}

// One __device__ function per kernel body.
absl::Status Emitter::EmitKernelBodies(std::string& o) {
  const int nk = p_.kernels_size();
  // Kernel bodies.
  for (int k = 0; k < nk; ++k) {
    const SignalKernel& kern = p_.kernels(k);
    absl::StrAppend(&o, "\n// kernel ", kern.name(), " (", threads_[k], " threads)\n");
    absl::StrAppend(&o, "__device__ __noinline__ void wc_body_", k, "(WcCtx& x) {\n");
    absl::StrAppend(&o, "  const long long v_r = x.r, v_c = x.c, v_N = WC_N, v_G = ", g_, "LL, v_E = ", e_, "LL;\n");
    absl::StrAppend(&o, "  (void)v_r; (void)v_c; (void)v_N; (void)v_G; (void)v_E;\n");
    Names scope = {{"r", Type::kInt}, {"c", Type::kInt}, {"N", Type::kInt}, {"G", Type::kInt}, {"E", Type::kInt}};
    for (const SignalParam& prm : p_.params()) {
      absl::StrAppend(&o, "  const long long v_", prm.name(), " = ", prm.value(), "LL; (void)v_", prm.name(), ";\n");
      scope.push_back({prm.name(), Type::kInt});
    }
    for (size_t h = 0; h < host_vars_.size(); ++h) {
      bool known = false;
      for (const auto& [name, t] : scope) known |= name == host_vars_[h];
      if (known) continue;
      absl::StrAppend(&o, "  const long long v_", host_vars_[h], " = x.hv[", h, "]; (void)v_", host_vars_[h], ";\n");
      scope.push_back({host_vars_[h], Type::kInt});
    }
    std::set<std::string> results;
    CollectResults(kern.body(), results);
    for (const std::string& res : results) absl::StrAppend(&o, "  long long v_", res, " = 0; (void)v_", res, ";\n");
    if (absl::Status st = EmitOps(kern.body(), scope, 0, o); !st.ok()) return st;
    absl::StrAppend(&o, "}\n");
  }
  return absl::OkStatus();
}

// The __global__ kernels the host launches: wc_launch, wc_fill, wc_barrier_kernel.
void Emitter::EmitLaunchKernels(std::string& o) const {
  const int nk = p_.kernels_size();
  // The launch kernel: one CTA per table entry (kernel, rank, cta).
  absl::StrAppend(&o, R"CU(
struct WcEntry { int kernel, rank, cta, agent, ticket, nthreads, grid, pad; };

__global__ void wc_launch(const WcEntry* tab, unsigned ticket_base, WcHostVars hv, int launch_no) {
  __shared__ unsigned long long s_bcast;
  const WcEntry e = tab[blockIdx.x];
  WcCtx x;
  x.r = e.rank; x.c = e.cta; x.agent = e.agent; x.nthreads = e.nthreads; x.kernel = e.kernel;
  x.grid = e.grid; x.aborted = false; x.ctr = 0; x.bcast = &s_bcast; x.hv = hv.v;
  volatile WcRec* cr = wc_cta_rec(x.agent);
  if (threadIdx.x == 0) {
    cr->pad = launch_no;
    if (WC_SLOTS > 0) { cr->state = WC_SLOT_WAIT; __threadfence_system(); }
    if (g_run.stagger_ns) __nanosleep((unsigned)(wc_hash(g_run.seed * 31 + x.agent) % g_run.stagger_ns));
    if (WC_SLOTS > 0) {
      // Co-residency (cta_slots): the CTA with start ticket t (id order within its rank)
      // gets a slot once t < slots + (CTAs of its rank that exited).
      unsigned t = ticket_base + (unsigned)e.ticket, it = 0, ex;
      while (true) {
        asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(ex) : "l"(&g_aux[x.r]->exited) : "memory");
        if (t < (unsigned)WC_SLOTS + ex) break;
        if ((++it & 255u) == 0u && wc_abort_raised()) { x.aborted = true; break; }
      }
    }
    cr->state = WC_RUNNING;
    __threadfence_system();
  }
  __syncthreads();
  switch (e.kernel) {
)CU");
  for (int k = 0; k < nk; ++k) absl::StrAppend(&o, "    case ", k, ": wc_body_", k, "(x); break;\n");
  absl::StrAppend(&o, R"CU(    default: break;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    cr->state = WC_EXITED;
    __threadfence_system();
    if (WC_SLOTS > 0) { __threadfence(); atomicAdd(&g_aux[x.r]->exited, 1u); }
  }
}

// RESET on a stream: fill object@rank[idx..idx+cnt) := v.
__global__ void wc_fill(int obj, long long rank, long long idx, long long cnt, long long v, long long size, int width, int caller) {
  WcCtx x; x.r = caller;
  for (long long i = threadIdx.x + (long long)blockIdx.x * blockDim.x; i < cnt; i += (long long)blockDim.x * gridDim.x) {
    char* a = wc_addr(x, obj, rank, idx + i, size, width);
    if (!a) continue;
    if (width == 8) *(volatile unsigned long long*)a = (unsigned long long)v;
    else *(volatile unsigned*)a = (unsigned)v;
  }
}

// BARRIER_ALL / HOST_COLLECTIVE on a stream: one CTA of one thread runs the device barrier
// and reports progress as the stream's agent.
__global__ void wc_barrier_kernel(int rank, int agent, int site, int warm) {
  if (warm) return;
  WcCtx x; x.r = rank; x.c = 0; x.agent = agent; x.nthreads = 1; x.kernel = WC_NKERNEL; x.grid = 1;
  x.aborted = false; x.ctr = 0; x.bcast = nullptr; x.hv = nullptr;
  wc_barrier_all(x, site);
}
)CU");
}

// The host's tables: sites, agents, kernels, grids, and the run defaults.
void Emitter::EmitHostTables(std::string& o) const {
  const int nk = p_.kernels_size();
  // Host tables.
  std::vector<std::string> site_strs, agent_names, agent_ranks, agent_streams, agent_prefix,
      agent_suffix, agent_kernel, kernel_names;
  for (const SignalKernel& k : p_.kernels()) kernel_names.push_back(CStr(k.name()));
  for (const std::string& s : site_name_) site_strs.push_back(CStr(s));
  if (site_strs.empty()) site_strs.push_back("\"\"");
  for (const Agent& a : agents_) {
    agent_names.push_back(CStr(a.name));
    agent_ranks.push_back(absl::StrCat(a.rank));
    agent_streams.push_back(absl::StrCat(a.stream));
    agent_prefix.push_back(CStr(a.prefix));
    agent_suffix.push_back(CStr(a.suffix));
    agent_kernel.push_back(absl::StrCat(a.kernel));
  }
  absl::StrAppend(&o, "\nstatic const char* kSite[] = {", absl::StrJoin(site_strs, ", "), "};\n");
  absl::StrAppend(&o, "static const char* kAgentName[WC_NAGENT] = {", absl::StrJoin(agent_names, ", "), "};\n");
  absl::StrAppend(&o, "static const int kAgentRank[WC_NAGENT] = {", absl::StrJoin(agent_ranks, ", "), "};\n");
  absl::StrAppend(&o, "static const int kAgentStream[WC_NAGENT] = {", absl::StrJoin(agent_streams, ", "), "};\n");
  absl::StrAppend(&o, "static const int kAgentKernel[WC_NAGENT] = {", absl::StrJoin(agent_kernel, ", "), "};\n");
  absl::StrAppend(&o, "static const char* kAgentPrefix[WC_NAGENT] = {", absl::StrJoin(agent_prefix, ", "), "};\n");
  absl::StrAppend(&o, "static const char* kAgentSuffix[WC_NAGENT] = {", absl::StrJoin(agent_suffix, ", "), "};\n");
  absl::StrAppend(&o, "static const char* kKernelName[WC_NKERNEL] = {", absl::StrJoin(kernel_names, ", "), "};\n");
  // Launch tables: entries of kernel k on rank r (agent ids, tickets in id order).
  absl::StrAppend(&o, "static const int kKernelThreads[WC_NKERNEL] = {");
  for (int k = 0; k < nk; ++k) absl::StrAppend(&o, k ? ", " : "", threads_[k]);
  absl::StrAppend(&o, "};\nstatic const int kGrid[WC_NKERNEL][WC_N] = {");
  for (int k = 0; k < nk; ++k) {
    absl::StrAppend(&o, k ? ", {" : "{");
    for (int r = 0; r < n_; ++r) absl::StrAppend(&o, r ? ", " : "", grid_[k][r]);
    absl::StrAppend(&o, "}");
  }
  absl::StrAppend(&o, "};\nstatic int kFirstAgent[WC_NKERNEL][WC_N];  // filled at start\n");
  absl::StrAppend(&o, "#define WC_NSTREAMS ", std::max(1, p_.streams_size()), "\n");
  absl::StrAppend(&o, "#define WC_EXPLICIT_STREAMS ", explicit_streams_ ? 1 : 0, "\n");
  absl::StrAppend(&o, "#define WC_FIRST_STREAM_AGENT ", agents_.size() - (explicit_streams_ ? n_ * p_.streams_size() : 0), "\n");
  absl::StrAppend(&o, "#define WC_MAX_THREADS ", max_threads_, "\n");
  absl::StrAppend(&o, "static const char* kProgramName = ", CStr(p_.name()), ";\n");
  absl::StrAppend(&o, "static const char* kTier = ", CStr(opt_.tier), ";\n");
  absl::StrAppend(&o, "static int g_default_runs = ", std::max(1, opt_.runs), ", g_default_timeout_ms = ",
                  std::max(1, opt_.timeout_ms), ", g_default_jitter_ns = ", std::max(0, opt_.jitter_ns),
                  ", g_default_stagger_ns = ", std::max(0, opt_.stagger_ns), ";\n");
  absl::StrAppend(&o, "static unsigned long long g_default_seed = ", opt_.seed, "ull;\n");
  absl::StrAppend(&o, "#define WC_USES_DRIVER ", uses_driver_ ? 1 : 0, "\n");
}

// Host stream programs (explicit streams): one enqueue function per stream.
absl::Status Emitter::EmitHostStreams(std::string& host_fns) {
  for (int s = 0; s < p_.streams_size(); ++s) {
    absl::StrAppend(&host_fns, "\nstatic void wc_stream_", s, "(struct WcStream* S, long long v_r) {\n");
    absl::StrAppend(&host_fns, "  const long long v_N = WC_N, v_G = ", g_, "LL, v_E = ", e_, "LL;\n");
    absl::StrAppend(&host_fns, "  (void)v_r; (void)v_N; (void)v_G; (void)v_E;\n");
    Names scope = {{"r", Type::kInt}, {"N", Type::kInt}, {"G", Type::kInt}, {"E", Type::kInt}};
    for (const SignalParam& prm : p_.params()) {
      absl::StrAppend(&host_fns, "  const long long v_", prm.name(), " = ", prm.value(), "LL; (void)v_", prm.name(), ";\n");
      scope.push_back({prm.name(), Type::kInt});
    }
    if (absl::Status st = EmitHostOps(p_.streams(s).body(), scope, 0, host_fns); !st.ok()) return st;
    absl::StrAppend(&host_fns, "}\n");
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> Emitter::Run() {
  if (absl::Status st = Prepare(); !st.ok()) return st;
  for (const SignalStream& s : p_.streams()) CollectForVars(s.body(), host_vars_);
  if (host_vars_.size() > 16) return absl::InvalidArgumentError("more than 16 host loop variables");
  std::string o;
  EmitHeader(o);
  EmitBarrierAll(o);
  if (absl::Status st = EmitKernelBodies(o); !st.ok()) return st;
  EmitLaunchKernels(o);
  // The tables print WC_USES_DRIVER as it is before the stream programs are emitted;
  // emitting them may set it, so it is defined again after them.
  EmitHostTables(o);
  std::string host_fns;
  if (absl::Status st = EmitHostStreams(host_fns); !st.ok()) return st;
  absl::StrAppend(&o, "#undef WC_USES_DRIVER\n#define WC_USES_DRIVER ", uses_driver_ ? 1 : 0, "\n");
  absl::StrAppend(&o,
#include "sim/signal/cuda_host.inc"
  );
  absl::StrAppend(&o, host_fns);
  absl::StrAppend(&o, "\nstatic void wc_run_stream(WcStream* S, int s, long long r) {\n  switch (s) {\n");
  for (int s = 0; s < p_.streams_size(); ++s) absl::StrAppend(&o, "    case ", s, ": wc_stream_", s, "(S, r); break;\n");
  absl::StrAppend(&o, "    default: (void)S; (void)r; break;\n  }\n}\n");
  absl::StrAppend(&o,
#include "sim/signal/cuda_main.inc"
  );
  return o;
}

}  // namespace

absl::StatusOr<std::string> EmitSignalCuda(const warpcheck::SignalProgram& p,
                                           const CudaEmitOptions& opt) {
  Emitter e(p, opt);
  return e.Run();
}

}  // namespace warpcheck::sim::signal
