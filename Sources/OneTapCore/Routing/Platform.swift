/// The platform an app runs on, as its device snapshot reports it: `ios`, `android`, `harmonyos`, or
/// another short id (`web`, `miniprogram`, …).
///
/// Not a routing input: the plan does not depend on it. It travels with the login's events, so the
/// funnel can be split by platform (one-tap success differs between the SDKs of each platform).
public struct Platform: Hashable, Sendable, CustomStringConvertible {
    /// The id: 1 to 16 bytes of lowercase ASCII letters, digits and `-`.
    package let rawValue: String

    /// Apple's iOS and iPadOS.
    public static let ios = Platform(unchecked: "ios")
    /// Android.
    public static let android = Platform(unchecked: "android")
    /// Huawei's HarmonyOS (鸿蒙), whose one-tap SDKs are their own builds.
    public static let harmonyOS = Platform(unchecked: "harmonyos")

    /// The longest id accepted, in bytes: 16.
    package static let maximumBytes = 16

    private init(unchecked rawValue: String) { self.rawValue = rawValue }

    /// Reads a platform id; upper-case letters are folded to lower case (`iOS` is `ios`).
    /// - Parameter rawValue: The id.
    /// - Returns: Nil when it is empty, longer than 16 bytes, or holds anything but ASCII letters,
    ///   digits and `-` (use ``init(_:)`` for the reason).
    package init?(rawValue: String) {
        guard let platform = try? Platform(rawValue) else { return nil }
        self = platform
    }

    /// Reads a platform id; upper-case letters are folded to lower case (`iOS` is `ios`).
    /// - Parameter text: The id.
    /// - Throws: ``ParseError`` with subject `platform`: `empty`, `wrong-length` (over 16 bytes) or
    ///   `invalid-character`.
    public init(_ text: String) throws(ParseError) {
        if text.isEmpty { throw ParseError(.platform, .empty, input: text, reason: "no platform id") }
        if let error = firstBadCharacterError(.platform, in: text, allowed: { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-") }) {
            throw ParseError(.platform, error.kind, input: text, reason: error.reason + " (a platform id is ASCII letters, digits and -)")
        }
        guard text.utf8.count <= Self.maximumBytes else {
            throw ParseError(.platform, .wrongLength, input: text, reason: "\(text.utf8.count) bytes; a platform id has at most \(Self.maximumBytes)")
        }
        rawValue = text.lowercased()
    }

    /// The id, e.g. `"harmonyos"`: its one text form; ``init(_:)`` reads it back.
    public var description: String { rawValue }
}
