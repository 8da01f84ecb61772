import Foundation

/// A fake vendor server from `Tests/OneTapGatewaysTests/Fakes` for the gateway rows: a Python 3 process on
/// loopback, started as the gateway tests start theirs (the script prints its port on its first line and
/// serves until its stdin closes, so a benchmark process that dies takes its fakes with it). Unlike the
/// tests' launcher, a fake that cannot start is a reason to skip rows, not an error: ``start(_:_:)``
/// answers the reason, which the rows print. And the fake runs with `TCP_NODELAY` on its connections
/// (``nodelay``): Python's `http.server` writes an answer's headers and its body in two writes, and with
/// Nagle's algorithm on, the body waits for the client's delayed ACK of the headers, about 40 ms, which
/// would be all a row measured.
final class BenchmarkFake: @unchecked Sendable {
    let port: Int
    private let process: Process
    private let input: Pipe

    private init(port: Int, process: Process, input: Pipe) {
        self.port = port
        self.process = process
        self.input = input
    }

    /// The fakes' folder, found from this file's path (a benchmark run from the checkout it was built in).
    static let fakes = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Tests/OneTapGatewaysTests/Fakes")

    /// Runs the script given after it (with its arguments) with Nagle's algorithm off on every connection
    /// its `socketserver` handlers take.
    static let nodelay = """
        import runpy, socketserver, sys
        socketserver.StreamRequestHandler.disable_nagle_algorithm = True
        sys.argv = sys.argv[1:]
        runpy.run_path(sys.argv[0], run_name="__main__")
        """

    /// A file in the fakes' folder, or nil when the checkout is not there.
    static func file(_ name: String) -> String? {
        let path = fakes.appendingPathComponent(name).path
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }

    /// `http://127.0.0.1:PORT` and a path.
    func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)") ?? URL(fileURLWithPath: "/")
    }

    /// Starts a fake and waits for its port (the read blocks, on a thread of its own).
    /// - Parameters:
    ///   - script: The script's file name in the fakes' folder.
    ///   - arguments: Its arguments.
    /// - Returns: The running fake, or why there is none (no checkout, no python3, no `cryptography`).
    static func start(_ script: String, _ arguments: [String]) async -> Result<BenchmarkFake, StartFailure> {
        guard let path = file(script) else { return .failure(StartFailure(description: "no \(fakes.path)/\(script) (run from the checkout)")) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", nodelay, path] + arguments
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return .failure(StartFailure(description: "cannot run python3: \(error)"))
        }
        let line: String? = await withCheckedContinuation { continuation in
            Thread {
                var bytes: [UInt8] = []
                while bytes.count < 16 {
                    let data = output.fileHandleForReading.readData(ofLength: 1)
                    guard let byte = data.first, byte != UInt8(ascii: "\n") else { break }
                    bytes.append(byte)
                }
                continuation.resume(returning: bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self))
            }.start()
        }
        guard let line, let port = Int(line) else {
            if process.isRunning { process.terminate() }
            return .failure(StartFailure(description: "\(script) printed no port (python3 with the cryptography package is needed)"))
        }
        return .success(BenchmarkFake(port: port, process: process, input: input))
    }

    /// Stops the fake: its stdin closes and it exits.
    func stop() {
        do { try input.fileHandleForWriting.close() } catch { /* already closed */ }
        if process.isRunning { process.terminate() }
    }

    deinit { stop() }

    /// Why a fake did not start.
    struct StartFailure: Error, CustomStringConvertible {
        let description: String
    }
}
