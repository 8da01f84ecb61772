import Foundation
import OneTap
import OneTapTesting

/// The login session machine against the coordinator running the same login, a session's JSON round
/// trip.
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
    }
}

