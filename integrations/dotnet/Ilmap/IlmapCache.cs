// IlmapCache: an opened ilmap cache (a SafeHandle over ilmap_cache*), answering IL offset ->
// source span lookups with the runtime's rule (SPEC.md section 6). The native reader is read-only
// after open, so any number of threads may look up at once; Dispose waits for none of them but
// the handle is released only after the last running call returns (SafeHandle reference count).
// A lookup allocates nothing: document paths, URLs and languages become strings once per cache
// (keyed by where they lie in the mapped file) and are shared by every later answer.
using System;
using System.Collections.Concurrent;
using System.Collections.Immutable;
using System.IO;
using System.Runtime.InteropServices;
using System.Text;
using System.Threading;

namespace Ilmap;

/// <summary>How <see cref="IlmapCache.Open(string, IlmapOpenMode)"/> reads the file.</summary>
public enum IlmapOpenMode
{
    /// <summary>Map the file read-only (the default; pages are read on demand).</summary>
    Map = 0,
    /// <summary>Read the whole file into private memory: later changes to the file cannot reach the cache.</summary>
    Read = 1,
}

/// <summary>An opened ilmap cache.</summary>
public sealed class IlmapCache : IDisposable
{
    const int MessageSize = 1024;

    readonly CacheHandle _handle;
    // (address, length) of a string in the mapped cache or the library -> its managed copy.
    // Length -1: a NUL-terminated string (the language names). The dictionary holds every string
    // made; the direct-mapped slots in front of it answer the common case with one load and two
    // compares (an entry is immutable and set once, so readers need no lock).
    const int SlotBits = 12;
    readonly ConcurrentDictionary<(nint Address, nint Length), string> _strings = new();
    readonly StringEntry?[] _slots = new StringEntry?[1 << SlotBits];

    unsafe IlmapCache(CacheHandle handle)
    {
        _handle = handle;
        IntPtr raw = handle.DangerousGetHandle();
        MethodCount = (int)Native.MethodCount(raw);
        PointCount = (long)Native.PointCount(raw);
        DocumentCount = (int)Native.DocumentCount(raw);
        byte* id = stackalloc byte[20];
        PdbId = Native.PdbId(raw, id) != 0 ? ImmutableArray.Create(new ReadOnlySpan<byte>(id, 20)) : ImmutableArray<byte>.Empty;
        byte* mvid = stackalloc byte[16];
        Mvid = Native.Mvid(raw, mvid) != 0 ? new Guid(new ReadOnlySpan<byte>(mvid, 16)) : null;
        nuint length = 0;
        DebugId = Text(Native.DebugId(raw, &length), length);
        PdbKey = Text(Native.PdbKey(raw, &length), length);
        PeName = Text(Native.PeName(raw, &length), length);
        PeKey = Text(Native.PeKey(raw, &length), length);
        CodeId = Text(Native.CodeId(raw, &length), length);
        CompilerVersion = Text(Native.CompilerVersion(raw, &length), length);
    }

    /// <summary>Opens a cache written by <c>ilmap compile</c>.</summary>
    /// <exception cref="IlmapException">The file is missing, unreadable, or not a valid cache.</exception>
    public static unsafe IlmapCache Open(string path, IlmapOpenMode mode = IlmapOpenMode.Map)
    {
        ArgumentNullException.ThrowIfNull(path);
        if (path.IndexOf('\0') >= 0)
            throw new ArgumentException("path contains a NUL character", nameof(path));
        Native.EnsureResolver();
        byte[] utf8 = new byte[Encoding.UTF8.GetByteCount(path) + 1];
        Encoding.UTF8.GetBytes(path, 0, path.Length, utf8, 0);
        byte* msg = stackalloc byte[MessageSize];
        msg[0] = 0;
        int err = 0;
        IntPtr raw;
        fixed (byte* p = utf8)
            raw = Native.OpenEx(p, (uint)mode, &err, msg, MessageSize);
        if (raw == IntPtr.Zero)
            throw new IlmapException((IlmapStatus)err, Message(msg, $"cannot open {path}"));
        return new IlmapCache(new CacheHandle(raw));
    }

    /// <summary>MethodDebugInformation rows of the PDB the cache was made from.</summary>
    public int MethodCount { get; }

    /// <summary>Sequence points in the cache (visible and hidden).</summary>
    public long PointCount { get; }

    // Module identity (SPEC.md 3.2): what the cache was compiled from, to pick the cache of a
    // module that a stack trace names. The PE's fields (PeName, PeKey, CodeId, and Mvid unless
    // the cache has method names) are recorded when the cache was compiled from the PE.

    /// <summary>
    /// The PDB id, 20 bytes: the #Pdb stream's GUID then its stamp (little endian), as
    /// <c>DebugMetadataHeader.Id</c> gives them (of a Windows PDB: its GUID, then the age); empty
    /// when the cache records none.
    /// </summary>
    public ImmutableArray<byte> PdbId { get; }

    /// <summary>The debug id, "&lt;guid&gt;-&lt;stamp as 8 hex digits&gt;", or null.</summary>
    public string? DebugId { get; }

    /// <summary>The PDB's symbol-store (SSQP) key, "name.pdb/&lt;guid N&gt;FFFFFFFF/name.pdb", or null.</summary>
    public string? PdbKey { get; }

    /// <summary>The PE's file name ("App.dll"), or null when the cache was not compiled from the PE.</summary>
    public string? PeName { get; }

    /// <summary>The PE's symbol-store (SSQP) key, "name.dll/&lt;code id&gt;/name.dll", or null.</summary>
    public string? PeKey { get; }

    /// <summary>The PE's code id: TimeDateStamp as 8 upper-case hex digits, then SizeOfImage in lower-case hex; or null.</summary>
    public string? CodeId { get; }

    /// <summary>The module's MVID, or null when the cache records none.</summary>
    public Guid? Mvid { get; }

    /// <summary>What wrote the cache: "ilmap &lt;version&gt;/format &lt;major&gt;.&lt;minor&gt;" (null for a corrupt identity).</summary>
    public string? CompilerVersion { get; }

    /// <summary>Documents of the PDB (0-based indexes, as <see cref="LineBinding"/> and <see cref="DocumentPath"/> use).</summary>
    public int DocumentCount { get; }

    /// <summary>The path of a document as the PDB stores it.</summary>
    /// <exception cref="ArgumentOutOfRangeException">No such document.</exception>
    public unsafe string DocumentPath(int document)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(document);
        ArgumentOutOfRangeException.ThrowIfGreaterThanOrEqual(document, DocumentCount);
        bool addedRef = false;
        try
        {
            _handle.DangerousAddRef(ref addedRef);
            nuint length = 0;
            byte* path = Native.DocumentPath(_handle.DangerousGetHandle(), (uint)document, &length);
            return path == null ? "" : Intern(path, (nint)length);
        }
        finally
        {
            if (addedRef)
                _handle.DangerousRelease();
        }
    }

    /// <summary>
    /// The bytes of a document's embedded source (caches compiled with <c>--embed-sources</c>,
    /// SPEC.md 3.4) as the compiler embedded them: the source file's own encoding, a byte order
    /// mark included. Null when the document has none.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">No such document.</exception>
    /// <exception cref="IlmapException">The source does not unpack (Malformed), is larger than an
    /// array holds (TooLarge), or the cache file changed (Io).</exception>
    public unsafe byte[]? EmbeddedSourceBytes(int document)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(document);
        ArgumentOutOfRangeException.ThrowIfGreaterThanOrEqual(document, DocumentCount);
        byte* msg = stackalloc byte[MessageSize];
        msg[0] = 0;
        bool addedRef = false;
        try
        {
            _handle.DangerousAddRef(ref addedRef);
            IntPtr raw = _handle.DangerousGetHandle();
            nuint size = 0;
            int status = Native.EmbeddedSource(raw, (uint)document, null, 0, &size, msg, MessageSize);
            if (status == (int)IlmapStatus.NotFound)
                return null;
            if (status == 0 && size > (nuint)Array.MaxLength)
                throw new IlmapException(IlmapStatus.TooLarge, $"embedded source of document {document}: {size} bytes, more than an array holds");
            byte[] text = status == 0 ? new byte[(int)size] : [];
            if (status == 0)
                fixed (byte* p = text)
                    status = Native.EmbeddedSource(raw, (uint)document, p, (nuint)text.Length, &size, msg, MessageSize);
            if (status != 0)
                throw new IlmapException((IlmapStatus)status, Message(msg, $"embedded source of document {document} failed"));
            return text;
        }
        finally
        {
            if (addedRef)
                _handle.DangerousRelease();
        }
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
    public unsafe bool TryLookup(int token, int ilOffset, out SourceLocation location)
    {
        NativeLocation native = default;
        bool addedRef = false;
        int found;
        try
        {
            _handle.DangerousAddRef(ref addedRef);
            found = Native.Lookup(_handle.DangerousGetHandle(), unchecked((uint)token), unchecked((uint)ilOffset), &native);
            location = found != 0 ? Convert(in native) : default;
        }
        finally
        {
            if (addedRef)
                _handle.DangerousRelease();
        }
        return found != 0;
    }

    /// <summary>As <see cref="TryLookup"/>, by method row number (1-based) instead of token.</summary>
    public unsafe bool TryLookupRow(int row, int ilOffset, out SourceLocation location)
    {
        NativeLocation native = default;
        bool addedRef = false;
        int found;
        try
        {
            _handle.DangerousAddRef(ref addedRef);
            found = row <= 0 ? 0 : Native.LookupRow(_handle.DangerousGetHandle(), (uint)row, unchecked((uint)ilOffset), &native);
            location = found != 0 ? Convert(in native) : default;
        }
        finally
        {
            if (addedRef)
                _handle.DangerousRelease();
        }
        return found != 0;
    }

    /// <summary>
    /// Reverse lookup (SPEC.md 6.2, 6.3): the methods and IL offsets a debugger binds a
    /// breakpoint at <paramref name="line"/> (and <paramref name="column"/>, 0 = none) of
    /// <paramref name="document"/> to: an exact document path, the same path with the other
    /// separator, or a unique path suffix ("Program.cs"). Fills <paramref name="destination"/>
    /// with up to its length of bindings, ordered by token then IL offset, and returns how many
    /// there are in all (0 when no code lies at or after the line); allocates nothing once the
    /// document's path string was made and the path fits in 1 KiB of UTF-8.
    /// </summary>
    /// <exception cref="IlmapException">No such document or an ambiguous suffix (NotFound, the
    /// message lists the candidates), or a packed index that does not unpack (Malformed, TooLarge).</exception>
    public unsafe int Lines(string document, int line, Span<LineBinding> destination, int column = 0)
    {
        ArgumentNullException.ThrowIfNull(document);
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(line);
        ArgumentOutOfRangeException.ThrowIfNegative(column);
        const int StackBytes = 1024, StackMatches = 16;
        int byteCount = Encoding.UTF8.GetByteCount(document);
        byte[]? rented = byteCount > StackBytes ? new byte[byteCount] : null;
        Span<byte> utf8 = rented ?? stackalloc byte[StackBytes];
        utf8 = utf8[..Encoding.UTF8.GetBytes(document, utf8)];
        int want = Math.Max(destination.Length, 1);
        NativeLineMatch[]? heap = want > StackMatches ? new NativeLineMatch[want] : null;
        Span<NativeLineMatch> matches = heap ?? stackalloc NativeLineMatch[StackMatches];
        byte* msg = stackalloc byte[MessageSize];
        msg[0] = 0;
        nuint count = 0;
        int status;
        bool addedRef = false;
        try
        {
            _handle.DangerousAddRef(ref addedRef);
            fixed (byte* d = utf8)
            fixed (NativeLineMatch* m = matches)
                status = Native.Lines(_handle.DangerousGetHandle(), d, (nuint)utf8.Length, (uint)line, (uint)column,
                                      m, (nuint)matches.Length, &count, msg, MessageSize);
            if (status != 0)
                throw new IlmapException((IlmapStatus)status, Message(msg, $"lines failed for {document}:{line}"));
            int n = (int)Math.Min((ulong)count, (ulong)Math.Min(destination.Length, matches.Length));
            for (int i = 0; i < n; i++)
            {
                ref readonly NativeLineMatch x = ref matches[i];
                destination[i] = new LineBinding(unchecked((int)x.Token), (int)x.ILOffset, Intern(x.File, (nint)x.FileLength),
                                                 (int)x.Line, (int)x.Column, (int)x.EndLine, (int)x.EndColumn);
            }
        }
        finally
        {
            if (addedRef)
                _handle.DangerousRelease();
        }
        return checked((int)count);
    }

    /// <summary>As <see cref="Lines(string, int, Span{LineBinding}, int)"/>, returning a new array of every binding.</summary>
    public LineBinding[] Lines(string document, int line, int column = 0)
    {
        Span<LineBinding> first = new LineBinding[8];
        int n = Lines(document, line, first, column);
        if (n <= first.Length)
            return first[..n].ToArray();
        var all = new LineBinding[n];
        Lines(document, line, all, column);
        return all;
    }

    /// <summary>
    /// The name of a MethodDef token as the runtime of <paramref name="flavor"/> prints a stack
    /// frame (SPEC.md 3.6), or null when the cache has no names (compiled without the PE) or the
    /// token is not a MethodDef of the module. Allocates only the first time a name is asked for.
    /// </summary>
    public unsafe string? MethodName(int token, MethodNameFlavor flavor = MethodNameFlavor.CoreClr)
    {
        bool addedRef = false;
        try
        {
            _handle.DangerousAddRef(ref addedRef);
            byte* text = null;
            nuint length = 0;
            if (Native.MethodName(_handle.DangerousGetHandle(), unchecked((uint)token), (int)flavor, &text, &length) == 0)
                return null;
            return Intern(text, (nint)length);
        }
        finally
        {
            if (addedRef)
                _handle.DangerousRelease();
        }
    }

    /// <summary>Full check of the cache (checksum and structure).</summary>
    /// <exception cref="IlmapException">The cache is corrupt; the message says what and where.</exception>
    public unsafe void Verify()
    {
        byte* msg = stackalloc byte[MessageSize];
        msg[0] = 0;
        bool addedRef = false;
        int status;
        try
        {
            _handle.DangerousAddRef(ref addedRef);
            status = Native.Verify(_handle.DangerousGetHandle(), msg, MessageSize);
        }
        finally
        {
            if (addedRef)
                _handle.DangerousRelease();
        }
        if (status != 0)
            throw new IlmapException((IlmapStatus)status, Message(msg, "verify failed"));
    }

    /// <summary>
    /// True when the path the cache was opened from now names another file, or one whose size or
    /// times differ (the cache was rewritten: open it again).
    /// </summary>
    public bool FileChanged
    {
        get
        {
            bool addedRef = false;
            try
            {
                _handle.DangerousAddRef(ref addedRef);
                return Native.FileChanged(_handle.DangerousGetHandle()) != 0;
            }
            finally
            {
                if (addedRef)
                    _handle.DangerousRelease();
            }
        }
    }

    /// <summary>
    /// Installs the process-wide SIGBUS guard of the native reader (idempotent; it hands faults
    /// that are not its own to the handler installed before it, the .NET runtime's). Without it,
    /// a mapped cache that another program truncates in place kills the process at the next
    /// lookup that touches a lost page; with it, such reads see zeros and <see cref="Changed"/>
    /// turns true. <see cref="IlmapOpenMode.Read"/> avoids the question altogether.
    /// Returns false when the handler could not be installed.
    /// </summary>
    public static bool InstallMappingGuard()
    {
        Native.EnsureResolver();
        return Native.InstallMappingGuard() != 0;
    }

    /// <summary>
    /// True once the cache file changed in a way the native reader could not shield the cache
    /// from (see docs/library.md "Files changed while open"): lookups then give no answer. A
    /// truncate or rewrite normally leaves it false: the cache answers from the bytes it opened.
    /// </summary>
    public bool Changed
    {
        get
        {
            bool addedRef = false;
            try
            {
                _handle.DangerousAddRef(ref addedRef);
                return Native.Changed(_handle.DangerousGetHandle()) != 0;
            }
            finally
            {
                if (addedRef)
                    _handle.DangerousRelease();
            }
        }
    }

    /// <summary>Closes the cache once no lookup is running on it.</summary>
    public void Dispose() => _handle.Dispose();

    unsafe SourceLocation Convert(in NativeLocation n)
    {
        string file = Intern(n.File, (nint)n.FileLength);
        string? url = n.Url == null ? null : Intern(n.Url, (nint)n.UrlLength);
        string language = n.Language == null ? "unknown" : Intern(n.Language, -1);
        return new SourceLocation(file, url, language, (int)n.Line, (int)n.Column, (int)n.EndLine,
                                  (int)n.EndColumn, (int)n.ILOffset);
    }

    unsafe string Intern(byte* p, nint length)
    {
        nint address = (nint)p;
        int slot = (int)(((ulong)address * 0x9E3779B97F4A7C15UL) >> (64 - SlotBits));
        StringEntry? entry = Volatile.Read(ref _slots[slot]);
        if (entry != null && entry.Address == address && entry.Length == length)
            return entry.Value;
        var key = (address, length);
        if (!_strings.TryGetValue(key, out string? s))
        {
            s = length < 0 ? Marshal.PtrToStringUTF8((IntPtr)p) ?? "" : Encoding.UTF8.GetString(p, checked((int)length));
            s = _strings.GetOrAdd(key, s);
        }
        if (entry == null) // a slot keeps its first string: no allocation once every string was seen
            Interlocked.CompareExchange(ref _slots[slot], new StringEntry(address, length, s), null);
        return s;
    }

    sealed class StringEntry(nint address, nint length, string value)
    {
        public readonly nint Address = address;
        public readonly nint Length = length;
        public readonly string Value = value;
    }

    static unsafe string? Text(byte* p, nuint length) => p == null ? null : Encoding.UTF8.GetString(p, checked((int)length));

    static unsafe string Message(byte* msg, string fallback)
    {
        string? s = Marshal.PtrToStringUTF8((IntPtr)msg);
        return string.IsNullOrEmpty(s) ? fallback : s;
    }

    sealed class CacheHandle : SafeHandle
    {
        public CacheHandle(IntPtr raw) : base(IntPtr.Zero, ownsHandle: true) => SetHandle(raw);

        public override bool IsInvalid => handle == IntPtr.Zero;

        protected override bool ReleaseHandle()
        {
            Native.Close(handle);
            return true;
        }
    }
}
