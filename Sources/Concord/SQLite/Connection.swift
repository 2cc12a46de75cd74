import CSQLite

/// An open SQLite connection and the VFS it was opened through, closed when its last owner lets go.
///
/// A ``Database`` and every ``Statement`` prepared on it hold the connection,
/// so ownership flows one way: a statement kept past its database keeps the
/// connection open (SQLite cannot close a connection with a statement not yet
/// finalized), and the connection keeps its VFS registered until it closes
/// (SQLite reaches the VFS while closing: the WAL is checkpointed and deleted
/// then). Nothing is leaked and nothing dangles.
///
/// ```swift
/// let database = try Database(path: "app.sqlite")
/// let statement = try database.prepare("SELECT 1")   // holds database.connection
/// ```
final class Connection {
    let handle: OpaquePointer
    /// Kept for as long as the connection is open; released after it closes.
    let vfs: ReplicaVFS?
    /// The connection's authorizer, which leaves silenced triggers' writes out of what it compiles.
    let silencer = TriggerSilencer()

    init(handle: OpaquePointer, vfs: ReplicaVFS?) {
        self.handle = handle
        self.vfs = vfs
        silencer.install(on: handle)
    }

    /// Every statement is finalized by now (each held this connection), so the close completes here,
    /// before `vfs` is released.
    deinit { sqlite3_close_v2(handle) }
}
