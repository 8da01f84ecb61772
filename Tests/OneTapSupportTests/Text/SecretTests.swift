import Testing
@testable import OneTapSupport

@Suite struct SecretTests {
    let secret = Secret("tok-SECRET-123")

    @Test func revealReturnsTheValue() {
        #expect(secret.reveal() == "tok-SECRET-123")
        #expect(!secret.isEmpty)
        #expect(Secret("").isEmpty)
    }

    @Test func everyTextFormHidesTheValue() {
        var dumped = ""
        dump(secret, to: &dumped)
        let forms = [secret.description, secret.debugDescription, "\(secret)", String(reflecting: secret), dumped]
        for form in forms {
            #expect(!form.contains("SECRET"), "leaked in \(form)")
        }
        #expect(secret.description == "<redacted>")
    }

    /// A secret quoted encoded is scrubbed too (an attacker's read: an integrator's exchange that failed quoting its
    /// form body, `token=Ab%2B%2FCd%3D%3DEf`, put the token into the session's trace and the `result` event). The
    /// encoded forms were written by Python's `urllib.parse.quote_plus(t, safe='*-._')`, `quote(t, safe='-._~')` and
    /// `json.dumps(t)` (with `/` as `\/`, as Foundation's JSON writer puts it), and by node's `encodeURIComponent(t)`.
    @Test(arguments: [
        ("POST token=Ab%2B%2FCd%3D%3DEf&x=1", "POST token=<redacted>&x=1"),
        ("GET /v1?t=Ab%2b%2fCd%3d%3dEf", "GET /v1?t=<redacted>"),
        (#"{"token":"Ab+\/Cd==Ef"}"#, #"{"token":"<redacted>"}"#),
        ("plain Ab+/Cd==Ef", "plain <redacted>"),
        ("form s3+cr%2Bt%2F%C3%A9, path s3%20cr%2Bt%2F%C3%A9", "form <redacted>, path <redacted>"),
        (#"json "s3 cr+t\/\u00e9" and "s3 cr+t/\u00e9""#, #"json "<redacted>" and "<redacted>""#),
        // quote_plus(t) and JavaScript's encodeURIComponent(t) (node) of k~!*'() z+/, and the two first forms (the form
        // body's from quote_plus(t, safe='*-._') with its ~ as %7E: WHATWG encodes ~, Python keeps it whatever safe says).
        ("py k~%21%2A%27%28%29+z%2B%2F js k~!*'()%20z%2B%2F", "py <redacted> js <redacted>"),
        ("form k%7E%21*%27%28%29+z%2B%2F url k~%21%2A%27%28%29%20z%2B%2F", "form <redacted> url <redacted>"),
    ])
    func aSecretQuotedEncodedIsScrubbed(text: String, scrubbed: String) {
        #expect(Secret.scrub(text, of: [Secret("Ab+/Cd==Ef"), Secret("s3 cr+t/é"), Secret("k~!*'() z+/")]) == scrubbed)
    }
}
