import ConcordCore

/// Whose counter changes a copied file's capture log held: the original replica's, at the clock the copy
/// was made with.
///
/// Why: Concord stamps captured writes at the next fold, so a file copied
/// between an app's write and that fold (a backup taken, a file copied to a
/// new device) carries the write unstamped, and both files fold it. For a
/// last-writer-wins column that is harmless: both stamp the same value. A
/// counter, though, would take the increment twice, once as each device's
/// contribution, and once they sync every device would count it twice. So the
/// copy, which notices it is one before it stamps anything, folds what it
/// found waiting with its counter changes credited to the original node, at
/// the original's clock as the file holds it: no stamp the original ever
/// issues after the copy is lower. When the original folds the same writes
/// (or more), its contribution is newer and replaces the credited one, so the
/// increment counts once; when the original never syncs again (a phone
/// restored from its backup and retired), the credited contribution is the
/// increment, and it is not lost. The counter's register takes the credited
/// stamp too, as the original's write; every other register of those writes
/// is the copy's own write, stamped under its new node id.
///
/// Limits: a decrement credited at the very stamp of the original's last
/// contribution to that counter ties with it and loses (for good if the
/// original never syncs); writes an app made to the copy before Concord first
/// opened it cannot be told from the original's, are credited alike, and are
/// lost when the original's next change of that counter arrives; two copies
/// taken at different moments before the original folds credit different
/// amounts at one stamp, and the larger is kept; writes of a table refused
/// for a destructive schema change stay in the log and are folded as the
/// copy's own once it syncs again (the credit lives only in the fold that
/// noticed the copy); and if the original itself then loses the write (a
/// power failure before its disk had it, which a copy read from its cache
/// can survive), the original's next change to that counter may replace the
/// credit without it.
///
/// ```swift
/// // cp phone.sqlite tablet.sqlite, with `likes = likes + 1` not folded yet
/// let tablet = try Replica(path: "tablet.sqlite")   // folds it as the phone's +1
/// ```
struct CopyCredit: Equatable {
    /// The node id the file wrote under before it was copied.
    let original: NodeID
    /// The file's clock when the copy noticed it was one: at least every stamp the original had issued.
    let hlc: HLCTimestamp

    /// The stamp of the contributions credited to the original.
    var stamp: Stamp { Stamp(hlc: hlc, node: original) }
}
