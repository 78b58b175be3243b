// Errors of the native reader as one exception type carrying ilmap's status code and message.
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

/// <summary>An error reported by the native ilmap reader.</summary>
public sealed class IlmapException : Exception
{
    /// <summary>Creates the exception from a status code and the reader's message.</summary>
    public IlmapException(IlmapStatus status, string message) : base(message) => Status = status;

    /// <summary>The reader's status code.</summary>
    public IlmapStatus Status { get; }
}
