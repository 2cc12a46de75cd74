/// One of `count` disjoint slices of a batch's runs, so a sweep can be spread over many machines.
///
/// A batch lists its runs in a fixed order (each scenario, then each seed);
/// shard *K* of *N* takes every *N*-th run starting at the *K*-th, so the
/// shards are disjoint, together run everything, and each gets a fair share of
/// every scenario. A run does not depend on which shard ran it: a failure's
/// reproducer is the same file whichever machine found it. Any batch
/// scheduler can hand out the shards — a Slurm array job, a Kubernetes indexed
/// job, GNU parallel — with `concord simulate --shard K/N`.
///
/// ```swift
/// let shard = try SimulationShard(parsing: "2/3")
/// let batch = try SimulationBatch(scenarios: [.default], seeds: 1...300, jobs: 2, shard: shard)
/// batch.runs.count   // 100: seeds 2, 5, 8, …
/// ```
public struct SimulationShard: Hashable, Sendable, CustomStringConvertible {
    /// Which slice, from 1 to ``count``.
    public let index: Int
    /// How many slices the runs are cut into.
    public let count: Int

    /// Shard `index` of `count`; refuses a count below 1 or an index outside `1...count`.
    public init(_ index: Int, of count: Int) throws(ShardError) {
        guard count >= 1 else { throw ShardError("the number of shards must be at least 1, not \(count)") }
        guard (1...count).contains(index) else {
            throw ShardError("shard \(index) does not exist: with \(count) shards, pick one from 1 to \(count)")
        }
        self.index = index
        self.count = count
    }

    /// Reads `K/N`, as in `--shard 2/3`.
    public init(parsing text: String) throws(ShardError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else {
            throw ShardError("expected K/N, for example 2/3 for the second of three shards")
        }
        try self.init(index, of: count)
    }

    /// Whether the run at `position` in a batch's order belongs to this shard.
    public func contains(position: Int) -> Bool { position % count == index - 1 }

    /// `K/N`.
    public var description: String { "\(index)/\(count)" }
}

/// Why a shard was refused, in words for the person who asked for it.
public struct ShardError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What is wrong and what to give instead.
    public let description: String

    init(_ description: String) { self.description = description }
}
