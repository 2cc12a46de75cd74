// Every test target that imports ConcordTestSupport gets the shared tags (`.slow`, `.cli`, ...) and
// time limits (`.timeLimit(.hangGuard)`) from this one import; see Tests/ConcordTestTraits.
@_exported import ConcordTestTraits
