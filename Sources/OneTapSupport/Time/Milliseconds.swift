/// The one stored instant: whole milliseconds since 1970-01-01T00:00:00Z, in every record, column and
/// token file. These two conversions are the only way between it and a `Date`.
extension Date {
    /// The instant as whole milliseconds since 1970, rounded to the nearest (a half millisecond away from
    /// zero); an instant beyond what an `Int64` of milliseconds holds is clamped to it, and NaN is 0
    /// (writers that must refuse them check ``hasMillisecondsSince1970`` first).
    /// - Complexity: O(1).
    @inlinable @inline(__always)
    package var millisecondsSince1970: Int64 {
        let value = (timeIntervalSince1970 * 1000).rounded()
        guard value.isFinite else { return value.isNaN ? 0 : value > 0 ? .max : .min }
        // 2^63 is the first Double beyond Int64: every Double below it converts.
        return value >= 9_223_372_036_854_775_808.0 ? .max : value < -9_223_372_036_854_775_808.0 ? .min : Int64(value)
    }

    /// The millisecond counts a record stores: the years 1 to 9999 (0001-01-01T00:00:00Z …
    /// 9999-12-31T23:59:59.999Z), which an ISO 8601 instant writes and a `Double` of seconds holds exactly
    /// enough that every count comes back from its `Date` unchanged.
    @usableFromInline
    package static let storableMilliseconds: ClosedRange<Int64> = -62_135_596_800_000 ... 253_402_300_799_999

    /// Whether the instant has a millisecond count a record can store (finite, within
    /// ``storableMilliseconds``): what a writer checks, and what a reader refuses outside of, so that
    /// whatever is read can be written again as it was.
    @inlinable
    package var hasMillisecondsSince1970: Bool {
        let value = (timeIntervalSince1970 * 1000).rounded()
        return value.isFinite && value >= -62_135_596_800_000 && value <= 253_402_300_799_999
    }

    /// The first whole millisecond at or after the instant: the bound a query compares stored instants
    /// against, since for a stored whole millisecond `m`, `m < instant` exactly when `m <` this (and
    /// `m >= instant` when `m >=` this). An instant within a few units of a `Double`'s last place (at
    /// least a microsecond) of a whole millisecond is that millisecond: the `Date` of a stored instant,
    /// which its binary form puts a hair off it, bounds at the instant itself. Clamped as
    /// ``millisecondsSince1970`` is.
    package var millisecondsSince1970RoundedUp: Int64 {
        let value = timeIntervalSince1970 * 1000
        let nearest = value.rounded()
        let bound = abs(value - nearest) <= max(0.001, value.magnitude.ulp * 4) ? nearest : value.rounded(.up)
        guard bound.isFinite else { return bound.isNaN ? 0 : bound > 0 ? .max : .min }
        return bound >= 9_223_372_036_854_775_808.0 ? .max : bound < -9_223_372_036_854_775_808.0 ? .min : Int64(bound)
    }

    /// The instant a count of milliseconds since 1970 stands for: reading a stored instant.
    /// - Parameter milliseconds: Whole milliseconds since 1970-01-01T00:00:00Z.
    @inlinable @inline(__always)
    package init(millisecondsSince1970 milliseconds: Int64) {
        self.init(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    /// The instant rounded to the millisecond: what a record that stores it reads back (an instant with
    /// no millisecond count, infinite or NaN, as it is: a record's writer refuses it).
    @inlinable
    package var roundedToMilliseconds: Date { hasMillisecondsSince1970 ? Date(millisecondsSince1970: millisecondsSince1970) : self }

    /// The instant rounded down to the whole second: what an access token carries of its issue and expiry, and
    /// what an app session keeps of its last login to compare them with.
    @inlinable
    package var wholeSeconds: Date { Date(timeIntervalSince1970: timeIntervalSince1970.rounded(.down)) }
}
