using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.Reflection;
using System.Text;
using System.Threading.Tasks;

namespace Ilmap.Corpus.Frames
{
    public static class Program
    {
        private static readonly Assembly Self = typeof(Program).Assembly;

        public static int Main()
        {
            var output = new StringBuilder();
            output.Append("#scenario\tframe\tassembly\ttoken\til_offset\tfile\tline\tcolumn\tmethod\n");
            foreach (var (name, action) in Scenarios.All())
            {
                Exception caught = null;
                try
                {
                    action();
                }
                catch (Exception e)
                {
                    caught = e;
                }
                if (caught == null)
                {
                    Console.Error.WriteLine("scenario did not throw: " + name);
                    return 1;
                }
                Record(output, name, caught);
            }
            var stdout = Console.OpenStandardOutput();
            var bytes = new UTF8Encoding(false).GetBytes(output.ToString());
            stdout.Write(bytes, 0, bytes.Length);
            return 0;
        }

        private static void Record(StringBuilder output, string scenario, Exception e)
        {
            var trace = new StackTrace(e, true);
            int index = 0;
            foreach (StackFrame frame in trace.GetFrames())
            {
                MethodBase method = frame.GetMethod();
                if (method == null || method.Module.Assembly != Self)
                    continue;
                output.Append(scenario).Append('\t')
                      .Append(index++.ToString(CultureInfo.InvariantCulture)).Append('\t')
                      .Append(Self.GetName().Name).Append('\t')
                      .Append("0x").Append(method.MetadataToken.ToString("x8", CultureInfo.InvariantCulture)).Append('\t')
                      .Append(frame.GetILOffset().ToString(CultureInfo.InvariantCulture)).Append('\t')
                      .Append(frame.GetFileName() ?? "").Append('\t')
                      .Append(frame.GetFileLineNumber().ToString(CultureInfo.InvariantCulture)).Append('\t')
                      .Append(frame.GetFileColumnNumber().ToString(CultureInfo.InvariantCulture)).Append('\t')
                      .Append(Describe(method)).Append('\n');
            }
        }

        // Type+Nested::Method, without assembly-qualified generic arguments (stable across runtimes).
        private static string Describe(MethodBase method)
        {
            var names = new List<string>();
            for (Type t = method.DeclaringType; t != null; t = t.DeclaringType)
                names.Insert(0, t.Name);
            string ns = method.DeclaringType?.Namespace;
            return (ns != null ? ns + "." : "") + string.Join("+", names) + "::" + method.Name;
        }
    }
}
