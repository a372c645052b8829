#include "sim/base/field_position.h"

#include <memory>
#include <vector>

#include "absl/strings/cord.h"
#include "absl/strings/numbers.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/text_format.h"
#include "sim/base/file.h"
#include "sim/base/text_proto.h"

namespace warpcheck::sim::base {
namespace {

constexpr char kFieldPayload[] = "type.warpcheck/field_path";

// One step of a path: "kernels[2]" -> {"kernels", 2}; "ranks" -> {"ranks", -1}.
struct Step {
  std::string name;
  int index = -1;
};

std::optional<std::vector<Step>> SplitPath(absl::string_view path) {
  std::vector<Step> steps;
  for (absl::string_view part : absl::StrSplit(path, '.')) {
    Step s;
    size_t open = part.find('[');
    if (open == absl::string_view::npos) {
      s.name = std::string(part);
    } else {
      if (!absl::EndsWith(part, "]")) return std::nullopt;
      s.name = std::string(part.substr(0, open));
      absl::string_view digits = part.substr(open + 1, part.size() - open - 2);
      if (!absl::SimpleAtoi(digits, &s.index) || s.index < 0) return std::nullopt;
    }
    if (s.name.empty()) return std::nullopt;
    steps.push_back(std::move(s));
  }
  return steps;
}

// Swallows parse errors: text that does not parse simply has no positions here (its
// reader reported the error already).
class Quiet : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int, google::protobuf::io::ColumnNumber, const std::string&) override {}
};

}  // namespace

absl::Status WithField(absl::Status status, absl::string_view path) {
  if (status.ok() || status.GetPayload(kFieldPayload).has_value()) return status;
  status.SetPayload(kFieldPayload, absl::Cord(path));
  return status;
}

absl::Status WithMessage(const absl::Status& status, absl::string_view message) {
  absl::Status out(status.code(), message);
  status.ForEachPayload([&out](absl::string_view url, const absl::Cord& payload) {
    out.SetPayload(url, payload);
  });
  return out;
}

std::optional<std::string> FieldOf(const absl::Status& status) {
  auto payload = status.GetPayload(kFieldPayload);
  if (!payload.has_value()) return std::nullopt;
  return std::string(*payload);
}

std::optional<TextPosition> FindField(absl::string_view text,
                                      const google::protobuf::Message& prototype,
                                      absl::string_view path) {
  std::optional<std::vector<Step>> steps = SplitPath(path);
  if (!steps.has_value()) return std::nullopt;
  std::unique_ptr<google::protobuf::Message> msg(prototype.New());
  google::protobuf::TextFormat::ParseInfoTree root;
  google::protobuf::TextFormat::Parser parser;
  Quiet quiet;
  parser.RecordErrorsTo(&quiet);
  parser.WriteLocationsTo(&root);
  parser.SetRecursionLimit(kTextProtoMaxDepth);
  if (text.size() > kTextProtoMaxBytes || !parser.ParseFromString(std::string(text), msg.get()))
    return std::nullopt;
  const google::protobuf::Descriptor* type = prototype.GetDescriptor();
  const google::protobuf::TextFormat::ParseInfoTree* tree = &root;
  std::optional<TextPosition> found;
  for (const Step& s : *steps) {
    const google::protobuf::FieldDescriptor* field =
        type == nullptr ? nullptr : type->FindFieldByName(s.name);
    if (field == nullptr || field->is_repeated() != (s.index >= 0)) return std::nullopt;
    if (tree == nullptr) break;  // an ancestor is not in the text: keep what was found
    google::protobuf::TextFormat::ParseLocation at = tree->GetLocation(field, s.index);
    if (at.line < 0) break;
    found = TextPosition{at.line + 1, at.column + 1};
    type = field->message_type();
    tree = type == nullptr ? nullptr : tree->GetTreeForNested(field, s.index);
  }
  return found;
}

absl::Status LocateInTextProto(absl::Status status, absl::string_view text,
                               absl::string_view origin,
                               const google::protobuf::Message& prototype,
                               absl::string_view prefix) {
  std::optional<std::string> path = FieldOf(status);
  if (!path.has_value()) return status;
  std::optional<TextPosition> at = FindField(text, prototype, absl::StrCat(prefix, *path));
  if (!at.has_value()) return status;
  absl::string_view what = status.message();
  const std::string head = absl::StrCat(origin, ": ");
  if (absl::StartsWith(what, head)) what.remove_prefix(head.size());
  return WithMessage(status,
                     absl::StrCat(origin, ":", at->line, ":", at->column, ": ", what));
}

absl::Status LocateInTextProtoFile(absl::Status status, const std::string& file,
                                   const google::protobuf::Message& prototype,
                                   absl::string_view prefix) {
  if (!FieldOf(status).has_value()) return status;
  absl::StatusOr<std::string> text = ReadFile(file);
  if (!text.ok()) return status;
  return LocateInTextProto(std::move(status), *text, file, prototype, prefix);
}

}  // namespace warpcheck::sim::base
