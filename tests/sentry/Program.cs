// SentryProbe - real Sentry events for ilmap's Sentry symbolication test (tests/sentry/run.sh).
//
// Usage: SentryProbe OUTDIR. Each scenario throws an exception through a different kind of code
// and captures it with SentrySdk.CaptureException; the transport below writes the envelope the
// SDK would send to OUTDIR/<scenario>.envelope (nothing goes to the network). OUTDIR/truth.tsv
// gets the runtime's own view of every frame (System.Diagnostics.StackTrace with file info):
// scenario, method token, IL offset, file, line, column. Run once with the PDB beside the
// program (the SDK and the runtime then fill in lines) and once without it (the events carry
// only function_id and instruction_addr, which ilmap must resolve).
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using Sentry;
using Sentry.Extensibility;
using Sentry.Protocol.Envelopes;

namespace Ilmap.SentryProbe;

sealed class FileTransport : ITransport
{
    private readonly string _dir;
    public FileTransport(string dir) { _dir = dir; }
    public static string Scenario = "unnamed";

    public async Task SendEnvelopeAsync(Envelope envelope, CancellationToken cancellationToken = default)
    {
        var path = Path.Combine(_dir, Scenario + ".envelope");
        await using var file = File.Create(path);
        await envelope.SerializeAsync(file, null, cancellationToken).ConfigureAwait(false);
    }
}

static class Shapes
{
    public static int Divide(int a, int b) => a / b;
    public static int Divide(long a, long b) => (int)(a / b) + Divide((int)a, (int)b);
    public static string Describe(string s) => s.Length.ToString();
    public static string Describe(object? o) => Describe((string)o!);
}

class Outer<T>
{
    public class Inner<U>
    {
        public static string Combine(T t, U u)
        {
            var parts = new List<string> { t!.ToString()!, u!.ToString()! };
            return Pick(parts, 5);
        }

        static string Pick<V>(IReadOnlyList<V> list, int index) => list[index]!.ToString()!;
    }
}

static class Program
{
    static readonly List<string> Truth = new();

    static async Task<int> LeafAsync(int depth)
    {
        await Task.Yield();
        if (depth == 0)
            throw new InvalidOperationException("deep in async");
        return await LeafAsync(depth - 1) + 1;
    }

    static async Task<int> MiddleAsync()
    {
        var n = await LeafAsync(2);
        return n * 2;
    }

    static IEnumerable<int> Countdown(int from)
    {
        for (var i = from; i >= -1; i--)
        {
            if (i < 0)
                throw new ArgumentOutOfRangeException(nameof(from), "iterator ran past zero");
            yield return 10 / (i + 1);
        }
    }

    static int LocalFunctions(int x)
    {
        int Twice(int y) => Checked(y) * 2;
        static int Checked(int y) => y > 3 ? throw new ArgumentException("local function") : y;
        return Twice(x) + Twice(x + 3);
    }

    static int Lambdas(int[] values)
    {
        Func<int, int> f = v =>
        {
            if (v == 0)
                throw new DivideByZeroException("lambda");
            return 100 / v;
        };
        return values.Select(f).Sum();
    }

    static void Nested()
    {
        try
        {
            Shapes.Divide(7L, 0L);
        }
        catch (DivideByZeroException e)
        {
            throw new InvalidOperationException("wrapped", e);
        }
    }

    static void Record(string scenario, Exception ex)
    {
        for (var e = ex; e != null; e = e.InnerException)
        {
            foreach (var f in new StackTrace(e, true).GetFrames())
            {
                var m = f.GetMethod();
                if (m == null) continue;
                var token = m.Module.Assembly == typeof(Program).Assembly ? m.MetadataToken : 0;
                Truth.Add(string.Join('\t', scenario, $"0x{token:x8}", f.GetILOffset().ToString(),
                    f.GetFileName() ?? "", f.GetFileLineNumber().ToString(), f.GetFileColumnNumber().ToString()));
            }
        }
    }

    // A message, not an exception: the SDK attaches the current stack (AttachStacktrace) to
    // `threads`. The runtime's truth is not recorded for it (its own StackTrace would stand at
    // another IL offset); run.sh compares it with the SDK's frames with the PDB only.
    sealed class Reporter<T>
    {
        public void Report(T value) => Deeper(value, 2);

        void Deeper(T value, int n)
        {
            if (n > 0)
            {
                Deeper(value, n - 1);
                return;
            }
            FileTransport.Scenario = "message";
            SentrySdk.CaptureMessage("report of " + value);
            SentrySdk.Flush(TimeSpan.FromSeconds(10));
        }
    }

    static void Run(string scenario, Action action)
    {
        FileTransport.Scenario = scenario;
        try
        {
            action();
            throw new Exception("scenario did not throw: " + scenario);
        }
        catch (Exception ex) when (ex.Message != "scenario did not throw: " + scenario)
        {
            Record(scenario, ex);
            SentrySdk.CaptureException(ex);
            SentrySdk.Flush(TimeSpan.FromSeconds(10));
        }
    }

    static int Main(string[] args)
    {
        if (args.Length != 1)
        {
            Console.Error.WriteLine("usage: SentryProbe OUTDIR");
            return 1;
        }
        var dir = Directory.CreateDirectory(args[0]).FullName;
        using (SentrySdk.Init(o =>
        {
            o.Dsn = "http://public@127.0.0.1:9/1";  // never contacted: the transport writes files
            o.Transport = new FileTransport(dir);
            o.AutoSessionTracking = false;
            o.IsGlobalModeEnabled = true;
            o.SendDefaultPii = false;
            o.Release = "sentry-probe@1.0";
            o.AttachStacktrace = true;
        }))
        {
            Run("async", () => MiddleAsync().GetAwaiter().GetResult());
            Run("iterator", () => Countdown(3).Sum());
            Run("local-functions", () => LocalFunctions(2));
            Run("lambda", () => Lambdas(new[] { 5, 4, 0, 1 }));
            Run("generic-nested", () => Outer<int>.Inner<string>.Combine(1, "x"));
            Run("overloads", () => Shapes.Describe((object?)null));
            Run("inner-exception", Nested);
            new Reporter<int>().Report(42);
        }
        File.WriteAllText(Path.Combine(dir, "truth.tsv"), string.Join('\n', Truth) + "\n", new UTF8Encoding(false));
        return 0;
    }
}
