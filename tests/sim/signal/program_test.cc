// sim/signal/program: CompileProgram's static checks and their messages
// ("<file>: <path>: <what>"), and the default site labels.
#include "sim/signal/program.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace warpcheck::sim::signal {
namespace {

using ::testing::AllOf;
using ::testing::ContainsRegex;
using ::testing::HasSubstr;

SignalProgram Parse(const std::string& text) {
  SignalProgram p;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &p)) << text;
  return p;
}

// The message of compiling `text` as "t.textproto"; "" when it compiles.
std::string CompileError(const std::string& text) {
  absl::StatusOr<Program> p = CompileProgram(Parse(text), "t.textproto");
  if (p.ok()) return "";
  EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument) << p.status();
  return std::string(p.status().message());
}

// Objects SIG and D, one kernel whose body is `body`.
std::string Kernel(const std::string& body) {
  return R"pb(
    name: "t"
    objects { name: "SIG" dtype: U64 size: "N" }
    objects { name: "D" dtype: F32 size: "4" }
    kernels { name: "k" )pb" +
         body + "}\n";
}

TEST(ProgramTest, MinimalProgramCompiles) {
  ASSERT_OK_AND_ASSIGN(Program p, CompileProgram(Parse(Kernel(R"pb(
    body { kind: NOTIFY object: "SIG" rank: "(r + 1) % N" scope: INTRA_NODE }
    body { kind: WAIT object: "SIG" value: "1" }
  )pb")),
                                                 "t.textproto"));
  EXPECT_EQ(p.ranks, 2);  // default
  EXPECT_EQ(p.file, "t.textproto");
  ASSERT_EQ(p.kernels.size(), 1u);
  EXPECT_EQ(p.kernels[0].threads, 128);  // default
  // No streams: one default stream per kernel, launching it once.
  ASSERT_EQ(p.streams.size(), 1u);
  ASSERT_EQ(p.streams[0].body.size(), 1u);
  EXPECT_EQ(p.ops[p.streams[0].body[0]].kind, LAUNCH);
  // Defaults filled in by the compiler.
  const Op& notify = p.ops[p.kernels[0].body[0]];
  EXPECT_EQ(notify.kind, NOTIFY);
  EXPECT_TRUE(notify.rank_given);
  const Op& wait = p.ops[p.kernels[0].body[1]];
  EXPECT_EQ(wait.scope, GPU);
  EXPECT_EQ(wait.sem, ACQUIRE);
  EXPECT_EQ(wait.cmp, EQ);
  EXPECT_FALSE(wait.rank_given);
}

TEST(ProgramTest, UnknownObjectNamesPathAndListsObjects) {
  std::string e = CompileError(Kernel(R"pb(
    body { kind: NOTIFY object: "SIGNAL" rank: "0" }
  )pb"));
  EXPECT_THAT(e, HasSubstr("t.textproto: kernels[0].body[0].object: "));
  EXPECT_THAT(e, HasSubstr("no object named 'SIGNAL'"));
  EXPECT_THAT(e, HasSubstr("(objects: SIG, D)"));

  // Nested: the path goes through the IF's else_body.
  e = CompileError(Kernel(R"pb(
    body { kind: SYNCTHREADS }
    body {
      kind: IF
      cond: "r == 0"
      body { kind: NOTIFY object: "SIG" }
      else_body { kind: WAIT object: "SIG" }
      else_body { kind: LOAD object: "DATA" }
    }
  )pb"));
  EXPECT_THAT(e, HasSubstr("t.textproto: kernels[0].body[1].else_body[1].object: "
                           "no object named 'DATA'"));

  // PUTSIG's signal_object is checked the same way.
  e = CompileError(Kernel(R"pb(
    body { kind: PUTSIG object: "D" rank: "0" signal_object: "FLAGS" }
  )pb"));
  EXPECT_THAT(e, HasSubstr("kernels[0].body[0].signal_object: no object named 'FLAGS'"));

  // A missing object is a different message.
  e = CompileError(Kernel(R"pb(body { kind: WAIT })pb"));
  EXPECT_THAT(e, HasSubstr("kernels[0].body[0]: `object` is required for wait"));
}

TEST(ProgramTest, UnknownNameInExpressionHasFilePathLineCol) {
  std::string e = CompileError(Kernel(R"pb(
    body { kind: NOTIFY object: "SIG" index: "r + q" }
  )pb"));
  EXPECT_THAT(e, HasSubstr("t.textproto: kernels[0].body[0].index:"));
  EXPECT_THAT(e, HasSubstr("'q'"));
  // <file>: <path>:<line>:<col>: ... ('q' is at column 5)
  EXPECT_THAT(e, ContainsRegex("kernels\\[0\\]\\.body\\[0\\]\\.index:1:5: "));

  // Names go out of scope: a FOR variable after its loop, an ATOMIC result before its op.
  e = CompileError(Kernel(R"pb(
    body {
      kind: FOR
      var: "i"
      to: "2"
      body { kind: NOTIFY object: "SIG" index: "i" }
    }
    body { kind: WAIT object: "SIG" index: "i" }
  )pb"));
  EXPECT_THAT(e, HasSubstr("t.textproto: kernels[0].body[1].index:1:1: "));
  EXPECT_THAT(e, HasSubstr("'i'"));
  e = CompileError(Kernel(R"pb(
    body { kind: WAIT object: "SIG" value: "old" }
    body { kind: ATOMIC_ADD object: "SIG" result: "old" }
  )pb"));
  EXPECT_THAT(e, HasSubstr("t.textproto: kernels[0].body[0].value:1:1: "));
  // And `l` only exists in lane_if.
  e = CompileError(Kernel(R"pb(
    body { kind: WAIT object: "SIG" index: "l" }
  )pb"));
  EXPECT_THAT(e, HasSubstr("kernels[0].body[0].index:1:1: "));
  EXPECT_EQ(CompileError(Kernel(R"pb(
              body { kind: WAIT object: "SIG" count: "N" lane_if: "l != r" }
            )pb")),
            "");
}

TEST(ProgramTest, TypeErrors) {
  std::string e = CompileError(Kernel(R"pb(
    body { kind: NOTIFY object: "SIG" index: "r == 0" }
  )pb"));
  EXPECT_THAT(e, HasSubstr("t.textproto: kernels[0].body[0].index: "));
  EXPECT_THAT(e, HasSubstr("'r == 0' must be an int expression"));

  e = CompileError(Kernel(R"pb(
    body {
      kind: IF
      cond: "r + 1"
      body { kind: SYNCTHREADS }
    }
  )pb"));
  EXPECT_THAT(e, HasSubstr("t.textproto: kernels[0].body[0].cond: "));
  EXPECT_THAT(e, HasSubstr("must be a bool expression"));

  e = CompileError(Kernel(R"pb(
    body { kind: WAIT object: "SIG" count: "N" lane_if: "l" }
  )pb"));
  EXPECT_THAT(e, HasSubstr("kernels[0].body[0].lane_if: "));
  EXPECT_THAT(e, HasSubstr("must be a bool expression"));

  e = CompileError(R"pb(
    objects { name: "SIG" size: "N > 1" }
    kernels { name: "k" body { kind: SYNCTHREADS } }
  )pb");
  EXPECT_THAT(e, HasSubstr("t.textproto: objects[0].size: "));
  EXPECT_THAT(e, HasSubstr("must be an int expression"));
}

TEST(ProgramTest, FieldWithoutMeaningForKind) {
  std::string e = CompileError(Kernel(R"pb(
    body { kind: NOTIFY object: "SIG" tag: "1" }
  )pb"));
  EXPECT_THAT(e, HasSubstr("t.textproto: kernels[0].body[0]: `tag` has no meaning for notify"));

  e = CompileError(Kernel(R"pb(
    body { kind: WAIT object: "SIG" tag: "1" }
  )pb"));
  EXPECT_THAT(e, HasSubstr("`tag` has no meaning for wait"));

  e = CompileError(Kernel(R"pb(
    body { kind: SYNCTHREADS object: "SIG" }
  )pb"));
  EXPECT_THAT(e, HasSubstr("`object` has no meaning for syncthreads"));

  e = CompileError(Kernel(R"pb(
    body { kind: STORE object: "D" after: "t" }
  )pb"));
  EXPECT_THAT(e, HasSubstr("`after` has no meaning for store"));

  // Per-kind value checks.
  e = CompileError(Kernel(R"pb(
    body { kind: WAIT object: "SIG" cmp: GE }
  )pb"));
  EXPECT_THAT(e, HasSubstr("kernels[0].body[0].cmp: dl.wait compares with == only"));
  e = CompileError(Kernel(R"pb(
    body { kind: NOTIFY object: "SIG" scope: CTA }
  )pb"));
  EXPECT_THAT(e, HasSubstr("kernels[0].body[0].scope: "));
  e = CompileError(Kernel(R"pb(
    body { kind: WAIT object: "D" }
  )pb"));
  EXPECT_THAT(e, HasSubstr("kernels[0].body[0].object: 'D' is F32; signal words are integers"));
}

TEST(ProgramTest, HostOpInKernelAndDeviceOpInStream) {
  std::string e = CompileError(Kernel(R"pb(
    body { kind: LAUNCH kernel: "k" }
  )pb"));
  EXPECT_THAT(e, HasSubstr("t.textproto: kernels[0].body[0]: launch is a host (stream) op; "
                           "a kernel cannot run it"));
  e = CompileError(Kernel(R"pb(
    body { kind: STREAM_WAIT object: "SIG" }
  )pb"));
  EXPECT_THAT(e, HasSubstr("kernels[0].body[0]: stream_wait is a host (stream) op"));

  e = CompileError(Kernel(R"pb(
                     body { kind: SYNCTHREADS }
                   )pb") +
                   R"pb(
    streams {
      name: "main"
      body { kind: LAUNCH kernel: "k" }
      body { kind: NOTIFY object: "SIG" }
    }
  )pb");
  EXPECT_THAT(e, HasSubstr("t.textproto: streams[0].body[1]: notify runs on the device; a "
                           "host stream cannot run it"));
  // Inside a stream loop.
  e = CompileError(Kernel(R"pb(
                     body { kind: SYNCTHREADS }
                   )pb") +
                   R"pb(
    streams {
      body {
        kind: FOR
        var: "e"
        to: "2"
        body { kind: SYNCTHREADS }
      }
    }
  )pb");
  EXPECT_THAT(e, HasSubstr("t.textproto: streams[0].body[0].body[0]: syncthreads runs on the "
                           "device"));
  // LAUNCH of an unknown kernel.
  e = CompileError(Kernel(R"pb(
                     body { kind: SYNCTHREADS }
                   )pb") +
                   R"pb(
    streams { body { kind: LAUNCH kernel: "nope" } }
  )pb");
  EXPECT_THAT(e, HasSubstr("streams[0].body[0].kernel: no kernel named 'nope'"));
}

TEST(ProgramTest, LoadAfterMustNameAWaitToken) {
  std::string e = CompileError(Kernel(R"pb(
    body { kind: WAIT object: "SIG" token: "t" }
    body { kind: LOAD object: "D" after: "u" }
  )pb"));
  EXPECT_THAT(e, HasSubstr("t.textproto: kernels[0].body[1].after: no wait token 'u' before "
                           "this load"));
  // The token exists but only after the load.
  e = CompileError(Kernel(R"pb(
    body { kind: LOAD object: "D" after: "t" }
    body { kind: WAIT object: "SIG" token: "t" }
  )pb"));
  EXPECT_THAT(e, HasSubstr("kernels[0].body[0].after: no wait token 't' before this load"));
  // A name that is not a token.
  e = CompileError(R"pb(
    params { name: "P" value: 1 }
    objects { name: "D" }
    kernels { name: "k" body { kind: LOAD object: "D" after: "P" } }
  )pb");
  EXPECT_THAT(e, HasSubstr("kernels[0].body[0].after: 'P' is not a wait token"));
  // A token is not an expression name.
  e = CompileError(Kernel(R"pb(
    body { kind: WAIT object: "SIG" token: "t" }
    body { kind: NOTIFY object: "SIG" value: "t" }
  )pb"));
  EXPECT_THAT(e, HasSubstr("kernels[0].body[1].value:1:1: "));
  // The valid form.
  EXPECT_EQ(CompileError(Kernel(R"pb(
              body { kind: WAIT object: "SIG" token: "t" }
              body { kind: LOAD object: "D" after: "t" }
            )pb")),
            "");
}

TEST(ProgramTest, DuplicateNames) {
  EXPECT_THAT(CompileError(R"pb(
                objects { name: "SIG" }
                objects { name: "SIG" }
                kernels { name: "k" body { kind: SYNCTHREADS } }
              )pb"),
              HasSubstr("t.textproto: objects[1].name: object 'SIG' is declared twice"));
  EXPECT_THAT(CompileError(R"pb(
                kernels { name: "k" body { kind: SYNCTHREADS } }
                kernels { name: "k" body { kind: SYNCTHREADS } }
              )pb"),
              HasSubstr("t.textproto: kernels[1].name: kernel 'k' is declared twice"));
  EXPECT_THAT(CompileError(R"pb(
                kernels { name: "k" body { kind: SYNCTHREADS } }
                streams { name: "s" body { kind: LAUNCH kernel: "k" } }
                streams { name: "s" body { kind: LAUNCH kernel: "k" } }
              )pb"),
              HasSubstr("t.textproto: streams[1].name: stream 's' is declared twice"));
  EXPECT_THAT(CompileError(R"pb(
                params { name: "P" value: 1 }
                params { name: "P" value: 2 }
                kernels { name: "k" body { kind: SYNCTHREADS } }
              )pb"),
              HasSubstr("t.textproto: params[1].name: 'P' is already declared"));
  // No shadowing: a loop variable named like a param, a builtin, or an enclosing loop var.
  EXPECT_THAT(CompileError(R"pb(
                params { name: "P" value: 1 }
                kernels {
                  name: "k"
                  body {
                    kind: FOR
                    var: "P"
                    to: "2"
                    body { kind: SYNCTHREADS }
                  }
                }
              )pb"),
              HasSubstr("t.textproto: kernels[0].body[0].var: 'P' is already declared"));
  EXPECT_THAT(CompileError(Kernel(R"pb(
                body {
                  kind: FOR
                  var: "r"
                  to: "2"
                  body { kind: SYNCTHREADS }
                }
              )pb")),
              HasSubstr("kernels[0].body[0].var: 'r' is already declared"));
  EXPECT_THAT(CompileError(Kernel(R"pb(
                body {
                  kind: FOR
                  var: "i"
                  to: "2"
                  body {
                    kind: FOR
                    var: "i"
                    to: "2"
                    body { kind: SYNCTHREADS }
                  }
                }
              )pb")),
              HasSubstr("kernels[0].body[0].body[0].var: 'i' is already declared"));
  // Two tokens of the same name in one body.
  EXPECT_THAT(CompileError(Kernel(R"pb(
                body { kind: WAIT object: "SIG" token: "t" }
                body { kind: WAIT object: "SIG" token: "t" }
              )pb")),
              HasSubstr("kernels[0].body[1].token: 't' is already declared"));
  // But sequential loops may reuse a name (the first one's scope has ended).
  EXPECT_EQ(CompileError(Kernel(R"pb(
              body {
                kind: FOR
                var: "i"
                to: "2"
                body { kind: SYNCTHREADS }
              }
              body {
                kind: FOR
                var: "i"
                to: "2"
                body { kind: SYNCTHREADS }
              }
            )pb")),
            "");
}

TEST(ProgramTest, ForNeedsVarAndTo) {
  EXPECT_THAT(CompileError(Kernel(R"pb(
                body {
                  kind: FOR
                  var: "i"
                  from: "1"
                  body { kind: SYNCTHREADS }
                }
              )pb")),
              HasSubstr("t.textproto: kernels[0].body[0].to: a loop needs `to` (exclusive)"));
  EXPECT_THAT(CompileError(Kernel(R"pb(
                body {
                  kind: FOR
                  to: "2"
                  body { kind: SYNCTHREADS }
                }
              )pb")),
              HasSubstr("t.textproto: kernels[0].body[0].var: a loop needs `var`"));
  EXPECT_THAT(CompileError(Kernel(R"pb(
                body { kind: IF body { kind: SYNCTHREADS } }
              )pb")),
              HasSubstr("t.textproto: kernels[0].body[0].cond: an if needs `cond`"));
}

TEST(ProgramTest, ProgramLevelChecks) {
  EXPECT_THAT(CompileError(R"pb(name: "x")pb"),
              HasSubstr("t.textproto: kernels: a program needs at least one kernel"));
  EXPECT_THAT(CompileError(R"pb(
                backend: "intel"
                kernels { name: "k" body { kind: SYNCTHREADS } }
              )pb"),
              HasSubstr("t.textproto: backend: 'intel' is not nvidia or amd"));
  EXPECT_THAT(CompileError(R"pb(kernels { name: "k" })pb"),
              HasSubstr("t.textproto: kernels[0].body: a kernel needs a body"));
  EXPECT_THAT(CompileError(R"pb(kernels { body { kind: SYNCTHREADS } })pb"),
              HasSubstr("t.textproto: kernels[0].name: a kernel needs a name"));
}

TEST(ProgramTest, LoadOverridesApply) {
  LoadOverrides o;
  o.ranks = 5;
  o.ctas = 3;
  o.iterations = 4;
  o.max_states = 77;
  ASSERT_OK_AND_ASSIGN(Program p, CompileProgram(Parse(Kernel(R"pb(
    body { kind: SYNCTHREADS }
  )pb")),
                                                 "t.textproto", o));
  EXPECT_EQ(p.ranks, 5);
  EXPECT_EQ(p.ctas, 3);
  EXPECT_EQ(p.iterations, 4);
  EXPECT_EQ(p.max_states, 77);
  EXPECT_EQ(p.proto.ranks(), 5);  // the proto as loaded, with the overrides
}

TEST(ProgramTest, DefaultSitesNumberedPerKindKernelsThenStreams) {
  // Textual order, depth first through FOR/IF bodies; kernels before streams, although
  // streams are compiled first.
  ASSERT_OK_AND_ASSIGN(Program p, CompileProgram(Parse(R"pb(
    objects { name: "SIG" size: "4" }
    kernels {
      name: "a"
      body { kind: NOTIFY object: "SIG" }
      body {
        kind: FOR
        var: "i"
        to: "2"
        body { kind: WAIT object: "SIG" index: "i" }
        body { kind: NOTIFY object: "SIG" index: "i" }
      }
      body {
        kind: IF
        cond: "r == 0"
        body { kind: WAIT object: "SIG" }
        else_body { kind: NOTIFY object: "SIG" }
      }
    }
    kernels {
      name: "b"
      body { kind: WAIT object: "SIG" }
      body { kind: NOTIFY object: "SIG" }
      body { kind: NOTIFY site: "mine" object: "SIG" }
    }
    streams {
      name: "main"
      body { kind: RESET object: "SIG" }
      body { kind: LAUNCH kernel: "a" }
      body { kind: LAUNCH kernel: "b" }
    }
  )pb"),
                                                 "t.textproto"));
  std::map<std::string, std::string> site_of;  // path -> site
  for (const Op& op : p.ops) site_of[op.path] = op.site;
  EXPECT_EQ(site_of["kernels[0].body[0]"], "notify#1");
  EXPECT_EQ(site_of["kernels[0].body[1]"], "for#1");
  EXPECT_EQ(site_of["kernels[0].body[1].body[0]"], "wait#1");
  EXPECT_EQ(site_of["kernels[0].body[1].body[1]"], "notify#2");
  EXPECT_EQ(site_of["kernels[0].body[2]"], "if#1");
  EXPECT_EQ(site_of["kernels[0].body[2].body[0]"], "wait#2");
  EXPECT_EQ(site_of["kernels[0].body[2].else_body[0]"], "notify#3");
  EXPECT_EQ(site_of["kernels[1].body[0]"], "wait#3");
  EXPECT_EQ(site_of["kernels[1].body[1]"], "notify#4");
  EXPECT_EQ(site_of["kernels[1].body[2]"], "mine");  // the user's label is kept
  EXPECT_EQ(site_of["streams[0].body[0]"], "reset#1");
  EXPECT_EQ(site_of["streams[0].body[1]"], "launch#1");
  EXPECT_EQ(site_of["streams[0].body[2]"], "launch#2");
  // Every op got a distinct id equal to its index.
  for (size_t i = 0; i < p.ops.size(); ++i) EXPECT_EQ(p.ops[i].id, static_cast<int>(i));
}

TEST(ProgramTest, StreamVariablesAreInScopeInKernels) {
  ASSERT_OK_AND_ASSIGN(Program p, CompileProgram(Parse(R"pb(
    objects { name: "SIG" size: "4" }
    kernels { name: "k" body { kind: NOTIFY object: "SIG" index: "e" } }
    streams {
      body {
        kind: FOR
        var: "e"
        to: "E"
        body { kind: LAUNCH kernel: "k" }
      }
    }
  )pb"),
                                                 "t.textproto"));
  EXPECT_EQ(p.ops[p.kernels[0].body[0]].index.text(), "e");
}

TEST(ProgramTest, LoadProgramFileReportsParseErrorsWithLineAndColumn) {
  absl::StatusOr<Program> missing = LoadProgramFile(std::string(WARPCHECK_SOURCE_DIR) +
                                                    "/corpus/signal/does_not_exist.textproto");
  EXPECT_THAT(missing, StatusIs(absl::StatusCode::kInvalidArgument, "cannot read file"));

  const std::string path =
      (std::filesystem::temp_directory_path() / "program_test_bad.textproto").string();
  {
    std::ofstream f(path);
    f << "name: \"x\"\nkernels {\n  name: \"k\"\n  bogus_field: 1\n}\n";
  }
  absl::StatusOr<Program> bad = LoadProgramFile(path);
  EXPECT_THAT(bad, StatusIs(absl::StatusCode::kInvalidArgument, path + ":4:"));
  EXPECT_THAT(bad, StatusIs(absl::StatusCode::kInvalidArgument, "\"bogus_field\""));
  std::filesystem::remove(path);

  ASSERT_OK_AND_ASSIGN(Program c19,
                       LoadProgramFile(std::string(WARPCHECK_SOURCE_DIR) +
                                       "/corpus/signal/c19_two_rank_cycle.textproto"));
  EXPECT_EQ(c19.name, "c19_two_rank_cycle");
  EXPECT_EQ(c19.expect.outcome(), DEADLOCK);
}

}  // namespace
}  // namespace warpcheck::sim::signal
