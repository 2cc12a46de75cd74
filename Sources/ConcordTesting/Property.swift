import ConcordCore
import Foundation

/// Runs a randomized test many times, and shrinks the first failure to a
/// minimal, replayable counterexample.
///
/// Each iteration gets its own seed, derived from one master seed, and draws
/// every random value from a ``ChoiceSource`` seeded with it, so a master
/// seed reruns the whole run and an iteration seed reruns one case exactly.
/// A case fails when the body throws: use ``require(_:_:)`` or throw your
/// own error, not `#expect`/`#require`, which would record an issue for
/// every case tried while shrinking. The failing case's choices
/// are then shrunk with ``Shrinker`` — a smaller case counts as failing only
/// if it throws an error of the same type — and the result is reported as a
/// ``PropertyFailure``. The master seed is `seed:`, else the
/// `CONCORD_SEED` environment variable, else ``defaultSeed``: runs are
/// deterministic unless you ask for another seed.
///
/// ```swift
/// @Test func mergeKeepsEveryRow() throws {
///     try Property.check(iterations: 200) { source in
///         let left = source.draw(Gen.sqliteValue.array(length: 0...4), label: "left")
///         let right = source.draw(Gen.sqliteValue.array(length: 0...4), label: "right")
///         let merged = myMerge(left, right)
///         try Property.require(merged.count >= max(left.count, right.count), "rows lost")
///     }
/// }
/// ```
public enum Property {
    /// The environment variable that, when no `seed:` is passed, sets the
    /// master seed: a `UInt64` in decimal or, after `0x`, in hexadecimal. Any
    /// other value stops the run with a message that says so, rather than run
    /// a seed the user did not ask for.
    public static let seedEnvironmentVariable = "CONCORD_SEED"

    /// The master seed used when neither `seed:` nor the environment gives one.
    public static let defaultSeed: UInt64 = 0xC0AC_0BD5_EED5_0001

    /// Iterations run when none are given.
    public static let defaultIterations = 100

    /// Fails the current case with `message` unless `condition` holds.
    ///
    /// The property-body counterpart of `#require`: it throws
    /// ``PredicateFailed`` without recording a test issue, so only the final,
    /// shrunk failure reaches the test report.
    public static func require(
        _ condition: @autoclosure () throws -> Bool,
        _ message: @autoclosure () -> String = "requirement failed"
    ) throws {
        if try !condition() { throw PredicateFailed(message()) }
    }

    /// The master seed a run uses: `seed`, else ``seedEnvironmentVariable``,
    /// else ``defaultSeed``.
    public static func masterSeed(_ seed: UInt64? = nil) -> UInt64 {
        if let seed { return seed }
        guard let environment = ProcessInfo.processInfo.environment[seedEnvironmentVariable] else { return defaultSeed }
        guard let seed = parseSeed(environment) else {
            fatalError(
                "\(seedEnvironmentVariable)='\(environment)' is not a seed: give a UInt64 in decimal or as 0x… "
                    + "hexadecimal, or unset it to run the default seed \(defaultSeed)")
        }
        return seed
    }

    /// `text` as a seed: a `UInt64` in decimal, or in hexadecimal after `0x`; `nil` for anything else.
    ///
    /// ```swift
    /// Property.parseSeed("42")     // 42
    /// Property.parseSeed("0x2A")   // 42
    /// Property.parseSeed("4 2")    // nil
    /// ```
    public static func parseSeed(_ text: String) -> UInt64? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.lowercased().hasPrefix("0x") { return UInt64(trimmed.dropFirst(2), radix: 16) }
        return UInt64(trimmed)
    }

    /// The seed of iteration `iteration` under `masterSeed`: the
    /// `iteration`-th output of a SplitMix64 stream seeded with the master.
    public static func iterationSeed(masterSeed: UInt64, iteration: Int) -> UInt64 {
        var generator = SeededGenerator(seed: masterSeed &+ 0x9E37_79B9_7F4A_7C15 &* UInt64(iteration))
        return generator.next()
    }

    /// Runs `body` `iterations` times and throws the shrunk first failure.
    public static func check(
        seed: UInt64? = nil,
        iterations: Int = defaultIterations,
        maxShrinkCalls: Int = Shrinker.defaultMaxCalls,
        _ body: (inout ChoiceSource) throws -> Void
    ) throws(PropertyFailure) {
        if let failure = findFailure(seed: seed, iterations: iterations, maxShrinkCalls: maxShrinkCalls, body) {
            throw failure
        }
    }

    /// Checks `predicate` on `iterations` values of `gen`, throwing the
    /// shrunk first value for which it returns `false` or throws.
    public static func check<Value>(
        _ gen: Gen<Value>,
        seed: UInt64? = nil,
        iterations: Int = defaultIterations,
        maxShrinkCalls: Int = Shrinker.defaultMaxCalls,
        _ predicate: (Value) throws -> Bool
    ) throws(PropertyFailure) {
        if let failure = findFailure(
            gen, seed: seed, iterations: iterations, maxShrinkCalls: maxShrinkCalls, predicate)
        {
            throw failure
        }
    }

    /// Like ``check(seed:iterations:maxShrinkCalls:_:)``, but returns the
    /// shrunk failure (or `nil`) — for tests that expect a failure.
    public static func findFailure(
        seed: UInt64? = nil,
        iterations: Int = defaultIterations,
        maxShrinkCalls: Int = Shrinker.defaultMaxCalls,
        _ body: (inout ChoiceSource) throws -> Void
    ) -> PropertyFailure? {
        let master = masterSeed(seed)
        for iteration in 0..<max(iterations, 0) {
            let seed = iterationSeed(masterSeed: master, iteration: iteration)
            if let failure = failure(
                masterSeed: master, iteration: iteration, iterationSeed: seed,
                maxShrinkCalls: maxShrinkCalls, body)
            {
                return failure
            }
        }
        return nil
    }

    /// Like ``check(_:seed:iterations:maxShrinkCalls:_:)``, but returns the
    /// shrunk failure (or `nil`).
    public static func findFailure<Value>(
        _ gen: Gen<Value>,
        seed: UInt64? = nil,
        iterations: Int = defaultIterations,
        maxShrinkCalls: Int = Shrinker.defaultMaxCalls,
        _ predicate: (Value) throws -> Bool
    ) -> PropertyFailure? {
        findFailure(seed: seed, iterations: iterations, maxShrinkCalls: maxShrinkCalls) { source in
            let value = source.draw(gen)
            if try !predicate(value) { throw PredicateFailed() }
        }
    }

    /// Reruns the single case with `seed` (an iteration seed from a
    /// ``PropertyFailure``), shrinking and throwing again if it fails.
    public static func replay(
        seed: UInt64,
        maxShrinkCalls: Int = Shrinker.defaultMaxCalls,
        _ body: (inout ChoiceSource) throws -> Void
    ) throws(PropertyFailure) {
        if let failure = failure(
            masterSeed: nil, iteration: nil, iterationSeed: seed, maxShrinkCalls: maxShrinkCalls, body)
        {
            throw failure
        }
    }

    /// Runs `body` once on exactly `choices` (e.g. a failure's minimal
    /// choices), rethrowing whatever it throws — handy under a debugger.
    public static func replay(
        choices: [UInt64],
        _ body: (inout ChoiceSource) throws -> Void
    ) throws {
        var source = ChoiceSource(replaying: choices)
        try body(&source)
    }

    /// Runs one iteration; on failure, shrinks it and describes the result.
    static func failure(
        masterSeed: UInt64?,
        iteration: Int?,
        iterationSeed: UInt64,
        maxShrinkCalls: Int,
        _ body: (inout ChoiceSource) throws -> Void
    ) -> PropertyFailure? {
        var source = ChoiceSource(seed: iterationSeed)
        guard let originalError = execute(&source, body) else { return nil }
        let kind = errorKind(originalError)
        let shrink = Shrinker.shrink(source.choices, maxCalls: maxShrinkCalls) { candidate in
            var replay = ChoiceSource(replaying: candidate)
            guard let error = execute(&replay, body), errorKind(error) == kind else { return nil }
            return replay.choices
        }
        var minimal = ChoiceSource(replaying: shrink.choices)
        let again = execute(&minimal, body)
        return PropertyFailure(
            masterSeed: masterSeed,
            iteration: iteration,
            iterationSeed: iterationSeed,
            choices: shrink.choices,
            originalChoiceCount: source.choices.count,
            counterexample: minimal.log,
            error: again ?? originalError,
            shrink: shrink,
            reproduced: again.map { errorKind($0) == kind } ?? false
        )
    }

    private static func execute(
        _ source: inout ChoiceSource,
        _ body: (inout ChoiceSource) throws -> Void
    ) -> (any Error)? {
        do {
            try body(&source)
            return nil
        } catch {
            return error
        }
    }

    private static func errorKind(_ error: any Error) -> String {
        String(reflecting: type(of: error))
    }
}
