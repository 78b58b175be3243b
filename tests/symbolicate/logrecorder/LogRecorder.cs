// LogRecorder.cs - logs the exceptions of a corpus program's scenarios through
// Microsoft.Extensions.Logging's console formatters, as a service does, for
// corpus/traces/record-logs.sh: `LogRecorder MODE DLL COUNT`, MODE one of
//   simple       timestamp, level and category, then the message and the trace, indented
//   single-line  the same on one line: the trace's lines joined with spaces
//   json         one JSON object per entry, the trace in "Exception" (\n escapes)
//   systemd      "<3>category[0] message trace" on one line (journald's priority prefix)
// COUNT: how many of Scenarios.All() to run.
using System;
using System.Collections;
using System.Linq;
using System.Reflection;
using Microsoft.Extensions.Logging;

static class LogRecorder
{
    static int Main(string[] args)
    {
        if (args.Length != 3) { Console.Error.WriteLine("usage: LogRecorder simple|single-line|json|systemd DLL COUNT"); return 2; }
        string mode = args[0];
        Type scenarios = Assembly.LoadFrom(args[1]).GetTypes().First(t => t.Name == "Scenarios");
        var all = (IEnumerable)scenarios.GetMethod("All").Invoke(null, null);
        using (var factory = LoggerFactory.Create(b => Configure(b, mode)))
        {
            ILogger log = factory.CreateLogger("Ilmap.LogRecorder");
            int n = 0, count = int.Parse(args[2]);
            foreach (object pair in all)
            {
                if (n++ == count) break;
                var name = (string)pair.GetType().GetField("Item1").GetValue(pair);
                var action = (Action)pair.GetType().GetField("Item2").GetValue(pair);
                try { action(); }
                catch (Exception e) { log.LogError(e, "Scenario {Scenario} failed", name); }
            }
        }
        return 0;
    }

    static void Configure(ILoggingBuilder b, string mode)
    {
        const string stamp = "yyyy-MM-ddTHH:mm:ss.fffZ";
        switch (mode)
        {
            case "simple":
                b.AddSimpleConsole(o => { o.TimestampFormat = stamp + " "; o.UseUtcTimestamp = true; });
                break;
            case "single-line":
                b.AddSimpleConsole(o => { o.SingleLine = true; o.TimestampFormat = stamp + " "; o.UseUtcTimestamp = true; });
                break;
            case "json":
                b.AddJsonConsole(o => { o.TimestampFormat = stamp; o.UseUtcTimestamp = true; });
                break;
            case "systemd":
                b.AddSystemdConsole();
                break;
            default:
                throw new ArgumentException("unknown mode " + mode);
        }
    }
}
