// Hostile input, end to end (issue 12, item 6): every row of corpus/hostile/catalogue.tsv
// runs the real `warpcheck` binary in a child process on a generated input — an empty
// file, binary garbage, 10 MB of text, deep nesting, 10^6 ranks, 2^40 shapes — and
// checks that it answers like any bad input: the row's exit code (2), a diagnostic that
// says where (the row's regular expression over stderr), in bounded time and memory.
//
// Bounds: the child runs with RLIMIT_CPU (a runaway loop dies instead of hanging the
// suite) and, in an unsanitized build, RLIMIT_AS (a runaway allocation fails instead of
// taking the machine); its peak RSS (wait4) must stay under kMaxRssMiB and its wall time
// under kMaxSeconds. ASan reserves terabytes of address space, so a sanitized build
// (WARPCHECK_SANITIZED) skips RLIMIT_AS and allows ASan's shadow and quarantine on top.
//
// The catalogue's format is in corpus/hostile/README.md. Inputs are generated here, at
// test time, so 10 MB files are never committed.
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <ostream>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "gtest/gtest.h"
#include "sim/base/tsv.h"
#include "tests/testing/sanitized.h"

namespace warpcheck::hostile {
namespace {

namespace fs = std::filesystem;

using warpcheck::testing::kSanitized;
constexpr int64_t kMaxRssMiB = kSanitized ? 2048 : 640;
constexpr double kMaxSeconds = kSanitized ? 60 : 20;
constexpr rlim_t kAddressSpaceBytes = rlim_t{2} << 30;
constexpr rlim_t kCpuSeconds = kSanitized ? 120 : 40;

struct Row {
  std::string name;
  std::string args;   // arguments separated by '|'; {in}, {dir}, {auxtext} substituted
  std::string input;  // generator (README.md), written to {in}
  std::string aux;    // generator written to {dir}/aux, or "-"
  int exit_code = 2;
  std::string stderr_regex;  // {in} and {dir} substituted, regex-quoted
};

// gtest prints a parameter in failure messages; the row's name is what identifies it.
void PrintTo(const Row& row, std::ostream* os) { *os << row.name; }

std::string Catalogue() {
  return std::string(WARPCHECK_SOURCE_DIR) + "/corpus/hostile/catalogue.tsv";
}

std::vector<Row> LoadRows() {
  absl::StatusOr<sim::base::TsvTable> table = sim::base::ReadTsvFile(Catalogue());
  if (!table.ok()) {
    std::fprintf(stderr, "%s\n", std::string(table.status().message()).c_str());
    return {};
  }
  std::vector<Row> rows;
  for (const auto& r : table->rows) {
    if (absl::StartsWith(r[0], "#")) continue;
    Row row{table->Cell(r, "name"), table->Cell(r, "args"), table->Cell(r, "input"),
            table->Cell(r, "aux"), 2, table->Cell(r, "stderr")};
    if (!absl::SimpleAtoi(table->Cell(r, "exit"), &row.exit_code)) row.exit_code = -1;
    rows.push_back(std::move(row));
  }
  return rows;
}

// C escapes in catalogue text: \n \t \\ \| and \xNN.
std::string Unescape(absl::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\' || i + 1 == s.size()) {
      out += s[i];
      continue;
    }
    char c = s[++i];
    if (c == 'n') out += '\n';
    else if (c == 't') out += '\t';
    else if (c == 'x' && i + 2 < s.size() + 1) {
      out += static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

// Expands a generator (README.md): pieces joined by " ++ ", each one of
//   empty | file:NAME | garbage:N | text:T | repeat:N:T
absl::StatusOr<std::string> Generate(absl::string_view spec) {
  std::string out;
  for (absl::string_view piece : absl::StrSplit(spec, " ++ ")) {
    if (piece == "empty") continue;
    if (absl::ConsumePrefix(&piece, "file:")) {
      std::ifstream in(absl::StrCat(WARPCHECK_SOURCE_DIR, "/corpus/hostile/", piece),
                       std::ios::binary);
      if (!in) return absl::NotFoundError(absl::StrCat("no file ", piece));
      out.append(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    } else if (absl::ConsumePrefix(&piece, "garbage:")) {
      int64_t n = 0;
      if (!absl::SimpleAtoi(piece, &n)) return absl::InvalidArgumentError("garbage:N");
      std::mt19937_64 rng(12345);  // the same bytes on every run
      for (int64_t i = 0; i < n; ++i) out += static_cast<char>(rng() & 0xff);
    } else if (absl::ConsumePrefix(&piece, "text:")) {
      out += Unescape(piece);
    } else if (absl::ConsumePrefix(&piece, "repeat:")) {
      std::vector<absl::string_view> parts = absl::StrSplit(piece, absl::MaxSplits(':', 1));
      int64_t n = 0;
      if (parts.size() != 2 || !absl::SimpleAtoi(parts[0], &n))
        return absl::InvalidArgumentError("repeat:N:TEXT");
      const std::string unit = Unescape(parts[1]);
      out.reserve(out.size() + n * unit.size());
      for (int64_t i = 0; i < n; ++i) out += unit;
    } else {
      return absl::InvalidArgumentError(absl::StrCat("unknown generator '", piece, "'"));
    }
  }
  return out;
}

struct ChildResult {
  int status = 0;
  int64_t max_rss_kib = 0;
  double seconds = 0;
  std::string err;
};

// Runs the binary with `args` under the limits above; stdout goes to /dev/null.
ChildResult RunBounded(const std::vector<std::string>& args, const std::string& err_path) {
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = ::fork();
  if (pid == 0) {
    rlimit cpu{kCpuSeconds, kCpuSeconds};
    ::setrlimit(RLIMIT_CPU, &cpu);
    if (!kSanitized) {
      rlimit as{kAddressSpaceBytes, kAddressSpaceBytes};
      ::setrlimit(RLIMIT_AS, &as);
    }
    int null_fd = ::open("/dev/null", O_WRONLY);
    int err_fd = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(null_fd, 1);
    ::dup2(err_fd, 2);
    std::vector<char*> argv;
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ChildResult r;
  rusage usage{};
  ::wait4(pid, &r.status, 0, &usage);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.max_rss_kib = usage.ru_maxrss;
  std::ifstream in(err_path, std::ios::binary);
  r.err.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return r;
}

std::string RegexQuote(absl::string_view s) {
  static const std::regex special(R"([.^$|()\[\]{}*+?\\])");
  return std::regex_replace(std::string(s), special, R"(\$&)");
}

class HostileInputTest : public ::testing::TestWithParam<Row> {};

TEST_P(HostileInputTest, AnswersAsAnInputErrorThatSaysWhereInBoundedTimeAndMemory) {
  const Row& row = GetParam();
  const fs::path dir = fs::temp_directory_path() /
                       absl::StrCat("warpcheck-hostile-", ::getpid(), "-", row.name);
  fs::create_directories(dir);
  const std::string in = (dir / "input").string();
  absl::StatusOr<std::string> input = Generate(row.input);
  ASSERT_TRUE(input.ok()) << input.status();
  std::ofstream(in, std::ios::binary) << *input;
  std::string aux_text;
  if (row.aux != "-") {
    absl::StatusOr<std::string> aux = Generate(row.aux);
    ASSERT_TRUE(aux.ok()) << aux.status();
    aux_text = *aux;
    std::ofstream((dir / "aux").string(), std::ios::binary) << aux_text;
  }
  std::vector<std::string> args = {WARPCHECK_BINARY};
  for (absl::string_view a : absl::StrSplit(row.args, '|')) {
    args.push_back(absl::StrReplaceAll(
        Unescape(absl::StripAsciiWhitespace(a)),
        {{"{in}", in}, {"{dir}", dir.string()}, {"{auxtext}", aux_text}}));
  }
  ChildResult r = RunBounded(args, (dir / "stderr").string());
  const std::string err = r.err.substr(0, 2000);
  ASSERT_TRUE(WIFEXITED(r.status))
      << "killed by signal " << WTERMSIG(r.status) << " after " << r.seconds
      << " s, peak RSS " << r.max_rss_kib / 1024 << " MiB; stderr:\n" << err;
  EXPECT_EQ(WEXITSTATUS(r.status), row.exit_code) << err;
  const std::string pattern = absl::StrReplaceAll(
      row.stderr_regex, {{"{in}", RegexQuote(in)}, {"{dir}", RegexQuote(dir.string())}});
  EXPECT_TRUE(std::regex_search(err, std::regex(pattern)))
      << "stderr:\n" << err << "\ndoes not match: " << pattern;
  EXPECT_LE(r.max_rss_kib / 1024, kMaxRssMiB) << "peak RSS";
  EXPECT_LE(r.seconds, kMaxSeconds) << "wall time";
  std::printf("%s: exit %d, %.2f s, peak RSS %lld MiB, input %zu bytes\n", row.name.c_str(),
              WEXITSTATUS(r.status), r.seconds, static_cast<long long>(r.max_rss_kib / 1024),
              input->size());
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Catalogue, HostileInputTest, ::testing::ValuesIn(LoadRows()),
                         [](const ::testing::TestParamInfo<Row>& info) {
                           return info.param.name;
                         });

TEST(HostileCatalogueTest, HasRows) {
  // An unreadable or empty catalogue must fail, not pass with no cases.
  EXPECT_GE(LoadRows().size(), 30u) << Catalogue();
}

}  // namespace
}  // namespace warpcheck::hostile
