// Symbolic values of the PTX prover: words whose bits are *atoms*.
//
// A conversion kernel computes addresses, loop counters and branch conditions from the
// thread id and the launch parameters — all concrete — and only *moves* the tensor's
// bits: loads, stores, shuffles, `prmt`, `selp`, `mov.b32 {a, b}`, shifts and masks by
// constants, sign extension. So the prover keeps every value as a vector of bit atoms:
//
//     atom 0 / 1            a constant bit
//     atom 2 + k            bit k of the input space: bit (k mod 8) of input byte k / 8,
//                           where input bytes are every buffer's initial contents, then
//                           each CTA's uninitialised shared memory (Inputs below)
//     atom kOpaque | ...    bit b of opaque term t: the result of an operation that is
//                           not a bit move (an add of two data words, a xor of two
//                           symbolic bits), kept as a Z3 bit-vector term
//
// An operation on atoms that only moves, copies or fixes bits is exact and free; any
// other operation on a symbolic operand becomes one Z3 term (smt::BvAdd, ...), whose
// bits are again atoms, so the two kinds mix freely. A Value whose atoms are all
// constant is stored concretely (`sym == false`), which is the common case and the fast
// path: thread ids, addresses, loop counters.
//
// Atoms make the final query small: an output byte whose atoms are the atoms of the
// input byte it should equal is equal for every input *syntactically* (the Z3 terms would
// be the same term), so only bytes whose atoms differ reach the solver.
#ifndef WARPCHECK_VERIFY_PTX_SYM_VALUE_H_
#define WARPCHECK_VERIFY_PTX_SYM_VALUE_H_

#include <cstdint>
#include <vector>

namespace warpcheck::verify::ptx {

using Atom = uint32_t;
constexpr Atom kAtomZero = 0;
constexpr Atom kAtomOne = 1;
constexpr Atom kInputBase = 2;
constexpr Atom kOpaque = 0x8000'0000u;  // | term id << 6 | bit
constexpr uint32_t kMaxOpaqueTerms = 1u << 25;
constexpr uint64_t kMaxInputBits = (uint64_t{1} << 31) - kInputBase - 1;

inline bool IsConst(Atom a) { return a <= kAtomOne; }
inline bool IsInput(Atom a) { return a >= kInputBase && a < kOpaque; }
inline bool IsOpaque(Atom a) { return a >= kOpaque; }
inline uint64_t InputBit(Atom a) { return a - kInputBase; }
inline Atom InputAtom(uint64_t bit) { return kInputBase + static_cast<Atom>(bit); }
inline uint32_t OpaqueTerm(Atom a) { return (a & ~kOpaque) >> 6; }
inline int OpaqueBit(Atom a) { return static_cast<int>(a & 63); }
inline Atom OpaqueAtom(uint32_t term, int bit) {
  return kOpaque | (term << 6) | static_cast<Atom>(bit);
}

// A word of `width` bits (1 for predicates, up to 64), least significant bit first.
struct Value {
  uint8_t width = 0;
  bool sym = false;          // atoms hold the bits; otherwise `bits` does
  uint64_t bits = 0;         // the zero-extended value when !sym
  std::vector<Atom> atoms;   // `width` atoms when sym

  static Value Concrete(uint64_t v, int width) {
    Value r;
    r.width = static_cast<uint8_t>(width);
    r.bits = width >= 64 ? v : v & ((uint64_t{1} << width) - 1);
    return r;
  }
  Atom At(int i) const {
    return sym ? atoms[static_cast<size_t>(i)] : static_cast<Atom>((bits >> i) & 1);
  }
};

// Requires: atoms.size() in [1, 64]. Ensures: the value, stored concretely when every
// atom is a constant.
inline Value FromAtoms(std::vector<Atom> atoms) {
  Value r;
  r.width = static_cast<uint8_t>(atoms.size());
  bool all_const = true;
  uint64_t bits = 0;
  for (size_t i = 0; i < atoms.size(); ++i) {
    if (!IsConst(atoms[i])) {
      all_const = false;
      break;
    }
    bits |= uint64_t{atoms[i]} << i;
  }
  if (all_const) {
    r.bits = bits;
    return r;
  }
  r.sym = true;
  r.atoms = std::move(atoms);
  return r;
}

inline std::vector<Atom> AtomsOf(const Value& v) {
  if (v.sym) return v.atoms;
  std::vector<Atom> a(v.width);
  for (int i = 0; i < v.width; ++i) a[static_cast<size_t>(i)] = v.At(i);
  return a;
}

// Ensures: the low `width` bits of v, zero-extended (or sign-extended from v's top bit
// when `sign`) when v is narrower.
inline Value Resize(const Value& v, int width, bool sign = false) {
  if (width == v.width) return v;
  if (!v.sym) {
    uint64_t bits = v.bits;
    if (sign && width > v.width && v.width > 0 && ((bits >> (v.width - 1)) & 1)) {
      bits |= ~uint64_t{0} << v.width;
    }
    return Value::Concrete(bits, width);
  }
  std::vector<Atom> a(static_cast<size_t>(width));
  Atom fill = sign ? v.atoms[v.width - 1] : kAtomZero;
  for (int i = 0; i < width; ++i) a[static_cast<size_t>(i)] = i < v.width ? v.atoms[i] : fill;
  return FromAtoms(std::move(a));
}

}  // namespace warpcheck::verify::ptx

#endif  // WARPCHECK_VERIFY_PTX_SYM_VALUE_H_
