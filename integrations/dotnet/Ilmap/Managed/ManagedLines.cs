// ManagedLines: source line -> IL (SPEC.md 6.2 breakpoint binding, 6.3 document matching) over
// the reverse line index (3.7): the plain vectors, or the packed form rebuilt on first use.
using System;
using System.Buffers.Binary;
using System.Collections.Generic;

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
            throw new IlmapException(_linesError!.Status, _linesError.Structure, _linesError.Message);
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
        byte[] content = Packed.Unpack(_file.AsSpan(z.Start, z.Length), _file.Length, "lines.index_zstd", IlmapStructure.LineIndex);
        return Rebuild(content, _documents.Length);
    }

    static IlmapException Bad(string what) => new(IlmapStatus.Malformed, IlmapStructure.LineIndex, "cache: line index: " + what);

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

    static bool IsSeparator(byte b) => b == '/' || b == '\\';

    // Equal when '/' and '\' count as the same byte.
    static bool SameSeparated(ReadOnlySpan<byte> a, ReadOnlySpan<byte> b)
    {
        if (a.Length != b.Length)
            return false;
        for (int i = 0; i < a.Length; i++)
        {
            byte x = a[i], y = b[i];
            if (x != y && !(IsSeparator(x) && IsSeparator(y)))
                return false;
        }
        return true;
    }

    // Starts with a separator, or with a drive letter's ':' and a separator ("C:\").
    static bool IsAbsolute(ReadOnlySpan<byte> q) => IsSeparator(q[0]) || (q.Length > 2 && q[1] == ':' && IsSeparator(q[2]));

    /// <summary>
    /// Step 3's normalisation of a relative path into <paramref name="output"/> (at least q's
    /// length): split at every separator; of the parts before the last, drop ".", let ".." remove
    /// the part kept before it (nothing at the start); join the kept parts and the last with '/'.
    /// Returns the length written, or -1 when the last part is empty (nothing matches).
    /// </summary>
    static int NormaliseRelative(ReadOnlySpan<byte> q, Span<byte> output)
    {
        int length = 0, start = 0;
        for (int i = 0; i < q.Length; i++)
        {
            if (!IsSeparator(q[i]))
                continue;
            ReadOnlySpan<byte> part = q[start..i];
            start = i + 1;
            if (part.SequenceEqual(".."u8))
            {
                // A kept part holds no separator: it runs from the '/' before it (or the start)
                // to the '/' that ends the output.
                if (length > 0)
                    length = output[..(length - 1)].LastIndexOf((byte)'/') + 1;
            }
            else if (!part.SequenceEqual("."u8))
            {
                part.CopyTo(output[length..]);
                length += part.Length;
                output[length++] = (byte)'/';
            }
        }
        ReadOnlySpan<byte> last = q[start..];
        if (last.IsEmpty)
            return -1;
        last.CopyTo(output[length..]);
        return length + last.Length;
    }

    /// <summary>Step 3: the document with the shortest path that ends with the normalised q on a separator (first on a tie), or -1.</summary>
    int MatchRelative(ReadOnlySpan<byte> q)
    {
        const int StackBytes = 512;
        Span<byte> buffer = q.Length <= StackBytes ? stackalloc byte[StackBytes] : new byte[q.Length];
        int length = NormaliseRelative(q, buffer);
        if (length < 0)
            return -1;
        ReadOnlySpan<byte> r = buffer[..length];
        int best = -1, bestLength = 0;
        for (int d = 0; d < _documents.Length; d++)
        {
            ReadOnlySpan<byte> p = DocumentPathBytes(d);
            if (p.Length < r.Length || (best >= 0 && p.Length >= bestLength))
                continue;
            if (!SameSeparated(p[(p.Length - r.Length)..], r))
                continue;
            if (p.Length == r.Length || IsSeparator(p[p.Length - r.Length - 1]))
            {
                best = d;
                bestLength = p.Length;
            }
        }
        return best;
    }

    // Fills `found` with D (6.3): the exact path; else the first document whose path is q with
    // either separator; else (q relative) the shortest path that ends with q normalised. D is then
    // every document with the path taken. Allocates only to report an unknown path.
    void MatchDocuments(ReadOnlySpan<byte> q, string text, List<int> found)
    {
        found.Clear();
        int n = _documents.Length;
        for (int d = 0; d < n; d++)
            if (DocumentPathBytes(d).SequenceEqual(q))
                found.Add(d);
        if (found.Count > 0)
            return;
        int chosen = -1;
        for (int d = 0; d < n && chosen < 0; d++)
            if (SameSeparated(DocumentPathBytes(d), q))
                chosen = d;
        if (chosen < 0 && !IsAbsolute(q))
            chosen = MatchRelative(q);
        if (chosen < 0)
            throw new IlmapException(IlmapStatus.NotFound,
                                     $"no document of the cache matches '{text}' (exact path, either separator, or a path suffix)");
        ReadOnlySpan<byte> path = DocumentPathBytes(chosen);
        for (int d = 0; d < n; d++)
            if (DocumentPathBytes(d).SequenceEqual(path))
                found.Add(d);
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

    /// <summary>
    /// Every visible point of document d (P of the debugger rule), in index order, appended to
    /// <paramref name="output"/>. An entry that names no visible record of d on its line binds
    /// nothing; a block that does not decode ends the document.
    /// </summary>
    void DocumentPoints(LineTables t, int d, List<Bound> output)
    {
        if (d + 1 >= t.DocBlocks.Length)
            return;
        uint b = t.DocBlocks[d], e = t.DocBlocks[d + 1];
        if (b >= e || e > (uint)t.BlockLine.Length)
            return;
        Span<LineEntry> entries = stackalloc LineEntry[32];
        for (uint k = b; k < e; k++)
        {
            if (t.BlockOffset[k] >= (uint)t.DataLength)
                return;
            int end = DecodeBlock(t.DataSpan, (int)t.BlockOffset[k], t.BlockLine[k], entries, out int decoded);
            for (int i = 0; i < decoded; i++)
            {
                LineEntry x = entries[i];
                if (!_sec.Block(x.Row, out PointBlock block) || x.Ordinal >= block.Visible)
                    continue;
                Point p = block.VisiblePoint(x.Ordinal);
                if (p.Document != (uint)d || p.Line != x.Line)
                    continue;
                output.Add(new Bound { Row = x.Row, Ordinal = x.Ordinal, P = p });
            }
            if (end < 0)
                return;
        }
    }

    struct Bound
    {
        public uint Row, Ordinal;
        public Point P;
    }

    static int ComparePos(uint l1, uint c1, uint l2, uint c2) => l1 != l2 ? l1.CompareTo(l2) : c1.CompareTo(c2);

    static int CompareStart(in Point a, in Point b) => ComparePos(a.Line, a.Column, b.Line, b.Column);

    static int CompareEnd(in Point a, in Point b) => ComparePos(a.EndLine, a.EndColumn, b.EndLine, b.EndColumn);

    static bool SameSpan(in Point a, in Point b) =>
        a.Line == b.Line && a.Column == b.Column && a.EndLine == b.EndLine && a.EndColumn == b.EndColumn;

    // A's span strictly contains B's.
    static bool StrictlyContains(in Point a, in Point b) =>
        CompareStart(a, b) <= 0 && CompareEnd(b, a) <= 0 && !SameSpan(a, b);

    /// <summary>A method range of the debugger rule (6.2 step 6): a span and its rows (a linked list in Scratch.Links).</summary>
    struct MethodRange
    {
        public uint StartLine, StartColumn, EndLine, EndColumn;
        public int FirstLink, LastLink; // the range's own row first, then the rows added to it
        public int Level;
    }

    struct RowLink
    {
        public uint Row;
        public int Next; // -1: the last
    }

    /// <summary>A row's points of P: Scratch.All[Start, Start + Count), in IL order.</summary>
    struct RowPoints
    {
        public uint Row;
        public int Start, Count;
        public bool Constructor;
    }

    // Per-thread scratch of a source-line query: a query allocates nothing once they grew.
    sealed class Scratch
    {
        public readonly List<int> Documents = new();
        public readonly List<(int Doc, LineEntry Entry)> Q = new();
        public readonly List<LineEntry> Entries = new();
        public readonly List<Bound> Points = new();
        public readonly List<Bound> Taken = new();
        // The debugger rule.
        public readonly List<Bound> All = new();
        public readonly List<RowPoints> Rows = new();
        public readonly List<(ulong Start, ulong End, uint Row)> Spans = new();
        public readonly List<uint> SharedRows = new();
        public readonly List<MethodRange> Ranges = new();
        public readonly List<RowLink> Links = new();
        public readonly Dictionary<ulong, int> ByEnd = new();
        public readonly List<int> Open = new();
        public readonly List<int> LevelStart = new(); // level k's ranges: Ranges[LevelStart[k], LevelStart[k + 1])
        // What All, Rows, Ranges, Links and LevelStart were prepared for (steps 2, 6 and 7 depend
        // only on the cache, whose bytes never change, and D): the next query on the same cache
        // and documents reuses them.
        public readonly WeakReference<ManagedCache?> PreparedCache = new(null);
        public readonly List<int> PreparedDocuments = new();
    }

    [ThreadStatic]
    static Scratch? t_scratch;

    // Orders for Span.Sort, as static delegates: a sort allocates nothing (a comparer object would
    // make the sort allocate a delegate of its own).

    // Row, then IL offset: the output order of the rules "all methods" and column.
    static readonly Comparison<Bound> ByRowIl = (a, b) => a.Row != b.Row ? a.Row.CompareTo(b.Row) : a.P.IL.CompareTo(b.P.IL);

    // Row, then IL offset, then visible ordinal: the debugger rule's output order.
    static readonly Comparison<Bound> ByRowIlOrdinal = (a, b) =>
        a.Row != b.Row ? a.Row.CompareTo(b.Row) : a.P.IL != b.P.IL ? a.P.IL.CompareTo(b.P.IL) : a.Ordinal.CompareTo(b.Ordinal);

    // Row, then visible ordinal (IL order within the row).
    static readonly Comparison<Bound> ByRowOrdinal = (a, b) => a.Row != b.Row ? a.Row.CompareTo(b.Row) : a.Ordinal.CompareTo(b.Ordinal);

    static readonly Comparison<(ulong Start, ulong End, uint Row)> BySpanRow = (a, b) =>
        a.Start != b.Start ? a.Start.CompareTo(b.Start) : a.End != b.End ? a.End.CompareTo(b.End) : a.Row.CompareTo(b.Row);

    // Start ascending, then end descending (step 7's order; ends are distinct).
    static readonly Comparison<MethodRange> ByNesting = (a, b) =>
    {
        int c = ComparePos(a.StartLine, a.StartColumn, b.StartLine, b.StartColumn);
        return c != 0 ? c : ComparePos(b.EndLine, b.EndColumn, a.EndLine, a.EndColumn);
    };

    // Level, then end: each level's ranges by end.
    static readonly Comparison<MethodRange> ByLevelEnd = (a, b) =>
        a.Level != b.Level ? a.Level.CompareTo(b.Level) : ComparePos(a.EndLine, a.EndColumn, b.EndLine, b.EndColumn);

    static Span<T> AsSpan<T>(List<T> list) => System.Runtime.InteropServices.CollectionsMarshal.AsSpan(list);

    public override int Lines(ReadOnlySpan<byte> document, string documentText, uint line, uint column, LineRule rule,
                              Span<LineBinding> destination)
    {
        Alive();
        if (document.IsEmpty)
            throw new IlmapException(IlmapStatus.Usage, "lines: empty document path");
        if (rule != LineRule.Debugger && rule != LineRule.AllMethods)
            throw new IlmapException(IlmapStatus.Usage, "lines: unknown rule");
        Scratch z = t_scratch ??= new Scratch();
        MatchDocuments(document, documentText, z.Documents); // as the native reader: NotFound before the index's errors
        LineTables t = Lines();
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
        z.Points.Clear();
        foreach ((int d, LineEntry x) in z.Q)
        {
            if (!_sec.Block(x.Row, out PointBlock block) || x.Ordinal >= block.Visible)
                continue;
            Point p = block.VisiblePoint(x.Ordinal);
            if (p.Document != (uint)d || p.Line != best)
                continue;
            z.Points.Add(new Bound { Row = x.Row, Ordinal = x.Ordinal, P = p });
        }
        z.Taken.Clear();
        if (any && column >= 1 && best == line)
            ByColumn(z.Points, line, column, z.Taken);
        if (z.Taken.Count == 0 && rule == LineRule.Debugger)
        {
            LikeDebugger(t, z, line);
        }
        else
        {
            if (z.Taken.Count == 0)
                ByLine(z.Points, z.Taken);
            AsSpan(z.Taken).Sort(ByRowIl);
        }
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

    // Step 5 (rule "all methods"): per method its point with the smallest start column (then IL);
    // then drop every taken point whose span another taken one strictly contains.
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

    // --- 6.2 steps 6-8: the rule "debugger" (netcoredbg's) ---

    /// <summary>
    /// Step 6's constructor test by name: the row's CoreCLR text (3.6.1), up to its '(' , ends with
    /// "..ctor" or "..cctor". False when the row has no name (or its texts' ranges are bad).
    /// </summary>
    static bool IsConstructorName(NameTables? t, uint row)
    {
        if (t == null || row == 0 || row > (uint)t.Count)
            return false;
        int i = (int)row - 1;
        if (!NameRangesValid(t, i, 2)) // as MethodName: both texts must lie inside the strings
            return false;
        int entry = t.MethodsStart + 32 * i;
        uint offset = BinaryPrimitives.ReadUInt32LittleEndian(t.Methods.AsSpan(entry));
        uint length = BinaryPrimitives.ReadUInt32LittleEndian(t.Methods.AsSpan(entry + 4));
        ReadOnlySpan<byte> text = t.Strings.AsSpan(t.StringsStart + (int)offset, (int)length);
        int paren = text.IndexOf((byte)'(');
        if (paren >= 0)
            text = text[..paren];
        return text.EndsWith("..ctor"u8) || text.EndsWith("..cctor"u8);
    }

    /// <summary>
    /// Step 6's constructor test without names: the rows (ascending, distinct, into
    /// <paramref name="rows"/>) with a point whose span equals a point of another row.
    /// </summary>
    static void RowsSharingASpan(List<Bound> all, List<(ulong Start, ulong End, uint Row)> spans, List<uint> rows)
    {
        spans.Clear();
        rows.Clear();
        foreach (Bound b in all)
            spans.Add((((ulong)b.P.Line << 32) | b.P.Column, ((ulong)b.P.EndLine << 32) | b.P.EndColumn, b.Row));
        AsSpan(spans).Sort(BySpanRow);
        for (int i = 0; i < spans.Count;)
        {
            int j = i + 1;
            while (j < spans.Count && spans[j].Start == spans[i].Start && spans[j].End == spans[i].End)
                j++;
            if (spans[i].Row != spans[j - 1].Row) // sorted by row within the span: two rows at least
                for (int k = i; k < j; k++)
                    rows.Add(spans[k].Row);
            i = j;
        }
        AsSpan(rows).Sort();
        int w = 0;
        for (int i = 0; i < rows.Count; i++)
            if (w == 0 || rows[w - 1] != rows[i])
                rows[w++] = rows[i];
        rows.RemoveRange(w, rows.Count - w);
    }

    // Step 6: a range for (start, end, row); one that ends where an earlier one ends is not kept,
    // and gives its row to the earlier one when their starts are equal too.
    static void AddRange(Scratch z, uint startLine, uint startColumn, uint endLine, uint endColumn, uint row)
    {
        ulong key = ((ulong)endLine << 32) | endColumn;
        if (!z.ByEnd.TryGetValue(key, out int index))
        {
            z.ByEnd.Add(key, z.Ranges.Count);
            z.Links.Add(new RowLink { Row = row, Next = -1 });
            z.Ranges.Add(new MethodRange
            {
                StartLine = startLine, StartColumn = startColumn, EndLine = endLine, EndColumn = endColumn,
                FirstLink = z.Links.Count - 1, LastLink = z.Links.Count - 1,
            });
            return;
        }
        ref MethodRange r = ref AsSpan(z.Ranges)[index];
        if (r.StartLine != startLine || r.StartColumn != startColumn)
            return;
        for (int k = r.FirstLink; k >= 0; k = z.Links[k].Next)
            if (z.Links[k].Row == row)
                return;
        z.Links.Add(new RowLink { Row = row, Next = -1 });
        AsSpan(z.Links)[r.LastLink].Next = z.Links.Count - 1;
        r.LastLink = z.Links.Count - 1;
    }

    /// <summary>The index in Scratch.Rows of a row's points, or -1.</summary>
    static int FindRow(List<RowPoints> rows, uint row)
    {
        int lo = 0, hi = rows.Count;
        while (lo < hi)
        {
            int mid = lo + (hi - lo) / 2;
            if (rows[mid].Row < row)
                lo = mid + 1;
            else
                hi = mid;
        }
        return lo < rows.Count && rows[lo].Row == row ? lo : -1;
    }

    /// <summary>
    /// Step 8: of a row's points whose end line is ≥ λ, the one with the smallest end (or, last,
    /// the largest), the first in IL order among equal ends; -1 when none. An index into Scratch.All.
    /// </summary>
    static int PointForLine(Scratch z, uint row, uint lambda, bool last)
    {
        int r = FindRow(z.Rows, row);
        if (r < 0)
            return -1;
        RowPoints rp = z.Rows[r];
        int best = -1;
        for (int i = rp.Start; i < rp.Start + rp.Count; i++)
        {
            Point p = z.All[i].P;
            if (p.EndLine < lambda)
                continue;
            if (best < 0 || (last ? CompareEnd(z.All[best].P, p) < 0 : CompareEnd(p, z.All[best].P) < 0))
                best = i;
        }
        return best;
    }

    /// <summary>SPEC.md 6.2 steps 6-8 over P (every visible point of D) into Scratch.Taken, ordered and distinct (step 9).</summary>
    void LikeDebugger(LineTables t, Scratch z, uint line)
    {
        z.Taken.Clear();
        if (!z.PreparedCache.TryGetTarget(out ManagedCache? prepared) || prepared != this
            || !AsSpan(z.PreparedDocuments).SequenceEqual(AsSpan(z.Documents)))
        {
            z.PreparedCache.SetTarget(null);
            PrepareRanges(t, z);
            z.PreparedDocuments.Clear();
            z.PreparedDocuments.AddRange(z.Documents);
            z.PreparedCache.SetTarget(this);
        }
        if (z.Ranges.Count > 0)
            Walk(z, line);
    }

    /// <summary>Steps 2, 6 and 7 for D (Scratch.Documents): P by row in IL order, the ranges and their levels.</summary>
    void PrepareRanges(LineTables t, Scratch z)
    {
        z.All.Clear();
        z.Rows.Clear();
        z.Ranges.Clear();
        z.Links.Clear();
        z.LevelStart.Clear();
        foreach (int d in z.Documents)
            DocumentPoints(t, d, z.All);
        if (z.All.Count == 0)
            return;
        // Constructors: by name when the cache has names, else rows sharing a point's span.
        NameTables? names = null;
        bool byName = _names != 0;
        if (byName)
        {
            try
            {
                names = Names();
            }
            catch (IlmapException)
            {
                names = null; // methods or strings do not unpack: no row has a name
            }
        }
        else
        {
            RowsSharingASpan(z.All, z.Spans, z.SharedRows);
        }
        // Each row's points in IL order (their visible records' order).
        AsSpan(z.All).Sort(ByRowOrdinal);
        for (int i = 0; i < z.All.Count;)
        {
            uint row = z.All[i].Row;
            int j = i + 1;
            while (j < z.All.Count && z.All[j].Row == row)
                j++;
            bool ctor = byName ? IsConstructorName(names, row) : AsSpan(z.SharedRows).BinarySearch(row) >= 0;
            z.Rows.Add(new RowPoints { Row = row, Start = i, Count = j - i, Constructor = ctor });
            i = j;
        }

        // Step 6: ranges, constructors' points first, then one hull per other row, rows ascending.
        z.ByEnd.Clear();
        foreach (RowPoints rp in z.Rows)
        {
            if (!rp.Constructor)
                continue;
            for (int i = rp.Start; i < rp.Start + rp.Count; i++)
            {
                Point p = z.All[i].P;
                AddRange(z, p.Line, p.Column, p.EndLine, p.EndColumn, rp.Row);
            }
        }
        foreach (RowPoints rp in z.Rows)
        {
            if (rp.Constructor)
                continue;
            Point s = z.All[rp.Start].P, e = s;
            for (int i = rp.Start + 1; i < rp.Start + rp.Count; i++)
            {
                Point p = z.All[i].P;
                if (CompareStart(p, s) < 0)
                    s = p;
                if (CompareEnd(e, p) < 0)
                    e = p;
            }
            AddRange(z, s.Line, s.Column, e.EndLine, e.EndColumn, rp.Row);
        }

        // Step 7: levels (the depth in the chain of enclosing ranges), each level by end.
        Span<MethodRange> ranges = AsSpan(z.Ranges);
        ranges.Sort(ByNesting);
        z.Open.Clear();
        int depth = 0;
        for (int i = 0; i < ranges.Length; i++)
        {
            while (z.Open.Count > 0 && !NestedInto(ranges[i], ranges[z.Open[^1]]))
                z.Open.RemoveAt(z.Open.Count - 1);
            ranges[i].Level = z.Open.Count;
            depth = Math.Max(depth, z.Open.Count + 1);
            z.Open.Add(i);
        }
        ranges.Sort(ByLevelEnd);
        for (int i = 0, k = 0; k <= depth; k++)
        {
            while (i < ranges.Length && ranges[i].Level < k)
                i++;
            z.LevelStart.Add(i);
        }
    }

    /// <summary>Step 8 for <paramref name="line"/> over the prepared ranges, into Scratch.Taken; then step 9.</summary>
    static void Walk(Scratch z, uint line)
    {
        Span<MethodRange> ranges = AsSpan(z.Ranges);
        int depth = z.LevelStart.Count - 1;
        uint lambda = line;
        int result = -1, nested = -1;
        for (int k = 0; k < depth; k++)
        {
            int lo = z.LevelStart[k], hi = z.LevelStart[k + 1];
            while (lo < hi)
            {
                int mid = lo + (hi - lo) / 2;
                if (ranges[mid].EndLine < lambda)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            if (lo == z.LevelStart[k + 1])
                break;
            ref readonly MethodRange r = ref ranges[lo];
            if (lambda == r.StartLine)
            {
                if (result < 0)
                    result = lo;
                else
                    nested = lo;
                break;
            }
            if (lambda > r.StartLine)
            {
                result = lo;
                continue;
            }
            if (k == 0)
            {
                lambda = r.StartLine; // a line outside every method: the first method below
                result = lo;
                break;
            }
            if (result >= 0 && r.EndLine <= ranges[result].EndLine)
                nested = lo;
            break;
        }
        if (result < 0)
            return;

        // The point of each row of R: its rows after the first, then the first. A nested range
        // that starts on the line wins when its first point ends before the row's point, and
        // yields when it lies inside it.
        uint nestedRow = nested >= 0 ? z.Links[ranges[nested].FirstLink].Row : 0;
        int firstLink = ranges[result].FirstLink;
        for (int k = z.Links[firstLink].Next; ;)
        {
            bool own = k < 0; // after the others, the range's own row
            uint row = own ? z.Links[firstLink].Row : z.Links[k].Row;
            int cur = PointForLine(z, row, lambda, last: false);
            if (cur >= 0)
            {
                if (nestedRow != 0)
                {
                    int first = PointForLine(z, nestedRow, lambda, last: false);
                    int last = PointForLine(z, nestedRow, lambda, last: true);
                    if (first >= 0 && last >= 0)
                    {
                        Point c = z.All[cur].P, f = z.All[first].P, l = z.All[last].P;
                        if (CompareStart(c, f) < 0 && CompareEnd(l, c) < 0)
                        {
                            z.Taken.Add(z.All[cur]);
                            break;
                        }
                        if (CompareEnd(f, c) < 0)
                        {
                            z.Taken.Add(z.All[first]);
                            break;
                        }
                    }
                }
                nestedRow = 0;
                z.Taken.Add(z.All[cur]);
            }
            if (own)
                break;
            k = z.Links[k].Next;
        }

        // Step 9: by row, then IL offset, without repeats.
        AsSpan(z.Taken).Sort(ByRowIlOrdinal);
        int w = 0;
        for (int i = 0; i < z.Taken.Count; i++)
            if (w == 0 || z.Taken[w - 1].Row != z.Taken[i].Row || z.Taken[w - 1].Ordinal != z.Taken[i].Ordinal)
                z.Taken[w++] = z.Taken[i];
        z.Taken.RemoveRange(w, z.Taken.Count - w);
    }

    // Range a lies strictly inside b: starts after b's start and ends before b's end.
    static bool NestedInto(in MethodRange a, in MethodRange b) =>
        ComparePos(b.StartLine, b.StartColumn, a.StartLine, a.StartColumn) < 0
        && ComparePos(a.EndLine, a.EndColumn, b.EndLine, b.EndColumn) < 0;
}
