// ExprEncoder: sim/expr expressions as Z3 integer and Boolean terms.
//
// Overview
// --------
// The expression language (sim/expr/ast.h) is int64 arithmetic with floor division, min,
// max, cdiv, comparisons and lazy select/&&/||. The encoder turns an expression into a
// smt::Term over terms bound to its free names, plus a *definedness* condition: the
// Boolean term under which the concrete evaluators (sim/expr/eval.h) would succeed. Both
// are exact:
//
//     value    the mathematical value, which equals the int64 value whenever `defined`
//              holds (no operation on the evaluated path overflowed);
//     defined  no division/modulo/cdiv by zero and no int64 overflow on the path the lazy
//              operators actually evaluate: for `select(b != 0, a // b, 0)` it is true.
//
// Worked example: with s bound to the constant 3 and R to a variable in 1..65536,
//
//     iter // (s * R)    ->   q!0   with  s*R > 0 -> (iter = (s*R)*q!0 + r!0,
//                                                      0 <= r!0 < s*R)  (side condition)
//     cdiv(C, s)         ->   (div (+ C 2) 3)                  (constant divisor, native)
//
// Division. Z3's div/mod are Euclidean (0 <= mod < |b|); they are floor division only
// for b > 0. The encoder therefore chooses per node:
//   * divisor a positive constant (or bound to one): native div/mod — linear for Z3;
//   * divisor a negative constant: floor(a / b) = div(-a, -b), and a % b = -mod(-a, -b);
//   * any other divisor: a fresh quotient q and remainder r with the side conditions
//         b > 0 -> a = b*q + r && 0 <= r < b
//         b < 0 -> a = b*q + r && b < r <= 0
//     which is floor division for either sign (measured: several times faster than
//     native div on the swizzle maps, since Z3 then sees the products it must reason
//     about). For b = 0 both are unconstrained, and `defined` is false on that path.
//   * optionally (set_small_divisor_cases(n)), a non-constant divisor whose range reaches
//     into 1..n: q = ite(b == v1, a div v1, ite(b == v2, a div v2, ... q!k)) over its
//     first n positive values, the fresh q!k (with the side conditions above, guarded to
//     the other values) for the rest. Each case is linear; e.g. the width w = 1..s of a
//     partial last group in `j // w` no longer needs Z3's nonlinear core.
//   * optionally (set_small_quotient_cases(n)), a dividend >= 0 over a divisor >= 1 whose
//     values the divisor cases do not all cover: q = ite(a < b, 0, ite(a < 2*b, 1, ...
//     q!k)) and r = a - m*b in case m, the fresh pair only for a >= n*b. Each case is
//     linear in b, so `iter // (p * D)` with a symbolic D needs no nonlinear step while
//     the quotient stays below n.
//   * optionally (set_case_obligations), the divisor cases without the fallback's side
//     condition: the fallback quotient is free and the division records the obligation
//     lo <= b <= hi instead (an over-approximation, exact once a query proves every
//     obligation: verify/README.md, "Fourth pass").
//   * SetDigits(x, S, g, j): x // S and x % S are the caller's digits g, j.
// Residues. With digits x = g*S + j, a read x % E by another divisor E (Triton's
// persistent grouped order: tile_id % group_size beside tile_id // (G*n)) would need the
// product g*S. Since S = (S % E) (mod E), x % E = (g*(S % E) + j) % E exactly, and S % E
// has few values when E does (|E| <= the divisor cases): g*(S % E) is one linear case
// per value, the two remainders are divisor cases. With case obligations the product's
// last branch is free and S % E's range is an obligation, as for factor cases.
// Products. x * y of two non-constants is nonlinear for Z3. Optionally
// (set_small_factor_cases(n)), when the factor with the fewer values, x, has at most n
// (its range lo..hi), the product is ite(x == lo, lo*y, ite(x == lo+1, (lo+1)*y, ...
// x*y)): one linear case per value, the exact product only past them. With case
// obligations the last branch is a fresh unconstrained term instead and the product
// records the obligation lo <= x <= hi, as the divisor cases do (composable_kernel's
// `idx_M01 * n0`, idx_M01 = idx_M0 % M01 in 0..M01-1: verify/README.md, "Sixth pass").
//   cdiv(a, b) = -(-a // b), exact for either sign.
// The side conditions are definitional (every a, b has exactly one such q, r), so adding
// them to a query changes neither satisfiability nor models of the original variables;
// every query that uses encoded terms must assert side_conditions().
//
// Overflow. A value range is computed for every node from the ranges given to Bind
// (interval arithmetic in 128 bits). Where the range of a node does not fit in int64, its
// definedness gets the conjunct INT64_MIN <= value <= INT64_MAX (the evaluator fails
// exactly when the mathematical value of the first such node leaves that range). The
// ranges also tell the encoder when a divisor is known positive.
//
// Bit-vectors. ExprEncoder(ctx, w) encodes the same language as signed w-bit
// bit-vectors (smt.h's arithmetic operators are signed on bit-vectors), for Z3's QF_BV
// bit-blaster. It is exact because every value stays inside the width: the ranges above
// bound every node, and a node whose range needs more than w bits makes Encode fail
// (FailedPrecondition) instead of wrapping. Callers size w from an integer encoding of the
// same program first: RequiredWidth() is the widest signed range seen (shared by forks),
// so w = RequiredWidth() + 1 leaves a spare bit for the division fix-ups below. Division:
//   * dividend >= 0 and divisor a positive power of two 2^k: a >> k and a & (2^k - 1);
//   * dividend >= 0 and divisor >= 0: bvudiv / bvurem (Z3 bit-blasts constant divisors
//     to small circuits);
//   * otherwise: bvsdiv / bvsrem truncate toward zero; when the remainder is non-zero and
//     its sign differs from the divisor's, q - 1 and r + b give floor division.
//   cdiv(a, b) with a >= 0 and b > 0 is (a + b - 1) // b, else -((-a) // b).
// No fresh variables are made, so side_conditions() stays empty.
//
// Sharing. Results are memoised by node address (Program::InlineLets returns DAGs).
// Fork() copies the encoder — bindings, memo, ranges — so that a second copy of a
// computation (e.g. the map at a second iteration, for an injectivity query) reuses
// everything that depends only on the parameters, and re-encodes only what depends on
// rebound names.
#ifndef WARPCHECK_VERIFY_SMT_EXPR_ENCODER_H_
#define WARPCHECK_VERIFY_SMT_EXPR_ENCODER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "sim/expr/ast.h"
#include "verify/smt/smt.h"

namespace warpcheck::verify::smt {

// A closed range of values, in 128 bits so that int64 overflow is visible.
struct ValueRange {
  __int128 lo = 0;
  __int128 hi = 0;
  bool FitsInt64() const;
  bool Positive() const { return lo > 0; }
  bool Constant() const { return lo == hi; }
};

class ExprEncoder {
 public:
  // One encoded expression.
  struct Encoded {
    Term value;                   // Int or Bool term
    std::optional<Term> defined;  // nullopt: always defined
    ValueRange range;             // for ints; {0, 1} for bools
    uint64_t serial = 0;          // the newest binding it depends on (memo bookkeeping)
    // Ensures: the definedness as a term (true when always defined).
    Term Defined(Context& ctx) const { return defined ? *defined : ctx.Bool(true); }
  };

  // bv_width 0: integers; 1..64: signed bit-vectors of that width (see "Bit-vectors").
  explicit ExprEncoder(Context& ctx, int bv_width = 0);

  int bv_width() const { return bv_width_; }
  // Integers: a divisor that is not constant is split into the cases b == v for its
  // first `n` positive values v (native division by each), a fresh quotient for the rest
  // (0: never). See "Division".
  void set_small_divisor_cases(int n) { small_divisor_cases_ = n; }
  // Integers: a division of a non-negative dividend by a positive non-constant divisor
  // gets its first `n` quotient values as the linear cases m*b <= a < (m+1)*b, a fresh
  // quotient only for a >= n*b (0: never). See "Division".
  void set_small_quotient_cases(int n) { small_quotient_cases_ = n; }
  // Integers: a product of two non-constants whose one factor takes at most `n` values
  // (by its range) is split into one linear case per value (0: never). See "Products".
  void set_small_factor_cases(int n) { small_factor_cases_ = n; }
  // Integers, with divisor cases: the fallback quotient for divisor values past the cases
  // is left unconstrained (no product b*q for Z3's nonlinear core), and each such division
  // records the *obligation* lo <= b <= hi (its case range) instead. The encoding is then
  // an over-approximation of the map (every real run is a model, the fallback set to the
  // real quotient), exact wherever every obligation holds: a caller proves the
  // obligations (unsat of "some obligation fails") before it assumes them. See "Division".
  void set_case_obligations(bool on) { case_obligations_ = on; }
  // The obligations recorded so far (shared by forks), in encoding order.
  const std::vector<Term>& obligations() const { return *obligations_; }
  // Integers: `dividend // divisor` and `dividend % divisor` (the very terms, see
  //          Term::Same) are `q` and `r`: the caller states q, r as the digits of the
  //          dividend (0 <= r < divisor, dividend = q*divisor + r). This encoder only
  //          (not shared by forks made before the call).
  //          With `residues` (and factor cases on), `dividend % E` for another E is
  //          the residue ((q * (divisor % E)) + r) % E, exact for every E != 0 (divisor
  //          and the dividend are congruent modulo E), with the product as factor
  //          cases over the values of divisor % E (see "Residues").
  void SetDigits(Term dividend, Term divisor, ValueRange divisor_range, Term q, Term r,
                 bool residues) {
    digits_ = Digits{dividend, divisor, divisor_range, q, r, residues};
  }
  // Ensures: how many nodes encoded so far (by this encoder and its forks) are nonlinear
  //          for the integer encoding: a product of two non-constants (without factor
  //          cases, set_small_factor_cases), or a division by a
  //          non-constant without a case split (set_small_divisor_cases). 0: every
  //          nonlinear term is behind a case split's fallback, if anywhere.
  int nonlinear_nodes() const { return *nonlinear_; }
  // Ensures: the constant v in this encoder's sort (Int, or a bit-vector of bv_width).
  Term Num(int64_t v) const;
  // Ensures: the fewest bits of a signed word that hold every range bound or encoded so far
  //          by this encoder and its forks (101 when some range left int64).
  int RequiredWidth() const { return *widest_; }
  // Ensures: the fewest bits of a signed word holding every value of `r`.
  static int SignedBits(const ValueRange& r);

  // Binds a name (a parameter, input or let) to a term whose values lie in [lo, hi].
  // Rebinding a name forgets every memoised result that may depend on it (everything
  // encoded since the name was first bound).
  void Bind(const std::string& name, Term value, int64_t lo, int64_t hi);
  void Bind(const std::string& name, Term value, ValueRange range);
  void BindConst(const std::string& name, int64_t value);
  void BindBool(const std::string& name, Term value);
  bool IsBound(const std::string& name) const { return names_.contains(name); }
  // Requires: IsBound(name).
  const Encoded& Lookup(const std::string& name) const;

  // Ensures: the encoding of `e`, or InvalidArgument for an unbound name.
  absl::StatusOr<Encoded> Encode(const sim::expr::ExprPtr& e);

  // A copy sharing the side-condition list (see "Sharing").
  [[nodiscard]] ExprEncoder Fork() const { return *this; }

  // The definitional constraints of the fresh quotient/remainder variables made so far
  // (shared by forks).
  const std::vector<Term>& side_conditions() const { return *side_; }
  Context& context() const { return *ctx_; }

 private:
  // An interior node being encoded: its operands' encodings, the result so far and the
  // conjuncts of its definedness (expr_encoder.cc).
  struct Node;

  // Ensures: the memoised encoding of `e`, or the first error below it.
  absl::StatusOr<Encoded> EncodeNode(const sim::expr::Expr& e);
  // A constant or a bound name. Requires: e is kIntConst, kBoolConst or kVar.
  absl::StatusOr<Encoded> EncodeLeaf(const sim::expr::Expr& e) const;
  // One function per family of interior nodes; each fills n.out and n.defined.
  // Requires: `kind` is of the family named; n.ops holds its operands.
  void EncodeArithmetic(sim::expr::ExprKind kind, Node& n);         // neg + - * min max
  void EncodeDivision(sim::expr::ExprKind kind, Node& n);           // floordiv mod cdiv
  static void EncodeComparison(sim::expr::ExprKind kind, Node& n);  // == != < <= > >=
  static void EncodeLogic(sim::expr::ExprKind kind, Node& n);       // not and or select
  // Floor division and remainder of a by b (integers / bit-vectors).
  void FloorDivMod(const Encoded& a, const Encoded& b, Term* q, Term* r);
  void FloorDivModBv(const Encoded& a, const Encoded& b, Term* q, Term* r) const;
  // cdiv on bit-vectors. Ensures: the value term.
  Term CdivBv(const Encoded& a, const Encoded& b) const;
  // Records the width `r` needs. Ensures: FailedPrecondition when it exceeds bv_width.
  absl::Status NoteRange(const ValueRange& r, const sim::expr::Expr* at) const;

  Context* ctx_;
  int bv_width_ = 0;
  int small_divisor_cases_ = 0;
  int small_quotient_cases_ = 0;
  int small_factor_cases_ = 0;
  bool case_obligations_ = false;
  std::shared_ptr<std::vector<Term>> obligations_ = std::make_shared<std::vector<Term>>();
  struct Digits {
    Term dividend, divisor;
    ValueRange divisor_range;
    Term q, r;
    bool residues = false;
  };
  // The residue route of SetDigits. Ensures: true and *r = a % b when a is the digits'
  // dividend, b is not their divisor, and divisor % b takes at most small_factor_cases_
  // values (by its range); false otherwise (nothing encoded).
  bool DigitResidue(const Encoded& a, const Encoded& b, Term* r);
  std::optional<Digits> digits_;
  std::shared_ptr<int> widest_;
  std::shared_ptr<int> nonlinear_ = std::make_shared<int>(0);
  absl::flat_hash_map<std::string, Encoded> names_;
  absl::flat_hash_map<const sim::expr::Expr*, Encoded> memo_;
  uint64_t next_serial_ = 1;
  // The shared_ptr keeps the expressions alive while memo_ holds their addresses.
  std::vector<sim::expr::ExprPtr> roots_;
  std::shared_ptr<std::vector<Term>> side_;
};

}  // namespace warpcheck::verify::smt

#endif  // WARPCHECK_VERIFY_SMT_EXPR_ENCODER_H_
