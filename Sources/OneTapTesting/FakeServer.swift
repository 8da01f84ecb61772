import Foundation

/// A fake vendor server from `Tests/OneTapGatewaysTests/Fakes`: a Python 3 process on loopback that a test (of
/// any of the package's test targets) or a benchmark starts and stops. The script prints its port on its first
/// line and serves until its stdin closes, so a test process that dies takes its servers with it.
package final class FakeServer: @unchecked Sendable {
    /// Why a fake did not start.
    package struct StartFailure: Error, CustomStringConvertible {
        package let description: String
    }

    /// The loopback port it listens on.
    package let port: Int
    private let process: Process
    private let input: Pipe

    private init(port: Int, process: Process, input: Pipe) {
        self.port = port
        self.process = process
        self.input = input
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
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", fakes.appendingPathComponent(script).path] + arguments
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        try process.run()
        let line: String? = await withCheckedContinuation { continuation in
            Thread {
                var bytes: [UInt8] = []
                while true {
                    let data = output.fileHandleForReading.readData(ofLength: 1)
                    guard let byte = data.first, byte != UInt8(ascii: "\n") else { break }
                    bytes.append(byte)
                }
                continuation.resume(returning: bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self))
            }.start()
        }
        guard let line, let port = Int(line) else {
            process.terminate()
            throw StartFailure(description: "\(script) printed no port (is python3 with the cryptography package installed?)")
        }
        return FakeServer(port: port, process: process, input: input)
    }

    /// Stops the server: its stdin closes and it exits.
    package func stop() {
        try? input.fileHandleForWriting.close()
        if process.isRunning { process.terminate() }
    }

    deinit { stop() }
}
