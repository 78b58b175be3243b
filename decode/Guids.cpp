// Guids.cpp - text forms and names of the well-known GUIDs.
#include "decode/Guids.h"

namespace ilmap {
namespace {
constexpr char kHex[] = "0123456789abcdef";
void put(std::string& s, std::uint8_t b) {
  s.push_back(kHex[b >> 4]);
  s.push_back(kHex[b & 15]);
}
}  // namespace

std::string guid_to_n(const Guid& g) {
  static constexpr int kOrder[16] = {3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15};
  std::string s;
  s.reserve(32);
  for (int i : kOrder) put(s, g[static_cast<std::size_t>(i)]);
  return s;
}

std::string guid_to_text(const Guid& g) {
  const std::string n = guid_to_n(g);
  return n.substr(0, 8) + '-' + n.substr(8, 4) + '-' + n.substr(12, 4) + '-' + n.substr(16, 4) +
         '-' + n.substr(20);
}

const char* cdi_kind_name(const Guid& k) {
  using namespace guids;
  if (k == kCdiSourceLink) return "SourceLink";
  if (k == kCdiEmbeddedSource) return "EmbeddedSource";
  if (k == kCdiStateMachineHoistedLocalScopes) return "StateMachineHoistedLocalScopes";
  if (k == kCdiDynamicLocalVariables) return "DynamicLocalVariables";
  if (k == kCdiTupleElementNames) return "TupleElementNames";
  if (k == kCdiDefaultNamespace) return "DefaultNamespace";
  if (k == kCdiEncLocalSlotMap) return "EncLocalSlotMap";
  if (k == kCdiEncLambdaAndClosureMap) return "EncLambdaAndClosureMap";
  if (k == kCdiEncStateMachineStateMap) return "EncStateMachineStateMap";
  if (k == kCdiCompilationMetadataReferences) return "CompilationMetadataReferences";
  if (k == kCdiCompilationOptions) return "CompilationOptions";
  if (k == kCdiTypeDefinitionDocuments) return "TypeDefinitionDocuments";
  if (k == kCdiAsyncMethodSteppingInformation) return "AsyncMethodSteppingInformation";
  if (k == kCdiPrimaryConstructorInformation) return "PrimaryConstructorInformation";
  return nullptr;
}

const char* language_name(const Guid& l) {
  if (l == guids::kLanguageCSharp) return "C#";
  if (l == guids::kLanguageVisualBasic) return "VB";
  if (l == guids::kLanguageFSharp) return "F#";
  return nullptr;
}

}  // namespace ilmap
