#include "sim/ptx/printer.h"

#include <type_traits>

#include "absl/functional/function_ref.h"
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

namespace {

// Appends the operand's text (the printer's inner loop: no temporaries).
void AppendOperand(std::string* out, const Operand& o) {
  switch (o.kind) {
    case OperandKind::kReg:
      if (o.negated) out->push_back('!');
      out->append(o.name);
      return;
    case OperandKind::kSink:
      out->push_back('_');
      return;
    case OperandKind::kImm:
      if (o.imm_kind == ImmKind::kInt && !o.hex) {
        absl::StrAppend(out, static_cast<int64_t>(o.bits));
      } else {
        out->append(PrintImm(o));
      }
      return;
    case OperandKind::kSpecial:
      out->append(SpecialRegName(o.special));
      return;
    case OperandKind::kSymbol:
      out->append(o.name);
      return;
    case OperandKind::kVector:
      out->push_back('{');
      for (size_t i = 0; i < o.elems.size(); ++i) {
        if (i > 0) out->append(", ");
        AppendOperand(out, o.elems[i]);
      }
      out->push_back('}');
      return;
    case OperandKind::kAddress:
      if (o.name.empty()) {
        absl::StrAppend(out, "[", o.offset, "]");
      } else if (o.offset == 0 && !o.zero_offset_written) {
        absl::StrAppend(out, "[", o.name, "]");
      } else {
        absl::StrAppend(out, "[", o.name, "+", o.offset, "]");
      }
      return;
    case OperandKind::kPair:
      AppendOperand(out, o.elems[0]);
      out->push_back('|');
      AppendOperand(out, o.elems[1]);
      return;
  }
}

void AppendInstruction(std::string* out, const Instruction& in) {
  if (in.guard.has_value()) {
    absl::StrAppend(out, "@", in.guard->negated ? "!" : "", in.guard->name, " ");
  }
  if (in.opcode_text.empty()) {
    out->append(FormatOpcode(in.op, in.mods));
  } else {
    out->append(in.opcode_text);
  }
  for (size_t i = 0; i < in.operands.size(); ++i) {
    out->append(i == 0 ? " " : ", ");
    AppendOperand(out, in.operands[i]);
  }
}

}  // namespace

std::string PrintOperand(const Operand& o) {
  std::string out;
  AppendOperand(&out, o);
  return out;
}

std::string PrintInstruction(const Instruction& in) {
  std::string out;
  AppendInstruction(&out, in);
  return out;
}

namespace {

// The printed layout of a module, walked once for both printing (the text) and
// LocateAsPrinted (where each piece lands), so the two cannot disagree. Lines count from
// 1 and columns from 1 with a tab as one column, as the lexer counts them.
class Layout {
 public:
  explicit Layout(std::string* out) : out_(out) {}
  // One line: `write` appends its text (only when printing). Ensures: its line number.
  int Line(absl::FunctionRef<void(std::string*)> write) {
    if (out_ != nullptr) {
      write(out_);
      out_->push_back('\n');
    }
    return line_++;
  }
  int Blank() {
    if (out_ != nullptr) out_->push_back('\n');
    return line_++;
  }

 private:
  std::string* out_;
  int line_ = 1;
};

// S is Statement (locate: the statement and its instruction or variable get the line and
// column it is printed at) or const Statement (print only).
template <typename S>
void WalkStatement(S& s, int depth, Layout& layout) {
  auto indent = [&](std::string* o) { o->append(static_cast<size_t>(depth), '\t'); };
  int line = 0;
  switch (s.kind) {
    case Statement::Kind::kRegDecl:
      line = layout.Line([&](std::string* o) {
        indent(o);
        absl::StrAppend(o, ".reg .", TypeName(s.regs[0].type), " ");
        for (size_t i = 0; i < s.regs.size(); ++i) {
          absl::StrAppend(o, i == 0 ? "" : ", ", s.regs[i].name);
          if (s.regs[i].count >= 0) absl::StrAppend(o, "<", s.regs[i].count, ">");
        }
        *o += ";";
      });
      break;
    case Statement::Kind::kInstruction:
      line = layout.Line([&](std::string* o) {
        indent(o);
        AppendInstruction(o, s.insn);
        o->push_back(';');
      });
      break;
    case Statement::Kind::kLabel:
      line = layout.Line([&](std::string* o) { absl::StrAppend(o, s.label, ":"); });
      break;
    case Statement::Kind::kScopeBegin:
    case Statement::Kind::kScopeEnd:
      line = layout.Line([&](std::string* o) {
        indent(o);
        *o += s.kind == Statement::Kind::kScopeBegin ? "{" : "}";
      });
      break;
    case Statement::Kind::kVariable:
      line = layout.Line([&](std::string* o) {
        indent(o);
        *o += PrintVariable(s.var);
      });
      break;
  }
  if constexpr (!std::is_const_v<S>) {
    const int column = s.kind == Statement::Kind::kLabel ? 1 : depth + 1;
    s.loc = SourceLoc{line, column};
    if (s.kind == Statement::Kind::kVariable) s.var.loc = s.loc;
    if (s.kind == Statement::Kind::kInstruction) {
      // After `@` or `@!`, the guard's name and a space.
      const auto& g = s.insn.guard;
      s.insn.loc = g.has_value() ? SourceLoc{line, column + 2 + g->negated +
                                                       static_cast<int>(g->name.size())}
                                 : s.loc;
    }
  }
}

// From `.entry` to the closing brace. The body is one line per statement, indented by
// scope depth, with a blank line after the register declarations that open it.
template <typename K>
void WalkKernel(K& k, Layout& layout) {
  const int entry = layout.Line([&](std::string* o) {
    absl::StrAppend(o, k.is_visible ? ".visible " : "", ".entry ", k.name,
                    k.params.empty() ? "()" : "(");
  });
  if constexpr (!std::is_const_v<K>) k.loc = SourceLoc{entry, k.is_visible ? 10 : 1};
  for (size_t i = 0; i < k.params.size(); ++i) {
    const int line = layout.Line([&](std::string* o) {
      absl::StrAppend(o, "\t", PrintParam(k.params[i]), i + 1 < k.params.size() ? "," : "");
    });
    if constexpr (!std::is_const_v<K>) k.params[i].loc = SourceLoc{line, 2};
  }
  if (!k.params.empty()) layout.Line([](std::string* o) { *o += ")"; });
  if (!k.reqntid.empty()) {
    layout.Line([&](std::string* o) {
      absl::StrAppend(o, ".reqntid ", absl::StrJoin(k.reqntid, ", "));
    });
  }
  if (!k.maxntid.empty()) {
    layout.Line([&](std::string* o) {
      absl::StrAppend(o, ".maxntid ", absl::StrJoin(k.maxntid, ", "));
    });
  }
  if (k.minnctapersm > 0) {
    layout.Line([&](std::string* o) { absl::StrAppend(o, ".minnctapersm ", k.minnctapersm); });
  }
  if (k.maxnreg > 0) {
    layout.Line([&](std::string* o) { absl::StrAppend(o, ".maxnreg ", k.maxnreg); });
  }
  layout.Line([](std::string* o) { *o += "{"; });
  int depth = 1;
  bool opening_decls = true;  // still in the register declarations that open the body
  for (size_t i = 0; i < k.body.size(); ++i) {
    auto& s = k.body[i];
    if (opening_decls && s.kind != Statement::Kind::kRegDecl) {
      opening_decls = false;
      if (i > 0) layout.Blank();
    }
    if (s.kind == Statement::Kind::kScopeEnd) --depth;
    WalkStatement(s, depth, layout);
    if (s.kind == Statement::Kind::kScopeBegin) ++depth;
  }
  layout.Line([](std::string* o) { *o += "}"; });
}

// M is Module (LocateAsPrinted) or const Module (PrintModule).
template <typename M>
void WalkModule(M& m, Layout& layout) {
  for (const std::string& c : m.comment) {
    layout.Line([&](std::string* o) { absl::StrAppend(o, c.empty() ? "//" : "// ", c); });
  }
  if (!m.version.empty()) {
    layout.Line([&](std::string* o) { absl::StrAppend(o, ".version ", m.version); });
  }
  if (!m.target.empty()) {
    layout.Line([&](std::string* o) { absl::StrAppend(o, ".target ", m.target); });
  }
  layout.Line([&](std::string* o) { absl::StrAppend(o, ".address_size ", m.address_size); });
  if (!m.variables.empty()) layout.Blank();
  for (auto& v : m.variables) {
    const int line = layout.Line([&](std::string* o) { *o += PrintVariable(v); });
    if constexpr (!std::is_const_v<M>) {
      v.loc = SourceLoc{line, 1 + (v.is_extern ? 8 : 0) + (v.is_visible ? 9 : 0)};
    }
  }
  for (auto& k : m.kernels) {
    layout.Blank();
    WalkKernel(k, layout);
  }
}

}  // namespace

std::string PrintKernel(const Kernel& k) {
  std::string out;
  Layout layout(&out);
  WalkKernel(k, layout);
  return out;
}

std::string PrintModule(const Module& m) {
  std::string out;
  Layout layout(&out);
  WalkModule(m, layout);
  return out;
}

void LocateAsPrinted(Module* m) {
  Layout layout(nullptr);
  WalkModule(*m, layout);
}

}  // namespace warpcheck::sim::ptx
