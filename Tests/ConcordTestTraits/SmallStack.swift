import Foundation
import Synchronization

/// Runs `body` on a thread of its own whose stack holds `bytes`, waits for it, and returns what it returned
/// or throws what it threw.
///
/// Why: apps sync on background threads, whose stacks are far smaller than the main thread's 8 MiB (512 KiB
/// for a secondary thread on Apple platforms). Work that takes a frame per row of a chain ends the process
/// there first; a test that runs it on such a stack fails by crashing, as the app would.
///
/// ```swift
/// let placement = try onSmallStack { try visibility.placement(of: bottom) }
/// ```
public func onSmallStack<T: Sendable>(
    bytes: Int = 512 * 1024, _ body: @escaping @Sendable () throws -> T
) throws -> T {
    let outcome = Mutex<Result<T, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        let result = Result { try body() }
        outcome.withLock { $0 = result }
        done.signal()
    }
    thread.stackSize = bytes
    thread.start()
    done.wait()
    return try outcome.withLock { $0! }.get()
}
