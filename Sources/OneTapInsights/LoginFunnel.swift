import OneTapCore
import OneTapSupport

/// How logins went, counted from their events (``LoginStats/funnel(by:topCodes:smsPrice:)``): one row
/// per carrier and first flow (or whatever ``Dimensions`` were asked for), each with how its logins
/// ended, its one-tap success share, its time to success, its most frequent result codes and the money
/// misconfigurations cost.
public struct LoginFunnel: Hashable, Sendable {
    /// What the rows are split by.
    public struct Dimensions: OptionSet, Hashable, Sendable {
        /// The bits.
        public let rawValue: Int

        /// Creates dimensions from bits.
        /// - Parameter rawValue: The bits.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// The plan's carrier.
        public static let carrier = Dimensions(rawValue: 1)
        /// The plan's first flow (what routing tried first).
        public static let firstFlow = Dimensions(rawValue: 2)
        /// The app's platform (`ios`, `android`, …; logins whose snapshot named none together).
        public static let platform = Dimensions(rawValue: 4)
    }

    /// A result code, how often it came, and what it means.
    public struct CodeCount: Hashable, Sendable {
        /// The flow that returned it.
        public let flow: LoginFlow
        /// The code: the SDK's, or `timeout`, `exchange-104201`, … (see ``LoginStep/Answer/code``).
        public let code: String
        /// How many times.
        public let count: Int
        /// Its share of the row's results (of its alerts, for an alert code).
        public let share: Double
        /// The action it led to, as recorded.
        public let action: OutcomeAction?
        /// What it means, as recorded.
        public let meaning: String
    }

    /// What misconfigurations cost in one row: codes that said our own configuration is wrong.
    public struct Alerts: Hashable, Sendable {
        /// How many alert events.
        public let count: Int
        /// How many logins had at least one.
        public let logins: Int
        /// How many of those logins then reached SMS: an SMS paid for, a one-tap login lost.
        public let toSMS: Int
        /// The SMS cost of those logins at the SMS price given, if one was.
        public let cost: Double?
        /// The most frequent alert codes.
        public let codes: [CodeCount]
    }

    /// One row: the logins of one carrier and first flow (or of whatever was split by).
    public struct Row: Hashable, Sendable {
        /// The carrier, or nil when rows are not split by carrier.
        public let carrier: Carrier?
        /// The first flow of the plan, or nil when rows are not split by it.
        public let firstFlow: LoginFlow?
        /// The platform, when rows are split by it (nil then for logins whose snapshot named none).
        public let platform: Platform?
        /// How many logins started.
        public let logins: Int
        /// How many ended with a one-tap success.
        public let oneTap: Int
        /// How many ended with an SMS success.
        public let sms: Int
        /// How many the user cancelled.
        public let cancelled: Int
        /// How many failed.
        public let failed: Int
        /// How many did not end in the stream (the app went silent; the stream ended first).
        public let unfinished: Int
        /// One-tap successes over logins, with its Wilson interval.
        public let oneTapShare: Estimate
        /// All successes (one-tap and SMS) over logins, with its Wilson interval.
        public let successShare: Estimate
        /// The median time from the start to a success, in milliseconds.
        public let successP50: Int64?
        /// The 95th percentile of the time to a success, in milliseconds.
        public let successP95: Int64?
        /// How many results (one per step) the logins had.
        public let results: Int
        /// The most frequent result codes, most frequent first.
        public let topCodes: [CodeCount]
        /// The most frequent codes that were no success, most frequent first.
        public let topFailures: [CodeCount]
        /// What misconfigurations cost.
        public let alerts: Alerts

        /// How the row's logins ended: one-tap, SMS, cancelled, failed, unfinished, in that order.
        public var endings: [(name: String, count: Int)] {
            [("one-tap", oneTap), ("sms", sms), ("cancelled", cancelled), ("failed", failed), ("unfinished", unfinished)]
        }
    }

    /// What was read.
    public struct Summary: Hashable, Sendable {
        /// Lines read (blank ones not counted).
        public var lines = 0
        /// Login events counted.
        public var loginEvents = 0
        /// Events skipped: other areas (`token`, `sms`), login events of unknown kinds.
        public var ignored = 0
        /// Lines refused as malformed.
        public var malformed = 0
        /// Login events of logins whose `planned` event was not in the stream (skipped).
        public var orphans = 0
        /// Logins whose platform came after the first ``LoginStats/platformLimit`` − 1 distinct ones: counted
        /// under the platform `other`.
        public var otherPlatformLogins = 0
        /// Logins started in the stream.
        public var logins = 0
        /// The most logins open at once.
        public var peakOpenLogins = 0
        /// The first and last instant seen, in milliseconds since 1970.
        public var first: Int64? = nil
        /// The last instant seen.
        public var last: Int64? = nil

        /// Creates an empty summary.
        public init() {}
    }

    /// What the rows are split by.
    public let dimensions: Dimensions
    /// The rows, most logins first.
    public let rows: [Row]
    /// What was read.
    public let summary: Summary
    /// The SMS price the alert costs were priced at, if any.
    public let smsPrice: Double?
}
