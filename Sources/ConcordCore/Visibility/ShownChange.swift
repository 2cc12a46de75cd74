/// How a merge changed what a user table shows for one row, as an app refreshing its screens sees it.
///
/// An app does not care which registers moved; it cares which rows appeared,
/// changed or went away, and why a row it showed is gone (deleted, or hidden
/// because a parent went away on another device). The shell tells the core
/// where a row was and where it goes; this decides the word.
///
/// ```swift
/// ShownChange.of(wasShown: true, wasAlive: true, valuesChanged: false, now: .deleted)   // .deleted
/// ShownChange.of(wasShown: false, wasAlive: false, valuesChanged: true, now: .shown)    // .inserted
/// ```
public enum ShownChange: String, Hashable, Sendable, Codable, CaseIterable {
    /// A row the table did not show appears: new, or inserted again after a delete.
    case inserted
    /// A row the table showed shows other values (its own, or a stand-in for a parent that went away).
    case updated
    /// A row the table showed is gone because it was deleted.
    case deleted
    /// A row the table showed is gone, alive, because a parent it needs is not visible.
    case hidden
    /// A row that was alive but not shown (hidden or parked) shows again.
    case shownAgain = "shown again"
    /// A row is alive but cannot show yet: its parent has not arrived, or its values break a constraint.
    case parked

    /// Where a row ends up, as far as the app can tell.
    public enum Destination: Hashable, Sendable {
        case shown, deleted, hidden, parked

        /// Where `placement` puts a row.
        public init(_ placement: Placement) {
            switch placement {
            case .shown: self = .shown
            case .hidden(nil): self = .deleted
            case .hidden(let reason?): self = reason.hidesShownRow ? .hidden : .parked
            }
        }
    }

    /// The change from a row's state before (shown? alive?) to `now`; `nil` when the table shows no difference.
    public static func of(wasShown: Bool, wasAlive: Bool, valuesChanged: Bool, now: Destination) -> ShownChange? {
        switch (wasShown, now) {
        case (true, .shown): valuesChanged ? .updated : nil
        case (true, .deleted): .deleted
        case (true, .hidden): .hidden
        case (true, .parked): .parked
        case (false, .shown): wasAlive ? .shownAgain : .inserted
        case (false, .hidden), (false, .parked): wasAlive ? nil : .parked
        case (false, .deleted): nil
        }
    }
}

extension ParkReason {
    /// Whether a shown row that gets this reason is *hidden* (a parent it needs went away) rather than *parked*.
    var hidesShownRow: Bool {
        switch self {
        case .hiddenParent, .onCycle: true
        case .missingParent, .constraint, .unsyncableKey: false
        }
    }
}
