// ManagedDetails: the nested Details buffer (SPEC.md 3.4), checked on first use, and the
// embedded sources it holds.
using System;
using Google.FlatBuffers;

namespace Ilmap.Managed;

internal sealed partial class ManagedCache
{
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
}
