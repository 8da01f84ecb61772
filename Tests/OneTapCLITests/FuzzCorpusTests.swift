import Foundation
import Testing

/// The committed fuzz corpus (`Tests/FuzzCorpus/<target>/`) replayed through each target's invariants
/// by the `OneTapFuzz` replay tool, so an input that once found a bug keeps being checked by `swift test`,
/// not only by `.ci/fuzz`.
@Suite struct FuzzCorpusTests {
    static let corpus = Package.path("Tests/FuzzCorpus")

    /// Every target directory in the corpus, or the listing's failure (which fails the test below).
    static let targets: Result<[String], any Error> = Result {
        try FileManager.default.contentsOfDirectory(atPath: corpus).sorted()
    }

    /// The targets listed; none when the listing failed (`everyFuzzTargetHasACorpus` then fails).
    static var listed: [String] { if case .success(let targets) = targets { targets } else { [] } }

    @Test func everyFuzzTargetHasACorpus() throws {
        #expect(try Self.targets.get() == ["app-session", "cli-args", "code", "events", "ip", "phone", "plmn", "session", "session-json", "sha256", "snapshot", "tables", "token-record"])
    }

    @Test(arguments: listed)
    func corpusKeepsEveryInvariant(target: String) async throws {
        let run = try await Binary.run([target, Self.corpus + "/" + target], executable: "OneTapFuzz")
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.hasPrefix("\(target): ") && run.stdout.hasSuffix(" 0 broken invariants\n"), "\(run.stdout)")
    }
}
