#include "sim/launch/launch_spec.h"

#include <algorithm>
#include <cstring>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/text_format.h"
#include "sim/base/field_position.h"
#include "sim/base/file.h"
#include "sim/base/text_proto.h"
#include "sim/launch/sha256.h"

namespace warpcheck::sim::launch {
namespace {

// An error about the spec's field at `path` (sim/base/field_position.h).
absl::Status FieldError(absl::string_view path, absl::string_view what) {
  return base::WithField(absl::InvalidArgumentError(what), path);
}

}  // namespace

absl::StatusOr<LaunchSpec> ParseLaunchSpec(absl::string_view text,
                                           absl::string_view origin) {
  LaunchSpec spec;
  if (absl::Status parsed = base::ParseTextProto(text, origin, &spec); !parsed.ok())
    return parsed;
  absl::Status valid = ValidateLaunchSpec(spec);
  if (!valid.ok()) {
    // "<origin>:<line>:<col>: ..." at the field the check names, else "<origin>: ...".
    return base::LocateInTextProto(
        base::WithMessage(valid, absl::StrCat(origin, ": ", valid.message())), text, origin,
        spec);
  }
  return spec;
}

absl::StatusOr<LaunchSpec> LoadLaunchSpec(const std::string& path) {
  absl::StatusOr<std::string> text = base::ReadFile(path);
  if (!text.ok())
    return absl::NotFoundError(absl::StrCat("cannot read launch spec ", path));
  return ParseLaunchSpec(*text, path);
}

std::string SpecDir(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return "";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

absl::Status ValidateLaunchSpec(const LaunchSpec& spec) {
  if (spec.ptx_file().empty())
    return FieldError("ptx_file", "launch spec has no ptx_file");
  if (spec.grid().x() == 0) return FieldError("grid.x", "grid.x must be at least 1");
  if (spec.block().x() == 0) return FieldError("block.x", "block.x must be at least 1");
  uint64_t threads =
      uint64_t{spec.block().x()} * DimOr1(spec.block().y()) * DimOr1(spec.block().z());
  if (threads > 1024) {
    return FieldError("block", absl::StrCat("block has ", threads,
                                            " threads; at most 1024 are allowed"));
  }
  absl::flat_hash_set<std::string> names;
  for (int i = 0; i < spec.param_size(); ++i) {
    const Param& p = spec.param(i);
    if (p.kind_case() == Param::KIND_NOT_SET) {
      return FieldError(absl::StrCat("param[", i, "]"),
                        absl::StrCat("param ", i, " has no kind"));
    }
    if (p.kind_case() != Param::kBuffer) continue;
    const BufferParam& b = p.buffer();
    if (b.name().empty()) {
      return FieldError(absl::StrCat("param[", i, "].buffer"),
                        absl::StrCat("param ", i, ": buffer has no name"));
    }
    if (!names.insert(b.name()).second) {
      return FieldError(
          absl::StrCat("param[", i, "].buffer"),
          absl::StrCat("param ", i, ": buffer name \"", b.name(), "\" is used twice"));
    }
    uint32_t eb = b.element_bytes();
    if (eb != 0 && eb != 1 && eb != 2 && eb != 4 && eb != 8) {
      return FieldError(absl::StrCat("param[", i, "].buffer"),
                        absl::StrCat("param ", i, ": buffer \"", b.name(),
                                     "\": element_bytes must be 1, 2, 4 or 8, got ", eb));
    }
    if (b.fill() == BufferParam::IOTA && b.size_bytes() % (eb == 0 ? 1 : eb) != 0) {
      return FieldError(
          absl::StrCat("param[", i, "].buffer"),
          absl::StrCat("param ", i, ": buffer \"", b.name(), "\": IOTA size ",
                       b.size_bytes(), " is not a multiple of element_bytes ", eb));
    }
    if (b.fill() == BufferParam::FILE && b.path().empty()) {
      return FieldError(absl::StrCat("param[", i, "].buffer"),
                        absl::StrCat("param ", i, ": buffer \"", b.name(),
                                     "\": FILE fill needs a path"));
    }
  }
  for (int i = 0; i < spec.expect_size(); ++i) {
    const Expectation& e = spec.expect(i);
    switch (e.kind_case()) {
      case Expectation::kBuffersEqual:
        for (const std::string& n : {e.buffers_equal().a(), e.buffers_equal().b()}) {
          if (!names.contains(n)) {
            return FieldError(absl::StrCat("expect[", i, "]"),
                              absl::StrCat("expectation ", i, " (", ExpectationName(e),
                                           ") names unknown buffer \"", n, "\""));
          }
        }
        break;
      case Expectation::KIND_NOT_SET:
        return FieldError(absl::StrCat("expect[", i, "]"),
                          absl::StrCat("expectation ", i, " has no kind"));
    }
  }
  return absl::OkStatus();
}

std::string ExpectationName(const Expectation& e) {
  if (!e.name().empty()) return e.name();
  switch (e.kind_case()) {
    case Expectation::kBuffersEqual:
      return absl::StrCat("buffers_equal(", e.buffers_equal().a(), ", ",
                          e.buffers_equal().b(), ")");
    case Expectation::KIND_NOT_SET:
      break;
  }
  return "expectation";
}

int64_t FirstDifference(absl::Span<const uint8_t> a, absl::Span<const uint8_t> b) {
  size_t n = std::min(a.size(), b.size());
  // Equal prefixes (the common case: a passing run) at memcmp speed.
  if (n > 0 && std::memcmp(a.data(), b.data(), n) == 0) {
    return a.size() == b.size() ? -1 : static_cast<int64_t>(n);
  }
  for (size_t i = 0; i < n; ++i) {
    if (a[i] != b[i]) return static_cast<int64_t>(i);
  }
  return a.size() == b.size() ? -1 : static_cast<int64_t>(n);
}

std::vector<BufferComparison> CompareBuffers(absl::Span<const NamedBuffer> a,
                                             absl::Span<const NamedBuffer> b) {
  auto find = [](absl::Span<const NamedBuffer> side,
                 const std::string& name) -> const NamedBuffer* {
    for (const NamedBuffer& nb : side) {
      if (nb.name == name) return &nb;
    }
    return nullptr;
  };
  std::vector<BufferComparison> out;
  auto compare = [&](const std::string& name) {
    BufferComparison c;
    c.name = name;
    const NamedBuffer* x = find(a, name);
    const NamedBuffer* y = find(b, name);
    if (x != nullptr) c.sha256_a = Sha256Hex(x->bytes);
    if (y != nullptr) c.sha256_b = Sha256Hex(y->bytes);
    if (x == nullptr || y == nullptr) {
      c.first_difference = 0;
      c.differing_bytes = (x ? x->bytes.size() : 0) + (y ? y->bytes.size() : 0);
    } else {
      c.first_difference = FirstDifference(x->bytes, y->bytes);
      size_t n = std::min(x->bytes.size(), y->bytes.size());
      for (size_t i = 0; i < n; ++i) c.differing_bytes += x->bytes[i] != y->bytes[i];
      c.differing_bytes += std::max(x->bytes.size(), y->bytes.size()) - n;
      c.equal = c.first_difference < 0;
    }
    out.push_back(std::move(c));
  };
  for (const NamedBuffer& x : a) compare(x.name);
  for (const NamedBuffer& y : b) {
    if (find(a, y.name) == nullptr) compare(y.name);
  }
  return out;
}

ParamValue EncodeParam(const Param& param, uint64_t buffer_address) {
  switch (param.kind_case()) {
    case Param::kBuffer:
      return {buffer_address, 8};
    case Param::kNullPtr:
      return {0, 8};
    case Param::kU32:
      return {param.u32(), 4};
    case Param::kS32:
      return {static_cast<uint32_t>(param.s32()), 4};
    case Param::kU64:
      return {param.u64(), 8};
    case Param::kS64:
      return {static_cast<uint64_t>(param.s64()), 8};
    case Param::kF32: {
      const float f = param.f32();
      uint32_t bits;
      std::memcpy(&bits, &f, sizeof(bits));
      return {bits, 4};
    }
    case Param::KIND_NOT_SET:
      break;
  }
  return {};
}

RunVerdict JudgeRun(const LaunchSpec& spec, absl::Span<const NamedBuffer> buffers,
                    bool faulted, bool hash_buffers) {
  RunVerdict v;
  v.buffers.reserve(buffers.size());
  for (const NamedBuffer& b : buffers) {
    SimBuffer& out = v.buffers.emplace_back();
    out.set_name(b.name);
    if (hash_buffers) out.set_sha256(Sha256Hex(b.bytes));
  }
  v.expectations = EvaluateExpectations(spec, buffers);
  v.ok = !faulted;
  for (const SimExpectationResult& e : v.expectations) v.ok = v.ok && e.ok();
  return v;
}

std::vector<SimExpectationResult> EvaluateExpectations(
    const LaunchSpec& spec, absl::Span<const NamedBuffer> buffers) {
  auto find = [&](const std::string& name) -> const NamedBuffer* {
    for (const NamedBuffer& b : buffers) {
      if (b.name == name) return &b;
    }
    return nullptr;
  };
  std::vector<SimExpectationResult> results;
  for (const Expectation& e : spec.expect()) {
    SimExpectationResult r;
    r.set_name(ExpectationName(e));
    if (e.kind_case() == Expectation::kBuffersEqual) {
      const std::string& an = e.buffers_equal().a();
      const std::string& bn = e.buffers_equal().b();
      const NamedBuffer* a = find(an);
      const NamedBuffer* b = find(bn);
      if (a == nullptr || b == nullptr) {
        r.set_ok(false);
        r.set_detail(absl::StrCat("no buffer \"", a == nullptr ? an : bn, "\""));
      } else if (a->bytes.size() != b->bytes.size()) {
        r.set_ok(false);
        r.set_detail(absl::StrCat(an, " has ", a->bytes.size(), " bytes, ", bn, " has ",
                                  b->bytes.size()));
      } else {
        int64_t first = FirstDifference(a->bytes, b->bytes);
        r.set_ok(first < 0);
        if (first >= 0) {
          size_t differing = 0;
          for (size_t i = 0; i < a->bytes.size(); ++i)
            differing += a->bytes[i] != b->bytes[i];
          r.set_detail(absl::StrFormat(
              "%d of %d bytes differ; first at byte %d: %s=0x%02x %s=0x%02x", differing,
              a->bytes.size(), first, an, a->bytes[first], bn, b->bytes[first]));
        }
      }
    } else {
      r.set_ok(false);
      r.set_detail("expectation has no kind");
    }
    results.push_back(std::move(r));
  }
  return results;
}

}  // namespace warpcheck::sim::launch
