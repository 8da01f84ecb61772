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
}
