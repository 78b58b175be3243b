using System;
using System.Collections;
using System.Collections.Generic;
using System.IO;
using System.Runtime.CompilerServices;
using System.Text;

// A type in the global namespace, with a nested type.
public class GlobalType
{
    public void Run(GlobalType.Nested n, Nested[] all) { }

    public class Nested
    {
        public int Value(ref Nested self) => 0;
    }
}

namespace Ilmap.Corpus.Signatures
{
    public interface IShape
    {
        double Area(in Matrix m);
        void Explicit(IShape other);
    }

    public struct Matrix
    {
        public int Rows;
    }

    public enum Color { Red, Green }

    public unsafe class Pointers
    {
        public static int* Address(int* p, void* v, Matrix* m, int** pp) => p;
        public static void Function(delegate*<int, string, void> f, delegate* unmanaged<int> g) { }
        public static void Fixed(char* text, byte[] bytes, ref byte* cursor) { }
    }

    public class Arrays
    {
        public static void Jagged(int[][] a, string[][][] b) { }
        public static void Multi(int[,] a, double[,,] b, object[,][] c) { }
        public static void Generic<T>(T[] a, T[,] b, List<T>[] c, ref T[] d) { }
    }

    public class Refs
    {
        public static void Kinds(ref int a, out string b, in Matrix c, ref readonly double d) { b = ""; }
        public virtual void VirtualIn(in Matrix m, in int n) { }
        public int Init { get; init; }
        public static ref int ByRefReturn(ref int x) => ref x;
        public static void Args(int fixedOne, __arglist) { }
        public static void Typed(TypedReference r) { }
        public static void Params(params object[] rest) { }
        public static void Optional(int a = 1, string b = null) { }
    }

    public class Interfaces : IShape, IDisposable
    {
        public double Area(in Matrix m) => 0;
        void IShape.Explicit(IShape other) { }
        void IDisposable.Dispose() { }
        public static void Take(IEnumerable<int> a, IDisposable b, IComparable<string> c, IEnumerator d,
                                IOException e, IShape f, IntPtr g, UIntPtr h, Color i, DateTime j) { }
        public static void Values(int? a, (int, string) b, KeyValuePair<string, int> c, decimal d, nint e) { }
        public static void Builtins(bool a, char b, sbyte c, byte d, short e, ushort f, int g, uint h,
                                    long i, ulong j, float k, double l, string m, object n) { }
    }

    public class Generic<TKey, TValue> where TKey : notnull
    {
        public Dictionary<TKey, List<TValue>> Map(TKey key, Func<TKey, TValue> f) => null;
        public static TResult Convert<TResult, TOther>(TValue v, TOther[] o, ref TResult r) => r;
        public class Nested<TExtra>
        {
            public void Use(TKey k, TValue v, TExtra e, Nested<TExtra> self) { }
            public struct Deeper
            {
                public void Deep(Deeper d, Generic<TValue, TKey> swapped) { }
            }
        }
        public static Generic<TKey, TValue> operator +(Generic<TKey, TValue> a, Generic<TKey, TValue> b) => a;
        public TValue this[TKey key] => default;
        public event EventHandler<TValue> Changed { add { } remove { } }
        ~Generic() { }
        static Generic() { }
    }

    public static class Extensions
    {
        public static string Shout(this string s, StringBuilder sb) => s;
    }

    public delegate TOut Converter<in TIn, out TOut>(TIn input, int ümlaut);

    public record Person(string Name, int Age);

    public class Ünïcødé
    {
        public void Grüße(string straße) { }
    }
}
