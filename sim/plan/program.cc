#include "sim/plan/program.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace warpcheck::sim::plan {

int Program::AddSetup(const SetupValue& v) {
  for (size_t i = 0; i < setup.size(); ++i) {
    if (setup[i] == v) return static_cast<int>(i);
  }
  setup.push_back(v);
  return static_cast<int>(setup.size()) - 1;
}

OpCounts CountOps(const Program& p) {
  OpCounts c;
  for (const Op& op : p.ops) {
    switch (op.kind) {
      case OpKind::kSelp: ++c.selp; break;
      case OpKind::kShflBfly:
      case OpKind::kShflIdx: ++c.shfl; break;
      case OpKind::kPrmt: ++c.prmt; break;
      case OpKind::kStShared: ++c.st_shared; break;
      case OpKind::kLdShared: ++c.ld_shared; break;
      case OpKind::kBarSync:
      case OpKind::kBarWarp: ++c.bar; break;
    }
  }
  return c;
}

std::string ProgramToString(const Program& p) {
  auto words = [](const std::vector<int>& ids) {
    return absl::StrJoin(ids, ", ", [](std::string* out, int id) {
      absl::StrAppend(out, "w", id);
    });
  };
  std::string s;
  for (const Op& op : p.ops) {
    switch (op.kind) {
      case OpKind::kSelp:
        absl::StrAppend(&s, "  w", op.out[0], " = s", op.pred, " ? w", op.in[0], " : w",
                        op.in[1], "\n");
        break;
      case OpKind::kShflBfly:
        absl::StrAppend(&s, "  w", op.out[0], " = shfl.bfly(w", op.in[0], ", ", op.imm,
                        ")\n");
        break;
      case OpKind::kShflIdx:
        absl::StrAppend(&s, "  w", op.out[0], " = shfl.idx(w", op.in[0], ", s", op.addr,
                        ")\n");
        break;
      case OpKind::kPrmt:
        absl::StrAppend(&s, "  w", op.out[0], " = prmt(w", op.in[0], ", w", op.in[1],
                        ", 0x", absl::Hex(op.imm), ")\n");
        break;
      case OpKind::kStShared:
        absl::StrAppend(&s, "  ", op.pred >= 0 ? absl::StrCat("@s", op.pred, " ") : "",
                        "st.shared [s", op.addr, "+", op.imm, "] = {", words(op.in), "} x",
                        op.elem_bytes, "B\n");
        break;
      case OpKind::kLdShared:
        absl::StrAppend(&s, "  {", words(op.out), "} = ld.shared [s", op.addr, "+", op.imm,
                        "] x", op.elem_bytes, "B\n");
        break;
      case OpKind::kBarSync: absl::StrAppend(&s, "  bar.sync 0\n"); break;
      case OpKind::kBarWarp: absl::StrAppend(&s, "  bar.warp.sync -1\n"); break;
    }
  }
  return s;
}

}  // namespace warpcheck::sim::plan
