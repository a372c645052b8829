// Runs small hand-written PTX bodies on the machine for semantics and fault tests.
//
// RunBody wraps `body` in a kernel
//
//   .visible .entry k(.param .u64 out_ptr, .param .u64 in_ptr)
//   { registers %p<16> %h<32> (.b16) %r<96> (.b32) %rd<32> (.b64) %f<16> (.f32) %fd<8>
//   (.f64)
//     %rd0 = out_ptr, %rd1 = in_ptr, %r0 = %tid.x,
//     %rd2 = out_ptr + %tid.x * stride          (each thread's output slot)
//     BODY
//     ret; }
//
// with an `out` buffer (zeroed) and an `in` buffer (IOTA of 2-byte elements), and returns
// the report and the final `out` bytes.
#ifndef WARPCHECK_TESTS_SIM_MACHINE_MACHINE_TEST_UTIL_H_
#define WARPCHECK_TESTS_SIM_MACHINE_MACHINE_TEST_UTIL_H_

#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "sim/machine/launch.h"
#include "sim/ptx/parser.h"

namespace warpcheck::sim::machine::testing {

struct BodyRun {
  SimReport report;
  std::vector<uint8_t> out;
  template <typename T>
  T At(size_t index) const {
    T v;
    std::memcpy(&v, out.data() + index * sizeof(T), sizeof(T));
    return v;
  }
  std::string Faults() const {
    std::string s;
    for (const auto& f : report.faults()) {
      absl::StrAppend(&s, f.kind(), " thread ", f.thread(), " line ", f.line(), ": ",
                      f.text(), "\n");
    }
    return s;
  }
  bool HasFault(const std::string& kind) const {
    for (const auto& f : report.faults()) {
      if (f.kind() == kind) return true;
    }
    return false;
  }
  // The counter's value, or -1 when the report has no counter of that name.
  int64_t Counter(const std::string& name) const {
    auto it = report.counters().find(name);
    return it == report.counters().end() ? -1 : static_cast<int64_t>(it->second);
  }
};

struct BodyOptions {
  uint32_t threads = 32;
  uint32_t stride = 8;     // output bytes per thread
  uint32_t out_bytes = 0;  // 0: threads * stride
  uint32_t in_bytes = 4096;
  uint32_t dynamic_shared = 0;
  std::string extra_decls;  // module-scope declarations (e.g. .shared arrays)
  uint64_t budget = 0;
  uint32_t grid = 1;
  std::string trace_path;
};

inline std::string WrapBody(const std::string& body, const BodyOptions& o) {
  return absl::StrCat(".version 8.7\n.target sm_90a\n.address_size 64\n", o.extra_decls,
                      "\n.visible .entry k(.param .u64 out_ptr, .param .u64 in_ptr)\n{\n"
                      "  .reg .pred %p<16>;\n  .reg .b16 %h<32>;\n  .reg .b32 %r<96>;\n  "
                      ".reg .b64 %rd<32>;\n"
                      "  .reg .f32 %f<16>;\n  .reg .f64 %fd<8>;\n"
                      "  ld.param.u64 %rd0, [out_ptr];\n  ld.param.u64 %rd1, [in_ptr];\n"
                      "  mov.u32 %r0, %tid.x;\n  mul.wide.u32 %rd2, %r0, ",
                      o.stride, ";\n  add.s64 %rd2, %rd0, %rd2;\n", body,
                      "\n  ret;\n}\n");
}

// What differs between a run with race detection (`a`) and one without (`b`) other than
// race reports (shared_race faults, the same-value-write counter) and buffer hashes;
// empty when nothing does.
inline std::string RaceFreeDifference(const LaunchResult& a, const LaunchResult& b) {
  if (a.buffers.size() != b.buffers.size()) return "buffer count";
  for (size_t i = 0; i < a.buffers.size(); ++i) {
    if (a.buffers[i].bytes != b.buffers[i].bytes)
      return absl::StrCat("buffer ", a.buffers[i].name);
  }
  for (const auto& [name, value] : a.report.counters()) {
    if (name == "shared_same_value_write_races") continue;
    auto it = b.report.counters().find(name);
    if (it == b.report.counters().end() || it->second != value)
      return absl::StrCat("counter ", name);
  }
  std::vector<std::string> fa, fb;
  bool raced = false;
  for (const auto& f : a.report.faults()) {
    if (f.kind() == "shared_race") {
      raced = true;
      continue;
    }
    fa.push_back(absl::StrCat(f.kind(), " ", f.thread(), " ", f.pc(), " ", f.text()));
  }
  for (const auto& f : b.report.faults())
    fb.push_back(absl::StrCat(f.kind(), " ", f.thread(), " ", f.pc(), " ", f.text()));
  if (fa != fb) return "faults";
  if (!raced && a.report.ok() != b.report.ok()) return "ok";
  return "";
}

inline absl::StatusOr<BodyRun> RunBody(const std::string& body,
                                       const BodyOptions& o = {}) {
  std::string text = WrapBody(body, o);
  absl::StatusOr<ptx::Module> module = ptx::ParseModule(text, "body.ptx");
  if (!module.ok()) return module.status();
  LaunchSpec spec;
  spec.mutable_grid()->set_x(o.grid);
  spec.mutable_block()->set_x(o.threads);
  spec.set_dynamic_shared_bytes(o.dynamic_shared);
  if (o.budget != 0) spec.set_max_instructions_per_thread(o.budget);
  BufferParam* out = spec.add_param()->mutable_buffer();
  out->set_name("out");
  out->set_size_bytes(o.out_bytes != 0 ? o.out_bytes : o.threads * o.stride * o.grid);
  BufferParam* in = spec.add_param()->mutable_buffer();
  in->set_name("in");
  in->set_size_bytes(o.in_bytes);
  in->set_fill(BufferParam::IOTA);
  in->set_element_bytes(2);
  RunOptions ro;
  ro.trace_path = o.trace_path;
  ro.fast_ldst = false;  // every ld/st lane by lane: the reference for the fast path
  // and every instruction through RunWarp's general step: the reference for its
  // converged straight-line loop (the other two runs take it)
  ro.fast_straight_line = false;
  ro.zero_every_register = true;  // and every register zeroed (Program::zero_slots)
  absl::StatusOr<LaunchResult> r = RunLaunchSpecOnModule(spec, *module, ".", ro);
  if (!r.ok()) return r.status();
  // Every body also runs without race detection (and without hashing), where ld/st take
  // the machine's one-range-check path (sem_mem.cc FastLdSt): all but race reports must
  // be the same, or the test fails with the first difference. The same for registers:
  // the reference zeroes all of them, this run only Program::zero_slots (and fills the
  // others with a pattern, so that a register wrongly left out of zero_slots differs).
  RunOptions fast;
  fast.detect_races = false;
  fast.hash_buffers = false;
  fast.poison_unzeroed_registers = true;  // a register read before it is written shows
  absl::StatusOr<LaunchResult> f = RunLaunchSpecOnModule(spec, *module, ".", fast);
  if (!f.ok()) return f.status();
  if (std::string diff = RaceFreeDifference(*r, *f); !diff.empty()) {
    return absl::InternalError(absl::StrCat("detect_races=false differs: ", diff));
  }
  // And with race detection on, ld/st on the fast path where it applies (shared
  // accesses check each lane's race there) and converged straight-line code in RunWarp's
  // loop: the same report to the last fault text and counter, races included, and the
  // same buffers.
  RunOptions checked_fast;
  checked_fast.zero_every_register = true;
  absl::StatusOr<LaunchResult> c = RunLaunchSpecOnModule(spec, *module, ".", checked_fast);
  if (!c.ok()) return c.status();
  if (c->report.ShortDebugString() != r->report.ShortDebugString()) {  // maps sorted
    return absl::InternalError(absl::StrCat("fast_ldst with race checks differs: ",
                                            c->report.ShortDebugString(), " vs ",
                                            r->report.ShortDebugString()));
  }
  return BodyRun{std::move(r->report), std::move(r->buffers[0].bytes)};
}

}  // namespace warpcheck::sim::machine::testing

#endif  // WARPCHECK_TESTS_SIM_MACHINE_MACHINE_TEST_UTIL_H_
