// Test helpers for absl::Status(Or): Abseil 20220623 ships no status matchers.
#ifndef WARPCHECK_TESTS_TESTING_STATUS_MATCHERS_H_
#define WARPCHECK_TESTS_TESTING_STATUS_MATCHERS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace warpcheck::testing {

inline const absl::Status& GetStatus(const absl::Status& s) { return s; }
template <typename T>
const absl::Status& GetStatus(const absl::StatusOr<T>& s) {
  return s.status();
}

}  // namespace warpcheck::testing

#define EXPECT_OK(expr) EXPECT_TRUE(::warpcheck::testing::GetStatus(expr).ok()) \
    << ::warpcheck::testing::GetStatus(expr)
#define ASSERT_OK(expr) ASSERT_TRUE(::warpcheck::testing::GetStatus(expr).ok()) \
    << ::warpcheck::testing::GetStatus(expr)

#define WARPCHECK_TEST_CONCAT_INNER_(a, b) a##b
#define WARPCHECK_TEST_CONCAT_(a, b) WARPCHECK_TEST_CONCAT_INNER_(a, b)
#define ASSERT_OK_AND_ASSIGN(lhs, expr) \
  ASSERT_OK_AND_ASSIGN_IMPL_(WARPCHECK_TEST_CONCAT_(_wc_sor_, __LINE__), lhs, expr)
#define ASSERT_OK_AND_ASSIGN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                               \
  ASSERT_TRUE(tmp.ok()) << tmp.status();           \
  lhs = std::move(tmp).value()

// Matches a Status/StatusOr whose code is `code` and whose message contains `substr`.
MATCHER_P2(StatusIs, code, substr, "") {
  const absl::Status& s = ::warpcheck::testing::GetStatus(arg);
  *result_listener << "status is " << s;
  return s.code() == code &&
         s.message().find(std::string(substr)) != absl::string_view::npos;
}

#endif  // WARPCHECK_TESTS_TESTING_STATUS_MATCHERS_H_
