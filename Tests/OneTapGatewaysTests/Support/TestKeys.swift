import Foundation
import OneTapTesting

/// The test keys in `Fakes/keys` (made with the `openssl` command line for the tests alone; see its README).
enum TestKeys {
    static func pem(_ name: String) throws -> String {
        try String(contentsOf: FakeServer.fakes.appendingPathComponent("keys").appendingPathComponent(name), encoding: .utf8)
    }

    static func bytes(hex: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        return bytes
    }
}
