import Foundation
import Testing

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
