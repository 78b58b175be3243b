using System;
using System.Collections.Generic;
using System.Threading.Tasks;

namespace Ilmap.Corpus.EmbeddedAll
{
    public sealed class WorkQueue<T>
    {
        private readonly Queue<T> items = new Queue<T>();

        public void Enqueue(T item)
        {
            lock (items)
            {
                items.Enqueue(item);
            }
        }

        public async Task<int> DrainAsync(Func<T, Task> handler)
        {
            int n = 0;
            while (true)
            {
                T item;
                lock (items)
                {
                    if (items.Count == 0)
                        break;
                    item = items.Dequeue();
                }
                await handler(item);
                n++;
            }
            return n;
        }
    }
}
