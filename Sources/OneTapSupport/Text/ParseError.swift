/// Why a value handed to OneTap was refused: a PLMN, a phone number, an IP address, a result code, a
/// duration, a device snapshot field.
///
/// The error names the input (quoted, shortened when long) and says what is wrong with it. Its ``kind``
/// is a stable, machine-readable identifier; new kinds may be added in later releases, so switch over
/// kinds with a `default` case.
public struct ParseError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable identifier for what is wrong with the input.
    package typealias Kind = ErrorKind<ParseError>

    /// What kind of value was being read.
    public struct Subject: Hashable, Sendable, CustomStringConvertible {
        /// The name used in messages, e.g. `"PLMN"`; it is also the stable identifier.
        public let id: String

        private init(_ id: String) { self.id = id }

        /// The name used in messages.
        public var description: String { id }

        /// A PLMN (MCC and MNC).
        public static let plmn = Subject("PLMN")
        /// A mobile country code.
        public static let mcc = Subject("MCC")
        /// A mobile network code.
        public static let mnc = Subject("MNC")
        /// A mainland China mobile phone number.
        public static let phoneNumber = Subject("phone number")
        /// An IPv4 or IPv6 address.
        public static let ipAddress = Subject("IP address")
        /// A carrier SDK result code.
        public static let resultCode = Subject("result code")
        /// A duration such as `30d`.
        public static let duration = Subject("duration")
        /// A number of seconds such as an `expiresIn` value.
        public static let seconds = Subject("seconds")
        /// An ISO 8601 timestamp.
        public static let timestamp = Subject("timestamp")
        /// An account identifier.
        public static let accountID = Subject("account id")
        /// The flows of a login plan.
        public static let flowSequence = Subject("flow sequence")
        /// A login session's id.
        public static let sessionID = Subject("session id")
        /// An app's device id.
        public static let deviceID = Subject("device id")
        /// A guest's id.
        public static let guestID = Subject("guest id")
        /// A login gate's action id.
        public static let action = Subject("action")
        /// The server's secret key (its input always reads `<redacted>`).
        public static let serverKey = Subject("server key")
        /// The server's key list (`ONETAP_SERVER_KEYS`; its input always reads `<redacted>`).
        public static let serverKeys = Subject("server keys")
        /// The id of a key in the server's key list.
        public static let keyID = Subject("key id")
        /// An app session's id.
        public static let appSessionID = Subject("app session id")
        /// The platform a device snapshot names (`ios`, `android`, `harmonyos`, …).
        public static let platform = Subject("platform")
        /// A quota's limit or window (a number verification quota's).
        public static let quota = Subject("quota")
    }

    /// What kind of value was being read.
    public let subject: Subject
    /// What is wrong with it.
    public let kind: ErrorKind<ParseError>
    /// The input exactly as given.
    public let input: String
    /// A human-readable explanation, e.g. `"'a' at position 4 is not an ASCII digit"`.
    public let reason: String

    /// Creates a parse error.
    /// - Parameters:
    ///   - subject: What kind of value was being read.
    ///   - kind: What is wrong with it.
    ///   - input: The input exactly as given.
    ///   - reason: A human-readable explanation.
    package init(_ subject: Subject, _ kind: Kind, input: String, reason: String) {
        self.subject = subject
        self.kind = kind
        self.input = input
        self.reason = reason
    }

    /// `invalid PLMN "4600a": 'a' at position 5 is not an ASCII digit`.
    public var description: String {
        "invalid \(subject) \(QuotedInput(input)): \(reason)"
    }
}

extension ErrorKind where Failure == ParseError {
    /// The input is empty or only whitespace.
    public static let empty = Self("empty")
    /// The input is a platform placeholder that carries no value (iOS 16+ reports `65535` and `--`).
    public static let placeholder = Self("placeholder")
    /// The input holds a character that has no place in it (a letter, a sign, NUL, punctuation).
    public static let invalidCharacter = Self("invalid-character")
    /// The input holds a digit from outside ASCII (full-width `４`, Arabic-Indic `٤`, …).
    public static let nonASCIIDigit = Self("non-ascii-digit")
    /// The input has too few or too many digits or parts.
    public static let wrongLength = Self("wrong-length")
    /// The value is reserved and never assigned (for example an MCC starting with 0 or 1).
    public static let reserved = Self("reserved")
    /// The value does not fit the range allowed for it.
    public static let outOfRange = Self("out-of-range")
    /// The phone number carries a country code other than China's +86.
    public static let foreignNumber = Self("foreign-number")
    /// An 11-digit number that is not a mainland mobile number (it does not start with 1).
    public static let notMobile = Self("not-mobile")
    /// The input has the right characters in the wrong arrangement.
    public static let malformed = Self("malformed")
}
