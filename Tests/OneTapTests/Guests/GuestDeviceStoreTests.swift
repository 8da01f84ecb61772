import Foundation
import OneTapTesting
import Testing
@testable import OneTap

@Suite struct GuestDeviceStoreTests {
    @Test func theInMemoryStoreConforms() async throws {
        try await GuestDeviceStoreConformance.check(concurrency: 200) { InMemoryGuestDeviceStore() }
    }

    /// Broken stores the suite must catch, each with the property it breaks.
    @Test(arguments: [
        (GuestDeviceFlaw.loseUpdates, "racing updates that each add one must reach 50"),
        (.foldCase, "must keep its own record"),
        (.forgetWrites, "the record must read back unchanged"),
    ])
    func theSuiteCatchesABrokenStore(flaw: GuestDeviceFlaw, problem: String) async throws {
        let failure = await #expect(throws: GuestDeviceStoreConformance.Failure.self) {
            try await GuestDeviceStoreConformance.check { FlawedDeviceStore(flaw: flaw) }
        }
        #expect(failure.map { "\($0)".contains(problem) } == true, "\(String(describing: failure))")
    }
}

enum GuestDeviceFlaw: Sendable, CustomStringConvertible {
    /// Reads, waits, then writes: a racing update is lost.
    case loseUpdates
    /// Compares keys case-insensitively.
    case foldCase
    /// Returns the change but never stores it.
    case forgetWrites

    var description: String {
        switch self {
        case .loseUpdates: "loses racing updates"
        case .foldCase: "folds the key's case"
        case .forgetWrites: "forgets writes"
        }
    }
}

final class FlawedDeviceStore: GuestDeviceStore {
    let flaw: GuestDeviceFlaw
    private let records = LockedValue<[String: GuestDeviceRecord]>([:])

    init(flaw: GuestDeviceFlaw) { self.flaw = flaw }

    private func normal(_ key: String) -> String { flaw == .foldCase ? key.lowercased() : key }

    func record(forKey key: String) async throws -> GuestDeviceRecord? {
        records.withLock { $0[normal(key)] }
    }

    func update(key: String, _ body: @Sendable (inout GuestDeviceRecord) -> Void) async throws -> GuestDeviceRecord {
        var record = records.withLock { $0[normal(key)] } ?? GuestDeviceRecord()
        if flaw == .loseUpdates { try await Task.sleep(for: .milliseconds(5)) }
        body(&record)
        if flaw != .forgetWrites { records.withLock { [record] in $0[normal(key)] = record } }
        return record
    }
}
