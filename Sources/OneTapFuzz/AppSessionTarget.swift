import OneTap

extension Targets {
    /// The app session's two parsers of outside text: a refresh token's grammar (what an app sends) and a session
    /// record's JSON (what a store hands back). The fuzzer's bytes are read as a token; when they make a record,
    /// it must come back equal through its own JSON, and write the same text again.
    static let appSession = FuzzTarget(name: "app-session", summary: "a refresh token's grammar and an app session record's JSON") { bytes in
        let text = String(decoding: bytes, as: UTF8.self)
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
