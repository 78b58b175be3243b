// NativeCache: the reader in libilmap through the C API (a SafeHandle over ilmap_cache*). The
// native reader is read-only after open, so any number of threads may look up at once; Dispose
// waits for none of them but the handle is released only after the last running call returns
// (SafeHandle reference count). A lookup allocates nothing: document paths, URLs and languages
// become strings once per cache (keyed by where they lie in the mapped file) and are shared.
using System;
using System.Collections.Concurrent;
using System.Collections.Immutable;
using System.Runtime.InteropServices;
using System.Text;
using System.Threading;

namespace Ilmap;

internal sealed class NativeCache : CacheBackend
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

    unsafe NativeCache(CacheHandle handle)
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

    public static unsafe NativeCache Open(string path, IlmapOpenMode mode)
    {
        Native.EnsureResolver();
        byte[] utf8 = new byte[Encoding.UTF8.GetByteCount(path) + 1];
        Encoding.UTF8.GetBytes(path, 0, path.Length, utf8, 0);
        byte* msg = stackalloc byte[MessageSize];
        msg[0] = 0;
        int err = 0, structure = 0;
        IntPtr raw;
        try
        {
            fixed (byte* p = utf8)
                raw = Native.OpenEx2(p, (uint)mode, &err, &structure, msg, MessageSize);
        }
        catch (DllNotFoundException e)
        {
            throw Native.NotLoaded(e);
        }
        if (raw == IntPtr.Zero)
            throw new IlmapException((IlmapStatus)err, (IlmapStructure)structure, Message(msg, $"cannot open {path}"));
        return new NativeCache(new CacheHandle(raw));
    }

    public override int MethodCount { get; }
    public override long PointCount { get; }
    public override int DocumentCount { get; }
    public override ImmutableArray<byte> PdbId { get; }
    public override string? DebugId { get; }
    public override string? PdbKey { get; }
    public override string? PeName { get; }
    public override string? PeKey { get; }
    public override string? CodeId { get; }
    public override Guid? Mvid { get; }
    public override string? CompilerVersion { get; }

    public override unsafe string DocumentPath(int document)
    {
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

    public override unsafe byte[]? EmbeddedSourceBytes(int document)
    {
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

    public override unsafe bool TryLookup(uint token, uint ilOffset, out SourceLocation location)
    {
        NativeLocation native = default;
        bool addedRef = false;
        bool found;
        try
        {
            _handle.DangerousAddRef(ref addedRef);
            found = Native.Locate(_handle.DangerousGetHandle(), token, ilOffset, &native) == 0;
            location = found ? Convert(in native) : default;
        }
        finally
        {
            if (addedRef)
                _handle.DangerousRelease();
        }
        return found;
    }

    public override unsafe bool TryLookupRow(uint row, uint ilOffset, out SourceLocation location)
    {
        NativeLocation native = default;
        bool addedRef = false;
        bool found;
        try
        {
            _handle.DangerousAddRef(ref addedRef);
            found = Native.LocateRow(_handle.DangerousGetHandle(), row, ilOffset, &native) == 0;
            location = found ? Convert(in native) : default;
        }
        finally
        {
            if (addedRef)
                _handle.DangerousRelease();
        }
        return found;
    }

    public override unsafe bool TryLookupFrame(uint token, uint ilOffset, ReadOnlySpan<byte> printed, out SourceLocation location,
                                               out uint stateMachineMethod)
    {
        NativeLocation native = default;
        uint via = 0;
        bool addedRef = false;
        bool found;
        try
        {
            _handle.DangerousAddRef(ref addedRef);
            fixed (byte* p = printed) // an empty span gives NULL, which the C API takes with length 0
                found = Native.LocateFrame(_handle.DangerousGetHandle(), token, ilOffset, p, (nuint)printed.Length, &native, &via) == 0;
            location = found ? Convert(in native) : default;
            stateMachineMethod = found ? via : 0;
        }
        finally
        {
            if (addedRef)
                _handle.DangerousRelease();
        }
        return found;
    }

    public override unsafe int Lines(ReadOnlySpan<byte> document, string documentText, uint line, uint column, LineRule rule,
                                     Span<LineBinding> destination)
    {
        const int StackMatches = 16;
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
            fixed (byte* d = document)
            fixed (NativeLineMatch* m = matches)
                status = Native.LinesRule(_handle.DangerousGetHandle(), d, (nuint)document.Length, line, column, (int)rule,
                                          m, (nuint)matches.Length, &count, msg, MessageSize);
            if (status != 0)
                throw new IlmapException((IlmapStatus)status, Message(msg, $"lines failed for {documentText}:{line}"));
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

    public override unsafe string? MethodName(uint token, MethodNameFlavor flavor)
    {
        bool addedRef = false;
        try
        {
            _handle.DangerousAddRef(ref addedRef);
            byte* text = null;
            nuint length = 0;
            if (Native.MethodName(_handle.DangerousGetHandle(), token, (int)flavor, &text, &length) == 0)
                return null;
            return Intern(text, (nint)length);
        }
        finally
        {
            if (addedRef)
                _handle.DangerousRelease();
        }
    }

    public override unsafe void Verify()
    {
        byte* msg = stackalloc byte[MessageSize];
        msg[0] = 0;
        bool addedRef = false;
        int status, structure = 0;
        try
        {
            _handle.DangerousAddRef(ref addedRef);
            status = Native.VerifyEx(_handle.DangerousGetHandle(), &structure, msg, MessageSize);
        }
        finally
        {
            if (addedRef)
                _handle.DangerousRelease();
        }
        if (status != 0)
            throw new IlmapException((IlmapStatus)status, (IlmapStructure)structure, Message(msg, "verify failed"));
    }

    public override bool FileChanged
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

    public override bool Changed
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

    public override void Dispose() => _handle.Dispose();

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
