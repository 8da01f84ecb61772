import OneTap
import Testing

/// Polls `condition` every 5 ms, 2,000 times at most; records an issue when it never holds.
func waitUntil(_ condition: @Sendable () async throws -> Bool, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    for _ in 0..<2000 {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(5))
    }
    Issue.record("the condition never held", sourceLocation: sourceLocation)
}
