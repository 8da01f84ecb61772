import Foundation
import OneTap
import OneTapGateways
import OneTapPostgresTestSupport
import OneTapTesting

/// The gateways' own cost (issue 22), side by side in one run:
///
/// - `gateway.cmcc call`: a whole `ChinaMobileTokenExchange.validate` (sign, encode, POST, decode, and in the
///   RSA mode the msisdn's decryption) through `URLSessionTransport` against the loopback fake
///   (`Tests/OneTapGatewaysTests/Fakes/cmcc_login_token_validate.py`), one call after another, beside the bare
///   HTTP round trip: the same transport POSTing a pre-made signed body to the same fake (which checks it
///   the same way, signature included, then answers 103107, its msgid seen). `addsNs` is what the adapter
///   adds per call; the ratio (bare / whole) the round trip's share.
/// - `gateway.cmcc sign+encode+decode`: the adapter's own CPU, the same call over `ScriptedHTTPTransport`
///   answering a canned 103000 body, beside the same bare round trip.
/// - `rsa2048 decrypt` / `rsa2048 sign`: ``RSABenchmarks``, beside OpenSSL on the same key.
///
/// Each mode is MD5 (the app secret) and RSA (SHA256withRSA, msisdn RSA-encrypted, hex). Rows are skipped
/// with the reason when python3, its `cryptography` package or the checkout's fakes are missing; nothing
/// here has a target, so nothing here fails a run.
enum GatewayBenchmarks {
    static let appID = "300011111111"
    static let secret = "appSecret-9f8e7d"
    static let number = "13800138000"

    static func run(_ options: BenchmarkOptions, _ report: inout Report) async {
        let repetitions = options.repetitions ?? (options.quick ? 5 : 21)
        if options.wants("gateway.cmcc") {
            for mode in ["MD5", "RSA"] {
                await cmcc(mode: mode, options, &report, repetitions: repetitions)
            }
        }
        if options.wants("rsa2048") {
            await RSABenchmarks.run(options, &report, repetitions: repetitions)
        }
        await GatewayLoginBenchmarks.run(options, &report)
    }

    /// The China Mobile signing for a mode, with the tests' key for RSA.
    static func signing(_ mode: String) throws -> ChinaMobileConfiguration.Signing {
        guard mode == "RSA" else { return .md5(secret: Secret(secret)) }
        guard let path = BenchmarkFake.file("keys/app-private-pkcs8.pem") else { throw PostgresBenchmarks.BenchmarkFailure("no test key") }
        return .rsa(signingKey: Secret(try String(contentsOfFile: path, encoding: .utf8)))
    }

    /// The fake's arguments for a mode.
    static func fakeArguments(_ mode: String) -> [String] {
        let common = ["--appid", appID, "--number", number]
        guard mode == "RSA" else { return common + ["--secret", secret] }
        return common + ["--public-key", BenchmarkFake.fakes.appendingPathComponent("keys/app-public.pem").path, "--msisdn-encoding", "hex"]
    }

    /// China Mobile's exchange over a transport, at the fake's URL (or the documented one).
    static func gateway(_ mode: String, _ transport: any HTTPTransport, url: URL?, messageID: String? = nil) throws -> ChinaMobileTokenExchange {
        var configuration = ChinaMobileConfiguration(appID: appID, signing: try signing(mode))
        if let url { configuration.url = url }
        if let messageID {
            return try ChinaMobileTokenExchange(configuration: configuration, transport: transport, clock: SystemClock()) { messageID }
        }
        return try ChinaMobileTokenExchange(configuration: configuration, transport: transport)
    }

    private static func cmcc(mode: String, _ options: BenchmarkOptions, _ report: inout Report, repetitions: Int) async {
        let callName = "gateway.cmcc call (loopback fake, \(mode))"
        let cpuName = "gateway.cmcc sign+encode+decode (\(mode))"
        guard options.wants(callName) || options.wants(cpuName) else { return }
        let fake: FakeServer
        switch await BenchmarkFake.start("cmcc_login_token_validate.py", fakeArguments(mode)) {
        case .success(let started): fake = started
        case .failure(let failure):
            print("gateway.cmcc (\(mode)): skipped: \(failure)")
            return
        }
        defer { fake.stop() }
        do {
            try await measureCMCC(mode: mode, fake: fake, callName: callName, cpuName: cpuName, options, &report, repetitions: repetitions)
        } catch {
            report.fail("gateway.cmcc (\(mode))", error)
        }
    }

    private static func measureCMCC(
        mode: String, fake: FakeServer, callName: String, cpuName: String, _ options: BenchmarkOptions, _ report: inout Report, repetitions: Int
    ) async throws {
        let url = fake.url("/unisdk/rsapi/loginTokenValidate")
        let transport = URLSessionTransport()
        let whole = try gateway(mode, transport, url: url)
        // The adapter's own CPU: a canned 103000 answer to a fixed msgid (the RSA mode's msisdn is the number
        // encrypted to the tests' key, keys/ciphertext-pkcs1v15.hex).
        var msisdn = number
        if mode == "RSA" {
            guard let path = BenchmarkFake.file("keys/ciphertext-pkcs1v15.hex") else { throw PostgresBenchmarks.BenchmarkFailure("no ciphertext-pkcs1v15.hex") }
            msisdn = try String(contentsOfFile: path, encoding: .utf8).filter(\.isHexDigit)
        }
        let messageID = "0123456789abcdef0123456789abcdef"
        let canned = HTTPResponse(
            status: 200, headers: ["Content-Type": "application/json;charset=UTF-8"],
            body: Array(#"{"inresponseto":"\#(messageID)","systemtime":"20261203153000123","resultCode":"103000","msisdn":"\#(msisdn)"}"#.utf8))
        let scripted = ScriptedHTTPTransport(otherwise: canned)
        let cpu = try gateway(mode, scripted, url: url, messageID: messageID)
        // The pre-made body: the one the adapter signs, taken once from the scripted transport.
        let sample = try await cpu.validate(Secret("premade-\(UUID().uuidString)"))
        guard sample.code == "103000", sample.phoneNumber == (try PhoneNumber(number)), let body = scripted.requests.first?.body else {
            throw PostgresBenchmarks.BenchmarkFailure("the canned answer did not decode to the number: \(sample)")
        }
        let bareRequest = HTTPRequest(
            gateway: "cmcc", method: "POST", url: url, headers: [HTTPHeader("Content-Type", "application/json")], body: body, timeout: .seconds(6),
            maximumResponseBytes: 16_384)
        let batch = options.quick ? 20 : 100
        var nextToken = 0
        let (bare, bareFailures) = await measureCalls(callName, failed: "the bare round trip failed", batch: batch, repetitions: repetitions) {
            try await transport.send(bareRequest).status == 200 ? .answered : .wrong(nil)
        }
        if options.wants(callName) {
            let (ours, failures) = await measureCalls(callName, batch: batch, repetitions: repetitions) {
                nextToken += 1
                let answer = try await whole.validate(Secret("STsid-bench-\(nextToken)"))
                return answer.code == "103000" ? .answered : .wrong("the fake answered \(answer.code)")
            }
            add(callName, batch, ours, reference: "bare round trip, pre-made body", bare, failures: failures, bareFailures: bareFailures, &report)
        }
        if options.wants(cpuName) {
            let (ours, failures) = await measureCalls(cpuName, batch: batch, repetitions: repetitions) {
                nextToken += 1
                return try await cpu.validate(Secret("STsid-bench-\(nextToken)")).phoneNumber == nil ? .wrong(nil) : .answered
            }
            add(cpuName, batch, ours, reference: "bare round trip to the fake", bare, failures: failures, bareFailures: bareFailures, &report)
        }
    }

    /// How one timed call ended, when it did not throw.
    private enum CallCheck {
        /// As expected.
        case answered
        /// Not as expected: a failed call, printed (when it is the first failure) with the message if one is given.
        case wrong(String?)
    }

    /// Times `call` made `batch` times a sample (``measureAsync(batch:repetitions:_:)``), counting the calls
    /// that threw or answered wrong over every sample; the first failure is printed, after `name`.
    /// - Parameters:
    ///   - name: The row's name, before a printed failure.
    ///   - failed: What a printed error follows: `failed` unless given.
    ///   - batch: Calls a sample.
    ///   - repetitions: Samples.
    ///   - call: One call, checked.
    /// - Returns: The timing and how many calls failed.
    private static func measureCalls(
        _ name: String, failed: String = "failed", batch: Int, repetitions: Int, _ call: () async throws -> CallCheck
    ) async -> (timing: BatchTiming, failures: Int) {
        var failures = 0
        let timing = await measureAsync(batch: batch, repetitions: repetitions) {
            for _ in 0..<batch {
                do {
                    guard case .wrong(let message) = try await call() else { continue }
                    failures += 1
                    if failures == 1, let message { print("\(name): \(message)") }
                } catch {
                    failures += 1
                    if failures == 1 { print("\(name): \(failed): \(error)") }
                }
            }
        }
        return (timing, failures)
    }

    private static func add(
        _ name: String, _ batch: Int, _ ours: BatchTiming, reference: String,
        _ bare: BatchTiming, failures: Int, bareFailures: Int, _ report: inout Report
    ) {
        var row = Suites.row(name, batch, ours, reference, bare, target: nil, met: nil)
        // The whole call: what it adds to the bare round trip; the adapter's CPU: its share of that round trip.
        row.extra = ours.median >= bare.median || name.contains(" call ")
            ? [("addsNs", format(ours.median - bare.median)), ("timesBare", format(ours.median / bare.median))]
            : [("shareOfBare", format(ours.median / bare.median))]
        row.extra += [("failedCalls", String(failures)), ("failedBareCalls", String(bareFailures))]
        report.add(row)
    }
}
