import Foundation
import OneTap

/// The instant a TC3 sign preview uses: the `timestamp` field given (seconds since 1970), else the clock's now.
package enum TencentSignPreviewTime {
    /// The preview's instant.
    /// - Parameters:
    ///   - field: The `timestamp` field, if given.
    ///   - clock: The gateway's clock.
    ///   - gateway: The gateway's name, for errors.
    /// - Returns: The instant.
    /// - Throws: ``GatewayError/Kind/misconfigured(_:)`` when the field is not whole seconds since 1970.
    package static func instant(_ field: String?, clock: any WallClock, gateway: String) throws(GatewayError) -> Date {
        guard let field else { return clock.now() }
        guard let seconds = Int64(field), (0...32_503_680_000).contains(seconds) else {
            throw GatewayError(gateway: gateway, .misconfigured("--field timestamp must be whole seconds since 1970 (X-TC-Timestamp), such as 1551113065"))
        }
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }
}
