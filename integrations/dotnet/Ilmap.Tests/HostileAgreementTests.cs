// Corrupted caches read by the managed and the native reader: a small cache truncated at every
// length, single bytes flipped over a sample of offsets (with the header checksum left stale, and
// made valid again so that verify reaches the structure checks), and the golden bad caches of
// the C++ build when they are reachable. Both readers must reach the same outcome (opens, or
// refused with which status and structure; verify passes or fails with which status and
// structure; each golden bad cache naming the structure structures.tsv gives it), and the managed one must
// never throw anything but IlmapException, whatever it is asked of a cache that opened.
using System;
using System.Collections.Generic;
using System.IO;
using System.IO.Hashing;
using System.Linq;
using Xunit;
using Xunit.Abstractions;

namespace Ilmap.Tests;

public class HostileAgreementTests(ITestOutputHelper output)
{
    static string Outcome(Func<string> call)
    {
        try
        {
            return call();
        }
        catch (IlmapException ex)
        {
            return $"error {ex.Status} in {ex.Structure}";
        }
    }

    /// <summary>Open, then verify: "error S" or "opens; verify ok|error S".</summary>
    static string OpenAndVerify(string path, IlmapReader reader) => Outcome(() =>
    {
        using IlmapCache cache = IlmapCache.Open(path, reader);
        string verify = Outcome(() => { cache.Verify(); return "ok"; });
        if (reader == IlmapReader.Managed)
            Exercise(cache);
        return "opens; verify " + verify;
    });

    /// <summary>Asks a cache that opened everything: only IlmapException may come out.</summary>
    static void Exercise(IlmapCache cache)
    {
        for (int row = 0; row <= Math.Min(cache.MethodCount + 1, 400); row++)
            for (int x = 0; x < 64; x += 3)
                cache.TryLookup(0x06000000 | row, x, out _);
        var buffer = new LineBinding[16];
        for (int d = 0; d < Math.Min(cache.DocumentCount, 20); d++)
        {
            string path = cache.DocumentPath(d);
            Outcome(() => cache.EmbeddedSourceBytes(d)?.Length.ToString() ?? "");
            if (path.Length > 0)
                for (int line = 1; line < 40; line += 5)
                    Outcome(() => cache.Lines(path, line, buffer, line % 3, (LineRule)(line % 2)).ToString()); // both rules
        }
        for (int row = 0; row < Math.Min(cache.MethodCount + 2, 400); row++)
            cache.MethodName(0x06000000 | row, MethodNameFlavor.Mono);
    }

    static byte[] SmallCache(out string label)
    {
        // The smallest cache compiled from a corpus PE (names, lines, strings all present).
        label = "cs-frames";
        return File.ReadAllBytes(Corpus.CachePath("cs-frames", fromPe: true));
    }

    int Compare(string path, string what, List<string> disagreements)
    {
        string n = OpenAndVerify(path, IlmapReader.Native);
        string m = OpenAndVerify(path, IlmapReader.Managed);
        if (n != m)
            disagreements.Add($"{what}: native {n}, managed {m}");
        return 1;
    }

    [Fact]
    public void TruncationsAtEveryLength()
    {
        byte[] cache = SmallCache(out string label);
        string path = Corpus.TempFile("hostile-truncated.ilmap");
        var disagreements = new List<string>();
        int cases = 0;
        for (int length = 0; length < cache.Length; length++)
        {
            File.WriteAllBytes(path, cache.AsSpan(0, length).ToArray());
            cases += Compare(path, $"{label} cut to {length} bytes", disagreements);
        }
        output.WriteLine($"{cases} truncations of a {cache.Length}-byte cache, {disagreements.Count} disagreements");
        Assert.True(disagreements.Count == 0, string.Join("\n", disagreements.Take(20)));
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void ByteFlipsOverASample(bool fixChecksum)
    {
        byte[] cache = SmallCache(out string label);
        string path = Corpus.TempFile($"hostile-flipped-{fixChecksum}.ilmap");
        var disagreements = new List<string>();
        var random = new Random(28);
        int cases = 0;
        // Every header byte, then a deterministic sample of the payload.
        var offsets = Enumerable.Range(0, 32).Concat(Enumerable.Range(0, 1500).Select(_ => random.Next(32, cache.Length)));
        foreach (int offset in offsets)
        {
            byte[] bad = (byte[])cache.Clone();
            byte mask = (byte)(1 << random.Next(8));
            bad[offset] ^= (cases & 1) == 0 ? mask : (byte)0xFF;
            if (fixChecksum && offset >= 32)
                BitConverter.TryWriteBytes(bad.AsSpan(24, 8), XxHash3.HashToUInt64(bad.AsSpan(32)));
            File.WriteAllBytes(path, bad);
            cases += Compare(path, $"{label} byte {offset} ^ 0x{cache[offset] ^ bad[offset]:x2}", disagreements);
        }
        output.WriteLine($"{cases} flips (checksum fixed: {fixChecksum}), {disagreements.Count} disagreements");
        Assert.True(disagreements.Count == 0, string.Join("\n", disagreements.Take(20)));
    }

    [Fact]
    public void GoldenBadCaches()
    {
        // The C++ build's tests/hostile/golden, beside the ilmap program (BUILD/tools/ilmap).
        string exe = Environment.GetEnvironmentVariable("ILMAP_EXE") ?? "";
        string golden = Environment.GetEnvironmentVariable("ILMAP_GOLDEN_DIR") is { Length: > 0 } g
            ? g : Path.Combine(Path.GetDirectoryName(Path.GetDirectoryName(exe) ?? "") ?? "", "tests", "hostile", "golden");
        if (!Directory.Exists(golden))
        {
            output.WriteLine($"no golden directory at {golden}: nothing to compare");
            return;
        }
        var disagreements = new List<string>();
        int cases = 0;
        foreach (string file in Directory.GetFiles(golden, "*.ilmap").Order(StringComparer.Ordinal))
            cases += Compare(file, Path.GetFileName(file), disagreements);
        // structures.tsv (make_golden): the structure each bad cache's first failure names, the
        // same number from the managed reader and from the native one (the C API).
        int named = 0;
        foreach (string line in File.ReadLines(Path.Combine(golden, "structures.tsv")))
        {
            string[] f = line.Split('\t');
            var want = (IlmapStructure)int.Parse(f[1]);
            foreach (IlmapReader reader in new[] { IlmapReader.Managed, IlmapReader.Native })
            {
                IlmapStructure got = FirstFailure(Path.Combine(golden, f[0]), reader);
                if (got != want)
                    disagreements.Add($"{f[0]}: {reader} names {got}, expected {want}");
            }
            named++;
        }
        output.WriteLine($"{cases} golden caches ({named} naming a structure), {disagreements.Count} disagreements");
        Assert.True(named >= 11, $"structures.tsv lists {named} caches");
        Assert.True(disagreements.Count == 0, string.Join("\n", disagreements));
    }

    /// <summary>The structure named by the first failure of open, then verify (None: none failed).</summary>
    static IlmapStructure FirstFailure(string path, IlmapReader reader)
    {
        try
        {
            using IlmapCache cache = IlmapCache.Open(path, reader);
            cache.Verify();
            return IlmapStructure.None;
        }
        catch (IlmapException ex)
        {
            Assert.NotEqual(IlmapStatus.Ok, ex.Status);
            return ex.Structure;
        }
    }
}
