// ManagedNames: method names (SPEC.md 3.6): the method refs and strings of the names section,
// unpacked on first use (3.8), a method's CoreCLR and Mono texts (6.1 "a method's names"), and
// name lookup (6.1) over the name index, which format 2.0 no longer stores: it is derived from
// the method refs on the first name query, as 3.6 describes, and kept with them.
using System;
using System.Buffers.Binary;
using System.Collections.Generic;
using System.IO.Hashing;
using System.Text;

namespace Ilmap.Managed;

internal sealed partial class ManagedCache
{
    sealed class NameTables(byte[] methods, int methodsStart, int count, byte[] strings, int stringsStart, int stringsLength)
    {
        public readonly byte[] Methods = methods;
        public readonly int MethodsStart = methodsStart, Count = count;
        public readonly byte[] Strings = strings;
        public readonly int StringsStart = stringsStart, StringsLength = stringsLength;
        public readonly string?[] CoreClr = new string?[count], Mono = new string?[count];
        public volatile NameIndexEntry[]? Index; // 6.1's name index, made on the first name query
    }

    /// <summary>An entry of the name index (3.6): XXH3-64 of a key, a method's token, and whether it is an alias.</summary>
    internal readonly record struct NameIndexEntry(ulong Hash, uint Token, bool Alias) : IComparable<NameIndexEntry>
    {
        // (hash, token, flags), all ascending: the order 3.6 gives the stored index.
        public int CompareTo(NameIndexEntry other) =>
            Hash != other.Hash ? Hash.CompareTo(other.Hash) : Token != other.Token ? Token.CompareTo(other.Token) : Alias.CompareTo(other.Alias);
    }

    NameTables? _nameTables;
    IlmapException? _namesError;

    /// <summary>The names' method refs and strings, unpacked on first use (3.6); null without names.</summary>
    NameTables? Names()
    {
        if (_names == 0)
            return null;
        if (_nameTables == null && _namesError == null)
        {
            lock (_lock)
            {
                if (_nameTables == null && _namesError == null)
                {
                    try
                    {
                        _nameTables = LoadNames();
                    }
                    catch (IlmapException ex)
                    {
                        _namesError = ex;
                    }
                }
            }
        }
        if (_nameTables == null)
            throw new IlmapException(_namesError!.Status, _namesError.Structure, _namesError.Message);
        return _nameTables;
    }

    NameTables LoadNames()
    {
        bool plainMethods = Present(_names, 3), packedMethods = Present(_names, 7);
        bool plainStrings = Present(_names, 4), packedStrings = Present(_names, 6);
        if (plainMethods == packedMethods || plainStrings == packedStrings)
            throw new IlmapException(IlmapStatus.Malformed, IlmapStructure.Names, "names: exactly one of methods and methods_zstd, and of strings and strings_zstd, must be present");
        byte[] strings;
        int stringsStart, stringsLength;
        if (plainStrings)
        {
            Vec v = Vector(_names, 4, 1);
            (strings, stringsStart, stringsLength) = (_file, v.Start, v.Length);
        }
        else
        {
            Vec v = Vector(_names, 6, 1);
            strings = Packed.Unpack(_file.AsSpan(v.Start, v.Length), _file.Length, "names.strings_zstd", IlmapStructure.Names);
            (stringsStart, stringsLength) = (0, strings.Length);
        }
        if (plainMethods)
        {
            Vec v = Vector(_names, 3, 32);
            return new NameTables(_file, v.Start, v.Length, strings, stringsStart, stringsLength);
        }
        Vec z = Vector(_names, 7, 1);
        byte[] columns = Packed.Unpack(_file.AsSpan(z.Start, z.Length), _file.Length, "names.methods_zstd", IlmapStructure.Names);
        if (columns.Length % 32 != 0)
            throw new IlmapException(IlmapStatus.Malformed, IlmapStructure.Names, $"names: methods_zstd unpacks to {columns.Length} bytes, not a multiple of 32");
        int n = columns.Length / 32;
        byte[] methods = new byte[columns.Length];
        uint coreclr = 0;
        for (int i = 0; i < n; i++)
        {
            for (int c = 0; c < 8; c++)
            {
                uint value = BinaryPrimitives.ReadUInt32LittleEndian(columns.AsSpan(4 * (c * n + i)));
                if (c == 0)
                    value = coreclr = unchecked(coreclr + value);
                else if (c == 2 || c == 4)
                    value = unchecked(value + coreclr);
                BinaryPrimitives.WriteUInt32LittleEndian(methods.AsSpan(32 * i + 4 * c), value);
            }
        }
        return new NameTables(methods, 0, n, strings, stringsStart, stringsLength);
    }

    public override string? MethodName(uint token, MethodNameFlavor flavor)
    {
        Alive();
        NameTables? t;
        try
        {
            t = Names();
        }
        catch (IlmapException)
        {
            return null;
        }
        uint row = token & 0xFFFFFF;
        if (t == null || token >> 24 != 0x06 || row == 0 || row > (uint)t.Count)
            return null;
        int i = (int)row - 1;
        string?[] made = flavor == MethodNameFlavor.Mono ? t.Mono : t.CoreClr;
        string? s = made[i];
        if (s != null)
            return s;
        int entry = t.MethodsStart + 32 * i + (flavor == MethodNameFlavor.Mono ? 8 : 0);
        uint offset = BinaryPrimitives.ReadUInt32LittleEndian(t.Methods.AsSpan(entry));
        uint length = BinaryPrimitives.ReadUInt32LittleEndian(t.Methods.AsSpan(entry + 4));
        if (!NameRangesValid(t, i, 2)) // both texts (not the key): SPEC.md 6.1
            return null;
        s = Encoding.UTF8.GetString(t.Strings, t.StringsStart + (int)offset, (int)length);
        made[i] = s;
        return s;
    }

    // The first `ranges` ranges of a method (CoreCLR text, Mono text, key) lie inside the strings.
    static bool NameRangesValid(NameTables t, int i, int ranges = 3)
    {
        for (int k = 0; k < ranges; k++)
        {
            int entry = t.MethodsStart + 32 * i + 8 * k;
            ulong offset = BinaryPrimitives.ReadUInt32LittleEndian(t.Methods.AsSpan(entry));
            ulong length = BinaryPrimitives.ReadUInt32LittleEndian(t.Methods.AsSpan(entry + 4));
            if (offset + length > (ulong)t.StringsLength)
                return false;
        }
        return true;
    }

    static uint RefField(NameTables t, int i, int field) =>
        BinaryPrimitives.ReadUInt32LittleEndian(t.Methods.AsSpan(t.MethodsStart + 32 * i + 4 * field));

    /// <summary>The method ref index (0-based) of a MethodDef token of the section, or -1.</summary>
    static int RefIndex(NameTables t, uint token)
    {
        uint row = token & 0xFFFFFF;
        return token >> 24 == 0x06 && row >= 1 && row <= (uint)t.Count ? (int)row - 1 : -1;
    }

    /// <summary>The cache has a names section (3.6); for tests.</summary>
    internal bool HasNames => _names != 0;

    /// <summary>The kickoff token (3.6) of a MethodDef token, 0 for none or without names; for tests.</summary>
    internal uint KickoffOf(uint token)
    {
        NameTables? t = Names();
        int i = t == null ? -1 : RefIndex(t, token);
        return i < 0 ? 0 : Kickoff(t!, i);
    }

    /// <summary>A method's kickoff token (3.6 `kickoff`): 0 for none.</summary>
    static uint Kickoff(NameTables t, int i) => RefField(t, i, 6);

    /// <summary>Text k of a method (0 CoreCLR, 1 Mono, 2 key) when its range lies inside the strings.</summary>
    static bool NameText(NameTables t, int i, int k, out ReadOnlySpan<byte> text)
    {
        ulong offset = RefField(t, i, 2 * k), length = RefField(t, i, 2 * k + 1);
        text = default;
        if (offset + length > (ulong)t.StringsLength)
            return false;
        text = t.Strings.AsSpan(t.StringsStart + (int)offset, (int)length);
        return true;
    }

    /// <summary>
    /// The name index of 3.6, made once per cache: an entry per method under its own key, and an
    /// alias entry per method with a kickoff under the kickoff's key; a method whose key (or
    /// kickoff, or the kickoff's key) is not valid has none, as 6.1 would skip it anyway.
    /// </summary>
    NameIndexEntry[] NameIndex(NameTables t)
    {
        NameIndexEntry[]? index = t.Index;
        if (index != null)
            return index;
        lock (_lock)
        {
            if (t.Index != null)
                return t.Index;
            var entries = new List<NameIndexEntry>(t.Count);
            for (int i = 0; i < t.Count; i++)
            {
                uint token = 0x06000001u + (uint)i;
                if (NameText(t, i, 2, out ReadOnlySpan<byte> key))
                    entries.Add(new NameIndexEntry(XxHash3.HashToUInt64(key), token, false));
                int k = Kickoff(t, i) == 0 ? -1 : RefIndex(t, Kickoff(t, i));
                if (k >= 0 && NameText(t, k, 2, out key))
                    entries.Add(new NameIndexEntry(XxHash3.HashToUInt64(key), token, true));
            }
            index = entries.ToArray();
            Array.Sort(index);
            t.Index = index;
            return index;
        }
    }

    /// <summary>
    /// Name lookup (6.1): the tokens, ascending and distinct, of the methods whose key (or, for an
    /// alias entry, whose kickoff's key) is <paramref name="name"/>, into <paramref name="tokens"/>.
    /// </summary>
    void FindMethods(NameTables t, ReadOnlySpan<byte> name, List<uint> tokens)
    {
        tokens.Clear();
        NameIndexEntry[] index = NameIndex(t);
        ulong h = XxHash3.HashToUInt64(name);
        int lo = 0, hi = index.Length;
        while (lo < hi)
        {
            int mid = lo + (hi - lo) / 2;
            if (index[mid].Hash < h)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (int e = lo; e < index.Length && index[e].Hash == h; e++)
        {
            int m = RefIndex(t, index[e].Token);
            if (m >= 0 && index[e].Alias)
                m = Kickoff(t, m) == 0 ? -1 : RefIndex(t, Kickoff(t, m));
            // Confirm: the key must be the name (equal hashes may be a collision).
            if (m >= 0 && NameText(t, m, 2, out ReadOnlySpan<byte> key) && key.SequenceEqual(name))
                tokens.Add(index[e].Token);
        }
        // Index order is (hash, token): the tokens of one hash come out ascending, an alias and
        // a plain entry of one token side by side.
        int w = 0;
        for (int i = 0; i < tokens.Count; i++)
            if (w == 0 || tokens[w - 1] != tokens[i])
                tokens[w++] = tokens[i];
        tokens.RemoveRange(w, tokens.Count - w);
    }
}
