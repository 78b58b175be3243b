// ManagedNames: method names (SPEC.md 3.6): the method refs and strings of the names section,
// unpacked on first use (3.8), and a method's CoreCLR and Mono texts (6.1 "a method's names").
using System;
using System.Buffers.Binary;
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
}
