#include "tools/warpcheck/output.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "google/protobuf/text_format.h"
#include "sim/base/file.h"
#include "sim/base/json.h"

namespace warpcheck::cli {

void PrintError(std::ostream& err, absl::string_view message) {
  err << "warpcheck: error: " << message << "\n";
}

bool WriteOutputFile(const std::string& path, const std::string& text,
                     absl::string_view what, std::ostream& err) {
  if (sim::base::WriteFileAtomically(path, text).ok()) return true;
  PrintError(err, absl::StrCat(path, ": cannot write", what.empty() ? "" : " ", what));
  return false;
}

absl::StatusOr<OutputFormat> ParseFormatFlag(const ParsedArgs& args) {
  std::string f = args.Get("format").value_or("text");
  if (f == "text") return OutputFormat::kText;
  if (f == "json") return OutputFormat::kJson;
  if (f == "textproto") return OutputFormat::kTextproto;
  return absl::InvalidArgumentError(
      absl::StrCat("--format: '", f, "' is not one of text, json, textproto"));
}

bool PrintMachineReport(const Report& report, OutputFormat format, std::ostream& out) {
  if (format == OutputFormat::kJson) {
    out << sim::base::ToJson(report) << "\n";
    return true;
  }
  if (format == OutputFormat::kTextproto) {
    std::string text;
    google::protobuf::TextFormat::PrintToString(report, &text);
    out << text;
    return true;
  }
  return false;
}

}  // namespace warpcheck::cli
