/// The identity and order of one write: a clock reading and the node that made it.
///
/// Stamps are totally ordered, first by clock, then by node id, and two
/// different writes never share one. Last-writer-wins means: the higher stamp.
///
/// ```swift
/// let a = Stamp(hlc: HLCTimestamp(milliseconds: 5, counter: 0), node: n1)
/// let b = Stamp(hlc: HLCTimestamp(milliseconds: 5, counter: 0), node: n2)
/// max(a, b)   // the one with the larger node id
/// ```
public struct Stamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// When: the hybrid logical clock reading the write took.
    public var hlc: HLCTimestamp
    /// Who: the node that made the write, which also settles equal readings.
    public var node: NodeID

    /// The stamp of a write `node` made at `hlc`.
    public init(hlc: HLCTimestamp, node: NodeID) {
        self.hlc = hlc
        self.node = node
    }

    /// Earlier: by clock reading, then by node id.
    public static func < (lhs: Stamp, rhs: Stamp) -> Bool {
        lhs.hlc != rhs.hlc ? lhs.hlc < rhs.hlc : lhs.node < rhs.node
    }

    /// `milliseconds.counter@node`, the node id shortened to its first 8 hex digits.
    public var description: String { "\(hlc)@\(node.description.prefix(8))" }
}
