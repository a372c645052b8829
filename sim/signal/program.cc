#include "sim/signal/program.h"

#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/text_format.h"
#include "sim/base/status_macros.h"
#include "sim/base/field_position.h"
#include "sim/base/text_proto.h"
#include "sim/expr/parser.h"

namespace warpcheck::sim::signal {

bool Ex::Eval(const int64_t* frame, int64_t* value) const {
  return code_->TryEval(frame, value);
}

std::string Ex::ErrorAt(const int64_t* frame) const {
  absl::StatusOr<int64_t> v = code_->Eval(frame);
  return v.ok() ? std::string() : std::string(v.status().message());
}

int Program::FindObject(absl::string_view name) const {
  for (size_t i = 0; i < objects.size(); ++i)
    if (objects[i].name == name) return static_cast<int>(i);
  return -1;
}

std::string KindName(SignalOpKind kind) {
  return absl::AsciiStrToLower(SignalOpKind_Name(kind));
}
const char* ScopeName(SignalScope s) {
  switch (s) {
    case CTA: return "cta";
    case GPU: return "gpu";
    case SYS: return "sys";
    case INTRA_NODE: return "intra_node";
    case INTER_NODE: return "inter_node";
    default: return "?";
  }
}
const char* SemName(SignalSem s) {
  switch (s) {
    case RELAXED: return "relaxed";
    case ACQUIRE: return "acquire";
    case RELEASE: return "release";
    case ACQ_REL: return "acq_rel";
    case WEAK: return "weak";
    default: return "?";
  }
}
const char* CmpName(SignalCmp c) {
  switch (c) {
    case EQ: return "EQ";
    case NE: return "NE";
    case GT: return "GT";
    case GE: return "GE";
    case LT: return "LT";
    case LE: return "LE";
    default: return "?";
  }
}

namespace {

using google::protobuf::FieldDescriptor;

bool IsHostOnly(SignalOpKind k) {
  return k == STREAM_WAIT || k == STREAM_WRITE || k == COPY || k == LAUNCH ||
         k == HOST_COLLECTIVE;
}
bool IsDeviceOnly(SignalOpKind k) {
  switch (k) {
    case NOTIFY: case WAIT: case WAIT_UNTIL: case SIGNAL_OP: case ST_SIGNAL:
    case ATOMIC_ADD: case ATOMIC_CAS: case STORE: case LOAD: case PUT: case GET:
    case PUTSIG: case FENCE: case NVSHMEM_FENCE: case QUIET: case SYNCTHREADS:
    case GRID_BARRIER: case EXIT:
      return true;
    default:
      return false;
  }
}

// The fields each kind may set (besides kind and site).
const std::map<SignalOpKind, std::set<std::string>>& AllowedFields() {
  static const auto* m = new std::map<SignalOpKind, std::set<std::string>>{
      {NOTIFY, {"object", "rank", "index", "value", "sig_op", "scope"}},
      {WAIT, {"object", "rank", "index", "count", "value", "cmp", "scope", "sem", "token",
              "by", "lane_if"}},
      {WAIT_UNTIL, {"object", "rank", "index", "count", "value", "cmp", "scope", "sem",
                    "token", "by", "lane_if", "name"}},
      {SIGNAL_OP, {"object", "rank", "index", "value", "sig_op", "by"}},
      {ST_SIGNAL, {"object", "rank", "index", "value", "scope", "sem", "by"}},
      {ATOMIC_ADD, {"object", "rank", "index", "value", "scope", "sem", "result", "by"}},
      {ATOMIC_CAS, {"object", "rank", "index", "value", "compare", "scope", "sem", "result",
                    "spin", "by"}},
      {STORE, {"object", "rank", "index", "count", "tag", "by"}},
      {LOAD, {"object", "rank", "index", "count", "expect", "after", "by"}},
      {PUT, {"object", "rank", "index", "count", "src_index", "nbi", "by"}},
      {GET, {"object", "rank", "index", "count", "src_index", "nbi", "by"}},
      {PUTSIG, {"object", "rank", "index", "count", "src_index", "nbi", "signal_object",
                "signal_index", "signal_value", "signal_op", "by"}},
      {FENCE, {"scope", "by"}},
      {NVSHMEM_FENCE, {"by"}},
      {QUIET, {"by"}},
      {SYNCTHREADS, {}},
      {BARRIER_ALL, {}},
      {GRID_BARRIER, {}},
      {RESET, {"object", "rank", "index", "count", "value"}},
      {STREAM_WAIT, {"object", "rank", "index", "value", "cmp"}},
      {STREAM_WRITE, {"object", "rank", "index", "value"}},
      {COPY, {"object", "rank", "src_rank", "index", "count", "src_index"}},
      {LAUNCH, {"kernel"}},
      {HOST_COLLECTIVE, {"name"}},
      {EXIT, {}},
      {FOR, {"var", "from", "to", "step", "body"}},
      {IF, {"cond", "body", "else_body"}},
  };
  return *m;
}

struct Name {
  std::string name;
  int slot;
  bool token;
};

class Compiler {
 public:
  Compiler(const SignalProgram& proto, std::string file, Program* out)
      : proto_(proto), file_(std::move(file)), p_(out) {}

  absl::Status Run();

 private:
  absl::Status Error(const std::string& path, const std::string& what) {
    return sim::base::WithField(
        absl::InvalidArgumentError(absl::StrCat(file_, ": ", path, ": ", what)), path);
  }
  int NewSlot(const std::string& name) {
    p_->slot_names.push_back(name);
    return p_->num_slots() - 1;
  }
  absl::StatusOr<int> Declare(const std::string& path, const std::string& name, bool token);
  absl::StatusOr<Ex> Compile(const std::string& path, const std::string& text,
                             const char* deflt, expr::Type type = expr::Type::kInt);
  absl::Status CompileBody(const std::string& path,
                           const google::protobuf::RepeatedPtrField<SignalOp>& body,
                           bool host, std::vector<int>* out);
  // Compiles one op (and its bodies) into p_->ops, in these steps:
  absl::Status CompileOp(const std::string& path, const SignalOp& op, bool host, int* id);
  // Requires: nothing. Ensures: OK when the kind is known, may run on this side (host or
  // device), and only fields meaningful for the kind are set.
  absl::Status CheckOpFields(const std::string& path, const SignalOp& in, bool host);
  // `field` names an existing object; *out is its index.
  absl::Status NeedObject(const std::string& path, SignalOpKind kind, const std::string& field,
                          const std::string& name, int* out);
  absl::Status CompileField(const std::string& path, const char* field,
                            const std::string& text, const char* deflt, Ex* out);
  // object, rank, index, count and value of an op that addresses words or data.
  absl::Status CompileWordOperands(const std::string& path, const SignalOp& in, Op& op);
  // Defaults of sig_op, cmp, scope and sem per kind, and the combinations that are errors.
  absl::Status ApplyKindDefaults(const std::string& path, const SignalOp& in, Op& op);
  // The kind's own fields (tags, sources, PUTSIG's signal, lane_if, kernel, token use).
  absl::Status CompileKindFields(const std::string& path, const SignalOp& in, Op& op);
  // FOR and IF: their bounds or condition, and their bodies.
  absl::Status CompileControl(const std::string& path, const SignalOp& in, bool host, Op& op);
  void AssignSites(const google::protobuf::RepeatedPtrField<SignalOp>& body);
  // Requires: nothing. Ensures: OK when no op's bodies nest deeper than kMaxNesting
  // (the passes after it recurse once per level); else the path of the first too deep.
  absl::Status CheckNesting(const std::string& path,
                            const google::protobuf::RepeatedPtrField<SignalOp>& body);

  const SignalProgram& proto_;
  std::string file_;
  Program* p_;
  std::vector<Name> scope_;              // names visible now (innermost last)
  std::vector<std::string> extra_names_;  // stream variables, visible in kernels
  std::vector<int> extra_slots_;
  std::map<SignalOpKind, int> site_counter_;
  std::vector<std::string> default_sites_;  // in the AssignSites walk order
  size_t next_site_ = 0;
  std::set<std::string> all_declared_;
};

absl::StatusOr<int> Compiler::Declare(const std::string& path, const std::string& name,
                                      bool token) {
  if (name.empty()) return Error(path, "a name is required");
  if (!(absl::ascii_isalpha(name[0]) || name[0] == '_'))
    return Error(path, absl::StrCat("'", name, "' is not a name"));
  for (char ch : name)
    if (!(absl::ascii_isalnum(ch) || ch == '_'))
      return Error(path, absl::StrCat("'", name, "' is not a name"));
  if (expr::IsReservedWord(name) || name == "l")
    return Error(path, absl::StrCat("'", name, "' is reserved"));
  for (const Name& n : scope_)
    if (n.name == name)
      return Error(path, absl::StrCat("'", name, "' is already declared in this scope"));
  int slot = NewSlot(name);
  scope_.push_back({name, slot, token});
  return slot;
}

absl::StatusOr<Ex> Compiler::Compile(const std::string& path, const std::string& text,
                                     const char* deflt, expr::Type type) {
  std::string src = text.empty() ? (deflt ? deflt : "") : text;
  if (src.empty()) return Ex();
  std::vector<std::pair<std::string, expr::Type>> names;
  std::map<std::string, int> slots;
  for (const Name& n : scope_) {
    if (n.token) continue;
    names.push_back({n.name, expr::Type::kInt});
    slots[n.name] = n.slot;
  }
  bool lane = path.size() >= 8 && path.compare(path.size() - 8, 8, ".lane_if") == 0;
  if (lane) {
    names.push_back({"l", expr::Type::kInt});
    slots["l"] = -2;  // patched below: the lane slot is the last of the frame
  }
  absl::StatusOr<expr::ExprPtr> e = expr::ParseExpr(path, src, names);
  if (!e.ok()) return absl::InvalidArgumentError(absl::StrCat(file_, ": ", e.status().message()));
  if ((*e)->type() != type)
    return Error(path, absl::StrCat("'", src, "' must be ",
                                    type == expr::Type::kInt ? "an int" : "a bool",
                                    " expression"));
  const int lane_slot = kSlotL;
  auto code = std::make_shared<expr::CompiledExpr>(expr::CompiledExpr::Compile(
      *e,
      [&](const std::string& n) {
        auto it = slots.find(n);
        if (it == slots.end()) return -1;
        return it->second == -2 ? lane_slot : it->second;
      },
      path));
  std::vector<int> used;
  for (const std::string& v : expr::FreeVariables(**e)) {
    auto it = slots.find(v);
    if (it != slots.end()) used.push_back(it->second == -2 ? lane_slot : it->second);
  }
  return Ex(std::move(code), src, std::move(used));
}

absl::Status Compiler::CheckNesting(const std::string& path,
                                    const google::protobuf::RepeatedPtrField<SignalOp>& body) {
  // Iterative (an explicit stack of (list, path, depth)), so that checking a hostile
  // program cannot overflow the stack the recursive passes after it would.
  struct Item {
    const google::protobuf::RepeatedPtrField<SignalOp>* list;
    std::string path;
    int depth;
  };
  std::vector<Item> work{{&body, path, 1}};
  while (!work.empty()) {
    Item it = std::move(work.back());
    work.pop_back();
    for (int i = 0; i < it.list->size(); ++i) {
      const SignalOp& op = (*it.list)[i];
      if (op.body_size() == 0 && op.else_body_size() == 0) continue;
      std::string at = absl::StrCat(it.path, "[", i, "]");
      if (it.depth > kMaxNesting)
        return Error(at, absl::StrCat(KindName(op.kind()), " nested ", it.depth,
                                      " deep: bodies nest at most ", kMaxNesting,
                                      " deep (FOR and IF)"));
      if (op.body_size() > 0) work.push_back({&op.body(), at + ".body", it.depth + 1});
      if (op.else_body_size() > 0)
        work.push_back({&op.else_body(), at + ".else_body", it.depth + 1});
    }
  }
  return absl::OkStatus();
}

void Compiler::AssignSites(const google::protobuf::RepeatedPtrField<SignalOp>& body) {
  for (const SignalOp& op : body) {
    int n = ++site_counter_[op.kind()];
    default_sites_.push_back(absl::StrCat(KindName(op.kind()), "#", n));
    AssignSites(op.body());
    AssignSites(op.else_body());
  }
}

absl::Status Compiler::CompileBody(const std::string& path,
                                   const google::protobuf::RepeatedPtrField<SignalOp>& body,
                                   bool host, std::vector<int>* out) {
  size_t mark = scope_.size();
  for (int i = 0; i < body.size(); ++i) {
    int id = -1;
    RETURN_IF_ERROR(CompileOp(absl::StrCat(path, "[", i, "]"), body[i], host, &id));
    out->push_back(id);
  }
  // Names declared in a body (results, tokens) stay visible to the end of that body.
  scope_.resize(mark);
  return absl::OkStatus();
}

absl::Status Compiler::CheckOpFields(const std::string& path, const SignalOp& in,
                                     bool host) {
  if (in.kind() == OP_UNSPECIFIED) return Error(path, "`kind` is required");
  auto allowed_it = AllowedFields().find(in.kind());
  if (allowed_it == AllowedFields().end())
    return Error(path, absl::StrCat("unknown op kind ", in.kind()));
  if (host && IsDeviceOnly(in.kind()))
    return Error(path, absl::StrCat(KindName(in.kind()),
                                    " runs on the device; a host stream cannot run it"));
  if (!host && IsHostOnly(in.kind()))
    return Error(path, absl::StrCat(KindName(in.kind()),
                                    " is a host (stream) op; a kernel cannot run it"));
  std::vector<const FieldDescriptor*> set;
  in.GetReflection()->ListFields(in, &set);
  for (const FieldDescriptor* f : set) {
    if (f->name() == "kind" || f->name() == "site") continue;
    if (!allowed_it->second.count(f->name()))
      return Error(path, absl::StrCat("`", f->name(), "` has no meaning for ",
                                      KindName(in.kind())));
  }
  return absl::OkStatus();
}

absl::Status Compiler::NeedObject(const std::string& path, SignalOpKind kind,
                                  const std::string& field, const std::string& name,
                                  int* out) {
  if (name.empty()) return Error(path, absl::StrCat("`", field, "` is required for ",
                                                    KindName(kind)));
  *out = p_->FindObject(name);
  if (*out < 0) {
    std::vector<std::string> names;
    for (const Object& o : p_->objects) names.push_back(o.name);
    return Error(absl::StrCat(path, ".", field),
                 absl::StrCat("no object named '", name, "' (objects: ",
                              absl::StrJoin(names, ", "), ")"));
  }
  return absl::OkStatus();
}

absl::Status Compiler::CompileField(const std::string& path, const char* field,
                                    const std::string& text, const char* deflt, Ex* out) {
  ASSIGN_OR_RETURN(*out, Compile(absl::StrCat(path, ".", field), text, deflt));
  return absl::OkStatus();
}

absl::Status Compiler::CompileWordOperands(const std::string& path, const SignalOp& in,
                                           Op& op) {
  const SignalOpKind k = in.kind();
  RETURN_IF_ERROR(NeedObject(path, k, "object", in.object(), &op.object));
  RETURN_IF_ERROR(CompileField(path, "rank", in.rank(), "r", &op.rank));
  op.rank_given = !in.rank().empty();
  RETURN_IF_ERROR(CompileField(path, "index", in.index(), "0", &op.index));
  RETURN_IF_ERROR(CompileField(path, "count", in.count(), k == RESET ? nullptr : "1", &op.count));
  const char* value_default = k == RESET ? "0" : "1";
  return CompileField(path, "value", in.value(), value_default, &op.value);
}

absl::Status Compiler::ApplyKindDefaults(const std::string& path, const SignalOp& in,
                                         Op& op) {
  const SignalOpKind k = in.kind();
  op.sig_op = in.sig_op() == SIGOP_UNSPECIFIED ? SET : in.sig_op();
  op.cmp = in.cmp() == CMP_UNSPECIFIED ? EQ : in.cmp();
  op.scope = in.scope();
  op.sem = in.sem();
  op.by = in.by();
  op.nbi = in.nbi();
  op.spin = in.spin();
  switch (k) {
    case NOTIFY:
      if (op.scope == SCOPE_UNSPECIFIED) op.scope = INTER_NODE;  // the front-end default
      if (op.scope != GPU && op.scope != INTRA_NODE && op.scope != INTER_NODE)
        return Error(path + ".scope", "a notify's comm_scope is GPU, INTRA_NODE or INTER_NODE");
      break;
    case WAIT:
      if (op.cmp != EQ) return Error(path + ".cmp", "dl.wait compares with == only (EQ)");
      if (op.scope == SCOPE_UNSPECIFIED) op.scope = GPU;
      if (op.sem == SEM_UNSPECIFIED) op.sem = ACQUIRE;
      if (op.scope != CTA && op.scope != GPU && op.scope != SYS)
        return Error(path + ".scope", "a wait's scope is CTA, GPU or SYS");
      break;
    case WAIT_UNTIL:
      if (op.scope == SCOPE_UNSPECIFIED) op.scope = SYS;
      if (op.sem == SEM_UNSPECIFIED) op.sem = ACQUIRE;
      if (!in.name().empty() && in.name() != "signal_wait_until" && in.name() != "wait_until")
        return Error(path + ".name",
                     "a wait_until's API is \"signal_wait_until\" or \"wait_until\"");
      op.plain_wait_until = in.name() == "wait_until";
      break;
    case ST_SIGNAL:
      if (op.scope == SCOPE_UNSPECIFIED) op.scope = SYS;
      if (op.sem == SEM_UNSPECIFIED) op.sem = RELAXED;
      if (op.sem == ACQUIRE || op.sem == ACQ_REL)
        return Error(path + ".sem", "a store has no acquire semantics");
      break;
    case ATOMIC_ADD:
    case ATOMIC_CAS:
      if (op.scope == SCOPE_UNSPECIFIED) op.scope = GPU;
      if (op.sem == SEM_UNSPECIFIED) op.sem = RELAXED;
      if (op.sem == WEAK) return Error(path + ".sem", "atomics are always strong");
      if (k == ATOMIC_CAS) RETURN_IF_ERROR(CompileField(path, "compare", in.compare(), "0", &op.compare));
      break;
    case FENCE:
      if (op.scope == SCOPE_UNSPECIFIED) op.scope = SYS;
      if (op.scope == INTRA_NODE || op.scope == INTER_NODE)
        return Error(path + ".scope", "a fence's scope is CTA, GPU or SYS");
      break;
    case STREAM_WAIT:
      if (op.cmp != EQ && op.cmp != GE)
        return Error(path + ".cmp", "cuStreamWaitValue compares with EQ or GE");
      break;
    default:
      break;
  }
  return absl::OkStatus();
}

absl::Status Compiler::CompileKindFields(const std::string& path, const SignalOp& in, Op& op) {
  const SignalOpKind k = in.kind();
  const Object* obj = op.object >= 0 ? &p_->objects[op.object] : nullptr;
  if (k == WAIT || k == WAIT_UNTIL || k == STREAM_WAIT || k == NOTIFY || k == SIGNAL_OP ||
      k == ST_SIGNAL || k == ATOMIC_ADD || k == ATOMIC_CAS || k == STREAM_WRITE) {
    if (obj->is_float)
      return Error(path + ".object", absl::StrCat("'", obj->name, "' is ",
                                                  SignalDtype_Name(obj->dtype),
                                                  "; signal words are integers"));
  }
  if (k == STORE) RETURN_IF_ERROR(CompileField(path, "tag", in.tag(), "1", &op.tag));
  if (k == LOAD) RETURN_IF_ERROR(CompileField(path, "expect", in.expect(), nullptr, &op.expect));
  if (k == PUT || k == GET || k == PUTSIG || k == COPY)
    RETURN_IF_ERROR(CompileField(path, "src_index", in.src_index(), nullptr, &op.src_index));
  if (k == COPY) {
    if (in.src_rank().empty()) return Error(path, "`src_rank` is required for copy");
    RETURN_IF_ERROR(CompileField(path, "src_rank", in.src_rank(), nullptr, &op.src_rank));
  }
  if (k == PUTSIG) {
    RETURN_IF_ERROR(NeedObject(path, k, "signal_object", in.signal_object(), &op.signal_object));
    if (p_->objects[op.signal_object].is_float)
      return Error(path + ".signal_object", "signal words are integers");
    RETURN_IF_ERROR(CompileField(path, "signal_index", in.signal_index(), "0", &op.signal_index));
    RETURN_IF_ERROR(CompileField(path, "signal_value", in.signal_value(), "1", &op.signal_value));
    op.signal_op = in.signal_op() == SIGOP_UNSPECIFIED ? SET : in.signal_op();
  }
  if (k == WAIT || k == WAIT_UNTIL) {
    if (!in.lane_if().empty()) {
      ASSIGN_OR_RETURN(op.lane_if, Compile(path + ".lane_if", in.lane_if(), nullptr,
                                           expr::Type::kBool));
    }
  }
  if (k == LAUNCH) {
    for (size_t i = 0; i < p_->kernels.size(); ++i)
      if (proto_.kernels(static_cast<int>(i)).name() == in.kernel()) op.kernel = static_cast<int>(i);
    if (op.kernel < 0)
      return Error(path + ".kernel", absl::StrCat("no kernel named '", in.kernel(), "'"));
  }
  if (k == HOST_COLLECTIVE) op.name = in.name().empty() ? "collective" : in.name();
  if (k == LOAD && !in.after().empty()) {
    for (auto it = scope_.rbegin(); it != scope_.rend(); ++it)
      if (it->name == in.after()) {
        if (!it->token)
          return Error(path + ".after", absl::StrCat("'", in.after(), "' is not a wait token"));
        op.after_slot = it->slot;
        break;
      }
    if (op.after_slot < 0)
      return Error(path + ".after",
                   absl::StrCat("no wait token '", in.after(), "' before this load"));
  }
  return absl::OkStatus();
}

absl::Status Compiler::CompileControl(const std::string& path, const SignalOp& in, bool host,
                                      Op& op) {
  if (in.kind() == FOR) {
    if (in.var().empty()) return Error(path + ".var", "a loop needs `var`");
    RETURN_IF_ERROR(CompileField(path, "from", in.from(), "0", &op.from));
    if (in.to().empty()) return Error(path + ".to", "a loop needs `to` (exclusive)");
    RETURN_IF_ERROR(CompileField(path, "to", in.to(), nullptr, &op.to));
    RETURN_IF_ERROR(CompileField(path, "step", in.step(), "1", &op.step));
    size_t mark = scope_.size();
    ASSIGN_OR_RETURN(op.var_slot, Declare(path + ".var", in.var(), false));
    if (host) {
      extra_names_.push_back(in.var());
      extra_slots_.push_back(op.var_slot);
    }
    RETURN_IF_ERROR(CompileBody(path + ".body", in.body(), host, &op.body));
    scope_.resize(mark);
  } else if (in.kind() == IF) {
    if (in.cond().empty()) return Error(path + ".cond", "an if needs `cond`");
    ASSIGN_OR_RETURN(op.cond, Compile(path + ".cond", in.cond(), nullptr, expr::Type::kBool));
    RETURN_IF_ERROR(CompileBody(path + ".body", in.body(), host, &op.body));
    RETURN_IF_ERROR(CompileBody(path + ".else_body", in.else_body(), host, &op.else_body));
  }
  return absl::OkStatus();
}

absl::Status Compiler::CompileOp(const std::string& path, const SignalOp& in, bool host,
                                 int* id) {
  const std::string site = default_sites_.at(next_site_++);
  RETURN_IF_ERROR(CheckOpFields(path, in, host));
  Op op;
  op.kind = in.kind();
  op.site = in.site().empty() ? site : in.site();
  op.path = path;
  op.id = static_cast<int>(p_->ops.size());
  p_->ops.emplace_back();  // reserve the id; filled at the end
  const SignalOpKind k = in.kind();
  if (AllowedFields().at(k).count("object") > 0)
    RETURN_IF_ERROR(CompileWordOperands(path, in, op));
  RETURN_IF_ERROR(ApplyKindDefaults(path, in, op));
  RETURN_IF_ERROR(CompileKindFields(path, in, op));
  RETURN_IF_ERROR(CompileControl(path, in, host, op));
  // Bindings become visible after the op.
  if ((k == WAIT || k == WAIT_UNTIL) && !in.token().empty()) {
    ASSIGN_OR_RETURN(op.token_slot, Declare(path + ".token", in.token(), true));
  }
  if ((k == ATOMIC_ADD || k == ATOMIC_CAS) && !in.result().empty()) {
    ASSIGN_OR_RETURN(op.result_slot, Declare(path + ".result", in.result(), false));
  }
  *id = op.id;
  p_->ops[op.id] = std::move(op);
  return absl::OkStatus();
}

absl::Status Compiler::Run() {
  Program& p = *p_;
  p.name = proto_.name();
  p.proto = proto_;
  if (proto_.ranks() < 0 || proto_.ranks() > 1024)
    return Error("ranks", "must be 1..1024");
  if (proto_.ranks() > 0) p.ranks = proto_.ranks();
  if (proto_.ranks_per_node() < 0) return Error("ranks_per_node", "must be >= 0");
  p.ranks_per_node = proto_.ranks_per_node();
  if (proto_.cta_slots() < 0) return Error("cta_slots", "must be >= 0");
  p.cta_slots = proto_.cta_slots();
  if (!proto_.backend().empty() && proto_.backend() != "nvidia" && proto_.backend() != "amd")
    return Error("backend", absl::StrCat("'", proto_.backend(), "' is not nvidia or amd"));
  p.amd = proto_.backend() == "amd";
  p.native_p2p_atomics = !proto_.no_native_p2p_atomics();
  if (proto_.ctas() < 0) return Error("ctas", "must be >= 0");
  if (proto_.ctas() > 0) p.ctas = proto_.ctas();
  if (proto_.iterations() < 0) return Error("iterations", "must be >= 0");
  if (proto_.iterations() > 0) p.iterations = proto_.iterations();
  if (proto_.max_states() < 0) return Error("max_states", "must be >= 0");
  if (proto_.max_states() > 0) p.max_states = proto_.max_states();
  p.expect = proto_.expect();

  for (const char* n : {"r", "N", "c", "G", "E", "l"}) NewSlot(n);
  for (int i = 0; i < kSlotL; ++i) scope_.push_back({p.slot_names[i], i, false});
  for (int i = 0; i < proto_.params_size(); ++i) {
    const SignalParam& prm = proto_.params(i);
    RETURN_IF_ERROR(Declare(absl::StrCat("params[", i, "].name"), prm.name(), false).status());
    p.param_values.push_back(prm.value());
  }
  std::set<std::string> names;
  for (int i = 0; i < proto_.objects_size(); ++i) {
    const SymObject& o = proto_.objects(i);
    const std::string path = absl::StrCat("objects[", i, "]");
    if (o.name().empty()) return Error(path + ".name", "an object needs a name");
    if (!names.insert(o.name()).second)
      return Error(path + ".name", absl::StrCat("object '", o.name(), "' is declared twice"));
    Object obj;
    obj.name = o.name();
    obj.dtype = o.dtype() == DTYPE_UNSPECIFIED ? U64 : o.dtype();
    switch (obj.dtype) {
      case U32: case I32: case F32: obj.bytes = 4; break;
      case F16: case BF16: obj.bytes = 2; break;
      case U8: obj.bytes = 1; break;
      default: obj.bytes = 8; break;
    }
    obj.is_float = obj.dtype == F16 || obj.dtype == BF16 || obj.dtype == F32;
    obj.init = o.init();
    obj.local = o.local();
    ASSIGN_OR_RETURN(obj.size, Compile(path + ".size", o.size(), "1"));
    p.objects.push_back(std::move(obj));
  }
  if (proto_.kernels_size() == 0) return Error("kernels", "a program needs at least one kernel");
  std::set<std::string> knames;
  for (int i = 0; i < proto_.kernels_size(); ++i) {
    const SignalKernel& kp = proto_.kernels(i);
    if (kp.name().empty()) return Error(absl::StrCat("kernels[", i, "].name"), "a kernel needs a name");
    if (!knames.insert(kp.name()).second)
      return Error(absl::StrCat("kernels[", i, "].name"),
                   absl::StrCat("kernel '", kp.name(), "' is declared twice"));
    if (kp.threads() < 0 || kp.threads() > 1024)
      return Error(absl::StrCat("kernels[", i, "].threads"), "must be 1..1024");
    Kernel k;
    k.name = kp.name();
    k.threads = kp.threads() > 0 ? kp.threads() : 128;
    k.cooperative = kp.cooperative();
    p.kernels.push_back(std::move(k));
  }
  for (int i = 0; i < proto_.kernels_size(); ++i)
    RETURN_IF_ERROR(CheckNesting(absl::StrCat("kernels[", i, "].body"), proto_.kernels(i).body()));
  for (int i = 0; i < proto_.streams_size(); ++i)
    RETURN_IF_ERROR(CheckNesting(absl::StrCat("streams[", i, "].body"), proto_.streams(i).body()));
  // Default sites: numbered per kind in textual order, kernels first, then streams.
  for (const SignalKernel& kp : proto_.kernels()) AssignSites(kp.body());
  size_t kernel_sites = default_sites_.size();
  for (const SignalStream& sp : proto_.streams()) AssignSites(sp.body());

  // Streams first: their loop variables are in scope in the kernels they launch.
  next_site_ = kernel_sites;
  std::set<std::string> snames;
  for (int i = 0; i < proto_.streams_size(); ++i) {
    const SignalStream& sp = proto_.streams(i);
    const std::string path = absl::StrCat("streams[", i, "]");
    Stream s;
    s.name = sp.name().empty() ? absl::StrCat("stream", i) : sp.name();
    if (!snames.insert(s.name).second)
      return Error(path + ".name", absl::StrCat("stream '", s.name, "' is declared twice"));
    RETURN_IF_ERROR(CompileBody(path + ".body", sp.body(), true, &s.body));
    p.streams.push_back(std::move(s));
  }
  next_site_ = 0;
  size_t base = scope_.size();
  for (size_t i = 0; i < extra_names_.size(); ++i) {
    bool dup = false;
    for (const Name& n : scope_) dup |= n.name == extra_names_[i];
    if (!dup) scope_.push_back({extra_names_[i], extra_slots_[i], false});
  }
  for (int i = 0; i < proto_.kernels_size(); ++i) {
    const SignalKernel& kp = proto_.kernels(i);
    const std::string path = absl::StrCat("kernels[", i, "]");
    ASSIGN_OR_RETURN(p.kernels[i].grid, Compile(path + ".grid", kp.grid(), "G"));
    if (kp.body_size() == 0) return Error(path + ".body", "a kernel needs a body");
    RETURN_IF_ERROR(CompileBody(path + ".body", kp.body(), false, &p.kernels[i].body));
  }
  scope_.resize(base);
  if (p.streams.empty()) {
    // One stream per kernel that launches it once.
    for (size_t i = 0; i < p.kernels.size(); ++i) {
      Op launch;
      launch.kind = LAUNCH;
      launch.kernel = static_cast<int>(i);
      launch.site = absl::StrCat("launch ", p.kernels[i].name);
      launch.path = "(default stream)";
      launch.id = static_cast<int>(p.ops.size());
      p.ops.push_back(launch);
      Stream s;
      s.name = p.kernels[i].name;
      s.body.push_back(launch.id);
      p.streams.push_back(std::move(s));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Program> CompileProgram(const SignalProgram& proto, absl::string_view file,
                                       const LoadOverrides& overrides) {
  SignalProgram copy = proto;
  if (overrides.ranks > 0) copy.set_ranks(overrides.ranks);
  if (overrides.ctas >= 0) copy.set_ctas(static_cast<int32_t>(overrides.ctas));
  if (overrides.iterations >= 0) copy.set_iterations(static_cast<int32_t>(overrides.iterations));
  if (overrides.max_states > 0) copy.set_max_states(overrides.max_states);
  Program p;
  p.file = std::string(file);
  Compiler c(copy, std::string(file), &p);
  RETURN_IF_ERROR(c.Run());
  return p;
}

absl::StatusOr<Program> LoadProgramFile(const std::string& path,
                                        const LoadOverrides& overrides) {
  SignalProgram proto;
  RETURN_IF_ERROR(sim::base::ParseTextProtoFile(path, &proto));
  absl::StatusOr<Program> program = CompileProgram(proto, path, overrides);
  if (!program.ok()) return sim::base::LocateInTextProtoFile(program.status(), path, proto);
  return program;
}

}  // namespace warpcheck::sim::signal
