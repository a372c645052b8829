#include "sim/plan/program.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "absl/container/flat_hash_map.h"
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
      case OpKind::kStShared:
      case OpKind::kStMatrix: ++c.st_shared; break;
      case OpKind::kLdShared:
      case OpKind::kLdMatrix: ++c.ld_shared; break;
      case OpKind::kBarSync:
      case OpKind::kBarWarp: ++c.bar; break;
    }
  }
  return c;
}

Program Compose(const Program& first, const Program& second) {
  Program out = first;
  std::vector<int> setup_map;
  for (const SetupValue& v : second.setup) setup_map.push_back(out.AddSetup(v));
  std::vector<int> words(second.num_words, -1);
  for (size_t i = 0; i < second.inputs.size(); ++i) words[second.inputs[i]] = first.outputs[i];
  for (int& w : words) if (w < 0) w = out.NewWord();
  for (Op op : second.ops) {
    for (int& id : op.in) id = words[id];
    for (int& id : op.out) id = words[id];
    if (op.pred >= 0) op.pred = setup_map[op.pred];
    if (op.addr >= 0) op.addr = setup_map[op.addr];
    out.ops.push_back(std::move(op));
  }
  out.outputs.clear();
  for (int id : second.outputs) out.outputs.push_back(words[id]);
  out.smem_bytes = std::max(first.smem_bytes, second.smem_bytes);
  return out;
}

void Simplify(Program& p) {
  std::vector<int> alias(p.num_words);
  for (int i = 0; i < p.num_words; ++i) alias[i] = i;
  std::vector<int> def(p.num_words, -1);  // index into `ops` of the defining op
  std::vector<Op> ops;
  absl::flat_hash_map<std::tuple<int, int, int, uint32_t, Words>, int> cse;
  for (Op op : p.ops) {
    for (int& id : op.in) id = alias[id];
    if (op.kind == OpKind::kSelp) {
      int& x = op.in[0];
      int& y = op.in[1];
      while (def[x] >= 0 && ops[def[x]].kind == OpKind::kSelp && ops[def[x]].pred == op.pred) {
        x = ops[def[x]].in[0];
      }
      while (def[y] >= 0 && ops[def[y]].kind == OpKind::kSelp && ops[def[y]].pred == op.pred) {
        y = ops[def[y]].in[1];
      }
      if (x == y) {
        alias[op.out[0]] = x;
        continue;
      }
    }
    if (op.kind == OpKind::kPrmt) {
      // Resolve each result byte through prmts that define the operands.
      int word[4];
      int byte[4];
      for (int k = 0; k < 4; ++k) {
        uint32_t n = (op.imm >> (4 * k)) & 7;
        int w = op.in[n >> 2];
        int b = static_cast<int>(n & 3);
        if (def[w] >= 0 && ops[def[w]].kind == OpKind::kPrmt) {
          const Op& d = ops[def[w]];
          uint32_t m = (d.imm >> (4 * b)) & 7;
          w = d.in[m >> 2];
          b = static_cast<int>(m & 3);
        }
        word[k] = w;
        byte[k] = b;
      }
      std::vector<int> distinct;
      for (int w : word) {
        if (std::find(distinct.begin(), distinct.end(), w) == distinct.end()) distinct.push_back(w);
      }
      if (distinct.size() == 1 && byte[0] == 0 && byte[1] == 1 && byte[2] == 2 && byte[3] == 3) {
        alias[op.out[0]] = distinct[0];
        continue;
      }
      if (distinct.size() <= 2) {
        uint32_t sel = 0;
        for (int k = 0; k < 4; ++k) {
          uint32_t n = static_cast<uint32_t>(byte[k]) + (word[k] == distinct[0] ? 0 : 4);
          sel |= n << (4 * k);
        }
        op.in = {distinct[0], distinct.size() == 2 ? distinct[1] : distinct[0]};
        op.imm = sel;
      }
    }
    if (op.kind == OpKind::kSelp || op.kind == OpKind::kShflBfly ||
        op.kind == OpKind::kShflIdx || op.kind == OpKind::kPrmt) {
      auto key = std::make_tuple(static_cast<int>(op.kind), op.pred, op.addr, op.imm, op.in);
      auto it = cse.find(key);
      if (it != cse.end()) {
        alias[op.out[0]] = it->second;
        continue;
      }
      cse[key] = op.out[0];
    }
    for (int id : op.out) def[id] = static_cast<int>(ops.size());
    ops.push_back(std::move(op));
  }
  for (int& id : p.outputs) id = alias[id];
  // Dead ops.
  std::vector<bool> live(p.num_words, false);
  for (int id : p.outputs) live[id] = true;
  std::vector<bool> keep(ops.size(), false);
  for (size_t i = ops.size(); i-- > 0;) {
    const Op& op = ops[i];
    bool effect = op.kind == OpKind::kStShared || op.kind == OpKind::kStMatrix ||
                  op.kind == OpKind::kBarSync ||
                  op.kind == OpKind::kBarWarp;
    bool used = effect;
    for (int id : op.out) used = used || live[id];
    if (!used) continue;
    keep[i] = true;
    for (int id : op.in) live[id] = true;
  }
  p.ops.clear();
  for (size_t i = 0; i < ops.size(); ++i) {
    if (keep[i]) p.ops.push_back(std::move(ops[i]));
  }
}

std::string ProgramToString(const Program& p) {
  auto words = [](const Words& ids) {
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
      case OpKind::kStMatrix:
        absl::StrAppend(&s, "  ", op.pred >= 0 ? absl::StrCat("@s", op.pred, " ") : "",
                        "stmatrix", op.trans ? ".trans" : "", " [s", op.addr, "+",
                        op.imm, "] = {", words(op.in), "}\n");
        break;
      case OpKind::kLdMatrix:
        absl::StrAppend(&s, "  {", words(op.out), "} = ldmatrix", op.trans ? ".trans" : "",
                        " [s", op.addr, "+", op.imm, "]\n");
        break;
      case OpKind::kBarSync: absl::StrAppend(&s, "  bar.sync 0\n"); break;
      case OpKind::kBarWarp: absl::StrAppend(&s, "  bar.warp.sync -1\n"); break;
    }
  }
  return s;
}

}  // namespace warpcheck::sim::plan
