/// What a hostile peer sends a device (see ``Scenario/Faults/hostile``).
///
/// A peer can send anything, so the simulator makes some of them lie: it
/// mutates a genuine changeset until it is malformed or out of range, or it
/// forges a well-formed one. Each attack names what the receiver must do
/// with it: refuse it with an error and leave its file byte-identical, or
/// accept it without anyone crashing and without breaking convergence.
///
/// ```swift
/// let step = SimulationStep(after: 5, device: 0, action: .hostile(from: 1, attack: .farFuture, seed: 9))
/// print(step)   // "+5 ms device 0 gets a hostile changeset from 1: farFuture"
/// ```
public enum HostileAttack: String, Codable, Sendable, CaseIterable {
    /// The peer's changeset mutated by ConcordTesting's `ChangesetMutator`, in the binary or JSON form:
    /// bytes cut or flipped, fields at extremes, rows duplicated, names SQLite treats specially.
    case mutant
    /// The peer's genuine changes sent again under another device's node id as their source.
    case forgedSource
    /// One of the peer's rows with a column's stamp kept and its value changed: a stamp reused for other content.
    case reusedStamp
    /// One of the peer's rows with a stamp beyond the receiver's drift limit (up to the largest clock).
    case farFuture
    /// One of the peer's rows with a stamp just inside the receiver's drift limit.
    case nearDriftLimit
    /// One of the peer's rows with a huge causal length (up to the largest the format holds).
    case hugeCausalLength
    /// The peer's changeset as a newer release writes it: a format number above this build's, naming the
    /// release that reads it. It must be refused by an error naming that release, so the user learns what
    /// to install rather than that the bytes are damaged.
    case newerFormat
    /// The peer's binary changeset cut short, sometimes inside its first four bytes: it must be refused as
    /// cut short, which tells a person the transfer broke, not that the bytes are no changeset at all.
    case cutShort
    /// One of the peer's rows with a `union` column holding text that is no union (`[1`, `[1.5]`, `{"a":1}`):
    /// the receiver's capture refuses such text from its own app, so only a peer brings it to the merge,
    /// which must read it without crashing.
    case notAUnion
    /// One of the peer's rows with a `union` column holding a set that is not written as its canonical
    /// array: out of order, repeated or spaced (`[ "b","a","b"]`). The receiver must store the canonical
    /// array it stands for, even for a row it never held (then nothing merges it with anything), or its
    /// check finds the column not settled.
    case unsortedUnion
    /// One of the peer's rows with a `counter` column's register stripped of its contributions, its value
    /// kept: what a client that takes a counter for a plain value would relay. The register then counts
    /// for nothing, and a receiver that takes it must still be able to pass its changes on in both forms.
    case counterWithoutContributions
}
