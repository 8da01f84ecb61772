import Foundation

/// A fresh directory under the system's temporary one, for the files one test makes.
package enum TemporaryDirectory {
    /// Runs `body` with a fresh, empty directory, and removes the directory and everything in it afterwards.
    /// - Parameters:
    ///   - prefix: The start of the directory's name (a UUID follows), naming the test that made it.
    ///   - body: The test's work; it may leave anything in the directory.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws (the directory is still removed, and that removal's own failure is not
    ///   reported over it); else the removal's error, so a directory that cannot be removed fails the test.
    package static func with<T>(_ prefix: String, _ body: (URL) async throws -> T) async throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let value: T
        do {
            value = try await body(directory)
        } catch let failure {
            do { try FileManager.default.removeItem(at: directory) } catch { /* the body's failure is the one to report */ }
            throw failure
        }
        try FileManager.default.removeItem(at: directory)
        return value
    }
}
