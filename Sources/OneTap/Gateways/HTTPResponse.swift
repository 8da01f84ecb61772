/// A gateway's HTTP answer: the status, the headers and the whole body (never longer than the request's bound).
/// Its description and its mirror (what `dump` shows) give the status, the content type or the headers' names, and
/// the body's size: never a header's value or the body, which may hold a number or a token.
public struct HTTPResponse: Sendable, CustomStringConvertible, CustomReflectable {
    /// The status code: 200, 503.
    public let status: Int
    /// The headers, names in lower case (`content-type`); a repeated header's values joined with `, `.
    public let headers: [String: String]
    /// The body's bytes.
    public let body: [UInt8]

    /// Creates an answer.
    /// - Parameters:
    ///   - status: The status code.
    ///   - headers: The headers (names are lowered here).
    ///   - body: The body's bytes.
    public init(status: Int, headers: [String: String] = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { "\($0), \($1)" })
        self.body = body
    }

    /// A header's value, its name compared without regard to case.
    /// - Parameter name: The header's name.
    /// - Returns: Its value, or nil.
    package func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// `HTTP 200, application/json, 96 bytes`: never the body, which may hold a number or a token.
    public var description: String { "HTTP \(status), \(header("content-type") ?? "no content type"), \(body.count) bytes" }

    /// What `dump` shows: the status, the headers' names and the body's size.
    public var customMirror: Mirror {
        Mirror(self, children: ["status": status, "headers": headers.keys.sorted(), "body": "\(body.count) bytes"], displayStyle: .struct)
    }
}
