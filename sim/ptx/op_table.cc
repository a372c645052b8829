#include "sim/ptx/op_table.h"

#include <cstring>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "sim/base/check.h"

namespace warpcheck::sim::ptx {

namespace {

// The table. Keep it in Opcode order; ptx_op_table_test checks that.
constexpr OpDesc kOps[] = {
    {Opcode::kMov, "mov", "type", "V,S", OpClass::kAlu, 1, 1,
     "copy, pack {a,b} or unpack into {a,b}"},
    {Opcode::kAdd, "add", "rnd ftz sat type", "d,s,s", OpClass::kAlu, 1, 1,
     "wrap-around add; f32/f64 round to nearest"},
    {Opcode::kSub, "sub", "rnd ftz sat type", "d,s,s", OpClass::kAlu, 1, 1,
     "wrap-around subtract"},
    {Opcode::kMul, "mul", "mul rnd ftz sat type", "d,s,s", OpClass::kAlu, 1, 1,
     "mul.lo/.hi/.wide (integers), mul (floats)"},
    {Opcode::kMad, "mad", "mul rnd ftz sat type", "d,s,s,s", OpClass::kAlu, 1, 1,
     "mad.lo/.hi/.wide"},
    {Opcode::kNeg, "neg", "ftz type", "d,s", OpClass::kAlu, 1, 1, "negate"},
    {Opcode::kAbs, "abs", "ftz type", "d,s", OpClass::kAlu, 1, 1, "absolute value"},
    {Opcode::kMin, "min", "ftz type", "d,s,s", OpClass::kAlu, 1, 1, "minimum"},
    {Opcode::kMax, "max", "ftz type", "d,s,s", OpClass::kAlu, 1, 1, "maximum"},
    {Opcode::kDiv, "div", "type", "d,s,s", OpClass::kAlu, 1, 1,
     "integer divide (x/0 = all ones)"},
    {Opcode::kRem, "rem", "type", "d,s,s", OpClass::kAlu, 1, 1,
     "integer remainder (x%0 = all ones)"},
    {Opcode::kAnd, "and", "type", "d,s,s", OpClass::kAlu, 1, 1,
     "bitwise and (also .pred)"},
    {Opcode::kOr, "or", "type", "d,s,s", OpClass::kAlu, 1, 1, "bitwise or (also .pred)"},
    {Opcode::kXor, "xor", "type", "d,s,s", OpClass::kAlu, 1, 1,
     "bitwise xor (also .pred)"},
    {Opcode::kNot, "not", "type", "d,s", OpClass::kAlu, 1, 1, "bitwise not (also .pred)"},
    {Opcode::kCnot, "cnot", "type", "d,s", OpClass::kAlu, 1, 1, "d = (a == 0)"},
    {Opcode::kShl, "shl", "type", "d,s,s", OpClass::kAlu, 1, 1,
     "shift left; amounts >= width give 0"},
    {Opcode::kShr, "shr", "type", "d,s,s", OpClass::kAlu, 1, 1,
     "shift right (.s arithmetic); amounts saturate"},
    {Opcode::kBfe, "bfe", "type", "d,s,s,s", OpClass::kAlu, 1, 1, "bit-field extract"},
    {Opcode::kBfi, "bfi", "type", "d,s,s,s,s", OpClass::kAlu, 1, 1, "bit-field insert"},
    {Opcode::kPrmt, "prmt", "type prmt", "d,s,s,s", OpClass::kSelpPrmt, 1, 1,
     "byte permute (default and .f4e .b4e .rc8 .ecl .ecr .rc16)"},
    {Opcode::kLop3, "lop3", "type", "d,s,s,s,i", OpClass::kAlu, 1, 1,
     "three-input logic by lookup table"},
    {Opcode::kPopc, "popc", "type", "d,s", OpClass::kAlu, 1, 1, "population count"},
    {Opcode::kClz, "clz", "type", "d,s", OpClass::kAlu, 1, 1, "count leading zeros"},
    {Opcode::kBrev, "brev", "type", "d,s", OpClass::kAlu, 1, 1, "bit reverse"},
    {Opcode::kSetp, "setp", "cmp ftz type bool", "P,s,s|P,s,s,q", OpClass::kAlu, 1, 1,
     "compare, optionally combined with a predicate"},
    {Opcode::kSelp, "selp", "type", "d,s,s,q", OpClass::kSelpPrmt, 1, 1, "d = c ? a : b"},
    {Opcode::kCvt, "cvt", "rnd ftz sat type", "d,s|d,s,s", OpClass::kAlu, 2, 2,
     "convert between integer and float types"},
    {Opcode::kCvta, "cvta", "to space type", "d,s", OpClass::kAlu, 1, 1,
     "convert between state-space and generic addresses"},
    {Opcode::kFma, "fma", "rnd ftz sat type", "d,s,s,s", OpClass::kAlu, 1, 1,
     "fused multiply-add (f32, f64)"},
    {Opcode::kLd, "ld", "sem scope space nc hint vec type", "V,a|V,a,s",
     OpClass::kLdGlobal, 1, 1, "load"},
    {Opcode::kSt, "st", "sem scope space hint vec type", "a,V|a,V,s", OpClass::kStGlobal,
     1, 1, "store"},
    {Opcode::kAtom, "atom", "sem scope space atom type", "d,a,s|d,a,s,s",
     OpClass::kAtomic, 1, 1, "atomic read-modify-write"},
    {Opcode::kRed, "red", "sem scope space atom type", "a,s", OpClass::kAtomic, 1, 1,
     "atomic reduction without result"},
    {Opcode::kCreatePolicy, "createpolicy", "policy hint type", "d,s|d", OpClass::kOther,
     1, 1, "cache policy (value 0 here)"},
    {Opcode::kShfl, "shfl.sync", "shfl type", "D,s,s,s,s", OpClass::kShfl, 1, 1,
     "warp shuffle (idx, bfly, up, down)"},
    {Opcode::kVote, "vote.sync", "vote type", "d,q,s", OpClass::kVote, 1, 1,
     "warp vote (all, any, uni, ballot)"},
    {Opcode::kActivemask, "activemask", "type", "d", OpClass::kVote, 1, 1,
     "mask of the lanes executing it"},
    {Opcode::kBarWarpSync, "bar.warp.sync", "", "s", OpClass::kWarpSync, 0, 0,
     "warp barrier over membermask"},
    {Opcode::kLdmatrix, "ldmatrix.sync.aligned", "shape num trans space type", "V,a",
     OpClass::kLdMatrix, 1, 1, "collective 8x8 b16 matrix load"},
    {Opcode::kStmatrix, "stmatrix.sync.aligned", "shape num trans space type", "a,V",
     OpClass::kStMatrix, 1, 1, "collective 8x8 b16 matrix store"},
    {Opcode::kBarSync, "bar.sync", "", "s|s,s", OpClass::kBarrier, 0, 0,
     "CTA barrier (aligned)"},
    {Opcode::kBarArrive, "bar.arrive", "", "s,s", OpClass::kBarrier, 0, 0,
     "arrive at a CTA barrier without waiting"},
    {Opcode::kBarrierSync, "barrier.sync", "aligned", "s|s,s", OpClass::kBarrier, 0, 0,
     "CTA barrier"},
    {Opcode::kBarrierArrive, "barrier.arrive", "aligned", "s,s", OpClass::kBarrier, 0, 0,
     "arrive at a CTA barrier"},
    {Opcode::kMembar, "membar", "scope", "", OpClass::kFence, 0, 0,
     "memory barrier (no-op here)"},
    {Opcode::kFence, "fence", "sem scope proxy space", "", OpClass::kFence, 0, 0,
     "memory fence (no-op here)"},
    {Opcode::kBra, "bra", "uni", "l", OpClass::kBranch, 0, 0, "branch"},
    {Opcode::kRet, "ret", "uni", "", OpClass::kBranch, 0, 0,
     "return: the thread exits (entry kernels)"},
    {Opcode::kExit, "exit", "", "", OpClass::kBranch, 0, 0, "the thread exits"},
    {Opcode::kNanosleep, "nanosleep", "type", "s", OpClass::kOther, 1, 1,
     "sleep (no-op here)"},
};
static_assert(sizeof(kOps) / sizeof(kOps[0]) == static_cast<size_t>(Opcode::kNumOpcodes));

struct Word {
  ModKind kind;
  int value;
};

// Every modifier word and the categories it can belong to; the opcode's allowed
// categories pick one (e.g. "lo" is a comparison for setp and a mode for mul).
const absl::flat_hash_map<std::string, std::vector<Word>>& WordTable() {
  static const auto* table = [] {
    auto* t = new absl::flat_hash_map<std::string, std::vector<Word>>();
    auto add = [&](const char* w, ModKind k, int v) { (*t)[w].push_back({k, v}); };
    add("global", ModKind::kSpace, int(Space::kGlobal));
    add("shared", ModKind::kSpace, int(Space::kShared));
    add("shared::cta", ModKind::kSpace, int(Space::kShared));
    add("shared::cluster", ModKind::kSpace, int(Space::kSharedCluster));
    add("local", ModKind::kSpace, int(Space::kLocal));
    add("param", ModKind::kSpace, int(Space::kParam));
    add("param::entry", ModKind::kSpace, int(Space::kParam));
    add("const", ModKind::kSpace, int(Space::kConst));
    add("v2", ModKind::kVec, 2);
    add("v4", ModKind::kVec, 4);
    const char* cmps[] = {"eq", "ne",  "lt",  "le",  "gt",  "ge",  "lo",  "ls",  "hi",
                          "hs", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};
    for (int i = 0; i < 18; ++i) add(cmps[i], ModKind::kCmp, i + 1);
    add("and", ModKind::kBool, int(BoolOp::kAnd));
    add("or", ModKind::kBool, int(BoolOp::kOr));
    add("xor", ModKind::kBool, int(BoolOp::kXor));
    const char* rnds[] = {"rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi"};
    for (int i = 0; i < 8; ++i) add(rnds[i], ModKind::kRnd, i + 1);
    add("ftz", ModKind::kFtz, 1);
    add("sat", ModKind::kSat, 1);
    add("lo", ModKind::kMul, int(MulMode::kLo));
    add("hi", ModKind::kMul, int(MulMode::kHi));
    add("wide", ModKind::kMul, int(MulMode::kWide));
    add("up", ModKind::kShfl, int(ShflMode::kUp));
    add("down", ModKind::kShfl, int(ShflMode::kDown));
    add("bfly", ModKind::kShfl, int(ShflMode::kBfly));
    add("idx", ModKind::kShfl, int(ShflMode::kIdx));
    add("all", ModKind::kVote, int(VoteMode::kAll));
    add("any", ModKind::kVote, int(VoteMode::kAny));
    add("uni", ModKind::kVote, int(VoteMode::kUni));
    add("ballot", ModKind::kVote, int(VoteMode::kBallot));
    add("f4e", ModKind::kPrmt, int(PrmtMode::kF4e));
    add("b4e", ModKind::kPrmt, int(PrmtMode::kB4e));
    add("rc8", ModKind::kPrmt, int(PrmtMode::kRc8));
    add("ecl", ModKind::kPrmt, int(PrmtMode::kEcl));
    add("ecr", ModKind::kPrmt, int(PrmtMode::kEcr));
    add("rc16", ModKind::kPrmt, int(PrmtMode::kRc16));
    add("and", ModKind::kAtomOp, int(AtomOp::kAnd));
    add("or", ModKind::kAtomOp, int(AtomOp::kOr));
    add("xor", ModKind::kAtomOp, int(AtomOp::kXor));
    add("cas", ModKind::kAtomOp, int(AtomOp::kCas));
    add("exch", ModKind::kAtomOp, int(AtomOp::kExch));
    add("add", ModKind::kAtomOp, int(AtomOp::kAdd));
    add("inc", ModKind::kAtomOp, int(AtomOp::kInc));
    add("dec", ModKind::kAtomOp, int(AtomOp::kDec));
    add("min", ModKind::kAtomOp, int(AtomOp::kMin));
    add("max", ModKind::kAtomOp, int(AtomOp::kMax));
    add("weak", ModKind::kSem, int(Sem::kWeak));
    add("volatile", ModKind::kSem, int(Sem::kVolatile));
    add("relaxed", ModKind::kSem, int(Sem::kRelaxed));
    add("acquire", ModKind::kSem, int(Sem::kAcquire));
    add("release", ModKind::kSem, int(Sem::kRelease));
    add("acq_rel", ModKind::kSem, int(Sem::kAcqRel));
    add("sc", ModKind::kSem, int(Sem::kSc));
    add("cta", ModKind::kScope, int(Scope::kCta));
    add("cluster", ModKind::kScope, int(Scope::kCluster));
    add("gpu", ModKind::kScope, int(Scope::kGpu));
    add("sys", ModKind::kScope, int(Scope::kSys));
    add("gl", ModKind::kScope, int(Scope::kGpu));  // membar.gl
    add("m8n8", ModKind::kShape, int(MatrixShape::kM8n8));
    add("m16n16", ModKind::kShape, int(MatrixShape::kM16n16));
    add("m16n8", ModKind::kShape, int(MatrixShape::kM16n8));
    add("m8n16", ModKind::kShape, int(MatrixShape::kM8n16));
    add("x1", ModKind::kNum, 1);
    add("x2", ModKind::kNum, 2);
    add("x4", ModKind::kNum, 4);
    add("trans", ModKind::kTrans, 1);
    add("uni", ModKind::kUni, 1);
    add("aligned", ModKind::kAligned, 1);
    add("to", ModKind::kTo, 1);
    add("nc", ModKind::kNc, 1);
    for (const char* w : {"ca", "cg", "cs", "lu", "cv", "wb", "wt"})
      add(w, ModKind::kHint, 0);
    for (const char* w : {"proxy", "async", "alias", "tensormap"})
      add(w, ModKind::kProxy, 0);
    for (const char* w : {"fractional", "range"}) add(w, ModKind::kPolicy, 0);
    return t;
  }();
  return *table;
}

const absl::flat_hash_map<std::string, ModKind>& CategoryNames() {
  static const auto* names = new absl::flat_hash_map<std::string, ModKind>{
      {"type", ModKind::kType},       {"space", ModKind::kSpace},
      {"vec", ModKind::kVec},         {"cmp", ModKind::kCmp},
      {"bool", ModKind::kBool},       {"rnd", ModKind::kRnd},
      {"ftz", ModKind::kFtz},         {"sat", ModKind::kSat},
      {"mul", ModKind::kMul},         {"shfl", ModKind::kShfl},
      {"vote", ModKind::kVote},       {"prmt", ModKind::kPrmt},
      {"atom", ModKind::kAtomOp},     {"sem", ModKind::kSem},
      {"scope", ModKind::kScope},     {"hint", ModKind::kHint},
      {"shape", ModKind::kShape},     {"num", ModKind::kNum},
      {"trans", ModKind::kTrans},     {"uni", ModKind::kUni},
      {"aligned", ModKind::kAligned}, {"to", ModKind::kTo},
      {"nc", ModKind::kNc},           {"proxy", ModKind::kProxy},
      {"policy", ModKind::kPolicy},
  };
  return *names;
}

std::vector<ModKind> AllowedKinds(const OpDesc& d) {
  std::vector<ModKind> out;
  for (absl::string_view w : absl::StrSplit(d.modifiers, ' ', absl::SkipEmpty())) {
    auto it = CategoryNames().find(std::string(w));
    WARPCHECK_CHECK(it != CategoryNames().end()) << "bad category " << std::string(w);
    out.push_back(it->second);
  }
  return out;
}

bool Allows(const std::vector<ModKind>& kinds, ModKind k) {
  for (ModKind x : kinds) {
    if (x == k) return true;
  }
  return false;
}

const char* kTypeNames[] = {"pred", "b8",    "b16",  "b32",    "b64", "b128", "u8",
                            "u16",  "u32",   "u64",  "s8",     "s16", "s32",  "s64",
                            "f16",  "f16x2", "bf16", "bf16x2", "f32", "f64"};

const char* CmpName(CmpOp c) {
  static const char* names[] = {"",    "eq",  "ne",  "lt",  "le",  "gt",  "ge",
                                "lo",  "ls",  "hi",  "hs",  "equ", "neu", "ltu",
                                "leu", "gtu", "geu", "num", "nan"};
  return names[int(c)];
}

}  // namespace

const char* TypeName(Type t) { return kTypeNames[int(t)]; }

std::optional<Type> ParseType(absl::string_view word) {
  for (int i = 0; i < int(sizeof(kTypeNames) / sizeof(kTypeNames[0])); ++i) {
    if (word == kTypeNames[i]) return Type(i);
  }
  return std::nullopt;
}

int TypeBits(Type t) {
  switch (t) {
    case Type::kPred:
      return 1;
    case Type::kB8:
    case Type::kU8:
    case Type::kS8:
      return 8;
    case Type::kB16:
    case Type::kU16:
    case Type::kS16:
    case Type::kF16:
    case Type::kBf16:
      return 16;
    case Type::kB32:
    case Type::kU32:
    case Type::kS32:
    case Type::kF32:
    case Type::kF16x2:
    case Type::kBf16x2:
      return 32;
    case Type::kB64:
    case Type::kU64:
    case Type::kS64:
    case Type::kF64:
      return 64;
    case Type::kB128:
      return 128;
  }
  return 0;
}

bool IsSigned(Type t) {
  return t == Type::kS8 || t == Type::kS16 || t == Type::kS32 || t == Type::kS64;
}

bool IsFloat(Type t) {
  return t == Type::kF16 || t == Type::kF16x2 || t == Type::kBf16 || t == Type::kBf16x2 ||
         t == Type::kF32 || t == Type::kF64;
}

const char* SpaceName(Space s) {
  switch (s) {
    case Space::kNone:
    case Space::kGeneric:
      return "";
    case Space::kGlobal:
      return "global";
    case Space::kShared:
      return "shared";
    case Space::kSharedCluster:
      return "shared::cluster";
    case Space::kLocal:
      return "local";
    case Space::kParam:
      return "param";
    case Space::kConst:
      return "const";
  }
  return "";
}

const char* OpClassName(OpClass c) {
  static const char* names[] = {
      "alu",      "selp_prmt",  "shfl",       "vote",      "ld_shared", "st_shared",
      "ldmatrix", "stmatrix",   "ld_global",  "st_global", "ld_param",  "ld_local",
      "st_local", "ld_generic", "st_generic", "atom",      "barrier",   "warp_sync",
      "fence",    "branch",     "other"};
  static_assert(sizeof(names) / sizeof(names[0]) == size_t(OpClass::kNumClasses));
  return names[int(c)];
}

absl::Span<const OpDesc> OpTable() { return absl::MakeConstSpan(kOps); }

const OpDesc& Desc(Opcode op) {
  WARPCHECK_CHECK(op < Opcode::kNumOpcodes);
  return kOps[int(op)];
}

OpClass ResolveClass(Opcode op, const Modifiers& mods) {
  if (op == Opcode::kLd) {
    switch (mods.space) {
      case Space::kShared:
      case Space::kSharedCluster:
        return OpClass::kLdShared;
      case Space::kGlobal:
      case Space::kConst:
        return OpClass::kLdGlobal;
      case Space::kParam:
        return OpClass::kLdParam;
      case Space::kLocal:
        return OpClass::kLdLocal;
      default:
        return OpClass::kLdGeneric;
    }
  }
  if (op == Opcode::kSt) {
    switch (mods.space) {
      case Space::kShared:
      case Space::kSharedCluster:
        return OpClass::kStShared;
      case Space::kGlobal:
      case Space::kConst:
        return OpClass::kStGlobal;
      case Space::kLocal:
        return OpClass::kStLocal;
      default:
        return OpClass::kStGeneric;
    }
  }
  return Desc(op).op_class;
}

namespace {

absl::StatusOr<ParsedOpcode> ParseOpcodeUncached(const std::string& text) {
  std::vector<std::string> words = absl::StrSplit(text, '.');
  // Longest dotted prefix that names an opcode.
  const OpDesc* desc = nullptr;
  size_t used = 0;
  for (size_t k = std::min<size_t>(words.size(), 3); k >= 1 && desc == nullptr; --k) {
    std::string name = absl::StrJoin(words.begin(), words.begin() + k, ".");
    for (const OpDesc& d : kOps) {
      if (name == d.name) {
        desc = &d;
        used = k;
        break;
      }
    }
  }
  if (desc == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("instruction '", words[0], "' is not in the PTX subset"));
  }
  ParsedOpcode out{desc->op, Modifiers{}};
  Modifiers& m = out.mods;
  std::vector<ModKind> allowed = AllowedKinds(*desc);
  std::vector<ModKind> seen;
  for (size_t i = used; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (w.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("empty modifier in '", text, "'"));
    }
    std::optional<Word> pick;
    if (std::optional<Type> t = ParseType(w);
        t.has_value() && Allows(allowed, ModKind::kType)) {
      if (int(m.types.size()) >= desc->max_types) {
        return absl::InvalidArgumentError(
            absl::StrCat("too many type modifiers in '", text, "'"));
      }
      m.types.push_back(*t);
      continue;
    }
    if ((absl::StartsWith(w, "L1::") || absl::StartsWith(w, "L2::")) &&
        (Allows(allowed, ModKind::kHint))) {
      m.hints.push_back(w);
      continue;
    }
    auto it = WordTable().find(w);
    if (it != WordTable().end()) {
      for (const Word& cand : it->second) {
        if (Allows(allowed, cand.kind)) {
          pick = cand;
          break;
        }
      }
    }
    if (!pick.has_value()) {
      return absl::InvalidArgumentError(absl::StrCat("modifier '.", w,
                                                     "' is not supported on '",
                                                     desc->name, "' in the PTX subset"));
    }
    bool repeatable = pick->kind == ModKind::kHint || pick->kind == ModKind::kProxy ||
                      pick->kind == ModKind::kPolicy;
    if (!repeatable) {
      for (ModKind s : seen) {
        if (s == pick->kind) {
          return absl::InvalidArgumentError(
              absl::StrCat("modifier '.", w, "' repeats a category in '", text, "'"));
        }
      }
      seen.push_back(pick->kind);
    }
    switch (pick->kind) {
      case ModKind::kSpace:
        m.space = Space(pick->value);
        break;
      case ModKind::kVec:
        m.vec = pick->value;
        break;
      case ModKind::kCmp:
        m.cmp = CmpOp(pick->value);
        break;
      case ModKind::kBool:
        m.bool_op = BoolOp(pick->value);
        break;
      case ModKind::kRnd:
        m.rnd = Rounding(pick->value);
        break;
      case ModKind::kFtz:
        m.ftz = true;
        break;
      case ModKind::kSat:
        m.sat = true;
        break;
      case ModKind::kMul:
        m.mul = MulMode(pick->value);
        break;
      case ModKind::kShfl:
        m.shfl = ShflMode(pick->value);
        break;
      case ModKind::kVote:
        m.vote = VoteMode(pick->value);
        break;
      case ModKind::kPrmt:
        m.prmt = PrmtMode(pick->value);
        break;
      case ModKind::kAtomOp:
        m.atom = AtomOp(pick->value);
        break;
      case ModKind::kSem:
        m.sem = Sem(pick->value);
        break;
      case ModKind::kScope:
        m.scope = Scope(pick->value);
        break;
      case ModKind::kShape:
        m.shape = MatrixShape(pick->value);
        break;
      case ModKind::kNum:
        m.num = pick->value;
        break;
      case ModKind::kTrans:
        m.trans = true;
        break;
      case ModKind::kUni:
        m.uni = true;
        break;
      case ModKind::kAligned:
        m.aligned = true;
        break;
      case ModKind::kTo:
        m.to = true;
        break;
      case ModKind::kNc:
        m.nc = true;
        break;
      case ModKind::kHint:
      case ModKind::kProxy:
      case ModKind::kPolicy:
        m.hints.push_back(w);
        break;
      case ModKind::kType:
        break;
    }
  }
  if (int(m.types.size()) < desc->min_types) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", text, "' needs ",
                     desc->min_types == 2 ? "two type modifiers" : "a type modifier"));
  }
  return out;
}

}  // namespace

// A kernel spells few distinct opcodes many times (an emitted harness: ~20 spellings in
// 500 instructions), and splitting one against the table costs a microsecond, so the
// successful parses are memoised per thread (bounded; errors are not cached).
absl::StatusOr<ParsedOpcode> ParseOpcode(absl::string_view text) {
  constexpr size_t kMaxCached = 4096;
  thread_local absl::flat_hash_map<std::string, ParsedOpcode> cache;
  auto it = cache.find(text);
  if (it != cache.end()) return it->second;
  const std::string word(text);
  absl::StatusOr<ParsedOpcode> parsed = ParseOpcodeUncached(word);
  if (parsed.ok() && cache.size() < kMaxCached) cache.emplace(word, *parsed);
  return parsed;
}

std::string FormatOpcode(Opcode op, const Modifiers& m) {
  const OpDesc& d = Desc(op);
  std::string out = d.name;
  auto word = [&](absl::string_view w) {
    if (!w.empty()) absl::StrAppend(&out, ".", w);
  };
  static const char* rnd_names[] = {"",    "rn",  "rz",  "rm", "rp",
                                    "rni", "rzi", "rmi", "rpi"};
  static const char* mul_names[] = {"", "lo", "hi", "wide"};
  static const char* shfl_names[] = {"", "up", "down", "bfly", "idx"};
  static const char* vote_names[] = {"", "all", "any", "uni", "ballot"};
  static const char* prmt_names[] = {"", "f4e", "b4e", "rc8", "ecl", "ecr", "rc16"};
  static const char* atom_names[] = {"",    "and", "or",  "xor", "cas", "exch",
                                     "add", "inc", "dec", "min", "max"};
  static const char* sem_names[] = {"",        "weak",    "volatile", "relaxed",
                                    "acquire", "release", "acq_rel",  "sc"};
  static const char* scope_names[] = {"", "cta", "cluster", "gpu", "sys"};
  static const char* shape_names[] = {"", "m8n8", "m16n16", "m16n8", "m8n16"};
  for (ModKind k : AllowedKinds(d)) {
    switch (k) {
      case ModKind::kType:
        for (Type t : m.types) word(TypeName(t));
        break;
      case ModKind::kSpace:
        word(SpaceName(m.space));
        break;
      case ModKind::kVec:
        if (m.vec > 1) word(absl::StrCat("v", m.vec));
        break;
      case ModKind::kCmp:
        word(CmpName(m.cmp));
        break;
      case ModKind::kBool:
        word(atom_names[int(m.bool_op)]);
        break;  // and/or/xor
      case ModKind::kRnd:
        word(rnd_names[int(m.rnd)]);
        break;
      case ModKind::kFtz:
        if (m.ftz) word("ftz");
        break;
      case ModKind::kSat:
        if (m.sat) word("sat");
        break;
      case ModKind::kMul:
        word(mul_names[int(m.mul)]);
        break;
      case ModKind::kShfl:
        word(shfl_names[int(m.shfl)]);
        break;
      case ModKind::kVote:
        word(vote_names[int(m.vote)]);
        break;
      case ModKind::kPrmt:
        word(prmt_names[int(m.prmt)]);
        break;
      case ModKind::kAtomOp:
        word(atom_names[int(m.atom)]);
        break;
      case ModKind::kSem:
        word(sem_names[int(m.sem)]);
        break;
      case ModKind::kScope:
        word(scope_names[int(m.scope)]);
        break;
      case ModKind::kShape:
        word(shape_names[int(m.shape)]);
        break;
      case ModKind::kNum:
        if (m.num > 0) word(absl::StrCat("x", m.num));
        break;
      case ModKind::kTrans:
        if (m.trans) word("trans");
        break;
      case ModKind::kUni:
        if (m.uni) word("uni");
        break;
      case ModKind::kAligned:
        if (m.aligned) word("aligned");
        break;
      case ModKind::kTo:
        if (m.to) word("to");
        break;
      case ModKind::kNc:
        if (m.nc) word("nc");
        break;
      case ModKind::kHint:
      case ModKind::kProxy:
      case ModKind::kPolicy:
        // All ignored words print once, at the first of these categories the op lists.
        break;
    }
    if (k == ModKind::kHint || k == ModKind::kProxy || k == ModKind::kPolicy) {
      // Print hints at the position of the first hint-like category only.
      bool first = true;
      for (ModKind j : AllowedKinds(d)) {
        if (j == k) break;
        if (j == ModKind::kHint || j == ModKind::kProxy || j == ModKind::kPolicy)
          first = false;
      }
      if (first) {
        for (const std::string& h : m.hints) word(h);
      }
    }
  }
  return out;
}

}  // namespace warpcheck::sim::ptx
