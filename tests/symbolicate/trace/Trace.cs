// Trace.cs - the ground-truth program of tests/symbolicate: throws through frames of every
// shape a trace holds (nested generic types, lambdas, local functions, iterators, async, an
// async lambda, overloads (told apart by IL or not), #line, an AggregateException) and prints each exception as the
// runtime formats it (Exception.ToString).
// Built by Roslyn against Mono's mscorlib, it runs on CoreCLR and on Mono alike.
using System;
using System.Collections.Generic;
using System.Linq;
using System.Runtime.CompilerServices;
using System.Threading.Tasks;

namespace Ilmap.Trace
{
    public static class Program
    {
        public static int Main(string[] args)
        {
            if (args.Length == 1)
                return RunScenariosOf(args[0]);
            if (args.Length >= 4 && args[0] == "--call")
                return Call(args);
            var scenarios = new List<KeyValuePair<string, Action>>
            {
                Pair("plain", () => Plain.Level1(3)),
                Pair("generic-nested", () => Outer<int>.Inner<string>.Fail(7, "x")),
                Pair("generic-method", () => Plain.Generic<double>(1.5)),
                Pair("lambda", Scenarios.Lambda),
                Pair("local-function", Scenarios.LocalFunction),
                Pair("iterator", Scenarios.Iterator),
                Pair("async", () => Scenarios.RunAsync().GetAwaiter().GetResult()),
                Pair("overload-int", () => Scenarios.Over(1)),
                Pair("overload-string", () => Scenarios.Over("s")),
                Pair("overload-caller-int", () => Scenarios.Relay(1)),
                Pair("overload-caller-string", () => Scenarios.Relay("s")),
                Pair("overload-same-shape", () => Scenarios.Twin(2L)),
                Pair("line-directive", Scenarios.Remapped),
                Pair("aggregate", Scenarios.Aggregate),
                Pair("async-lambda", Scenarios.AsyncLambda),
            };
            foreach (var s in scenarios)
            {
                try
                {
                    s.Value();
                    Console.WriteLine("== " + s.Key + ": did not throw");
                    return 1;
                }
                catch (Exception e)
                {
                    Console.WriteLine("== " + s.Key);
                    Console.WriteLine(e.ToString());
                }
            }
            return 0;
        }

        // Runs the public static Scenarios.All() of a corpus program (IEnumerable of (string, Action)
        // tuples, read by reflection: this program is built against .NET Framework's mscorlib).
        static int RunScenariosOf(string path)
        {
            var asm = System.Reflection.Assembly.LoadFrom(path);
            Type scenarios = asm.GetTypes().FirstOrDefault(t => t.Name == "Scenarios");
            if (scenarios == null) return 3;
            var all = (System.Collections.IEnumerable)scenarios.GetMethod("All").Invoke(null, null);
            foreach (object pair in all)
            {
                var name = (string)pair.GetType().GetField("Item1").GetValue(pair);
                var action = (Action)pair.GetType().GetField("Item2").GetValue(pair);
                try
                {
                    action();
                    Console.WriteLine("== " + name + ": did not throw");
                }
                catch (Exception e)
                {
                    Console.WriteLine("== " + name);
                    Console.WriteLine(e.ToString());
                }
            }
            return 0;
        }

        // --call DLL TYPE METHOD [PROBE_DIR...]: calls TYPE.METHOD of a corpus library with null
        // arguments (on a new instance when it is not static; F# and VB code without a Scenarios
        // class) and prints the exception it throws. Referenced assemblies (FSharp.Core) are
        // looked for in the PROBE_DIRs.
        static int Call(string[] args)
        {
            var probes = args.Skip(4).ToArray();
            AppDomain.CurrentDomain.AssemblyResolve += (sender, e) =>
            {
                string file = new System.Reflection.AssemblyName(e.Name).Name + ".dll";
                foreach (string dir in probes)
                {
                    string path = System.IO.Path.Combine(dir, file);
                    if (System.IO.File.Exists(path)) return System.Reflection.Assembly.LoadFrom(path);
                }
                return null;
            };
            var asm = System.Reflection.Assembly.LoadFrom(args[1]);
            Type type = asm.GetType(args[2], true);
            var method = type.GetMethods().First(m => m.Name == args[3]);
            object target = method.IsStatic ? null : Activator.CreateInstance(type);
            try
            {
                method.Invoke(target, new object[method.GetParameters().Length]);
                Console.WriteLine("== " + args[3] + ": did not throw");
                return 1;
            }
            catch (System.Reflection.TargetInvocationException e)
            {
                Console.WriteLine("== " + args[2] + "." + args[3]);
                Console.WriteLine(e.InnerException.ToString());
            }
            return 0;
        }

        static KeyValuePair<string, Action> Pair(string name, Action a) { return new KeyValuePair<string, Action>(name, a); }
    }

    public static class Plain
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void Level1(int x)
        {
            Level2(x + 1);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void Level2(int x)
        {
            throw new InvalidOperationException("plain " + x);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static T Generic<T>(T value)
        {
            throw new ArgumentException("generic " + value);
        }
    }

    public class Outer<T>
    {
        public class Inner<U>
        {
            [MethodImpl(MethodImplOptions.NoInlining)]
            public static void Fail(T t, U u)
            {
                throw new NotSupportedException("nested " + t + u);
            }
        }
    }

    public static class Scenarios
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void Lambda()
        {
            int captured = 5;
            Func<int, int> f = v =>
            {
                if (v > 0) throw new InvalidOperationException("lambda " + captured);
                return v;
            };
            f(captured);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void LocalFunction()
        {
            int Recurse(int n)
            {
                if (n == 0) throw new InvalidOperationException("local");
                return Recurse(n - 1) + 1;
            }
            Recurse(2);
        }

        static IEnumerable<int> Numbers()
        {
            yield return 1;
            throw new InvalidOperationException("iterator");
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void Iterator()
        {
            foreach (int n in Numbers())
                Console.Write("");
        }

        public static async Task RunAsync()
        {
            await Task.Yield();
            await Inner();
        }

        static async Task Inner()
        {
            await Task.Delay(1);
            throw new InvalidOperationException("async");
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void Over(int x)
        {
            throw new ArgumentException("over int " + x);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void Over(string s)
        {
            throw new ArgumentException("over string " + s);
        }

        // Overloads whose IL has the same shape (a call at the same offset) and calls of different
        // methods: only the frame above tells them apart (docs/symbolicate.md, call_target).
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void Relay(int x)
        {
            Plain.Level1(x);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void Relay(string s)
        {
            Over(s);
        }

        // Overloads with the same IL shape at the top of a trace: their IL cannot tell them apart.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void Twin(int x)
        {
            throw new ArgumentException("twin int " + x.ToString());
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void Twin(long x)
        {
            throw new ArgumentException("twin long " + x.ToString());
        }

        // An AggregateException of two caught exceptions: its ToString ends the trace of each
        // inner exception but its first with "<---" right after the last frame (and Mono's frames
        // end in a space: " <---").
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void Aggregate()
        {
            var inner = new List<Exception>();
            try { Plain.Level1(3); } catch (Exception e) { inner.Add(e); }
            try { Over(2); } catch (Exception e) { inner.Add(e); }
            throw new AggregateException("two failed", inner);
        }

        // Mono prints the lambda's frame with the lambda's name and its state machine's IL offset.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void AsyncLambda()
        {
            Func<int, Task> f = async n =>
            {
                await Task.Delay(1);
                if (n > 0) throw new InvalidOperationException("async lambda " + n);
            };
            f(3).GetAwaiter().GetResult();
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void Remapped()
        {
#line 500 "Generated.cs"
            throw new InvalidOperationException("remapped");
#line default
        }
    }
}
