import Foundation
import OneTapTesting

/// The gateway rows' loopback fakes: the Python vendor fakes of `Tests/OneTapGatewaysTests/Fakes`, started through
/// OneTapTesting's `FakeServer` (the fakes answer without Nagle's delay), with a reason to print when one cannot start
/// (no checkout beside the binary, no python3 with the cryptography package).
enum BenchmarkFake {
    /// Why a fake did not start.
    struct StartFailure: Error, CustomStringConvertible {
        let description: String
    }

    /// The fakes' folder of this checkout.
    static var fakes: URL { FakeServer.fakes }

    /// A file of the fakes' folder, if it is there.
    /// - Parameter name: Its path below the folder.
    /// - Returns: Its path, or nil.
    static func file(_ name: String) -> String? {
        let path = fakes.appendingPathComponent(name).path
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }

    /// Starts a fake.
    /// - Parameters:
    ///   - script: The script's file name.
    ///   - arguments: Its arguments.
    /// - Returns: The running fake, or why it did not start.
    static func start(_ script: String, _ arguments: [String]) async -> Result<FakeServer, StartFailure> {
        guard file(script) != nil else { return .failure(StartFailure(description: "no \(fakes.path)/\(script) (run from the checkout)")) }
        do {
            return .success(try await FakeServer.start(script, arguments: arguments))
        } catch {
            return .failure(StartFailure(description: "\(error)"))
        }
    }
}
