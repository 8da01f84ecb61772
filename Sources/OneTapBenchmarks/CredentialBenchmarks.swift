import Foundation
import OneTap

/// The app's access token (an account's, its id under 16 bytes): verifying one against the HMAC-SHA-256
/// at its heart (one HMAC over the same bytes into a stack buffer, the floor any verifier pays) and
/// against `JSONDecoder` decoding the same claims (what a JWT-style library's payload decode costs, before
/// any signature check). A guest's token is timed beside it (its 22-character guest id is one string).
enum CredentialBenchmarks {
    /// The claims as a JWT-style JSON payload, for the `JSONDecoder` reference.
    struct Claims: Codable {
        let kid: String
        let sid: String
        let sub: String
        let kind: String
        let iat: Int64
        let exp: Int64
    }

    static func run(_ options: BenchmarkOptions, _ report: inout Report, repetitions: Int) {
        refreshGrammar(options, &report, repetitions: repetitions)
        guard ["credential.verify (access token)", "credential.verify vs JSONDecoder"].contains(where: options.wants) else { return }
        let ring: ServerKeyRing
        do {
            ring = try ServerKeyRing([(try KeyID("2026-12"), try ServerKey(bytes: [UInt8](repeating: 7, count: 32)))])
        } catch {
            fatalError("the benchmark's key ring: \(error)")  // constant input: not reached
        }
        let issued = Date(timeIntervalSince1970: 1_796_000_000)
        let token = ring.accessToken(session: .random(), identity: .account("account-42"), epoch: 0, issuedAt: issued, expiresAt: issued.addingTimeInterval(7200))
            .token.reveal()
        let now = issued.addingTimeInterval(60)
        let batch = 1000
        // The floor: one HMAC-SHA-256 over the bytes the token's MAC covers, with the key prepared, into a
        // buffer on the stack (what the verifier computes; no allocation either), timed batch by batch with ours.
        let signed = Array(token.utf8[..<token.utf8.lastIndex(of: UInt8(ascii: "."))!])
        let key = HMACSHA256.Key([UInt8](repeating: 7, count: 32))
        let mac = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 32)
        defer { mac.deallocate() }
        let (ours, hmac) = signed.withUnsafeBufferPointer { message in
            measurePair(batch: batch, repetitions: repetitions) {
                for _ in 0..<batch { blackHole(ring.verifyAccessToken(token, at: now)) }
            } reference: {
                for _ in 0..<batch {
                    key.authenticationCode(for: message, into: mac)
                    blackHole(mac[0])
                }
            }
        }
        // A guest's token: the guest id is held inline too, so this path allocates nothing either.
        let guestToken = ring.accessToken(session: .random(), identity: .guest(.random()), epoch: 0, issuedAt: issued, expiresAt: issued.addingTimeInterval(7200))
            .token.reveal()
        let guest = measure(batch: batch, repetitions: repetitions) {
            for _ in 0..<batch { blackHole(ring.verifyAccessToken(guestToken, at: now)) }
        }
        var verify = Suites.row(
            "credential.verify (access token)", batch, ours, "one HMAC-SHA-256 over the same bytes", hmac,
            target: "≤ 1.5× the HMAC, 0 allocations", met: ours.median <= 1.5 * hmac.median && (ours.allocations ?? 0) == 0,
            promisesNoAllocation: true)
        verify.extra = [("guestTokenNs", format(guest.median)), ("guestTokenAllocsPerOp", guest.allocations.map { format($0) } ?? "null")]
        report.add(verify)
        let json = Data(#"{"kid":"2026-12","sid":"AAAAAAAAAAAAAAAAAAAAAA","sub":"account-42","kind":"account","iat":1796000000,"exp":1796007200}"#.utf8)
        let decoder = JSONDecoder()
        let decoded = measure(batch: batch, repetitions: repetitions) {
            for _ in 0..<batch { blackHole(try? decoder.decode(Claims.self, from: json)) }
        }
        report.add(Suites.row("credential.verify vs JSONDecoder", batch, ours, "JSONDecoder decoding the same claims", decoded, target: nil, met: nil))
    }

    /// A refresh request's body of a megabyte of dots: refused by its length before it is read, so it allocates
    /// nothing (the grammar split any text on `.` first: a megabyte of dots made a million substrings). Beside it,
    /// the grammar reading a well-formed token.
    static func refreshGrammar(_ options: BenchmarkOptions, _ report: inout Report, repetitions: Int) {
        guard options.wants("credential.refresh grammar (1 MB of dots)") else { return }
        let dots = Secret(String(repeating: ".", count: 1 << 20))
        let token = Secret("otr2.AAAAAAAAAAAAAAAAAAAAAA.12.ezYTicnzgj8417ADBdFMizE3TMdaRvzWmmBLNpD3Lh0")
        let batch = 1000
        let (ours, wellFormed) = measurePair(batch: batch, repetitions: repetitions) {
            for _ in 0..<batch { blackHole(PresentedRefreshToken(dots) == nil) }
        } reference: {
            for _ in 0..<batch { blackHole(PresentedRefreshToken(token)?.generation) }
        }
        report.add(Suites.row(
            "credential.refresh grammar (1 MB of dots)", batch, ours, "the grammar reading a well-formed token", wellFormed,
            target: "0 allocations, no slower than a token", met: (ours.allocations ?? 0) == 0 && ours.median <= wellFormed.median, promisesNoAllocation: true))
    }
}
