extension Duration {
    /// The duration in seconds, as reports print it.
    ///
    /// ```swift
    /// let started = ContinuousClock.now
    /// let seconds = (ContinuousClock.now - started).seconds   // e.g. 0.0123
    /// ```
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
