import ConcordTestSupport

@testable import Concord

/// Two replicas of the reminders table, each in a file of its own in `directory`, that have synced one
/// reminder (`r1`, "milk", "fridge") a second apart on `clock`: the start of every conflict-log test.
///
/// ```swift
/// let (phone, laptop) = try syncedReminderPair(in: directory, clock: clock)
/// ```
func syncedReminderPair(in directory: TemporaryDirectory, clock: ManualClock, policy: TablePolicy = .column)
    throws -> (Replica, Replica)
{
    let a = try makeReplica(directory, "a.sqlite", node: 1, clock: clock, policy: policy)
    let b = try makeReplica(directory, "b.sqlite", node: 2, clock: clock, policy: policy)
    try a.database.execute("INSERT INTO reminders (id, title, notes) VALUES ('r1', 'milk', 'fridge')")
    clock.advance(by: 1_000)
    try Replica.sync([a, b])
    clock.advance(by: 1_000)
    return (a, b)
}
