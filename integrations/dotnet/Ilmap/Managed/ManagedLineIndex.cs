// ManagedLineIndex: the reverse line index (SPEC.md 3.7), its plain vectors or the packed form
// rebuilt on first use, the decoding of its blocks, and document matching (6.3).
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
}
