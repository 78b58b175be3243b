module Ilmap.Corpus.FsBasic.Library

open System

let totalArea (shapes: Shape seq) =
    shapes |> Seq.sumBy Shape.area

let makeAdder offset =
    fun x -> x + offset

let rec fib n =
    if n < 2 then n
    else fib (n - 1) + fib (n - 2)

let countWhile limit =
    let mutable i = 0
    let mutable acc = 0
    while i < limit do
        acc <- acc + i
        i <- i + 1
    acc

let squares n =
    seq {
        for i in 1 .. n do
            if i % 2 = 0 then
                yield i * i
    }

let describe (o: obj) =
    match o with
    | :? int as i when i < 0 -> "negative"
    | :? int as i -> sprintf "int %d" i
    | :? string as s -> "string " + s
    | null -> "null"
    | _ -> "other"

let sumAsync (xs: int list) =
    async {
        let mutable total = 0
        for x in xs do
            do! Async.Sleep 0
            total <- total + x
        return total
    }

let closures () =
    let counters = [ for k in 1 .. 3 -> makeAdder k ]
    counters |> List.map (fun f -> f 10) |> List.sum

let safeDivide a b =
    try
        Some (a / b)
    with
    | :? DivideByZeroException -> None
