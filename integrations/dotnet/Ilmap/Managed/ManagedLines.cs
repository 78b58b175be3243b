// ManagedLines: source line -> IL (SPEC.md 6.2 breakpoint binding, 6.3 document matching) over
// the reverse line index (3.7): the plain vectors, or the packed form rebuilt on first use.
using System;
using System.Buffers.Binary;
using System.Collections.Generic;
using System.Linq;
using System.Text;

namespace Ilmap.Managed;

internal sealed partial class ManagedCache
{
    /// <summary>The line index as vectors (3.7): per document its blocks, per block its first line and offset.</summary>
    internal sealed class LineTables
    {
        public required uint[] DocBlocks;
        public required uint[] BlockLine;
        public required uint[] BlockOffset;
        public required byte[] Data;
        public required int DataStart, DataLength;
        public ReadOnlySpan<byte> DataSpan => Data.AsSpan(DataStart, DataLength);
    }

    internal record struct LineEntry(uint Line, uint Row, uint Ordinal);

    LineTables? _lineTables;
    IlmapException? _linesError;

    internal LineTables Lines()
    {
        if (_lineTables == null && _linesError == null)
        {
            lock (_lock)
            {
                if (_lineTables == null && _linesError == null)
                {
                    try
                    {
                        _lineTables = LoadLines();
                    }
                    catch (IlmapException ex)
                    {
                        _linesError = ex;
                    }
                }
            }
        }
        if (_lineTables == null)
            throw new IlmapException(_linesError!.Status, _linesError.Message);
        return _lineTables;
    }

    uint[] U32s(Vec v)
    {
        var a = new uint[v.Length];
        for (int i = 0; i < a.Length; i++)
            a[i] = BinaryPrimitives.ReadUInt32LittleEndian(_file.AsSpan(v.Start + 4 * i));
        return a;
    }

    LineTables LoadLines()
    {
        if (!Present(_lines, 4))
        {
            Vec blocks = Vector(_lines, 1, 8), data = Vector(_lines, 2, 1);
            var line = new uint[blocks.Length];
            var offset = new uint[blocks.Length];
            for (int i = 0; i < blocks.Length; i++)
            {
                line[i] = BinaryPrimitives.ReadUInt32LittleEndian(_file.AsSpan(blocks.Start + 8 * i));
                offset[i] = BinaryPrimitives.ReadUInt32LittleEndian(_file.AsSpan(blocks.Start + 8 * i + 4));
            }
            return new LineTables
            {
                DocBlocks = U32s(Vector(_lines, 0, 4)), BlockLine = line, BlockOffset = offset, Data = _file,
                DataStart = data.Start, DataLength = data.Length,
            };
        }
        Vec z = Vector(_lines, 4, 1);
        byte[] content = Packed.Unpack(_file.AsSpan(z.Start, z.Length), _file.Length, "lines.index_zstd");
        return Rebuild(content, _documents.Length);
    }

    static IlmapException Bad(string what) => new(IlmapStatus.Malformed, "cache: line index: " + what);

    // The packed form (3.7): doc_blocks, per-document line differences, data; block offsets found by decoding.
    static LineTables Rebuild(byte[] content, int documents)
    {
        long docCount = documents + 1L;
        if (content.Length < 4 * docCount)
            throw Bad("index_zstd shorter than its doc_blocks");
        var docBlocks = new uint[docCount];
        for (int i = 0; i < docCount; i++)
            docBlocks[i] = BinaryPrimitives.ReadUInt32LittleEndian(content.AsSpan(4 * i));
        uint count = docBlocks[^1];
        if ((ulong)content.Length < 4UL * (ulong)docCount + 4UL * count)
            throw Bad("index_zstd shorter than its block lines");
        for (int i = 0; i < docCount; i++)
            if ((i > 0 && docBlocks[i] < docBlocks[i - 1]) || docBlocks[i] > count)
                throw Bad("doc_blocks decrease or exceed the number of blocks");
        var line = new uint[count];
        var offset = new uint[count];
        int deltas = 4 * (int)docCount;
        var starts = new bool[count + 1];
        foreach (uint b in docBlocks)
            starts[b] = true; // a block that starts a document holds its line itself
        for (uint j = 0; j < count; j++)
        {
            uint delta = BinaryPrimitives.ReadUInt32LittleEndian(content.AsSpan(deltas + 4 * (int)j));
            line[j] = j == 0 || starts[j] ? delta : unchecked(line[j - 1] + delta);
        }
        int dataStart = deltas + 4 * (int)count;
        ReadOnlySpan<byte> data = content.AsSpan(dataStart);
        Span<LineEntry> scratch = stackalloc LineEntry[32];
        int pos = 0;
        for (uint j = 0; j < count; j++)
        {
            offset[j] = (uint)pos;
            int end = DecodeBlock(data, pos, line[j], scratch, out _);
            if (end < 0)
                throw Bad($"block {j} does not decode");
            pos = end;
        }
        if (pos != data.Length)
            throw Bad($"{data.Length - pos} bytes after the last block");
        return new LineTables
        {
            DocBlocks = docBlocks, BlockLine = line, BlockOffset = offset, Data = content, DataStart = dataStart,
            DataLength = data.Length,
        };
    }

    static bool Leb(ReadOnlySpan<byte> data, ref int pos, out uint value)
    {
        value = 0;
        ulong v = 0;
        for (int i = 0; i < 5; i++)
        {
            if (pos >= data.Length)
                return false;
            byte b = data[pos++];
            v |= (ulong)(b & 0x7F) << (7 * i);
            if ((b & 0x80) == 0)
            {
                if (v > uint.MaxValue)
                    return false;
                value = (uint)v;
                return true;
            }
        }
        return false;
    }

    /// <summary>
    /// Decodes the block at <paramref name="pos"/> of data into <paramref name="entries"/> (32 slots).
    /// Returns its end, or -1 when it does not decode; <paramref name="decoded"/> counts the entries
    /// decoded before that.
    /// </summary>
    internal static int DecodeBlock(ReadOnlySpan<byte> data, int pos, uint firstLine, Span<LineEntry> entries, out int decoded)
    {
        decoded = 0;
        if (pos < 0 || pos >= data.Length)
            return -1;
        int count = data[pos++];
        if (count == 0 || count > 32)
            return -1;
        if (!Leb(data, ref pos, out uint row) || !Leb(data, ref pos, out uint ordinal))
            return -1;
        uint line = firstLine;
        entries[decoded++] = new LineEntry(line, row, ordinal);
        for (int i = 1; i < count; i++)
        {
            if (pos >= data.Length)
                return -1;
            byte t = data[pos++];
            ulong delta = (ulong)(t >> 2);
            if (delta == 63)
            {
                if (!Leb(data, ref pos, out uint extra) || extra > uint.MaxValue - 63)
                    return -1;
                delta += extra;
            }
            if (line + delta > uint.MaxValue)
                return -1;
            line = (uint)(line + delta);
            switch (t & 3)
            {
                case 0:
                    if (ordinal == uint.MaxValue)
                        return -1;
                    ordinal++;
                    break;
                case 1:
                    if (!Leb(data, ref pos, out ordinal))
                        return -1;
                    break;
                default:
                    if (!Leb(data, ref pos, out uint z))
                        return -1;
                    long step = (z & 1) == 0 ? z / 2 : -(((long)z + 1) / 2);
                    long next = row + step;
                    if (step == 0 || next < 0 || next > uint.MaxValue)
                        return -1;
                    row = (uint)next;
                    if ((t & 3) == 3)
                        ordinal = 0;
                    else if (!Leb(data, ref pos, out ordinal))
                        return -1;
                    break;
            }
            entries[decoded++] = new LineEntry(line, row, ordinal);
        }
        return pos;
    }

    // --- 6.3 document matching ---

    static bool SameSeparated(ReadOnlySpan<byte> a, ReadOnlySpan<byte> b)
    {
        if (a.Length != b.Length)
            return false;
        for (int i = 0; i < a.Length; i++)
        {
            byte x = a[i], y = b[i];
            if (x != y && !((x == '/' || x == '\\') && (y == '/' || y == '\\')))
                return false;
        }
        return true;
    }

    static bool IsSeparator(byte b) => b == '/' || b == '\\';

    // Fills `found` with D (6.3); allocates only to report an ambiguous or unknown path.
    void MatchDocuments(ReadOnlySpan<byte> q, string text, List<int> found)
    {
        found.Clear();
        int n = _documents.Length;
        for (int d = 0; d < n; d++)
            if (DocumentPathBytes(d).SequenceEqual(q))
                found.Add(d);
        if (found.Count > 0)
            return;
        for (int step = 2; step <= 3 && found.Count == 0; step++)
        {
            for (int d = 0; d < n; d++)
            {
                ReadOnlySpan<byte> p = DocumentPathBytes(d);
                bool match = step == 2
                    ? SameSeparated(p, q)
                    : p.Length > q.Length && SameSeparated(p[(p.Length - q.Length)..], q)
                      && (IsSeparator(p[p.Length - q.Length - 1]) || IsSeparator(q[0]));
                if (match)
                    found.Add(d);
            }
        }
        if (found.Count == 0)
            throw new IlmapException(IlmapStatus.NotFound, $"no document matches {text}");
        int one = found[0];
        foreach (int d in found)
            if (!DocumentPathBytes(d).SequenceEqual(DocumentPathBytes(one)))
                throw Ambiguous(found, text);
        found.Clear();
        for (int d = 0; d < n; d++)
            if (DocumentPathBytes(d).SequenceEqual(DocumentPathBytes(one)))
                found.Add(d);
    }

    IlmapException Ambiguous(List<int> found, string text)
    {
        var distinct = found.Select(d => DocumentPathBytes(d).ToArray()).Distinct(ByteArrayComparer.Instance).ToList();
        distinct.Sort((a, b) => a.AsSpan().SequenceCompareTo(b));
        string list = string.Join(", ", distinct.Take(10).Select(a => Encoding.UTF8.GetString(a)));
        if (distinct.Count > 10)
            list += $" and {distinct.Count - 10} more";
        return new IlmapException(IlmapStatus.NotFound, $"{text} is ambiguous: {list}");
    }

    sealed class ByteArrayComparer : IEqualityComparer<byte[]>
    {
        public static readonly ByteArrayComparer Instance = new();
        public bool Equals(byte[]? a, byte[]? b) => a.AsSpan().SequenceEqual(b);
        public int GetHashCode(byte[] a)
        {
            var h = new HashCode();
            h.AddBytes(a);
            return h.ToHashCode();
        }
    }

    // --- 6.2 breakpoint binding ---

    /// <summary>The entries of document d with the smallest line L'_d ≥ L (none: false).</summary>
    bool DocumentLine(LineTables t, int d, uint line, List<LineEntry> output, out uint found)
    {
        found = 0;
        if (d + 1 >= t.DocBlocks.Length)
            return false;
        uint b = t.DocBlocks[d], e = t.DocBlocks[d + 1];
        if (b >= e || e > (uint)t.BlockLine.Length)
            return false;
        uint lo = b, hi = e;
        while (lo < hi)
        {
            uint mid = lo + (hi - lo) / 2;
            if (t.BlockLine[mid] >= line)
                hi = mid;
            else
                lo = mid + 1;
        }
        uint j = lo;
        uint start = j > b ? j - 1 : b;
        Span<LineEntry> entries = stackalloc LineEntry[32];
        bool have = false;
        for (uint k = start; k < e; k++)
        {
            if (have && t.BlockLine[k] > found)
                break;
            if (t.BlockOffset[k] > (uint)t.DataLength)
                return have;
            int end = DecodeBlock(t.DataSpan, (int)t.BlockOffset[k], t.BlockLine[k], entries, out int decoded);
            for (int i = 0; i < decoded; i++)
            {
                LineEntry x = entries[i];
                if (x.Line < line)
                    continue;
                if (!have)
                {
                    have = true;
                    found = x.Line;
                }
                if (x.Line > found)
                    return true;
                output.Add(x);
            }
            if (end < 0)
                return have;
        }
        return have;
    }

    struct Bound
    {
        public uint Row;
        public Point P;
    }

    static int ComparePos(uint l1, uint c1, uint l2, uint c2) => l1 != l2 ? l1.CompareTo(l2) : c1.CompareTo(c2);

    // A's span strictly contains B's.
    static bool StrictlyContains(in Point a, in Point b) =>
        ComparePos(a.Line, a.Column, b.Line, b.Column) <= 0 && ComparePos(b.EndLine, b.EndColumn, a.EndLine, a.EndColumn) <= 0
        && !(a.Line == b.Line && a.Column == b.Column && a.EndLine == b.EndLine && a.EndColumn == b.EndColumn);

    // Per-thread scratch of a source-line query: a query allocates nothing once they grew.
    sealed class Scratch
    {
        public readonly List<int> Documents = new();
        public readonly List<(int Doc, LineEntry Entry)> Q = new();
        public readonly List<LineEntry> Entries = new();
        public readonly List<Bound> Points = new();
        public readonly List<Bound> Taken = new();
    }

    [ThreadStatic]
    static Scratch? t_scratch;

    sealed class BoundOrder : IComparer<Bound>
    {
        public static readonly BoundOrder Instance = new();
        public int Compare(Bound a, Bound b) => a.Row != b.Row ? a.Row.CompareTo(b.Row) : a.P.IL.CompareTo(b.P.IL);
    }

    public override int Lines(ReadOnlySpan<byte> document, string documentText, uint line, uint column, Span<LineBinding> destination)
    {
        Alive();
        if (document.IsEmpty)
            throw new IlmapException(IlmapStatus.Usage, "lines: empty document path");
        LineTables t = Lines();
        Scratch z = t_scratch ??= new Scratch();
        MatchDocuments(document, documentText, z.Documents);
        // Step 3 on the index: L' and Q.
        z.Q.Clear();
        uint best = uint.MaxValue;
        bool any = false;
        foreach (int d in z.Documents)
        {
            z.Entries.Clear();
            if (!DocumentLine(t, d, line, z.Entries, out uint l))
                continue;
            if (!any || l < best)
            {
                z.Q.Clear();
                best = l;
                any = true;
            }
            if (l == best)
                foreach (LineEntry x in z.Entries)
                    z.Q.Add((d, x));
        }
        if (!any)
            return 0;
        z.Points.Clear();
        foreach ((int d, LineEntry x) in z.Q)
        {
            if (!_sec.Block(x.Row, out PointBlock block) || x.Ordinal >= block.Visible)
                continue;
            Point p = block.VisiblePoint(x.Ordinal);
            if (p.Document != (uint)d || p.Line != best)
                continue;
            z.Points.Add(new Bound { Row = x.Row, P = p });
        }
        z.Taken.Clear();
        if (column >= 1 && best == line)
            ByColumn(z.Points, line, column, z.Taken);
        if (z.Taken.Count == 0)
            ByLine(z.Points, z.Taken);
        z.Taken.Sort(BoundOrder.Instance);
        int n = Math.Min(z.Taken.Count, destination.Length);
        for (int i = 0; i < n; i++)
        {
            Point p = z.Taken[i].P;
            destination[i] = new LineBinding(unchecked((int)(0x06000000u | z.Taken[i].Row)), (int)p.IL, DocumentPath((int)p.Document),
                                             (int)p.Line, (int)p.Column, (int)p.EndLine, (int)p.EndColumn);
        }
        return z.Taken.Count;
    }

    static bool Holds(in Point p, uint line, uint column) =>
        ComparePos(p.Line, p.Column, line, column) <= 0 && ComparePos(line, column, p.EndLine, p.EndColumn) <= 0;

    // Step 4: K = the points whose span holds (L, C); per method, of its points in K that strictly
    // contain no other of its points in K, the lowest IL; then drop every taken point that
    // strictly contains another taken one.
    static void ByColumn(List<Bound> points, uint line, uint column, List<Bound> taken)
    {
        for (int i = 0; i < points.Count; i++)
        {
            Bound a = points[i];
            if (!Holds(a.P, line, column))
                continue;
            bool seen = false; // a's method already handled by an earlier point
            for (int j = 0; j < i && !seen; j++)
                seen = points[j].Row == a.Row && Holds(points[j].P, line, column);
            if (seen)
                continue;
            bool have = false;
            Bound pick = default;
            foreach (Bound x in points)
            {
                if (x.Row != a.Row || !Holds(x.P, line, column))
                    continue;
                bool inner = true;
                foreach (Bound y in points)
                    if (y.Row == a.Row && Holds(y.P, line, column) && StrictlyContains(x.P, y.P))
                    {
                        inner = false;
                        break;
                    }
                if (inner && (!have || x.P.IL < pick.P.IL))
                {
                    pick = x;
                    have = true;
                }
            }
            if (have)
                taken.Add(pick);
        }
        DropWhere(taken, outer: true);
    }

    // Step 5: per method its point with the smallest start column (then IL); then drop every
    // taken point whose span another taken one strictly contains.
    static void ByLine(List<Bound> points, List<Bound> taken)
    {
        for (int i = 0; i < points.Count; i++)
        {
            Bound a = points[i];
            bool seen = false;
            for (int j = 0; j < i && !seen; j++)
                seen = points[j].Row == a.Row;
            if (seen)
                continue;
            Bound pick = a;
            foreach (Bound x in points)
                if (x.Row == a.Row && (x.P.Column < pick.P.Column || (x.P.Column == pick.P.Column && x.P.IL < pick.P.IL)))
                    pick = x;
            taken.Add(pick);
        }
        DropWhere(taken, outer: false);
    }

    // outer: drop each point that strictly contains another; else each strictly contained in another.
    static void DropWhere(List<Bound> taken, bool outer)
    {
        int count = taken.Count;
        Span<bool> drop = count <= 256 ? stackalloc bool[count] : new bool[count];
        for (int i = 0; i < count; i++)
            for (int j = 0; j < count && !drop[i]; j++)
                drop[i] = outer ? StrictlyContains(taken[i].P, taken[j].P) : StrictlyContains(taken[j].P, taken[i].P);
        int w = 0;
        for (int i = 0; i < count; i++)
            if (!drop[i])
                taken[w++] = taken[i];
        taken.RemoveRange(w, count - w);
    }
}
