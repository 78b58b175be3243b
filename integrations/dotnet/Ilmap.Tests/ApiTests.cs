// The library's contract beyond the answers: no allocation per lookup, concurrent readers,
// Dispose, and errors carrying ilmap's status and message.
using System;
using System.Collections.Generic;
using System.IO;
using System.Threading;
using System.Threading.Tasks;
using Xunit;

namespace Ilmap.Tests;

public class ApiTests
{
    static List<(int Token, int IL)> Queries(IlmapCache cache)
    {
        var q = new List<(int, int)>();
        for (int row = 1; row <= cache.MethodCount; row++)
            for (int x = -1; x < 40; x += 3)
                q.Add((0x06000000 | row, x));
        return q;
    }

    [Fact]
    public void LookupDoesNotAllocate()
    {
        using var cache = IlmapCache.Open(Corpus.CachePath("cs-sourcelink"));
        var queries = Queries(cache).ToArray();
        long sum = 0;
        foreach (var (t, x) in queries) // first sight of every document: its strings are made here
            if (cache.TryLookup(t, x, out var l))
                sum += l.Line;
        long before = GC.GetAllocatedBytesForCurrentThread();
        long hits = 0;
        for (int rep = 0; rep < 200; rep++)
            foreach (var (t, x) in queries)
                if (cache.TryLookup(t, x, out var l))
                {
                    hits++;
                    sum += l.Line + l.File.Length + (l.Url?.Length ?? 0) + l.Language.Length;
                }
        long allocated = GC.GetAllocatedBytesForCurrentThread() - before;
        Assert.True(hits > 1000, $"only {hits} answers");
        Assert.True(sum > 0);
        Assert.Equal(0, allocated);
    }

    [Fact]
    public void ConcurrentLookupsGiveTheSingleThreadedAnswers()
    {
        using var cache = IlmapCache.Open(Corpus.CachePath("cs-manymethods"));
        var queries = Queries(cache);
        var expected = new SourceLocation?[queries.Count];
        for (int i = 0; i < queries.Count; i++)
            expected[i] = cache.TryLookup(queries[i].Token, queries[i].IL, out var l) ? l : null;
        int mismatches = 0;
        Parallel.For(0, 8, new ParallelOptions { MaxDegreeOfParallelism = 8 }, t =>
        {
            for (int rep = 0; rep < 2; rep++)
                for (int i = (t * 7919) % queries.Count, n = 0; n < queries.Count; n++, i = (i + 1) % queries.Count)
                {
                    SourceLocation? got = cache.TryLookup(queries[i].Token, queries[i].IL, out var l) ? l : null;
                    if (!Equals(got, expected[i]))
                        Interlocked.Increment(ref mismatches);
                }
        });
        Assert.Equal(0, mismatches);
    }

    [Fact]
    public void DisposedCacheThrowsObjectDisposed()
    {
        var cache = IlmapCache.Open(Corpus.CachePath("cs-frames"));
        Assert.True(cache.TryLookupRow(1, 0, out _) || cache.MethodCount > 0);
        cache.Dispose();
        cache.Dispose(); // twice is fine
        Assert.Throws<ObjectDisposedException>(() => cache.TryLookup(0x06000001, 0, out _));
        Assert.Throws<ObjectDisposedException>(() => cache.Verify());
    }

    [Fact]
    public void MissingFileIsAnIoError()
    {
        var path = Corpus.TempFile("does-not-exist.ilmap");
        var e = Assert.Throws<IlmapException>(() => IlmapCache.Open(path));
        Assert.Equal(IlmapStatus.Io, e.Status);
        Assert.Contains("does-not-exist.ilmap", e.Message);
    }

    [Fact]
    public void PdbIsNotACache()
    {
        var e = Assert.Throws<IlmapException>(() => IlmapCache.Open(Corpus.PdbPath("cs-frames")));
        Assert.Equal(IlmapStatus.BadMagic, e.Status);
        Assert.False(string.IsNullOrEmpty(e.Message));
    }

    [Fact]
    public void CorruptPayloadFailsOpenOrVerify()
    {
        var bytes = File.ReadAllBytes(Corpus.CachePath("cs-features"));
        bytes[bytes.Length / 2] ^= 0x40;
        var path = Corpus.TempFile("corrupt.ilmap");
        File.WriteAllBytes(path, bytes);
        var e = Assert.Throws<IlmapException>(() =>
        {
            using var cache = IlmapCache.Open(path, IlmapOpenMode.Read);
            cache.Verify();
        });
        Assert.NotEqual(IlmapStatus.Ok, e.Status);
        Assert.False(string.IsNullOrEmpty(e.Message));
    }

    [Fact]
    public void FileChangedAfterTheCacheIsReplaced()
    {
        var path = Corpus.TempFile("replaced.ilmap");
        File.Copy(Corpus.CachePath("cs-frames"), path, overwrite: true);
        using var cache = IlmapCache.Open(path);
        Assert.False(cache.FileChanged);
        int row = 1;
        while (row <= cache.MethodCount && !cache.TryLookupRow(row, 0, out _))
            row++;
        Assert.True(cache.TryLookupRow(row, 0, out var before));
        var next = Corpus.TempFile("replaced.ilmap.new");
        File.Copy(Corpus.CachePath("cs-features"), next, overwrite: true);
        File.Move(next, path, overwrite: true); // as ilmap compile replaces a cache: a rename
        Assert.True(cache.FileChanged);
        Assert.True(cache.TryLookupRow(row, 0, out var after)); // the open cache still answers from the old file
        Assert.Equal(before, after);
    }

    [Fact]
    public void TruncatedCacheKeepsAnsweringFromItsBytesAtOpen()
    {
        Assert.True(IlmapCache.InstallMappingGuard());
        var path = Corpus.TempFile("truncated.ilmap");
        File.Copy(Corpus.CachePath("cs-manymethods"), path, overwrite: true);
        using var cache = IlmapCache.Open(path);
        Assert.False(cache.Changed);
        var before = new List<string>();
        for (int row = 1; row <= cache.MethodCount; row++)
            before.Add(cache.TryLookupRow(row, 0, out var l) ? l.ToString() : "");
        // Truncated in place, inside a page: the truncate waits for the native reader's read lease
        // to be released, after it copied the mapping (docs/library.md "Files changed while open").
        using (var f = new FileStream(path, FileMode.Open, FileAccess.Write))
            f.SetLength(4000);
        for (int row = 1; row <= cache.MethodCount; row++)
            Assert.Equal(before[row - 1], cache.TryLookupRow(row, 0, out var l) ? l.ToString() : "");
        Assert.False(cache.Changed);
        Assert.True(cache.FileChanged);
        // A NullReferenceException in managed code is still the runtime's to handle.
        Assert.Throws<NullReferenceException>(() => ((string?)null)!.Length);
    }

    [Fact]
    public void NegativeOffsetHasNoAnswer()
    {
        using var cache = IlmapCache.Open(Corpus.CachePath("cs-frames"));
        for (int row = 1; row <= cache.MethodCount; row++)
            Assert.False(cache.TryLookupRow(row, -1, out _));
    }

    // The native reader where no libilmap loads: a PlatformNotSupportedException that says what to
    // do, unless ILMAP_LIBRARY named the file (its own load error then tells what is wrong with it).
    // The decision alone: this process has libilmap loaded (ILMAP_LIBRARY), so the failing load
    // itself is run by test-build.sh, in a copy of an app without the native library.
    [Fact]
    public void NativeReaderWithoutLibraryIsNotSupported()
    {
        var load = new DllNotFoundException("Unable to load shared library 'ilmap'");
        var e = Assert.IsType<PlatformNotSupportedException>(Native.NotLoaded(load, null));
        Assert.Same(load, e.InnerException);
        Assert.Contains("linux-x64, linux-arm64 and win-x64 only", e.Message);
        Assert.Contains("ILMAP_LIBRARY", e.Message);
        Assert.Contains("IlmapReader.Managed", e.Message);
        Assert.Same(load, Native.NotLoaded(load, "/nowhere/libilmap.so"));
    }
}
