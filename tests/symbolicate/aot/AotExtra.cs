// AotExtra.cs - what tests/symbolicate/aot.sh needs beyond trace/Trace.cs: frames that Mono
// compiles ahead of time in shapes Trace.cs does not throw through (Trace.cs's generic frames
// are instantiated over value types, which `mono --aot` leaves to the JIT): generic code shared
// over reference types, an exception filter, a rethrow from a catch, a finally, a static
// constructor and a struct method. Prints each exception as the runtime formats it.
using System;
using System.Collections.Generic;

namespace Ilmap.AotExtra
{
    public static class Program
    {
        public static int Main()
        {
            var scenarios = new List<KeyValuePair<string, Action>>
            {
                Pair("generic-shared-method", () => Shapes.Generic<string>("g")),
                Pair("generic-shared-type", () => new Box<object>(new object()).Open(2)),
                Pair("filter", Shapes.Filtered),
                Pair("rethrow", Shapes.Rethrow),
                Pair("finally", Shapes.WithFinally),
                Pair("static-ctor", () => Lazy.Touch()),
                Pair("struct", () => new Point(3).Fail()),
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

        static KeyValuePair<string, Action> Pair(string name, Action a) => new KeyValuePair<string, Action>(name, a);
    }

    public static class Shapes
    {
        public static void Generic<T>(T value) where T : class
        {
            var text = value.ToString();
            if (text.Length > 0)
                throw new ArgumentException("shared " + text);
        }

        static bool Log(Exception e, int code)
        {
            Console.WriteLine("filter saw " + e.Message);
            return code > 0;
        }

        public static void Filtered()
        {
            try
            {
                Thrower(5);
            }
            catch (InvalidOperationException e) when (Log(e, 0))
            {
                Console.WriteLine("not taken");
            }
        }

        static void Thrower(int n)
        {
            if (n > 1)
                throw new InvalidOperationException("filtered " + n);
        }

        public static void Rethrow()
        {
            try
            {
                Thrower(9);
            }
            catch (InvalidOperationException e)
            {
                throw new ApplicationException("wrapped", e);
            }
        }

        public static void WithFinally()
        {
            int n = 0;
            try
            {
                n = 4;
                Thrower(n);
            }
            finally
            {
                Console.WriteLine("finally " + n);
            }
        }
    }

    public class Box<T> where T : class
    {
        readonly T item;
        public Box(T item) { this.item = item; }

        public T Open(int times)
        {
            for (int i = 0; i < times; i++)
            {
                if (i == times - 1)
                    throw new NotSupportedException("box " + item);
            }
            return item;
        }
    }

    static class Lazy
    {
        static readonly int value = Compute();

        static int Compute()
        {
            throw new FormatException("cctor");
        }

        public static int Touch() => value;
    }

    public struct Point
    {
        readonly int x;
        public Point(int x) { this.x = x; }

        public void Fail()
        {
            if (x > 2)
                throw new OverflowException("point " + x);
        }
    }
}
