import Concord
import ConcordTesting

/// Makes the changeset a hostile peer sends, from the genuine changes of the
/// device it impersonates, deterministically from a ``ChoiceSource``.
///
/// The forgery is returned as bytes in the binary or the JSON form, as it
/// would cross the wire. ``Forgery/genuineRows`` says whether every row in
/// it is one the peer really holds (only the header lies): such a changeset
/// may be delivered to the receiver as it is, because the app ledger already
/// records the writes it carries, so the oracle stays right whatever the
/// receiver does with it. Any other forgery carries content no app wrote;
/// the simulator delivers it only where it must be refused (see
/// `SimulationRun+Hostile.swift`).
///
/// ```swift
/// let peer = HostilePeer(
///     genuine: changes, nodes: nodes, receiver: laptop, versions: versions,
///     now: 1_700_000_000_000, maxDrift: 60_000)
/// var source = ChoiceSource(seed: 3)
/// let forgery = try peer.forge(.farFuture, as: .binary, using: &source)
/// ```
struct HostilePeer {
    /// What the peer sends: the bytes, their form, and a line saying how they were made.
    struct Forgery {
        var bytes: [UInt8]
        var form: ChangesetMutator.Format
        var what: String
        /// Whether the rows are the peer's own, unedited (only the header lies).
        var genuineRows = false
        /// The error the receiver must refuse it with, when the attack decides that.
        var refusal: Refusal?

        /// Bytes made elsewhere (a mutant).
        init(bytes: [UInt8], form: ChangesetMutator.Format, what: String) {
            self.bytes = bytes
            self.form = form
            self.what = what
        }

        /// `changeset` encoded in `form`; in JSON when the binary encoder refuses a number out of
        /// range (a hostile peer need not use Concord's encoder, and the JSON writer does not check).
        init(_ changeset: Changeset, as form: ChangesetMutator.Format, what: String, genuineRows: Bool = false) {
            if form == .binary, let bytes = try? changeset.encoded() {
                (self.bytes, self.form) = (bytes, .binary)
            } else {
                (bytes, self.form) = (changeset.jsonData(), .json)
            }
            self.what = what
            self.genuineRows = genuineRows
        }
    }

    /// The error a forgery must be refused with, beyond being refused at all.
    enum Refusal: CustomStringConvertible {
        /// A format newer than this build's: ``ChangesetError/unsupportedVersion(found:supported:needs:)``
        /// naming the release.
        case newerFormat(found: UInt64, needs: String)
        /// Bytes that end too soon: ``ChangesetError/truncated(offset:field:)``.
        case truncated

        /// What is wrong with refusing by `error`, or `nil` when it is the refusal expected.
        func problem(with error: any Error) -> String? {
            switch (self, error as? ChangesetError) {
            case (.newerFormat(let format, let release), .unsupportedVersion(let found, _, let needs)?)
            where found == format && needs == release:
                nil
            case (.truncated, .truncated?): nil
            default: "it must be refused \(self), but was refused with: \(error)"
            }
        }

        var description: String {
            switch self {
            case .newerFormat(let found, let needs): "as format \(found), which needs release \(needs)"
            case .truncated: "as cut short"
            }
        }
    }

    /// The release a ``HostileAttack/newerFormat`` forgery says it needs.
    static let futureRelease = "9.9.0"

    /// Everything the impersonated peer holds.
    let genuine: Changeset
    /// Every device's node id, by index.
    let nodes: [NodeID]
    /// The receiver's node id.
    let receiver: NodeID
    /// Every device's version (how far its own history goes), by index.
    let versions: [Int64]
    /// The receiver's clock reading, in Unix milliseconds.
    let now: Int64
    /// The receiver's drift limit, in milliseconds.
    let maxDrift: Int64

    /// The forgery `attack` makes, encoded in `form` (a mutant, a newer format and a cut changeset pick their own).
    func forge(_ attack: HostileAttack, as form: ChangesetMutator.Format, using source: inout ChoiceSource) throws
        -> Forgery
    {
        switch attack {
        case .mutant:
            let mutant = try ChangesetMutator(seeds: [genuine], extraNodes: nodes).mutant(using: &source)
            return Forgery(bytes: mutant.bytes, form: mutant.format, what: "mutant \(mutant)")
        case .forgedSource:
            var forged = genuine
            // Another device's id, never the receiver's: a changeset "from" itself with a higher version tells
            // a replica it was rolled back, and it asks for a fresh node id, which a simulated device cannot give.
            // With two devices there is no third: a node id no device has.
            let others = nodes.indices.filter { nodes[$0] != genuine.source && nodes[$0] != receiver }
            let impersonated = others.isEmpty ? nil : others[Int(source.choose(upTo: UInt64(others.count - 1)))]
            forged.source = impersonated.map { nodes[$0] } ?? NodeID(bytes: Array(repeating: 0xDD, count: 16))!
            // Claiming to carry more of a device's history than it wrote would make that device, once the
            // receiver tells it how far it has read, believe it was rolled back; the claim stops at its version.
            forged.upTo = min(genuine.upTo, impersonated.map { versions[$0] } ?? 0)
            forged.since = min(forged.since, forged.upTo)
            return Forgery(
                forged, as: form, what: "\(genuine.rows.count) genuine rows under source \(forged.source)",
                genuineRows: true)
        case .newerFormat:
            // Each form half the time, not one in eight as messages travel: the JSON reader words the
            // refusal of a newer format on its own, and would otherwise seldom be asked.
            return try newerFormat(as: source.bool() ? .json : .binary)
        case .cutShort:
            let bytes = try genuine.encoded()
            // Inside the magic half the time (then nothing says it is a changeset but its start), else anywhere.
            let length =
                source.bool()
                ? Int(source.choose(upTo: 2)) + 1 : Int(source.choose(upTo: UInt64(bytes.count - 2))) + 1
            var forgery = Forgery(
                bytes: Array(bytes.prefix(length)), form: .binary,
                what: "its \(bytes.count) bytes cut to the first \(length)")
            forgery.refusal = .truncated
            return forgery
        case .notAUnion, .unsortedUnion:
            return forgeColumn(merged: .union, as: form, using: &source) { register, source in
                register.value =
                    attack == .notAUnion
                    ? Gen.notAUnionArray.generate(using: &source)
                    : Self.unsorted(Gen.unionArray.generate(using: &source))
                return "made \(register.value)"
            }
        case .counterWithoutContributions:
            return forgeColumn(merged: .counter, as: form, using: &source) { register, _ in
                register.contributions = []
                return "stripped of its contributions, its value \(register.value) kept"
            }
        case .reusedStamp, .farFuture, .nearDriftLimit, .hugeCausalLength:
            guard !genuine.rows.isEmpty else {
                return Forgery(genuine, as: form, what: "no rows to forge")
            }
            var row = genuine.rows[Int(source.choose(upTo: UInt64(genuine.rows.count - 1)))]
            let what = edit(&row, attack, using: &source)
            var forged = genuine
            forged.rows = [row]
            return Forgery(forged, as: form, what: what)
        }
    }

    /// One of the peer's rows with one register of a column merged as `merge` edited by `edit`, which
    /// says what it did; the genuine changeset when no row has such a register.
    private func forgeColumn(
        merged merge: ColumnMerge, as form: ChangesetMutator.Format, using source: inout ChoiceSource,
        edit: (inout ColumnRegister, inout ChoiceSource) -> String
    ) -> Forgery {
        let candidates = genuine.rows.indices.flatMap { index in
            let merges = genuine.tables.first { $0.name == genuine.rows[index].table }?.merges ?? []
            return merges.indices.filter {
                merges[$0] == merge && genuine.rows[index].registers.columns[$0] != nil
            }.map { (row: index, column: $0) }
        }
        guard !candidates.isEmpty else { return Forgery(genuine, as: form, what: "no \(merge.name) column to forge") }
        let (index, column) = Self.pick(candidates, using: &source)
        var row = genuine.rows[index]
        let what = edit(&row.registers.columns[column]!, &source)
        var forged = genuine
        forged.rows = [row]
        return Forgery(forged, as: form, what: "column \(column) of \(row.table) \(row.key) \(what)")
    }

    /// The genuine changeset in `form` with its format number one above this build's and the release it
    /// needs made ``futureRelease``; what follows is left as it was, as nothing after an unknown format
    /// number is read.
    private func newerFormat(as form: ChangesetMutator.Format) throws -> Forgery {
        let format = UInt64(Changeset.formatVersion) + 1
        var bytes: [UInt8]
        switch form {
        case .binary:
            // "CNCD", the format as a little-endian u16, then the release as a length-prefixed string.
            let encoded = try genuine.encoded()
            let release = Array(Self.futureRelease.utf8)
            bytes = Array(encoded[0..<4]) + [UInt8(format & 0xFF), UInt8(format >> 8), UInt8(release.count)] + release
            bytes += encoded[(7 + Int(encoded[6]))...]
        case .json:
            var text = String(decoding: genuine.jsonData(), as: UTF8.self)
            let written = "\"format\": \(Changeset.formatVersion),"
            guard let formatRange = text.range(of: written), let needs = text.range(of: "\"needs\": \"") else {
                throw HostileForgeryError("the JSON writer's header has changed: no \(written) and \"needs\"")
            }
            let end = text[needs.upperBound...].firstIndex(of: "\"")!
            text.replaceSubrange(needs.upperBound..<end, with: Self.futureRelease)
            text.replaceSubrange(formatRange, with: "\"format\": \(format),")
            bytes = Array(text.utf8)
        }
        var forgery = Forgery(
            bytes: bytes, form: form, what: "written as format \(format), needing release \(Self.futureRelease)")
        forgery.refusal = .newerFormat(found: format, needs: Self.futureRelease)
        return forgery
    }

    /// Edits `row` as `attack` says; returns what it did.
    private func edit(_ row: inout RowChange, _ attack: HostileAttack, using source: inout ChoiceSource) -> String {
        switch attack {
        case .reusedStamp:
            guard let index = row.registers.columns.indices.last(where: { row.registers.columns[$0] != nil }) else {
                return "row \(row.key) has no column to forge"
            }
            let old = row.registers.columns[index]!.value
            row.registers.columns[index]!.value = Self.other(than: old)
            return
                "column \(index) of \(row.table) \(row.key) with its stamp kept, \(old) made \(Self.other(than: old))"
        case .farFuture, .nearDriftLimit:
            let far = attack == .farFuture
            let milliseconds =
                far
                ? Self.pick(
                    [now + maxDrift + 1 + Int64(source.choose(upTo: 1_000_000)), Int64(1) << 47], using: &source)
                : now + maxDrift - Int64(source.choose(upTo: 1_000))
            let hlc = HLCTimestamp(milliseconds: UInt64(max(0, milliseconds)), counter: far ? UInt16.max : 0)
            restamp(&row, hlc)
            return "\(row.table) \(row.key) stamped at \(milliseconds) ms, \(milliseconds - now) ms ahead"
        default:
            let length = Self.pick(
                [(UInt64(1) << 62) - 1, UInt64(1) << 62, (UInt64(1) << 62) + 1, UInt64(Int64.max), UInt64.max],
                using: &source)
            row.registers.liveness.causalLength = length
            return "\(row.table) \(row.key) with causal length \(length)"
        }
    }

    /// Moves every stamp of `row` to `hlc`, keeping their nodes.
    private func restamp(_ row: inout RowChange, _ hlc: HLCTimestamp) {
        if let stamp = row.registers.liveness.stamp { row.registers.liveness.stamp = Stamp(hlc: hlc, node: stamp.node) }
        for index in row.registers.columns.indices {
            guard let stamp = row.registers.columns[index]?.stamp else { continue }
            row.registers.columns[index]!.stamp = Stamp(hlc: hlc, node: stamp.node)
            // What the write saw stays below it (a stamp moved back would otherwise be refused as malformed).
            if let seen = row.seen?[index], seen > row.registers.columns[index]!.stamp {
                row.seen![index] = row.registers.columns[index]!.stamp
            }
        }
    }

    /// `set` (a union array) written other than canonically: as drawn when it already is (most drawn
    /// arrays come unsorted, repeated or spaced), else with a space after its opening bracket.
    ///
    /// ```swift
    /// HostilePeer.unsorted(.text(#"["a","b"]"#))   // [ "a","b"]
    /// ```
    static func unsorted(_ set: SQLiteValue) -> SQLiteValue {
        guard UnionValue.canonical(set) == set, case .text(let text) = set else { return set }
        return .text(SQLiteText(bytes: [UInt8(ascii: "["), UInt8(ascii: " ")] + text.bytes.dropFirst()))
    }

    /// One of `elements` (not empty).
    private static func pick<T>(_ elements: [T], using source: inout ChoiceSource) -> T {
        elements[Int(source.choose(upTo: UInt64(elements.count - 1)))]
    }

    /// A third content for a forged register: neither `value` nor ``other(than:)`` of what the peer held.
    static func rival(of forged: SQLiteValue) -> SQLiteValue {
        switch forged {
        case .integer(let number): .integer(number &+ 1)
        case .text: .text("rival")
        default: .real(0.5)
        }
    }

    /// A value unlike `value`, of the same type where it has one.
    static func other(than value: SQLiteValue) -> SQLiteValue {
        switch value {
        case .integer(let number): .integer(number &+ 1)
        case .text: .text("forged")
        default: .integer(7)
        }
    }
}

/// A forgery the simulator could not make: its own setup problem, never a finding about the engine.
struct HostileForgeryError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
