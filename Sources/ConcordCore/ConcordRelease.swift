/// The Concord release this build is: what `concord --version` prints and changeset errors name.
///
/// A changeset names the oldest release that reads its format, so a build
/// given a newer format can say both which release the changeset needs and
/// which one it is itself. Keeping the number in the library, rather than in
/// the command-line tool, makes the tool, those errors and an app that embeds
/// Concord report the same release. Bump it with every release; a release that
/// changes the changeset format writes its own number as the format's
/// requirement (see ``ChangesetEncoder``).
///
/// ```swift
/// print("Concord \(ConcordRelease.current)")   // Concord 0.3.0
/// ```
public enum ConcordRelease {
    /// This build's release, as `major.minor.patch`.
    public static let current = "0.3.0"
}
