// ManagedCache: the ilmap cache reader in C#, written from SPEC.md: open (section 7, steps 1-16),
// identity (3.2), documents (3.3), lookups (section 6) and method names (3.6, 6.1 method_name).
// The file is read whole into memory; the payload is read through a Google.FlatBuffers
// ByteBuffer after SchemaCheck verified it. Packed sections (3.8) are unpacked once, on first
// use. Lines (6.2) are in ManagedLines.cs, verify in ManagedVerify.cs.
using System;
using System.Buffers.Binary;
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
        location = default;
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
        return true;
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

    // --- details and embedded sources (3.4) ---

    byte[]? _detailsBuffer;
    int _detailsRoot;
    IlmapException? _detailsError;

    /// <summary>The nested Details buffer, checked (section 7 "Details") on first use.</summary>
    (byte[] Buffer, int Root) Details()
    {
        if (_detailsBuffer == null && _detailsError == null)
        {
            lock (_lock)
            {
                if (_detailsBuffer == null && _detailsError == null)
                {
                    try
                    {
                        byte[] buffer = LoadDetails(out int root);
                        _detailsRoot = root;
                        _detailsBuffer = buffer;
                    }
                    catch (IlmapException ex)
                    {
                        _detailsError = ex;
                    }
                }
            }
        }
        if (_detailsBuffer == null)
            throw new IlmapException(_detailsError!.Status, _detailsError.Structure, _detailsError.Message);
        return (_detailsBuffer, _detailsRoot);
    }

    byte[] LoadDetails(out int root)
    {
        byte[] buffer;
        if (FieldPos(_root, 7) != 0)
            buffer = _file.AsSpan(_details.Start, _details.Length).ToArray();
        else if (FieldPos(_root, 15) != 0)
            buffer = Packed.Unpack(_file.AsSpan(_detailsZstd.Start, _detailsZstd.Length), _file.Length, "details_zstd", IlmapStructure.Details);
        else
            throw new IlmapException(IlmapStatus.Malformed, IlmapStructure.Details, "cache: no details section");
        var check = new FlatCheck(new ByteBuffer(buffer), 0, buffer.Length);
        if (!SchemaCheck.Details(check, out root))
            throw new IlmapException(IlmapStatus.Malformed, IlmapStructure.Details, $"cache: details: not a valid Details buffer: {check.Error}");
        var bb = new ByteBuffer(buffer);
        int documents = DetailsField(bb, root, 0);
        if (documents != 0 && bb.GetUint(documents) != (uint)_documents.Length)
            throw new IlmapException(IlmapStatus.Malformed, IlmapStructure.Details,
                $"cache: details: {bb.GetUint(documents)} document entries for {_documents.Length} documents");
        return buffer;
    }

    /// <summary>The position of vector/table field <paramref name="id"/>'s target in a details buffer, 0 when absent.</summary>
    static int DetailsField(ByteBuffer bb, int table, int id)
    {
        int off = FlatCheck.FieldOffset(bb, table - bb.GetInt(table), id);
        if (off == 0)
            return 0;
        return table + off + (int)bb.GetUint(table + off);
    }

    public override byte[]? EmbeddedSourceBytes(int document)
    {
        Alive();
        (byte[] buffer, int root) = Details();
        var bb = new ByteBuffer(buffer);
        int sources = DetailsField(bb, root, 2);
        if (sources == 0)
            return null;
        uint n = bb.GetUint(sources);
        for (uint i = 0; i < n; i++)
        {
            int element = sources + 4 + 4 * (int)i;
            int entry = element + (int)bb.GetUint(element);
            int vt = entry - bb.GetInt(entry);
            int docOff = FlatCheck.FieldOffset(bb, vt, 0);
            uint doc = docOff == 0 ? 0 : bb.GetUint(entry + docOff);
            int zstd = DetailsField(bb, entry, 2);
            if (doc != (uint)document || zstd == 0)
                continue;
            int sizeOff = FlatCheck.FieldOffset(bb, vt, 1);
            ulong size = sizeOff == 0 ? 0 : bb.GetUlong(entry + sizeOff);
            ReadOnlySpan<byte> frame = buffer.AsSpan(zstd + 4, (int)bb.GetUint(zstd));
            if (Packed.ContentSize(frame) != size)
                throw new IlmapException(IlmapStatus.Malformed, IlmapStructure.Details,
                    $"embedded source of document {document}: the zstd frame does not record its size {size}");
            if (size > (ulong)Array.MaxLength)
                throw new IlmapException(IlmapStatus.TooLarge, $"embedded source of document {document}: {size} bytes, more than an array holds");
            return Packed.DecompressExact(frame, size)
                ?? throw new IlmapException(IlmapStatus.Malformed, IlmapStructure.Details, $"embedded source of document {document}: the zstd frame does not unpack");
        }
        return null;
    }

    // --- method names (3.6, 6.1) ---

    sealed class NameTables(byte[] methods, int methodsStart, int count, byte[] strings, int stringsStart, int stringsLength)
    {
        public readonly byte[] Methods = methods;
        public readonly int MethodsStart = methodsStart, Count = count;
        public readonly byte[] Strings = strings;
        public readonly int StringsStart = stringsStart, StringsLength = stringsLength;
        public readonly string?[] CoreClr = new string?[count], Mono = new string?[count];
    }

    NameTables? _nameTables;
    IlmapException? _namesError;

    /// <summary>The names' method refs and strings, unpacked on first use (3.6); null without names.</summary>
    NameTables? Names()
    {
        if (_names == 0)
            return null;
        if (_nameTables == null && _namesError == null)
        {
            lock (_lock)
            {
                if (_nameTables == null && _namesError == null)
                {
                    try
                    {
                        _nameTables = LoadNames();
                    }
                    catch (IlmapException ex)
                    {
                        _namesError = ex;
                    }
                }
            }
        }
        if (_nameTables == null)
            throw new IlmapException(_namesError!.Status, _namesError.Structure, _namesError.Message);
        return _nameTables;
    }

    NameTables LoadNames()
    {
        bool plainMethods = Present(_names, 3), packedMethods = Present(_names, 7);
        bool plainStrings = Present(_names, 4), packedStrings = Present(_names, 6);
        if (plainMethods == packedMethods || plainStrings == packedStrings)
            throw new IlmapException(IlmapStatus.Malformed, IlmapStructure.Names, "names: exactly one of methods and methods_zstd, and of strings and strings_zstd, must be present");
        byte[] strings;
        int stringsStart, stringsLength;
        if (plainStrings)
        {
            Vec v = Vector(_names, 4, 1);
            (strings, stringsStart, stringsLength) = (_file, v.Start, v.Length);
        }
        else
        {
            Vec v = Vector(_names, 6, 1);
            strings = Packed.Unpack(_file.AsSpan(v.Start, v.Length), _file.Length, "names.strings_zstd", IlmapStructure.Names);
            (stringsStart, stringsLength) = (0, strings.Length);
        }
        if (plainMethods)
        {
            Vec v = Vector(_names, 3, 32);
            return new NameTables(_file, v.Start, v.Length, strings, stringsStart, stringsLength);
        }
        Vec z = Vector(_names, 7, 1);
        byte[] columns = Packed.Unpack(_file.AsSpan(z.Start, z.Length), _file.Length, "names.methods_zstd", IlmapStructure.Names);
        if (columns.Length % 32 != 0)
            throw new IlmapException(IlmapStatus.Malformed, IlmapStructure.Names, $"names: methods_zstd unpacks to {columns.Length} bytes, not a multiple of 32");
        int n = columns.Length / 32;
        byte[] methods = new byte[columns.Length];
        uint coreclr = 0;
        for (int i = 0; i < n; i++)
        {
            for (int c = 0; c < 8; c++)
            {
                uint value = BinaryPrimitives.ReadUInt32LittleEndian(columns.AsSpan(4 * (c * n + i)));
                if (c == 0)
                    value = coreclr = unchecked(coreclr + value);
                else if (c == 2 || c == 4)
                    value = unchecked(value + coreclr);
                BinaryPrimitives.WriteUInt32LittleEndian(methods.AsSpan(32 * i + 4 * c), value);
            }
        }
        return new NameTables(methods, 0, n, strings, stringsStart, stringsLength);
    }

    public override string? MethodName(uint token, MethodNameFlavor flavor)
    {
        Alive();
        NameTables? t;
        try
        {
            t = Names();
        }
        catch (IlmapException)
        {
            return null;
        }
        uint row = token & 0xFFFFFF;
        if (t == null || token >> 24 != 0x06 || row == 0 || row > (uint)t.Count)
            return null;
        int i = (int)row - 1;
        string?[] made = flavor == MethodNameFlavor.Mono ? t.Mono : t.CoreClr;
        string? s = made[i];
        if (s != null)
            return s;
        int entry = t.MethodsStart + 32 * i + (flavor == MethodNameFlavor.Mono ? 8 : 0);
        uint offset = BinaryPrimitives.ReadUInt32LittleEndian(t.Methods.AsSpan(entry));
        uint length = BinaryPrimitives.ReadUInt32LittleEndian(t.Methods.AsSpan(entry + 4));
        if (!NameRangesValid(t, i, 2)) // both texts (not the key): SPEC.md 6.1
            return null;
        s = Encoding.UTF8.GetString(t.Strings, t.StringsStart + (int)offset, (int)length);
        made[i] = s;
        return s;
    }

    // The first `ranges` ranges of a method (CoreCLR text, Mono text, key) lie inside the strings.
    static bool NameRangesValid(NameTables t, int i, int ranges = 3)
    {
        for (int k = 0; k < ranges; k++)
        {
            int entry = t.MethodsStart + 32 * i + 8 * k;
            ulong offset = BinaryPrimitives.ReadUInt32LittleEndian(t.Methods.AsSpan(entry));
            ulong length = BinaryPrimitives.ReadUInt32LittleEndian(t.Methods.AsSpan(entry + 4));
            if (offset + length > (ulong)t.StringsLength)
                return false;
        }
        return true;
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
