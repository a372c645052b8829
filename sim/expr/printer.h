// Canonical text of expressions and programs.
//
// The printer is the one notation used in messages, test expectations and dumps. It
// puts one space around binary operators, none after prefix operators, and ", "
// between arguments, and it writes only the parentheses the grammar needs (plus one
// pair around a prefix operand that is itself prefixed: `-(-x)`). Programs print one
// statement per line; comments are not kept.
//
//     Print(ParseExpr("(a+b)*c-(d-e)"))  ==  "(a + b) * c - (d - e)"
//
// Ensures (round trip, tested): for every parsed e, Print(Parse(Print(e))) == Print(e),
// and the re-parsed tree Equals() the original; the same for programs.
#ifndef WARPCHECK_SIM_EXPR_PRINTER_H_
#define WARPCHECK_SIM_EXPR_PRINTER_H_

#include <string>

#include "sim/expr/ast.h"

namespace warpcheck::sim::expr {

std::string Print(const Expr& e);
std::string Print(const Program& p);
// Ensures: one statement as it appears in Print(Program), without the newline.
std::string Print(const Stmt& s);

}  // namespace warpcheck::sim::expr

#endif  // WARPCHECK_SIM_EXPR_PRINTER_H_
