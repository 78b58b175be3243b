using System;
using System.Collections.Generic;
using System.Linq;
using System.Runtime.CompilerServices;
using System.Threading.Tasks;

namespace Ilmap.Corpus.Signatures
{
    // Exceptions through optimized state machines (struct async state machines), generic code
    // (shared for reference types, specialized for value types), async iterators, local functions.
    // tests/oracle-names runs All() and compares the runtime's frame text with ilmap's.
    public static class Scenarios
    {
        public static IEnumerable<(string, Action)> All()
        {
            yield return ("generic-async-ref", () => Machines<string>.RunAsync<object>("a", 1).GetAwaiter().GetResult());
            yield return ("generic-async-value", () => Machines<int>.RunAsync<double>(1, 2).GetAwaiter().GetResult());
            yield return ("generic-iterator", () => Machines<string>.Items("x", 3).ToList());
            yield return ("async-iterator", () => Machines<long>.StreamAsync(2).ToBlockingList());
            yield return ("local-async", () => Machines<byte>.LocalAsync(5).GetAwaiter().GetResult());
            yield return ("pointer-args", PointerArgs);
            yield return ("ref-args", () => { int a = 1; Throwers.Refs(ref a, out _, new Matrix(), new[] { 1 }); });
        }

        private static unsafe void PointerArgs()
        {
            int x = 3;
            Throwers.Pointer(&x, null);
        }

        private static List<T> ToBlockingList<T>(this IAsyncEnumerable<T> source)
        {
            var list = new List<T>();
            var e = source.GetAsyncEnumerator();
            while (e.MoveNextAsync().AsTask().GetAwaiter().GetResult()) list.Add(e.Current);
            return list;
        }
    }

    public static class Throwers
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void Fail(string why) => throw new InvalidOperationException(why);

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static unsafe void Pointer(int* p, delegate*<void> f) => Fail("pointer " + *p);

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void Refs(ref int a, out string b, in Matrix m, int[] arr)
        {
            b = null;
            Fail("refs " + a + m.Rows + arr.Length);
        }
    }

    public class Machines<T>
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static async Task<int> RunAsync<U>(T value, U other)
        {
            await Task.Yield();
            return await InnerAsync(value, new List<U> { other });
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static async ValueTask<int> InnerAsync<U>(T value, List<U> others)
        {
            await Task.Yield();
            Throwers.Fail("async " + value + others.Count);
            return 1;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static IEnumerable<T> Items(T seed, int n)
        {
            for (int i = 0; i < n; i++)
            {
                if (i == 2) Throwers.Fail("iterator " + seed);
                yield return seed;
            }
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static async IAsyncEnumerable<T> StreamAsync(int n)
        {
            for (int i = 0; i < n; i++)
            {
                await Task.Yield();
                yield return default;
            }
            Throwers.Fail("stream");
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static async Task LocalAsync(int n)
        {
            await Local(n);

            [MethodImpl(MethodImplOptions.NoInlining)]
            static async Task Local(int k)
            {
                await Task.Yield();
                Throwers.Fail("local " + k);
            }
        }
    }
}
