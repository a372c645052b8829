// Whether this test binary is the sanitizer job's build (tools/sanitize.sh: ASan + UBSan
// at -O0). warpcheck_test_options (tests/CMakeLists.txt) defines WARPCHECK_SANITIZED for
// every test when SANITIZE is set; a test that walks a whole corpus may take a sample
// there, or widen a time or memory bound, as a constant rather than a preprocessor branch.
#ifndef WARPCHECK_TESTS_TESTING_SANITIZED_H_
#define WARPCHECK_TESTS_TESTING_SANITIZED_H_

namespace warpcheck::testing {

#ifdef WARPCHECK_SANITIZED
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif

}  // namespace warpcheck::testing

#endif  // WARPCHECK_TESTS_TESTING_SANITIZED_H_
