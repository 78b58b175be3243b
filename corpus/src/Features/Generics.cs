using System;
using System.Collections.Generic;

namespace Ilmap.Corpus.Features
{
    public class Outer<T> where T : IComparable<T>
    {
        private readonly List<T> items = new List<T>();

        public void Add(T item)
        {
            items.Add(item);
        }

        public T Max()
        {
            T best = items[0];
            foreach (T t in items)
            {
                if (t.CompareTo(best) > 0)
                    best = t;
            }
            return best;
        }

        public class Inner<U>
        {
            public U Value;

            public (T, U) Pair(T t)
            {
                return (t, Value);
            }

            public struct Deepest
            {
                public int Depth()
                {
                    return 3;
                }
            }
        }

        public static TOut Convert<TOut>(T value, Func<T, TOut> f)
        {
            return f(value);
        }
    }

    public record Point(int X, int Y)
    {
        public int Manhattan() => Math.Abs(X) + Math.Abs(Y);
    }

    public interface IShape
    {
        double Area();
        string Describe() => "shape of area " + Area();
    }
}
