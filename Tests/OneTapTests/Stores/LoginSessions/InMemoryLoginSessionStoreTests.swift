import Foundation
import OneTapTesting
import Testing
@testable import OneTap

@Suite struct InMemoryLoginSessionStoreTests {
    @Test func conformsToTheStoreContract() async throws {
        try await StoreConformance.check { InMemoryLoginSessionStore() }
    }

    /// A store that keeps each session as its JSON, as a database adapter does: sessions must survive it.
    @Test func aStoreOfJSONConformsToo() async throws {
        try await StoreConformance.check { SessionStoreDouble(.none) }
    }

    /// Each flaw a store can have, and the words the suite must find it with.
    @Test(arguments: [
        (SessionStoreDouble.Flaw.lastWriteWins, "replace with a stale version must throw conflict"),
        (.lastWriteWins, "100 concurrent replaces from one version must let exactly one win"),
        (.overwritesOnCreate, "create of an id that exists must throw duplicate"),
        (.createsOnReplace, "replace of an id no session has must throw notFound"),
        (.removesAtTheInstant, "a session expiring at or after the instant must be kept"),
        (.ignoresTheLimit, "removeExpired must honour its limit"),
        (.forgetsUnknownExchanges, "must load unchanged"),
        (.acceptsAnyNewerVersion, "replace expecting a version the session never had must throw conflict"),
    ])
    func theSuiteCatchesABrokenStore(flaw: SessionStoreDouble.Flaw, problem: String) async {
        await #expect {
            try await StoreConformance.check { SessionStoreDouble(flaw) }
        } throws: { error in
            // The one public entry point picks the suite by the store's protocol.
            guard let failure = error as? ConformanceFailure, failure.suite == "LoginSessionStoreConformance" else { return false }
            return failure.problems.contains { $0.contains(problem) } && failure.description.contains(problem)
        }
    }

    @Test func countsItsSessions() async throws {
        let store = InMemoryLoginSessionStore()
        #expect(store.count == 0)
        let machine = LoginSessionMachine()
        for _ in 0..<3 { try await store.create(machine.start(DeviceSnapshot(sim: .absent), at: Date(), id: .random()).session) }
        #expect(store.count == 3)
        #expect(try await store.removeExpired(before: Date().addingTimeInterval(601), limit: 2) == 2)
        #expect(store.count == 1)
    }
}

/// A login-session store that keeps sessions as JSON, correct or with one flaw of the kind real adapters
/// have.
final class SessionStoreDouble: LoginSessionStore {
    enum Flaw: Sendable {
        case none
        /// `replace` ignores the version.
        case lastWriteWins
        /// `replace` takes any session newer than the stored one (`version >= expected`).
        case acceptsAnyNewerVersion
        /// `create` overwrites an id that exists.
        case overwritesOnCreate
        /// `replace` of a missing id inserts it (an upsert).
        case createsOnReplace
        /// `removeExpired` removes sessions expiring at the instant too (`<=`).
        case removesAtTheInstant
        /// `removeExpired` removes every expired session whatever the limit.
        case ignoresTheLimit
        /// The JSON column loses the unknown exchanges.
        case forgetsUnknownExchanges
    }

    private let flaw: Flaw
    private let rows = LockedValue<[LoginSessionID: (version: Int, expiresAt: Date, json: Data)]>([:])

    init(_ flaw: Flaw) { self.flaw = flaw }

    private func json(_ session: LoginSession) throws -> Data {
        let data = Data(try session.json().utf8)
        guard flaw == .forgetsUnknownExchanges, var object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else { return data }
        object["unknownExchanges"] = [Any]()
        return try JSONSerialization.data(withJSONObject: object)
    }

    func create(_ session: LoginSession) async throws {
        let data = try json(session)
        try rows.withLock { rows throws(StoreError) in
            if rows[session.id] != nil && flaw != .overwritesOnCreate {
                throw StoreError(.duplicate, session: session.id, message: "exists")
            }
            rows[session.id] = (session.version, session.expiresAt, data)
        }
    }

    func load(_ id: LoginSessionID) async throws -> LoginSession? {
        guard let data = rows.withLock({ $0[id]?.json }) else { return nil }
        return try LoginSession(json: data)
    }

    func replace(_ session: LoginSession, expecting version: Int) async throws {
        let data = try json(session)
        try rows.withLock { rows throws(StoreError) in
            guard let current = rows[session.id] else {
                guard flaw == .createsOnReplace else { throw StoreError(.notFound, session: session.id, message: "none") }
                rows[session.id] = (session.version, session.expiresAt, data)
                return
            }
            let matches = switch flaw {
            case .lastWriteWins: true
            case .acceptsAnyNewerVersion: version >= current.version
            default: version == current.version
            }
            guard matches else { throw StoreError(.conflict, session: session.id, message: "at \(current.version)") }
            rows[session.id] = (session.version, session.expiresAt, data)
        }
    }

    func removeExpired(before instant: Date, limit: Int) async throws -> Int {
        rows.withLock { rows in
            let expired = rows.filter { flaw == .removesAtTheInstant ? $0.value.expiresAt <= instant : $0.value.expiresAt < instant }.map(\.key)
            let chosen = flaw == .ignoresTheLimit ? expired : Array(expired.prefix(max(0, limit)))
            for id in chosen { rows[id] = nil }
            return chosen.count
        }
    }
}
