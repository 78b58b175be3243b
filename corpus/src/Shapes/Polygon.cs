using System;

namespace Ilmap.Corpus.Shapes
{
    public sealed class Polygon : Shape
    {
        private readonly (double X, double Y)[] points;

        public Polygon(params (double X, double Y)[] points)
        {
            this.points = points;
        }

        // Shoelace formula.
        public override double Area()
        {
            double sum = 0;
            for (int i = 0; i < points.Length; i++)
            {
                var (x1, y1) = points[i];
                var (x2, y2) = points[(i + 1) % points.Length];
                sum += x1 * y2 - x2 * y1;
            }
            return Math.Abs(sum) / 2;
        }
    }
}
