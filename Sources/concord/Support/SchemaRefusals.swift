import Concord

extension Output {
    /// Prints every table a replica refuses for a destructive schema change, and fails the command.
    ///
    /// Commands do all the rest first — other tables fold, export, merge and
    /// report — then call this, so a refusal costs only the refused table:
    /// `Error: DB: table 'T' changed since sync was enabled: ... To fix: ...` on
    /// standard error, one line per table, and exit status 1.
    ///
    /// ```swift
    /// try output.failOnSchemaRefusals(of: [(options.db, replica)])
    /// ```
    mutating func failOnSchemaRefusals(of replicas: [(path: String, replica: Replica)]) throws {
        var refused = false
        for (path, replica) in replicas {
            for refusal in replica.schemaRefusals {
                print("Error: \(path): \(refusal)", to: &standardError)
                refused = true
            }
        }
        if refused { throw ExitCode.failure }
    }
}
