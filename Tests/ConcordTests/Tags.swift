import Testing

extension Tag {
    /// Randomized properties: hundreds of generated cases each, seconds per test in a debug build.
    ///
    /// Every test with this tag also has a function name starting with `property`, so a fast inner
    /// loop skips them all with `swift test --skip /property` (toolchains whose `swift test` filters
    /// by tag also take `--skip tag:property`). CI runs them: each prints its seeds on failure.
    @Tag static var property: Self
}
