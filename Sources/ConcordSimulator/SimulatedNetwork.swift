import Concord
import ConcordTesting

/// Changesets in flight between devices, with the faults a real network has.
///
/// A message travels as bytes (see ``Wire``): the sender's changeset encoded
/// in the binary or the JSON form, which the receiver decodes on delivery.
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
        /// The changeset as the sender encoded it, to compare with what the receiver decodes.
        let sent: Changeset
        /// What travels: `sent` in `form`.
        let bytes: [UInt8]
        let form: ChangesetMutator.Format
        /// What the sender knew of the changeset's rows when it sent it; the receiver learns it on applying.
        let knowledge: Knowledge
    }

    private(set) var inFlight: [Message] = []
    private var cut: Set<[Int]> = []
    private var sequence = 0
    /// Messages (mesh pages, cloud requests and answers) given a form so far.
    private(set) var encoded = 0

    /// Whether `from` can currently reach `to`.
    func canSend(from: Int, to: Int) -> Bool { !cut.contains([from, to]) }

    /// Puts `changeset`, encoded in `form`, on the wire from `from` to `to`, to arrive `delay` ms after `time`.
    mutating func send(
        _ changeset: Changeset, as form: ChangesetMutator.Format, knowledge: Knowledge, from: Int, to: Int,
        at time: Int64, delay: Int64
    ) throws {
        sequence += 1
        inFlight.append(
            Message(
                deliverAt: time + delay, sequence: sequence, from: from, to: to, sent: changeset,
                bytes: try Wire.encode(changeset, as: form), form: form, knowledge: knowledge))
    }

    /// The form the next message travels in: message by message, drawn from the run's `seed` (see ``Wire``).
    mutating func nextForm(seed: UInt64) -> ChangesetMutator.Format {
        encoded += 1
        return Wire.form(seed: seed, message: encoded)
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

extension SimulatedNetwork.Message {
    /// The changeset the receiver reads from the bytes; throws ``Wire/Mismatch`` when it is not the one sent.
    func decoded() throws -> Changeset { try Wire.decode(bytes, as: form, expecting: sent) }
}
