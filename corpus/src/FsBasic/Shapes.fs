namespace Ilmap.Corpus.FsBasic

type Shape =
    | Circle of radius: float
    | Rect of width: float * height: float
    | Poly of points: (float * float) list

module Shape =
    let area shape =
        match shape with
        | Circle r -> System.Math.PI * r * r
        | Rect (w, h) -> w * h
        | Poly pts ->
            let arr = List.toArray pts
            let mutable sum = 0.0
            for i in 0 .. arr.Length - 1 do
                let (x1, y1) = arr.[i]
                let (x2, y2) = arr.[(i + 1) % arr.Length]
                sum <- sum + x1 * y2 - x2 * y1
            abs sum / 2.0
