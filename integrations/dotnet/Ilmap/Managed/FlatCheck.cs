// FlatCheck: the FlatBuffers structure checks of SPEC.md section 7, open step 11 (and the same
// checks on the nested Details buffer): FlatBuffers 2.x's Verifier rules, written out over a
// Google.FlatBuffers ByteBuffer. Positions are absolute in the buffer; "in bounds" means inside
// [start, end), alignment is relative to start. The schema walks (which field is what) are in
// SchemaCheck.cs.
using Google.FlatBuffers;

namespace Ilmap.Managed;

internal sealed class FlatCheck
{
    const long MaxBufferSize = 0x7FFFFFFF; // FLATBUFFERS_MAX_BUFFER_SIZE
    const int MaxDepth = 16;
    const int MaxTables = 1 << 24;

    readonly ByteBuffer _bb;
    readonly long _start;
    readonly long _end;
    int _depth;
    int _tables;

    public FlatCheck(ByteBuffer bb, int start, int end)
    {
        _bb = bb;
        _start = start;
        _end = end;
    }

    /// <summary>What failed, with its position relative to the buffer's start.</summary>
    public string Error { get; private set; } = "";

    public ByteBuffer Buffer => _bb;

    bool Fail(string what, long pos)
    {
        if (Error.Length == 0)
            Error = $"{what} at offset 0x{pos - _start:x}";
        return false;
    }

    // Verifier::Verify(elem, size): size < buffer size and elem + size <= buffer size.
    bool InBounds(long pos, long size) => pos >= _start && size < _end - _start && pos - _start <= _end - _start - size;

    bool Aligned(long pos, int align) => ((pos - _start) & (align - 1)) == 0;

    bool Scalar(long pos, int size) => Aligned(pos, size) && InBounds(pos, size);

    /// <summary>The root offset (and the file identifier when given); sets the root table's position.</summary>
    public bool Root(string? identifier, out int table)
    {
        table = 0;
        long size = _end - _start;
        if (identifier != null)
        {
            if (size < 8)
                return Fail("buffer too small for a root offset and identifier", _start);
            for (int i = 0; i < 4; i++)
                if (_bb.Get((int)_start + 4 + i) != (byte)identifier[i])
                    return Fail("file identifier is not " + identifier, _start + 4);
        }
        if (!Offset(_start, out long target))
            return Fail("bad root offset", _start);
        table = (int)target;
        return true;
    }

    // Verifier::VerifyOffset: aligned, in bounds, non-zero, below 2^31, target inside.
    bool Offset(long pos, out long target)
    {
        target = 0;
        if (!Scalar(pos, 4))
            return false;
        uint o = _bb.GetUint((int)pos);
        if (o == 0 || o >= 0x80000000u)
            return false;
        target = pos + o;
        return InBounds(target, 1);
    }

    /// <summary>Starts a table: its position, vtable and complexity. EndTable must follow.</summary>
    public bool Table(long pos, out int vtable)
    {
        vtable = 0;
        if (!Scalar(pos, 4))
            return Fail("table out of bounds or misaligned", pos);
        long vt = pos - _bb.GetInt((int)pos);
        if (++_depth > MaxDepth || ++_tables > MaxTables)
            return Fail("tables nested too deep or too many tables", pos);
        if (!Scalar(vt, 2))
            return Fail("vtable out of bounds or misaligned", pos);
        ushort vtsize = _bb.GetUshort((int)vt);
        if ((vtsize & 1) != 0 || !InBounds(vt, vtsize))
            return Fail("vtable size odd or vtable out of bounds", pos);
        vtable = (int)vt;
        return true;
    }

    public void EndTable() => _depth--;

    /// <summary>The offset of field <paramref name="id"/> from its table, 0 when absent.</summary>
    public static int FieldOffset(ByteBuffer bb, int vtable, int id)
    {
        int slot = 4 + 2 * id;
        return slot < bb.GetUshort(vtable) ? bb.GetUshort(vtable + slot) : 0;
    }

    public bool ScalarField(int table, int vtable, int id, int size, string name)
    {
        int off = FieldOffset(_bb, vtable, id);
        return off == 0 || Scalar((long)table + off, size) || Fail($"field {name} out of bounds or misaligned", table);
    }

    public bool StructField(int table, int vtable, int id, int size, string name)
    {
        int off = FieldOffset(_bb, vtable, id);
        return off == 0 || InBounds((long)table + off, size) || Fail($"field {name} out of bounds", table);
    }

    /// <summary>An offset field; <paramref name="target"/> is -1 when the field is absent.</summary>
    public bool OffsetField(int table, int vtable, int id, string name, out long target)
    {
        target = -1;
        int off = FieldOffset(_bb, vtable, id);
        if (off == 0)
            return true;
        return Offset((long)table + off, out target) || Fail($"field {name}: bad offset", (long)table + off);
    }

    bool VectorAt(long vec, int elementSize, string name, out uint length)
    {
        length = 0;
        if (!Scalar(vec, 4))
            return Fail($"vector {name}: length out of bounds or misaligned", vec);
        length = _bb.GetUint((int)vec);
        if (length >= MaxBufferSize / elementSize || !InBounds(vec, 4 + (long)length * elementSize))
            return Fail($"vector {name}: {length} elements of {elementSize} bytes out of bounds", vec);
        return true;
    }

    bool StringAt(long s, string name)
    {
        if (!VectorAt(s, 1, name, out uint length))
            return false;
        long end = s + 4 + length;
        return (InBounds(end, 1) && _bb.Get((int)end) == 0) || Fail($"string {name}: no terminating 0", s);
    }

    public bool VectorField(int table, int vtable, int id, int elementSize, string name)
    {
        if (!OffsetField(table, vtable, id, name, out long vec))
            return false;
        return vec < 0 || VectorAt(vec, elementSize, name, out _);
    }

    public bool StringField(int table, int vtable, int id, string name)
    {
        if (!OffsetField(table, vtable, id, name, out long s))
            return false;
        return s < 0 || StringAt(s, name);
    }

    public bool TableField(int table, int vtable, int id, string name, System.Func<int, bool> verify)
    {
        if (!OffsetField(table, vtable, id, name, out long t))
            return false;
        return t < 0 || verify((int)t);
    }

    /// <summary>A vector of tables: each element (its own position + its u32) verified as a table.</summary>
    public bool TableVectorField(int table, int vtable, int id, string name, System.Func<int, bool> verify) =>
        OffsetVectorField(table, vtable, id, name, "table", t => verify((int)t));

    public bool StringVectorField(int table, int vtable, int id, string name) =>
        OffsetVectorField(table, vtable, id, name, "string", s => StringAt(s, name));

    /// <summary>A vector of offsets: each element (its own position + its u32) inside the buffer and
    /// accepted by <paramref name="valid"/>.</summary>
    bool OffsetVectorField(int table, int vtable, int id, string name, string what, System.Func<long, bool> valid)
    {
        if (!OffsetField(table, vtable, id, name, out long vec))
            return false;
        if (vec < 0)
            return true;
        if (!VectorAt(vec, 4, name, out uint length))
            return false;
        for (uint i = 0; i < length; i++)
        {
            long element = vec + 4 + 4L * i;
            long target = element + _bb.GetUint((int)element);
            if (target >= _end || !valid(target))
                return Fail($"vector {name}: element {i} is not a valid {what}", element);
        }
        return true;
    }
}
