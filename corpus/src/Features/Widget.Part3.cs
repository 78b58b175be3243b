namespace Ilmap.Corpus.Features
{
    public partial class Widget
    {
        private double ratio = 1.5;

        public override string ToString()
        {
            return name + ":" + ratio;
        }
    }
}
