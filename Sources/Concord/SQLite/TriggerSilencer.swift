import CSQLite

/// Leaves the writes of chosen triggers out of the statements a connection compiles while it silences them.
///
/// Why: Concord's capture triggers must not log the writes Concord itself
/// makes while merging, yet every other client's writes must be logged. Dropping
/// the triggers and making them again around each merge (as Concord once did)
/// changes the schema twice per sync, which makes every statement of every
/// connection compile again; a condition every trigger reads would cost every
/// app write a lookup. SQLite compiles a trigger's body into each statement
/// that fires it, asking the connection's authorizer about every write it
/// codes: answering `SQLITE_IGNORE` for a silenced trigger's writes leaves
/// them out of that statement alone. Other connections, and this connection's
/// statements compiled while not silencing, keep them.
///
/// A statement's code depends on the mode it was compiled in, so a
/// ``Statement`` notes whether its compile met a silenceable trigger and, if
/// so, compiles again when it is bound in the other mode (see
/// ``Statement/bind(_:)``). SQLite recompiles an expired statement inside its
/// step, in the mode of that moment, which is the mode it was bound in.
///
/// ```swift
/// database.silencer.silences = { trigger, _ in trigger.hasPrefix("capture_") }
/// try database.silencingTriggers { try database.execute("UPDATE t SET a = 1") }  // nothing captured
/// ```
final class TriggerSilencer {
    // Its mutable properties go unchecked for exclusivity, as ``Statement``'s do: each step reads them.
    /// Whether statements compiled now leave the silenced triggers' writes out.
    @exclusivity(unchecked) fileprivate(set) var isSilencing = false
    /// Whether a write that the trigger named first codes into the table named second may be silenced
    /// (SQLite can leave out an insert, or the columns of an update, but not a delete).
    var silences: (_ trigger: String, _ table: String) -> Bool = { _, _ in false }
    /// Whether a delete that the trigger named first codes from the table named second matters to the
    /// owner: it cannot be silenced, so a silenced statement that runs it deletes rows nothing captures
    /// (see ``deletedWhileSilencing``).
    var watchesDeletes: (_ trigger: String, _ table: String) -> Bool = { _, _ in false }
    /// The tables of the watched deletes that statements run while silencing had coded, in no order,
    /// until the owner takes them (``takeDeletedWhileSilencing()``).
    ///
    /// Why per run, not per compile: a merge statement is compiled once and run for many rows, and most
    /// never fire the app's deleting trigger; the owner then looks for rows those deletes took only after
    /// the silenced writes that could have made them.
    @exclusivity(unchecked) private(set) var deletedWhileSilencing: Set<String> = []
    /// The watched deletes the compile under way has coded so far (see ``codedDeletes(since:)``).
    @exclusivity(unchecked) private var coding: [String] = []
    /// How many writes of silenceable triggers compiles have met, in either mode: a statement whose compile
    /// raised it has code that depends on the mode.
    @exclusivity(unchecked) private(set) var encounters = 0
    /// Catches the values of the rows watched deletes take while silencing, around each step of a statement
    /// that codes one (see ``DeletedRowCatcher``); its `tables` are the owner's to set.
    let catcher = DeletedRowCatcher()
    /// Given the rows ``catcher`` caught, after the step that deleted them: the owner keeps their values.
    var keepCaught: ([DeletedRowCatcher.CaughtRow]) throws -> Void = { _ in }

    /// Installs the authorizer on `handle`; the silencer must outlive the connection (``Connection`` owns it).
    func install(on handle: OpaquePointer) {
        sqlite3_set_authorizer(
            handle,
            { context, action, table, _, _, trigger in
                // An insert is left out whole; an update, column by column (each asked for); a delete proceeds
                // whatever the answer, so it is never silenced, only reported.
                guard let context, let trigger, let table else { return SQLITE_OK }
                let silencer = Unmanaged<TriggerSilencer>.fromOpaque(context).takeUnretainedValue()
                if action == SQLITE_DELETE, silencer.watchesDeletes(String(cString: trigger), String(cString: table)) {
                    silencer.coding.append(String(cString: table))
                }
                guard action == SQLITE_INSERT || action == SQLITE_UPDATE else { return SQLITE_OK }
                guard silencer.silences(String(cString: trigger), String(cString: table)) else { return SQLITE_OK }
                silencer.encounters += 1
                return silencer.isSilencing ? SQLITE_IGNORE : SQLITE_OK
            }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Where the next compile's watched deletes start; pass it to ``codedDeletes(since:)`` after compiling.
    var codingMark: Int { coding.count }

    /// The tables of the watched deletes compiled since `mark` (from ``codingMark``), in compile order.
    func codedDeletes(since mark: Int) -> [String] {
        guard coding.count > mark else { return [] }
        defer { coding.removeSubrange(mark...) }
        return Array(coding[mark...])
    }

    /// Notes that a statement whose code holds the watched deletes of `tables` ran, in the present mode.
    func ran(codedDeletes tables: [String]) {
        if isSilencing && !tables.isEmpty { deletedWhileSilencing.formUnion(tables) }
    }

    /// Hands the rows ``catcher`` caught to ``keepCaught``, if any; after a step that failed, drops them (the
    /// statement's changes were undone).
    func deliverCaught(failed: Bool = false) throws {
        guard !catcher.caught.isEmpty else { return }
        let rows = catcher.take()
        if !failed { try keepCaught(rows) }
    }

    /// The tables silenced statements may have deleted rows from uncaptured since the last call.
    func takeDeletedWhileSilencing() -> Set<String> {
        defer { deletedWhileSilencing = [] }
        return deletedWhileSilencing
    }

    /// Runs `body` silencing the triggers ``silences`` accepts (nested calls silence too).
    func silencing<T>(_ body: () throws -> T) rethrows -> T {
        let outer = isSilencing
        isSilencing = true
        defer { isSilencing = outer }
        return try body()
    }
}
