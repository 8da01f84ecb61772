/// A block of addresses in CIDR notation (`10.0.0.0/8`, `2409:8900::/24`): an address and how many of its leading
/// bits every address of the block shares. The one reading of the notation, its containment test and its bit masks, for
/// the carriers' IPv6 prefixes (`Data/ipv6-prefixes.csv`, whose rows keep their masks), the trusted
/// proxies of `ClientAddress` (OneTap) and the SMS policy's /64, /56 and /48 keys.
package struct IPBlock: Hashable, Sendable, CustomStringConvertible {
    /// The address (its bits past ``length`` are kept as written, not cleared: ``hostBitsZero`` tells).
    package let address: IPAddress
    /// How many leading bits the block's addresses share: 0 to 32 for IPv4, 0 to 128 for IPv6.
    package let length: Int

    /// Reads a block: an address, then optionally `/` and a prefix length written in decimal digits with no sign and no
    /// leading zero (`0` itself aside), at most the address's width.
    /// - Parameters:
    ///   - text: The block's text.
    ///   - lengthRequired: Whether the `/length` part must be there; without it (when allowed) the block is the
    ///     address alone (its whole width).
    /// - Throws: ``ParseError`` with subject `IP address` naming the whole text: the address's own error, or `malformed`
    ///   saying the prefix lengths the address allows.
    package init(cidr text: String, lengthRequired: Bool) throws(ParseError) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 || !lengthRequired else {
            throw ParseError(.ipAddress, .malformed, input: text, reason: "not CIDR notation: an address, / and a prefix length")
        }
        let address: IPAddress
        do {
            address = try IPAddress(String(parts[0]))
        } catch {
            throw ParseError(error.subject, error.kind, input: text, reason: error.reason)   // named by the whole block
        }
        let width = address.isIPv6 ? 128 : 32
        var length = width
        if parts.count == 2 {
            let digits = parts[1].utf8
            guard !digits.isEmpty, digits.count <= 3, digits.allSatisfy({ $0 &- UInt8(ascii: "0") < 10 }),
                digits.count == 1 || digits.first != UInt8(ascii: "0"), let value = Int(parts[1]), value <= width
            else {
                throw ParseError(.ipAddress, .malformed, input: text, reason: "the prefix length is at most \(width), in digits with no sign or leading zero")
            }
            length = value
        }
        self.address = address
        self.length = length
    }

    /// A block from its parts.
    /// - Parameters:
    ///   - address: The address.
    ///   - length: The prefix length; one below 0 or past the address's width (32 or 128) is taken as 0 or the width.
    package init(_ address: IPAddress, length: Int) {
        self.address = address
        self.length = max(0, min(length, address.isIPv6 ? 128 : 32))
    }

    /// Whether every bit of ``address`` past ``length`` is zero: the block written as its network (`10.0.0.0/8`, not
    /// `10.0.0.7/8`).
    package var hostBitsZero: Bool { network.address == address }

    /// The block written with its network: the address's bits past ``length`` cleared (`10.0.0.7/8` → `10.0.0.0/8`).
    package var network: IPBlock {
        switch address {
        case .v4(let value): IPBlock(.v4(value & Self.mask32(length)), length: length)
        case .v6(let high, let low): IPBlock(.v6(high: high & Self.mask64(length), low: low & Self.mask64(length - 64)), length: length)
        }
    }

    /// Whether the block holds an address: one of the same family whose first ``length`` bits are the block's.
    /// - Parameter other: The address.
    /// - Returns: True when it is in the block; an IPv4 address is never in an IPv6 block, nor the reverse.
    /// - Complexity: O(1); no allocation.
    @inline(__always)
    package func contains(_ other: IPAddress) -> Bool {
        switch (address, other) {
        case (.v4(let network), .v4(let value)):
            let mask = Self.mask32(length)
            return network & mask == value & mask
        case (.v6(let networkHigh, let networkLow), .v6(let high, let low)):
            let maskHigh = Self.mask64(length), maskLow = Self.mask64(length - 64)
            return networkHigh & maskHigh == high & maskHigh && networkLow & maskLow == low & maskLow
        default:
            return false
        }
    }

    /// `10.0.0.0/8`, `2409:8900::/24`: the address in its canonical form (`2409:8900:0::` is `2409:8900::`) and the length.
    package var description: String { "\(address)/\(length)" }

    /// The first `bits` bits of 32 set (none for 0 or less, all for 32 or more).
    @inline(__always)
    private static func mask32(_ bits: Int) -> UInt32 {
        bits <= 0 ? 0 : bits >= 32 ? .max : ~(UInt32.max >> UInt32(bits))
    }

    /// The first `bits` bits of 64 set (none for 0 or less, all for 64 or more).
    @inline(__always)
    package static func mask64(_ bits: Int) -> UInt64 {
        bits <= 0 ? 0 : bits >= 64 ? .max : ~(UInt64.max >> UInt64(bits))
    }
}
