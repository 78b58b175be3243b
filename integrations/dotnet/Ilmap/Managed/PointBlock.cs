// PointBlock: the method directory (SPEC.md section 4) and one method's point block (section 5):
// where row r's block lies, its profile and header (5.1), its IL column and bit-packed records
// (5.2). Everything is bounded as lookup steps 3-5 say, so any row of a cache that opened
// decodes memory-safely. A plain struct over the cache's bytes: decoding allocates nothing.
using System;
using System.Buffers.Binary;

namespace Ilmap.Managed;

/// <summary>Where the directory and block vectors lie in the file (absolute positions).</summary>
internal readonly struct BlockSections
{
    public required byte[] File { get; init; }
    public required uint MethodRows { get; init; }
    public required Vec Groups { get; init; }       // MethodGroup, 8 bytes
    public required Vec Ends { get; init; }         // u16
    public required Vec EndsHigh { get; init; }     // u16
    public required Vec Blocks { get; init; }       // point_blocks, ubyte
    public required Vec Profiles { get; init; }     // u64
    public required Vec ProfileIndex { get; init; } // ubyte
    public required uint DocumentCount { get; init; }

    /// <summary>
    /// Row r's block [b, e) relative to point_blocks (section 4, lookup step 4). False when an
    /// index of block_ends_high lies outside it or e passes len(point_blocks) - 16; b may be ≥ e.
    /// </summary>
    public bool Range(uint row, out long b, out long e)
    {
        b = e = 0;
        uint i = row - 1;
        uint g = i >> 6, k = i & 63;
        ReadOnlySpan<byte> f = File;
        long basePos = BinaryPrimitives.ReadUInt32LittleEndian(f[(Groups.Start + 8 * (int)g)..]);
        uint high = BinaryPrimitives.ReadUInt32LittleEndian(f[(Groups.Start + 8 * (int)g + 4)..]);
        bool wide = high != 0xFFFFFFFFu;
        if (!Rel(i, wide, (long)high + k, out long rel))
            return false;
        e = basePos + rel;
        if (k == 0)
            b = basePos;
        else if (!Rel(i - 1, wide, (long)high + k - 1, out long before))
            return false;
        else
            b = basePos + before;
        return e <= Blocks.Length - 16;
    }

    bool Rel(uint i, bool wide, long highIndex, out long rel)
    {
        ReadOnlySpan<byte> f = File;
        rel = BinaryPrimitives.ReadUInt16LittleEndian(f[(Ends.Start + 2 * (int)i)..]);
        if (!wide)
            return true;
        if (highIndex >= EndsHigh.Length)
            return false;
        rel += (long)BinaryPrimitives.ReadUInt16LittleEndian(f[(EndsHigh.Start + 2 * (int)highIndex)..]) << 16;
        return true;
    }

    /// <summary>Row r's block decoded as far as lookup step 5 (without its V = 0 rule).</summary>
    public bool Block(uint row, out PointBlock block)
    {
        block = default;
        if (row == 0 || row > MethodRows || !Range(row, out long b, out long e) || b >= e)
            return false;
        return PointBlock.Decode(this, row, b, e, out block);
    }
}

/// <summary>A (start, element count) of a vector in the file; Start is the first element.</summary>
internal readonly record struct Vec(int Start, int Length)
{
    public static readonly Vec Empty = new(0, 0);
}

/// <summary>A point as section 5.2 gives it.</summary>
internal struct Point
{
    public uint IL, Line, Column, EndLine, EndColumn, Document;
    public bool Hidden;
}

internal struct PointBlock
{
    public byte[] File;
    public int Start;       // absolute position of the block's first byte
    public int End;         // absolute end of the block
    public int HeaderEnd;   // absolute position of the IL column
    public ulong Profile;
    public uint Visible, Hidden, BaseLine, BaseDoc;
    public int WIl, WCol, WEcol, WLine, WDline, WDoc, S, R;

    public static bool Decode(in BlockSections sec, uint row, long b, long e, out PointBlock block)
    {
        block = default;
        ReadOnlySpan<byte> f = sec.File;
        long pos = sec.Blocks.Start + b, end = sec.Blocks.Start + e;
        byte index = f[sec.ProfileIndex.Start + (int)(row - 1)];
        ulong profile;
        if (index > sec.Profiles.Length)
            return false;
        if (index >= 1)
        {
            profile = BinaryPrimitives.ReadUInt64LittleEndian(f[(sec.Profiles.Start + 8 * (index - 1))..]);
        }
        else
        {
            if (end - pos < 5)
                return false;
            profile = BinaryPrimitives.ReadUInt32LittleEndian(f[(int)pos..]) | ((ulong)f[(int)pos + 4] << 32);
            pos += 5;
        }
        if ((profile & 0xC0000000UL) != 0)
            return false;
        block.File = sec.File;
        block.Start = (int)(sec.Blocks.Start + b);
        block.End = (int)end;
        block.Profile = profile;
        block.WIl = (int)(profile & 31);
        block.WCol = (int)((profile >> 5) & 31);
        block.WEcol = (int)((profile >> 10) & 31);
        block.WLine = (int)((profile >> 15) & 31);
        block.WDline = (int)((profile >> 20) & 31);
        block.WDoc = (int)((profile >> 25) & 31);
        block.S = (block.WIl + 7) / 8;
        block.R = block.WLine + block.WCol + block.WDline + block.WEcol + block.WDoc;
        // Header values: visible, hidden, base_line, base_doc; their lengths from bits 32-39.
        Span<uint> values = stackalloc uint[4];
        for (int v = 0; v < 4; v++)
        {
            int code = (int)((profile >> (32 + 2 * v)) & 3);
            int length = code == 3 ? 4 : code;
            if (end - pos < length)
                return false;
            uint x = 0;
            for (int j = 0; j < length; j++)
                x |= (uint)f[(int)pos + j] << (8 * j);
            values[v] = x;
            pos += length;
        }
        block.Visible = values[0];
        block.Hidden = values[1];
        block.BaseLine = values[2];
        block.BaseDoc = values[3];
        block.HeaderEnd = (int)pos;
        ulong bits = (ulong)block.Visible * (ulong)block.R + (ulong)block.Hidden * (ulong)(block.WIl + block.WDoc);
        ulong size = (ulong)block.Visible * (ulong)block.S + (bits + 7) / 8;
        // At most 8 records per byte of the block (SPEC.md 5.1).
        return size <= (ulong)(end - pos) && (ulong)block.Visible + block.Hidden <= 8 * (ulong)(end - block.Start);
    }

    /// <summary>Bytes of the block the records take after the header (the exact size of verify step 5).</summary>
    public readonly ulong RecordBytes =>
        (ulong)Visible * (ulong)S + ((ulong)Visible * (ulong)R + (ulong)Hidden * (ulong)(WIl + WDoc) + 7) / 8;

    /// <summary>IL column entry k (k &lt; V).</summary>
    public readonly uint Il(uint k)
    {
        int p = HeaderEnd + (int)k * S;
        ReadOnlySpan<byte> f = File;
        return S switch
        {
            0 => 0,
            1 => f[p],
            2 => BinaryPrimitives.ReadUInt16LittleEndian(f[p..]),
            3 => (uint)(f[p] | f[p + 1] << 8 | f[p + 2] << 16),
            _ => BinaryPrimitives.ReadUInt32LittleEndian(f[p..]),
        };
    }

    /// <summary>The number of visible records whose IL offset is ≤ x (binary search of the IL column).</summary>
    public readonly uint CountAtOrBefore(uint x)
    {
        uint lo = 0, hi = Visible;
        while (lo < hi)
        {
            uint mid = lo + (hi - lo) / 2;
            if (Il(mid) <= x)
                lo = mid + 1;
            else
                hi = mid;
        }
        return lo;
    }

    // A field of `width` bits (≤ 31) at bit `bit` of the bit string. The block lies at least 16
    // bytes before the end of point_blocks (its tail padding), so an 8-byte load is in bounds.
    readonly uint Bits(long bit, int width)
    {
        if (width == 0)
            return 0;
        int p = HeaderEnd + (int)Visible * S + (int)(bit >> 3);
        ulong word = BinaryPrimitives.ReadUInt64LittleEndian(File.AsSpan(p));
        return (uint)((word >> (int)(bit & 7)) & ((1UL << width) - 1));
    }

    /// <summary>Visible record k (k &lt; V).</summary>
    public readonly Point VisiblePoint(uint k)
    {
        long bit = (long)k * R;
        uint line = Bits(bit, WLine);
        bit += WLine;
        uint col = Bits(bit, WCol);
        bit += WCol;
        uint dline = Bits(bit, WDline);
        bit += WDline;
        uint ecol = Bits(bit, WEcol);
        bit += WEcol;
        uint doc = Bits(bit, WDoc);
        uint start = unchecked(BaseLine + line);
        return new Point
        {
            IL = Il(k), Line = start, Column = col, EndLine = unchecked(start + dline), EndColumn = ecol,
            Document = unchecked(BaseDoc + doc),
        };
    }

    /// <summary>Hidden record k (k &lt; H).</summary>
    public readonly Point HiddenPoint(uint k)
    {
        long bit = (long)Visible * R + (long)k * (WIl + WDoc);
        uint il = Bits(bit, WIl);
        uint doc = Bits(bit + WIl, WDoc);
        return new Point { IL = il, Line = 0xFEEFEE, EndLine = 0xFEEFEE, Document = unchecked(BaseDoc + doc), Hidden = true };
    }
}
