using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading.Tasks;

namespace Ilmap.Corpus.Features
{
    public static class ControlFlow
    {
        // async state machine: MoveNext has hidden points at the awaits.
        public static async Task<int> SumAsync(int n)
        {
            int total = 0;
            for (int i = 0; i < n; i++)
            {
                await Task.Yield();
                total += i;
            }
            return total;
        }

        public static async ValueTask<string> ChainAsync(string s)
        {
            int n = await SumAsync(s.Length);
            await Task.Delay(0);
            return s + n;
        }

        // iterator state machine.
        public static IEnumerable<int> Squares(int n)
        {
            for (int i = 0; i < n; i++)
            {
                yield return i * i;
            }
            yield break;
        }

        public static async IAsyncEnumerable<int> CountAsync(int n)
        {
            for (int i = 0; i < n; i++)
            {
                await Task.Yield();
                yield return i;
            }
        }

        // lambdas, closures and local functions.
        public static int Lambdas(int[] xs)
        {
            int offset = xs.Length;
            Func<int, int> add = v => v + offset;
            Func<int, bool> even = v =>
            {
                int r = v % 2;
                return r == 0;
            };
            int Local(int v) => v * offset;
            static int StaticLocal(int v) { return v - 1; }
            return xs.Select(add).Where(even).Select(Local).Sum(StaticLocal);
        }

        // using / try / catch / finally.
        public static string Resources(string text)
        {
            using var reader = new StringReader(text);
            using (var other = new StringReader(text + "!"))
            {
                try
                {
                    string line = reader.ReadLine();
                    if (line == null)
                        throw new InvalidOperationException("empty");
                    return line + other.ReadToEnd();
                }
                catch (InvalidOperationException e) when (e.Message.Length > 0)
                {
                    return "caught";
                }
                finally
                {
                    Console.Write("");
                }
            }
        }

        // pattern-matching switch expression and statement; foreach over a struct enumerator (lock too).
        private static readonly object Gate = new object();

        public static string Classify(object o)
        {
            string r = o switch
            {
                null => "null",
                int i when i < 0 => "negative",
                int i => "int " + i,
                string { Length: 0 } => "empty string",
                string s => "string " + s,
                IEnumerable<int> e => "sequence of " + e.Count(),
                _ => "other",
            };
            switch (o)
            {
                case long l:
                    r += l;
                    break;
                case double d when d > 1.0:
                    r += "big";
                    break;
            }
            lock (Gate)
            {
                foreach (var c in r)
                {
                    if (c == 'x') return "x";
                }
            }
            return r;
        }
    }
}
