// An app imports Concord and gets the semantics' types (values, stamps, changesets) with it.
@_exported import ConcordCore
