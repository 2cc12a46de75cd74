import ConcordCore

/// A node id whose bytes are all `byte`, so tests can name the winner of a tie.
func node(_ byte: UInt8) -> NodeID { NodeID(bytes: Array(repeating: byte, count: NodeID.byteCount))! }
