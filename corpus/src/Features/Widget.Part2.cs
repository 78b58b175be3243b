using System;

namespace Ilmap.Corpus.Features
{
    public partial class Widget
    {
        private int height = 4;
        private string name = string.Concat("wid", "get");

        public Widget()
        {
            log.Add("ctor");
        }

        public int Height()
        {
            return height;
        }
    }
}
