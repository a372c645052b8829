#include "sim/base/json.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "google/protobuf/descriptor.h"

namespace warpcheck::sim::base {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

// Code points protobuf's JSON writer escapes as \uXXXX besides C0 controls, `"`, `\`:
// `<` `>` (HTML safety), DEL, the C1 controls, and the invisible format and separator
// characters.
bool NeedsUnicodeEscape(uint32_t cp) {
  return cp == '<' || cp == '>' || (cp >= 0x7f && cp <= 0x9f) || cp == 0xad ||
         (cp >= 0x600 && cp <= 0x603) || cp == 0x6dd || cp == 0x70f || cp == 0x17b4 ||
         cp == 0x17b5 || (cp >= 0x200b && cp <= 0x200f) || (cp >= 0x2028 && cp <= 0x202e) ||
         (cp >= 0x2060 && cp <= 0x2064) || (cp >= 0x206a && cp <= 0x206f) || cp == 0xfeff ||
         (cp >= 0xfff9 && cp <= 0xfffb);
}

// Decodes one UTF-8 sequence at s[i]; returns its length (1 for an invalid byte, which
// is then copied as it is).
int DecodeUtf8(const std::string& s, size_t i, uint32_t* cp) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = b(i);
  int len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
  if (len == 0 || i + len > s.size()) {
    *cp = c;
    return 1;
  }
  uint32_t v = len == 1 ? c : len == 2 ? (c & 0x1f) : len == 3 ? (c & 0x0f) : (c & 0x07);
  for (int k = 1; k < len; ++k) {
    if ((b(i + k) & 0xc0) != 0x80) {
      *cp = c;
      return 1;
    }
    v = (v << 6) | (b(i + k) & 0x3f);
  }
  *cp = v;
  return len;
}

// protobuf's SimpleDtoa: the shortest of %.15g and %.17g that reads back exactly.
std::string FormatDouble(double v) {
  if (std::isnan(v)) return "\"NaN\"";
  if (std::isinf(v)) return v > 0 ? "\"Infinity\"" : "\"-Infinity\"";
  std::string s = absl::StrFormat("%.15g", v);
  if (std::strtod(s.c_str(), nullptr) != v) s = absl::StrFormat("%.17g", v);
  return s;
}

void AppendMessage(const Message& m, std::string& out);
void AppendValue(const Message& m, const FieldDescriptor* f, std::string& out);

// One value of field f: element `index` of a repeated field, or the singular value
// when index < 0.
void AppendScalar(const Message& m, const FieldDescriptor* f, int index, std::string& out) {
  const Reflection* r = m.GetReflection();
  const bool rep = index >= 0;
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
      absl::StrAppend(&out, rep ? r->GetRepeatedInt32(m, f, index) : r->GetInt32(m, f));
      break;
    case FieldDescriptor::CPPTYPE_INT64:
      absl::StrAppend(&out, rep ? r->GetRepeatedInt64(m, f, index) : r->GetInt64(m, f));
      break;
    case FieldDescriptor::CPPTYPE_UINT32:
      absl::StrAppend(&out, rep ? r->GetRepeatedUInt32(m, f, index) : r->GetUInt32(m, f));
      break;
    case FieldDescriptor::CPPTYPE_UINT64:
      absl::StrAppend(&out, rep ? r->GetRepeatedUInt64(m, f, index) : r->GetUInt64(m, f));
      break;
    case FieldDescriptor::CPPTYPE_DOUBLE:
      out += FormatDouble(rep ? r->GetRepeatedDouble(m, f, index) : r->GetDouble(m, f));
      break;
    case FieldDescriptor::CPPTYPE_FLOAT: {
      float v = rep ? r->GetRepeatedFloat(m, f, index) : r->GetFloat(m, f);
      std::string s = absl::StrFormat("%.6g", v);
      if (std::strtof(s.c_str(), nullptr) != v) s = absl::StrFormat("%.9g", v);
      out += std::isfinite(v) ? s : FormatDouble(v);
      break;
    }
    case FieldDescriptor::CPPTYPE_BOOL:
      out += (rep ? r->GetRepeatedBool(m, f, index) : r->GetBool(m, f)) ? "true" : "false";
      break;
    case FieldDescriptor::CPPTYPE_ENUM: {
      int v = rep ? r->GetRepeatedEnumValue(m, f, index) : r->GetEnumValue(m, f);
      const auto* ev = f->enum_type()->FindValueByNumber(v);
      out += JsonQuote(v == 0 || ev == nullptr ? std::string() : ev->name());
      break;
    }
    case FieldDescriptor::CPPTYPE_STRING:
      out += JsonQuote(rep ? r->GetRepeatedString(m, f, index) : r->GetString(m, f));
      break;
    case FieldDescriptor::CPPTYPE_MESSAGE:
      AppendMessage(rep ? r->GetRepeatedMessage(m, f, index) : r->GetMessage(m, f), out);
      break;
  }
}

// A map field: {"key": value, ...} sorted by key (numeric keys numerically).
void AppendMap(const Message& m, const FieldDescriptor* f, std::string& out) {
  const Reflection* r = m.GetReflection();
  const FieldDescriptor* key = f->message_type()->map_key();
  const FieldDescriptor* value = f->message_type()->map_value();
  std::vector<const Message*> entries;
  for (int i = 0; i < r->FieldSize(m, f); ++i) entries.push_back(&r->GetRepeatedMessage(m, f, i));
  auto key_text = [&](const Message* e) {
    std::string k;
    AppendScalar(*e, key, -1, k);
    return k;
  };
  const bool numeric = key->cpp_type() != FieldDescriptor::CPPTYPE_STRING &&
                       key->cpp_type() != FieldDescriptor::CPPTYPE_BOOL;
  std::sort(entries.begin(), entries.end(), [&](const Message* a, const Message* b) {
    std::string ka = key_text(a), kb = key_text(b);
    if (numeric) return std::strtold(ka.c_str(), nullptr) < std::strtold(kb.c_str(), nullptr);
    return ka < kb;
  });
  out += '{';
  for (size_t i = 0; i < entries.size(); ++i) {
    if (i) out += ',';
    std::string k = key_text(entries[i]);
    out += key->cpp_type() == FieldDescriptor::CPPTYPE_STRING ? k : JsonQuote(k);
    out += ':';
    AppendScalar(*entries[i], value, -1, out);
  }
  out += '}';
}

void AppendValue(const Message& m, const FieldDescriptor* f, std::string& out) {
  if (f->is_map()) return AppendMap(m, f, out);
  if (!f->is_repeated()) return AppendScalar(m, f, -1, out);
  out += '[';
  for (int i = 0; i < m.GetReflection()->FieldSize(m, f); ++i) {
    if (i) out += ',';
    AppendScalar(m, f, i, out);
  }
  out += ']';
}

// Which fields print: repeated and map fields always (as [] and {} when empty), singular
// fields with presence (messages, proto3 `optional`, oneof members) only when set, and
// other primitive fields always, even at their default.
bool Prints(const Message& m, const FieldDescriptor* f) {
  if (f->is_repeated()) return true;
  if (f->has_presence()) return m.GetReflection()->HasField(m, f);
  return true;
}

// The well-known types our schemas use print as protobuf prints them: a
// google.protobuf.Value as the JSON value it holds, a ListValue as an array, a Struct as
// an object, and a wrapper (DoubleValue, Int64Value, ...) as its bare value.
bool AppendWellKnown(const Message& m, std::string& out) {
  const auto* d = m.GetDescriptor();
  if (d->file()->name() == "google/protobuf/wrappers.proto") {
    AppendValue(m, d->FindFieldByName("value"), out);
    return true;
  }
  if (d->file()->name() != "google/protobuf/struct.proto") return false;
  const Reflection* r = m.GetReflection();
  if (d->full_name() == "google.protobuf.ListValue") {
    AppendValue(m, d->FindFieldByName("values"), out);
  } else if (d->full_name() == "google.protobuf.Struct") {
    AppendValue(m, d->FindFieldByName("fields"), out);
  } else {  // google.protobuf.Value: the member of its oneof that is set, or null
    const auto* kind = r->GetOneofFieldDescriptor(m, d->FindOneofByName("kind"));
    if (kind == nullptr || kind->name() == "null_value") {
      out += "null";
    } else {
      AppendValue(m, kind, out);
    }
  }
  return true;
}

// Fields in protobuf's order: first those outside any oneof, in declaration order, then
// the members of oneofs (proto3 `optional` fields are synthetic oneofs) that are set, by
// field number — protobuf's printer appends those after the fields it always prints.
std::vector<const FieldDescriptor*> FieldOrder(const google::protobuf::Descriptor* d) {
  std::vector<const FieldDescriptor*> plain, in_oneof;
  for (int i = 0; i < d->field_count(); ++i)
    (d->field(i)->containing_oneof() ? in_oneof : plain).push_back(d->field(i));
  std::sort(in_oneof.begin(), in_oneof.end(),
            [](auto* a, auto* b) { return a->number() < b->number(); });
  plain.insert(plain.end(), in_oneof.begin(), in_oneof.end());
  return plain;
}

void AppendMessage(const Message& m, std::string& out) {
  if (AppendWellKnown(m, out)) return;
  out += '{';
  bool first = true;
  for (const FieldDescriptor* f : FieldOrder(m.GetDescriptor())) {
    if (!Prints(m, f)) continue;
    if (!first) out += ',';
    first = false;
    out += JsonQuote(f->name());
    out += ':';
    AppendValue(m, f, out);
  }
  out += '}';
}

}  // namespace

std::string JsonQuote(const std::string& s) {
  std::string out = "\"";
  for (size_t i = 0; i < s.size();) {
    uint32_t cp;
    int len = DecodeUtf8(s, i, &cp);
    switch (cp) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (cp < 0x20 || NeedsUnicodeEscape(cp)) {
          out += absl::StrFormat("\\u%04x", cp);
        } else {
          out.append(s, i, len);
        }
    }
    i += len;
  }
  out += '"';
  return out;
}

std::string ToJson(const Message& message) {
  std::string out;
  AppendMessage(message, out);
  return out;
}

}  // namespace warpcheck::sim::base
