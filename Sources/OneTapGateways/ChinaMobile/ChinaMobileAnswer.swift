import OneTap

/// China Mobile's answer to `loginTokenValidate`: its code as it came, the number on success, and what billing
/// reconciliation keeps (`taskId`, the request's `msgid`).
public struct ChinaMobileAnswer: Hashable, Sendable, CustomStringConvertible {
    /// `resultCode` (`103000` is success).
    public let code: ResultCode
    /// The number (decrypted in the RSA mode), on success.
    public let phoneNumber: PhoneNumber?
    /// `taskId`, when the answer has one: China Mobile's id of the call, for billing reconciliation.
    public let taskID: String?
    /// The request's `msgid` (which the answer's `inresponseto` echoes).
    public let messageID: String

    /// Creates an answer.
    /// - Parameters:
    ///   - code: `resultCode`.
    ///   - phoneNumber: The number.
    ///   - taskID: `taskId`.
    ///   - messageID: The request's `msgid`.
    public init(code: ResultCode, phoneNumber: PhoneNumber?, taskID: String?, messageID: String) {
        self.code = code
        self.phoneNumber = phoneNumber
        self.taskID = taskID
        self.messageID = messageID
    }

    /// What the login needs of it.
    public var exchangeResponse: ExchangeResponse { ExchangeResponse(code: code, phoneNumber: phoneNumber) }

    /// `cmcc 103000 138****8000 msgid 5f0c… taskId 42`: the number masked.
    public var description: String {
        "cmcc \(code)\(phoneNumber.map { " \($0.masked)" } ?? "") msgid \(messageID)\(taskID.map { " taskId \($0)" } ?? "")"
    }
}
