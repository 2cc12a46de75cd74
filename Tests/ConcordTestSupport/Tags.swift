// Every test target that imports ConcordTestSupport gets the shared tags (`.slow`, `.cli`, ...)
// from this one import; see Tests/ConcordTestTags/Tags.swift.
@_exported import ConcordTestTags
