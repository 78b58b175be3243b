// MetadataSchema.h - ECMA-335 II.22 / Portable PDB table schemas: column kinds of every table.
//
// Row sizes depend on heap-size flags and on row counts (II.24.2.6), so the schema is data and
// TableStream computes the layout. Tables 0x30-0x37 are the Portable PDB debug tables
// (PortablePdb-Metadata.md); 0x2D-0x2F do not exist.
#pragma once

#include <cstdint>
#include <span>

namespace ilmap {

enum TableId : std::uint8_t {
  kModule = 0x00, kTypeRef = 0x01, kTypeDef = 0x02, kFieldPtr = 0x03, kField = 0x04,
  kMethodPtr = 0x05, kMethodDef = 0x06, kParamPtr = 0x07, kParam = 0x08, kInterfaceImpl = 0x09,
  kMemberRef = 0x0A, kConstant = 0x0B, kCustomAttribute = 0x0C, kFieldMarshal = 0x0D,
  kDeclSecurity = 0x0E, kClassLayout = 0x0F, kFieldLayout = 0x10, kStandAloneSig = 0x11,
  kEventMap = 0x12, kEventPtr = 0x13, kEvent = 0x14, kPropertyMap = 0x15, kPropertyPtr = 0x16,
  kProperty = 0x17, kMethodSemantics = 0x18, kMethodImpl = 0x19, kModuleRef = 0x1A,
  kTypeSpec = 0x1B, kImplMap = 0x1C, kFieldRva = 0x1D, kEncLog = 0x1E, kEncMap = 0x1F,
  kAssembly = 0x20, kAssemblyProcessor = 0x21, kAssemblyOs = 0x22, kAssemblyRef = 0x23,
  kAssemblyRefProcessor = 0x24, kAssemblyRefOs = 0x25, kFile = 0x26, kExportedType = 0x27,
  kManifestResource = 0x28, kNestedClass = 0x29, kGenericParam = 0x2A, kMethodSpec = 0x2B,
  kGenericParamConstraint = 0x2C,
  kDocument = 0x30, kMethodDebugInformation = 0x31, kLocalScope = 0x32, kLocalVariable = 0x33,
  kLocalConstant = 0x34, kImportScope = 0x35, kStateMachineMethod = 0x36,
  kCustomDebugInformation = 0x37,
};
inline constexpr unsigned kTableSlots = 0x38;  // table numbers 0..0x37
inline constexpr unsigned kFirstDebugTable = kDocument;

enum class CodedIndex : std::uint8_t {
  kTypeDefOrRef, kHasConstant, kHasCustomAttribute, kHasFieldMarshal, kHasDeclSecurity,
  kMemberRefParent, kHasSemantics, kMethodDefOrRef, kMemberForwarded, kImplementation,
  kCustomAttributeType, kResolutionScope, kTypeOrMethodDef, kHasCustomDebugInformation,
};

struct CodedIndexInfo {
  std::uint8_t tag_bits;
  std::span<const std::uint8_t> tables;  // by tag; 0xFF marks an unused tag
};
const CodedIndexInfo& coded_index_info(CodedIndex kind);

// A coded index's value split into its table and row (ECMA-335 II.24.2.6); table 0xFF for a tag
// the kind does not use.
struct CodedRow {
  std::uint8_t table;
  std::uint32_t rid;
};
CodedRow decode_coded(CodedIndex kind, std::uint32_t value);

enum class ColumnKind : std::uint8_t { kU8x2, kU16, kU32, kString, kGuid, kBlob, kTable, kCoded };

struct ColumnDef {
  ColumnKind kind;
  std::uint8_t arg;  // table id for kTable, CodedIndex for kCoded
};

// Columns of a table, or an empty span for a table number that does not exist.
std::span<const ColumnDef> table_columns(unsigned table);
const char* table_name(unsigned table);

// HasCustomDebugInformation tags (PortablePdb-Metadata.md).
inline constexpr std::uint32_t kHcdiTagBits = 5;
inline constexpr std::uint32_t kHcdiMethodDef = 0;
inline constexpr std::uint32_t kHcdiModule = 7;
inline constexpr std::uint32_t kHcdiTypeDef = 3;
inline constexpr std::uint32_t kHcdiDocument = 22;

}  // namespace ilmap
