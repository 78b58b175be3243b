// Lines (SPEC.md 6.2, 6.3): the rule "all methods" against the same rule computed from
// System.Reflection.Metadata's sequence points, for every document, line 1 and every line that
// starts code with the lines around it (other lines bind as the next line with code does) of the
// corpus PDBs; the rule "debugger" (the default) against netcoredbg's bindings on corpus case
// cs-breakpoints (tests/breakpoints/expected.tsv), with both readers; document matching;
// MethodName against `ilmap dump --methods`; allocation-free lookups into a span.
using System;
using System.Collections.Generic;
using System.IO;
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

    // SPEC.md 6.2 steps 3 and 5 (rule "all methods", no column), literally.
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
    public void EveryDocumentLineAgreesWithSrmAllMethods(string name)
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
                int n = cache.Lines(path, line, buffer, rule: LineRule.AllMethods);
                Assert.Equal(want.Count, n);
                for (int i = 0; i < n; i++)
                {
                    var b = buffer[i];
                    Assert.Equal(path, b.File);
                    var got = new Pt(b.Token & 0xFFFFFF, b.ILOffset, b.Line, b.Column, b.EndLine, b.EndColumn);
                    Assert.True(want[i] == got, $"{name} {path}:{line}: SRM {want[i]}, ilmap {got}");
                    Assert.Equal(0x06, b.Token >>> 24);
                }
                Assert.Equal(buffer.AsSpan(0, n).ToArray(), cache.Lines(path, line, rule: LineRule.AllMethods));
                queries++;
                bindings += n;
            }
        }
        Assert.True(bindings > 0, $"{name}: no line bound");
    }

    // --- corpus case cs-breakpoints: where netcoredbg binds a file:line breakpoint ---

    static string CorpusDir => Environment.GetEnvironmentVariable("ILMAP_CORPUS_DIR")!;

    /// <summary>The line of the "// [name]" marker in corpus/src/Breakpoints/FILE, given as "FILE#name".</summary>
    static int Marker(string at)
    {
        string[] parts = at.Split('#');
        string[] lines = File.ReadAllLines(Path.Combine(CorpusDir, "src", "Breakpoints", parts[0]));
        int[] found = Enumerable.Range(0, lines.Length).Where(i => lines[i].Contains($"// [{parts[1]}]", StringComparison.Ordinal)).ToArray();
        Assert.True(found.Length == 1, $"marker [{parts[1]}] is on {found.Length} lines of {parts[0]}");
        return found[0] + 1;
    }

    /// <summary>The cs-breakpoints cache, compiled from the PE (with method names) or from a copy of the PDB alone (without).</summary>
    static IlmapCache Breakpoints(IlmapReader reader, bool names = true) =>
        IlmapCache.Open(names ? Corpus.CachePath("cs-breakpoints", fromPe: true) : UnnamedBreakpoints.Value, reader);

    static readonly Lazy<string> UnnamedBreakpoints = new(() =>
    {
        // Beside its DLL, the PDB would be compiled with the DLL's names: compile a copy alone.
        string dir = Corpus.TempFile("cs-breakpoints-pdb-only");
        Directory.CreateDirectory(dir);
        string pdb = Path.Combine(dir, Path.GetFileName(Corpus.PdbPath("cs-breakpoints")));
        File.Copy(Corpus.PdbPath("cs-breakpoints"), pdb, overwrite: true);
        string output = Path.Combine(dir, "unnamed.ilmap");
        var (code, _, stderr) = Corpus.Run(Environment.GetEnvironmentVariable("ILMAP_EXE")!, "compile", pdb, "-o", output, "-q");
        Assert.True(code == 0, $"ilmap compile {pdb} failed ({code}): {stderr}");
        return output;
    });

    public static IEnumerable<object[]> Readers() => new[] { new object[] { IlmapReader.Managed }, new object[] { IlmapReader.Native } };

    /// <summary>
    /// Every row of tests/breakpoints/expected.tsv (what tests/breakpoints/check.sh checks with the
    /// ilmap program), through the library: as many bindings as the row names methods, each in the
    /// expected document and on the expected line, in a method whose name contains the row's.
    /// </summary>
    [Theory]
    [MemberData(nameof(Readers))]
    public void BreakpointsBindAsNetcoredbg(IlmapReader reader)
    {
        using IlmapCache cache = Breakpoints(reader);
        var failures = new List<string>();
        int rows = 0;
        foreach (string row in File.ReadLines(Path.Combine(CorpusDir, "..", "tests", "breakpoints", "expected.tsv")))
        {
            if (row.Length == 0 || row.StartsWith('#'))
                continue;
            string[] f = row.Split('\t');
            string query = f[0], expect = f[2];
            int line = Marker(f[1]);
            rows++;
            if (expect == "none")
            {
                var e = Assert.Throws<IlmapException>(() => cache.Lines(query, line));
                Assert.Equal(IlmapStatus.NotFound, e.Status);
                continue;
            }
            string[] methods = f[3].Split(';');
            LineBinding[] got = cache.Lines(query, line);
            string file = "/_/Breakpoints/" + expect.Split('#')[0];
            int want = Marker(expect);
            bool ok = got.Length == methods.Length;
            for (int i = 0; ok && i < got.Length; i++)
                ok = got[i].File == file && got[i].Line == want && (cache.MethodName(got[i].Token) ?? "").Contains(methods[i], StringComparison.Ordinal);
            if (!ok)
                failures.Add($"{query}:{line} ({f[4]}): expected {f[3]} at {file}:{want}, got " +
                             string.Join("; ", got.Select(b => $"{b} {cache.MethodName(b.Token)}")));
        }
        Assert.True(rows >= 30, $"{rows} rows in expected.tsv");
        Assert.True(failures.Count == 0, string.Join("\n", failures));
    }

    [Theory]
    [MemberData(nameof(Readers))]
    public void BreakpointShapes(IlmapReader reader)
    {
        using IlmapCache cache = Breakpoints(reader);
        // A field initializer binds in both constructors, at the same span.
        LineBinding[] field = cache.Lines("Program.cs", Marker("Program.cs#field"));
        Assert.Equal(2, field.Length);
        Assert.NotEqual(field[0].Token, field[1].Token);
        Assert.All(field, b => Assert.EndsWith("..ctor", cache.MethodName(b.Token)!.Split('(')[0], StringComparison.Ordinal));
        Assert.Equal(field[0] with { Token = 0, ILOffset = 0 }, field[1] with { Token = 0, ILOffset = 0 });
        // The second line of a two-line statement binds the statement (its start line); the rule
        // "all methods" binds the next line that starts code instead.
        int second = Marker("Program.cs#two-line-second");
        LineBinding statement = Assert.Single(cache.Lines("Program.cs", second));
        Assert.Equal(Marker("Program.cs#two-line"), statement.Line);
        Assert.True(statement.EndLine >= second);
        LineBinding next = Assert.Single(cache.Lines("Program.cs", second, rule: LineRule.AllMethods));
        Assert.Equal(Marker("Program.cs#after-comments"), next.Line);
        // The statement that passes a lambda binds the statement; a column inside the lambda binds the lambda.
        int lambdaLine = Marker("Program.cs#lambda-line");
        LineBinding call = Assert.Single(cache.Lines("Program.cs", lambdaLine));
        Assert.StartsWith("Ilmap.Corpus.Breakpoints.Program.Run(", cache.MethodName(call.Token), StringComparison.Ordinal);
        Assert.Equal(lambdaLine, call.Line);
        // A line above every method binds the first method below it: here the field initializer,
        // in both constructors.
        Assert.Equal(field, cache.Lines("Program.cs", 1));
    }

    [Theory]
    [MemberData(nameof(Readers))]
    public void RelativePathsPickTheShortestMatch(IlmapReader reader)
    {
        using IlmapCache cache = Breakpoints(reader);
        int line = Marker("Program.cs#two-line-second");
        LineBinding[] exact = cache.Lines("/_/Breakpoints/Program.cs", line);
        Assert.Equal("/_/Breakpoints/Program.cs", Assert.Single(exact).File);
        // "Program.cs" ends both /_/Breakpoints/Program.cs and /_/Breakpoints/folder/Program.cs: the shorter wins.
        foreach (string q in new[] { "Program.cs", "../Program.cs", "Breakpoints/Program.cs", "./Breakpoints/folder/../Program.cs",
                                     "\\_\\Breakpoints\\Program.cs", "Breakpoints\\Program.cs", "./x/../../Program.cs" })
            Assert.Equal(exact, cache.Lines(q, line));
        foreach (string q in new[] { "folder/Program.cs", "./Breakpoints/folder/Program.cs", "Breakpoints\\folder\\Program.cs" })
            Assert.Equal("/_/Breakpoints/folder/Program.cs", Assert.Single(cache.Lines(q, line)).File);
        // No document: a wrong folder, part of a file name, an absolute path that is not a
        // document's, a path that ends with a separator.
        foreach (string q in new[] { "../wrong_folder/./Program.cs", "./wrong_folder/Program.cs", "gram.cs", "/Program.cs",
                                     "C:\\Program.cs", "Breakpoints/", "./", ".." })
        {
            var e = Assert.Throws<IlmapException>(() => cache.Lines(q, line));
            Assert.Equal(IlmapStatus.NotFound, e.Status);
        }
    }

    /// <summary>
    /// A cache without method names tells constructors by the spans they share (SPEC.md 6.2 step
    /// 6): on cs-breakpoints the field initializer still binds both constructors, a few shapes bind
    /// as with names, and the managed reader agrees with the native one on every line of both
    /// documents, with both rules (the agreement tests compile the corpus with names).
    /// </summary>
    [Fact]
    public void WithoutNamesConstructorsShareSpans()
    {
        using IlmapCache named = Breakpoints(IlmapReader.Native);
        using IlmapCache native = Breakpoints(IlmapReader.Native, names: false);
        using IlmapCache managed = Breakpoints(IlmapReader.Managed, names: false);
        Assert.Null(native.MethodName(0x06000001));
        Assert.Null(managed.MethodName(0x06000001));
        Assert.Equal(2, managed.Lines("Program.cs", Marker("Program.cs#field")).Length);
        foreach (string at in new[] { "field", "ctor-body", "two-line-second", "lambda-line", "close-then-local", "deep-blank", "loop" })
        {
            int line = Marker("Program.cs#" + at);
            Assert.Equal(named.Lines("Program.cs", line), native.Lines("Program.cs", line));
        }
        int queries = 0;
        foreach (string path in new[] { "/_/Breakpoints/Program.cs", "/_/Breakpoints/folder/Program.cs" })
            for (int line = 1; line <= File.ReadAllLines(Path.Combine(CorpusDir, "src", "Breakpoints", path["/_/Breakpoints/".Length..])).Length + 1; line++)
                foreach (int column in new[] { 0, 9, 30 })
                    foreach (LineRule rule in new[] { LineRule.Debugger, LineRule.AllMethods })
                    {
                        Assert.Equal(native.Lines(path, line, column, rule), managed.Lines(path, line, column, rule));
                        queries++;
                    }
        Assert.True(queries > 500);
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
