#include "sim/base/text_proto.h"

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/text_format.h"
#include "sim/base/file.h"
#include "sim/base/text_limit.h"

namespace warpcheck::sim::base {
namespace {

// Keeps the first parse error as "origin:line:col: message" (1-based line and column).
class FirstErrorCollector : public google::protobuf::io::ErrorCollector {
 public:
  explicit FirstErrorCollector(std::string origin) : origin_(std::move(origin)) {}
  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string& message) override {
    if (first_.empty())
      first_ = absl::StrCat(origin_, ":", line + 1, ":", column + 1, ": ", message);
  }
  const std::string& first() const { return first_; }

 private:
  std::string origin_;
  std::string first_;
};

// True when `text` has nothing but whitespace and `#` comments: no field at all.
bool HasNoFields(absl::string_view text) {
  bool in_comment = false;
  for (char c : text) {
    if (in_comment) {
      in_comment = c != '\n';
    } else if (c == '#') {
      in_comment = true;
    } else if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v') {
      return false;
    }
  }
  return true;
}

}  // namespace

absl::Status ParseTextProto(absl::string_view text, absl::string_view origin,
                            google::protobuf::Message* msg) {
  if (absl::Status size = CheckTextSize(text, origin, kTextProtoMaxBytes,
                                        absl::StrCat("a ", msg->GetDescriptor()->full_name()));
      !size.ok()) {
    return size;
  }
  if (HasNoFields(text)) {
    return absl::InvalidArgumentError(
        absl::StrCat(origin, ":1:1: empty input: no fields of ",
                     msg->GetDescriptor()->full_name(), " (the text is empty or only comments)"));
  }
  FirstErrorCollector errors{std::string(origin)};
  google::protobuf::TextFormat::Parser parser;
  parser.RecordErrorsTo(&errors);
  // Protobuf's text parser recurses once per nested message; without a limit a hostile
  // file (thousands of nested ops) overflows the stack instead of being an input error.
  parser.SetRecursionLimit(kTextProtoMaxDepth);
  if (!parser.ParseFromString(std::string(text), msg)) {
    return absl::InvalidArgumentError(
        errors.first().empty()
            ? absl::StrCat(origin, ": not a ", msg->GetDescriptor()->full_name())
            : errors.first());
  }
  return absl::OkStatus();
}

absl::Status ParseTextProtoFile(const std::string& path, google::protobuf::Message* msg) {
  absl::StatusOr<std::string> text = ReadFile(path);
  if (!text.ok())
    return absl::InvalidArgumentError(absl::StrCat(path, ": cannot read file"));
  return ParseTextProto(*text, path, msg);
}

}  // namespace warpcheck::sim::base
