// The managed reader against the native one (libilmap): every cache compiled from corpus/ (and
// ../shared/corpus-public when present, and the NuGet Windows PDB corpus of corpus/windows when
// test.sh restored it) asked the same questions of both — every method at every
// IL offset up to its last point + 4, every line of every document with and without columns
// under both binding rules, relative document paths, every method name, the identity, embedded
// sources, verify — and every answer compared.
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Ilmap.Managed;
using Xunit;
using Xunit.Abstractions;

namespace Ilmap.Tests;

public class AgreementTests(ITestOutputHelper output)
{
    /// <summary>Every input of corpus/out, ../shared/corpus-public and the NuGet Windows corpus: (label, extra ilmap options).</summary>
    public static IEnumerable<object[]> Inputs()
    {
        string corpus = Environment.GetEnvironmentVariable("ILMAP_CORPUS_DIR") ?? "";
        if (corpus.Length == 0)
            yield break;
        foreach (string dir in Directory.GetDirectories(Path.Combine(corpus, "out")).Order(StringComparer.Ordinal))
            foreach (string file in Directory.GetFiles(dir).Where(IsInput).Order(StringComparer.Ordinal))
            {
                yield return new object[] { "corpus/" + Path.GetFileName(dir) + "/" + Path.GetFileName(file), "" };
                if (file.EndsWith(".pdb", StringComparison.Ordinal))
                    yield return new object[] { "corpus/" + Path.GetFileName(dir) + "/" + Path.GetFileName(file), "--embed-sources" };
            }
        string? shared = SharedCorpus();
        if (shared != null)
            foreach (string dir in Directory.GetDirectories(shared).Order(StringComparer.Ordinal))
                foreach (string file in Directory.GetFiles(dir).Where(IsInput).Order(StringComparer.Ordinal))
                    yield return new object[] { "shared/" + Path.GetFileName(dir) + "/" + Path.GetFileName(file), "--embed-sources" };
        foreach (string name in WindowsCorpus().Keys.Order(StringComparer.Ordinal))
            yield return new object[] { "nuget/" + name, "" };
    }

    /// <summary>The NuGet Windows PDB corpus (corpus/windows/manifest.tsv, restored by
    /// corpus/windows/restore.sh into ILMAP_WINDOWS_CORPUS, as test.sh does): case name -> the
    /// assembly, whose Windows PDB lies beside it. Empty when it was not restored.</summary>
    static Dictionary<string, string> WindowsCorpus()
    {
        var cases = new Dictionary<string, string>(StringComparer.Ordinal);
        string root = Environment.GetEnvironmentVariable("ILMAP_WINDOWS_CORPUS") ?? "";
        string corpus = Environment.GetEnvironmentVariable("ILMAP_CORPUS_DIR") ?? "";
        string manifest = Path.Combine(corpus, "windows", "manifest.tsv");
        if (root.Length == 0 || !File.Exists(manifest))
            return cases;
        foreach (string line in File.ReadLines(manifest).Skip(1))
        {
            string[] f = line.Split('\t');
            if (f.Length < 5 || f[0].Length == 0 || f[0].StartsWith('#'))
                continue;
            cases[f[0]] = Path.Combine(root, f[1].ToLowerInvariant(), f[2], f[4]);
        }
        return cases;
    }

    static bool IsInput(string f) => f.EndsWith(".pdb", StringComparison.Ordinal) || f.EndsWith(".dll", StringComparison.Ordinal);

    /// <summary>../shared/corpus-public beside the repository (the corpus dir is REPO/corpus), or null.</summary>
    static string? SharedCorpus()
    {
        string corpus = Environment.GetEnvironmentVariable("ILMAP_CORPUS_DIR") ?? "";
        string dir = Path.GetFullPath(Path.Combine(corpus, "..", "..", "shared", "corpus-public"));
        return Directory.Exists(dir) ? dir : null;
    }

    internal static string InputPath(string label)
    {
        string corpus = Environment.GetEnvironmentVariable("ILMAP_CORPUS_DIR")!;
        if (label.StartsWith("nuget/", StringComparison.Ordinal))
            return WindowsCorpus()[label["nuget/".Length..]];
        return label.StartsWith("corpus/", StringComparison.Ordinal)
            ? Path.Combine(corpus, "out", label["corpus/".Length..])
            : Path.Combine(SharedCorpus()!, label["shared/".Length..]);
    }

    /// <summary>Compiles an input; null when ilmap refuses it (then there is nothing to compare).</summary>
    static string? Compile(string label, string options)
    {
        string output = Corpus.TempFile(label.Replace('/', '_') + (options.Length > 0 ? ".sources" : "") + ".ilmap");
        var args = new List<string> { "compile", InputPath(label), "-o", output, "-q" };
        if (options.Length > 0)
            args.Add(options);
        var (code, _, _) = Corpus.Run(Environment.GetEnvironmentVariable("ILMAP_EXE")!, args.ToArray());
        return code == 0 ? output : null;
    }

    static IlmapCache OpenNative(string path) => IlmapCache.Open(path, IlmapReader.Native);

    static IlmapCache OpenManaged(string path) => IlmapCache.Open(path, IlmapReader.Managed);

    /// <summary>The outcome of a call as text: its value, or the IlmapException's status.</summary>
    static string Outcome<T>(Func<T> call)
    {
        try
        {
            T value = call();
            return "ok " + (value is byte[] b ? Convert.ToHexString(b) : value?.ToString() ?? "null");
        }
        catch (IlmapException ex)
        {
            return "error " + ex.Status;
        }
    }

    [Theory]
    [MemberData(nameof(Inputs))]
    public void ManagedAnswersAsNative(string label, string options)
    {
        string? path = Compile(label, options);
        if (path == null)
        {
            output.WriteLine($"{label} {options}: ilmap does not compile it; nothing to compare");
            return;
        }
        using IlmapCache native = OpenNative(path);
        using IlmapCache managed = OpenManaged(path);
        long queries = 0;
        var clock = System.Diagnostics.Stopwatch.StartNew();
        var phases = new List<string>();
        void Phase(string what) => phases.Add($"{what} {clock.ElapsedMilliseconds} ms");

        // Identity and counts.
        Assert.Equal(native.MethodCount, managed.MethodCount);
        Assert.Equal(native.PointCount, managed.PointCount);
        Assert.Equal(native.DocumentCount, managed.DocumentCount);
        Assert.Equal(native.PdbId.ToArray(), managed.PdbId.ToArray());
        Assert.Equal(native.DebugId, managed.DebugId);
        Assert.Equal(native.PdbKey, managed.PdbKey);
        Assert.Equal(native.PeName, managed.PeName);
        Assert.Equal(native.PeKey, managed.PeKey);
        Assert.Equal(native.CodeId, managed.CodeId);
        Assert.Equal(native.Mvid, managed.Mvid);
        Assert.Equal(native.CompilerVersion, managed.CompilerVersion);
        Assert.Equal(Outcome(() => { native.Verify(); return 0; }), Outcome(() => { managed.Verify(); return 0; }));
        queries += 12;

        // Documents and embedded sources.
        for (int d = 0; d < native.DocumentCount; d++)
        {
            Assert.Equal(native.DocumentPath(d), managed.DocumentPath(d));
            Assert.Equal(Outcome(() => native.EmbeddedSourceBytes(d)), Outcome(() => managed.EmbeddedSourceBytes(d)));
            queries += 2;
        }

        Phase("identity, documents");
        // Lookups: every method at every IL offset to its last point + 4, and odd ones.
        var m = (ManagedCache)managed.Backend;
        var codeLines = new Dictionary<string, SortedSet<int>>(); // start and end lines seen per document
        var codePoints = new Dictionary<string, HashSet<long>>(); // visible points seen per document: (row, IL offset)
        int[] odd = [-1, int.MinValue, int.MaxValue, 0xFFFFFF, 0x10000];
        for (int row = 0; row <= native.MethodCount + 1; row++)
        {
            long last = row == 0 ? -1 : m.LastIlOffset((uint)row);
            foreach (int x in Enumerable.Range(0, (int)Math.Max(0, last + 5)).Concat(odd))
            {
                int token = 0x06000000 | row;
                bool nf = native.TryLookup(token, x, out SourceLocation a);
                bool mf = managed.TryLookup(token, x, out SourceLocation b);
                Assert.True(nf == mf && Same(a, b), $"{label} token 0x{token:x8} IL {x}: native {nf} {Show(a)}, managed {mf} {Show(b)}");
                bool nr = native.TryLookupRow(row, x, out a);
                bool mr = managed.TryLookupRow(row, x, out b);
                Assert.True(nr == mr && Same(a, b), $"{label} row {row} IL {x}: native {nr} {Show(a)}, managed {mr} {Show(b)}");
                if (nf)
                {
                    if (!codeLines.TryGetValue(a.File, out SortedSet<int>? set))
                        codeLines[a.File] = set = new SortedSet<int>();
                    set.Add(a.Line);
                    set.Add(a.EndLine);
                    if (!codePoints.TryGetValue(a.File, out HashSet<long>? points))
                        codePoints[a.File] = points = new HashSet<long>();
                    points.Add(((long)row << 32) | (uint)a.ILOffset);
                }
                queries += 2;
            }
        }
        foreach (int token in new[] { 0x02000001, 0x0A000001, 0x06FFFFFF, 0 })
        {
            Assert.Equal(native.TryLookup(token, 0, out _), managed.TryLookup(token, 0, out _));
            queries++;
        }

        Phase("lookups");
        // Lines: every line of every document (by its path, the other separator, its file name),
        // with no column and with a few: every line up to the last a point starts or ends on + 2
        // (beyond line 2000, as #line directives make, only those lines and the ones around them),
        // under the rules DebuggerLines says.
        var paths = Enumerable.Range(0, native.DocumentCount).Select(native.DocumentPath).Distinct().ToList();
        var ruleQueries = new long[Rules.Length];
        var bufferN = new LineBinding[64];
        var bufferM = new LineBinding[64];
        foreach (string p in paths)
        {
            SortedSet<int> seen = codeLines.GetValueOrDefault(p) ?? new SortedSet<int>();
            var debugger = new DebuggerLines(codePoints.GetValueOrDefault(p)?.Count ?? 0, label + options);
            var lines = new SortedSet<int>(Enumerable.Range(1, Math.Min(seen.Count == 0 ? 3 : seen.Max, 2000) + 2));
            foreach (int l in seen)
                lines.UnionWith(new[] { l - 1, l, l + 1, l + 2 }.Where(x => x >= 1));
            string[] spellings = [p, p.Replace('\\', '/'), Path.GetFileName(p.Replace('\\', '/'))];
            foreach (string q in spellings.Distinct().Where(s => s.Length > 0))
            {
                foreach (int line in lines)
                {
                    foreach (int column in q == p ? Columns : NoColumn)
                        foreach (LineRule rule in debugger.RulesFor(q == p, line, column))
                        {
                            string no = Outcome(() => Show(bufferN, native.Lines(q, line, bufferN, column, rule)));
                            string mo = Outcome(() => Show(bufferM, managed.Lines(q, line, bufferM, column, rule)));
                            Assert.True(no == mo, $"{label} lines {q}:{line}:{column} {rule}: native {no}, managed {mo}");
                            queries++;
                            ruleQueries[(int)rule]++;
                        }
                }
            }
        }
        // Paths that name no document, or one by a relative path ("./", "../" resolved, the
        // shortest match), for both rules.
        var relative = new List<string> { "no-such-file.cs", "/", "x", "\\", "./", "../", "C:\\x.cs", "a/../" };
        foreach (string p in paths)
        {
            string name = Path.GetFileName(p.Replace('\\', '/'));
            if (name.Length > 0)
                relative.AddRange(new[] { "./" + name, "../" + name, "x/../" + name, "/" + name, "./x/" + name, name[1..] });
        }
        foreach (string q in relative.Distinct())
            foreach (LineRule rule in Rules)
            {
                string no = Outcome(() => Show(native.Lines(q, 1, 0, rule)));
                string mo = Outcome(() => Show(managed.Lines(q, 1, 0, rule)));
                Assert.True(no == mo, $"{label} lines {q}:1 {rule}: native {no}, managed {mo}");
                queries++;
            }

        Phase($"lines ({string.Join(", ", Rules.Select(r => $"{ruleQueries[(int)r]} {r}"))})");
        // Method names, both flavors, past the last method.
        for (int row = 0; row <= native.MethodCount + 300; row++)
            foreach (MethodNameFlavor flavor in new[] { MethodNameFlavor.CoreClr, MethodNameFlavor.Mono })
            {
                int token = 0x06000000 | row;
                Assert.Equal(native.MethodName(token, flavor), managed.MethodName(token, flavor));
                queries++;
            }
        Phase("names");
        output.WriteLine($"{label} {options}: {queries} queries agree ({string.Join(", ", phases)})");
    }

    static readonly LineRule[] Rules = [LineRule.Debugger, LineRule.AllMethods];
    static readonly LineRule[] AllMethodsRule = [LineRule.AllMethods];

    static readonly int[] Columns = [0, 1, 5, 9, 13, 20, 33, 60], NoColumn = [0];

    /// <summary>
    /// The rules the lines queries of a document are compared under: "all methods" always (the
    /// queries of ilmap 0.2.0's tests), "debugger" on some. The debugger rule reads every point of
    /// the document, in the native reader too (SPEC.md 6.2): a query costs as much as the document
    /// is large, and asking every query under it would make this test several times slower. So
    /// "debugger" is asked on every line of a document of up to <see cref="Points"/> visible
    /// points, on every k-th line of a larger one (k = its points / Points, rounded up; which
    /// lines depends on the cache, so that the variants of a corpus case cover different ones):
    /// there without a column by the document's own path, on every 8th such line with one of the
    /// columns (another from one to the next), and on every 16th by the other spellings. A column
    /// binds as under "all methods" when it lies inside a point of the line, else as no column.
    /// </summary>
    readonly struct DebuggerLines(int points, string cache)
    {
        const int Points = 500;

        readonly int _stride = Math.Max(1, (points + Points - 1) / Points);
        readonly int _offset = (int)(Hash(cache) % (uint)Math.Max(1, (points + Points - 1) / Points));

        static uint Hash(string s)
        {
            uint h = 2166136261;
            foreach (char c in s)
                h = (h ^ c) * 16777619;
            return h;
        }

        public LineRule[] RulesFor(bool ownPath, int line, int column)
        {
            int d = line - _offset;
            if (d < 0 || d % _stride != 0)
                return AllMethodsRule;
            int k = d / _stride;
            bool debugger = ownPath
                ? column == 0 || (k % 8 == 0 && column == Columns[1 + k / 8 % (Columns.Length - 1)])
                : k % 16 == 0;
            return debugger ? Rules : AllMethodsRule;
        }
    }

    static bool Same(in SourceLocation a, in SourceLocation b) =>
        a.File == b.File && a.Url == b.Url && a.Language == b.Language && a.Line == b.Line && a.Column == b.Column
        && a.EndLine == b.EndLine && a.EndColumn == b.EndColumn && a.ILOffset == b.ILOffset;

    static string Show(in SourceLocation l) =>
        $"{l.File} [{l.Url}] {l.Language} {l.Line}:{l.Column}-{l.EndLine}:{l.EndColumn} IL {l.ILOffset}";

    static string Show(LineBinding[] all) => Show(all, all.Length);

    static string Show(LineBinding[] buffer, int n) =>
        n + ": " + string.Join("; ", buffer.Take(Math.Min(n, buffer.Length)).Select(b => b.ToString() + $"-{b.EndLine}:{b.EndColumn}"));
}
