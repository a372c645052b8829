// The folder graph is real: every `#include "..."` in sim/, verify/ and tools/ points
// along an arrow of the graph that CMake builds the libraries from
// (${build}/folder_graph.txt, written by the top-level CMakeLists.txt), and only the
// folders that own a boundary include its system header (<z3++.h> in verify/smt,
// <cuda.h> in tools/gpu). A wrong-way include fails here even where it would still
// link (a header-only use), which is why this is a test and not only a link order.
// The same walk checks the one namespace scheme: a folder's code lives in the folder's
// namespace (NamespaceOf).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace warpcheck {
namespace {

namespace fs = std::filesystem;

// folder -> folders it may include (its DEPS, closed transitively).
using Graph = std::map<std::string, std::set<std::string>>;

Graph ParseGraph(const std::string& text) {
  Graph direct;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    line = absl::StripAsciiWhitespace(line);
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> parts = absl::StrSplit(line, ':');
    if (parts.size() != 2) continue;
    std::string folder(absl::StripAsciiWhitespace(parts[0]));
    auto& deps = direct[folder];
    for (absl::string_view d : absl::StrSplit(parts[1], ' ', absl::SkipWhitespace()))
      deps.insert(std::string(d));
  }
  Graph closed = direct;
  for (bool changed = true; changed;) {
    changed = false;
    for (auto& [folder, deps] : closed) {
      std::set<std::string> more = deps;
      for (const std::string& d : deps)
        if (auto it = closed.find(d); it != closed.end())
          more.insert(it->second.begin(), it->second.end());
      if (more.size() != deps.size()) {
        deps = std::move(more);
        changed = true;
      }
    }
  }
  return closed;
}

// The graph folder that holds `path` (relative to the root): the longest folder that is
// a prefix of its directory, or "" when none is.
std::string FolderOf(const Graph& g, const std::string& path) {
  std::string dir = fs::path(path).parent_path().generic_string();
  std::string best;
  for (const auto& [folder, deps] : g) {
    if ((dir == folder || dir.rfind(folder + "/", 0) == 0) && folder.size() > best.size())
      best = folder;
  }
  return best;
}

// Calls fn(path relative to root, path) for every .h and .cc under sim/, verify/, tools/.
template <typename Fn>
void ForEachSource(const fs::path& root, Fn fn) {
  for (const char* top : {"sim", "verify", "tools"}) {
    if (!fs::exists(root / top)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(root / top)) {
      const std::string ext = entry.path().extension().string();
      if (!entry.is_regular_file() || (ext != ".h" && ext != ".cc")) continue;
      fn(fs::relative(entry.path(), root).generic_string(), entry.path());
    }
  }
}

// Every violation as "file:line: what".
std::vector<std::string> CheckIncludes(const fs::path& root, const Graph& g) {
  static const std::regex kQuoted(R"(^\s*#\s*include\s*"([^"]+)\")");
  static const std::regex kAngle(R"(^\s*#\s*include\s*<([^>]+)>)");
  // System headers that mark a boundary, and the one folder allowed to include each.
  const std::map<std::string, std::string> kBoundary = {
      {"z3++.h", "verify/smt"}, {"z3.h", "verify/smt"}, {"cuda.h", "tools/gpu"}};
  const std::set<std::string> kOurs = {"proto", "sim", "verify", "tools", "tests"};
  std::vector<std::string> out;
  ForEachSource(root, [&](const std::string& rel, const fs::path& path) {
    const std::string from = FolderOf(g, rel);
    if (from.empty()) {
      out.push_back(absl::StrCat(rel,
                                 ":1: its folder is not in the folder graph (add it "
                                 "with warpcheck_folder() in CMake)"));
      return;
    }
    std::ifstream in(path);
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
      std::smatch m;
      if (std::regex_search(line, m, kAngle)) {
        auto b = kBoundary.find(m[1].str());
        if (b != kBoundary.end() && b->second != from)
          out.push_back(absl::StrCat(rel, ":", n, ": includes <", m[1].str(),
                                     ">, which only ", b->second, " may include"));
        continue;
      }
      if (!std::regex_search(line, m, kQuoted)) continue;
      const std::string inc = m[1].str();
      const std::string first = inc.substr(0, inc.find('/'));
      if (!kOurs.count(first)) continue;  // absl/, google/, gtest/ ...: external
      const std::string to = first == "proto" ? "proto" : FolderOf(g, inc);
      if (to.empty()) {
        out.push_back(absl::StrCat(rel, ":", n, ": includes \"", inc,
                                   "\", which is in no folder of the graph"));
      } else if (to != from && !g.at(from).count(to)) {
        out.push_back(
            absl::StrCat(rel, ":", n, ": ", from, " includes \"", inc, "\" of ", to,
                         ", but ", from, " may include only: ",
                         g.at(from).empty() ? "itself" : absl::StrJoin(g.at(from), " ")));
      }
    }
  });
  std::sort(out.begin(), out.end());
  return out;
}

// The namespace of a folder: warpcheck:: and the folder path with / as :: (sim/layout is
// warpcheck::sim::layout, verify/smt is warpcheck::verify::smt), except the two tools,
// whose folder names would repeat the project: tools/warpcheck is warpcheck::cli and
// tools/gpu is warpcheck::gpu.
std::string NamespaceOf(const std::string& folder) {
  if (folder == "tools/warpcheck") return "warpcheck::cli";
  if (folder == "tools/gpu") return "warpcheck::gpu";
  std::string ns = "warpcheck::" + folder;
  for (size_t at; (at = ns.find('/')) != std::string::npos;) ns.replace(at, 1, "::");
  return ns;
}

// Every `namespace warpcheck...` a file opens is its folder's namespace or nested in it.
std::vector<std::string> CheckNamespaces(const fs::path& root, const Graph& g) {
  static const std::regex kOpen(R"(^namespace (warpcheck[\w:]*) \{)");
  std::vector<std::string> out;
  ForEachSource(root, [&](const std::string& rel, const fs::path& path) {
    const std::string folder = FolderOf(g, rel);
    if (folder.empty()) return;  // reported by CheckIncludes
    const std::string want = NamespaceOf(folder);
    std::ifstream in(path);
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
      std::smatch m;
      if (!std::regex_search(line, m, kOpen)) continue;
      const std::string ns = m[1].str();
      if (ns != want && ns.rfind(want + "::", 0) != 0)
        out.push_back(absl::StrCat(rel, ":", n, ": namespace ", ns, " is not ", want,
                                   " or nested in it"));
    }
  });
  std::sort(out.begin(), out.end());
  return out;
}

std::string ReadAll(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(IncludeGraphTest, TheTreeFollowsTheFolderGraph) {
  const std::string graph_text = ReadAll(WARPCHECK_FOLDER_GRAPH);
  ASSERT_FALSE(graph_text.empty()) << "no folder graph at " << WARPCHECK_FOLDER_GRAPH;
  Graph g = ParseGraph(graph_text);
  // The arrows of ARCHITECTURE.md that matter most: sim never reaches verify or tools,
  // and the solver stays behind verify/smt.
  for (const auto& [folder, deps] : g) {
    if (folder.rfind("sim/", 0) == 0) {
      for (const std::string& d : deps) {
        EXPECT_EQ(d.rfind("verify", 0), std::string::npos) << folder << " -> " << d;
        EXPECT_EQ(d.rfind("tools", 0), std::string::npos) << folder << " -> " << d;
      }
    }
  }
  EXPECT_THAT(CheckIncludes(WARPCHECK_SOURCE_DIR, g), ::testing::IsEmpty());
  EXPECT_THAT(CheckNamespaces(WARPCHECK_SOURCE_DIR, g), ::testing::IsEmpty());
}

TEST(IncludeGraphTest, OneNamespaceSchemeEverywhere) {
  EXPECT_EQ(NamespaceOf("sim/layout"), "warpcheck::sim::layout");
  EXPECT_EQ(NamespaceOf("verify/smt"), "warpcheck::verify::smt");
  EXPECT_EQ(NamespaceOf("verify"), "warpcheck::verify");
  EXPECT_EQ(NamespaceOf("tools/warpcheck"), "warpcheck::cli");
  const fs::path root = fs::path(::testing::TempDir()) / "namespace_test";
  fs::remove_all(root);
  fs::create_directories(root / "sim/layout");
  std::ofstream(root / "sim/layout/a.h")
      << "namespace warpcheck::sim::layout {\n}\nnamespace warpcheck::sim::layout::f2 "
         "{\n}\n"
         "namespace {\n}\nnamespace warpcheck::sim {\n}\n";
  EXPECT_THAT(CheckNamespaces(root, ParseGraph("sim/layout:\n")),
              ::testing::ElementsAre("sim/layout/a.h:7: namespace warpcheck::sim is not "
                                     "warpcheck::sim::layout or nested in it"));
}

// A planted wrong-way include, a solver include outside verify/smt, an include of a
// folder the graph does not know and a folder missing from the graph are each reported
// with their file and line.
TEST(IncludeGraphTest, WrongWayIncludesAreReported) {
  const fs::path root = fs::path(::testing::TempDir()) / "include_graph_test";
  fs::remove_all(root);
  auto write = [&](const std::string& rel, const std::string& text) {
    fs::create_directories((root / rel).parent_path());
    std::ofstream(root / rel) << text;
  };
  write("sim/base/ok.h",
        "#include \"absl/strings/str_cat.h\"\n#include \"sim/base/other.h\"\n");
  write("sim/machine/m.cc",
        "#include \"sim/base/ok.h\"\n#include \"proto/launch.pb.h\"\n");
  write("sim/base/bad.h", "// comment\n#include \"sim/machine/m.h\"\n");
  write("sim/layout/z.cc", "#include <vector>\n#include <z3++.h>\n");
  write("verify/smt/s.cc", "#include <z3++.h>\n");
  write("sim/machine/w.cc", "#include \"sim/nowhere/x.h\"\n");
  write("sim/plan/p.cc", "#include \"sim/base/ok.h\"\n");
  Graph g = ParseGraph(
      "sim/base:\nsim/layout: sim/base\nsim/machine: sim/base proto\nproto:\n"
      "verify/smt: sim/base\n");
  EXPECT_THAT(
      CheckIncludes(root, g),
      ::testing::ElementsAre(
          "sim/base/bad.h:2: sim/base includes \"sim/machine/m.h\" of sim/machine, but "
          "sim/base may include only: itself",
          "sim/layout/z.cc:2: includes <z3++.h>, which only verify/smt may include",
          "sim/machine/w.cc:1: includes \"sim/nowhere/x.h\", which is in no folder of "
          "the "
          "graph",
          "sim/plan/p.cc:1: its folder is not in the folder graph (add it with "
          "warpcheck_folder() in CMake)"));
}

TEST(IncludeGraphTest, DependenciesAreClosedTransitively) {
  Graph g = ParseGraph("a: b\nb: c\nc:\n# comment\n");
  EXPECT_THAT(g.at("a"), ::testing::ElementsAre("b", "c"));
  EXPECT_THAT(g.at("b"), ::testing::ElementsAre("c"));
  EXPECT_THAT(g.at("c"), ::testing::IsEmpty());
}

}  // namespace
}  // namespace warpcheck
