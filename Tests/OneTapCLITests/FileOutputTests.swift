#if canImport(Glibc)
import Glibc
#endif
import Foundation
import OneTapTesting
@testable import OneTapCLI
import Testing

/// `FileOutput`, which writes a chart through a temporary file renamed over the target.
@Suite struct FileOutputTests {
    /// In a folder others can write to, a symbolic link planted where the temporary file will be must not make
    /// the write go through it (an attacker's read: the temporary name was `<path>.onetap-<pid>`, opened with
    /// `O_CREAT | O_TRUNC` and no `O_EXCL` or `O_NOFOLLOW`, so a planted link's target was overwritten).
    @Test func aLinkPlantedWhereTheTemporaryFileGoesIsNeverWrittenThrough() async throws {
        try await TemporaryDirectory.with("onetap-output") { directory in
            let victim = directory.appendingPathComponent("victim").path
            try "precious\n".write(toFile: victim, atomically: true, encoding: .utf8)
            let chart = directory.appendingPathComponent("chart.svg").path
            // Where the old scheme put its temporary file, for this process (FileOutput runs in it here).
            #expect(symlink(victim, chart + ".onetap-\(getpid())") == 0)
            try FileOutput.write("<svg/>\n", to: chart, what: "chart")
            #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious\n")
            #expect(try String(contentsOfFile: chart, encoding: .utf8) == "<svg/>\n")
            // Nothing of ours is left beside it: only the chart, the victim and the planted link.
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == ["chart.svg", "chart.svg.onetap-\(getpid())", "victim"])
        }
    }
}
