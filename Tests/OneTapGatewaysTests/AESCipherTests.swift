import Foundation
@testable import OneTapGateways
import Testing

/// AES-CBC and AES-ECB against ciphertexts computed outside the project: python3's `cryptography` (PKCS7 padding),
/// the CBC one also with `openssl enc -aes-128-cbc`; key `bytes(range(n))`, IV `bytes(range(16, 32))`.
@Suite struct AESCipherTests {
    static let plaintext = Array("13800138000 一键登录".utf8)
    static let key16 = [UInt8](0..<16), key24 = [UInt8](0..<24), key32 = [UInt8](0..<32), iv = [UInt8](16..<32)

    @Test(arguments: [
        (key16, AESCipher.Mode.cbc(iv: iv), "9bffef03c70dc6716d7d3a07b3dfe082f5528e6b73d3fda49c1e2bd5d6cfbe3b"),
        (key32, AESCipher.Mode.cbc(iv: iv), "00ef4cb4514e428fa6c4a2c6a63b78f835f9292816847b5477573d4002652cc5"),
        (key16, AESCipher.Mode.ecb, "c4c448b51795d1af031fd8b7c5a317e57cd6110be9ce033742b5feec9b7752b3"),
    ])
    func encryptsAndDecryptsAsPythonDoes(key: [UInt8], mode: AESCipher.Mode, ciphertext: String) throws {
        #expect(Hex.encode(try AESCipher.encrypt(Self.plaintext, key: key, mode: mode)) == ciphertext)
        #expect(try AESCipher.decrypt(TestKeys.bytes(hex: ciphertext), key: key, mode: mode) == Self.plaintext)
    }

    @Test func theEmptyPlaintextIsOnePaddingBlock() throws {
        #expect(Hex.encode(try AESCipher.encrypt([], key: Self.key24, mode: .ecb)) == "3fe7286abde5f03943d5777020259626")
        #expect(try AESCipher.decrypt(TestKeys.bytes(hex: "3fe7286abde5f03943d5777020259626"), key: Self.key24, mode: .ecb) == [])
    }

    @Test func badInputIsAnErrorThatNamesWhatWasWrongNeverTheKey() throws {
        let ciphertext = TestKeys.bytes(hex: "9bffef03c70dc6716d7d3a07b3dfe082f5528e6b73d3fda49c1e2bd5d6cfbe3b")
        #expect(throws: CryptoError("AES decryption", "the key is 20 bytes; AES takes 16, 24 or 32")) {
            try AESCipher.decrypt(ciphertext, key: Array(0..<20), mode: .ecb)
        }
        #expect(throws: CryptoError("AES-128-CBC decryption", "the IV is 8 bytes; CBC takes 16")) {
            try AESCipher.decrypt(ciphertext, key: Self.key16, mode: .cbc(iv: Array(0..<8)))
        }
        #expect(throws: CryptoError("AES-128-CBC decryption", "the input is 31 bytes, not whole 16-byte blocks")) {
            try AESCipher.decrypt(Array(ciphertext.dropLast()), key: Self.key16, mode: .cbc(iv: Self.iv))
        }
        // Another key: the padding check fails (or, one time in 256, garbage comes out: never the plaintext).
        let wrongKey = [UInt8](repeating: 7, count: 16)
        do {
            #expect(try AESCipher.decrypt(ciphertext, key: wrongKey, mode: .cbc(iv: Self.iv)) != Self.plaintext)
        } catch {
            #expect(error.reason == "bad padding (a wrong key or IV, or not this cipher's output)")
        }
        let error = #expect(throws: CryptoError.self) { try AESCipher.decrypt(ciphertext, key: Self.key16, mode: .ecb) }
        #expect(!"\(String(describing: error))".contains("000102"))
        // Without padding, whole blocks only.
        #expect(try AESCipher.encrypt(Array(repeating: 1, count: 32), key: Self.key16, mode: .ecb, padding: false).count == 32)
        #expect(throws: CryptoError.self) { try AESCipher.encrypt([1, 2, 3], key: Self.key16, mode: .ecb, padding: false) }
    }
}
