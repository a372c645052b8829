#include "sim/base/text_proto.h"

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/text_format.h"
#include "sim/base/file.h"

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

}  // namespace

absl::Status ParseTextProto(absl::string_view text, absl::string_view origin,
                            google::protobuf::Message* msg) {
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
