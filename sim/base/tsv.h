// Tab-separated tables with a header row (corpus/plan's cost tables): the one reader.
#ifndef WARPCHECK_SIM_BASE_TSV_H_
#define WARPCHECK_SIM_BASE_TSV_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace warpcheck::sim::base {

struct TsvTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;  // each with header.size() cells

  // Ensures: the column of `name`, or -1.
  int Col(absl::string_view name) const;
  // Requires: Col(name) >= 0.
  const std::string& Cell(const std::vector<std::string>& row, absl::string_view name) const {
    return row[Col(name)];
  }
};

// The first non-empty line is the header; empty lines are skipped. InvalidArgument
// "WHERE:LINE: N columns, the header has M" for a ragged row.
absl::StatusOr<TsvTable> ParseTsv(absl::string_view text, absl::string_view where);
// ReadFile + ParseTsv (NotFound / InvalidArgument naming the path).
absl::StatusOr<TsvTable> ReadTsvFile(const std::string& path);

}  // namespace warpcheck::sim::base

#endif  // WARPCHECK_SIM_BASE_TSV_H_
