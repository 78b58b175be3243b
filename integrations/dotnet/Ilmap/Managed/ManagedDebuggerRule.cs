// ManagedDebuggerRule: SPEC.md 6.2 steps 6-8, the breakpoint binding rule "debugger"
// (netcoredbg's): method ranges, their nesting levels, and the walk that picks a line's methods.
using System;
using System.Buffers.Binary;
using System.Collections.Generic;

namespace Ilmap.Managed;

internal sealed partial class ManagedCache
{
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
