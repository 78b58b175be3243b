// SsqpOracle - an SSQP client written from dotnet/symstore's docs (Simple_Symbol_Query_Protocol.md,
// SSQP_Key_Conventions.md), independent of ilmap's code:
//
//   SsqpOracle BASE_URL FILE...
//
// For each FILE it derives the SSQP key itself (PE: "<name>/<TimeDateStamp X8><SizeOfImage x>/<name>";
// Portable PDB: "<name>/<GUID N>FFFFFFFF/<name>"; Windows PDB: "<name>/<GUID N><age x>/<name>", the
// GUID and age read from the MSF PDB info stream; names lower-cased), GETs BASE_URL/<key>, and checks
// the answer: 200, the downloaded bytes identify as the same file (PE: timestamp and size of image;
// Portable PDB: the 20-byte PDB id; Windows PDB: GUID and age) and equal FILE's bytes.
// Prints "ok KEY" or "FAIL KEY: why" per file; exit 0 when all are ok, 1 otherwise, 2 on usage.
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Net.Http;
using System.Reflection.Metadata;
using System.Reflection.PortableExecutable;
using System.Text;

namespace Ilmap.SsqpOracle;

internal static class Program
{
    private sealed record Identity(string Key, string Describe);

    private static int Main(string[] args)
    {
        if (args.Length < 2)
        {
            Console.Error.WriteLine("usage: SsqpOracle BASE_URL FILE...");
            return 2;
        }
        string baseUrl = args[0].TrimEnd('/');
        using var http = new HttpClient { Timeout = TimeSpan.FromSeconds(60) };
        int failures = 0;
        foreach (string file in args.Skip(1))
        {
            byte[] local = File.ReadAllBytes(file);
            Identity? want;
            try { want = Identify(Path.GetFileName(file), local); }
            catch (Exception e) { Console.WriteLine($"FAIL {file}: cannot identify: {e.Message}"); failures++; continue; }
            if (want == null) { Console.WriteLine($"FAIL {file}: neither a PE nor a PDB"); failures++; continue; }
            string url = baseUrl + "/" + string.Join("/", want.Key.Split('/').Select(Uri.EscapeDataString));
            using HttpResponseMessage resp = http.GetAsync(url).GetAwaiter().GetResult();
            if ((int)resp.StatusCode != 200) { Console.WriteLine($"FAIL {want.Key}: HTTP {(int)resp.StatusCode}"); failures++; continue; }
            byte[] got = resp.Content.ReadAsByteArrayAsync().GetAwaiter().GetResult();
            Identity? have;
            try { have = Identify(Path.GetFileName(file), got); }
            catch (Exception e) { Console.WriteLine($"FAIL {want.Key}: the download does not parse: {e.Message}"); failures++; continue; }
            if (have == null || have.Describe != want.Describe)
            {
                Console.WriteLine($"FAIL {want.Key}: the download is {have?.Describe ?? "unknown"}, wanted {want.Describe}");
                failures++;
                continue;
            }
            if (!got.AsSpan().SequenceEqual(local))
            {
                Console.WriteLine($"FAIL {want.Key}: same identity, different bytes ({got.Length} vs {local.Length})");
                failures++;
                continue;
            }
            Console.WriteLine($"ok {want.Key}");
        }
        return failures == 0 ? 0 : 1;
    }

    private static Identity? Identify(string fileName, byte[] bytes)
    {
        string name = fileName.ToLowerInvariant();
        if (bytes.Length >= 2 && bytes[0] == 'M' && bytes[1] == 'Z')
        {
            using var pe = new PEReader(new MemoryStream(bytes));
            int stamp = pe.PEHeaders.CoffHeader.TimeDateStamp;
            int size = pe.PEHeaders.PEHeader!.SizeOfImage;
            return new Identity($"{name}/{stamp:X8}{size:x}/{name}", $"PE stamp {stamp:X8} size {size:x}");
        }
        if (bytes.Length >= 4 && bytes[0] == 'B' && bytes[1] == 'S' && bytes[2] == 'J' && bytes[3] == 'B')
        {
            using var provider = MetadataReaderProvider.FromPortablePdbStream(new MemoryStream(bytes));
            BlobContentId id = new BlobContentId(provider.GetMetadataReader().DebugMetadataHeader!.Id);
            return new Identity($"{name}/{id.Guid:N}FFFFFFFF/{name}", $"Portable PDB {id.Guid:N} stamp {id.Stamp:X8}");
        }
        byte[] msf = Encoding.ASCII.GetBytes("Microsoft C/C++ MSF 7.00\r\n\x1a" + "DS\0\0\0");
        if (bytes.Length >= 32 && bytes.AsSpan(0, 32).SequenceEqual(msf))
        {
            (Guid guid, uint age) = WindowsPdbGuidAge(bytes);
            return new Identity($"{name}/{guid:N}{age:x}/{name}", $"Windows PDB {guid:N} age {age:x}");
        }
        return null;
    }

    // GUID and age of a Windows (MSF 7.00) PDB: the stream directory's block map -> stream 1 (the
    // PDB info stream: version, signature, age, GUID) and stream 3 (DBI: its age at offset 8, the one
    // debuggers match; SSQP_Key_Conventions.md names "age" without saying which).
    private static (Guid, uint) WindowsPdbGuidAge(byte[] f)
    {
        uint U32(int at) => BitConverter.ToUInt32(f, at);
        int blockSize = (int)U32(32);
        uint dirBytes = U32(44);
        int dirMapBlock = (int)U32(52);
        int dirBlocks = (int)((dirBytes + blockSize - 1) / blockSize);
        var dir = new List<byte>();
        for (int i = 0; i < dirBlocks; i++)
        {
            int block = (int)U32(dirMapBlock * blockSize + 4 * i);
            dir.AddRange(f.AsSpan(block * blockSize, blockSize).ToArray());
        }
        byte[] d = dir.ToArray();
        uint D32(int at) => BitConverter.ToUInt32(d, at);
        uint streams = D32(0);
        var sizes = new uint[streams];
        for (int i = 0; i < streams; i++) sizes[i] = D32(4 + 4 * i);
        int at = 4 + 4 * (int)streams;
        var blocks = new List<int[]>();
        for (int i = 0; i < streams; i++)
        {
            uint size = sizes[i] == 0xFFFFFFFF ? 0 : sizes[i];
            int n = (int)((size + blockSize - 1) / blockSize);
            var list = new int[n];
            for (int j = 0; j < n; j++) { list[j] = (int)D32(at); at += 4; }
            blocks.Add(list);
        }
        byte[] Stream(int s)
        {
            var bytes = new List<byte>();
            foreach (int b in blocks[s]) bytes.AddRange(f.AsSpan(b * blockSize, blockSize).ToArray());
            return bytes.Take((int)sizes[s]).ToArray();
        }
        byte[] info = Stream(1);
        var guid = new Guid(info.AsSpan(12, 16));
        uint age = BitConverter.ToUInt32(info, 8);
        if (streams > 3 && sizes[3] >= 12 && sizes[3] != 0xFFFFFFFF) age = BitConverter.ToUInt32(Stream(3), 8);
        return (guid, age);
    }
}
