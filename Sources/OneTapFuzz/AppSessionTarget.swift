import Foundation
import OneTap

extension Targets {
    /// The key ring the access tokens of the seed corpus are signed with (`k1`, the bytes 0 to 31).
    static let ring = try! ServerKeyRing(parsing: Secret("k1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="))

    /// The app session's parsers of outside text: a refresh token's grammar and an access token's verifier
    /// (what an app sends, the verifier reading unsafe pointers), and a session record's JSON (what a store hands
    /// back). The fuzzer's bytes are read as both tokens; when they make a record, it must come back equal through
    /// its own JSON, and write the same text again.
    static let appSession = FuzzTarget(name: "app-session", summary: "refresh and access tokens' grammars and an app session record's JSON") { bytes in
        let text = String(decoding: bytes, as: UTF8.self)
        switch ring.verifyAccessToken(text, at: Date(timeIntervalSince1970: 1_795_777_200)) {
        case .valid(let claims), .expired(let claims):
            Invariant.check(text.utf8.count <= 512, "an access token of \(text.utf8.count) bytes was read; the longest is 512")
            Invariant.check(text.hasPrefix(claims.epoch == nil ? "ota1." : "ota2."), "an access token's format and its epoch disagree")
            Invariant.check(text.contains("." + claims.session.text + "."), "an access token's session is not the one it spells")
        case .badSignature, .unknownKey, .malformed:
            break
        }
        if let token = PresentedRefreshToken(Secret(text)) {
            Invariant.check(text.utf8.count <= 82, "a token of \(text.utf8.count) bytes was read; the longest is 82")
            Invariant.check(text.hasPrefix(token.generation == nil ? "otr1." : "otr2."), "a token's format and its generation disagree")
            Invariant.check(token.generation.map { (1...9_999_999_999).contains($0) } ?? true, "a generation out of 1...9999999999")
            Invariant.check(text.contains("." + token.session.text + "."), "a token's session is not the one it spells")
        }
        guard let record = try? AppSessionRecord(json: text) else { return }
        guard let written = try? record.json() else {
            Invariant.check(false, "a record read from JSON that json() cannot write")
            return
        }
        Invariant.check((try? AppSessionRecord(json: written)) == record, "the record's json() round trip changed it")
        Invariant.check((try? AppSessionRecord(json: written).json()) == written, "json() of a record read back from json() wrote other text")
    }
}
