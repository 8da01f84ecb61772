/// A credential (an access token, a refresh token, an SMS code) that must never reach a log.
///
/// `description`, `debugDescription`, `dump` and string interpolation all print `<redacted>`; JSON
/// encoding of events never includes it. Only ``reveal()`` returns the text, so every place that hands
/// a secret on is visible in the code.
public struct Secret: Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    private let value: String

    /// Wraps a credential.
    /// - Parameter value: The credential's text.
    public init(_ value: String) { self.value = value }

    /// Returns the credential's text. Call it only to hand the credential to the party it is meant for.
    /// - Returns: The text the secret was created with.
    public func reveal() -> String { value }

    /// Whether the credential is empty (a provider that returned a blank token).
    public var isEmpty: Bool { value.isEmpty }

    /// Always `<redacted>`.
    public var description: String { "<redacted>" }

    /// Text with every occurrence of the given secrets replaced by `<redacted>`: for error messages that
    /// come from code OneTap does not control (an integrator's refresher or exchange may quote a URL or
    /// a request body that holds the token).
    package static func scrub(_ text: String, of secrets: [Secret?]) -> String {
        var text = text
        // The longest first: a secret inside another (an access token within its refresh token) would leave the rest.
        for secret in secrets.compactMap({ $0?.value }).filter({ !$0.isEmpty }).sorted(by: { $0.count > $1.count }) {
            text = text.replacing(secret, with: "<redacted>")
        }
        return text
    }
    /// Always `Secret(<redacted>)`.
    public var debugDescription: String { "Secret(<redacted>)" }
    /// A mirror with no children, so `dump` prints nothing of the value.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
