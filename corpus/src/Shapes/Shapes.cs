using System;
using System.Collections.Generic;
using System.Linq;

namespace Ilmap.Corpus.Shapes
{
    public abstract class Shape
    {
        public abstract double Area();

        public virtual string Name => GetType().Name;
    }

    public sealed class Circle : Shape
    {
        private readonly double radius;

        public Circle(double radius)
        {
            if (radius < 0)
                throw new ArgumentOutOfRangeException(nameof(radius));
            this.radius = radius;
        }

        public override double Area() => Math.PI * radius * radius;
    }

    public sealed class Rectangle : Shape
    {
        public double Width { get; }
        public double Height { get; }

        public Rectangle(double width, double height)
        {
            Width = width;
            Height = height;
        }

        public override double Area()
        {
            return Width * Height;
        }
    }

    public static class Geometry
    {
        public static double TotalArea(IEnumerable<Shape> shapes)
        {
            double total = 0;
            foreach (var s in shapes)
            {
                total += s.Area();
            }
            return total;
        }

        public static IEnumerable<string> Names(IEnumerable<Shape> shapes)
        {
            return shapes.Where(s => s.Area() > 1.0).Select(s => s.Name).OrderBy(n => n);
        }
    }
}
