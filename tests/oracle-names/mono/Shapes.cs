// Shapes.cs - built by mcs for Mono (tests/oracle-names/check-mono.sh): method signatures whose
// frame text Mono 6 prints, to compare with ilmap's Mono rendering. Not part of corpus/.
using System;
using System.Collections;
using System.Collections.Generic;
using System.IO;
using System.Threading.Tasks;

public class GlobalType {
  public void Run(GlobalType.Nested n, Nested[] all) { }
  public class Nested { public int Value(ref Nested self) { return 0; } }
}
namespace MonoNs {
  public interface IShape { double Area(ref Matrix m); }
  public struct Matrix { public int Rows; }
  public enum Color { Red }
  public unsafe class Pointers {
    public static int* Address(int* p, void* v, Matrix* m, int** pp) { return p; }
  }
  public class Arrays {
    public static void Jagged(int[][] a, string[][][] b) { }
    public static void Multi(int[,] a, double[,,] b, object[,][] c) { }
    public static void Generic<T>(T[] a, T[,] b, List<T>[] c, ref T[] d, T e, ref T f) { }
    public static void Struct<T>(T a, T[] b) where T : struct { }
  }
  public class Refs {
    public static void Kinds(ref int a, out string b, ref Matrix c, ref Color d, ref IShape e) { b = ""; }
    public static void Args(int fixedOne, __arglist) { }
    public static void Typed(TypedReference r) { }
  }
  public class Interfaces : IShape, IDisposable {
    public double Area(ref Matrix m) { return 0; }
    void IDisposable.Dispose() { }
    public static void Take(IEnumerable<int> a, IDisposable b, IComparable<string> c, IEnumerator d,
                            IOException e, IShape f, IntPtr g, UIntPtr h, Color i, DateTime j, Exception k) { }
    public static void Values(int? a, KeyValuePair<string, int> c, decimal d, List<int> e, Dictionary<string, List<int>> f) { }
    public static void Builtins(bool a, char b, sbyte c, byte d, short e, ushort f, int g, uint h,
                                long i, ulong j, float k, double l, string m, object n) { }
  }
  public class Generic<TKey, TValue> {
    public Dictionary<TKey, List<TValue>> Map(TKey key, Func<TKey, TValue> f) { return null; }
    public static TResult Convert<TResult, TOther>(TValue v, TOther[] o, ref TResult r) { return r; }
    public class Nested<TExtra> {
      public void Use(TKey k, TValue v, TExtra e, Nested<TExtra> self) { }
      public struct Deeper { public void Deep(Deeper d, Generic<TValue, TKey> swapped) { } }
    }
    public IEnumerable<TValue> Items(TKey k) { yield return default(TValue); }
    public async Task<int> RunAsync(TKey k) { await Task.Yield(); return 1; }
  }
  public delegate TOut Converter<TIn, TOut>(TIn input, int x);
  public class Nesting {
    public static void Instances(ref List<int> a, List<List<int>>[] b, Dictionary<string, int>[] c, KeyValuePair<int, string>? d,
                                 int[,][] e, Matrix? f, ref Matrix g, Func<int, List<string>> h, Action<int, long, short> i) { }
    public static async Task<T> GenericAsync<T>(T value) { await Task.Yield(); return value; }
    public static IEnumerable<int> Iterate(int n) { yield return n; }
    public class Plain { public void Run(Plain p, Nesting n) { } }
  }
}
public class NoNamespace<T> {
  public struct Inner { public void Take(Inner i, NoNamespace<T> o, T[] a) { } }
}
