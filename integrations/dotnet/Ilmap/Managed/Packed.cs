// Packed: one packed section (SPEC.md 3.8) unpacked: exactly one zstd frame (not a skippable
// one) that records its content size, nothing after it, the size within the cache's limit, and
// content of exactly that size. Also the bounded unpacking of an embedded source (3.4).
using System;
using ZstdSharp.Unsafe;

namespace Ilmap.Managed;

internal static unsafe class Packed
{
    const uint ZstdMagic = 0xFD2FB528;
    internal const long MaxPayloadSize = 0x7FFFFFFFL - 4096; // 2^31 - 4097

    /// <summary>Unpacks <paramref name="packed"/>; <paramref name="fileSize"/> sets the limit; failures name <paramref name="where"/>.</summary>
    public static byte[] Unpack(ReadOnlySpan<byte> packed, long fileSize, string what, IlmapStructure where)
    {
        ulong n = ulong.MaxValue;
        fixed (byte* p = packed)
        {
            if (packed.Length >= 4 && BitConverter.ToUInt32(packed[..4]) == ZstdMagic)
                n = Methods.ZSTD_getFrameContentSize(p, (nuint)packed.Length);
            if (n == ulong.MaxValue || n == ulong.MaxValue - 1) // ZSTD_CONTENTSIZE_UNKNOWN, _ERROR
                throw new IlmapException(IlmapStatus.Malformed, where, $"cache: {what}: not a zstd frame with a recorded content size");
            nuint frame = Methods.ZSTD_findFrameCompressedSize(p, (nuint)packed.Length);
            if (!Methods.ZSTD_isError(frame) && frame < (nuint)packed.Length)
                throw new IlmapException(IlmapStatus.Malformed, where, $"cache: {what}: {(nuint)packed.Length - frame} bytes after its zstd frame");
            ulong cap = Math.Max(64UL << 20, (ulong)fileSize * 64);
            if (n > cap || n > MaxPayloadSize)
                throw new IlmapException(IlmapStatus.TooLarge, where,
                    $"cache: {what}: unpacks to {n} bytes, more than the limit of {Math.Min(cap, (ulong)MaxPayloadSize)} for this cache");
            return Decompress(p, packed.Length, n) ?? throw new IlmapException(IlmapStatus.Malformed, where, $"cache: {what}: the zstd frame does not unpack");
        }
    }

    /// <summary>The content size a frame records, or null when it records none (or is no frame).</summary>
    public static ulong? ContentSize(ReadOnlySpan<byte> frame)
    {
        fixed (byte* p = frame)
        {
            ulong n = Methods.ZSTD_getFrameContentSize(p, (nuint)frame.Length);
            return n >= ulong.MaxValue - 1 ? null : n;
        }
    }

    /// <summary>Unpacks to exactly <paramref name="size"/> bytes (ZSTD_decompress), or null.</summary>
    public static byte[]? DecompressExact(ReadOnlySpan<byte> packed, ulong size)
    {
        fixed (byte* p = packed)
            return Decompress(p, packed.Length, size);
    }

    static byte[]? Decompress(byte* src, int srcLength, ulong size)
    {
        byte[] output = new byte[size];
        fixed (byte* d = output)
        {
            // A non-null destination pointer even for an empty content.
            byte one = 0;
            byte* dst = size == 0 ? &one : d;
            nuint got = Methods.ZSTD_decompress(dst, (nuint)size, src, (nuint)srcLength);
            if (Methods.ZSTD_isError(got) || got != (nuint)size)
                return null;
        }
        return output;
    }
}
