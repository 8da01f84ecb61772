/// An app's id for the device it runs on (an Android ID, an iOS `identifierForVendor`, an app-made
/// UUID): what SMS limits count per device and what a guest's id is derived from. Not a secret, but
/// personal data: OneTap never writes one to an event or a log.
///
/// An id is 1 to ``maximumBytes`` bytes of printable ASCII (no spaces or control characters), and two
/// ids are the same exactly when their bytes are.
public struct DeviceID: Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The id's text, exactly as given.
    package let rawValue: String

    /// The longest id, in bytes: 128.
    package static let maximumBytes = 128

    /// Reads a device id.
    /// - Parameter rawValue: 1 to 128 printable ASCII characters.
    /// - Throws: ``ParseError`` with subject `device id`: `empty`, `wrong-length` or `invalid-character`.
    public init(_ rawValue: String) throws(ParseError) {
        if rawValue.isEmpty { throw ParseError(.deviceID, .empty, input: rawValue, reason: "a device id has at least one character") }
        if let error = firstBadCharacterError(.deviceID, in: rawValue, allowed: { $0.value > 0x20 && $0.value < 0x7F }) {
            throw ParseError(.deviceID, error.kind, input: rawValue, reason: error.reason + " (a device id is printable ASCII without spaces)")
        }
        guard rawValue.utf8.count <= Self.maximumBytes else {
            throw ParseError(.deviceID, .wrongLength, input: rawValue, reason: "\(rawValue.utf8.count) characters; a device id has at most \(Self.maximumBytes)")
        }
        self.rawValue = rawValue
    }

    /// `device(8 characters)`: the id itself is personal data and stays out of logs.
    public var description: String { "device(\(rawValue.utf8.count) characters)" }

    /// `DeviceID(16 characters)`.
    public var debugDescription: String { "DeviceID(\(rawValue.utf8.count) characters)" }

    /// A mirror with no children, so `dump` prints nothing of the id.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
