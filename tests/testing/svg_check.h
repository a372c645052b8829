// Reading back the SVG documents warpcheck writes (tools/warpcheck/svg.h), for tests: a
// small well-formedness check (balanced tags, quoted attributes, known entities), the
// root's viewBox, and every <text> element with its attributes and unescaped content.
// Only the subset of XML the builder emits is understood.
#ifndef WARPCHECK_TESTS_TESTING_SVG_CHECK_H_
#define WARPCHECK_TESTS_TESTING_SVG_CHECK_H_

#include <cctype>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "tools/warpcheck/svg.h"

namespace warpcheck::cli::testing {

struct XmlElement {
  std::string name;
  std::map<std::string, std::string> attrs;
  std::string text;  // unescaped character data directly inside it
};

inline bool UnescapeInto(const std::string& s, std::string* out) {
  static const std::map<std::string, char> kEntities = {
      {"lt", '<'}, {"gt", '>'}, {"amp", '&'}, {"quot", '"'}, {"apos", '\''}};
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '<') return false;
    if (s[i] != '&') {
      *out += s[i];
      continue;
    }
    size_t semi = s.find(';', i);
    if (semi == std::string::npos) return false;
    auto it = kEntities.find(s.substr(i + 1, semi - i - 1));
    if (it == kEntities.end()) return false;
    *out += it->second;
    i = semi;
  }
  return true;
}

// Parses `doc`; Ensures: OK and every element in document order, or InvalidArgument
// "svg: offset N: what".
inline absl::Status ParseXml(const std::string& doc, std::vector<XmlElement>* elements) {
  std::vector<size_t> open;  // indices into *elements
  int roots = 0;
  size_t i = 0;
  auto fail = [&](const std::string& what) {
    return absl::InvalidArgumentError(absl::StrCat("svg: offset ", i, ": ", what));
  };
  auto is_name = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == ':' || c == '_'; };
  while (i < doc.size()) {
    size_t lt = doc.find('<', i);
    std::string chars = doc.substr(i, lt == std::string::npos ? std::string::npos : lt - i);
    std::string text;
    if (!UnescapeInto(chars, &text)) return fail("bad character data");
    if (!open.empty()) {
      (*elements)[open.back()].text += text;
    } else if (text.find_first_not_of(" \n") != std::string::npos) {
      return fail("text outside the root");
    }
    if (lt == std::string::npos) break;
    i = lt + 1;
    if (doc.compare(i, 1, "/") == 0) {
      size_t gt = doc.find('>', i);
      if (gt == std::string::npos) return fail("unterminated end tag");
      std::string name = doc.substr(i + 1, gt - i - 1);
      if (open.empty() || (*elements)[open.back()].name != name) {
        return fail(absl::StrCat("</", name, "> does not close the open element"));
      }
      open.pop_back();
      i = gt + 1;
      continue;
    }
    XmlElement e;
    while (i < doc.size() && is_name(doc[i])) e.name += doc[i++];
    if (e.name.empty()) return fail("empty tag name");
    bool self_closing = false;
    while (true) {
      while (i < doc.size() && doc[i] == ' ') ++i;
      if (i >= doc.size()) return fail("unterminated tag");
      if (doc.compare(i, 2, "/>") == 0) {
        self_closing = true;
        i += 2;
        break;
      }
      if (doc[i] == '>') {
        ++i;
        break;
      }
      std::string key;
      while (i < doc.size() && is_name(doc[i])) key += doc[i++];
      if (key.empty() || doc.compare(i, 2, "=\"") != 0) return fail("bad attribute");
      size_t end = doc.find('"', i + 2);
      if (end == std::string::npos) return fail("unterminated attribute");
      std::string value;
      if (!UnescapeInto(doc.substr(i + 2, end - i - 2), &value)) return fail("bad attribute value");
      if (!e.attrs.emplace(key, value).second) return fail("duplicate attribute " + key);
      i = end + 1;
    }
    if (open.empty() && ++roots > 1) return fail("more than one root element");
    elements->push_back(std::move(e));
    if (!self_closing) open.push_back(elements->size() - 1);
  }
  if (!open.empty()) return fail(absl::StrCat("<", (*elements)[open.back()].name, "> not closed"));
  if (roots != 1) return fail("no root element");
  return absl::OkStatus();
}

inline double Attr(const XmlElement& e, const std::string& key, double otherwise = 0) {
  auto it = e.attrs.find(key);
  double v = otherwise;
  if (it != e.attrs.end() && !absl::SimpleAtod(it->second, &v)) return otherwise;
  return v;
}

// The root's viewBox as a Box (empty if missing or malformed).
inline svg::Box ViewBox(const XmlElement& root) {
  svg::Box b;
  auto it = root.attrs.find("viewBox");
  if (it == root.attrs.end()) return b;
  std::vector<std::string> parts = absl::StrSplit(it->second, ' ');
  double v[4];
  if (parts.size() != 4) return b;
  for (int k = 0; k < 4; ++k) {
    if (!absl::SimpleAtod(parts[k], &v[k])) return b;
  }
  b.Add(v[0], v[1], v[0] + v[2], v[1] + v[3]);
  return b;
}

// The estimated extent of a <text> element (the builder's own estimate, svg::TextBox).
inline svg::Box TextExtent(const XmlElement& text, double default_size) {
  svg::TextStyle style;
  style.size = Attr(text, "font-size", default_size);
  auto it = text.attrs.find("text-anchor");
  if (it != text.attrs.end()) {
    style.anchor = it->second == "middle" ? svg::Anchor::kMiddle
                   : it->second == "end"  ? svg::Anchor::kEnd
                                          : svg::Anchor::kStart;
  }
  return svg::TextBox(Attr(text, "x"), Attr(text, "y"), text.text, style);
}

inline bool Contains(const svg::Box& outer, const svg::Box& inner) {
  return !outer.empty && outer.x0 <= inner.x0 && outer.y0 <= inner.y0 &&
         inner.x1 <= outer.x1 && inner.y1 <= outer.y1;
}

// Every <text> of a parsed document whose estimated extent leaves the viewBox (empty
// when the document is sized right).
inline std::vector<std::string> TextsOutsideViewBox(const std::vector<XmlElement>& elements) {
  std::vector<std::string> outside;
  if (elements.empty()) return {"no root"};
  const svg::Box view = ViewBox(elements[0]);
  const double size = Attr(elements[0], "font-size", 10);
  for (const XmlElement& e : elements) {
    if (e.name == "text" && !Contains(view, TextExtent(e, size))) outside.push_back(e.text);
  }
  return outside;
}

}  // namespace warpcheck::cli::testing

#endif  // WARPCHECK_TESTS_TESTING_SVG_CHECK_H_
