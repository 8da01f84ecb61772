import Foundation
import Testing

/// Where the package's files are, found from this source file (not from a bundle).
enum Package {
    /// The package root.
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A path inside the package.
    static func path(_ relative: String) -> String {
        root.appendingPathComponent(relative).path
    }

    /// A fresh temporary directory, removed by the caller.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("onetap-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

/// The build's products directory, where the test bundle's sibling executables are (`onetap`,
/// `OneTapTestHelper`): found through `Bundle`, on macOS and Linux alike.
enum Products {
    static let directory: URL = {
        #if os(macOS)
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            return bundle.bundleURL.deletingLastPathComponent()
        }
        return Bundle.main.bundleURL.deletingLastPathComponent()
        #else
        return Bundle.main.bundleURL
        #endif
    }()

    /// An executable product of the package.
    static func executable(_ name: String) -> URL { directory.appendingPathComponent(name) }
}

extension Process {
    /// Waits for the process to end without holding a thread of Swift's cooperative pool (the tests run
    /// side by side on as many threads as there are cores): polls every 10 ms.
    /// - Returns: Its exit status.
    func exited() async throws -> Int32 {
        while isRunning { try await Task.sleep(for: .milliseconds(10)) }
        return terminationStatus
    }
}
