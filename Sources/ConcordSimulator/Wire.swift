import Concord
import ConcordTesting

/// The bytes a simulated message travels as: every changeset a device sends
/// or the record server hands out is encoded by the real encoder and read back
/// by the real decoder, in the binary or the JSON form.
///
/// Handing values over in memory would hide a field the encoder drops or the
/// decoder misreads; going through the bytes makes such a bug a divergence
/// the checks see, and ``decode(_:as:expecting:)`` names it at once by
/// comparing what arrived with what was sent. The form of each message is a
/// pure function of the run's seed and the message's number (not a plan
/// choice, so existing plans and reproducers replay unchanged), so a seed
/// gives the same bytes every time. One message in eight travels as JSON, at
/// a place in each eight the seed draws: both forms are exercised in every run
/// of eight messages or more, and the binary form, the one devices send, gets
/// most of the traffic (the JSON reader costs several times as much).
///
/// A receiver reads every message as a file of unknown form is read
/// (``Changeset/decode(anyFormat:)``), and most JSON messages arrive as a
/// tool or an editor may leave a JSON file: after a byte-order mark, blank
/// lines or indentation, which JSON allows; which of those depends on the
/// bytes alone, so a seed still gives the same bytes.
///
/// ```swift
/// let form = Wire.form(seed: 7, message: 3)
/// let bytes = try Wire.encode(changes, as: form)
/// let received = try Wire.decode(bytes, as: form, expecting: changes)
/// ```
enum Wire {
    /// A message whose decoded changeset differs from the one sent: an encoder or decoder bug.
    struct Mismatch: Error, CustomStringConvertible {
        let form: ChangesetMutator.Format
        let description: String
    }

    /// The form message number `message` of a run with seed `seed` travels in: JSON for one message in
    /// every eight consecutive ones, binary for the others.
    static func form(seed: UInt64, message: Int) -> ChangesetMutator.Format {
        (SeededGenerator.mix(seed) &+ UInt64(truncatingIfNeeded: message)) % 8 == 0 ? .json : .binary
    }

    /// `changeset` in `form`, as the real encoder writes it.
    static func encode(_ changeset: Changeset, as form: ChangesetMutator.Format) throws -> [UInt8] {
        switch form {
        case .binary: try changeset.encoded()
        case .json: lead(changeset.jsonData())
        }
    }

    /// What comes before a JSON message's `{`: nothing, whitespace, a byte-order mark, or both, by its length.
    static func lead(_ json: [UInt8]) -> [UInt8] {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        let leads: [[UInt8]] = [[], Array("\n".utf8), Array(" \t\r\n  ".utf8), bom, bom + Array("\r\n".utf8)]
        return leads[json.count % leads.count] + json
    }

    /// The changeset `bytes` hold in `form`, as the real decoder reads them; throws ``Mismatch`` when
    /// it differs from `sent`, the changeset the sender encoded.
    static func decode(_ bytes: [UInt8], as form: ChangesetMutator.Format, expecting sent: Changeset) throws
        -> Changeset
    {
        let received = try Changeset.decode(anyFormat: bytes)
        guard received == sent else {
            throw Mismatch(form: form, description: mismatch(sent: sent, received: received, form: form))
        }
        return received
    }

    /// A sentence naming the first difference between `sent` and `received`.
    private static func mismatch(sent: Changeset, received: Changeset, form: ChangesetMutator.Format) -> String {
        let prefix = "a changeset changed on the wire (\(form.rawValue) form): "
        if sent.source != received.source || sent.since != received.since || sent.upTo != received.upTo {
            return prefix + "header \(sent.source) \(sent.since)...\(sent.upTo) arrived as "
                + "\(received.source) \(received.since)...\(received.upTo)"
        }
        if sent.tables != received.tables { return prefix + "tables \(sent.tables) arrived as \(received.tables)" }
        for (ours, theirs) in zip(sent.rows, received.rows) where ours != theirs {
            return prefix + "row \(ours) arrived as \(theirs)"
        }
        return prefix + "\(sent.rows.count) rows arrived as \(received.rows.count)"
    }
}
