#include "tools/warpcheck/fuzz_triton.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "sim/base/file.h"

namespace warpcheck::cli {
namespace {

namespace fz = verify::fuzz;
namespace fs = std::filesystem;

// A JSON string literal.
std::string Quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string ShellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

bool TritonAvailable(const std::string& python) {
  const std::string cmd = absl::StrCat(ShellQuote(python), " -c 'import triton' >/dev/null 2>&1");
  return std::system(cmd.c_str()) == 0;
}

std::string TritonSubject::PtxFor(const fz::FuzzPair& pair) const {
  auto it = ptx_of.find(pair.CommandLine());
  return it == ptx_of.end() ? "" : it->second;
}

int64_t TritonSubject::SharedFor(const fz::FuzzPair& pair) const {
  auto it = shared_of.find(pair.CommandLine());
  return it == shared_of.end() ? 0 : it->second;
}

std::vector<fz::PairOutcome> TritonSubject::Check(const std::vector<fz::FuzzPair>& pairs,
                                                  const std::vector<fz::CheckOptions>& checks) {
  std::vector<fz::PairOutcome> out(pairs.size());
  const std::string batch = absl::StrCat("b", batches++);
  std::ostringstream jsonl;
  std::vector<std::string> names(pairs.size());
  for (size_t i = 0; i < pairs.size(); ++i) {
    const fz::FuzzPair& p = pairs[i];
    // Triton's kernel is checked whatever our planners' own limits are.
    if (auto problem = p.Problem(/*planner_scope=*/false); !problem.ok()) {
      out[i].verdict = fz::PairVerdict::kOutOfScope;
      out[i].stage = "problem";
      out[i].detail = std::string(problem.status().message());
      continue;
    }
    names[i] = absl::StrCat(batch, "_", i);
    jsonl << "{\"name\": " << Quote(names[i]) << ", \"src\": " << Quote(p.SrcText())
          << ", \"dst\": " << Quote(p.DstText()) << ", \"shape\": [" << absl::StrJoin(p.shape, ", ")
          << "], \"dtype\": " << Quote(sim::plan::DTypeName(p.dtype))
          << ", \"num_warps\": " << p.num_warps << "}\n";
  }
  const std::string list = (fs::path(work_dir) / (batch + ".jsonl")).string();
  absl::Status wrote = sim::base::WriteFileAtomically(list, jsonl.str());
  const std::string cmd =
      absl::StrCat(ShellQuote(python), " ", ShellQuote(script), " --pairs ", ShellQuote(list),
                   " --out ", ShellQuote(work_dir), " --jobs ", jobs, " --timeout ",
                   timeout_seconds);
  const int rc = wrote.ok() ? std::system(cmd.c_str()) : -1;
  for (size_t i = 0; i < pairs.size(); ++i) {
    if (names[i].empty()) continue;
    const std::string base = (fs::path(work_dir) / names[i]).string();
    auto result_text = sim::base::ReadFile(base + ".json");
    google::protobuf::Struct result;
    if (!result_text.ok() ||
        !google::protobuf::util::JsonStringToMessage(*result_text, &result).ok()) {
      out[i].verdict = fz::PairVerdict::kFailed;
      out[i].stage = "triton/driver";
      out[i].detail = absl::StrCat("no result from ", script, " (exit ", rc, ")");
      continue;
    }
    const auto& f = result.fields();
    const std::string status = f.count("status") ? f.at("status").string_value() : "";
    const std::string reason = f.count("reason") ? f.at("reason").string_value() : "";
    if (status == "triton_crash") {
      out[i].verdict = fz::PairVerdict::kFailed;
      out[i].stage = "triton/crash";
      out[i].detail = reason;
      continue;
    }
    if (status == "triton_timeout") {
      // A bound hit (the compile's time), not a verdict on Triton or on us.
      out[i].verdict = fz::PairVerdict::kInconclusive;
      out[i].stage = "triton/timeout";
      out[i].detail = reason;
      ++errors[absl::StrCat(status, ": ", reason)];
      continue;
    }
    if (status != "ok") {
      out[i].verdict = fz::PairVerdict::kOutOfScope;
      out[i].stage = "triton";
      out[i].detail = absl::StrCat(status, ": ", reason);
      ++errors[out[i].detail];
      continue;
    }
    auto ptx = sim::base::ReadFile(base + ".ptx");
    if (!ptx.ok()) {
      out[i].verdict = fz::PairVerdict::kFailed;
      out[i].stage = "triton/driver";
      out[i].detail = std::string(ptx.status().message());
      continue;
    }
    ptx_of[pairs[i].CommandLine()] = base + ".ptx";
    const int64_t shared =
        f.count("shared") ? static_cast<int64_t>(f.at("shared").number_value()) : 0;
    shared_of[pairs[i].CommandLine()] = shared;
    out[i] = fz::CheckTritonKernel(pairs[i], *ptx, base + ".ptx", shared, checks[i]);
  }
  return out;
}

}  // namespace warpcheck::cli
