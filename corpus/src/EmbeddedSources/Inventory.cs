using System;
using System.Collections.Generic;
using System.Text;

namespace Ilmap.Corpus.EmbeddedSources
{
    // Non-ASCII text in an embedded source: “quotes”, ümlauts, CJK 在庫, emoji 📦.
    public sealed class Inventory
    {
        private readonly Dictionary<string, int> stock = new Dictionary<string, int>();

        public void Add(string item, int count)
        {
            stock.TryGetValue(item, out int existing);
            stock[item] = existing + count;
        }

        public bool Take(string item, int count)
        {
            if (!stock.TryGetValue(item, out int existing) || existing < count)
                return false;
            stock[item] = existing - count;
            return true;
        }

        public string Report()
        {
            var sb = new StringBuilder();
            foreach (var pair in stock)
            {
                sb.Append(pair.Key).Append(" × ").Append(pair.Value).AppendLine();
            }
            return sb.ToString();
        }
    }
}
