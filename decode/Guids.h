// Guids.h - well-known GUIDs of Portable PDB (languages, hash algorithms, CDI kinds).
//
// Each is written once in its canonical text form and converted at compile time into the
// on-disk #GUID byte order (Data1/2/3 little endian, then 8 raw bytes; SRM BlobReader.ReadGuid),
// so no byte array is typed by hand. Sources: PortablePdb-Metadata.md and roslyn
// PortableCustomDebugInfoKinds.cs.
#pragma once

#include <array>
#include <optional>
#include <cstdint>
#include <string>
#include <string_view>

namespace ilmap {

using Guid = std::array<std::uint8_t, 16>;  // on-disk (#GUID heap) byte order

namespace guid_detail {
constexpr std::uint8_t hex_nibble(char c) {
  return c >= '0' && c <= '9'   ? static_cast<std::uint8_t>(c - '0')
         : c >= 'a' && c <= 'f' ? static_cast<std::uint8_t>(c - 'a' + 10)
         : c >= 'A' && c <= 'F' ? static_cast<std::uint8_t>(c - 'A' + 10)
                                : throw "bad hex digit in GUID literal";
}
constexpr std::uint8_t hex_byte(std::string_view s, std::size_t i) {
  return static_cast<std::uint8_t>(hex_nibble(s[i]) << 4 | hex_nibble(s[i + 1]));
}
}  // namespace guid_detail

// "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" -> on-disk bytes.
consteval Guid guid_from_text(std::string_view s) {
  if (s.size() != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-')
    throw "GUID literal must be in D format";
  using guid_detail::hex_byte;
  Guid g{};
  // Data1 (4 bytes), Data2, Data3 little endian.
  g[0] = hex_byte(s, 6); g[1] = hex_byte(s, 4); g[2] = hex_byte(s, 2); g[3] = hex_byte(s, 0);
  g[4] = hex_byte(s, 11); g[5] = hex_byte(s, 9);
  g[6] = hex_byte(s, 16); g[7] = hex_byte(s, 14);
  g[8] = hex_byte(s, 19); g[9] = hex_byte(s, 21);
  for (std::size_t i = 0; i < 6; ++i) g[10 + i] = hex_byte(s, 24 + 2 * i);
  return g;
}

// On-disk bytes -> lowercase D format (the inverse of guid_from_text).
std::string guid_to_text(const Guid& g);
// 32 hex digits (N format, any case) or a D/B-format GUID in text order -> on-disk bytes.
std::optional<Guid> parse_guid_text(std::string_view text) noexcept;
// On-disk bytes -> 32 lowercase hex digits in text order ("N" format, used by SSQP keys).
std::string guid_to_n(const Guid& g);

namespace guids {
inline constexpr Guid kLanguageCSharp = guid_from_text("3f5162f8-07c6-11d3-9053-00c04fa302a1");
inline constexpr Guid kLanguageVisualBasic = guid_from_text("3a12d0b8-c26c-11d0-b442-00a0244a1dd2");
inline constexpr Guid kLanguageFSharp = guid_from_text("ab4f38c9-b6e6-43ba-be3b-58080b2ccce3");
inline constexpr Guid kHashSha1 = guid_from_text("ff1816ec-aa5e-4d10-87f7-6f4963833460");
inline constexpr Guid kHashSha256 = guid_from_text("8829d00f-11b8-4213-878b-770e8597ac16");
inline constexpr Guid kCdiSourceLink = guid_from_text("cc110556-a091-4d38-9fec-25ab9a351a6a");
inline constexpr Guid kCdiEmbeddedSource = guid_from_text("0e8a571b-6926-466e-b4ad-8ab04611f5fe");
inline constexpr Guid kCdiStateMachineHoistedLocalScopes =
    guid_from_text("6da9a61e-f8c7-4874-be62-68bc5630df71");
inline constexpr Guid kCdiDynamicLocalVariables =
    guid_from_text("83c563c4-b4f3-47d5-b824-ba5441477ea8");
inline constexpr Guid kCdiTupleElementNames = guid_from_text("ed9fdf71-8879-4747-8ed3-fe5ede3ce710");
inline constexpr Guid kCdiDefaultNamespace = guid_from_text("58b2eab6-209f-4e4e-a22c-b2d0f910c782");
inline constexpr Guid kCdiEncLocalSlotMap = guid_from_text("755f52a8-91c5-45be-b4b8-209571e552bd");
inline constexpr Guid kCdiEncLambdaAndClosureMap =
    guid_from_text("a643004c-0240-496f-a783-30d64f4979de");
inline constexpr Guid kCdiEncStateMachineStateMap =
    guid_from_text("8b78cd68-2ede-420b-980b-e15884b8aaa3");
inline constexpr Guid kCdiCompilationMetadataReferences =
    guid_from_text("7e4d4708-096e-4c5c-aeda-cb10ba6a740d");
inline constexpr Guid kCdiCompilationOptions = guid_from_text("b5feec05-8cd0-4a83-96da-466284bb4bd8");
inline constexpr Guid kCdiTypeDefinitionDocuments =
    guid_from_text("932e74bc-dba9-4478-8d46-0f32a7bab3d3");
inline constexpr Guid kCdiAsyncMethodSteppingInformation =
    guid_from_text("54fd2ac5-e925-401a-9c2a-f94f171072f8");
inline constexpr Guid kCdiPrimaryConstructorInformation =
    guid_from_text("9d40ace1-c703-4d0e-bf41-7243060a8fb5");
}  // namespace guids

// Short name of a known language ("C#", "VB", "F#") or nullptr.
const char* language_name(const Guid& language);

}  // namespace ilmap
