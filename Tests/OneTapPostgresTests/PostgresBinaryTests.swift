import Foundation
@testable import OneTapPostgres
import Testing

/// `PostgresBinary.decode(type:_:)`: arrays in PostgreSQL's binary format (array_send: dimensions, has-nulls flag,
/// element type, then per dimension its length and lower bound, then each element's length and bytes), written
/// here byte by byte from the format, not by the encoder under test.
@Suite struct PostgresBinaryTests {
    static func int32(_ value: Int32) -> [UInt8] { withUnsafeBytes(of: value.bigEndian) { Array($0) } }

    @Test func aTextArrayReadsBack() {
        let bytes = Self.int32(1) + Self.int32(0) + Self.int32(25) + Self.int32(2) + Self.int32(1)
            + Self.int32(1) + Array("a".utf8) + Self.int32(2) + Array("bc".utf8)
        #expect(bytes.withUnsafeBytes { PostgresBinary.decode(type: 1009, $0) } == .textArray(["a", "bc"]))
    }

    /// A count of elements the bytes cannot hold (a hostile or broken server) is refused, not reserved for.
    @Test(arguments: [Int32.max, 1_000_000, 3])
    func anArrayCountLargerThanItsBytesIsRefused(count: Int32) {
        for (type, element) in [(UInt32(1009), Int32(25)), (1016, 20)] {
            let bytes = Self.int32(1) + Self.int32(0) + Self.int32(element) + Self.int32(count) + Self.int32(1) + Self.int32(0) + Self.int32(0)
            #expect(bytes.withUnsafeBytes { PostgresBinary.decode(type: type, $0) } == nil)
        }
    }
}
