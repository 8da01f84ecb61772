// A helper process for OneTap's own tests: things a test can only check across processes.
//
//   OneTapTestHelper refresh STORE-DIR ACCOUNT COUNTER-FILE HOLD-MS
//     Opens a FileTokenStore, asks a TokenVault for the account's token with a refresher that appends a
//     line to COUNTER-FILE and then waits HOLD-MS milliseconds, and prints the token's value.
//     Two of these started at once on a stale token must refresh it once between them.

import Foundation
import OneTap

struct CountingRefresher: TokenRefresher {
    let counter: String
    let hold: Duration

    func refresh(_ token: AccessToken) async throws -> RefreshResponse {
        let fd = open(counter, O_WRONLY | O_APPEND | O_CREAT, 0o600)
        let line = "refresh by \(getpid())\n"
        _ = line.withCString { write(fd, $0, strlen($0)) }
        close(fd)
        try await Task.sleep(for: hold)
        return RefreshResponse(accessToken: Secret("refreshed-by-\(getpid())"), refreshToken: Secret("r-\(getpid())"))
    }
}

let arguments = CommandLine.arguments
guard arguments.count == 6, arguments[1] == "refresh", let hold = Int(arguments[5]) else {
    FileHandle.standardError.write(Data("usage: OneTapTestHelper refresh STORE-DIR ACCOUNT COUNTER-FILE HOLD-MS\n".utf8))
    exit(64)
}
do {
    let store = try FileTokenStore(directory: arguments[2])
    let vault = TokenVault(store: store, refresher: CountingRefresher(counter: arguments[4], hold: .milliseconds(hold)))
    let token = try await vault.validToken(for: AccountID(arguments[3]))
    print(token.value.reveal())
    exit(0)
} catch {
    FileHandle.standardError.write(Data("error: \(error)\n".utf8))
    exit(1)
}
