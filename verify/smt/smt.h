// warpcheck::verify::smt — the only door to Z3.
//
// Overview
// --------
// Everything in verify/ that needs a solver talks to this header; only verify/smt/*.cc
// includes <z3++.h> (STYLE.md, "Solver interaction"; Alive2 keeps Z3 behind smt/ the
// same way). The vocabulary is deliberately small — integer and Boolean terms, one
// named query at a time — because that is all the swizzle and layout proofs need:
//
//     smt::Context ctx;                       // owns one z3::context; one per
//     proof/thread smt::Term r = ctx.IntVar("R"); smt::Term i = ctx.IntVar("i");
//     smt::SolverResult res = ctx.Check("gemm.in_range",
//         {r >= 1, i >= 0, i < r * 3, !(smt::Div(i, r) < 3)}, options);
//     if (res.result == smt::SatResult::kSat) res.model.Int(i);   // a witness
//
// Terms are handles (a context pointer and an index), so this header exposes no Z3 type
// and copying a Term is free. A Term is valid while its Context lives; mixing terms of
// two contexts is a programming error (checked).
//
// Results are kept apart the way Alive2 keeps them (SAT / UNSAT / TIMEOUT / ERROR):
//
//     kSat      a model exists (for a property query: a counterexample)
//     kUnsat    no model (for a property query: a proof)
//     kUnknown  the solver gave up; reason_unknown says why (rlimit: "max. resource
//               limit exceeded" or "canceled") — callers report kInconclusive, never a
//               pass
//     kError    Z3 threw; `error` is absl::InternalError with the query name and Z3's
//     text
//
// No exception leaves this module: z3::exception is caught here, both in Check and while
// terms are built (a failed construction makes the Context "poisoned": the failing and
// all later terms are invalid, and every later Check returns kError with the first
// error).
//
// Budgets are deterministic: `rlimit` (Z3's resource counter, the same count on every
// machine for the same query) is the default; a wall-clock timeout exists only as an
// explicit option. Every query is named; names appear in errors, statistics and in the
// SMT-LIB text kept with `keep_smt2` (what a --smt-dump-dir would write).
//
// Integer semantics: Z3's integers are unbounded. Div and Mod are SMT-LIB's (Euclidean:
// a == b * Div(a, b) + Mod(a, b) with 0 <= Mod(a, b) < |b|), which coincides with floor
// division only when b > 0. The expression encoder (expr_encoder.h) builds the language's
// floor division on top of these and handles the sign of the divisor.
#ifndef WARPCHECK_VERIFY_SMT_SMT_H_
#define WARPCHECK_VERIFY_SMT_SMT_H_

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace warpcheck::verify::smt {

enum class SatResult : uint8_t { kSat, kUnsat, kUnknown, kError };
// Ensures: "sat", "unsat", "unknown", "error".
absl::string_view SatResultName(SatResult r);

// Options of one query, passed explicitly (there is no global solver state).
struct SolverOptions {
  // Z3's resource limit for this query (0: none). Deterministic: the same query spends
  // the same count on every machine (on the swizzle queries, very roughly 1e5..1e6 units
  // per 100 ms). Not a hard time bound everywhere: see verify/README.md.
  uint64_t rlimit = 50'000'000;
  // Wall-clock limit in milliseconds (0: none). Not deterministic; off by default.
  uint32_t timeout_ms = 0;
  // Keep the query as SMT-LIB 2 text in SolverResult::smt2.
  bool keep_smt2 = false;
  // Decide the query as bit-vectors: Z3's nla2bv tactic gives every integer variable a
  // bit-vector of the width its bounds need (so every variable needs bounds derivable
  // from the assertions), then bit-blasts. Exact for bounded problems; a query it does
  // not apply to comes back kUnknown ("bit-blasting: ..."), never kError.
  bool bitblast = false;
  // The query is pure bit-vector (QF_BV): decide it with Z3's qfbv tactic (simplify,
  // bit-blast, SAT), which on verify/layout's XOR maps is ~10-100x faster than the SMT
  // kernel. Still bounded by rlimit; unknown stays kUnknown.
  bool bitvector = false;
};

class Context;

// A handle to an integer, Boolean or bit-vector term of one Context.
class Term {
 public:
  Term() = default;
  bool valid() const { return ctx_ != nullptr && id_ >= 0; }
  Context* context() const { return ctx_; }
  bool is_bool() const;
  // Ensures: the width of a bit-vector term; 0 for an integer or Boolean term.
  int bv_width() const;
  // Ensures: the term in SMT-LIB syntax (for messages and tests).
  std::string ToString() const;
  // Ensures: true when `other` is the same Z3 term (Z3 shares structurally equal terms,
  //          so two encodings of one expression are the same term).
  bool Same(const Term& other) const;

 private:
  friend class Context;
  friend struct TermOps;
  Term(Context* ctx, int32_t id) : ctx_(ctx), id_(id) {}
  Context* ctx_ = nullptr;
  int32_t id_ = -1;
};

// Integer arithmetic: both operands int, or both bit-vectors of one width, read as signed
// two's complement (bvadd, bvsub, bvmul, bvneg, bvslt...: exact while no value leaves the
// width, which verify/smt/expr_encoder.h guarantees by sizing the width from ranges). An
// int64_t operand becomes a constant of the other operand's sort.
Term operator+(Term a, Term b);
Term operator-(Term a, Term b);
Term operator*(Term a, Term b);
Term operator-(Term a);
Term operator+(Term a, int64_t b);
Term operator-(Term a, int64_t b);
Term operator*(Term a, int64_t b);
Term operator+(int64_t a, Term b);
Term operator-(int64_t a, Term b);
Term operator*(int64_t a, Term b);
// SMT-LIB div / mod on integers (Euclidean; floor division only for b > 0, see above).
Term Div(Term a, Term b);
Term Mod(Term a, Term b);
Term Div(Term a, int64_t b);
Term Mod(Term a, int64_t b);
// Comparisons (int, or signed on bit-vectors) and equality (any one sort).
Term operator<(Term a, Term b);
Term operator<=(Term a, Term b);
Term operator>(Term a, Term b);
Term operator>=(Term a, Term b);
Term operator==(Term a, Term b);
Term operator!=(Term a, Term b);
Term operator<(Term a, int64_t b);
Term operator<=(Term a, int64_t b);
Term operator>(Term a, int64_t b);
Term operator>=(Term a, int64_t b);
Term operator==(Term a, int64_t b);
Term operator!=(Term a, int64_t b);
// Boolean connectives.
Term operator&&(Term a, Term b);
Term operator||(Term a, Term b);
Term operator!(Term a);
Term Implies(Term a, Term b);
// if c then a else b (a, b of one sort).
Term Ite(Term c, Term a, Term b);
Term Min(Term a, Term b);
Term Max(Term a, Term b);
// Ensures: the conjunction / disjunction (true / false when empty).
Term And(Context& ctx, absl::Span<const Term> terms);
Term Or(Context& ctx, absl::Span<const Term> terms);

// ---- Bit-vectors (symbolic PTX execution, verify/ptx) ----------------------------------
// Fixed-width two's-complement words of 1..64 bits (Context::Bv, BvVar). Operand widths
// must match where SMT-LIB says so; a mismatch poisons the context like any sort error.
// Extract(a, hi, lo) keeps bits hi..lo (hi >= lo); Concat(hi, lo) puts `hi` above `lo`.
Term Extract(Term a, int hi, int lo);
Term Concat(Term hi, Term lo);
Term ZeroExt(Term a, int extra_bits);
Term SignExt(Term a, int extra_bits);
Term BvNot(Term a);
Term BvNeg(Term a);
Term BvAnd(Term a, Term b);
Term BvOr(Term a, Term b);
Term BvXor(Term a, Term b);
Term BvAdd(Term a, Term b);
Term BvSub(Term a, Term b);
Term BvMul(Term a, Term b);
Term BvShl(Term a, Term b);   // shift amounts >= width give 0 (SMT-LIB)
Term BvLshr(Term a, Term b);
Term BvAshr(Term a, Term b);  // shift amounts >= width give the sign fill
Term BvUlt(Term a, Term b);
Term BvUle(Term a, Term b);
Term BvSlt(Term a, Term b);
Term BvSle(Term a, Term b);
// Division and remainder: unsigned (bvudiv, bvurem) and signed, truncating toward zero
// (bvsdiv, bvsrem: the remainder has the dividend's sign). Division by zero is SMT-LIB's
// (all ones / the dividend): callers guard it.
Term BvUdiv(Term a, Term b);
Term BvUrem(Term a, Term b);
Term BvSdiv(Term a, Term b);
Term BvSrem(Term a, Term b);
// Short forms of BvXor / BvAnd / BvOr (verify/plan writes F2 maps with them).
inline Term operator^(Term a, Term b) { return BvXor(a, b); }
inline Term operator&(Term a, Term b) { return BvAnd(a, b); }
inline Term operator|(Term a, Term b) { return BvOr(a, b); }

// A satisfying assignment of one kSat query. Valid while its Context lives.
class Model {
 public:
  Model() = default;
  bool has_value() const { return impl_ != nullptr; }
  // Ensures: the value of an integer term in the model, or of a bit-vector term read as
  // signed two's complement (unassigned symbols read as 0, Z3's
  //          model completion), or nullopt when there is no model, the term is invalid or
  //          the value does not fit in int64.
  std::optional<int64_t> Int(Term t) const;
  // Ensures: the value of a Boolean term (nullopt as above).
  std::optional<bool> Bool(Term t) const;
  // Ensures: the value of a bit-vector term of at most 64 bits (zero-extended).
  std::optional<uint64_t> Bits(Term t) const;
  // Ensures: the model in Z3's notation (for messages).
  std::string ToString() const;

  struct Impl;

 private:
  friend class Context;
  std::shared_ptr<const Impl> impl_;
};

// The outcome of one named query.
struct SolverResult {
  std::string query;  // the name given to Check
  SatResult result = SatResult::kError;
  std::string reason_unknown;  // kUnknown: Z3's reason_unknown()
  absl::Status error;          // kError: InternalError with context
  double ms = 0;               // wall time of check()
  uint64_t rlimit_used = 0;    // Z3's resource count spent by this query
  std::string smt2;            // with SolverOptions::keep_smt2
  Model model;                 // kSat
};

// Owns one z3::context and every Term built in it. Not thread-safe; one per thread.
class Context {
 public:
  Context();
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  Term Int(int64_t value);
  Term Bool(bool value);
  // Ensures: the integer / Boolean constant with this name (the same name gives the same
  //          symbol).
  Term IntVar(absl::string_view name);
  Term BoolVar(absl::string_view name);
  // Ensures: an integer constant with a name no other call returns ("prefix!N").
  Term FreshInt(absl::string_view prefix);
  // Bit-vectors. Requires: 1 <= bits <= 64.
  // Ensures: the constant `value` (truncated to `bits`) / the named bit-vector symbol.
  Term Bv(uint64_t value, int bits);
  Term BvVar(absl::string_view name, int bits);
  // Ensures: the value of `t` (Boolean: 0/1; bit-vector of <= 64 bits) when Z3's
  //          simplifier reduces it to a constant without a solver, else nullopt. Used to
  //          decide whether a value that went through symbolic arithmetic is in fact
  //          constant (an address, a branch condition).
  std::optional<uint64_t> ConstValue(Term t);

  // Runs one named query: are `assertions` (Boolean terms) satisfiable together? A fresh
  // solver is made for every call, so queries do not affect each other.
  SolverResult Check(absl::string_view name, absl::Span<const Term> assertions,
                     const SolverOptions& options);
  SolverResult Check(absl::string_view name, std::initializer_list<Term> assertions,
                     const SolverOptions& options) {
    return Check(name, absl::Span<const Term>(assertions.begin(), assertions.size()),
                 options);
  }

  // Ensures: OK, or the first error raised while building terms (InternalError).
  const absl::Status& status() const;

  struct Impl;

 private:
  friend class Term;
  friend class Model;
  friend struct TermOps;
  std::unique_ptr<Impl> impl_;
};

}  // namespace warpcheck::verify::smt

#endif  // WARPCHECK_VERIFY_SMT_SMT_H_
