import ConcordTesting
import Foundation

extension Simulation {
    /// What shrinking a failure found.
    public struct Shrunk: Sendable {
        /// The smallest failing choices found, the plan they give, and how that plan fails.
        public var choices: [UInt64]
        /// The plan ``choices`` replay to.
        public var plan: SimulationPlan
        /// How ``plan`` fails: the same kind of invariant as the run shrunk.
        public var result: SimulationResult
        /// Runs the shrinker made.
        public var runs: Int
    }

    /// Shrinks failing `choices` to a smaller plan that fails the same way (the same kind of invariant).
    ///
    /// Two passes take turns until neither helps or `maxRuns` is spent: one
    /// deletes whole steps, halves of the plan first and single steps last
    /// (a step is a run of choices, so deleting one cleanly is what a
    /// generic shrinker seldom hits); the
    /// other is the ConcordTesting `Shrinker`, which simplifies what is
    /// left — fewer devices, shorter delays, plainer writes. A candidate that
    /// fails at step *k* keeps only its choices up to step *k*, so a plan
    /// shrinks to its failing prefix at once. With `goal`, it stops after the
    /// first pass that leaves at most that many steps (a check that a failure
    /// shrinks far enough need not pay for the smallest plan).
    ///
    /// ```swift
    /// let shrunk = try simulation.shrink(choices, failing: result, maxRuns: 300)
    /// print(shrunk.plan.steps.count)
    /// ```
    public func shrink(
        _ choices: [UInt64], failing result: SimulationResult, maxRuns: Int = 500, goal: Int = 0
    ) throws -> Shrunk {
        guard let kind = result.failure?.kind else { preconditionFailure("shrink needs a failing run") }
        var runs = 0
        var tried: Set<[UInt64]> = []
        /// The choices a failing candidate needs, or `nil` when it passes (or fails another way).
        func stillFails(_ candidate: [UInt64]) -> [UInt64]? {
            guard runs < maxRuns, tried.insert(candidate).inserted else { return nil }
            runs += 1
            let plan = self.plan(replaying: candidate)
            guard let run = try? self.run(plan), run.failure?.kind == kind else { return nil }
            if let step = run.failure?.step, step < plan.choicesAfterStep.count {
                // Choices past the failing step only draw steps that never ran.
                return Array(candidate.prefix(plan.choicesAfterStep[step]))
            }
            return candidate
        }
        var current = stillFails(choices) ?? choices
        while runs < maxRuns {
            let before = current
            current = deleteSteps(current, stillFails)
            if plan(replaying: current).steps.count <= goal { break }
            let generic = Shrinker.shrink(current, maxCalls: max(0, (maxRuns - runs) / 2), run: stillFails)
            current = generic.choices
            if current == before || plan(replaying: current).steps.count <= goal { break }
        }
        let plan = self.plan(replaying: current)
        return Shrunk(choices: current, plan: plan, result: try run(plan), runs: runs)
    }

    /// Shrinks a failing plan whose choices are unknown (a reproducer written before plans were drawn
    /// as they are now) by deleting steps alone, last first, until no single step can go.
    public func shrink(plan: SimulationPlan, failing result: SimulationResult, maxRuns: Int = 500) throws -> Shrunk {
        guard let kind = result.failure?.kind else { preconditionFailure("shrink needs a failing run") }
        var current = plan
        var runs = 0
        var deleted = true
        while deleted && runs < maxRuns {
            deleted = false
            for step in current.steps.indices.reversed() where runs < maxRuns && step < current.steps.count {
                var candidate = current
                candidate.steps.remove(at: step)
                candidate.choicesAfterStep = []
                runs += 1
                if try run(candidate).failure?.kind == kind {
                    current = candidate
                    deleted = true
                }
            }
        }
        return Shrunk(choices: [], plan: current, result: try run(current), runs: runs)
    }

    /// Deletes runs of steps whose removal keeps the failure: halves of the plan first, then quarters, and so
    /// on down to single steps, each size from the last run of steps to the first.
    ///
    /// Why: a failure usually needs a few of a plan's steps. Deleting one step at a time costs a run per
    /// step on every pass; deleting halves first drops most of a plan in a few runs, and the single steps
    /// still get their turn last.
    private func deleteSteps(_ choices: [UInt64], _ stillFails: ([UInt64]) -> [UInt64]?) -> [UInt64] {
        var current = choices
        var plan = self.plan(replaying: current)
        var size = max(1, plan.steps.count / 2)
        while true {
            var first = plan.steps.count - size
            while first >= 0 {
                let last = first + size - 1
                // Replay pads a short sequence with zeros, so a step may end past the recorded choices.
                let end = min(plan.choicesAfterStep[last], current.count)
                let start = min(first == 0 ? plan.choicesBeforeSteps : plan.choicesAfterStep[first - 1], end)
                if start < end, let smaller = stillFails(Array(current[..<start] + current[end...])) {
                    current = smaller
                    plan = self.plan(replaying: current)
                }
                first = min(first - size, plan.steps.count - size)
            }
            guard size > 1 else { return current }
            size = max(1, min(size / 2, plan.steps.count / 2))
        }
    }
}
