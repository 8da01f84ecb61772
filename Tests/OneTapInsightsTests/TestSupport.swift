import Foundation
import Testing

/// Where the package's files are, found from this source file (not from a bundle).
enum Package {
    /// The package root.
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A path inside the package.
    static func path(_ relative: String) -> String {
        root.appendingPathComponent(relative).path
    }

    /// A fresh temporary directory, removed by the caller.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("onetap-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

/// Removes a test's temporary file or directory, if it is there; a removal that fails is recorded as an issue (a
/// test must not leave files behind unseen).
/// - Parameter path: The file's or directory's path.
func removeTemporary(_ path: String) {
    guard FileManager.default.fileExists(atPath: path) else { return }
    do { try FileManager.default.removeItem(atPath: path) } catch { Issue.record("\(path) was not removed: \(error)") }
}

/// Removes a test's temporary file or directory, as ``removeTemporary(_:)-(String)`` does.
/// - Parameter url: Its file URL.
func removeTemporary(_ url: URL) { removeTemporary(url.path) }
