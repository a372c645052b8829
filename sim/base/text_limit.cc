#include "sim/base/text_limit.h"

#include <algorithm>
#include <cstdint>

#include "absl/strings/str_cat.h"

namespace warpcheck::sim::base {

absl::Status CheckTextSize(absl::string_view text, absl::string_view origin,
                           size_t max_bytes, absl::string_view what) {
  if (text.size() <= max_bytes) return absl::OkStatus();
  const absl::string_view head = text.substr(0, max_bytes);
  const int64_t line = 1 + std::count(head.begin(), head.end(), '\n');
  const size_t last_newline = head.rfind('\n');
  const int64_t column = static_cast<int64_t>(
      last_newline == absl::string_view::npos ? max_bytes + 1 : max_bytes - last_newline);
  return absl::InvalidArgumentError(absl::StrCat(origin, ":", line, ":", column,
                                                 ": the text goes on past ", max_bytes,
                                                 " bytes, the most ", what, " may have"));
}

}  // namespace warpcheck::sim::base
