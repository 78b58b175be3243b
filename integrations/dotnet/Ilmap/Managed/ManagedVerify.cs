// ManagedVerify: the full check of SPEC.md section 7 "Verify", steps 1-12, in order, each
// failure an IlmapException with the step's error code and what and where.
using System;
using System.Buffers.Binary;
using System.IO.Hashing;
using Google.FlatBuffers;

namespace Ilmap.Managed;

internal sealed partial class ManagedCache
{
    static IlmapException Malformed(IlmapStructure where, string what) => new(IlmapStatus.Malformed, where, what);

    public override void Verify()
    {
        Alive();
        // 1. The payload checksum.
        ulong stored = BinaryPrimitives.ReadUInt64LittleEndian(_file.AsSpan(24));
        ulong actual = XxHash3.HashToUInt64(_file.AsSpan(HeaderSize));
        if (stored != actual)
            throw new IlmapException(IlmapStatus.Checksum, IlmapStructure.Payload, $"cache: payload checksum 0x{actual:x16}, header says 0x{stored:x16}");
        VerifyDirectory();
        VerifyBlocks();
        VerifyDocuments();
        // 8. Details; 9. embedded sources name documents.
        (byte[] details, int root) = Details();
        var bb = new ByteBuffer(details);
        int sources = DetailsField(bb, root, 2);
        uint count = sources == 0 ? 0 : bb.GetUint(sources);
        for (uint i = 0; i < count; i++)
        {
            int element = sources + 4 + 4 * (int)i;
            int entry = element + (int)bb.GetUint(element);
            int off = FlatCheck.FieldOffset(bb, entry - bb.GetInt(entry), 0);
            uint doc = off == 0 ? 0 : bb.GetUint(entry + off);
            if (doc >= (uint)_documents.Length)
                throw Malformed(IlmapStructure.Details, $"details: embedded source {i} names document {doc} of {_documents.Length}");
        }
        // 10. Identity.
        if (_identity == 0 || _pdbId.Length != 20)
            throw Malformed(IlmapStructure.Identity, "cache: identity missing or its pdb_id is not 20 bytes");
        VerifyNames();
        VerifyLines();
    }

    // Steps 2-3: the method directory (section 4).
    void VerifyDirectory()
    {
        ReadOnlySpan<byte> f = _file;
        uint rows = _sec.MethodRows;
        long limit = _sec.Blocks.Length - 16;
        long previous = 0;
        long usedHigh = 0;
        for (uint g = 0; (ulong)g * 64 < rows; g++)
        {
            long basePos = BinaryPrimitives.ReadUInt32LittleEndian(f[(_sec.Groups.Start + 8 * (int)g)..]);
            uint high = BinaryPrimitives.ReadUInt32LittleEndian(f[(_sec.Groups.Start + 8 * (int)g + 4)..]);
            if (basePos != previous)
                throw Malformed(IlmapStructure.MethodDirectory, $"method directory: group {g} starts at {basePos}, the group before ends at {previous}");
            uint groupRows = Math.Min(64, rows - 64 * g);
            bool wide = high != 0xFFFFFFFFu;
            if (wide)
            {
                if (high != usedHigh || usedHigh + groupRows > _sec.EndsHigh.Length)
                    throw Malformed(IlmapStructure.MethodDirectory, $"method directory: group {g}: high {high}, expected {usedHigh} with {groupRows} entries inside block_ends_high");
                usedHigh += groupRows;
            }
            for (uint k = 0; k < groupRows; k++)
            {
                uint i = 64 * g + k;
                long rel = BinaryPrimitives.ReadUInt16LittleEndian(f[(_sec.Ends.Start + 2 * (int)i)..]);
                if (wide)
                    rel += (long)BinaryPrimitives.ReadUInt16LittleEndian(f[(_sec.EndsHigh.Start + 2 * (int)(high + k))..]) << 16;
                long e = basePos + rel;
                if (e < previous || e > limit)
                    throw Malformed(IlmapStructure.MethodDirectory, $"method directory: row {i + 1} ends at {e}, before {previous} or past {limit}");
                previous = e;
            }
        }
        if (usedHigh != _sec.EndsHigh.Length)
            throw Malformed(IlmapStructure.MethodDirectory, $"method directory: {_sec.EndsHigh.Length - usedHigh} block_ends_high entries unused");
        if (previous != limit)
            throw Malformed(IlmapStructure.MethodDirectory, $"method directory: the last block ends at {previous}, point_blocks at {limit}");
    }

    // Steps 4-6: tail padding, profiles, every block and its points.
    void VerifyBlocks()
    {
        ReadOnlySpan<byte> f = _file;
        for (int i = _sec.Blocks.Start + _sec.Blocks.Length - 16; i < _sec.Blocks.Start + _sec.Blocks.Length; i++)
            if (f[i] != 0)
                throw Malformed(IlmapStructure.PointBlocks, "point_blocks: tail padding is not zero");
        for (int i = 0; i < _sec.Profiles.Length; i++)
        {
            ulong p = BinaryPrimitives.ReadUInt64LittleEndian(f[(_sec.Profiles.Start + 8 * i)..]);
            if ((p & 0xFFFFFF00C0000000UL) != 0)
                throw Malformed(IlmapStructure.BlockProfiles, $"block_profiles[{i}] has reserved bits set");
        }
        int hp = 0, hpCount = _hiddenPoints.Length;
        ulong points = 0, hidden = 0;
        uint documents = (uint)_documents.Length;
        for (uint r = 1; r <= _sec.MethodRows; r++)
        {
            if (hp < hpCount && HiddenRow(hp) < r)
                throw Malformed(IlmapStructure.HiddenPoints, $"hidden_points[{hp}] names row {HiddenRow(hp)}, which has no such hidden record");
            _sec.Range(r, out long b, out long e);
            if (b >= e)
                continue;
            if (!PointBlock.Decode(_sec, r, b, e, out PointBlock block))
                throw Malformed(IlmapStructure.PointBlocks, $"method row {r}: block header does not decode inside [{b}, {e})");
            if (block.RecordBytes != (ulong)(block.End - block.HeaderEnd) || (ulong)block.Visible + block.Hidden == 0)
                throw Malformed(IlmapStructure.PointBlocks, $"method row {r}: block size {block.End - block.HeaderEnd} after its header, its records take {block.RecordBytes}");
            // Which hidden records hidden_points places (row r's entries), in increasing order.
            int first = hp;
            long last = -1;
            while (hp < hpCount && HiddenRow(hp) == r)
            {
                uint k = HiddenField(hp, 4), before = HiddenField(hp, 8);
                if (k >= block.Hidden || k <= last || before > block.Visible)
                    throw Malformed(IlmapStructure.HiddenPoints, $"hidden_points[{hp}]: row {r} hidden record {k} (visible_before {before})");
                last = k;
                hp++;
            }
            // Merge in PDB order (5.3, 5.5) and check each point.
            long previousIl = -1;
            uint v = 0;
            int entry = first;
            ulong ilLimit = 1UL << block.WIl;
            for (uint h = 0; h <= block.Hidden; h++)
            {
                // Visible records placed before hidden record h (all remaining ones after the last).
                long place;
                if (h == block.Hidden)
                    place = block.Visible;
                else if (entry < hp && HiddenField(entry, 4) == h)
                    place = HiddenField(entry++, 8);
                else
                {
                    uint il = block.HiddenPoint(h).IL;
                    place = v;
                    while (place < block.Visible && block.Il((uint)place) < il)
                        place++;
                }
                for (; v < place; v++)
                {
                    Point p = block.VisiblePoint(v);
                    if (p.IL >= ilLimit || p.IL < previousIl || p.Document >= documents || p.Line >= 0xFEEFEE
                        || p.EndLine >= 0xFEEFEE || p.EndLine < p.Line)
                        throw Malformed(IlmapStructure.PointBlocks, $"method row {r}: visible point {v} (IL 0x{p.IL:x}, line {p.Line}-{p.EndLine}, document {p.Document}) is invalid or out of order");
                    previousIl = p.IL;
                }
                if (h == block.Hidden)
                    break;
                Point q = block.HiddenPoint(h);
                if (q.IL < previousIl || q.Document >= documents)
                    throw Malformed(IlmapStructure.PointBlocks, $"method row {r}: hidden point {h} (IL 0x{q.IL:x}, document {q.Document}) is invalid or out of order");
                previousIl = q.IL;
            }
            points += (ulong)block.Visible + block.Hidden;
            hidden += block.Hidden;
        }
        if (hp != hpCount)
            throw Malformed(IlmapStructure.HiddenPoints, $"hidden_points[{hp}] names row {HiddenRow(hp)}, which has no such hidden record");
        if (points != Scalar64(_root, 5) || hidden != Scalar64(_root, 6))
            throw Malformed(IlmapStructure.PointBlocks, $"point_count {Scalar64(_root, 5)} and hidden_count {Scalar64(_root, 6)}, the blocks hold {points} and {hidden}");
    }

    uint HiddenRow(int i) => HiddenField(i, 0);

    uint HiddenField(int i, int offset) => BinaryPrimitives.ReadUInt32LittleEndian(_file.AsSpan(_hiddenPoints.Start + 20 * i + offset));

    // Step 7: strings and document ranges.
    void VerifyDocuments()
    {
        if (!Strings(out _, out _, out int length))
            throw new IlmapException(_stringsError!.Status, _stringsError.Structure, _stringsError.Message);
        for (int d = 0; d < _documents.Length; d++)
        {
            int r = DocumentRef(d);
            uint po = _bb.GetUint(r), pl = _bb.GetUint(r + 4), uo = _bb.GetUint(r + 8), ul = _bb.GetUint(r + 12);
            if ((ulong)po + pl > (ulong)length || (ulong)uo + ul > (ulong)length)
                throw Malformed(IlmapStructure.Documents, $"document {d}: path or URL range outside the {length} bytes of strings");
            if (_file[r + 16] > 4)
                throw Malformed(IlmapStructure.Documents, $"document {d}: unknown language code {_file[r + 16]}");
        }
    }

    // Step 11: names.
    void VerifyNames()
    {
        if (_names == 0)
            return;
        NameTables t = Names()!;
        for (int i = 0; i < t.Count; i++)
        {
            uint token = 0x06000001u + (uint)i;
            if (!NameRangesValid(t, i))
                throw Malformed(IlmapStructure.Names, $"names: method 0x{token:x8}: a text range lies outside the strings");
            int entry = t.MethodsStart + 32 * i;
            uint kickoff = BinaryPrimitives.ReadUInt32LittleEndian(t.Methods.AsSpan(entry + 24));
            uint flags = BinaryPrimitives.ReadUInt32LittleEndian(t.Methods.AsSpan(entry + 28));
            if (flags > 7)
                throw Malformed(IlmapStructure.Names, $"names: method 0x{token:x8}: unknown flags 0x{flags:x}");
            bool kickoffOk = kickoff == 0
                ? (flags & 1) == 0
                : kickoff >> 24 == 0x06 && (kickoff & 0xFFFFFF) >= 1 && (kickoff & 0xFFFFFF) <= (uint)t.Count;
            if (!kickoffOk)
                throw Malformed(IlmapStructure.Names, $"names: method 0x{token:x8}: bad kickoff 0x{kickoff:x8} (flags 0x{flags:x})");
        }
    }

    // Step 12: the line index.
    void VerifyLines()
    {
        LineTables t = Lines();
        int docs = _documents.Length;
        uint blocks = (uint)t.BlockLine.Length;
        if (t.DocBlocks.Length != docs + 1 || t.DocBlocks[0] != 0 || t.DocBlocks[^1] != blocks)
            throw Malformed(IlmapStructure.LineIndex, $"line index: doc_blocks holds {t.DocBlocks.Length} entries for {docs} documents and {blocks} blocks");
        for (int d = 0; d < docs; d++)
            if (t.DocBlocks[d + 1] < t.DocBlocks[d])
                throw Malformed(IlmapStructure.LineIndex, $"line index: doc_blocks decreases at document {d}");
        Span<LineEntry> entries = stackalloc LineEntry[32];
        uint pos = 0;
        ulong total = 0;
        for (int d = 0; d < docs; d++)
        {
            uint b = t.DocBlocks[d], e = t.DocBlocks[d + 1];
            LineEntry previous = default;
            bool havePrevious = false;
            uint previousColumn = 0;
            for (uint k = b; k < e; k++)
            {
                if (t.BlockOffset[k] != pos)
                    throw Malformed(IlmapStructure.LineIndex, $"line index: block {k} starts at {t.BlockOffset[k]}, the block before ends at {pos}");
                int end = DecodeBlock(t.DataSpan, (int)pos, t.BlockLine[k], entries, out int count);
                if (end < 0)
                    throw Malformed(IlmapStructure.LineIndex, $"line index: block {k} does not decode");
                pos = (uint)end;
                for (int i = 0; i < count; i++)
                {
                    LineEntry x = entries[i];
                    if (!_sec.Block(x.Row, out PointBlock block) || x.Ordinal >= block.Visible)
                        throw Malformed(IlmapStructure.LineIndex, $"line index: document {d} line {x.Line}: row {x.Row} ordinal {x.Ordinal} names no visible point");
                    Point p = block.VisiblePoint(x.Ordinal);
                    if (p.Document != (uint)d || p.Line != x.Line)
                        throw Malformed(IlmapStructure.LineIndex, $"line index: document {d} line {x.Line}: row {x.Row} ordinal {x.Ordinal} is of another document or line");
                    if (havePrevious)
                    {
                        int c = previous.Line != x.Line ? previous.Line.CompareTo(x.Line)
                            : previousColumn != p.Column ? previousColumn.CompareTo(p.Column)
                            : previous.Row != x.Row ? previous.Row.CompareTo(x.Row)
                            : previous.Ordinal.CompareTo(x.Ordinal);
                        if (c >= 0)
                            throw Malformed(IlmapStructure.LineIndex, $"line index: document {d}: entries out of order at line {x.Line}");
                    }
                    previous = x;
                    previousColumn = p.Column;
                    havePrevious = true;
                    total++;
                }
            }
        }
        if (pos != (uint)t.DataLength)
            throw Malformed(IlmapStructure.LineIndex, $"line index: {t.DataLength - pos} bytes of data after the last block");
        ulong entryCount = Scalar64(_lines, 3);
        ulong visible = Scalar64(_root, 5) - Scalar64(_root, 6);
        if (total != entryCount || entryCount != visible)
            throw Malformed(IlmapStructure.LineIndex, $"line index: {total} entries, entry_count {entryCount}, {visible} visible points");
    }
}
