// IlmapCache.TryLookupFrame (SPEC.md 6.4, the state-machine fallback) in both readers: the async
// and iterator frames CoreCLR printed for the Frames corpus assembly get the line the runtime
// printed with the PDB present, as tests/cli/cases/state-machine-frames-every-entry.sh checks
// for the CLI, serve, Sentry events and the C API; and the managed reader's answer equals the
// native one (ilmap_locate_frame) for every method at the IL offset of each of its points, of
// its state machine's points and a few past them, on every corpus cache with method names.
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text.RegularExpressions;
using Ilmap.Managed;
using Xunit;
using Xunit.Abstractions;

namespace Ilmap.Tests;

public class FrameTests(ITestOutputHelper output)
{
    /// <summary>A frame of the Frames assembly in corpus/traces/cs-frames.il-offsets.txt.</summary>
    sealed record TraceFrame(string Scenario, int Index, int Token, int ILOffset, string Printed);

    /// <summary>
    /// The async and iterator scenarios' frames of Ilmap.Corpus.Frames.dll, numbered as
    /// corpus/runtime-frames.tsv numbers them (every "   at " line of the scenario counts).
    /// </summary>
    static List<TraceFrame> StateMachineScenarioFrames()
    {
        var frames = new List<TraceFrame>();
        var at = new Regex(@"^   at (.*) in Ilmap\.Corpus\.Frames\.dll:token 0x([0-9a-f]+)\+0x([0-9a-f]+)$");
        string scenario = "";
        int n = 0;
        string corpus = Environment.GetEnvironmentVariable("ILMAP_CORPUS_DIR")!;
        foreach (string line in File.ReadLines(Path.Combine(corpus, "traces", "cs-frames.il-offsets.txt")))
        {
            if (line.StartsWith("== ", StringComparison.Ordinal))
            {
                (scenario, n) = (line[3..], 0);
                continue;
            }
            if (!line.StartsWith("   at ", StringComparison.Ordinal))
                continue;
            Match m = at.Match(line);
            if (m.Success && scenario is "async" or "iterator")
                frames.Add(new TraceFrame(scenario, n, Convert.ToInt32(m.Groups[2].Value, 16), Convert.ToInt32(m.Groups[3].Value, 16),
                                          m.Groups[1].Value));
            n++;
        }
        return frames;
    }

    /// <summary>corpus/runtime-frames.tsv: (scenario, frame) -> (method token, file, line, column) the runtime printed.</summary>
    static Dictionary<(string, int), (int Token, string File, int Line, int Column)> RuntimeFrames()
    {
        var frames = new Dictionary<(string, int), (int, string, int, int)>();
        string corpus = Environment.GetEnvironmentVariable("ILMAP_CORPUS_DIR")!;
        foreach (string line in File.ReadLines(Path.Combine(corpus, "runtime-frames.tsv")))
        {
            if (line.StartsWith('#'))
                continue;
            string[] f = line.Split('\t');
            frames[(f[0], int.Parse(f[1]))] = (Convert.ToInt32(f[3], 16), f[5], int.Parse(f[6]), int.Parse(f[7]));
        }
        return frames;
    }

    [Theory]
    [InlineData(IlmapReader.Managed)]
    [InlineData(IlmapReader.Native)]
    public void StateMachineFramesGetTheRuntimesLine(IlmapReader reader)
    {
        List<TraceFrame> frames = StateMachineScenarioFrames();
        var runtime = RuntimeFrames();
        // The fallback needs the method names: a cache compiled from the PE has them.
        using var cache = IlmapCache.Open(Corpus.CachePath("cs-frames", fromPe: true), reader);
        int viaStateMachine = 0;
        foreach (TraceFrame f in frames)
        {
            var want = runtime[(f.Scenario, f.Index)];
            string where = $"{reader} {f.Scenario} frame {f.Index} (0x{f.Token:x8}+0x{f.ILOffset:x} {f.Printed})";
            foreach (string? printed in new[] { f.Printed, null, "" })
            {
                Assert.True(cache.TryLookupFrame(f.Token, f.ILOffset, out FrameLocation got, printed), $"{where}, printed '{printed}': no answer");
                Assert.Equal((want.File, want.Line, want.Column), (got.Location.File, got.Location.Line, got.Location.Column));
                // The method whose points answered is the one the runtime names.
                Assert.Equal(want.Token, got.StateMachineMethod == 0 ? f.Token : got.StateMachineMethod);
            }
            bool plain = cache.TryLookup(f.Token, f.ILOffset, out SourceLocation own);
            if (want.Token != f.Token)
            {
                // A state machine's frame: the kickoff method's own points do not answer it.
                Assert.False(plain, $"{where}: TryLookup answers {own}, which leaves the fallback untested");
                viaStateMachine++;
            }
            else
            {
                Assert.True(plain && own.Line == want.Line, $"{where}: TryLookup gives {own}");
            }
            // A printed text that is not the state machine method's: nothing is asked of it.
            if (want.Token != f.Token)
                Assert.False(cache.TryLookupFrame(f.Token, f.ILOffset, out _, f.Printed + "x"), $"{where}: answered another text");
        }
        // Iterator: Fail, Numbers+MoveNext, Iterator; async: Fail, InnerAsync, RunAsync, a lambda.
        Assert.Equal(7, frames.Count);
        Assert.Equal(3, viaStateMachine);
    }

    [Theory]
    [InlineData(IlmapReader.Managed)]
    [InlineData(IlmapReader.Native)]
    public void FrameLookupDoesNotAllocate(IlmapReader reader)
    {
        using var cache = IlmapCache.Open(Corpus.CachePath("cs-frames", fromPe: true), reader);
        var queries = new List<(int Token, int IL, string? Printed)>();
        for (int row = 1; row <= cache.MethodCount; row++)
            for (int x = -1; x < 300; x += 7)
                foreach (string? printed in new[] { null, cache.MethodName(0x06000000 | row) })
                    queries.Add((0x06000000 | row, x, printed));
        long hits = 0, viaStateMachine = 0;
        for (int rep = 0; rep < 3; rep++) // the first round makes the strings, the name index, the scratch
        {
            long before = GC.GetAllocatedBytesForCurrentThread();
            foreach (var (t, x, printed) in queries)
                if (cache.TryLookupFrame(t, x, out FrameLocation f, printed))
                {
                    hits++;
                    viaStateMachine += f.StateMachineMethod != 0 ? 1 : 0;
                }
            long allocated = GC.GetAllocatedBytesForCurrentThread() - before;
            if (rep > 0)
                Assert.True(allocated == 0, $"{reader}: {queries.Count} frame lookups allocated {allocated} bytes");
        }
        Assert.True(hits > 0 && viaStateMachine > 0, $"{reader}: {hits} answers, {viaStateMachine} by a state machine's method");
    }

    [Theory]
    [InlineData("NS.Outer`1.Inner.M[T](Int32 x, String[] args)", "NS.Outer`1.Inner.M")]
    [InlineData("NS.C.M(Int32 n)+MoveNext()", "NS.C.M")]
    [InlineData("NS.C.M (System.Int32 x)", "NS.C.M")]      // one space before the cut goes
    [InlineData("NS.C.M  (x)", "NS.C.M ")]                  // one only
    [InlineData("NS.C.M ", "NS.C.M ")]                      // no '(': no cut, the space stays
    [InlineData("A+B.M[T[U]]V(x)", "A.B.MV")]               // nested brackets, '+' -> '.'
    [InlineData("A.M]x(", "A.Mx")]                          // a ']' without its '[' is dropped
    [InlineData("A.M[T.Rest(x)", "A.M")]                    // everything after an unclosed '['
    [InlineData("<Module>.F", "<Module>.F")]
    [InlineData("", "")]
    public void StateMachineNameCut(string text, string name)
    {
        byte[] utf8 = System.Text.Encoding.UTF8.GetBytes(text);
        var buffer = new byte[utf8.Length];
        int n = ManagedCache.FrameKey(utf8, buffer);
        Assert.Equal(name, System.Text.Encoding.UTF8.GetString(buffer, 0, n));
    }

    /// <summary>Every corpus input (AgreementTests.Inputs), once each.</summary>
    public static IEnumerable<object[]> Inputs() =>
        AgreementTests.Inputs().Select(i => (string)i[0]).Distinct().Select(label => new object[] { label });

    [Theory]
    [MemberData(nameof(Inputs))]
    public void ManagedFramesAsNative(string label)
    {
        string path = Corpus.TempFile(label.Replace('/', '_') + ".frames.ilmap");
        var (code, _, _) = Corpus.Run(Environment.GetEnvironmentVariable("ILMAP_EXE")!,
                                      "compile", AgreementTests.InputPath(label), "-o", path, "-q");
        if (code != 0)
        {
            output.WriteLine($"{label}: ilmap does not compile it; nothing to compare");
            return;
        }
        using IlmapCache native = IlmapCache.Open(path, IlmapReader.Native);
        using IlmapCache managed = IlmapCache.Open(path, IlmapReader.Managed);
        var m = (ManagedCache)managed.Backend;
        // The IL offsets to ask of each row: its points' and those of the methods whose kickoff
        // it is (the state machine's offsets a frame prints under the kickoff's token), each
        // and the next one, and a few past the last.
        var offsets = new Dictionary<uint, SortedSet<int>>();
        var stateMachines = new Dictionary<uint, List<int>>(); // kickoff row -> its state machine's methods
        var points = new List<uint>();
        for (uint row = 1; row <= (uint)managed.MethodCount; row++)
        {
            points.Clear();
            m.PointOffsets(row, points);
            uint kickoff = m.KickoffOf(0x06000000u | row);
            if (kickoff != 0)
            {
                if (!stateMachines.TryGetValue(kickoff & 0xFFFFFF, out List<int>? list))
                    stateMachines[kickoff & 0xFFFFFF] = list = new List<int>();
                list.Add((int)(0x06000000u | row));
            }
            foreach (uint owner in kickoff != 0 ? new[] { row, kickoff & 0xFFFFFF } : new[] { row })
            {
                if (!offsets.TryGetValue(owner, out SortedSet<int>? set))
                    offsets[owner] = set = new SortedSet<int> { 0, -1, 0x10000, int.MaxValue };
                foreach (uint x in points)
                    set.UnionWith(new[] { (int)x, (int)x + 1 });
                if (points.Count > 0)
                    set.UnionWith(new[] { (int)points.Max() + 4, (int)points.Max() + 64 });
            }
        }
        long queries = 0, fallbacks = 0, disagreements = 0;
        foreach ((uint row, SortedSet<int> set) in offsets)
        {
            int token = unchecked((int)(0x06000000u | row));
            string? own = managed.MethodName(token);
            foreach (int x in set)
                foreach (string? printed in new[] { "", own })
                {
                    bool nf = native.TryLookupFrame(token, x, out FrameLocation a, printed);
                    bool mf = managed.TryLookupFrame(token, x, out FrameLocation b, printed);
                    Assert.True(nf == mf && a.StateMachineMethod == b.StateMachineMethod && Same(a.Location, b.Location),
                        $"{label} 0x{token:x8} IL {x} printed '{printed}': native {nf} 0x{a.StateMachineMethod:x8} {Show(a.Location)}, " +
                        $"managed {mf} 0x{b.StateMachineMethod:x8} {Show(b.Location)}");
                    queries++;
                    if (nf && a.StateMachineMethod != 0)
                        fallbacks++;
                    // No answer although a state machine's method has one: its methods disagree (step 4).
                    if (!nf && printed == "" && stateMachines.TryGetValue(row, out List<int>? sm)
                        && sm.Any(u => managed.TryLookup(u, x, out _)))
                        disagreements++;
                }
        }
        Assert.True(queries > 0 || managed.MethodCount == 0, $"{label}: no frame compared");
        output.WriteLine($"{label}: {queries} frames agree, {fallbacks} answered by a state machine's method, " +
                         $"{disagreements} left unanswered as its methods disagree{(m.HasNames ? "" : " (no method names)")}");
        // Without names (a PDB compiled without its PE) there is no fallback.
        if (!m.HasNames)
            Assert.Equal(0, fallbacks);
        // The Frames assembly has async and iterator methods: the fallback answered some of them.
        if (label.Contains("cs-frames", StringComparison.Ordinal))
            Assert.True(fallbacks > 0, $"{label}: no frame was answered by a state machine's method");
    }

    static bool Same(in SourceLocation a, in SourceLocation b) =>
        a.File == b.File && a.Url == b.Url && a.Language == b.Language && a.Line == b.Line && a.Column == b.Column
        && a.EndLine == b.EndLine && a.EndColumn == b.EndColumn && a.ILOffset == b.ILOffset;

    static string Show(in SourceLocation l) => $"{l.File} {l.Line}:{l.Column}-{l.EndLine}:{l.EndColumn} IL {l.ILOffset}";
}
