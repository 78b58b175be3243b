// NamesOracle - the .NET runtime's own text for method frames, to check ilmap's method names.
//
//   NamesOracle methods DLL [PROBE_DIR...]
//     One line per MethodDef row, in row order: token, TAB, CoreCLR frame text, TAB, Mono text.
//     CoreCLR: the runtime's StackTrace.ToString itself formats the method (a one-frame
//     StackTrace over a StackFrame whose GetMethod() is Module.ResolveMethod(token) and whose IL
//     offset is unknown), minus the "   at " prefix and the trailing newline. Mono: Mono 6's
//     StackTrace.GetFullNameForStackTrace rule evaluated over CoreCLR reflection (check-mono.sh
//     compares ilmap with a real Mono).
//   NamesOracle frames DLL [PROBE_DIR...]
//     Runs the public static Scenarios.All() (IEnumerable<(string, Action)>) of a corpus program
//     (cs-frames, cs-signatures), catches each exception and prints, for every frame of
//     `new StackTrace(e, false)` in that assembly: token, TAB, the frame's method text, checked
//     to be a line of the whole trace as the runtime printed it. Exit 3: no Scenarios type.
//   NamesOracle runtime-dir
//     The folder of the running runtime's System.Private.CoreLib.dll (its shared framework).
// PROBE_DIR: folders searched for referenced assemblies (FSharp.Core for the F# corpus).
// Exit codes: 0 ok, 1 usage, 2 bad input, 3 (frames) no scenarios.
using System;
using System.Collections;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Reflection;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using System.Reflection.PortableExecutable;
using System.Runtime.CompilerServices;
using System.Runtime.Loader;
using System.Text;

namespace Ilmap.NamesOracle
{
    // A frame whose method is given; IL offset unknown, so ToString prints no location.
    internal sealed class GivenFrame : StackFrame
    {
        private readonly MethodBase _method;
        public GivenFrame(MethodBase method) { _method = method; }
        public override MethodBase? GetMethod() => _method;
        public override int GetILOffset() => StackFrame.OFFSET_UNKNOWN;
        public override string? GetFileName() => null;
    }

    internal sealed class NoScenariosException : Exception
    {
    }

    public static class Program
    {
        private const string At = "   at ";

        public static int Main(string[] args)
        {
            if (args.Length == 1 && args[0] == "runtime-dir")
            {
                Console.WriteLine(Path.GetDirectoryName(typeof(object).Assembly.Location));
                return 0;
            }
            if (args.Length < 2 || (args[0] != "methods" && args[0] != "frames"))
            {
                Console.Error.WriteLine("usage: NamesOracle methods|frames DLL [PROBE_DIR...] | runtime-dir");
                return 1;
            }
            var probe = new List<string>();
            for (int i = 2; i < args.Length; i++) probe.Add(args[i]);
            AssemblyLoadContext.Default.Resolving += (ctx, name) =>
            {
                foreach (string dir in probe)
                {
                    string path = Path.Combine(dir, name.Name + ".dll");
                    if (File.Exists(path)) return ctx.LoadFromAssemblyPath(Path.GetFullPath(path));
                }
                return null;
            };
            var output = new StringBuilder();
            try
            {
                // CoreLib cannot be loaded a second time: use the loaded one (same file when the
                // path is the running runtime's; a check of the framework, not of the corpus).
                Assembly asm = Path.GetFileName(args[1]) == "System.Private.CoreLib.dll"
                    ? typeof(object).Assembly
                    : Assembly.LoadFrom(Path.GetFullPath(args[1]));
                if (args[0] == "methods") Methods(asm, args[1], output);
                else Frames(asm, output);
            }
            catch (NoScenariosException)
            {
                Console.Error.WriteLine("NamesOracle: " + args[1] + " has no Scenarios.All()");
                return 3;
            }
            catch (Exception e) when (e is IOException || e is BadImageFormatException || e is InvalidOperationException)
            {
                Console.Error.WriteLine("NamesOracle: error: " + args[1] + ": " + e.Message);
                return 2;
            }
            var stdout = Console.OpenStandardOutput();
            var bytes = new UTF8Encoding(false).GetBytes(output.ToString());
            stdout.Write(bytes, 0, bytes.Length);
            return 0;
        }

        private static int MethodDefRows(string path)
        {
            using var stream = File.OpenRead(path);
            using var pe = new PEReader(stream);
            return pe.GetMetadataReader().GetTableRowCount(TableIndex.MethodDef);
        }

        private static void Methods(Assembly asm, string path, StringBuilder output)
        {
            Module module = asm.ManifestModule;
            int rows = MethodDefRows(path);
            for (int rid = 1; rid <= rows; rid++)
            {
                int token = 0x06000000 | rid;
                output.Append("0x").Append(token.ToString("x8", CultureInfo.InvariantCulture)).Append('\t');
                MethodBase? mb;
                try
                {
                    mb = module.ResolveMethod(token);
                }
                catch (Exception e) when (e is ArgumentException || e is TypeLoadException || e is IOException)
                {
                    output.Append("<unresolved: ").Append(e.GetType().Name).Append(">\t-\n");
                    continue;
                }
                output.Append(mb == null ? "<null>" : CoreClrText(new GivenFrame(mb))).Append('\t');
                output.Append(mb == null ? "<null>" : MonoText(mb)).Append('\n');
            }
        }

        // The runtime's own formatting of one frame.
        private static string CoreClrText(StackFrame frame)
        {
            string text = new StackTrace(frame).ToString();
            if (text.StartsWith(At, StringComparison.Ordinal)) text = text.Substring(At.Length);
            return text.TrimEnd('\r', '\n');
        }

        // Mono 6's StackTrace.GetFullNameForStackTrace (mono/mono, mcs/class/corlib/
        // System.Diagnostics/StackTrace.cs), over CoreCLR reflection. Differences from Mono's own
        // reflection are mapped back: a function pointer is IntPtr to Mono.
        private static string MonoText(MethodBase mi)
        {
            var sb = new StringBuilder();
            Type? declaringType = mi.DeclaringType;
            if (declaringType != null && declaringType.IsGenericType && !declaringType.IsGenericTypeDefinition)
                declaringType = declaringType.GetGenericTypeDefinition();
            if (declaringType != null && typeof(IAsyncStateMachine).IsAssignableFrom(declaringType))
                ConvertAsyncStateMachineMethod(ref mi, ref declaringType);
            sb.Append(declaringType == null ? "<Module>" : declaringType.ToString());
            sb.Append('.').Append(mi.Name);
            if (mi.IsGenericMethod)
            {
                Type[] gen = mi.GetGenericArguments();
                sb.Append('[');
                for (int j = 0; j < gen.Length; j++)
                {
                    if (j > 0) sb.Append(',');
                    sb.Append(gen[j].Name);
                }
                sb.Append(']');
            }
            ParameterInfo[] p;
            try
            {
                p = mi.GetParameters();
            }
            catch (Exception e) when (e is TypeLoadException || e is IOException)
            {
                return sb.Append(" <parameters: ").Append(e.GetType().Name).Append('>').ToString();
            }
            sb.Append(" (");
            for (int i = 0; i < p.Length; ++i)
            {
                if (i > 0) sb.Append(", ");
                Type pt = p[i].ParameterType;
                if (pt.IsGenericType && !pt.IsGenericTypeDefinition)
                    pt = pt.GetGenericTypeDefinition();
                sb.Append(MonoTypeString(pt));
                if (p[i].Name != null) sb.Append(' ').Append(p[i].Name);
            }
            return sb.Append(')').ToString();
        }

        // Type.ToString(), with function pointers (also under &, * and []) as IntPtr.
        private static string MonoTypeString(Type t)
        {
            if (t.IsFunctionPointer) return "System.IntPtr";
            if (t.HasElementType)
            {
                Type e = t.GetElementType()!;
                return MonoTypeString(e) + t.ToString().Substring(e.ToString().Length);
            }
            return t.ToString();
        }

        private static void ConvertAsyncStateMachineMethod(ref MethodBase method, ref Type declaringType)
        {
            Type? parent = declaringType.DeclaringType;
            if (parent == null) return;
            const BindingFlags all = BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Static |
                                     BindingFlags.Instance | BindingFlags.DeclaredOnly;
            foreach (MethodInfo candidate in parent.GetMethods(all))
            {
                foreach (AsyncStateMachineAttribute a in candidate.GetCustomAttributes<AsyncStateMachineAttribute>(false))
                {
                    if (a.StateMachineType == declaringType)
                    {
                        method = candidate;
                        declaringType = candidate.DeclaringType!;
                        return;
                    }
                }
            }
        }

        private static void Frames(Assembly asm, StringBuilder output)
        {
            Type? scenarios = null;
            foreach (Type t in asm.GetTypes())
                if (t.Name == "Scenarios" && t.DeclaringType == null) scenarios = t;
            MethodInfo? all = scenarios?.GetMethod("All", BindingFlags.Public | BindingFlags.Static);
            if (all == null) throw new NoScenariosException();
            var list = (IEnumerable)all.Invoke(null, null)!;
            foreach (object? item in list)
            {
                if (item == null) continue;
                Type it = item.GetType();
                var action = (Action)it.GetField("Item2")!.GetValue(item)!;
                Exception? caught = null;
                try
                {
                    action();
                }
                catch (Exception e)
                {
                    caught = e;
                }
                if (caught == null) throw new InvalidOperationException("a scenario did not throw");
                var trace = new StackTrace(caught, false);
                // The whole trace as the runtime prints it: one "   at ..." line per shown frame.
                string[] lines = trace.ToString().Split('\n');
                foreach (StackFrame frame in trace.GetFrames())
                {
                    MethodBase? method = frame.GetMethod();
                    if (method == null || method.Module.Assembly != asm) continue;
                    // The frame's text: the same formatting applied to this one frame...
                    string text = CoreClrText(frame);
                    // ...which must be a line of the whole trace (otherwise the oracle is wrong).
                    if (Array.IndexOf(lines, At + text) < 0 && Array.IndexOf(lines, At + text + "\r") < 0)
                        throw new InvalidOperationException("frame text not in the trace: " + text);
                    output.Append("0x").Append(method.MetadataToken.ToString("x8", CultureInfo.InvariantCulture))
                          .Append('\t').Append(text).Append('\n');
                }
            }
        }
    }
}
