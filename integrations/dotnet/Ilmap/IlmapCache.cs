// IlmapCache: an opened ilmap cache, answering IL offset -> source span lookups with the
// runtime's rule (SPEC.md section 6), source line -> IL (6.2), method names (3.6) and the
// module's identity (3.2). Two readers stand behind it (CacheBackend): the managed one, written
// in C# from SPEC.md (the default: no native library needed), and libilmap through P/Invoke
// (IlmapReader.Native). Both are read-only after open: any number of threads may look up at
// once. A lookup allocates nothing once its document's strings were made.
using System;
using System.Collections.Immutable;
using System.IO;
using System.Text;
using Ilmap.Managed;

namespace Ilmap;

/// <summary>How <see cref="IlmapCache.Open(string, IlmapOpenMode)"/> reads the file.</summary>
public enum IlmapOpenMode
{
    /// <summary>
    /// The native reader maps the file read-only (the default; pages are read on demand). The
    /// managed reader reads the file into memory in both modes.
    /// </summary>
    Map = 0,
    /// <summary>Read the whole file into private memory: later changes to the file cannot reach the cache.</summary>
    Read = 1,
}

/// <summary>An opened ilmap cache.</summary>
public sealed class IlmapCache : IDisposable
{
    readonly CacheBackend _backend;

    IlmapCache(CacheBackend backend) => _backend = backend;

    /// <summary>Opens a cache written by <c>ilmap compile</c> with the managed reader.</summary>
    /// <exception cref="IlmapException">The file is missing, unreadable, or not a valid cache.</exception>
    public static IlmapCache Open(string path, IlmapOpenMode mode = IlmapOpenMode.Map) => Open(path, IlmapReader.Managed, mode);

    /// <summary>
    /// Opens a cache with the reader of choice: <see cref="IlmapReader.Managed"/> (C#) or
    /// <see cref="IlmapReader.Native"/> (libilmap, which must then be loadable).
    /// </summary>
    /// <exception cref="IlmapException">The file is missing, unreadable, or not a valid cache.</exception>
    /// <exception cref="PlatformNotSupportedException">The native reader was asked for and no libilmap
    /// loads here (the package carries it for linux-x64, linux-arm64 and win-x64).</exception>
    public static IlmapCache Open(string path, IlmapReader reader, IlmapOpenMode mode = IlmapOpenMode.Map)
    {
        ArgumentNullException.ThrowIfNull(path);
        if (path.IndexOf('\0') >= 0)
            throw new ArgumentException("path contains a NUL character", nameof(path));
        if (mode != IlmapOpenMode.Map && mode != IlmapOpenMode.Read)
            throw new IlmapException(IlmapStatus.Usage, "unknown open flags");
        return reader switch
        {
            IlmapReader.Managed => new IlmapCache(ManagedCache.Open(path)),
            IlmapReader.Native => new IlmapCache(NativeCache.Open(path, mode)),
            _ => throw new ArgumentOutOfRangeException(nameof(reader)),
        };
    }

    /// <summary>Opens a cache held in memory with the managed reader (the array is used, not copied: do not change it).</summary>
    /// <exception cref="IlmapException">The bytes are not a valid cache.</exception>
    public static IlmapCache FromBytes(byte[] cache)
    {
        ArgumentNullException.ThrowIfNull(cache);
        return new IlmapCache(ManagedCache.FromBytes(cache));
    }

    internal CacheBackend Backend => _backend;

    /// <summary>Which reader answers.</summary>
    public IlmapReader Reader => _backend is NativeCache ? IlmapReader.Native : IlmapReader.Managed;

    /// <summary>MethodDebugInformation rows of the PDB the cache was made from.</summary>
    public int MethodCount => _backend.MethodCount;

    /// <summary>Sequence points in the cache (visible and hidden).</summary>
    public long PointCount => _backend.PointCount;

    // Module identity (SPEC.md 3.2): what the cache was compiled from, to pick the cache of a
    // module that a stack trace names. The PE's fields (PeName, PeKey, CodeId, and Mvid unless
    // the cache has method names) are recorded when the cache was compiled from the PE.

    /// <summary>
    /// The PDB id, 20 bytes: the #Pdb stream's GUID then its stamp (little endian), as
    /// <c>DebugMetadataHeader.Id</c> gives them (of a Windows PDB: its GUID, then the age); empty
    /// when the cache records none.
    /// </summary>
    public ImmutableArray<byte> PdbId => _backend.PdbId;

    /// <summary>The debug id, "&lt;guid&gt;-&lt;stamp as 8 hex digits&gt;", or null.</summary>
    public string? DebugId => _backend.DebugId;

    /// <summary>The PDB's symbol-store (SSQP) key, "name.pdb/&lt;guid N&gt;FFFFFFFF/name.pdb", or null.</summary>
    public string? PdbKey => _backend.PdbKey;

    /// <summary>The PE's file name ("App.dll"), or null when the cache was not compiled from the PE.</summary>
    public string? PeName => _backend.PeName;

    /// <summary>The PE's symbol-store (SSQP) key, "name.dll/&lt;code id&gt;/name.dll", or null.</summary>
    public string? PeKey => _backend.PeKey;

    /// <summary>The PE's code id: TimeDateStamp as 8 upper-case hex digits, then SizeOfImage in lower-case hex; or null.</summary>
    public string? CodeId => _backend.CodeId;

    /// <summary>The module's MVID, or null when the cache records none.</summary>
    public Guid? Mvid => _backend.Mvid;

    /// <summary>What wrote the cache: "ilmap &lt;version&gt;/format &lt;major&gt;.&lt;minor&gt;" (null for a corrupt identity).</summary>
    public string? CompilerVersion => _backend.CompilerVersion;

    /// <summary>Documents of the PDB (0-based indexes, as <see cref="LineBinding"/> and <see cref="DocumentPath"/> use).</summary>
    public int DocumentCount => _backend.DocumentCount;

    /// <summary>The path of a document as the PDB stores it.</summary>
    /// <exception cref="ArgumentOutOfRangeException">No such document.</exception>
    public string DocumentPath(int document)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(document);
        ArgumentOutOfRangeException.ThrowIfGreaterThanOrEqual(document, DocumentCount);
        return _backend.DocumentPath(document);
    }

    /// <summary>
    /// The bytes of a document's embedded source (caches compiled with <c>--embed-sources</c>,
    /// SPEC.md 3.4) as the compiler embedded them: the source file's own encoding, a byte order
    /// mark included. Null when the document has none.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">No such document.</exception>
    /// <exception cref="IlmapException">The source does not unpack (Malformed), is larger than an
    /// array holds (TooLarge), or the cache file changed (Io).</exception>
    public byte[]? EmbeddedSourceBytes(int document)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(document);
        ArgumentOutOfRangeException.ThrowIfGreaterThanOrEqual(document, DocumentCount);
        return _backend.EmbeddedSourceBytes(document);
    }

    /// <summary>
    /// A document's embedded source as text, decoded as the compiler read the file: the encoding
    /// its byte order mark names, else UTF-8. Null when the document has none.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">No such document.</exception>
    /// <exception cref="IlmapException">As <see cref="EmbeddedSourceBytes"/>.</exception>
    public string? EmbeddedSource(int document)
    {
        byte[]? bytes = EmbeddedSourceBytes(document);
        if (bytes == null)
            return null;
        using var reader = new StreamReader(new MemoryStream(bytes), Encoding.UTF8, detectEncodingFromByteOrderMarks: true);
        return reader.ReadToEnd();
    }

    /// <summary>
    /// Resolves a MethodDef token (0x06RRRRRR) and IL offset. Returns false when there is no
    /// answer: unknown method, a token of another table, an offset before the method's first
    /// visible point, or a negative offset (the runtime's -1, <c>StackFrame.OFFSET_UNKNOWN</c>).
    /// </summary>
    /// <exception cref="ObjectDisposedException">The cache was disposed.</exception>
    public bool TryLookup(int token, int ilOffset, out SourceLocation location) =>
        _backend.TryLookup(unchecked((uint)token), unchecked((uint)ilOffset), out location);

    /// <summary>As <see cref="TryLookup"/>, by method row number (1-based) instead of token.</summary>
    public bool TryLookupRow(int row, int ilOffset, out SourceLocation location)
    {
        location = default;
        return row > 0 && _backend.TryLookupRow((uint)row, unchecked((uint)ilOffset), out location);
    }

    /// <summary>
    /// Resolves a stack frame as <c>ilmap lookup</c>, <c>ilmap symbolicate</c> and
    /// <c>ilmap_locate_frame</c> do (SPEC.md 6.4): <see cref="TryLookup"/>'s answer when there is
    /// one; else, when <paramref name="token"/> is an async or iterator method (the runtime prints
    /// its state machine's frames under the kickoff method's token, with the IL offset of the
    /// state machine's <c>MoveNext</c>), the answer of its state machine's methods, the first in
    /// token order that has one, provided every one that has one agrees on the document path,
    /// start line and start column. <paramref name="printed"/> is the method text the frame
    /// printed, without <c>"   at "</c> and the location (<c>"NS.C.M(Int32 n)+MoveNext()"</c>):
    /// then only the state machine's methods whose CoreCLR name (<see cref="MethodName"/>) is that
    /// text are asked; null or empty asks them all. The fallback needs the method names, which a
    /// cache has when it was compiled with the PE; without them this is <see cref="TryLookup"/>.
    /// <paramref name="frame"/>'s <see cref="FrameLocation.StateMachineMethod"/> says which
    /// method answered (0: the token itself). Returns false when there is no answer.
    /// </summary>
    /// <exception cref="ObjectDisposedException">The cache was disposed.</exception>
    public bool TryLookupFrame(int token, int ilOffset, out FrameLocation frame, string? printed = null)
    {
        const int StackBytes = 512;
        int byteCount = string.IsNullOrEmpty(printed) ? 0 : Encoding.UTF8.GetByteCount(printed);
        Span<byte> utf8 = byteCount > StackBytes ? new byte[byteCount] : stackalloc byte[StackBytes];
        utf8 = utf8[..(byteCount == 0 ? 0 : Encoding.UTF8.GetBytes(printed, utf8))];
        bool found = _backend.TryLookupFrame(unchecked((uint)token), unchecked((uint)ilOffset), utf8, out SourceLocation location,
                                             out uint stateMachineMethod);
        frame = found ? new FrameLocation(location, unchecked((int)stateMachineMethod)) : default;
        return found;
    }

    /// <summary>
    /// Reverse lookup (SPEC.md 6.2, 6.3): the methods and IL offsets a debugger binds a
    /// breakpoint at <paramref name="line"/> (and <paramref name="column"/>, 0 = none) of
    /// <paramref name="document"/> to. The document is named by its exact path, the same path
    /// with the other separator, or a relative path ("Program.cs", "../App/Program.cs"; "./" and
    /// "../" resolved) that ends a document's path at a separator, the shortest such path winning
    /// ("Program.cs" names "/src/App/Program.cs" rather than "/src/App/Sub/Program.cs").
    /// <paramref name="rule"/> chooses the methods: <see cref="LineRule.Debugger"/> (the
    /// default) as netcoredbg binds a <c>file:line</c> breakpoint, or
    /// <see cref="LineRule.AllMethods"/>, every method whose code starts on the first line with
    /// code at or after the line. A column inside a lambda binds the lambda under both rules.
    /// Fills <paramref name="destination"/> with up to its length of bindings, ordered by token
    /// then IL offset, and returns how many there are in all (0 when no code binds).
    /// </summary>
    /// <exception cref="IlmapException">No document matches (NotFound), or a packed index that
    /// does not unpack (Malformed, TooLarge).</exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="line"/> is not positive,
    /// <paramref name="column"/> is negative, or <paramref name="rule"/> is not a
    /// <see cref="LineRule"/>.</exception>
    public int Lines(string document, int line, Span<LineBinding> destination, int column = 0, LineRule rule = LineRule.Debugger)
    {
        ArgumentNullException.ThrowIfNull(document);
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(line);
        ArgumentOutOfRangeException.ThrowIfNegative(column);
        if (rule != LineRule.Debugger && rule != LineRule.AllMethods)
            throw new ArgumentOutOfRangeException(nameof(rule), rule, "not a LineRule");
        const int StackBytes = 1024;
        int byteCount = Encoding.UTF8.GetByteCount(document);
        byte[]? rented = byteCount > StackBytes ? new byte[byteCount] : null;
        Span<byte> utf8 = rented ?? stackalloc byte[StackBytes];
        utf8 = utf8[..Encoding.UTF8.GetBytes(document, utf8)];
        return _backend.Lines(utf8, document, (uint)line, (uint)column, rule, destination);
    }

    /// <summary>As <see cref="Lines(string, int, Span{LineBinding}, int, LineRule)"/>, returning a new array of every binding.</summary>
    public LineBinding[] Lines(string document, int line, int column = 0, LineRule rule = LineRule.Debugger)
    {
        Span<LineBinding> first = new LineBinding[8];
        int n = Lines(document, line, first, column, rule);
        if (n <= first.Length)
            return first[..n].ToArray();
        var all = new LineBinding[n];
        Lines(document, line, all, column, rule);
        return all;
    }

    /// <summary>
    /// The name of a MethodDef token as the runtime of <paramref name="flavor"/> prints a stack
    /// frame (SPEC.md 3.6), or null when the cache has no names (compiled without the PE) or the
    /// token is not a MethodDef of the module. Allocates only the first time a name is asked for.
    /// </summary>
    public string? MethodName(int token, MethodNameFlavor flavor = MethodNameFlavor.CoreClr) =>
        _backend.MethodName(unchecked((uint)token), flavor);

    /// <summary>Full check of the cache (checksum and structure, SPEC.md section 7).</summary>
    /// <exception cref="IlmapException">The cache is corrupt; the message says what and where.</exception>
    public void Verify() => _backend.Verify();

    /// <summary>
    /// True when the path the cache was opened from now names another file, or one whose size or
    /// times differ (the cache was rewritten: open it again).
    /// </summary>
    public bool FileChanged => _backend.FileChanged;

    /// <summary>
    /// Installs the process-wide SIGBUS guard of the native reader (idempotent; it hands faults
    /// that are not its own to the handler installed before it, the .NET runtime's). Without it,
    /// a mapped cache that another program truncates in place kills the process at the next
    /// lookup that touches a lost page; with it, such reads see zeros and <see cref="Changed"/>
    /// turns true. <see cref="IlmapOpenMode.Read"/> avoids the question altogether, and the
    /// managed reader never maps the file. Returns false when the handler could not be installed.
    /// </summary>
    /// <exception cref="PlatformNotSupportedException">No libilmap loads here.</exception>
    public static bool InstallMappingGuard()
    {
        Native.EnsureResolver();
        try
        {
            return Native.InstallMappingGuard() != 0;
        }
        catch (DllNotFoundException e)
        {
            throw Native.NotLoaded(e);
        }
    }

    /// <summary>
    /// True once the cache file changed in a way the native reader could not shield the cache
    /// from (see docs/library.md "Files changed while open"): lookups then give no answer. A
    /// truncate or rewrite normally leaves it false: the cache answers from the bytes it opened.
    /// Always false for the managed reader, which reads the file into memory.
    /// </summary>
    public bool Changed => _backend.Changed;

    /// <summary>Closes the cache (the native reader: once no lookup is running on it).</summary>
    public void Dispose() => _backend.Dispose();
}
