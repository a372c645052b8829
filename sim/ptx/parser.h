// Parser for the PTX subset (shared/spec/ptx-subset.md).
//
// Reads a whole module: header directives, module-scope variables and `.entry` kernels.
// Everything outside the subset is an InvalidArgument error `FILE:LINE:COLUMN: what`
// (a `.func`, an opcode or modifier missing from op_table.h, an operand of the wrong
// shape, an undeclared register, an unknown label). Debug information (`.loc`, `.file`,
// `.section` blocks with nested `{ }`) and `.pragma` are read and dropped.
//
// Triton 3.6's PTX parses unchanged (tests/sim/ptx/ptx_parser_test.cc runs the samples
// in tests/sim/machine/testdata and the corpus).
#ifndef WARPCHECK_SIM_PTX_PARSER_H_
#define WARPCHECK_SIM_PTX_PARSER_H_

#include <cstddef>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "sim/ptx/ast.h"

namespace warpcheck::sim::ptx {

// Limits on hostile input. Each is far above real PTX (a Triton kernel is a few thousand
// statements; debug sections a few hundred thousand tokens) and keeps a hostile file to
// a few hundred MB: past one, ParseModule answers InvalidArgument at the position where
// it was crossed. The tree costs ~0.5 KB per statement, a token ~0.1 KB.
inline constexpr size_t kMaxPtxBytes = size_t{32} << 20;  // the text (text_limit.h)
inline constexpr size_t kMaxPtxTokens = size_t{1} << 20;
inline constexpr size_t kMaxPtxStatements = size_t{1} << 18;  // all kernel bodies
inline constexpr int kMaxPtxScopeDepth = 64;                 // nested `{ }` in a body
inline constexpr size_t kMaxPtxRegisters = size_t{1} << 20;  // declared in one kernel

// Requires: nothing. Ensures: the module, or InvalidArgument naming `file_name:line:col`
// of the first error ("<ptx>" when file_name is empty).
absl::StatusOr<Module> ParseModule(absl::string_view text,
                                   const std::string& file_name = "");

// Reads `path` (NotFound / InvalidArgument when unreadable) and parses it.
absl::StatusOr<Module> ParseModuleFile(const std::string& path);

// Ensures: every SourceLoc in `module` is zeroed, so that trees parsed from different
// spellings of the same program compare equal.
void ClearLocations(Module* module);

}  // namespace warpcheck::sim::ptx

#endif  // WARPCHECK_SIM_PTX_PARSER_H_
