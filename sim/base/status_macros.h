// RETURN_IF_ERROR / ASSIGN_OR_RETURN for absl::Status(Or), which Abseil 20220623 lacks.
#ifndef WARPCHECK_SIM_BASE_STATUS_MACROS_H_
#define WARPCHECK_SIM_BASE_STATUS_MACROS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define WARPCHECK_CONCAT_INNER_(a, b) a##b
#define WARPCHECK_CONCAT_(a, b) WARPCHECK_CONCAT_INNER_(a, b)

#define RETURN_IF_ERROR(expr)                  \
  do {                                         \
    ::absl::Status _wc_status = (expr);        \
    if (!_wc_status.ok()) return _wc_status;   \
  } while (0)

#define ASSIGN_OR_RETURN(lhs, expr) \
  ASSIGN_OR_RETURN_IMPL_(WARPCHECK_CONCAT_(_wc_statusor_, __LINE__), lhs, expr)

#define ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                           \
  if (!tmp.ok()) return tmp.status();          \
  lhs = std::move(tmp).value()

#endif  // WARPCHECK_SIM_BASE_STATUS_MACROS_H_
