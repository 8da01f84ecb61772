import Foundation
import OneTap
@testable import OneTapGateways
import Testing

/// XXTEA against PUBLISHED vectors (never values this project computed):
/// - gchq/CyberChef `tests/operations/tests/XXTEA.mjs` (commit bfcc6c4): Base64 ciphertexts of UTF-8 text under
///   10-byte keys (so the key's zero padding to 16 bytes is pinned too).
/// - ifduyue/xxtea `tests/vectors_length_word.json` (commit 4561d3e): hex ciphertexts for data of 0…17 bytes under the
///   16-byte key `abcdefghijklmnop`, the length-word layout (the data's bytes in little-endian words, then its length).
/// And cross-checked against the fake's independent Python implementation (Fakes/tianyi_xxtea.py, written from the
/// algorithm's published description) over random data of 0…70 bytes and keys of 0…40 bytes.
@Suite struct TianyiXXTEATests {
    static let key16 = Array("abcdefghijklmnop".utf8)

    @Test(arguments: [
        ("Hello World! 你好，中国！", "1234567890", "QncB1C0rHQoZ1eRiPM4dsZtRi9pNrp7sqvX76cFXvrrIHXL6"),
        ("ნუ პანიკას", "1234567890", "PbWjnbFmP8Apu2MKOGNbjeW/72IZLlLMS/g82ozLxwE="),
        ("ნუ პანიკას", "ll3kj209d2", "dHrOJ4ClIx6gH33NPSafYR2GG7UqsazY6Xfb0iekBY4="),
    ])
    func cyberChefsPublishedVectors(text: String, key: String, base64: String) throws {
        let cipher = XXTEA.encrypt(Array(text.utf8), key: Array(key.utf8))
        #expect(Data(cipher).base64EncodedString() == base64)
        #expect(try XXTEA.decrypt(cipher, key: Array(key.utf8)) == Array(text.utf8))
    }

    @Test(arguments: [
        ("", "79896d36136f7d98"),
        ("07", "7d5fba138fd68c77"),
        ("0e2d", "373fc0b134664c1f"),
        ("153453", "b293abbd200e2aea"),
        ("1c3b5a79", "9f76cebe29b42235"),
        ("234261809f", "85f11337b79f8a1ef3df2120"),
        ("2a496887a6c5", "991801b3aed0acbceb5cbc62"),
        ("31506f8eadcceb", "be15c918e2793e5567cf52e4"),
        ("38577695b4d3f211", "5a81417ff473ab1e0c6de5c1"),
        ("3f5e7d9cbbdaf91837", "0bc9228598b609ea3ff5318a3c6351f9"),
        ("547392b1d0ef0e2d4c6b8aa9", "55cea6b3e86993ed1dae9669873996ee"),
        ("5b7a99b8d7f61534537291b0cf", "3d5f1bfaefff9a68be71dd97052d788c9c039ee4"),
        ("708faecdec0b2a496887a6c5e4032241", "ba016f31a735b5639da1d812b9cc9dc370fb7026"),
        ("7796b5d4f31231506f8eadcceb0a294867", "6fc65d02223b685039fbd86a56e51cc407580011409fd880"),
    ])
    func ifduyuesPublishedLengthWordVectors(data: String, expected: String) throws {
        let plain = try #require(Hex.decode(data))
        let cipher = XXTEA.encrypt(plain, key: Self.key16)
        #expect(Hex.encode(cipher) == expected)
        #expect(try XXTEA.decrypt(cipher, key: Self.key16) == plain)
    }

    @Test func aKeyLongerThan16BytesUsesItsFirst16() throws {
        // The open API's app secret is longer than 16 bytes; XXTEA's key is four words: only the first 16 bytes count
        // (the Java samples' `k[(p & 3) ^ e]` never reads past the fourth word).
        let long = Self.key16 + Array("qrstuvwxyz0123456789".utf8)
        #expect(XXTEA.encrypt(Array("accessToken=AT".utf8), key: long) == XXTEA.encrypt(Array("accessToken=AT".utf8), key: Self.key16))
    }

    /// Garbage in never traps: every length of random bytes, every key length, decrypts to an error or to bytes.
    @Test func nothingTrapsOnAnyInput() throws {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<80 {
            for _ in 0..<8 {
                let bytes = (0..<length).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
                let key = (0..<Int.random(in: 0...40, using: &generator)).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
                let roundTrip = try XXTEA.decrypt(XXTEA.encrypt(bytes, key: key), key: key)
                #expect(roundTrip == bytes)
                // Random bytes as a ciphertext: an error (wrong length, a length word that does not fit) or some bytes.
                do {
                    let plain = try XXTEA.decrypt(bytes, key: key)
                    #expect(plain.count <= max(0, bytes.count - 4))
                } catch {
                    #expect(length < 8 || length % 4 != 0 || error.reason.contains("length word"))
                }
            }
        }
    }

    @Test(arguments: [0, 1, 4, 5, 6, 7])
    func shortOrRaggedCiphertextsAreRefusedByName(length: Int) {
        let error = #expect(throws: CryptoError.self) { try XXTEA.decrypt([UInt8](repeating: 7, count: length), key: Self.key16) }
        #expect(error?.operation == "XXTEA decryption")
        #expect(error?.description.contains("\(length) bytes") == true)
    }

    @Test func aWrongKeyIsAnErrorNotGarbageMostOfTheTime() throws {
        let cipher = XXTEA.encrypt(Array("accessToken=AT-123&timeStamp=1764547200000".utf8), key: Self.key16)
        #expect(throws: CryptoError.self) { try XXTEA.decrypt(cipher, key: Array("another key 0123".utf8)) }
    }

    @Test func theHexFormIsUpperCaseOfTheSecretsBytes() throws {
        // cd Tests/OneTapGatewaysTests/Fakes && python3 -c 'import tianyi_xxtea as t;
        //     print(t.encrypt_hex("accessToken=AT-1", "appSecret-0123456789abcdef0123456"))'
        let hex = XXTEA.encryptHex("accessToken=AT-1", secret: Secret("appSecret-0123456789abcdef0123456"))
        #expect(hex == "D7A8D2BDBF69E6B658EEF5F4CDB979CD7A9F13E6")
        #expect(try XXTEA.decryptHex(hex, secret: Secret("appSecret-0123456789abcdef0123456")) == "accessToken=AT-1")
        #expect(throws: CryptoError.self) { try XXTEA.decryptHex("not hex", secret: Secret("k")) }
    }

    /// The Swift and the fake's Python (written apart, from the published description) agree on random inputs.
    @Test func agreesWithTheFakesIndependentPython() async throws {
        var lines: [String] = [], expected: [String] = []
        var generator = SystemRandomNumberGenerator()
        for length in 0..<71 {
            let data = (0..<length).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
            let key = (0..<Int.random(in: 0...40, using: &generator)).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
            lines.append("\(Hex.encode(key)) \(Hex.encode(data))")
            expected.append(Hex.encode(XXTEA.encrypt(data, key: key)))
        }
        let output = try await PythonScript.run("tianyi_xxtea.py", input: lines.joined(separator: "\n") + "\n")
        #expect(output.split(separator: "\n").map(String.init) == expected)
    }
}
