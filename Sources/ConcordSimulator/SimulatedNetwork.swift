import Concord

/// Changesets in flight between devices, with the faults a real network has.
///
/// Messages wait a random delay (so they overtake each other), may be sent
/// twice, and may be lost; a lost message is not resent as such — the
/// receiver asks again from the version it last read, so nothing is lost for
/// good. Links can be cut one way or both ways.
struct SimulatedNetwork {
    struct Message {
        let deliverAt: Int64
        let sequence: Int
        let from: Int
        let to: Int
        let changeset: Changeset
        /// What the sender knew of the changeset's rows when it sent it; the receiver learns it on applying.
        let knowledge: Knowledge
    }

    private(set) var inFlight: [Message] = []
    private var cut: Set<[Int]> = []
    private var sequence = 0

    /// Whether `from` can currently reach `to`.
    func canSend(from: Int, to: Int) -> Bool { !cut.contains([from, to]) }

    mutating func send(
        _ changeset: Changeset, knowledge: Knowledge, from: Int, to: Int, at time: Int64, delay: Int64
    ) {
        sequence += 1
        inFlight.append(
            Message(
                deliverAt: time + delay, sequence: sequence, from: from, to: to, changeset: changeset,
                knowledge: knowledge))
    }

    /// Removes and returns the messages due by `time`, in delivery order.
    mutating func due(by time: Int64) -> [Message] {
        let ready = inFlight.filter { $0.deliverAt <= time }.sorted {
            ($0.deliverAt, $0.sequence) < ($1.deliverAt, $1.sequence)
        }
        inFlight.removeAll { $0.deliverAt <= time }
        return ready
    }

    mutating func cutLink(from: Int, to: Int) { cut.insert([from, to]) }
    mutating func heal() { cut.removeAll() }
    var hasPartition: Bool { !cut.isEmpty }
}
