#include "sim/base/file.h"

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace warpcheck::sim::base {
namespace {

namespace fs = std::filesystem;

class FileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("warpcheck_file_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

  // The names in the test folder, sorted.
  std::vector<std::string> Names() const {
    std::vector<std::string> names;
    for (const fs::directory_entry& e : fs::directory_iterator(dir_))
      names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }

  fs::path dir_;
};

TEST_F(FileTest, ReadsWhatWasWrittenIncludingNulAndHighBytes) {
  std::string bytes("a\0b\xff\n", 5);
  bytes += std::string(200000, 'x');  // more than one read() chunk
  ASSERT_OK(WriteFileAtomically(Path("f.bin"), bytes));
  ASSERT_OK_AND_ASSIGN(std::string read, ReadFile(Path("f.bin")));
  EXPECT_EQ(read, bytes);
}

TEST_F(FileTest, ReadsAnEmptyFile) {
  ASSERT_OK(WriteFileAtomically(Path("empty"), ""));
  ASSERT_OK_AND_ASSIGN(std::string read, ReadFile(Path("empty")));
  EXPECT_EQ(read, "");
}

TEST_F(FileTest, MissingFileNamesThePathAndTheReason) {
  const std::string missing = Path("missing.textproto");
  EXPECT_THAT(ReadFile(missing),
              StatusIs(absl::StatusCode::kNotFound,
                       missing + ": cannot read: No such file or directory"));
}

TEST_F(FileTest, AFolderIsNotAFile) {
  EXPECT_THAT(ReadFile(dir_.string()),
              StatusIs(absl::StatusCode::kNotFound, ": cannot read: Is a directory"));
}

TEST_F(FileTest, AtomicWriteReplacesAnExistingFileAndLeavesNoTemporary) {
  ASSERT_OK(WriteFileAtomically(Path("out.txt"), "old contents, longer than the new"));
  ASSERT_OK(WriteFileAtomically(Path("out.txt"), "new"));
  ASSERT_OK_AND_ASSIGN(std::string read, ReadFile(Path("out.txt")));
  EXPECT_EQ(read, "new");
  EXPECT_THAT(Names(), ::testing::ElementsAre("out.txt"));
}

TEST_F(FileTest, AtomicWriteKeepsThePermissionsOfTheFileItReplaces) {
  ASSERT_OK(WriteFileAtomically(Path("script.sh"), "#!/bin/sh\n"));
  fs::permissions(Path("script.sh"), fs::perms::owner_all | fs::perms::group_read);
  ASSERT_OK(WriteFileAtomically(Path("script.sh"), "#!/bin/sh\ntrue\n"));
  EXPECT_EQ(fs::status(Path("script.sh")).permissions(),
            fs::perms::owner_all | fs::perms::group_read);
}

TEST_F(FileTest, FailedWriteIntoAMissingFolderSaysWhy) {
  const std::string target = Path("no/such/folder/out.txt");
  EXPECT_THAT(WriteFileAtomically(target, "x"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       target + ": cannot write: No such file or directory"));
  EXPECT_TRUE(Names().empty());
}

TEST_F(FileTest, FailedRenameLeavesTheOldFileIntactAndNoTemporary) {
  // The target is a non-empty folder: the temporary is written, the rename fails.
  fs::create_directories(dir_ / "target" / "inside");
  EXPECT_THAT(
      WriteFileAtomically(Path("target"), "x"),
      StatusIs(absl::StatusCode::kInvalidArgument, Path("target") + ": cannot write: "));
  EXPECT_TRUE(fs::is_directory(dir_ / "target" / "inside"));
  EXPECT_THAT(Names(), ::testing::ElementsAre("target"));
}

TEST_F(FileTest, FailedWriteLeavesTheOldFileIntactAndNoTemporary) {
  ASSERT_OK(WriteFileAtomically(Path("keep.txt"), "old"));
  // A file-size limit makes the write itself fail (EFBIG) after the temporary is open.
  struct rlimit saved;
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &saved), 0);
  void (*saved_handler)(int) = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = saved;
  small.rlim_cur = 1024;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  absl::Status status = WriteFileAtomically(Path("keep.txt"), std::string(1 << 20, 'n'));
  ::setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, saved_handler);
  EXPECT_THAT(status, StatusIs(absl::StatusCode::kInvalidArgument,
                               Path("keep.txt") + ": cannot write: File too large"));
  ASSERT_OK_AND_ASSIGN(std::string read, ReadFile(Path("keep.txt")));
  EXPECT_EQ(read, "old");
  EXPECT_THAT(Names(), ::testing::ElementsAre("keep.txt"));
}

TEST_F(FileTest, UncommittedWriterLeavesTheOldFileIntactAndNoTemporary) {
  ASSERT_OK(WriteFileAtomically(Path("keep.txt"), "old"));
  {
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<AtomicFileWriter> w,
                         AtomicFileWriter::Open(Path("keep.txt")));
    w->stream() << "new, never committed";
  }
  ASSERT_OK_AND_ASSIGN(std::string read, ReadFile(Path("keep.txt")));
  EXPECT_EQ(read, "old");
  EXPECT_THAT(Names(), ::testing::ElementsAre("keep.txt"));
}

TEST_F(FileTest, StreamedWriterCommitsOnlyWhenAsked) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<AtomicFileWriter> w,
                       AtomicFileWriter::Open(Path("trace")));
  w->stream() << "line 1\n";
  EXPECT_FALSE(fs::exists(Path("trace")));  // nothing at the target until Commit()
  w->stream() << "line 2\n";
  ASSERT_OK(w->Commit());
  ASSERT_OK_AND_ASSIGN(std::string read, ReadFile(Path("trace")));
  EXPECT_EQ(read, "line 1\nline 2\n");
  w.reset();
  EXPECT_THAT(Names(), ::testing::ElementsAre("trace"));
}

}  // namespace
}  // namespace warpcheck::sim::base
