// Replays corpus/layout/malformed.textproto against the parser: every case is one test
// (named after the case) that runs ParseEncoding (aliases from the case's `ttgir`) and
// then CheckAgainstModule (module attributes of the `ttgir`, overridden by the case's
// `module`), and expects InvalidArgument whose message starts with "<where>: " and
// contains `message_substr`. The corpus is also replayed end to end, shape conversion
// included, by `warpcheck corpus check` (the `corpus` ctest); here only the parser and
// the module checks are exercised, so every case's fault must lie in the attribute text
// or its module attributes, never in the shape.
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "proto/layout.pb.h"
#include "sim/layout/encoding.h"
#include "tests/testing/status_matchers.h"

namespace warpcheck::sim::layout {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr char kCorpusPath[] = WARPCHECK_SOURCE_DIR "/corpus/layout/malformed.textproto";

class CollectErrors : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string& message) override {
    absl::StrAppend(&errors, kCorpusPath, ":", line + 1, ":", column + 1, ": ", message,
                    "\n");
  }
  std::string errors;
};

struct Loaded {
  LayoutCorpus corpus;
  std::string error;  // non-empty when the file could not be read or parsed
};

const Loaded& Corpus() {
  static const Loaded* loaded = [] {
    auto* l = new Loaded;
    std::ifstream in(kCorpusPath);
    if (!in) {
      l->error = absl::StrCat("cannot read ", kCorpusPath);
      return l;
    }
    std::stringstream text;
    text << in.rdbuf();
    google::protobuf::TextFormat::Parser parser;
    CollectErrors errors;
    parser.RecordErrorsTo(&errors);
    if (!parser.ParseFromString(text.str(), &l->corpus)) l->error = errors.errors;
    return l;
  }();
  return *loaded;
}

std::vector<LayoutCase> Cases() {
  const Loaded& l = Corpus();
  return {l.corpus.cases().begin(), l.corpus.cases().end()};
}

TEST(MalformedCorpusTest, LoadsAndIsLargeEnough) {
  ASSERT_EQ(Corpus().error, "");
  EXPECT_EQ(Corpus().corpus.oracle(), "triton 3.6.0");
  EXPECT_GE(Corpus().corpus.cases_size(), 45);
  std::set<std::string> names;
  for (const LayoutCase& c : Corpus().corpus.cases()) {
    EXPECT_TRUE(names.insert(c.name()).second) << "duplicate case name " << c.name();
    EXPECT_TRUE(c.expect().has_error()) << c.name() << " is not an error case";
    EXPECT_FALSE(c.expect().error().where().empty()) << c.name();
    EXPECT_FALSE(c.expect().error().message_substr().empty()) << c.name();
  }
}

class MalformedCase : public ::testing::TestWithParam<LayoutCase> {};

TEST_P(MalformedCase, IsRejectedAtTheRightPlace) {
  const LayoutCase& c = GetParam();
  TtgirFile file;
  const TtgirFile* context = nullptr;
  if (!c.ttgir().empty()) {
    ASSERT_OK_AND_ASSIGN(file, ParseTtgir(c.ttgir(), SourceLocation{"ttgir", 1, 1}));
    context = &file;
  }
  ModuleInfo module = file.module;
  if (c.module().has_num_warps()) module.num_warps = c.module().num_warps();
  if (c.module().has_threads_per_warp())
    module.threads_per_warp = c.module().threads_per_warp();
  if (c.module().has_num_ctas()) module.num_ctas = c.module().num_ctas();

  absl::Status status;
  auto parsed = ParseEncoding(c.attr(), SourceLocation{"argument", 1, 1}, context);
  if (parsed.ok()) {
    status = CheckAgainstModule(**parsed, module);
    ASSERT_FALSE(status.ok()) << "accepted: " << PrintEncoding(**parsed);
  } else {
    status = parsed.status();
  }
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  const std::string message(status.message());
  EXPECT_THAT(message, StartsWith(c.expect().error().where() + ": "));
  EXPECT_THAT(message, HasSubstr(c.expect().error().message_substr()));
}

INSTANTIATE_TEST_SUITE_P(Corpus, MalformedCase, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<LayoutCase>& info) {
                           return info.param.name();
                         });

}  // namespace
}  // namespace warpcheck::sim::layout
