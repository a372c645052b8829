#include "sim/ptx/printer.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace warpcheck::sim::ptx {

namespace {

std::string PrintImm(const Operand& o) {
  switch (o.imm_kind) {
    case ImmKind::kInt:
      if (o.hex) return absl::StrFormat("0x%X", o.bits);
      return absl::StrCat(static_cast<int64_t>(o.bits));
    case ImmKind::kF32:
      return absl::StrFormat("0f%08X", static_cast<uint32_t>(o.bits));
    case ImmKind::kF64:
      return absl::StrFormat("0d%016X", o.bits);
  }
  return "";
}

std::string PrintVariable(const Variable& v) {
  std::string out;
  if (v.is_extern) out += ".extern ";
  if (v.is_visible) out += ".visible ";
  out += absl::StrCat(".", SpaceName(v.space));
  if (v.align > 0) absl::StrAppend(&out, " .align ", v.align);
  absl::StrAppend(&out, " .", TypeName(v.type), " ", v.name);
  if (v.count == 0) {
    out += "[]";
  } else if (v.count > 0) {
    absl::StrAppend(&out, "[", v.count, "]");
  }
  if (!v.init.empty()) {
    std::vector<std::string> vals;
    for (uint64_t b : v.init) {
      if (v.type == Type::kF32) {
        vals.push_back(absl::StrFormat("0f%08X", static_cast<uint32_t>(b)));
      } else if (v.type == Type::kF64) {
        vals.push_back(absl::StrFormat("0d%016X", b));
      } else {
        vals.push_back(absl::StrCat(b));
      }
    }
    if (v.count < 0) {
      absl::StrAppend(&out, " = ", vals[0]);
    } else {
      absl::StrAppend(&out, " = {", absl::StrJoin(vals, ", "), "}");
    }
  }
  out += ";";
  return out;
}

std::string PrintParam(const Param& p) {
  std::string out = absl::StrCat(".param .", TypeName(p.type));
  if (p.is_ptr) {
    out += " .ptr";
    if (p.ptr_space != Space::kGeneric && p.ptr_space != Space::kNone) {
      absl::StrAppend(&out, " .", SpaceName(p.ptr_space));
    }
  }
  if (p.align > 0) absl::StrAppend(&out, " .align ", p.align);
  absl::StrAppend(&out, " ", p.name);
  if (p.count > 0) absl::StrAppend(&out, "[", p.count, "]");
  return out;
}

}  // namespace

std::string PrintOperand(const Operand& o) {
  switch (o.kind) {
    case OperandKind::kReg:
      return absl::StrCat(o.negated ? "!" : "", o.name);
    case OperandKind::kSink:
      return "_";
    case OperandKind::kImm:
      return PrintImm(o);
    case OperandKind::kSpecial:
      return SpecialRegName(o.special);
    case OperandKind::kSymbol:
      return o.name;
    case OperandKind::kVector: {
      std::vector<std::string> parts;
      for (const Operand& e : o.elems) parts.push_back(PrintOperand(e));
      return absl::StrCat("{", absl::StrJoin(parts, ", "), "}");
    }
    case OperandKind::kAddress:
      if (o.name.empty()) return absl::StrCat("[", o.offset, "]");
      if (o.offset == 0) return absl::StrCat("[", o.name, "]");
      return absl::StrCat("[", o.name, "+", o.offset, "]");
    case OperandKind::kPair:
      return absl::StrCat(PrintOperand(o.elems[0]), "|", PrintOperand(o.elems[1]));
  }
  return "";
}

std::string PrintInstruction(const Instruction& in) {
  std::string out;
  if (in.guard.has_value()) {
    absl::StrAppend(&out, "@", in.guard->negated ? "!" : "", in.guard->name, " ");
  }
  out += in.opcode_text.empty() ? FormatOpcode(in.op, in.mods) : in.opcode_text;
  std::vector<std::string> ops;
  for (const Operand& o : in.operands) ops.push_back(PrintOperand(o));
  if (!ops.empty()) absl::StrAppend(&out, " ", absl::StrJoin(ops, ", "));
  return out;
}

std::string PrintKernel(const Kernel& k) {
  std::string out;
  if (k.is_visible) out += ".visible ";
  absl::StrAppend(&out, ".entry ", k.name, "(");
  for (size_t i = 0; i < k.params.size(); ++i) {
    absl::StrAppend(&out, i == 0 ? "\n" : ",\n", "\t", PrintParam(k.params[i]));
  }
  out += k.params.empty() ? ")\n" : "\n)\n";
  if (!k.reqntid.empty())
    absl::StrAppend(&out, ".reqntid ", absl::StrJoin(k.reqntid, ", "), "\n");
  if (!k.maxntid.empty())
    absl::StrAppend(&out, ".maxntid ", absl::StrJoin(k.maxntid, ", "), "\n");
  if (k.minnctapersm > 0) absl::StrAppend(&out, ".minnctapersm ", k.minnctapersm, "\n");
  if (k.maxnreg > 0) absl::StrAppend(&out, ".maxnreg ", k.maxnreg, "\n");
  out += "{\n";
  int depth = 1;
  auto indent = [&](int d) { return std::string(d, '\t'); };
  for (const Statement& s : k.body) {
    switch (s.kind) {
      case Statement::Kind::kRegDecl: {
        std::vector<std::string> names;
        for (const RegDecl& r : s.regs) {
          names.push_back(r.count < 0 ? r.name : absl::StrCat(r.name, "<", r.count, ">"));
        }
        absl::StrAppend(&out, indent(depth), ".reg .", TypeName(s.regs[0].type), " ",
                        absl::StrJoin(names, ", "), ";\n");
        break;
      }
      case Statement::Kind::kInstruction:
        absl::StrAppend(&out, indent(depth), PrintInstruction(s.insn), ";\n");
        break;
      case Statement::Kind::kLabel:
        absl::StrAppend(&out, s.label, ":\n");
        break;
      case Statement::Kind::kScopeBegin:
        absl::StrAppend(&out, indent(depth), "{\n");
        ++depth;
        break;
      case Statement::Kind::kScopeEnd:
        --depth;
        absl::StrAppend(&out, indent(depth), "}\n");
        break;
      case Statement::Kind::kVariable:
        absl::StrAppend(&out, indent(depth), PrintVariable(s.var), "\n");
        break;
    }
  }
  out += "}\n";
  return out;
}

std::string PrintModule(const Module& m) {
  std::string out;
  if (!m.version.empty()) absl::StrAppend(&out, ".version ", m.version, "\n");
  if (!m.target.empty()) absl::StrAppend(&out, ".target ", m.target, "\n");
  absl::StrAppend(&out, ".address_size ", m.address_size, "\n");
  if (!m.variables.empty()) out += "\n";
  for (const Variable& v : m.variables) absl::StrAppend(&out, PrintVariable(v), "\n");
  for (const Kernel& k : m.kernels) absl::StrAppend(&out, "\n", PrintKernel(k));
  return out;
}

}  // namespace warpcheck::sim::ptx
