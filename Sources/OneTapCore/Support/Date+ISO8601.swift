#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Date {
    /// `2026-11-30T18:48:26.123Z`: ISO 8601 in UTC with milliseconds, as every OneTap event and message writes time.
    package var iso8601: String {
        formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
    }
}
