#include "sim/base/tsv.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "sim/base/file.h"

namespace warpcheck::sim::base {

int TsvTable::Col(absl::string_view name) const {
  for (size_t i = 0; i < header.size(); ++i) {
    if (header[i] == name) return static_cast<int>(i);
  }
  return -1;
}

absl::StatusOr<TsvTable> ParseTsv(absl::string_view text, absl::string_view where) {
  TsvTable t;
  int line_no = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_no;
    if (line.empty()) continue;
    std::vector<std::string> cols = absl::StrSplit(line, '\t');
    if (t.header.empty()) {
      t.header = std::move(cols);
      continue;
    }
    if (cols.size() != t.header.size()) {
      return absl::InvalidArgumentError(absl::StrCat(where, ":", line_no, ": ", cols.size(),
                                                     " columns, the header has ",
                                                     t.header.size()));
    }
    t.rows.push_back(std::move(cols));
  }
  return t;
}

absl::StatusOr<TsvTable> ReadTsvFile(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFile(path);
  if (!text.ok()) return text.status();
  return ParseTsv(*text, path);
}

}  // namespace warpcheck::sim::base
