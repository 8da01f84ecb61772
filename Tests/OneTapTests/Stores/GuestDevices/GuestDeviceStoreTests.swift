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

    /// A device record as a store of one's own keeps it (`onetap-guest-device/2`, the hint's instant in
    /// milliseconds), and as `JSONEncoder` wrote it in earlier versions (the hint's instant in seconds
    /// since 2001-01-01: `817806060.9990001` is 2026-12-01T08:21:00.999Z).
    @Test func aRecordReadsItsJSONAndWhatJSONEncoderWrote() throws {
        var record = GuestDeviceRecord()
        record.generation = 2
        record.account = "42"
        record.lastLogin = LastLoginHint(flow: .sms, number: nil, at: Date(millisecondsSince1970: 1_796_113_260_999))
        let text = try record.json()
        #expect(text == #"{"format":"onetap-guest-device/2","generation":2,"account":"42","lastLogin":{"format":"onetap-last-login/2","flow":"sms","atMs":1796113260999}}"#)
        #expect(try GuestDeviceRecord(json: text) == record)
        #expect(try GuestDeviceRecord(json: #"{"lastLogin":{"flow":"sms","at":817806060.9990001},"generation":2,"account":"42"}"#) == record)
        #expect(try GuestDeviceRecord(json: #"{"generation":0}"#) == GuestDeviceRecord())
        #expect(throws: DecodingError.self) { try GuestDeviceRecord(json: #"{"format":"onetap-guest-device/3","generation":0}"#) }
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
