import Foundation

/// Which URLs a gateway may send to: absolute `https`, or `http` to a loopback host (a fake in tests), with no
/// user or password. The one rule behind a settings file's `url` fields and every request ``URLSessionTransport``
/// sends, so a URL set in code is held to it as one read from a file is.
package enum EndpointRule {
    /// Why a URL may not be sent to, or nil when it may.
    /// - Parameter url: The URL.
    /// - Returns: The reason (`must be https (http only to a loopback host, for a fake)`, …), or nil.
    package static func refusal(of url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty else { return "is not an absolute URL" }
        let loopback = ["127.0.0.1", "::1", "[::1]", "localhost"].contains(host.lowercased())
        guard scheme == "https" || (scheme == "http" && loopback) else { return "must be https (http only to a loopback host, for a fake)" }
        guard url.user == nil, url.password == nil else { return "must not carry a user or password" }
        return nil
    }
}
