import Foundation
import OneTapTesting

/// A fake vendor server from `Tests/OneTapGatewaysTests/Fakes`, run by OneTapTesting's ``FakeVendorServer`` (which the
/// command line's tests share): a Python 3 process on loopback that the test starts and stops.
final class FakeServer: Sendable {
    /// The loopback port it serves on.
    let port: Int
    private let server: FakeVendorServer

    private init(_ server: FakeVendorServer) {
        self.server = server
        port = server.port
    }

    /// `http://127.0.0.1:PORT` and a path.
    func url(_ path: String) -> URL { server.url(path) }

    /// The fakes' directory.
    static let fakes = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fakes")

    /// Starts a fake and waits for its port.
    /// - Parameters:
    ///   - script: The script's file name in `Fakes`.
    ///   - arguments: Its arguments.
    /// - Returns: The running server.
    /// - Throws: ``FakeVendorServer/StartFailure`` when python3 is missing or the script exited without printing its port.
    static func start(_ script: String, arguments: [String] = []) async throws -> FakeServer {
        FakeServer(try await FakeVendorServer.start(script: fakes.appendingPathComponent(script), arguments: arguments))
    }

    /// Stops the server: its stdin closes and it exits.
    func stop() { server.stop() }
}
