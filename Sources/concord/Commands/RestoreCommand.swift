import Concord

/// The arguments of `concord restore`.
struct RestoreOptions: ParsableOptions {
    @Positional(help: "The replica's database file.")
    var db: String
    @Positional(help: "The id `concord conflicts` lists for the value to bring back.")
    var conflictId: String

    /// The conflict's id, once ``validate()`` has checked it is one.
    var id: Int64 { Int64(conflictId) ?? 0 }

    func validate() throws(UsageError) {
        guard let id = Int64(conflictId), id > 0 else {
            throw UsageError("<conflict-id> takes the number `concord conflicts DB` lists, such as 3")
        }
    }
}

extension Subcommand {
    static let restore = Subcommand(
        "restore",
        abstract: "Write a value that lost to a concurrent write back, as a new local write.",
        discussion: """
            The value is written as an app would write it (an UPDATE of the column, or an INSERT of the row \
            when it was deleted), so it is captured and syncs to every device with the next export. Under \
            the row policy the whole losing row comes back. The entry leaves the conflict log. A row brought \
            back whose parent is not visible is parked at once, kept, and the command says so.
            """,
        options: RestoreOptions.self
    ) { options, output in
        let replica = try Replica(path: options.db, create: false)
        guard let conflict = try replica.conflicts().first(where: { $0.id == options.id }) else {
            throw ReplicaError.unknownConflict(id: options.id)
        }
        try replica.restore(conflict: options.id)
        print(
            "\(options.db): restored conflict \(conflict.id): \(conflict.table)/\(conflict.keyText) "
                + "\(conflict.column) = \(conflict.lost) (a local write; it syncs with the next export)", to: &output)
        // A row brought back may not show yet (its parent is not visible): the value is kept, and waits.
        if let parked = try replica.parked().first(where: { $0.table == conflict.table && $0.keyValue == conflict.key })
        {
            print(
                "\(options.db): \(conflict.table)/\(conflict.keyText) does not show yet: \(parked.reason); "
                    + "it shows once that is settled", to: &output)
        }
    }
}
