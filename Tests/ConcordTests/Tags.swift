import Testing

extension Tag {
    /// Randomized properties: many cases each, so a fast inner loop may skip them
    /// (`swift test --skip-tags property`, or filter by suite).
    @Tag static var property: Self
}
