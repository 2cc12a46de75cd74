/// A generator of random test values, built on a ``ChoiceSource``.
///
/// A `Gen` is only a recipe: given a source of choices it produces a value.
/// Because the value depends on nothing but those choices, a seed replays it
/// exactly and ``Shrinker`` can simplify it by simplifying the choices. The
/// combinators lay choices out so that smaller, fewer choices mean simpler
/// values: shorter arrays, integers nearer zero, earlier elements and
/// earlier alternatives.
///
/// ```swift
/// let edits = Gen.zip(Gen.element(of: ["a", "b", "c"]), Gen.int(in: 0...9))
///     .array(length: 0...20)
/// let sample = edits.sample(seed: 7)   // same array on every run
/// ```
public struct Gen<Value>: Sendable {
    private let body: @Sendable (inout ChoiceSource) -> Value

    /// A generator that runs `body` against the source; `body` must draw
    /// all of its randomness from the source.
    public init(_ body: @escaping @Sendable (inout ChoiceSource) -> Value) {
        self.body = body
    }

    /// Produces a value from `source` (without logging it; see
    /// ``ChoiceSource/draw(_:label:)`` for a logged draw).
    public func generate(using source: inout ChoiceSource) -> Value {
        body(&source)
    }

    /// The value a fresh source seeded with `seed` produces.
    public func sample(seed: UInt64) -> Value {
        var source = ChoiceSource(seed: seed)
        return generate(using: &source)
    }

    /// The value `choices` replay to.
    public func replay(_ choices: [UInt64]) -> Value {
        var source = ChoiceSource(replaying: choices)
        return generate(using: &source)
    }

    /// A generator of `transform` applied to this generator's values.
    public func map<T>(_ transform: @escaping @Sendable (Value) -> T) -> Gen<T> {
        Gen<T> { source in transform(body(&source)) }
    }

    /// A generator whose second stage depends on the first value (bind).
    ///
    /// The choices of both stages follow each other, so shrinking the first
    /// value also simplifies which generator the second stage uses.
    public func flatMap<T>(_ next: @escaping @Sendable (Value) -> Gen<T>) -> Gen<T> {
        Gen<T> { source in next(body(&source)).generate(using: &source) }
    }

    /// Arrays of this generator's values with a length in `length`.
    ///
    /// Past the minimum length, each element is preceded by a "one more?"
    /// choice (`1` = yes), so deleting an element's choices deletes the
    /// element and zeroing a flag ends the array there. Fresh arrays average
    /// about five elements past the minimum (fewer if the range is narrow).
    public func array(length: ClosedRange<Int> = 0...10) -> Gen<[Value]> {
        precondition(length.lowerBound >= 0, "array lengths cannot be negative")
        let extra = Double(length.upperBound - length.lowerBound)
        let average = min(extra / 2, 5)
        let more = average / (average + 1)
        return Gen<[Value]> { source in
            var values: [Value] = []
            values.reserveCapacity(length.lowerBound)
            while values.count < length.lowerBound {
                values.append(body(&source))
            }
            while values.count < length.upperBound, source.bool(probability: more) {
                values.append(body(&source))
            }
            return values
        }
    }

    /// Values or `nil`; `nil` is the simpler choice and comes one time in
    /// four when fresh.
    public func optional() -> Gen<Value?> {
        Gen<Value?> { source in
            source.bool(probability: 0.75) ? body(&source) : nil
        }
    }

    /// A value from one of `gens`, chosen uniformly; earlier generators are
    /// simpler.
    public static func oneOf(_ gens: Gen<Value>...) -> Gen<Value> {
        oneOf(gens)
    }

    /// A value from one of `gens`, chosen uniformly; earlier generators are
    /// simpler.
    public static func oneOf(_ gens: [Gen<Value>]) -> Gen<Value> {
        frequency(gens.map { (1, $0) })
    }

    /// A value from one of the generators, chosen in proportion to its
    /// weight when fresh; earlier generators are simpler.
    public static func frequency(_ weighted: [(weight: UInt64, gen: Gen<Value>)]) -> Gen<Value> {
        precondition(!weighted.isEmpty, "frequency needs at least one generator")
        let weights = weighted.map(\.weight)
        let gens = weighted.map(\.gen)
        return Gen { source in
            gens[source.index(weights: weights)].generate(using: &source)
        }
    }

    /// Pairs of values, the first drawn first.
    public static func zip<A, B>(_ a: Gen<A>, _ b: Gen<B>) -> Gen<(A, B)> where Value == (A, B) {
        Gen { source in
            let first = a.generate(using: &source)
            return (first, b.generate(using: &source))
        }
    }

    /// Triples of values, drawn in order.
    public static func zip<A, B, C>(
        _ a: Gen<A>, _ b: Gen<B>, _ c: Gen<C>
    ) -> Gen<(A, B, C)> where Value == (A, B, C) {
        Gen { source in
            let first = a.generate(using: &source)
            let second = b.generate(using: &source)
            return (first, second, c.generate(using: &source))
        }
    }
}

extension Gen where Value: Sendable {
    /// Always `value`, using no choices.
    public static func constant(_ value: Value) -> Gen<Value> {
        Gen { _ in value }
    }

    /// One of `elements`, uniformly when fresh; earlier elements are simpler.
    public static func element(of elements: [Value]) -> Gen<Value> {
        precondition(!elements.isEmpty, "element(of:) needs at least one element")
        return Gen { source in
            elements[Int(source.choose(upTo: UInt64(elements.count - 1)))]
        }
    }
}
