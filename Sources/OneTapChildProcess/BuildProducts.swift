import Foundation

/// The executables a build of this package puts side by side: `onetap`, `onetap-db`, `OneTapTestHelper`,
/// and the test runner itself.
package enum BuildProducts {
    /// The build's products folder, found from the running executable: the test runner's folder on Linux
    /// (the test bundle's, on macOS), or the folder of the tool that asks.
    package static let directory: URL = {
        #if os(macOS)
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            return bundle.bundleURL.deletingLastPathComponent()
        }
        #endif
        return (Bundle.main.executableURL?.resolvingSymlinksInPath() ?? Bundle.main.bundleURL.appendingPathComponent("unknown"))
            .deletingLastPathComponent()
    }()

    /// An executable of the build, by its product name.
    /// - Parameter name: The product's name (`onetap`, `OneTapTestHelper`).
    /// - Returns: Its path beside the running executable; it may not exist (a partial build).
    package static func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
}
