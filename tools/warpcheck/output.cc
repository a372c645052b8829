#include "tools/warpcheck/output.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/json_util.h"

namespace warpcheck::cli {

void PrintError(std::ostream& err, absl::string_view message) {
  err << "warpcheck: error: " << message << "\n";
}

absl::StatusOr<OutputFormat> ParseFormatFlag(const ParsedArgs& args) {
  std::string f = args.Get("format").value_or("text");
  if (f == "text") return OUTPUT_FORMAT_TEXT;
  if (f == "json") return OUTPUT_FORMAT_JSON;
  if (f == "textproto") return OUTPUT_FORMAT_TEXTPROTO;
  return absl::InvalidArgumentError(
      absl::StrCat("--format: '", f, "' is not one of text, json, textproto"));
}

bool PrintMachineReport(const Report& report, OutputFormat format, std::ostream& out) {
  if (format == OUTPUT_FORMAT_JSON) {
    google::protobuf::util::JsonPrintOptions options;
    options.preserve_proto_field_names = true;
    // Zeros are data here (row 0, iteration 0, an empty basis list): print them.
    options.always_print_primitive_fields = true;
    std::string json;
    auto status = google::protobuf::util::MessageToJsonString(report, &json, options);
    out << (status.ok() ? json : "{}") << "\n";
    return true;
  }
  if (format == OUTPUT_FORMAT_TEXTPROTO) {
    std::string text;
    google::protobuf::TextFormat::PrintToString(report, &text);
    out << text;
    return true;
  }
  return false;
}

}  // namespace warpcheck::cli
