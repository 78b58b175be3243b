// MetadataSchema.cpp - the column lists of ECMA-335 II.22 and the Portable PDB debug tables.
#include "decode/MetadataSchema.h"

#include <array>

namespace ilmap {
namespace {

constexpr std::uint8_t kNone = 0xFF;

constexpr std::uint8_t kTypeDefOrRefT[] = {kTypeDef, kTypeRef, kTypeSpec};
constexpr std::uint8_t kHasConstantT[] = {kField, kParam, kProperty};
constexpr std::uint8_t kHasCustomAttributeT[] = {
    kMethodDef, kField, kTypeRef, kTypeDef, kParam, kInterfaceImpl, kMemberRef, kModule,
    kDeclSecurity, kProperty, kEvent, kStandAloneSig, kModuleRef, kTypeSpec, kAssembly,
    kAssemblyRef, kFile, kExportedType, kManifestResource, kGenericParam,
    kGenericParamConstraint, kMethodSpec};
constexpr std::uint8_t kHasFieldMarshalT[] = {kField, kParam};
constexpr std::uint8_t kHasDeclSecurityT[] = {kTypeDef, kMethodDef, kAssembly};
constexpr std::uint8_t kMemberRefParentT[] = {kTypeDef, kTypeRef, kModuleRef, kMethodDef, kTypeSpec};
constexpr std::uint8_t kHasSemanticsT[] = {kEvent, kProperty};
constexpr std::uint8_t kMethodDefOrRefT[] = {kMethodDef, kMemberRef};
constexpr std::uint8_t kMemberForwardedT[] = {kField, kMethodDef};
constexpr std::uint8_t kImplementationT[] = {kFile, kAssemblyRef, kExportedType};
constexpr std::uint8_t kCustomAttributeTypeT[] = {kNone, kNone, kMethodDef, kMemberRef, kNone};
constexpr std::uint8_t kResolutionScopeT[] = {kModule, kModuleRef, kAssemblyRef, kTypeRef};
constexpr std::uint8_t kTypeOrMethodDefT[] = {kTypeDef, kMethodDef};
constexpr std::uint8_t kHasCustomDebugInformationT[] = {
    kMethodDef, kField, kTypeRef, kTypeDef, kParam, kInterfaceImpl, kMemberRef, kModule,
    kDeclSecurity, kProperty, kEvent, kStandAloneSig, kModuleRef, kTypeSpec, kAssembly,
    kAssemblyRef, kFile, kExportedType, kManifestResource, kGenericParam,
    kGenericParamConstraint, kMethodSpec, kDocument, kLocalScope, kLocalVariable,
    kLocalConstant, kImportScope};

const CodedIndexInfo kCoded[] = {
    {2, kTypeDefOrRefT},      {2, kHasConstantT},       {5, kHasCustomAttributeT},
    {1, kHasFieldMarshalT},   {2, kHasDeclSecurityT},   {3, kMemberRefParentT},
    {1, kHasSemanticsT},      {1, kMethodDefOrRefT},    {1, kMemberForwardedT},
    {2, kImplementationT},    {3, kCustomAttributeTypeT}, {2, kResolutionScopeT},
    {1, kTypeOrMethodDefT},   {5, kHasCustomDebugInformationT},
};

using K = ColumnKind;
constexpr ColumnDef U16{K::kU16, 0}, U32{K::kU32, 0}, U8x2{K::kU8x2, 0}, Str{K::kString, 0},
    Gd{K::kGuid, 0}, Bl{K::kBlob, 0};
constexpr ColumnDef T(std::uint8_t t) { return {K::kTable, t}; }
constexpr ColumnDef C(CodedIndex c) { return {K::kCoded, static_cast<std::uint8_t>(c)}; }
using CI = CodedIndex;

const ColumnDef kModuleC[] = {U16, Str, Gd, Gd, Gd};
const ColumnDef kTypeRefC[] = {C(CI::kResolutionScope), Str, Str};
const ColumnDef kTypeDefC[] = {U32, Str, Str, C(CI::kTypeDefOrRef), T(kField), T(kMethodDef)};
const ColumnDef kFieldPtrC[] = {T(kField)};
const ColumnDef kFieldC[] = {U16, Str, Bl};
const ColumnDef kMethodPtrC[] = {T(kMethodDef)};
const ColumnDef kMethodDefC[] = {U32, U16, U16, Str, Bl, T(kParam)};
const ColumnDef kParamPtrC[] = {T(kParam)};
const ColumnDef kParamC[] = {U16, U16, Str};
const ColumnDef kInterfaceImplC[] = {T(kTypeDef), C(CI::kTypeDefOrRef)};
const ColumnDef kMemberRefC[] = {C(CI::kMemberRefParent), Str, Bl};
const ColumnDef kConstantC[] = {U8x2, C(CI::kHasConstant), Bl};
const ColumnDef kCustomAttributeC[] = {C(CI::kHasCustomAttribute), C(CI::kCustomAttributeType), Bl};
const ColumnDef kFieldMarshalC[] = {C(CI::kHasFieldMarshal), Bl};
const ColumnDef kDeclSecurityC[] = {U16, C(CI::kHasDeclSecurity), Bl};
const ColumnDef kClassLayoutC[] = {U16, U32, T(kTypeDef)};
const ColumnDef kFieldLayoutC[] = {U32, T(kField)};
const ColumnDef kStandAloneSigC[] = {Bl};
const ColumnDef kEventMapC[] = {T(kTypeDef), T(kEvent)};
const ColumnDef kEventPtrC[] = {T(kEvent)};
const ColumnDef kEventC[] = {U16, Str, C(CI::kTypeDefOrRef)};
const ColumnDef kPropertyMapC[] = {T(kTypeDef), T(kProperty)};
const ColumnDef kPropertyPtrC[] = {T(kProperty)};
const ColumnDef kPropertyC[] = {U16, Str, Bl};
const ColumnDef kMethodSemanticsC[] = {U16, T(kMethodDef), C(CI::kHasSemantics)};
const ColumnDef kMethodImplC[] = {T(kTypeDef), C(CI::kMethodDefOrRef), C(CI::kMethodDefOrRef)};
const ColumnDef kModuleRefC[] = {Str};
const ColumnDef kTypeSpecC[] = {Bl};
const ColumnDef kImplMapC[] = {U16, C(CI::kMemberForwarded), Str, T(kModuleRef)};
const ColumnDef kFieldRvaC[] = {U32, T(kField)};
const ColumnDef kEncLogC[] = {U32, U32};
const ColumnDef kEncMapC[] = {U32};
const ColumnDef kAssemblyC[] = {U32, U16, U16, U16, U16, U32, Bl, Str, Str};
const ColumnDef kAssemblyProcessorC[] = {U32};
const ColumnDef kAssemblyOsC[] = {U32, U32, U32};
const ColumnDef kAssemblyRefC[] = {U16, U16, U16, U16, U32, Bl, Str, Str, Bl};
const ColumnDef kAssemblyRefProcessorC[] = {U32, T(kAssemblyRef)};
const ColumnDef kAssemblyRefOsC[] = {U32, U32, U32, T(kAssemblyRef)};
const ColumnDef kFileC[] = {U32, Str, Bl};
const ColumnDef kExportedTypeC[] = {U32, U32, Str, Str, C(CI::kImplementation)};
const ColumnDef kManifestResourceC[] = {U32, U32, Str, C(CI::kImplementation)};
const ColumnDef kNestedClassC[] = {T(kTypeDef), T(kTypeDef)};
const ColumnDef kGenericParamC[] = {U16, U16, C(CI::kTypeOrMethodDef), Str};
const ColumnDef kMethodSpecC[] = {C(CI::kMethodDefOrRef), Bl};
const ColumnDef kGenericParamConstraintC[] = {T(kGenericParam), C(CI::kTypeDefOrRef)};
const ColumnDef kDocumentC[] = {Bl, Gd, Bl, Gd};
const ColumnDef kMethodDebugInformationC[] = {T(kDocument), Bl};
const ColumnDef kLocalScopeC[] = {T(kMethodDef), T(kImportScope), T(kLocalVariable),
                                  T(kLocalConstant), U32, U32};
const ColumnDef kLocalVariableC[] = {U16, U16, Str};
const ColumnDef kLocalConstantC[] = {Str, Bl};
const ColumnDef kImportScopeC[] = {T(kImportScope), Bl};
const ColumnDef kStateMachineMethodC[] = {T(kMethodDef), T(kMethodDef)};
const ColumnDef kCustomDebugInformationC[] = {C(CI::kHasCustomDebugInformation), Gd, Bl};

struct TableDef {
  const char* name;
  std::span<const ColumnDef> columns;
};

const std::array<TableDef, kTableSlots> kTables = {{
    {"Module", kModuleC}, {"TypeRef", kTypeRefC}, {"TypeDef", kTypeDefC},
    {"FieldPtr", kFieldPtrC}, {"Field", kFieldC}, {"MethodPtr", kMethodPtrC},
    {"MethodDef", kMethodDefC}, {"ParamPtr", kParamPtrC}, {"Param", kParamC},
    {"InterfaceImpl", kInterfaceImplC}, {"MemberRef", kMemberRefC}, {"Constant", kConstantC},
    {"CustomAttribute", kCustomAttributeC}, {"FieldMarshal", kFieldMarshalC},
    {"DeclSecurity", kDeclSecurityC}, {"ClassLayout", kClassLayoutC},
    {"FieldLayout", kFieldLayoutC}, {"StandAloneSig", kStandAloneSigC},
    {"EventMap", kEventMapC}, {"EventPtr", kEventPtrC}, {"Event", kEventC},
    {"PropertyMap", kPropertyMapC}, {"PropertyPtr", kPropertyPtrC}, {"Property", kPropertyC},
    {"MethodSemantics", kMethodSemanticsC}, {"MethodImpl", kMethodImplC},
    {"ModuleRef", kModuleRefC}, {"TypeSpec", kTypeSpecC}, {"ImplMap", kImplMapC},
    {"FieldRVA", kFieldRvaC}, {"EncLog", kEncLogC}, {"EncMap", kEncMapC},
    {"Assembly", kAssemblyC}, {"AssemblyProcessor", kAssemblyProcessorC},
    {"AssemblyOS", kAssemblyOsC}, {"AssemblyRef", kAssemblyRefC},
    {"AssemblyRefProcessor", kAssemblyRefProcessorC}, {"AssemblyRefOS", kAssemblyRefOsC},
    {"File", kFileC}, {"ExportedType", kExportedTypeC},
    {"ManifestResource", kManifestResourceC}, {"NestedClass", kNestedClassC},
    {"GenericParam", kGenericParamC}, {"MethodSpec", kMethodSpecC},
    {"GenericParamConstraint", kGenericParamConstraintC}, {nullptr, {}}, {nullptr, {}},
    {nullptr, {}}, {"Document", kDocumentC},
    {"MethodDebugInformation", kMethodDebugInformationC}, {"LocalScope", kLocalScopeC},
    {"LocalVariable", kLocalVariableC}, {"LocalConstant", kLocalConstantC},
    {"ImportScope", kImportScopeC}, {"StateMachineMethod", kStateMachineMethodC},
    {"CustomDebugInformation", kCustomDebugInformationC},
}};

}  // namespace

const CodedIndexInfo& coded_index_info(CodedIndex kind) {
  return kCoded[static_cast<unsigned>(kind)];
}

std::span<const ColumnDef> table_columns(unsigned table) {
  return table < kTableSlots ? kTables[table].columns : std::span<const ColumnDef>{};
}

const char* table_name(unsigned table) {
  return table < kTableSlots && kTables[table].name ? kTables[table].name : "(unknown)";
}

CodedRow decode_coded(CodedIndex kind, std::uint32_t value) {
  const CodedIndexInfo& info = coded_index_info(kind);
  const std::uint32_t tag = value & ((1u << info.tag_bits) - 1);
  if (tag >= info.tables.size()) return {0xFF, 0};
  return {info.tables[tag], value >> info.tag_bits};
}

}  // namespace ilmap
