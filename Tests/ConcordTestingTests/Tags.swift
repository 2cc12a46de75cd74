import Testing

extension Tag {
    /// Randomized properties: many cases each, so a fast inner loop may skip them.
    @Tag static var property: Self
}
