// ManagedCache: the ilmap cache reader in C#, written from SPEC.md: open (section 7, steps 1-16),
// identity (3.2), documents (3.3) and lookups (section 6).
// The file is read whole into memory; the payload is read through a Google.FlatBuffers
// ByteBuffer after SchemaCheck verified it. Packed sections (3.8) are unpacked once, on first
// use. Elsewhere: method names (3.6) in ManagedNames.cs, the Details buffer (3.4) in
// ManagedDetails.cs, lines (3.7, 6.2, 6.3) in ManagedLineIndex.cs, ManagedLines.cs and
// ManagedDebuggerRule.cs, verify in ManagedVerify.cs.
using System;
using System.Buffers.Binary;
using System.Collections.Generic;
using System.Collections.Immutable;
using System.IO;
using System.Text;
using Google.FlatBuffers;

namespace Ilmap.Managed;

internal sealed partial class ManagedCache : CacheBackend
{
    const int HeaderSize = 32;
    const uint Magic = 0x1A4D4C49, SwappedMagic = 0x494C4D1A;

    readonly byte[] _file;
    readonly ByteBuffer _bb;
    readonly string? _path;
    readonly (long Length, DateTime Written) _stamp;
    readonly int _root, _rootVt;
    readonly int _identity, _names, _lines; // table positions, 0 when absent
    readonly BlockSections _sec;
    readonly Vec _documents, _strings, _stringsZstd, _details, _detailsZstd, _hiddenPoints;
    readonly object _lock = new();

    // Per document: its path, URL and language label, made on first use (then shared).
    readonly string?[] _paths, _urls;
    readonly bool[] _badRange;

    ManagedCache(byte[] file, string? path, (long, DateTime) stamp)
    {
        _file = file;
        _path = path;
        _stamp = stamp;
        _bb = new ByteBuffer(file);
        var check = new FlatCheck(_bb, HeaderSize, file.Length);
        if (!SchemaCheck.Cache(check, out _root))
            throw new IlmapException(IlmapStatus.Malformed, IlmapStructure.Payload, $"cache: the payload is not a valid Cache buffer: {check.Error}");
        _rootVt = _root - _bb.GetInt(_root);
        _identity = Table(_root, 0);
        _names = Table(_root, 8);
        _lines = Table(_root, 9);
        _documents = Vector(_root, 1, 20);
        _strings = Vector(_root, 2, 1);
        _stringsZstd = Vector(_root, 14, 1);
        _details = Vector(_root, 7, 1);
        _detailsZstd = Vector(_root, 15, 1);
        _hiddenPoints = Vector(_root, 18, 20);
        uint rows = Scalar32(_root, 10);
        bool hasGroups = Present(_root, 11), hasEnds = Present(_root, 12);
        Vec groups = Vector(_root, 11, 8), ends = Vector(_root, 12, 2);
        // Step 12: the directory's two vectors, ⌈M/64⌉ and M entries.
        if (!hasGroups || !hasEnds || (ulong)groups.Length != ((ulong)rows + 63) / 64 || (uint)ends.Length != rows)
            throw new IlmapException(IlmapStatus.Malformed, IlmapStructure.MethodDirectory,
                $"cache: method directory: method_groups and block_ends must hold {((ulong)rows + 63) / 64} and {rows} entries");
        // Step 13: point_blocks with its tail padding.
        Vec blocks = Vector(_root, 4, 1);
        if (!Present(_root, 4) || blocks.Length < 16)
            throw new IlmapException(IlmapStatus.Malformed, IlmapStructure.PointBlocks, "cache: point_blocks is missing or shorter than its 16 bytes of tail padding");
        // Step 14: block profiles and their per-row index.
        Vec profiles = Vector(_root, 16, 8), profileIndex = Vector(_root, 17, 1);
        if (profiles.Length > 255)
            throw new IlmapException(IlmapStatus.Malformed, IlmapStructure.BlockProfiles, $"cache: {profiles.Length} block profiles, more than 255");
        if (!Present(_root, 17) || (uint)profileIndex.Length != rows)
            throw new IlmapException(IlmapStatus.Malformed, IlmapStructure.BlockProfiles, $"cache: block_profile_index must hold {rows} entries");
        // Step 15: no section in both forms.
        if (Present(_root, 2) && Present(_root, 14))
            throw new IlmapException(IlmapStatus.Malformed, IlmapStructure.Strings, "cache: strings stored both plain and packed");
        if (Present(_root, 7) && Present(_root, 15))
            throw new IlmapException(IlmapStatus.Malformed, IlmapStructure.Details, "cache: details stored both plain and packed");
        if (_names != 0 && ((Present(_names, 3) && Present(_names, 7)) || (Present(_names, 4) && Present(_names, 6))))
            throw new IlmapException(IlmapStatus.Malformed, IlmapStructure.Names, "cache: method names stored both plain and packed");
        bool plainLines = _lines != 0 && Present(_lines, 0) && Present(_lines, 1) && Present(_lines, 2);
        bool packedLines = _lines != 0 && Present(_lines, 4);
        if (packedLines && (Present(_lines, 0) || Present(_lines, 1) || Present(_lines, 2)))
            throw new IlmapException(IlmapStatus.Malformed, IlmapStructure.LineIndex, "cache: line index stored both plain and packed");
        // Step 16: the line index.
        if (!plainLines && !packedLines)
            throw new IlmapException(IlmapStatus.Malformed, IlmapStructure.LineIndex, "cache: no line index (section 3.7)");
        _sec = new BlockSections
        {
            File = file, MethodRows = rows, Groups = groups, Ends = ends, EndsHigh = Vector(_root, 13, 2), Blocks = blocks,
            Profiles = profiles, ProfileIndex = profileIndex, DocumentCount = (uint)_documents.Length,
        };
        _paths = new string?[_documents.Length];
        _urls = new string?[_documents.Length];
        _badRange = new bool[_documents.Length];
        ReadIdentity();
    }

    /// <summary>Opens the cache at <paramref name="path"/> (SPEC.md section 7, open).</summary>
    public static ManagedCache Open(string path)
    {
        byte[] file;
        (long, DateTime) stamp;
        try
        {
            if (Directory.Exists(path))
                throw new IlmapException(IlmapStatus.Io, $"{path}: is a directory, expected a cache file");
            using var stream = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete, 1, FileOptions.None);
            var info = new FileInfo(path);
            stamp = (info.Length, info.LastWriteTimeUtc);
            long size = stream.Length;
            Span<byte> header = stackalloc byte[HeaderSize];
            int got = ReadFull(stream, header);
            CheckHeader(header[..got], size);
            file = new byte[size];
            header.CopyTo(file);
            if (ReadFull(stream, file.AsSpan(HeaderSize)) != size - HeaderSize)
                throw new IlmapException(IlmapStatus.Io, $"{path}: the file changed while it was read");
        }
        catch (IOException ex)
        {
            throw new IlmapException(IlmapStatus.Io, $"{path}: cannot open: {ex.Message}");
        }
        catch (UnauthorizedAccessException ex)
        {
            throw new IlmapException(IlmapStatus.Io, $"{path}: cannot open: {ex.Message}");
        }
        return new ManagedCache(file, path, stamp);
    }

    /// <summary>Opens a cache held in memory (the array is used, not copied).</summary>
    public static ManagedCache FromBytes(byte[] file)
    {
        CheckHeader(file.AsSpan(0, Math.Min(file.Length, HeaderSize)), file.Length);
        return new ManagedCache(file, null, default);
    }

    static int ReadFull(Stream stream, Span<byte> buffer)
    {
        int total = 0;
        while (total < buffer.Length)
        {
            int n = stream.Read(buffer[total..]);
            if (n == 0)
                break;
            total += n;
        }
        return total;
    }

    // Open steps 2-10: the header and the payload's file identifier.
    static void CheckHeader(ReadOnlySpan<byte> header, long fileSize)
    {
        if (fileSize < HeaderSize || header.Length < HeaderSize)
            throw new IlmapException(IlmapStatus.Truncated, IlmapStructure.Header, $"cache: {fileSize} bytes, shorter than the 32-byte header");
        uint magic = BinaryPrimitives.ReadUInt32LittleEndian(header);
        if (magic == SwappedMagic)
            throw new IlmapException(IlmapStatus.BadMagic, IlmapStructure.Header, "cache: written with the other byte order (byte-swapped magic)");
        if (magic != Magic || !header.Slice(4, 4).SequenceEqual("ILMP"u8))
            throw new IlmapException(IlmapStatus.BadMagic, IlmapStructure.Header, "cache: not an ilmap cache (bad magic)");
        ushort major = BinaryPrimitives.ReadUInt16LittleEndian(header[8..]), minor = BinaryPrimitives.ReadUInt16LittleEndian(header[10..]);
        if (major != 2)
            throw new IlmapException(IlmapStatus.BadVersion, IlmapStructure.Header, $"format version {major}.{minor} is not supported (this reader reads 2.x)");
        uint headerSize = BinaryPrimitives.ReadUInt32LittleEndian(header[12..]);
        if (headerSize != HeaderSize)
            throw new IlmapException(IlmapStatus.Malformed, IlmapStructure.Header, $"cache: header_size {headerSize}, expected 32");
        ulong payload = BinaryPrimitives.ReadUInt64LittleEndian(header[16..]);
        if (payload != (ulong)(fileSize - HeaderSize))
            throw new IlmapException(IlmapStatus.Truncated, IlmapStructure.Header, $"cache: payload_size {payload} but {fileSize - HeaderSize} bytes follow the header");
        if (payload > Packed.MaxPayloadSize)
            throw new IlmapException(IlmapStatus.TooLarge, IlmapStructure.Header, $"cache: payload of {payload} bytes, more than {Packed.MaxPayloadSize}");
        if (payload < 8)
            throw new IlmapException(IlmapStatus.Truncated, IlmapStructure.Header, $"cache: payload of {payload} bytes, too short for a FlatBuffer");
    }

    internal byte[] File => _file;

    // --- FlatBuffers field access (after SchemaCheck: every present field is in bounds) ---

    int VTable(int table) => table - _bb.GetInt(table);

    int FieldPos(int table, int id)
    {
        int off = FlatCheck.FieldOffset(_bb, table == _root ? _rootVt : VTable(table), id);
        return off == 0 ? 0 : table + off;
    }

    bool Present(int table, int id) => FieldPos(table, id) != 0;

    int Table(int table, int id)
    {
        int p = FieldPos(table, id);
        return p == 0 ? 0 : p + (int)_bb.GetUint(p);
    }

    Vec Vector(int table, int id, int elementSize)
    {
        int p = FieldPos(table, id);
        if (p == 0)
            return Vec.Empty;
        int v = p + (int)_bb.GetUint(p);
        return new Vec(v + 4, (int)_bb.GetUint(v));
    }

    string? Text(int table, int id)
    {
        Vec v = Vector(table, id, 1);
        return FieldPos(table, id) == 0 ? null : Encoding.UTF8.GetString(_file, v.Start, v.Length);
    }

    uint Scalar32(int table, int id)
    {
        int p = FieldPos(table, id);
        return p == 0 ? 0 : _bb.GetUint(p);
    }

    ulong Scalar64(int table, int id)
    {
        int p = FieldPos(table, id);
        return p == 0 ? 0 : _bb.GetUlong(p);
    }

    // --- identity (3.2) ---

    ImmutableArray<byte> _pdbId = ImmutableArray<byte>.Empty;
    string? _debugId, _pdbKey, _peName, _peKey, _codeId, _compilerVersion;
    Guid? _mvid;

    void ReadIdentity()
    {
        int id = _identity;
        if (id != 0)
        {
            Vec pdb = Vector(id, 0, 1);
            if (pdb.Length == 20)
                _pdbId = ImmutableArray.Create(_file, pdb.Start, 20);
            _pdbKey = Text(id, 2);
            _debugId = Text(id, 3);
            _peName = Text(id, 4);
            _peKey = Text(id, 7);
            _codeId = Text(id, 8);
            _compilerVersion = Text(id, 14);
        }
        // Names.mvid first, else Identity.mvid (the PE's MVID either way).
        int g = _names != 0 ? FieldPos(_names, 0) : 0;
        if (g == 0 && id != 0)
            g = FieldPos(id, 9);
        if (g != 0)
            _mvid = new Guid(_file.AsSpan(g, 16));
    }

    public override int MethodCount => (int)_sec.MethodRows;
    public override long PointCount => (long)Scalar64(_root, 5);
    public override int DocumentCount => _documents.Length;
    public override ImmutableArray<byte> PdbId => _pdbId;
    public override string? DebugId => _debugId;
    public override string? PdbKey => _pdbKey;
    public override string? PeName => _peName;
    public override string? PeKey => _peKey;
    public override string? CodeId => _codeId;
    public override Guid? Mvid => _mvid;
    public override string? CompilerVersion => _compilerVersion;

    // --- strings and documents (3.3, 3.8) ---

    byte[]? _unpackedStrings;
    IlmapException? _stringsError;

    /// <summary>The strings (unpacked on first use) as (array, start, length); false when they do not unpack.</summary>
    bool Strings(out byte[] array, out int start, out int length)
    {
        if (_stringsZstd.Length == 0 && FieldPos(_root, 14) == 0)
        {
            (array, start, length) = (_file, _strings.Start, _strings.Length);
            return true;
        }
        (array, start, length) = (_file, 0, 0);
        if (_unpackedStrings == null && _stringsError == null)
        {
            lock (_lock)
            {
                if (_unpackedStrings == null && _stringsError == null)
                {
                    try
                    {
                        _unpackedStrings = Packed.Unpack(_file.AsSpan(_stringsZstd.Start, _stringsZstd.Length), _file.Length, "strings_zstd", IlmapStructure.Strings);
                    }
                    catch (IlmapException ex)
                    {
                        _stringsError = ex;
                    }
                }
            }
        }
        if (_unpackedStrings == null)
            return false;
        (array, start, length) = (_unpackedStrings, 0, _unpackedStrings.Length);
        return true;
    }

    int DocumentRef(int document) => _documents.Start + 20 * document;

    /// <summary>A document's path and URL strings (made once); false when a range lies outside the strings.</summary>
    bool DocumentStrings(int document, out string path, out string? url)
    {
        string? p = _paths[document];
        if (p != null)
        {
            path = p;
            url = _urls[document];
            return true;
        }
        path = "";
        url = null;
        if (_badRange[document] || !Strings(out byte[] s, out int start, out int length))
            return false;
        int r = DocumentRef(document);
        uint po = _bb.GetUint(r), pl = _bb.GetUint(r + 4), uo = _bb.GetUint(r + 8), ul = _bb.GetUint(r + 12);
        if ((ulong)po + pl > (ulong)length || (ulong)uo + ul > (ulong)length)
        {
            _badRange[document] = true;
            return false;
        }
        url = ul == 0 ? null : Encoding.UTF8.GetString(s, start + (int)uo, (int)ul);
        path = Encoding.UTF8.GetString(s, start + (int)po, (int)pl);
        _urls[document] = url;
        _paths[document] = path; // set last: a reader that sees the path sees the URL
        return true;
    }

    /// <summary>The path's bytes of a document (empty when its range is bad).</summary>
    internal ReadOnlySpan<byte> DocumentPathBytes(int document)
    {
        if (!Strings(out byte[] s, out int start, out int length))
            return default;
        int r = DocumentRef(document);
        uint po = _bb.GetUint(r), pl = _bb.GetUint(r + 4);
        return (ulong)po + pl > (ulong)length ? default : s.AsSpan(start + (int)po, (int)pl);
    }

    public override string DocumentPath(int document)
    {
        Alive();
        // The path alone: a document whose URL range is bad still has its path.
        if (DocumentStrings(document, out string path, out _))
            return path;
        ReadOnlySpan<byte> bytes = DocumentPathBytes(document);
        return bytes.IsEmpty ? "" : Encoding.UTF8.GetString(bytes);
    }

    static string LanguageLabel(byte code) => code switch
    {
        1 => "C#",
        2 => "VB",
        3 => "F#",
        4 => "other",
        _ => "unknown",
    };

    // --- lookup (section 6) ---

    public override bool TryLookup(uint token, uint ilOffset, out SourceLocation location)
    {
        Alive();
        location = default;
        return token >> 24 == 0x06 && TryLookupRow(token & 0xFFFFFF, ilOffset, out location);
    }

    public override bool TryLookupRow(uint row, uint ilOffset, out SourceLocation location)
    {
        Alive();
        return LookupRow(row, ilOffset, out location, out _);
    }

    /// <summary>Section 6 for a row; <paramref name="document"/> is the answering point's document index.</summary>
    bool LookupRow(uint row, uint ilOffset, out SourceLocation location, out int document)
    {
        location = default;
        document = -1;
        if (ilOffset >= 0x80000000u || !_sec.Block(row, out PointBlock block) || block.Visible == 0)
            return false;
        uint n = block.CountAtOrBefore(ilOffset);
        if (n == 0)
            return false;
        Point p = block.VisiblePoint(n - 1);
        if (p.IL > ilOffset || p.Document >= (uint)_documents.Length)
            return false;
        int d = (int)p.Document;
        if (!DocumentStrings(d, out string path, out string? url))
            return false;
        location = new SourceLocation(path, url, LanguageLabel(_file[DocumentRef(d) + 16]), (int)p.Line, (int)p.Column,
                                      (int)p.EndLine, (int)p.EndColumn, (int)p.IL);
        document = d;
        return true;
    }

    /// <summary>The IL offsets of row r's points, visible then hidden, appended to <paramref name="output"/>; for tests.</summary>
    internal void PointOffsets(uint row, List<uint> output)
    {
        if (!_sec.Block(row, out PointBlock block))
            return;
        for (uint k = 0; k < block.Visible; k++)
            output.Add(block.Il(k));
        for (uint k = 0; k < block.Hidden; k++)
            output.Add(block.HiddenPoint(k).IL);
    }

    /// <summary>The largest IL offset of row r's points, visible or hidden (-1: none); for tests.</summary>
    internal long LastIlOffset(uint row)
    {
        if (!_sec.Block(row, out PointBlock block))
            return -1;
        long max = -1;
        for (uint k = 0; k < block.Visible; k++)
            max = Math.Max(max, block.Il(k));
        for (uint k = 0; k < block.Hidden; k++)
            max = Math.Max(max, block.HiddenPoint(k).IL);
        return max;
    }

    // --- the file ---

    public override bool FileChanged
    {
        get
        {
            if (_path == null)
                return false;
            try
            {
                var info = new FileInfo(_path);
                return !info.Exists || info.Length != _stamp.Length || info.LastWriteTimeUtc != _stamp.Written;
            }
            catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
            {
                return true;
            }
        }
    }

    // The bytes were read into memory at open: no later change of the file reaches them.
    public override bool Changed => false;

    volatile bool _disposed;

    void Alive() => ObjectDisposedException.ThrowIf(_disposed, typeof(IlmapCache));

    public override void Dispose() => _disposed = true;
}
