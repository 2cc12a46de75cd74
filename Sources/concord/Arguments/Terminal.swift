#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Whether `fileDescriptor` is an interactive terminal rather than a file or pipe.
///
/// Progress lines redraw themselves with a carriage return, which only looks
/// right on a terminal; anything going to a pipe or a file gets plain lines.
///
/// ```swift
/// let showsProgress = isTerminal(2)   // standard error
/// ```
func isTerminal(_ fileDescriptor: Int32) -> Bool {
    isatty(fileDescriptor) == 1
}
