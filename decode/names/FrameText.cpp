// FrameText.cpp - a method's frame texts and name-index key from ModuleNames' parts (rules in
// MethodNames.h). The cache compiler makes two texts for every method of a module (megabytes
// for a large one), so each text is measured first, the string grown once, and the parts
// copied in: no capacity check or reallocation per part.
#include <cstring>

#include "decode/names/MethodNames.h"

namespace ilmap::names {
namespace {

// Copies parts into a string grown by their total size beforehand.
class Writer {
 public:
  Writer(std::string& s, std::size_t size) {
    const std::size_t at = s.size();
    s.resize(at + size);
    p_ = s.data() + at;
  }
  void put(std::string_view v) {
    if (v.empty()) return;  // an empty view may have no data pointer
    std::memcpy(p_, v.data(), v.size());
    p_ += v.size();
  }
  void put(char c) { *p_++ = c; }

 private:
  char* p_;
};

// "(" or " (", the parameters, ")": its size, then the text.
std::size_t parameter_list_size(const MethodName& m, std::span<const ParamName> params, bool mono) {
  std::size_t size = mono ? 3 : 2;
  if (m.bad_signature) return size + kBadSignature.size();
  for (std::size_t i = 0; i < params.size(); ++i) {
    size += (i ? 2 : 0) + (mono ? params[i].mono_type : params[i].type).size();
    if (!params[i].name.empty()) size += 1 + params[i].name.size();
  }
  return size;
}

void put_parameter_list(const MethodName& m, std::span<const ParamName> params, bool mono, Writer& w) {
  if (mono) w.put(' ');
  w.put('(');
  if (m.bad_signature) {
    w.put(kBadSignature);
    w.put(')');
    return;
  }
  for (std::size_t i = 0; i < params.size(); ++i) {
    if (i) w.put(", ");
    w.put(mono ? params[i].mono_type : params[i].type);
    if (!params[i].name.empty()) {
      w.put(' ');
      w.put(params[i].name);
    }
  }
  w.put(')');
}

// "[T,U]" for a generic method, nothing otherwise.
std::size_t generic_list_size(const MethodName& m) {
  if (m.generic_params.empty()) return 0;
  std::size_t size = 1 + m.generic_params.size();  // '[', the commas and ']'
  for (std::string_view g : m.generic_params) size += g.size();
  return size;
}

void put_generic_list(const MethodName& m, Writer& w) {
  if (m.generic_params.empty()) return;
  w.put('[');
  for (std::size_t i = 0; i < m.generic_params.size(); ++i) {
    if (i) w.put(',');
    w.put(m.generic_params[i]);
  }
  w.put(']');
}

}  // namespace

std::string ModuleNames::coreclr_frame(std::uint32_t token) const {
  std::string s;
  append_coreclr_frame(token, s);
  return s;
}

std::string ModuleNames::mono_frame(std::uint32_t token) const {
  std::string s;
  append_mono_frame(token, s);
  return s;
}

void ModuleNames::append_coreclr_frame(std::uint32_t token, std::string& s) const {
  const MethodName* frame = method(token);
  if (!frame) return;
  const MethodName* m = frame->kickoff ? method(frame->kickoff) : frame;
  const std::span<const ParamName> ps = params(*m);
  const bool suffix = frame->kickoff && frame->iterator;  // "+MoveNext()"
  Writer w(s, index_key_size(*m) + generic_list_size(*m) + parameter_list_size(*m, ps, false) +
                  (suffix ? frame->name.size() + 3 : 0));
  if (m->type_rid < type_coreclr_.size() && !type_coreclr_[m->type_rid].empty()) {
    w.put(type_coreclr_[m->type_rid]);
    w.put('.');
  }
  w.put(m->name);
  put_generic_list(*m, w);
  put_parameter_list(*m, ps, false, w);
  if (suffix) {
    w.put('+');
    w.put(frame->name);
    w.put("()");
  }
}

void ModuleNames::append_mono_frame(std::uint32_t token, std::string& s) const {
  const MethodName* m = method(token);
  if (!m) return;
  if (m->mono_kickoff) m = method(m->mono_kickoff);
  constexpr std::string_view kNoType = "<Module>";
  const bool typed = m->type_rid && m->type_rid < type_mono_.size() && !type_mono_[m->type_rid].empty();
  const std::string_view type = typed ? std::string_view(type_mono_[m->type_rid]) : kNoType;
  const std::span<const ParamName> ps = params(*m);
  Writer w(s, type.size() + 1 + m->name.size() + generic_list_size(*m) + parameter_list_size(*m, ps, true));
  w.put(type);
  w.put('.');
  w.put(m->name);
  put_generic_list(*m, w);
  put_parameter_list(*m, ps, true, w);
}

std::size_t ModuleNames::index_key_size(const MethodName& m) const {
  std::size_t size = m.name.size();
  if (m.type_rid < type_coreclr_.size() && !type_coreclr_[m.type_rid].empty()) size += type_coreclr_[m.type_rid].size() + 1;
  return size;
}

void ModuleNames::append_index_key(const MethodName& m, std::string& s) const {
  if (m.type_rid < type_coreclr_.size() && !type_coreclr_[m.type_rid].empty()) {
    s += type_coreclr_[m.type_rid];
    s += '.';
  }
  s += m.name;
}

}  // namespace ilmap::names
