import Foundation
@testable import OneTapGateways
import Testing

/// RSA keys, signatures and decryption against values computed outside the project: signatures with
/// `openssl dgst -sha256|-md5 -sign` (PKCS#1 v1.5 is deterministic), the ciphertext with python3's `cryptography`
/// (`public_key.encrypt(b"13800138000", PKCS1v15())`).
@Suite struct RSAKeyTests {
    static let message = Array("300011111111STsid0000001517196594066OHmZvPMBwn2MkFxwvWkV12JixwuZuyDU".utf8)

    static func pinned(_ file: String) throws -> [UInt8] {
        TestKeys.bytes(hex: try TestKeys.pem(file).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test func pkcs8AndPKCS1FormsOfOneKeySignAsOpenSSLDoes() throws {
        let sha256 = try Self.pinned("signature-sha256.hex"), md5 = try Self.pinned("signature-md5.hex")
        for file in ["app-private-pkcs8.pem", "app-private-pkcs1.pem"] {
            let key = try RSAPrivateKey(pem: try TestKeys.pem(file))
            #expect(key.bits == 2048)
            #expect(try key.sign(Self.message, digest: .sha256) == sha256, "\(file)")
            #expect(try key.sign(Self.message, digest: .md5) == md5, "\(file)")
        }
        #expect(try RSAPrivateKey(pem: try TestKeys.pem("app-private-pkcs8.pem")).form == .pkcs8Private)
        #expect(try RSAPrivateKey(pem: try TestKeys.pem("app-private-pkcs1.pem")).form == .pkcs1Private)
    }

    @Test func bothPublicFormsVerifyAndRefuseAChangedMessage() throws {
        let sha256 = try Self.pinned("signature-sha256.hex")
        for file in ["app-public.pem", "app-public-pkcs1.pem"] {
            let key = try RSAPublicKey(pem: try TestKeys.pem(file))
            #expect(key.verify(sha256, of: Self.message, digest: .sha256), "\(file)")
            #expect(!key.verify(sha256, of: Self.message + [0x20], digest: .sha256), "\(file)")
            #expect(!key.verify(sha256, of: Self.message, digest: .md5), "\(file)")
        }
    }

    @Test func aCiphertextFromPythonDecrypts() throws {
        let ciphertext = try Self.pinned("ciphertext-pkcs1v15.hex")
        let key = try RSAPrivateKey(pem: try TestKeys.pem("app-private-pkcs1.pem"))
        #expect(String(decoding: try key.decryptPKCS1v15(ciphertext), as: UTF8.self) == "13800138000")
        var damaged = ciphertext
        damaged[100] ^= 0xFF
        // Refused (OpenSSL 3.0 and 3.1), or random bytes under implicit rejection (3.2 and later): never the number.
        do {
            let decrypted = try key.decryptPKCS1v15(damaged)
            #expect(String(decoding: decrypted, as: UTF8.self) != "13800138000")
        } catch {
            #expect(error.operation == "RSA PKCS#1 v1.5 decryption")
        }
        #expect(throws: CryptoError("RSA PKCS#1 v1.5 decryption", "the ciphertext is 255 bytes; this 2048-bit key takes 256")) {
            try key.decryptPKCS1v15(Array(ciphertext.dropLast()))
        }
    }

    @Test func bareBase64OfTheDERReadsToo() throws {
        let pem = try TestKeys.pem("app-private-pkcs8.pem")
        let body = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        let key = try RSAPrivateKey(pem: body)
        #expect(key.form == .pkcs8Private)
        #expect(try key.sign(Self.message, digest: .sha256) == Self.pinned("signature-sha256.hex"))
    }

    @Test func everyOtherFormIsAnErrorNamingItAndTheCommandThatConvertsIt() throws {
        let cases: [(String, String, String)] = [
            ("app-private-encrypted.pem", "an encrypted PKCS#8 private key", "openssl pkcs8 -in key.pem -out key-pkcs8.pem"),
            ("app-public.pem", "a public key (X.509 SubjectPublicKeyInfo)", "the private half of the pair"),
            ("app-public-pkcs1.pem", "a PKCS#1 RSA public key", "the private half of the pair"),
            ("app-certificate.pem", "an X.509 certificate", "your private key, not a certificate"),
            ("ec-private.pem", "a PKCS#8 private key of type EC, not RSA", "openssl genpkey -algorithm RSA"),
        ]
        for (file, found, fix) in cases {
            let text = try TestKeys.pem(file)
            let error = #expect(throws: KeyFormatError.self) { try RSAPrivateKey(pem: text) }
            #expect(error?.found == found, "\(file)")
            #expect(error?.fix.contains(fix) == true, "\(file): \(String(describing: error))")
            Self.expectNoKeyBytes(in: error, from: text)
        }
        // A private key where the public one is needed.
        let text = try TestKeys.pem("app-private-pkcs1.pem")
        let error = #expect(throws: KeyFormatError.self) { try RSAPublicKey(pem: text) }
        #expect(error?.fix.contains("openssl pkey -in key.pem -pubout -out public.pem") == true)
        Self.expectNoKeyBytes(in: error, from: text)
        let certificate = #expect(throws: KeyFormatError.self) { try RSAPublicKey(pem: try TestKeys.pem("app-certificate.pem")) }
        #expect(certificate?.fix.contains("openssl x509 -in certificate.pem -pubkey -noout") == true)
        // Damaged, or no key at all.
        var damaged = try TestKeys.pem("app-private-pkcs8.pem")
        damaged.replaceSubrange(damaged.index(damaged.startIndex, offsetBy: 40)..<damaged.index(damaged.startIndex, offsetBy: 80), with: String(repeating: "A", count: 40))
        #expect(throws: KeyFormatError.self) { try RSAPrivateKey(pem: damaged) }
        #expect((#expect(throws: KeyFormatError.self) { try RSAPrivateKey(pem: "appsecret123") })?.found == "not a PEM key")
    }

    /// A key's body under the other half's label (a PKCS#1 public key labelled private, or bare Base64 of it, and a
    /// private key labelled public): OpenSSL's decoder reads either body under either PKCS#1 label, so the label
    /// alone cannot be trusted. Refused when the gateway is made, not at its first signature or billed answer.
    @Test func aBodyUnderTheOtherHalfsLabelIsRefused() throws {
        let publicBody = try TestKeys.pem("app-public-pkcs1.pem").split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined(separator: "\n")
        for text in ["-----BEGIN RSA PRIVATE KEY-----\n\(publicBody)\n-----END RSA PRIVATE KEY-----\n", publicBody] {
            let error = #expect(throws: KeyFormatError.self) { try RSAPrivateKey(pem: text) }
            #expect(error?.found.contains("holds no private half") == true, "\(String(describing: error))")
            #expect(error?.fix.contains("the private half of the pair") == true)
            Self.expectNoKeyBytes(in: error, from: text)
        }
        let privateBody = try TestKeys.pem("app-private-pkcs1.pem").split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined(separator: "\n")
        let text = "-----BEGIN RSA PUBLIC KEY-----\n\(privateBody)\n-----END RSA PUBLIC KEY-----\n"
        let error = #expect(throws: KeyFormatError.self) { try RSAPublicKey(pem: text) }
        #expect(error?.found.contains("holds the private half") == true, "\(String(describing: error))")
        #expect(error?.fix.contains("openssl pkey -in key.pem -pubout -out public.pem") == true)
        Self.expectNoKeyBytes(in: error, from: text)
    }

    static func expectNoKeyBytes(in error: KeyFormatError?, from text: String) {
        let words = "\(String(describing: error))"
        for line in text.split(separator: "\n") where !line.hasPrefix("-----") {
            #expect(!words.contains(line.prefix(16)))
        }
    }

    @Test func descriptionsNameTheFormAndSizeOnly() throws {
        let key = try RSAPrivateKey(pem: try TestKeys.pem("app-private-pkcs8.pem"))
        #expect(key.description == "RSA private key (2048 bits, a PKCS#8 private key)")
        #expect(String(reflecting: key).contains("MII") == false)
    }
}
