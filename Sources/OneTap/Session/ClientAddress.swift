/// Finds the client's address for a request: the socket peer's, or, when the peer is one of your own
/// listed proxies, the address those proxies wrote into `X-Forwarded-For`. Hand the result to
/// ``LoginServer/start(_:for:pending:address:device:captcha:)``, ``LoginServer/report(_:to:version:from:address:device:captcha:)`` and
/// ``SMSContext``: the login quotas, the SMS limits and the circuit breaker count per address.
///
/// ```swift
/// let addresses = try ClientAddress(trustedProxies: ["10.0.0.0/8", "2001:db8:1::/48"])
/// let client = addresses.resolve(peer: try IPAddress(request.remoteHost), forwardedFor: request.headers["X-Forwarded-For"])
/// ```
///
/// Anyone can send an `X-Forwarded-For` header, so its entries are believed only as far as listed
/// proxies vouch for them. Each proxy appends the address it received the request from, so the header
/// is read **right to left**, starting from the peer:
/// - a peer that is not a listed proxy is the client, whatever the header says;
/// - each listed proxy's entry is skipped; the first entry that is not a listed proxy is the client;
/// - an entry that is no address (garbage, `unknown`, an obfuscated name, a zone id) ends the walk: the
///   client is the listed proxy that wrote it (the nearest hop known), never anything further left;
/// - when every entry is a listed proxy, the leftmost is the client (a proxy's own request).
/// The leftmost entry, where a client puts a spoofed address, is therefore never taken unless every
/// hop to its right is a listed proxy. Entries may carry a port (`203.0.113.7:4711`, `[2001:db8::1]:443`);
/// an IPv4-mapped IPv6 address (`::ffff:203.0.113.7`) is its IPv4 address. Several header lines are
/// read in order, as one list.
///
/// List every proxy in front of the server that appends to the header (load balancers, CDN edges),
/// and nothing else. An empty list trusts no header: the peer is the client.
public struct ClientAddress: Sendable {
    private let trusted: [IPBlock]

    /// Creates the helper with the proxies whose `X-Forwarded-For` entries are believed.
    /// - Parameter trustedProxies: Addresses (`10.0.0.7`, `2001:db8::7`) or blocks in CIDR form
    ///   (`10.0.0.0/8`, `2001:db8:1::/48`, written with the block's network) of the proxies in front of the server. An
    ///   IPv4-mapped block (`::ffff:10.0.0.0/104`) is its IPv4 block, as a mapped peer is its IPv4 address.
    /// - Throws: ``ParseError`` with subject `IP address` naming the entry that is not an address or a
    ///   block (`malformed` for a prefix length out of range or not in plain digits, a mapped block shorter than 96 bits,
    ///   an address with bits set past the prefix length, or a block of every address (`/0`); or the address's own error).
    public init(trustedProxies: [String]) throws(ParseError) {
        var blocks: [IPBlock] = []
        for entry in trustedProxies {
            var block: IPBlock
            do {
                block = try IPBlock(cidr: String(Self.trimmed(entry[...])), lengthRequired: false)
            } catch {
                throw ParseError(error.subject, error.kind, input: entry, reason: error.reason)
            }
            if let v4 = block.address.ipv4, block.address.isIPv6 {
                guard block.length >= 96 else {
                    throw ParseError(.ipAddress, .malformed, input: entry, reason: "an IPv4-mapped block is 96 bits longer than its IPv4 block (10.0.0.0/8 is ::ffff:10.0.0.0/104)")
                }
                block = IPBlock(.v4(v4), length: block.length - 96)
            }
            // Every address: any client could write the header the server believes.
            guard block.length > 0 else {
                throw ParseError(.ipAddress, .malformed, input: entry, reason: "a block of every address of its family would trust every such client's X-Forwarded-For; list your proxies")
            }
            // A block written with an address inside it (`192.168.1.10/16`) trusts the whole block: refused, so a
            // typo for one proxy never trusts its 65,536 neighbours.
            guard block.hostBitsZero else {
                throw ParseError(
                    .ipAddress, .malformed, input: entry,
                    reason: "the address has bits set past the prefix length: write the block's network (\(block.network)) or the one address")
            }
            blocks.append(block)
        }
        trusted = blocks
    }

    /// The client's address.
    /// - Parameters:
    ///   - peer: The address of the socket's peer (the TCP connection's other end).
    ///   - forwardedFor: The request's `X-Forwarded-For` header lines, in the order received; empty or
    ///     none when it had none.
    /// - Returns: The client's address, as the type's notes describe; never an entry no listed proxy
    ///   vouched for.
    public func resolve(peer: IPAddress, forwardedFor: [String]) -> IPAddress {
        var nearest = Self.normalized(peer)
        guard isTrusted(nearest) else { return nearest }
        var hops: [Substring] = []
        // Split at the comma's byte, not at `Character`s: a character that joins what follows it (U+0600 and the other
        // Unicode "Prepend" ones) would swallow the comma a proxy appended after the client's own text, and the walk
        // would stop at the proxy, every client then counted at its address (an attacker's read).
        for line in forwardedFor {
            for hop in line.utf8.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
                hops.append(Substring(String(decoding: hop, as: UTF8.self)))
            }
        }
        if hops.count == 1 && hops[0].allSatisfy({ $0 == " " || $0 == "\t" }) { return nearest }  // an empty header
        for hop in hops.reversed() {
            guard let address = Self.hop(hop) else { return nearest }  // garbage: the proxy that wrote it
            nearest = address
            guard isTrusted(address) else { return address }
        }
        return nearest
    }

    /// Reads one header entry: an address, optionally with a port (`a.b.c.d:port`, `[v6]:port`, `[v6]`).
    /// - Parameter text: The entry, surrounding spaces and tabs allowed.
    /// - Returns: The address, IPv4-mapped ones as IPv4; nil for anything else.
    package static func hop(_ text: Substring) -> IPAddress? {
        let text = trimmed(text)
        guard !text.isEmpty, text.utf8.count <= 64 else { return nil }
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            let rest = text[text.index(after: close)...]
            guard rest.isEmpty || validPort(rest) else { return nil }
            guard let address = try? IPAddress(String(text[text.index(after: text.startIndex)..<close])), address.isIPv6 else { return nil }
            return normalized(address)
        }
        if let address = try? IPAddress(String(text)) { return normalized(address) }
        // `a.b.c.d:port`: exactly one colon, so it is no IPv6 address.
        guard let colon = text.firstIndex(of: ":"), text[text.index(after: colon)...].firstIndex(of: ":") == nil,
            validPort(text[colon...]), let address = try? IPAddress(String(text[..<colon])), !address.isIPv6
        else { return nil }
        return address
    }

    /// The text without the spaces and tabs around it.
    private static func trimmed(_ text: Substring) -> Substring {
        var text = text.drop { $0 == " " || $0 == "\t" }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return text
    }

    /// `:` and 1 to 5 digits up to 65535.
    private static func validPort(_ text: Substring) -> Bool {
        guard text.first == ":" else { return false }
        let digits = text.dropFirst()
        guard (1...5).contains(digits.utf8.count), digits.utf8.allSatisfy({ $0 &- 48 < 10 }), let port = Int(digits) else { return false }
        return port <= 65_535
    }

    /// An IPv4-mapped IPv6 address as its IPv4 address; any other as it is.
    private static func normalized(_ address: IPAddress) -> IPAddress {
        address.ipv4.map(IPAddress.v4) ?? address
    }

    private func isTrusted(_ address: IPAddress) -> Bool {
        trusted.contains { $0.contains(address) }
    }
}
