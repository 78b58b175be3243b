// ManagedLines: source line -> IL (SPEC.md 6.2 breakpoint binding): the query, steps 3-5 (the
// line's points, by column or by line) and the per-thread scratch. The line index and document
// matching (3.7, 6.3) are in ManagedLineIndex.cs, the rule "debugger" (steps 6-8) in
// ManagedDebuggerRule.cs.
using System;
using System.Buffers.Binary;
using System.Collections.Generic;

namespace Ilmap.Managed;

internal sealed partial class ManagedCache
{
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
}
