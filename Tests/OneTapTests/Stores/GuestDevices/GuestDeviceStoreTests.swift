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
        (.foldCase, "must keep its own record (generation 1)"),
        (.normalise, "must keep its own record (generation 3)"),
        (.forgetWrites, "the record must read back unchanged"),
    ])
    func theSuiteCatchesABrokenStore(flaw: GuestDeviceFlaw, problem: String) async throws {
        let failure = await #expect(throws: ConformanceFailure.self) {
            try await GuestDeviceStoreConformance.check { FlawedDeviceStore(flaw: flaw) }
        }
        if flaw != .forgetWrites { #expect(failure?.problems.count == 1, "only the flaw's property breaks: \(String(describing: failure))") }
        #expect(failure.map { "\($0)".contains(problem) } == true, "\(String(describing: failure))")
    }
}

enum GuestDeviceFlaw: Sendable, CustomStringConvertible {
    /// Reads, waits, then writes: a racing update is lost.
    case loseUpdates
    /// Compares keys case-insensitively.
    case foldCase
    /// Compares keys as Swift strings compare (canonical equivalence: composed and decomposed `é` are one key).
    case normalise
    /// Returns the change but never stores it.
    case forgetWrites

    var description: String {
        switch self {
        case .loseUpdates: "loses racing updates"
        case .foldCase: "folds the key's case"
        case .normalise: "normalises the key"
        case .forgetWrites: "forgets writes"
        }
    }
}

/// Keyed by bytes, as a store must be, except where its flaw says otherwise.
final class FlawedDeviceStore: GuestDeviceStore {
    let flaw: GuestDeviceFlaw
    private let records = LockedValue<[[UInt8]: GuestDeviceRecord]>([:])

    init(flaw: GuestDeviceFlaw) { self.flaw = flaw }

    private func normal(_ key: String) -> [UInt8] {
        switch flaw {
        case .foldCase: Array(key.lowercased().utf8)
        case .normalise: Array(key.replacingOccurrences(of: "e\u{301}", with: "\u{E9}", options: .literal).utf8)
        default: Array(key.utf8)
        }
    }

    func record(forKey key: String) async throws -> GuestDeviceRecord? {
        records.withLock { $0[normal(key)] }
    }

    func update(key: String, _ body: @Sendable (inout GuestDeviceRecord) -> Void) async throws -> GuestDeviceRecord {
        let key = normal(key)
        guard flaw == .loseUpdates else {
            return records.withLock { records in
                var record = records[key] ?? GuestDeviceRecord()
                body(&record)
                if flaw != .forgetWrites { records[key] = record }
                return record
            }
        }
        var record = records.withLock { $0[key] } ?? GuestDeviceRecord()
        try await Task.sleep(for: .milliseconds(5))
        body(&record)
        records.withLock { [record] in $0[key] = record }
        return record
    }
}
