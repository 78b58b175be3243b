// Errors of the readers as one exception type carrying ilmap's status code, the cache structure
// that failed (SPEC.md section 7) and the message.
using System;

namespace Ilmap;

/// <summary>Status codes of the C API (<c>enum ilmap_status</c>; same values as ilmap::Errc).</summary>
public enum IlmapStatus
{
    /// <summary>Success.</summary>
    Ok = 0,
    /// <summary>Bad arguments.</summary>
    Usage = 1,
    /// <summary>The file could not be opened or read.</summary>
    Io = 2,
    /// <summary>The file is shorter than its header says.</summary>
    Truncated = 3,
    /// <summary>Not an ilmap cache.</summary>
    BadMagic = 4,
    /// <summary>A cache format version this reader does not read.</summary>
    BadVersion = 5,
    /// <summary>The cache's structure is invalid.</summary>
    Malformed = 6,
    // 7 is reserved (ILMAP_E_UNSUPPORTED): no call of the C API returns it.
    /// <summary>Not found.</summary>
    NotFound = 8,
    /// <summary>Mismatched identity.</summary>
    Mismatch = 9,
    /// <summary>Over a size limit.</summary>
    TooLarge = 10,
    /// <summary>The checksum does not match the contents.</summary>
    Checksum = 11,
}

/// <summary>
/// The structure of a cache that a failing check of open or verify is about (C API
/// <c>enum ilmap_structure</c>; same values as ilmap::CacheStructure, pinned; SPEC.md section 7
/// names it next to each check). The managed and the native reader give the same value.
/// </summary>
public enum IlmapStructure
{
    /// <summary>No one structure: I/O, usage, not found, or no error.</summary>
    None = 0,
    /// <summary>The 32-byte file header.</summary>
    Header = 1,
    /// <summary>The FlatBuffers payload as a whole: its identifier, verification or checksum.</summary>
    Payload = 2,
    /// <summary>The method directory (method_groups, block_ends, block_ends_high).</summary>
    MethodDirectory = 3,
    /// <summary>block_profiles and block_profile_index.</summary>
    BlockProfiles = 4,
    /// <summary>The point blocks and the point counts.</summary>
    PointBlocks = 5,
    /// <summary>hidden_points.</summary>
    HiddenPoints = 6,
    /// <summary>The document table.</summary>
    Documents = 7,
    /// <summary>The document strings (strings, strings_zstd).</summary>
    Strings = 8,
    /// <summary>The details section and its embedded sources.</summary>
    Details = 9,
    /// <summary>The identity section.</summary>
    Identity = 10,
    /// <summary>The method names.</summary>
    Names = 11,
    /// <summary>The line index.</summary>
    LineIndex = 12,
}

/// <summary>An error reported by an ilmap reader (native or managed).</summary>
public sealed class IlmapException : Exception
{
    /// <summary>Creates the exception from a status code and the reader's message.</summary>
    public IlmapException(IlmapStatus status, string message) : base(message) => Status = status;

    /// <summary>Creates the exception from a status code, the structure that failed and the reader's message.</summary>
    public IlmapException(IlmapStatus status, IlmapStructure structure, string message) : base(message)
    {
        Status = status;
        Structure = structure;
    }

    /// <summary>The reader's status code.</summary>
    public IlmapStatus Status { get; }

    /// <summary>The structure of the cache the error is about (<see cref="IlmapStructure.None"/> when none).</summary>
    public IlmapStructure Structure { get; }
}
