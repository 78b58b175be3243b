// CacheBackend: what IlmapCache asks of a reader. Two implement it: ManagedCache (C#, from
// SPEC.md; the default) and NativeCache (P/Invoke into libilmap). Both answer alike: the
// agreement tests of Ilmap.Tests compare them on every cache of the corpus.
using System;
using System.Collections.Immutable;

namespace Ilmap;

/// <summary>Which reader <see cref="IlmapCache.Open(string, IlmapReader, IlmapOpenMode)"/> uses.</summary>
public enum IlmapReader
{
    /// <summary>The managed reader (the default): no native library needed.</summary>
    Managed = 0,
    /// <summary>libilmap through P/Invoke (the C API, include/ilmap/ilmap.h).</summary>
    Native = 1,
}

internal abstract class CacheBackend : IDisposable
{
    public abstract int MethodCount { get; }
    public abstract long PointCount { get; }
    public abstract int DocumentCount { get; }
    public abstract ImmutableArray<byte> PdbId { get; }
    public abstract string? DebugId { get; }
    public abstract string? PdbKey { get; }
    public abstract string? PeName { get; }
    public abstract string? PeKey { get; }
    public abstract string? CodeId { get; }
    public abstract Guid? Mvid { get; }
    public abstract string? CompilerVersion { get; }

    /// <summary>The path of document <paramref name="document"/> (in range), "" when its range is bad.</summary>
    public abstract string DocumentPath(int document);

    /// <summary>The embedded source of a document (in range), null when it has none.</summary>
    public abstract byte[]? EmbeddedSourceBytes(int document);

    public abstract bool TryLookup(uint token, uint ilOffset, out SourceLocation location);

    public abstract bool TryLookupRow(uint row, uint ilOffset, out SourceLocation location);

    /// <summary>
    /// SPEC.md 6.4 for a frame that printed <paramref name="token"/> and <paramref name="ilOffset"/>;
    /// <paramref name="printed"/> is CoreCLR's method text as UTF-8 (empty: none).
    /// <paramref name="stateMachineMethod"/> is the state machine's method that answered, else 0.
    /// </summary>
    public abstract bool TryLookupFrame(uint token, uint ilOffset, ReadOnlySpan<byte> printed, out SourceLocation location,
                                        out uint stateMachineMethod);

    /// <summary>SPEC.md 6.2 (with <paramref name="rule"/>) for a document path given as UTF-8; returns the number of bindings.</summary>
    public abstract int Lines(ReadOnlySpan<byte> document, string documentText, uint line, uint column, LineRule rule,
                              Span<LineBinding> destination);

    public abstract string? MethodName(uint token, MethodNameFlavor flavor);

    public abstract void Verify();

    public abstract bool FileChanged { get; }

    public abstract bool Changed { get; }

    public abstract void Dispose();
}
