using System;
using System.Collections.Generic;

namespace Ilmap.Corpus.Features
{
    // A partial type spread over three documents. The instance constructor's sequence points come
    // from the field initializers of every part, so that one method spans several documents.
    public partial class Widget
    {
        private readonly List<string> log = new List<string> { "part1" };
        private int width = 3;

        public int Area()
        {
            int a = width * Height();
            log.Add("area");
            return a;
        }
    }
}
