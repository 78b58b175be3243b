using System;
using System.Collections.Generic;
using System.Linq;
using System.Runtime.CompilerServices;
using System.Threading.Tasks;

namespace Ilmap.Corpus.Frames
{
    public sealed class ScenarioException : Exception
    {
        public ScenarioException(string message) : base(message) { }
    }

    public static partial class Scenarios
    {
        public static IEnumerable<(string, Action)> All()
        {
            yield return ("plain", () => Plain.Level1(3));
            yield return ("generic-nested", () => new Outer<int>.Inner<string>().Fail<double>(1, "x", 2.0));
            yield return ("lambda", Lambda);
            yield return ("local-function", LocalFunction);
            yield return ("iterator", Iterator);
            yield return ("async", () => Async.RunAsync(2).GetAwaiter().GetResult());
            yield return ("line-remapped", () => Remapped.Run(5));
            yield return ("after-hidden", () => Hidden.AfterHidden(7));
            yield return ("in-hidden", () => Hidden.InHidden(7));
            yield return ("high-line", () => Remapped.HighLine(1));
            yield return ("long-line", () => Remapped.LongLine(1));
            yield return ("non-ascii", () => Ümläut.Wirf(2));
            yield return ("try-finally-rethrow", Rethrow);
            yield return ("switch", () => Switch(4.5));
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void Fail(string why)
        {
            throw new ScenarioException(why);
        }

        private static void Lambda()
        {
            int captured = 10;
            Func<int, int> f = x =>
            {
                if (x + captured > 0)
                    Fail("lambda");
                return x;
            };
            Console.Write(f(1));
        }

        private static void LocalFunction()
        {
            int depth = 2;
            int Recurse(int n)
            {
                if (n == 0)
                    Fail("local function");
                return Recurse(n - 1) + depth;
            }
            Console.Write(Recurse(depth));
        }

        private static void Iterator()
        {
            int sum = 0;
            foreach (int v in Numbers(3))
                sum += v;
            Console.Write(sum);
        }

        private static IEnumerable<int> Numbers(int n)
        {
            for (int i = 0; i < n; i++)
            {
                yield return i;
            }
            Fail("iterator");
        }

        private static void Rethrow()
        {
            using var d = new System.IO.MemoryStream();
            try
            {
                Plain.Level2(1);
            }
            catch (ScenarioException e) when (e.Message.Length > 0)
            {
                d.WriteByte(1);
                throw;
            }
            finally
            {
                d.WriteByte(2);
            }
        }

        private static string Switch(object o)
        {
            return o switch
            {
                int i => i.ToString(),
                double d when d > 4 => Explode(d),
                _ => "other",
            };
        }

        private static string Explode(double d)
        {
            Fail("switch " + d);
            return null;
        }
    }

    public static class Plain
    {
        public static void Level1(int x)
        {
            int y = x * 2;
            Level2(y);
        }

        public static void Level2(int y)
        {
            if (y > 0)
                Scenarios.Fail("plain");
        }
    }

    public class Outer<T>
    {
        public class Inner<U>
        {
            public V Fail<V>(T t, U u, V v)
            {
                string s = t + ":" + u + ":" + v;
                Scenarios.Fail(s);
                return v;
            }
        }
    }

    public static class Async
    {
        public static async Task RunAsync(int n)
        {
            await Task.Yield();
            int r = await InnerAsync(n);
            Console.Write(r);
        }

        private static async Task<int> InnerAsync(int n)
        {
            await Task.Delay(1);
            if (n > 1)
                Scenarios.Fail("async");
            return n;
        }
    }

    public static class Hidden
    {
        public static int AfterHidden(int x)
        {
            int y = x;
#line hidden
            y = y * 2 + 1;
            y = y - x;
#line default
            Scenarios.Fail("after hidden " + y);
            return y;
        }

        public static int InHidden(int x)
        {
            int y = x + 1;
#line hidden
            Scenarios.Fail("in hidden " + y);
#line default
            return y;
        }
    }
}
