// swift-tools-version: 6.2
//
// OneTap: a pure-Swift decision engine for China's carrier one-tap login.
// No outside packages: the toolchain's Foundation, Dispatch and Swift Testing only.

import Foundation
import PackageDescription

// `ONETAP_FUZZ=1 swift build --product OneTapFuzz --scratch-path .build/fuzz` (what .ci/fuzz runs) builds the
// libFuzzer targets: the library code is instrumented for coverage with AddressSanitizer. SwiftPM's own
// --sanitize=fuzzer would also instrument the build-tool plugin's generator, which then could not run.
let fuzzing = ProcessInfo.processInfo.environment["ONETAP_FUZZ"] != nil
let fuzz: [SwiftSetting] = fuzzing ? [.unsafeFlags(["-sanitize=fuzzer,address", "-DONETAP_FUZZ"])] : []

// Warnings are errors in every build of this package (`swift run`, `swift test`, CI alike), so the README's
// two commands share one build instead of rebuilding each other with different flags. SwiftPM does not
// apply warning settings to a package built as someone else's dependency.
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .treatAllWarnings(as: .error),
]

let package = Package(
    name: "OneTap",
    platforms: [.macOS(.v15)],
    products: [
        // What an auth server or app imports: `import OneTap` (it re-exports OneTapCore and the vocabulary
        // types of OneTapSupport).
        .library(name: "OneTap", targets: ["OneTap"]),
        // The event stream counted: the login funnel, the routing replay, their charts (`onetap stats`,
        // `onetap replay`). A server need not link it.
        .library(name: "OneTapInsights", targets: ["OneTapInsights"]),
        // Test doubles and conformance suites; production binaries do not link it.
        .library(name: "OneTapTesting", targets: ["OneTapTesting"]),
        // Stores on PostgreSQL, through libpq (`apt install libpq-dev`): `import OneTapPostgres`. `import OneTap`
        // alone links no C library.
        .library(name: "OneTapPostgres", targets: ["OneTapPostgres"]),
        // The carriers' and aggregators' HTTP APIs (token exchange first), with their signatures and ciphers from
        // OpenSSL's libcrypto: `import OneTapGateways`. `import OneTap` alone still links no C library.
        .library(name: "OneTapGateways", targets: ["OneTapGateways"]),
        // The command-line tool.
        .executable(name: "onetap", targets: ["OneTapTool"]),
        // What `onetap db` runs: the one part of the tool that links libpq, so `onetap` starts without it.
        .executable(name: "onetap-db", targets: ["OneTapDBTool"]),
        // What `onetap gateway` runs: the one part of the tool that links libcrypto (through OneTapGateways).
        .executable(name: "onetap-gateway", targets: ["OneTapGatewayTool"]),
        // Speed, measured side by side with references: `swift run -c release OneTapBenchmarks`.
        .executable(name: "OneTapBenchmarks", targets: ["OneTapBenchmarks"]),
    ],
    targets: [
        // Build-time table compiler: embeds Data/*.csv into OneTapCore (no resource bundle at run time).
        .executableTarget(
            name: "OneTapTableGenerator",
            path: "Sources/OneTapTableGenerator",
            swiftSettings: strict
        ),
        .plugin(
            name: "OneTapTablesPlugin",
            capability: .buildTool(),
            dependencies: ["OneTapTableGenerator"],
            path: "Sources/OneTapTablesPlugin"
        ),
        // The plumbing every layer shares, seen by the others with `package` access: the JSON reader and
        // writer, time (one instant, one ISO 8601), SHA-256, HMAC, Base64, the seeded test generator. Public
        // only for the vocabulary users name: Secret, ParseError, ErrorKind, JSONValue, SHA256Digest.
        .target(
            name: "OneTapSupport",
            swiftSettings: strict + fuzz
        ),
        // How the package's tools and tests start a child process (posix_spawn; see ChildProcess.swift).
        .target(
            name: "OneTapChildProcess",
            swiftSettings: strict
        ),
        // The pure decisions: values in, values out. No clock, no randomness, no I/O, no actor, no global
        // state; the compiler keeps it that way, since this module cannot see the layers above it.
        .target(
            name: "OneTapCore",
            dependencies: ["OneTapSupport"],
            swiftSettings: strict + fuzz,
            plugins: ["OneTapTablesPlugin"]
        ),
        // Offline analytics over the event stream (pure, like the core): scanning, funnel, replay, charts.
        .target(
            name: "OneTapInsights",
            dependencies: ["OneTapCore"],
            swiftSettings: strict + fuzz
        ),
        // Time, I/O and concurrency over the decisions: token vault and stores, the login coordinator,
        // events. Re-exports OneTapCore.
        .target(
            name: "OneTap",
            dependencies: ["OneTapCore"],
            swiftSettings: strict + fuzz
        ),
        // libpq's C API, found through pkg-config (Debian: libpq-dev).
        .systemLibrary(
            name: "CLibPQ",
            path: "Sources/CLibPQ",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"]), .brew(["libpq"])]
        ),
        // OpenSSL's libcrypto (which libpq links already), found through pkg-config (Debian: libssl-dev):
        // AES-256-GCM for the tokens OneTapPostgres stores, and the gateways' RSA, AES and digests. OneTapPostgres and
        // OneTapGateways link it (so onetap-db and onetap-gateway do); OneTap and onetap never do.
        .systemLibrary(
            name: "CLibCrypto",
            path: "Sources/CLibCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]
        ),
        // Every store on PostgreSQL: a connection pool, migrations, leases, tokens sealed with AES-256-GCM.
        .target(
            name: "OneTapPostgres",
            dependencies: ["OneTap", "CLibPQ", "CLibCrypto"],
            swiftSettings: strict
        ),
        // The vendors' gateways over HTTP: a URLSession transport (FoundationNetworking on Linux), MD5/SHA-1/HMAC,
        // AES and RSA from libcrypto, China Mobile's loginTokenValidate as a TokenExchangeProvider.
        .target(
            name: "OneTapGateways",
            dependencies: ["OneTap", "CLibCrypto"],
            swiftSettings: strict
        ),
        // Starts a private PostgreSQL server for the tests and the benchmarks (initdb, pg_ctl); not a product.
        .target(
            name: "OneTapPostgresTestSupport",
            dependencies: ["OneTap", "OneTapChildProcess"],
            swiftSettings: strict
        ),
        .target(
            name: "OneTapTesting",
            dependencies: ["OneTap", "OneTapChildProcess"],
            swiftSettings: strict + fuzz
        ),
        // The CLI links no C library: `onetap db` runs `onetap-db` (OneTapDBTool), which links libpq, and `onetap gateway`
        // runs `onetap-gateway` (OneTapGatewayTool), which links libcrypto.
        .target(
            name: "OneTapCLI",
            dependencies: ["OneTap", "OneTapInsights", "OneTapChildProcess"],
            swiftSettings: strict + fuzz
        ),
        .executableTarget(
            name: "OneTapDBTool",
            dependencies: ["OneTap", "OneTapPostgres"],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "OneTapGatewayTool",
            dependencies: ["OneTap", "OneTapGateways"],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "OneTapTool",
            dependencies: ["OneTapCLI"],
            swiftSettings: strict
        ),
        // Counts every heap allocation of the benchmark process (malloc and friends, Linux/glibc).
        .target(
            name: "OneTapAllocationCounter",
            path: "Sources/OneTapAllocationCounter"
        ),
        .executableTarget(
            name: "OneTapBenchmarks",
            dependencies: ["OneTap", "OneTapInsights", "OneTapTesting", "OneTapAllocationCounter", "OneTapPostgres", "OneTapPostgresTestSupport", "OneTapGateways", "OneTapChildProcess"],
            swiftSettings: strict,
            linkerSettings: [.unsafeFlags(["-Xlinker", "--export-dynamic"], .when(platforms: [.linux]))]
        ),
        // libFuzzer targets for every parser (with ONETAP_FUZZ set, see above and .ci/fuzz), and a replay
        // tool that runs the same invariants over files otherwise (the tests replay the committed corpus).
        .executableTarget(
            name: "OneTapFuzz",
            dependencies: ["OneTap", "OneTapInsights", "OneTapCLI", "OneTapGateways"],
            swiftSettings: strict + fuzz,
            linkerSettings: fuzzing ? [.unsafeFlags(["-sanitize=fuzzer,address", "-use-ld=lld"])] : []
        ),
        // Helper processes for cross-process tests (processes sharing one file store or one database).
        .executableTarget(
            name: "OneTapTestHelper",
            dependencies: ["OneTap", "OneTapPostgres"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "OneTapSupportTests",
            dependencies: ["OneTapSupport"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "OneTapInsightsTests",
            dependencies: ["OneTapInsights", "OneTapTesting", "OneTapChildProcess"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "OneTapCoreTests",
            dependencies: ["OneTapCore"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "OneTapTests",
            dependencies: ["OneTap", "OneTapTesting", "OneTapTestHelper", "OneTapChildProcess"],
            swiftSettings: strict
        ),
        // Against a real server: a private one the tests start (or ONETAP_POSTGRES_URL).
        .testTarget(
            name: "OneTapPostgresTests",
            dependencies: ["OneTapPostgres", "OneTapPostgresTestSupport", "OneTapTesting", "OneTapTestHelper", "OneTapGateways", "OneTapChildProcess"],
            swiftSettings: strict
        ),
        // Against fake vendor servers written in Python 3 (Tests/OneTapGatewaysTests/Fakes), started by the tests.
        .testTarget(
            name: "OneTapGatewaysTests",
            dependencies: ["OneTapGateways", "OneTapTesting", "OneTapChildProcess"],
            exclude: ["Fakes"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "OneTapCLITests",
            dependencies: [
                "OneTapCLI", "OneTapInsights", "OneTapTool", "OneTapDBTool", "OneTapGatewayTool", "OneTapFuzz", "OneTapPostgres", "OneTapPostgresTestSupport",
                "OneTapTesting", "OneTapChildProcess",
            ],
            exclude: ["DecisionTables"],
            swiftSettings: strict
        ),
    ],
    swiftLanguageModes: [.v6]
)

// `ONETAP_TEST_TARGETS="OneTapTests OneTapGatewaysTests"` (what .ci/run sets for its sanitizer runs) keeps
// only those test targets and what they need, so a sanitized build compiles no executable, library or
// suite it will not run. A name that is not a test target of this package stops the build.
if let listed = ProcessInfo.processInfo.environment["ONETAP_TEST_TARGETS"] {
    let wanted = Set(listed.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init))
    let tests = Set(package.targets.filter { $0.type == .test }.map(\.name))
    let unknown = wanted.subtracting(tests).sorted()
    precondition(unknown.isEmpty, "ONETAP_TEST_TARGETS names \(unknown), which are not test targets here; expected some of \(tests.sorted())")
    let byName = Dictionary(uniqueKeysWithValues: package.targets.map { ($0.name, $0) })
    // Plugins run at build time for whichever target uses them: they and their tools always stay.
    var kept = Set<String>()
    var pending = Array(wanted) + package.targets.filter { $0.type == .plugin }.map(\.name)
    while let name = pending.popLast() {
        guard kept.insert(name).inserted, let target = byName[name] else { continue }
        for dependency in target.dependencies {
            switch dependency {
            case .targetItem(let name, _), .byNameItem(let name, _), .productItem(let name, _, _, _): pending.append(name)
            @unknown default: break
            }
        }
    }
    package.targets.removeAll { !kept.contains($0.name) }
    package.products.removeAll { product in
        let targets = (product as? Product.Executable)?.targets ?? (product as? Product.Library)?.targets ?? []
        return !targets.allSatisfy(kept.contains)
    }
}
