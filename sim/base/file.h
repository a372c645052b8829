// Reading and writing whole files: the one reader and the one writer warpcheck uses.
//
// Every file warpcheck writes is written atomically: the bytes go to a temporary file in
// the same folder, which is renamed over the target only once it is complete, so a crash
// or a failed write never leaves half a file at the target (and leaves an existing file
// as it was). The temporary is `<path>.partial-<pid>-<n>`; it is removed on failure.
#ifndef WARPCHECK_SIM_BASE_FILE_H_
#define WARPCHECK_SIM_BASE_FILE_H_

#include <memory>
#include <ostream>
#include <streambuf>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace warpcheck::sim::base {

// Reads the whole file at `path` as bytes.
// Ensures: the contents, or NotFound "<path>: cannot read: <reason>" (reason from the
//          OS, e.g. "No such file or directory"; a folder is "Is a directory").
absl::StatusOr<std::string> ReadFile(const std::string& path);

// Writes `contents` to `path` atomically (see the top of this file). An existing file's
// permission bits are kept; a new file gets the usual 0666 less the umask.
// Ensures: OK and `path` holds exactly `contents`; or InvalidArgument
//          "<path>: cannot write: <reason>", `path` as it was and no temporary left.
absl::Status WriteFileAtomically(const std::string& path, absl::string_view contents);

// The same scheme for output that is streamed rather than built in memory (a machine
// trace can be gigabytes): write to stream(), then Commit(). Destroying the writer
// without a successful Commit() removes the temporary and leaves `path` as it was.
class AtomicFileWriter {
 public:
  // Creates the temporary next to `path`.
  // Ensures: a writer, or InvalidArgument "<path>: cannot write: <reason>".
  static absl::StatusOr<std::unique_ptr<AtomicFileWriter>> Open(const std::string& path);

  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;
  ~AtomicFileWriter();

  // Requires: Commit() not called yet.
  std::ostream& stream() { return out_; }

  // Closes the temporary and renames it over `path`.
  // Requires: called at most once.
  // Ensures: OK, or InvalidArgument "<path>: cannot write: <reason>" with the temporary
  //          removed and `path` as it was.
  absl::Status Commit();

 private:
  // A buffered stream buffer over a file descriptor that keeps the first write error.
  class FdBuf : public std::streambuf {
   public:
    explicit FdBuf(int fd) : fd_(fd) { setp(buf_, buf_ + sizeof buf_); }
    int error() const { return error_; }

   protected:
    int_type overflow(int_type c) override;
    int sync() override;

   private:
    bool Drain();  // writes out the buffer; false (and error_ set) when that fails

    int fd_;
    int error_ = 0;
    char buf_[1 << 16];
  };

  AtomicFileWriter(std::string path, std::string temp_path, int fd);

  std::string path_;
  std::string temp_path_;
  int fd_;
  FdBuf buf_;
  std::ostream out_;
  bool done_ = false;
};

}  // namespace warpcheck::sim::base

#endif  // WARPCHECK_SIM_BASE_FILE_H_
