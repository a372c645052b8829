#include "sim/base/file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <system_error>
#include <utility>

#include "absl/strings/str_cat.h"

namespace warpcheck::sim::base {
namespace {

std::string Reason(int error) { return std::generic_category().message(error); }

absl::Status CannotWrite(const std::string& path, int error) {
  return absl::InvalidArgumentError(absl::StrCat(
      path,
      ": cannot write: ", error != 0 ? Reason(error) : std::string("the write failed")));
}

struct Temporary {
  std::string path;
  int fd;
};

// Creates a new, empty temporary next to `path`, open for writing, with the permission
// bits `path` has (or 0666 less the umask when it does not exist yet).
// Ensures: the temporary, or the error of CannotWrite (and nothing created).
absl::StatusOr<Temporary> CreateTemporary(const std::string& path) {
  static std::atomic<uint64_t> counter{0};
  struct stat existing;
  const bool keep_mode =
      ::stat(path.c_str(), &existing) == 0 && S_ISREG(existing.st_mode);
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string temp = absl::StrCat(path, ".partial-", ::getpid(), "-", counter++);
    int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) {
      if (errno == EEXIST) continue;
      return CannotWrite(path, errno);
    }
    if (keep_mode && ::fchmod(fd, existing.st_mode & 07777) != 0) {
      int error = errno;
      ::close(fd);
      std::remove(temp.c_str());
      return CannotWrite(path, error);
    }
    return Temporary{std::move(temp), fd};
  }
  return CannotWrite(path, EEXIST);
}

}  // namespace

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return absl::NotFoundError(absl::StrCat(path, ": cannot read: ", Reason(errno)));
  std::string contents;
  struct stat st;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    contents.reserve(static_cast<size_t>(st.st_size));
  }
  char buf[1 << 16];
  while (true) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      int error = errno;
      ::close(fd);
      return absl::NotFoundError(absl::StrCat(path, ": cannot read: ", Reason(error)));
    }
    contents.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return contents;
}

absl::Status WriteFileAtomically(const std::string& path, absl::string_view contents) {
  absl::StatusOr<std::unique_ptr<AtomicFileWriter>> writer = AtomicFileWriter::Open(path);
  if (!writer.ok()) return writer.status();
  (*writer)->stream().write(contents.data(),
                            static_cast<std::streamsize>(contents.size()));
  return (*writer)->Commit();
}

absl::StatusOr<std::unique_ptr<AtomicFileWriter>> AtomicFileWriter::Open(
    const std::string& path) {
  absl::StatusOr<Temporary> temp = CreateTemporary(path);
  if (!temp.ok()) return temp.status();
  return std::unique_ptr<AtomicFileWriter>(
      new AtomicFileWriter(path, std::move(temp->path), temp->fd));
}

AtomicFileWriter::AtomicFileWriter(std::string path, std::string temp_path, int fd)
    : path_(std::move(path)),
      temp_path_(std::move(temp_path)),
      fd_(fd),
      buf_(fd),
      out_(&buf_) {}

AtomicFileWriter::~AtomicFileWriter() {
  if (fd_ >= 0) ::close(fd_);
  if (!done_) std::remove(temp_path_.c_str());
}

absl::Status AtomicFileWriter::Commit() {
  out_.flush();
  int error = buf_.error();
  if (error == 0 && out_.fail()) error = EIO;
  if (error == 0 && ::fsync(fd_) != 0) error = errno;
  if (::close(fd_) != 0 && error == 0) error = errno;
  fd_ = -1;
  if (error != 0)
    return CannotWrite(path_, error);  // the destructor removes the temporary
  if (::rename(temp_path_.c_str(), path_.c_str()) != 0) return CannotWrite(path_, errno);
  done_ = true;
  return absl::OkStatus();
}

bool AtomicFileWriter::FdBuf::Drain() {
  const char* p = pbase();
  while (error_ == 0 && p < pptr()) {
    ssize_t n = ::write(fd_, p, static_cast<size_t>(pptr() - p));
    if (n < 0) {
      if (errno != EINTR) error_ = errno;
      continue;
    }
    p += n;
  }
  setp(buf_, buf_ + sizeof buf_);
  return error_ == 0;
}

AtomicFileWriter::FdBuf::int_type AtomicFileWriter::FdBuf::overflow(int_type c) {
  if (!Drain()) return traits_type::eof();
  if (!traits_type::eq_int_type(c, traits_type::eof())) {
    *pptr() = traits_type::to_char_type(c);
    pbump(1);
  }
  return traits_type::not_eof(c);
}

int AtomicFileWriter::FdBuf::sync() { return Drain() ? 0 : -1; }

}  // namespace warpcheck::sim::base
