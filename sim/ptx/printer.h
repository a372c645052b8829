// Printer for the PTX subset: writes a Module back as PTX text that ptxas and ParseModule
// accept. Parsing the output again gives the same tree up to source positions
// (tests/sim/ptx/ptx_parser_test.cc checks that on Triton's PTX). Debug information is
// not printed: the parser dropped it. The layout is one walk shared by printing and
// LocateAsPrinted, so positions and text agree (tests/sim/ptx/ptx_printer_test.cc).
#ifndef WARPCHECK_SIM_PTX_PRINTER_H_
#define WARPCHECK_SIM_PTX_PRINTER_H_

#include <string>

#include "sim/ptx/ast.h"

namespace warpcheck::sim::ptx {

// A body opens with its register declarations, then a blank line; `module.comment`
// comes first, as `//` lines.
std::string PrintModule(const Module& module);
std::string PrintKernel(const Kernel& kernel);
// Ensures: every kernel, parameter, variable, statement and instruction of `module` has
// the line and column where PrintModule(*module) writes it, as ParseModule of that text
// would give them (a tree built in code then reports faults at lines of its printed
// text); operand locations are left as they are.
void LocateAsPrinted(Module* module);
// One instruction without the trailing ';', e.g. "@!%p1 ld.global.v4.b32 {%r1, %r2,
// %r3, %r4}, [%rd3+16]". Uses the opcode as written when known, else FormatOpcode.
std::string PrintInstruction(const Instruction& insn);
std::string PrintOperand(const Operand& operand);

}  // namespace warpcheck::sim::ptx

#endif  // WARPCHECK_SIM_PTX_PRINTER_H_
