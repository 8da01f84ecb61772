import Foundation
import Testing

/// The golden files of `Tests/Golden/` (written by the code of commit 37018e5; see its README), and
/// the instants they hold, compared to the millisecond (every golden instant is a whole millisecond).
enum Golden {
    /// A golden file's bytes, as they are on disk.
    static func bytes(_ relative: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: Package.path("Tests/Golden/" + relative))))
    }

    /// A golden file's text.
    static func text(_ relative: String) throws -> String {
        String(decoding: try bytes(relative), as: UTF8.self)
    }

    /// Milliseconds since 1970 of an instant.
    static func ms(_ date: Date?) -> Int64? {
        date.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) }
    }

    /// Milliseconds since 1970 of ISO 8601 text (`2026-12-01T08:10:00.123Z`), read by Foundation.
    static func ms(_ iso: String) -> Int64? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return ms(formatter.date(from: iso))
    }

    /// The instant of ISO 8601 text, to the millisecond.
    static func instant(_ iso: String) throws -> Date {
        Date(timeIntervalSince1970: Double(try #require(ms(iso))) / 1000)
    }
}
