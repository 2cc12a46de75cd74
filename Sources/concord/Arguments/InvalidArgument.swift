/// Why a command-line value cannot be read as its type.
///
/// The parser names the value and the argument itself, so `reason` only says
/// what is wrong with it; `message` replaces the whole message where a value's
/// own wording reads better.
///
/// ```swift
/// throw InvalidArgument("the range is empty")
/// // Error: The value '5..1' is invalid for '--seeds <a..b>': the range is empty
/// ```
struct InvalidArgument: Error, Equatable {
    /// Said after the standard message, as `: reason`; `nil` says nothing more.
    var reason: String?
    /// The whole message instead of the standard one.
    var message: String?

    init(_ reason: String? = nil) {
        self.reason = reason
    }

    init(message: String) {
        self.message = message
    }
}
