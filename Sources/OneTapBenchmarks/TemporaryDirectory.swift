#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// A fresh folder under /tmp for a benchmark's files (scripts, keys), made with `mkdtemp`.
enum TemporaryDirectory {
    /// Makes one.
    /// - Parameter prefix: Its name before the random suffix (`onetap-rsa-`).
    /// - Returns: Its path.
    /// - Throws: ``PostgresBenchmarks/BenchmarkFailure`` naming the reason when it cannot be made.
    static func make(_ prefix: String) throws -> String {
        var template = Array("/tmp/\(prefix)XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw PostgresBenchmarks.BenchmarkFailure("cannot make a folder /tmp/\(prefix)…: \(String(cString: strerror(errno)))")
        }
        return String(cString: made)
    }

    /// Removes one with what it holds, saying so when it cannot.
    /// - Parameter path: Its path.
    static func remove(_ path: String) {
        do {
            try FileManager.default.removeItem(atPath: path)
        } catch {
            print("cannot remove \(path): \(error)")
        }
    }
}
