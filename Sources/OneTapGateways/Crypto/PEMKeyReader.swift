import CLibCrypto
import Foundation

/// Reads RSA keys from PEM text with OpenSSL's decoder (`OSSL_DECODER`): PKCS#8 and PKCS#1 private keys, X.509
/// and PKCS#1 public keys, and bare Base64 of any of them. Anything else is a ``KeyFormatError`` saying which form
/// the text is in and the `openssl` command that converts it.
enum PEMKeyReader {
    /// Reads a key.
    /// - Parameters:
    ///   - text: The PEM text (or bare Base64).
    ///   - wantsPrivate: A private key is needed (else a public one).
    /// - Returns: The key (the caller frees it with `EVP_PKEY_free`), its form and its size in bits.
    /// - Throws: ``KeyFormatError``.
    static func read(_ text: String, wantsPrivate: Bool) throws(KeyFormatError) -> (key: OpaquePointer, form: PEMKeyForm, bits: Int) {
        let form = PEMKeyForm.of(text)
        let needed = wantsPrivate ? "an unencrypted RSA private key in PEM" : "an RSA public key in PEM"
        switch (form, wantsPrivate) {
        case (.pkcs8Private, _), (.pkcs1Private, _), (.spkiPublic, false), (.pkcs1Public, false):
            guard let key = decode(text) else {
                throw KeyFormatError(found: "\(form.rawValue) that does not decode (damaged Base64 or DER)", fix: "\(needed); check it with: openssl pkey -in key.pem -noout\(form == .spkiPublic || form == .pkcs1Public ? " -pubin" : "")")
            }
            if !wantsPrivate, form == .pkcs8Private || form == .pkcs1Private {
                EVP_PKEY_free(key)
                throw KeyFormatError(found: form.rawValue, fix: "the public key (keep the private key on your server), made with: openssl pkey -in key.pem -pubout -out public.pem")
            }
            return try checked(key, form: form, wantsPrivate: wantsPrivate, needed: needed)
        case (.bareBase64, _):
            let body = text.filter { !$0.isWhitespace }
            let labels = wantsPrivate ? ["PRIVATE KEY", "RSA PRIVATE KEY"] : ["PUBLIC KEY", "RSA PUBLIC KEY", "PRIVATE KEY", "RSA PRIVATE KEY"]
            for label in labels {
                let pem = "-----BEGIN \(label)-----\n\(wrapped(body))\n-----END \(label)-----\n"
                guard let key = decode(pem) else { continue }
                let wrappedForm = PEMKeyForm.of(pem)
                if !wantsPrivate, wrappedForm == .pkcs8Private || wrappedForm == .pkcs1Private {
                    EVP_PKEY_free(key)
                    throw KeyFormatError(found: "\(wrappedForm.rawValue) (bare Base64)", fix: "the public key (keep the private key on your server), made with: openssl pkey -in key.pem -pubout -out public.pem")
                }
                return try checked(key, form: wrappedForm, wantsPrivate: wantsPrivate, needed: needed)
            }
            throw KeyFormatError(found: "bare Base64 that is no \(wantsPrivate ? "private" : "public") key in DER", fix: "\(needed), e.g. -----BEGIN PRIVATE KEY----- … -----END PRIVATE KEY-----")
        case (.pkcs8EncryptedPrivate, true):
            throw KeyFormatError(found: form.rawValue, fix: "\(needed); decrypt it (asks for its passphrase) with: openssl pkcs8 -in key.pem -out key-pkcs8.pem")
        case (.pkcs1EncryptedPrivate, true):
            throw KeyFormatError(found: form.rawValue, fix: "\(needed); decrypt it (asks for its passphrase) with: openssl pkcs8 -topk8 -nocrypt -in key.pem -out key-pkcs8.pem")
        case (.spkiPublic, true), (.pkcs1Public, true):
            throw KeyFormatError(found: form.rawValue, fix: "\(needed): the private half of the pair (the public half is what goes to the vendor's console)")
        case (.pkcs8EncryptedPrivate, false), (.pkcs1EncryptedPrivate, false):
            throw KeyFormatError(found: form.rawValue, fix: "\(needed), made with: openssl pkey -in key.pem -pubout -out public.pem")
        case (.certificate, true):
            throw KeyFormatError(found: form.rawValue, fix: "\(needed): your private key, not a certificate")
        case (.certificate, false):
            throw KeyFormatError(found: form.rawValue, fix: "\(needed); take it from the certificate with: openssl x509 -in certificate.pem -pubkey -noout -out public.pem")
        case (.other, _):
            throw KeyFormatError(found: form.rawValue, fix: "\(needed) (-----BEGIN \(wantsPrivate ? "PRIVATE KEY" : "PUBLIC KEY")----- …)")
        }
    }

    /// Keeps an RSA key of a usable size holding the half asked for; frees and refuses anything else. The half is read
    /// from the key itself, never from its label: OpenSSL's decoder reads a PKCS#1 public body under the `RSA PRIVATE
    /// KEY` label (or bare Base64 wrapped so) and a private body under `RSA PUBLIC KEY`, and a public key taken for a
    /// private one would fail only at the first signature, or at the first billed answer it cannot decrypt.
    private static func checked(_ key: OpaquePointer, form: PEMKeyForm, wantsPrivate: Bool, needed: String) throws(KeyFormatError) -> (key: OpaquePointer, form: PEMKeyForm, bits: Int) {
        guard EVP_PKEY_is_a(key, "RSA") == 1 else {
            let type = EVP_PKEY_get0_type_name(key).map { String(cString: $0) } ?? "non-RSA"
            EVP_PKEY_free(key)
            throw KeyFormatError(found: "\(form.rawValue) of type \(type), not RSA", fix: "\(needed); the vendors take RSA keys, made with: openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out key.pem")
        }
        let bits = Int(EVP_PKEY_get_bits(key))
        guard bits >= 1024 else {
            EVP_PKEY_free(key)
            throw KeyFormatError(found: "\(form.rawValue) of \(bits) bits", fix: "\(needed) of at least 1024 bits (2048 recommended): openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out key.pem")
        }
        switch (wantsPrivate, holdsPrivateHalf(key)) {
        case (true, false):
            EVP_PKEY_free(key)
            throw KeyFormatError(found: "\(form.rawValue) that holds no private half (a public key)", fix: "\(needed): the private half of the pair (the public half is what goes to the vendor's console)")
        case (false, true):
            EVP_PKEY_free(key)
            throw KeyFormatError(found: "\(form.rawValue) that holds the private half", fix: "the public key (keep the private key on your server), made with: openssl pkey -in key.pem -pubout -out public.pem")
        default:
            return (key, form, bits)
        }
    }

    /// Whether an RSA key holds its private exponent `d`. Leaves libcrypto's error queue empty.
    private static func holdsPrivateHalf(_ key: OpaquePointer) -> Bool {
        defer { ERR_clear_error() }
        var exponent: OpaquePointer?
        let held = EVP_PKEY_get_bn_param(key, "d", &exponent) == 1 && exponent != nil
        BN_clear_free(exponent)
        return held
    }

    /// How many times a text is decoded before it is called damaged. OpenSSL 3.0 (Debian 12's 3.0.19) now and then
    /// fails to decode a sound key ("DECODER routines::unsupported", with all its decoders found) while other threads
    /// of the process use libcrypto: a key read by the gateway tests failed so about once in ten runs, and decoded at
    /// the next try every time. A damaged key fails every try; keys are read when a gateway is configured, so the
    /// extra tries cost nothing on a request.
    static let decodeAttempts = 3

    /// PEM text decoded, whatever its structure; nil when it does not decode in ``decodeAttempts`` tries.
    private static func decode(_ text: String) -> OpaquePointer? {
        for _ in 0..<decodeAttempts {
            if let key = decodeOnce(text) { return key }
        }
        return nil
    }

    /// One try at decoding PEM text. Leaves libcrypto's error queue empty (the thread's queue is shared with libpq's
    /// TLS).
    private static func decodeOnce(_ text: String) -> OpaquePointer? {
        defer { ERR_clear_error() }
        // The decoder keeps the slot's address and writes the key through it later, in `OSSL_DECODER_from_data`: a slot
        // of our own, alive across both calls (a `&key` argument is valid only for the call it is passed to).
        let slot = UnsafeMutablePointer<OpaquePointer?>.allocate(capacity: 1)
        slot.initialize(to: nil)
        defer { slot.deinitialize(count: 1); slot.deallocate() }
        guard let context = OSSL_DECODER_CTX_new_for_pkey(slot, "PEM", nil, nil, 0, nil, nil) else { return nil }
        defer { OSSL_DECODER_CTX_free(context) }
        let bytes = Array(text.utf8)
        let decoded = bytes.withUnsafeBufferPointer { buffer -> Bool in
            var data = buffer.baseAddress
            var length = buffer.count
            return OSSL_DECODER_from_data(context, &data, &length) == 1
        }
        let key = slot.pointee
        guard decoded, let key else {
            if let key { EVP_PKEY_free(key) }
            return nil
        }
        return key
    }

    /// Base64 in lines of 64 characters, as PEM has it.
    private static func wrapped(_ body: String) -> String {
        var lines: [Substring] = []
        var rest = Substring(body)
        while !rest.isEmpty {
            lines.append(rest.prefix(64))
            rest = rest.dropFirst(64)
        }
        return lines.joined(separator: "\n")
    }
}
