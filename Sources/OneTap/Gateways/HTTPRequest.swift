import Foundation

/// One HTTP request to a vendor's gateway: what an ``HTTPTransport`` sends, once.
///
/// Its description and its mirror (what `dump` shows) name the gateway, the method, the host and the path, the
/// headers' names and the body's size: never the query, a header's value or the body, which may hold a token, a
/// signature or a key.
public struct HTTPRequest: Sendable, CustomStringConvertible, CustomReflectable {
    /// The gateway's name as errors and events give it (`cmcc`).
    public let gateway: String
    /// The method: `POST`, `GET`.
    public let method: String
    /// Where to send it.
    public let url: URL
    /// The headers, in order (names as sent; a transport compares them without regard to case).
    public let headers: [HTTPHeader]
    /// The body's bytes (empty for none).
    public let body: [UInt8]
    /// How long the whole call may take, from sending to the last byte of the answer: past it the transport
    /// gives up with ``GatewayError/Kind/timedOut``.
    public let timeout: Duration
    /// The longest answer body accepted, in bytes: a longer one is ``GatewayError/Kind/bodyTooLarge(limit:)``.
    public let maximumResponseBytes: Int

    /// Creates a request.
    /// - Parameters:
    ///   - gateway: The gateway's name, for errors (`cmcc`).
    ///   - method: `POST`, `GET`.
    ///   - url: Where to send it.
    ///   - headers: The headers, in order.
    ///   - body: The body's bytes.
    ///   - timeout: The whole call's limit.
    ///   - maximumResponseBytes: The longest answer body accepted (64 KiB unless given).
    public init(
        gateway: String, method: String, url: URL, headers: [HTTPHeader] = [], body: [UInt8] = [], timeout: Duration,
        maximumResponseBytes: Int = 65_536
    ) {
        self.gateway = gateway
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.maximumResponseBytes = maximumResponseBytes
    }

    /// The first value of a header, its name compared without regard to case.
    /// - Parameter name: The header's name.
    /// - Returns: Its value, or nil when the request has none.
    package func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// `cmcc POST www.cmpassport.com/unisdk/rsapi/loginTokenValidate (312-byte body)`: no query, header value or body.
    public var description: String {
        "\(gateway) \(method) \(url.host ?? "")\(url.port.map { ":\($0)" } ?? "")\(url.path) (\(body.count)-byte body)"
    }

    /// What `dump` shows: the description's parts, the headers' names, the limits; no query, header value or body.
    public var customMirror: Mirror {
        Mirror(self, children: [
            "gateway": gateway, "method": method, "url": "\(url.host ?? "")\(url.port.map { ":\($0)" } ?? "")\(url.path)",
            "headers": headers.map(\.name), "body": "\(body.count) bytes", "timeout": timeout, "maximumResponseBytes": maximumResponseBytes,
        ], displayStyle: .struct)
    }
}

/// One HTTP header: a name and its value (`dump` shows the name only: a value may be a credential).
public struct HTTPHeader: Hashable, Sendable, CustomReflectable {
    /// The name, as sent: `Content-Type`.
    public let name: String
    /// The value.
    public let value: String
    /// What `dump` shows: the name; the value `<redacted>`.
    public var customMirror: Mirror { Mirror(self, children: ["name": name, "value": "<redacted>"], displayStyle: .struct) }

    /// Creates a header.
    /// - Parameters:
    ///   - name: The name.
    ///   - value: The value.
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}
