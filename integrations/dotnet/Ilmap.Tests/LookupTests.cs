// The library's answers against System.Reflection.Metadata's sequence points with the runtime
// rule, for every method and every IL offset (and a few beyond) of the corpus PDBs; the counts.
using System.Collections.Generic;
using System.Linq;
using Xunit;

namespace Ilmap.Tests;

public class LookupTests
{
    static IEnumerable<int> Offsets(List<System.Reflection.Metadata.SequencePoint> points)
    {
        int max = points.Count == 0 ? 0 : points.Max(p => p.Offset);
        for (int x = 0; x <= max + 4; x++)
            yield return x;
        yield return -1;
        yield return int.MinValue;
        yield return int.MaxValue;
        yield return 0xFFFFFF;
    }

    [Theory]
    [MemberData(nameof(Corpus.NameData), MemberType = typeof(Corpus))]
    public void EveryMethodAndOffsetAgreesWithSrm(string name)
    {
        using var pdb = new SrmPdb(Corpus.PdbPath(name));
        using var cache = IlmapCache.Open(Corpus.CachePath(name));
        Assert.Equal(pdb.MethodCount, cache.MethodCount);
        long points = 0, answers = 0;
        bool anyUrl = false;
        for (int row = 1; row <= pdb.MethodCount; row++)
        {
            var sps = pdb.Points(row);
            points += sps.Count;
            int token = 0x06000000 | row;
            foreach (int x in Offsets(sps))
            {
                var expected = pdb.Lookup(sps, x);
                bool found = cache.TryLookup(token, x, out var got);
                Assert.True(expected.HasValue == found, $"{name} row {row} il {x}: SRM {expected}, ilmap found={found}");
                Assert.Equal(found, cache.TryLookupRow(row, x, out var byRow));
                Assert.Equal(got, byRow);
                if (!found)
                {
                    Assert.Equal(default, got);
                    continue;
                }
                answers++;
                var actual = new Expected(got.File, got.Language, got.Line, got.Column, got.EndLine, got.EndColumn, got.ILOffset);
                Assert.Equal(expected!.Value, actual);
                if (got.Url is not null)
                {
                    anyUrl = true;
                    Assert.StartsWith("https://", got.Url);
                }
            }
        }
        Assert.Equal(points, cache.PointCount);
        Assert.True(answers > 0, $"{name}: no lookup answered");
        // URLs exist exactly where the PDB has a SourceLink map (the corpus maps every document).
        Assert.Equal(pdb.HasSourceLink, anyUrl);

        // Past the table, tokens of other tables, row 0: no answer.
        Assert.False(cache.TryLookup(0x06000000 | (pdb.MethodCount + 1), 0, out _));
        Assert.False(cache.TryLookup(0x06000000, 0, out _));
        Assert.False(cache.TryLookup(0x02000001, 0, out _));
        Assert.False(cache.TryLookupRow(0, 0, out _));
        Assert.False(cache.TryLookupRow(-5, 0, out _));
        cache.Verify();
    }

    [Fact]
    public void ReadModeAnswersAsMapMode()
    {
        var path = Corpus.CachePath("cs-features");
        using var mapped = IlmapCache.Open(path);
        using var read = IlmapCache.Open(path, IlmapOpenMode.Read);
        Assert.Equal(mapped.MethodCount, read.MethodCount);
        Assert.Equal(mapped.PointCount, read.PointCount);
        for (int row = 1; row <= mapped.MethodCount; row++)
            for (int x = 0; x < 64; x++)
            {
                Assert.Equal(mapped.TryLookupRow(row, x, out var a), read.TryLookupRow(row, x, out var b));
                Assert.Equal(a, b);
            }
        read.Verify();
    }
}
