import Foundation
import OneTap
import Testing

/// Token files as `FileTokenStore` wrote them at commit 37018e5 (`Tests/Golden/token-record/`, format
/// `onetap-token/1`: keys sorted, instants as integer milliseconds since 1970, the version the time of
/// the write in milliseconds shifted left 16 bits with 16 random bits), read back by today's code.
@Suite struct GoldenTokenRecordTests {
    static let withRefresh: AccountID = "acct-golden-tianyi-1"
    static let withoutRefresh: AccountID = "acct-golden-tianyi-2"

    /// A Tianyi token with a refresh token, issued at a fractional second.
    @Test func tianyiTokenWithRefreshToken() throws {
        let bytes = try Golden.bytes("token-record/tianyi-with-refresh.token")
        #expect(String(decoding: bytes, as: UTF8.self).contains(#""issuedAtMs":1796112600123,"#))
        let (stored, dueAt) = try FileTokenStore.decodeRecord(bytes, account: Self.withRefresh)
        #expect(stored.version == TokenVersion(117_710_035_386_378_167))
        #expect(stored.version.value >> 16 == 1_796_112_600_500, "written at 2026-12-01T08:10:00.500Z")
        let token = stored.token
        #expect(token.value.reveal() == "fake-access-token-A1")
        #expect(token.refreshToken?.reveal() == "fake-refresh-token-R1")
        #expect(token.flow == .tianyi)
        #expect(token.account == Self.withRefresh)
        #expect(Golden.ms(token.issuedAt) == Golden.ms("2026-12-01T08:10:00.123Z"))
        #expect(Golden.ms(token.expiresAt) == Golden.ms("2026-12-31T08:10:00.123Z"))
        #expect(Golden.ms(dueAt) == Golden.ms("2026-12-30T08:10:00.123Z"))
        #expect(token.lifetime == 30 * 86_400)
    }

    /// A Tianyi token without a refresh token (no `refreshToken` member).
    @Test func tianyiTokenWithoutRefreshToken() throws {
        let bytes = try Golden.bytes("token-record/tianyi-without-refresh.token")
        #expect(!String(decoding: bytes, as: UTF8.self).contains("refreshToken"))
        let (stored, dueAt) = try FileTokenStore.decodeRecord(bytes, account: Self.withoutRefresh)
        #expect(stored.version == TokenVersion(117_710_035_386_384_388))
        let token = stored.token
        #expect(token.value.reveal() == "fake-access-token-A2")
        #expect(token.refreshToken == nil)
        #expect(token.flow == .tianyi)
        #expect(token.account == Self.withoutRefresh)
        #expect(Golden.ms(token.issuedAt) == Golden.ms("2026-12-01T08:11:00.999Z"))
        #expect(Golden.ms(token.expiresAt) == Golden.ms("2026-12-01T09:11:00.999Z"))
        #expect(Golden.ms(dueAt) == Golden.ms("2026-12-01T09:01:00.999Z"))
    }

    /// A record is bound to its account: read as another account's, it is refused.
    @Test func aRecordReadAsAnotherAccountsIsRefused() throws {
        let bytes = try Golden.bytes("token-record/tianyi-with-refresh.token")
        #expect(throws: StoreError.self) { try FileTokenStore.decodeRecord(bytes, account: Self.withoutRefresh) }
    }

    /// The files put where a store keeps them (mode 0600) read as the stored tokens, and their due times
    /// list them; a write replacing the golden version is taken.
    @Test func aStoreReadsTheGoldenFiles() async throws {
        let directory = try Package.temporaryDirectory()
        defer { removeTemporary(directory) }
        let store = try FileTokenStore(directory: directory.appendingPathComponent("store").path)
        for (file, account) in [("tianyi-with-refresh", Self.withRefresh), ("tianyi-without-refresh", Self.withoutRefresh)] {
            let path = store.path(for: account)
            try Data(try Golden.bytes("token-record/\(file).token")).write(to: URL(fileURLWithPath: path))
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        }
        let first = try #require(try await store.load(Self.withRefresh))
        #expect(first.version == TokenVersion(117_710_035_386_378_167))
        #expect(first.token.refreshToken?.reveal() == "fake-refresh-token-R1")
        #expect(Golden.ms(first.token.issuedAt) == Golden.ms("2026-12-01T08:10:00.123Z"))
        let second = try #require(try await store.load(Self.withoutRefresh))
        #expect(second.version == TokenVersion(117_710_035_386_384_388))
        #expect(Golden.ms(second.token.expiresAt) == Golden.ms("2026-12-01T09:11:00.999Z"))

        #expect(try await store.accounts(dueBefore: try Golden.instant("2026-12-01T09:01:00.999Z"), limit: 10).isEmpty, "due strictly before")
        #expect(try await store.accounts(dueBefore: try Golden.instant("2026-12-01T09:01:01.000Z"), limit: 10) == [Self.withoutRefresh])
        #expect(try await store.accounts(dueBefore: try Golden.instant("2026-12-30T08:10:00.124Z"), limit: 10) == [Self.withoutRefresh, Self.withRefresh])

        let next = try await store.save(first.token, replacing: first.version, dueAt: try Golden.instant("2026-12-30T09:00:00.000Z"))
        #expect(next > first.version)
    }
}
