// FilePointer.cpp - see FilePointer.h.
#include "symbols/FilePointer.h"

#include <cctype>

namespace ilmap::symbols {

Result<FilePointer> parse_file_pointer(std::span<const std::uint8_t> bytes) {
  if (bytes.size() > kMaxFilePointerBytes)
    return Error{Errc::kMalformed, format("file.ptr is %zu bytes, more than a pointer line (%zu)", bytes.size(), kMaxFilePointerBytes)};
  std::string text(bytes.begin(), bytes.end());
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!text.empty() && space(text.back())) text.pop_back();
  std::size_t start = 0;
  while (start < text.size() && space(text[start])) ++start;
  text.erase(0, start);
  auto prefixed = [&](std::string_view p) {
    if (text.size() < p.size()) return false;
    for (std::size_t i = 0; i < p.size(); ++i)
      if (std::toupper(static_cast<unsigned char>(text[i])) != p[i]) return false;
    return true;
  };
  FilePointer out;
  std::size_t skip = 0;
  if (prefixed("PATH:")) {
    skip = 5;
  } else if (prefixed("MSG:")) {
    out.kind = FilePointer::Kind::kMessage;
    skip = 4;
  } else {
    return Error{Errc::kMalformed, "file.ptr holds neither PATH: nor MSG:"};
  }
  out.value = text.substr(skip);
  while (!out.value.empty() && space(out.value.front())) out.value.erase(0, 1);
  for (unsigned char c : out.value)
    if (c < 0x20 || c == 0x7f) return Error{Errc::kMalformed, "file.ptr holds a control character (more than one line?)"};
  if (out.value.empty()) return Error{Errc::kMalformed, "file.ptr names nothing after its prefix"};
  return out;
}

std::string file_pointer_key(std::string_view key) {
  const std::size_t slash = key.rfind('/');
  return std::string(key.substr(0, slash == std::string_view::npos ? 0 : slash + 1)) + "file.ptr";
}

}  // namespace ilmap::symbols
