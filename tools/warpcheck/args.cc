#include "tools/warpcheck/args.h"

#include <limits>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace warpcheck::cli {

std::optional<std::string> ParsedArgs::Get(const std::string& name) const {
  auto it = values.find(name);
  if (it == values.end()) return std::nullopt;
  return it->second;
}

absl::StatusOr<std::optional<int64_t>> ParsedArgs::GetInt(const std::string& name,
                                                          int64_t min,
                                                          int64_t max) const {
  std::optional<std::string> text = Get(name);
  if (!text) return std::nullopt;
  int64_t v = 0;
  if (!absl::SimpleAtoi(*text, &v) || v < min || v > max) {
    std::string expected = max != std::numeric_limits<int64_t>::max()
                               ? absl::StrCat("an integer in [", min, ", ", max, "]")
                           : min == 0 ? std::string("a non-negative integer")
                                      : absl::StrCat("an integer >= ", min);
    return absl::InvalidArgumentError(
        absl::StrCat("--", name, "=", *text, ": expected ", expected));
  }
  return v;
}

absl::StatusOr<ParsedArgs> ParseArgs(const std::vector<std::string>& args,
                                     const std::set<std::string>& value_flags,
                                     const std::set<std::string>& switch_flags) {
  ParsedArgs parsed;
  bool only_positional = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (only_positional || a.size() < 2 || a[0] != '-' || a == "-") {
      parsed.positional.push_back(a);
      continue;
    }
    if (a == "--") {
      only_positional = true;
      continue;
    }
    if (a == "-h" || a == "--help") {
      parsed.switches.insert("help");
      continue;
    }
    if (a.rfind("--", 0) != 0) {
      // A single-dash token is a usage error except "-o FILE", kept for `convert emit`.
      if (a == "-o" && value_flags.count("o")) {
        if (i + 1 >= args.size()) return absl::InvalidArgumentError("-o needs a value");
        parsed.values["o"] = args[++i];
        continue;
      }
      return absl::InvalidArgumentError(absl::StrCat("unknown option '", a, "'"));
    }
    std::string body = a.substr(2);
    std::string name = body;
    std::optional<std::string> value;
    if (size_t eq = body.find('='); eq != std::string::npos) {
      name = body.substr(0, eq);
      value = body.substr(eq + 1);
    }
    if (value_flags.count(name)) {
      if (!value) {
        if (i + 1 >= args.size()) {
          return absl::InvalidArgumentError(absl::StrCat("--", name, " needs a value"));
        }
        value = args[++i];
      }
      parsed.values[name] = *value;
    } else if (switch_flags.count(name)) {
      if (value) {
        return absl::InvalidArgumentError(absl::StrCat("--", name, " takes no value"));
      }
      parsed.switches.insert(name);
    } else {
      return absl::InvalidArgumentError(absl::StrCat("unknown flag '--", name, "'"));
    }
  }
  return parsed;
}

absl::StatusOr<std::vector<int32_t>> ParseShape(absl::string_view text) {
  std::vector<int32_t> shape;
  if (text.empty()) return absl::InvalidArgumentError("--shape: empty shape");
  for (absl::string_view part : absl::StrSplit(text, 'x')) {
    int64_t v = 0;
    if (part.empty() || !absl::SimpleAtoi(part, &v) || v <= 0 || v > (int64_t{1} << 30) ||
        part.find_first_not_of("0123456789") != absl::string_view::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("--shape: '", text,
                       "' is not a shape; expected positive extents joined by 'x', e.g. "
                       "64x64"));
    }
    shape.push_back(static_cast<int32_t>(v));
  }
  return shape;
}

}  // namespace warpcheck::cli
