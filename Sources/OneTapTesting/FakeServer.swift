#if canImport(Glibc)
import Glibc
#endif
import Foundation
import OneTapChildProcess

/// A fake vendor server from `Tests/OneTapGatewaysTests/Fakes`: a Python 3 process on loopback that a test (of
/// any of the package's test targets) or a benchmark starts and stops. The script prints its port on its first
/// line and serves until its stdin closes, so a test process that dies takes its servers with it.
package final class FakeServer: Sendable {
    /// Why a fake did not start.
    package struct StartFailure: Error, CustomStringConvertible {
        package let description: String
    }

    /// The loopback port it listens on.
    package let port: Int
    private let process: ChildProcess

    private init(port: Int, process: ChildProcess) {
        self.port = port
        self.process = process
    }

    /// `http://127.0.0.1:PORT` and a path.
    package func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    /// The fakes' directory: `Tests/OneTapGatewaysTests/Fakes` of this checkout.
    package static let fakes = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Tests/OneTapGatewaysTests/Fakes")

    /// Starts a fake and waits for its port (on a thread of its own: the read blocks).
    /// - Parameters:
    ///   - script: The script's file name in `Fakes`.
    ///   - arguments: Its arguments.
    /// - Returns: The running server.
    /// - Throws: ``StartFailure`` when python3 is missing or the script exited without printing its port.
    package static func start(_ script: String, arguments: [String] = []) async throws -> FakeServer {
        let process = try ChildProcess("/usr/bin/env", ["python3", fakes.appendingPathComponent(script).path] + arguments, input: .pipe, output: .pipe)
        let line: String? = await ChildProcess.onOwnThread {
            guard let output = process.output else { return nil }
            var bytes: [UInt8] = []
            while true {
                let data = output.readData(ofLength: 1)
                guard let byte = data.first, byte != UInt8(ascii: "\n") else { break }
                bytes.append(byte)
            }
            return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
        }
        guard let line, let port = Int(line) else {
            process.signal(SIGTERM)
            _ = await process.exited()
            throw StartFailure(description: "\(script) printed no port (is python3 with the cryptography package installed?)")
        }
        return FakeServer(port: port, process: process)
    }

    /// Stops the server: its stdin closes, it is sent SIGTERM, and it is waited for (it exits at once).
    package func stop() {
        do {
            try process.input?.close()
        } catch {
            // Closed already by an earlier stop: the signal below is a no-op for a reaped child.
        }
        process.signal(SIGTERM)
        _ = process.wait()
    }

    deinit { stop() }
}
