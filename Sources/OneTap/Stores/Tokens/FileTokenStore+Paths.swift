/// Where a ``FileTokenStore`` keeps an account's token: the file's name (the hex of the id's UTF-8 bytes, read
/// back when the directory is listed) and path, and the version a write gives it.
extension FileTokenStore {
    /// The file name for an account: the hex of its UTF-8 bytes, so any id is a safe name (an id has at
    /// most 100 bytes, so a name at most 206 characters with its suffix).
    static func fileName(_ account: AccountID) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var name = [UInt8]()
        name.reserveCapacity(account.rawValue.utf8.count * 2)
        for byte in account.rawValue.utf8 {
            name.append(digits[Int(byte >> 4)])
            name.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: name, as: UTF8.self)
    }

    /// The account a token file's name stands for, or nil when the name is not one this store writes.
    static func account(fromFileName name: String) -> AccountID? {
        let hex = Array(name.utf8)
        guard !hex.isEmpty, hex.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        var index = 0
        while index < hex.count {
            guard let high = hexValue(hex[index]), let low = hexValue(hex[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        guard let text = String(validating: bytes, as: UTF8.self) else { return nil }
        return try? AccountID(text)  // a name no valid id makes is not ours: skipped
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 48...57: byte - 48
        case 97...102: byte - 87
        default: nil
        }
    }

    /// The path of an account's token file.
    /// - Parameter account: The account.
    /// - Returns: The path.
    package func path(for account: AccountID) -> String {
        directory + "/" + Self.fileName(account) + ".token"
    }

    /// The version for a write: greater than the current one, and otherwise the time in milliseconds
    /// shifted left 16 bits with 16 random bits (the system's CSPRNG), so an account removed and written
    /// again (by any process) does not get back a version it had before.
    static func nextVersion(after current: TokenVersion?, now: Date) -> TokenVersion {
        let milliseconds = UInt64(max(0, min(now.millisecondsSince1970, 1 << 46)))
        let fresh = TokenVersion(milliseconds << 16 | UInt64.random(in: 0...0xFFFF))
        guard let current else { return fresh }
        return max(current.next, fresh)
    }
}
