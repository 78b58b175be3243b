// Lines (SPEC.md 6.2, 6.3) against the binding rule computed from System.Reflection.Metadata's
// sequence points, for every document, line 1 and every line that starts code with the lines
// around it (other lines bind as the next line with code does) of the
// corpus PDBs; MethodName against `ilmap dump --methods`; allocation-free lookups into a span.
using System;
using System.Collections.Generic;
using System.Linq;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using Xunit;

namespace Ilmap.Tests;

public class LinesTests
{
    const int HiddenLine = 0xFEEFEE;

    record struct Pt(int Row, int IL, int Line, int Column, int EndLine, int EndColumn);

    static bool Le(int l1, int c1, int l2, int c2) => l1 < l2 || (l1 == l2 && c1 <= c2);
    static bool Inside(Pt inner, Pt outer) =>
        !(inner.Line == outer.Line && inner.Column == outer.Column && inner.EndLine == outer.EndLine && inner.EndColumn == outer.EndColumn) &&
        Le(outer.Line, outer.Column, inner.Line, inner.Column) && Le(inner.EndLine, inner.EndColumn, outer.EndLine, outer.EndColumn);

    // SPEC.md 6.2 steps 3, 5 and 6 (no column), literally.
    static List<Pt> Expected(List<Pt> all, int line)
    {
        var after = all.Where(p => p.Line >= line).ToList();
        if (after.Count == 0)
            return new List<Pt>();
        int target = after.Min(p => p.Line);
        var perMethod = all.Where(p => p.Line == target).GroupBy(p => p.Row)
                           .Select(g => g.OrderBy(p => p.Column).ThenBy(p => p.IL).First()).ToList();
        return perMethod.Where(p => !perMethod.Any(o => Inside(p, o))).OrderBy(p => p.Row).ThenBy(p => p.IL).ToList();
    }

    [Theory]
    [MemberData(nameof(Corpus.NameData), MemberType = typeof(Corpus))]
    public void EveryDocumentLineAgreesWithSrm(string name)
    {
        using var pdb = new SrmPdb(Corpus.PdbPath(name));
        using var cache = IlmapCache.Open(Corpus.CachePath(name));
        var r = pdb.Reader;
        var byDoc = new Dictionary<string, List<Pt>>();
        foreach (var h in r.Documents)
            byDoc.TryAdd(r.GetString(r.GetDocument(h).Name), new List<Pt>());
        for (int row = 1; row <= pdb.MethodCount; row++)
            foreach (var sp in pdb.Points(row))
                if (sp.StartLine != HiddenLine)
                    byDoc[r.GetString(r.GetDocument(sp.Document).Name)].Add(new Pt(row, sp.Offset, sp.StartLine, sp.StartColumn, sp.EndLine, sp.EndColumn));
        long queries = 0, bindings = 0;
        var buffer = new LineBinding[64];
        foreach (var (path, points) in byDoc)
        {
            var lines = new SortedSet<int> { 1 };
            foreach (var p in points)
            {
                lines.Add(p.Line - 1);
                lines.Add(p.Line);
                lines.Add(p.Line + 1);
            }
            lines.Remove(0);
            foreach (int line in lines)
            {
                var want = Expected(points, line);
                int n = cache.Lines(path, line, buffer);
                Assert.Equal(want.Count, n);
                for (int i = 0; i < n; i++)
                {
                    var b = buffer[i];
                    Assert.Equal(path, b.File);
                    var got = new Pt(b.Token & 0xFFFFFF, b.ILOffset, b.Line, b.Column, b.EndLine, b.EndColumn);
                    Assert.True(want[i] == got, $"{name} {path}:{line}: SRM {want[i]}, ilmap {got}");
                    Assert.Equal(0x06, b.Token >>> 24);
                }
                Assert.Equal(buffer.AsSpan(0, n).ToArray(), cache.Lines(path, line));
                queries++;
                bindings += n;
            }
        }
        Assert.True(bindings > 0, $"{name}: no line bound");
    }

    [Fact]
    public void DocumentMatchingAndErrors()
    {
        using var cache = IlmapCache.Open(Corpus.CachePath("cs-features"));
        var exact = cache.Lines("/_/Features/ControlFlow.cs", 53);
        Assert.Equal(exact, cache.Lines("ControlFlow.cs", 53));
        Assert.Equal(exact, cache.Lines("Features/ControlFlow.cs", 53));
        Assert.Equal(exact, cache.Lines("\\_\\Features\\ControlFlow.cs", 53));
        Assert.Single(exact);
        // A column inside the lambda binds the lambda, not the statement around it.
        var lambda = cache.Lines("ControlFlow.cs", 53, column: 40);
        Assert.Single(lambda);
        Assert.NotEqual(exact[0].Token, lambda[0].Token);
        Assert.Empty(cache.Lines("ControlFlow.cs", 100000));
        var e = Assert.Throws<IlmapException>(() => cache.Lines("Nope.cs", 1));
        Assert.Equal(IlmapStatus.NotFound, e.Status);
        Assert.Throws<ArgumentOutOfRangeException>(() => cache.Lines("ControlFlow.cs", 0));
        // A destination shorter than the answer: the count says how many there are.
        Assert.Equal(1, cache.Lines("ControlFlow.cs", 53, Span<LineBinding>.Empty));
    }

    [Fact]
    public void LinesIntoASpanDoesNotAllocate()
    {
        using var cache = IlmapCache.Open(Corpus.CachePath("cs-features"));
        var array = new LineBinding[8];
        cache.Lines("ControlFlow.cs", 53, array); // the path string is made once
        long before = GC.GetAllocatedBytesForCurrentThread();
        int total = 0;
        for (int i = 0; i < 1000; i++)
            total += cache.Lines("ControlFlow.cs", 53 + i % 40, array);
        long after = GC.GetAllocatedBytesForCurrentThread();
        Assert.True(total > 0);
        Assert.Equal(0, after - before);
    }

    [Theory]
    [MemberData(nameof(Corpus.NameData), MemberType = typeof(Corpus))]
    public void MethodNamesAgreeWithDump(string name)
    {
        using var cache = IlmapCache.Open(Corpus.CachePath(name));
        var (code, stdout, stderr) = Corpus.Run(Environment.GetEnvironmentVariable("ILMAP_EXE")!, "dump", "--methods", Corpus.CachePath(name));
        if (code == 3)
        {   // compiled without the PE: no names
            Assert.Null(cache.MethodName(0x06000001));
            return;
        }
        Assert.True(code == 0, stderr);
        int rows = 0;
        foreach (var line in stdout.Split('\n', StringSplitOptions.RemoveEmptyEntries))
        {
            var cols = line.Split('\t');
            int token = Convert.ToInt32(cols[0], 16);
            Assert.Equal(cols[1], cache.MethodName(token));
            Assert.Equal(cols[2], cache.MethodName(token, MethodNameFlavor.Mono));
            Assert.Same(cache.MethodName(token), cache.MethodName(token)); // interned: no allocation the second time
            rows++;
        }
        Assert.True(rows > 0);
        Assert.Null(cache.MethodName(0x06000000 | (rows + 1)));
        Assert.Null(cache.MethodName(0x02000001));
    }
}
