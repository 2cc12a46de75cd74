/// The fuzz run could not run its inputs: a worker could not be started or waited for, or failed before its first input.
///
/// Unlike a crash at an input, there is nothing to reproduce: the message
/// says what failed, and the command exits 1.
///
/// ```swift
/// throw FuzzSetupFailure(message: "could not start /usr/local/bin/concord: Permission denied")
/// ```
struct FuzzSetupFailure: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
