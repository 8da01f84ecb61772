#if canImport(Glibc)
import Glibc
#endif
import Foundation
import OneTap
import OneTapTesting

/// The login session machine against the coordinator running the same login, a session's JSON round
/// trip, and SHA-256 against `openssl dgst`.
enum SessionBenchmarks {
    static func run(_ options: BenchmarkOptions, _ report: inout Report, repetitions: Int) async {
        let now = Date(timeIntervalSince1970: 1_796_083_200)
        let engine = LoginDecisionEngine()
        let snapshot = DeviceSnapshot(sim: .present, plmn: try! PLMN("46000"))
        let machine = LoginSessionMachine(engine: engine, exchanges: nil)
        let id = try! LoginSessionID("AAAAAAAAAAAAAAAAAAAAAA")
        let credential = CarrierCredential(flow: .mobile, token: Secret("token-token-token-token"), uniqueID: "uid")
        let batch = 1000

        if options.wants("session") {
            let start = measure(batch: batch, repetitions: repetitions) {
                for _ in 0..<batch { blackHole(machine.start(snapshot, at: now, id: id)) }
            }
            let started = machine.start(snapshot, at: now, id: id).session
            let advance = measure(batch: batch, repetitions: repetitions) {
                for _ in 0..<batch { blackHole(try? machine.advance(started, .result(.mobile, code: "102101"), at: now)) }
            }
            // The same whole login both ways: China Mobile fails with no network, SMS verifies.
            let verdict = SMSVerdict(phoneNumber: try! PhoneNumber("13800138000"), session: id, verifiedAt: now)
            let whole = measure(batch: 200, repetitions: repetitions) {
                for _ in 0..<200 {
                    let first = machine.start(snapshot, at: now, id: id)
                    guard let second = try? machine.advance(first.session, .result(.mobile, code: "102101"), at: now) else { continue }
                    blackHole(try? machine.advance(second.session, .smsVerified(verdict), at: now))
                }
            }
            let coordinator = await measureAsync(batch: 200, repetitions: repetitions) {
                for _ in 0..<200 {
                    let coordinator = LoginCoordinator(
                        engine: engine, providers: LoginProviders(mobile: MockOneTapProvider(.mobile, codes: ["102101"]), sms: MockSMSProvider()),
                        events: DiscardingEventSink())
                    blackHole(try? await coordinator.login(snapshot))
                }
            }
            report.add(Suites.row("session.start", batch, start, "—", start, target: "≤ 500 ns", met: start.median <= 500))
            report.add(Suites.row("session.advance", batch, advance, "—", advance, target: "≤ 500 ns", met: advance.median <= 500))
            report.add(Suites.row("session: whole login (fail → sms)", 200, whole, "LoginCoordinator + mocks", coordinator, target: nil, met: nil))
            _ = credential
        }

        if options.wants("session.json") {
            var session = machine.start(snapshot, at: now, id: id).session
            session = (try? machine.advance(session, .result(.mobile, code: "200023"), at: now))?.session ?? session
            session = (try? machine.advance(session, .result(.mobile, code: "102101"), at: now))?.session ?? session
            // Ours: `json()` and `init(json:)`, straight from the session's fields to bytes and back.
            let roundTrip = measure(batch: 100, repetitions: repetitions) {
                for _ in 0..<100 {
                    guard let text = try? session.json() else { continue }
                    blackHole(try? LoginSession(json: text))
                }
            }
            // The same document through `Codable`: JSONEncoder and JSONDecoder, on a mirror of its members.
            let encoder = JSONEncoder()
            let decoder = JSONDecoder()
            let document = try? decoder.decode(SessionDocument.self, from: Data(((try? session.json()) ?? "").utf8))
            let codable = measure(batch: 100, repetitions: repetitions) {
                for _ in 0..<100 {
                    guard let document, let data = try? encoder.encode(document) else { continue }
                    blackHole(try? decoder.decode(SessionDocument.self, from: data))
                }
            }
            // The floor of Foundation's JSON on the same bytes: parsed into Foundation objects and written back,
            // with no type of ours in it.
            let bytes = Data(((try? session.json()) ?? "").utf8)
            let foundation = measure(batch: 100, repetitions: repetitions) {
                for _ in 0..<100 {
                    guard let object = try? JSONSerialization.jsonObject(with: bytes) else { continue }
                    blackHole(try? JSONSerialization.data(withJSONObject: object))
                }
            }
            var result = Suites.row(
                "session JSON round trip", 100, roundTrip, "JSONEncoder + JSONDecoder (Codable)", codable, target: "≤ 5 µs", met: roundTrip.median <= 5000)
            result.extra = [("bytes", String(bytes.count)), ("jsonSerializationNs", format(foundation.median))]
            report.add(result)
        }

        if options.wants("sha256") {
            let token = Array(repeating: UInt8(ascii: "t"), count: 64)
            let small = measure(batch: batch, repetitions: repetitions) {
                for _ in 0..<batch { blackHole(SHA256.hash(token)) }
            }
            // Throughput over the same 16 MiB, in this process and in `openssl dgst -sha256`.
            let size = options.quick ? 4 << 20 : 16 << 20
            let data = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            let ours = measure(batch: 1, repetitions: max(3, repetitions / 5)) { blackHole(SHA256.hash(data)) }
            var result = Suites.row("sha256 (64-byte token)", batch, small, "—", small, target: nil, met: nil)
            if let openssl = OpenSSL.dgst(data, repetitions: max(3, repetitions / 5)) {
                let oursRate = Double(size) / ours.median * 1e3   // MB/s (bytes per ns × 1000)
                let theirsRate = Double(size) / openssl * 1e3
                result.extra = [
                    ("oursMBps", format(oursRate)), ("opensslMBps", format(theirsRate)), ("ratio", format(oursRate / theirsRate)),
                ]
            } else {
                result.extra = [("openssl", "\"not installed\"")]
            }
            report.add(result)
        }
    }
}

/// `openssl dgst -sha256` (with `-hmac KEY`, HMAC-SHA-256) over a file, timed as a process, minus the
/// time `openssl version` takes to start (so the figure is its hashing, not its start-up). A process
/// timing, not `openssl speed`: that one stops its loops with `SIGALRM`, which a child of this process
/// may inherit blocked, and then never stops.
enum OpenSSL {
    static func dgst(_ data: [UInt8], repetitions: Int, hmacKey: String? = nil) -> Double? {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("onetap-sha256-\(getpid()).bin").path
        guard FileManager.default.createFile(atPath: path, contents: Data(data)) else { return nil }
        defer { try? FileManager.default.removeItem(atPath: path) }
        let arguments = ["dgst", "-sha256"] + (hmacKey.map { ["-hmac", $0] } ?? []) + [path]
        guard let startup = time(["version"], repetitions: repetitions), let total = time(arguments, repetitions: repetitions) else {
            return nil
        }
        return max(1, total - startup)
    }

    /// The median wall time of `openssl ARGUMENTS`, in nanoseconds.
    private static func time(_ arguments: [String], repetitions: Int) -> Double? {
        var samples: [Double] = []
        for _ in 0..<repetitions {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
            process.arguments = arguments
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            let start = nanoseconds()
            guard (try? process.run()) != nil else { return nil }
            process.waitUntilExit()
            guard process.terminationStatus == 0 else { return nil }
            samples.append(Double(nanoseconds() - start))
        }
        samples.sort()
        return samples[samples.count / 2]
    }
}
