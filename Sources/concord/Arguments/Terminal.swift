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

/// The width in columns of the terminal `fileDescriptor` shows, or `nil` when it is not one (or will not say).
///
/// ```swift
/// let width = terminalColumns(2) ?? 80
/// ```
func terminalColumns(_ fileDescriptor: Int32) -> Int? {
    var size = winsize()
    guard ioctl(fileDescriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
    return Int(size.ws_col)
}
