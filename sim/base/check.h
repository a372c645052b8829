// WARPCHECK_CHECK: programming-error checks that stay on in release builds.
//
// Abseil 20220623 (Debian 12) has no CHECK/LOG, so warpcheck carries its own. A failed
// check is a bug in warpcheck, never a reaction to user input: user input is validated
// and rejected with absl::Status before it reaches code guarded by these checks.
//
//   WARPCHECK_CHECK(n > 0) << "size must be positive, got " << n;
#ifndef WARPCHECK_SIM_BASE_CHECK_H_
#define WARPCHECK_SIM_BASE_CHECK_H_

#include <sstream>
#include <string>

namespace warpcheck::sim::base::internal {

// Collects the message of a failed check and aborts when destroyed.
class CheckFailure {
 public:
  CheckFailure(const char* file, int line, const char* condition);
  [[noreturn]] ~CheckFailure();
  std::ostream& stream() { return stream_; }

 private:
  std::ostringstream stream_;
};

// Lets `cond ? (void)0 : Voidify() & CheckFailure(...).stream() << ...` type-check.
struct Voidify {
  void operator&(std::ostream&) {}
};

}  // namespace warpcheck::sim::base::internal

#define WARPCHECK_CHECK(cond)                      \
  (cond) ? (void)0                                 \
         : ::warpcheck::sim::base::internal::Voidify() &      \
               ::warpcheck::sim::base::internal::CheckFailure( \
                   __FILE__, __LINE__, #cond)      \
                   .stream()

#define WARPCHECK_DCHECK(cond) WARPCHECK_CHECK(cond)

#endif  // WARPCHECK_SIM_BASE_CHECK_H_
