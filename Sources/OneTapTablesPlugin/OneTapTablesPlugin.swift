import Foundation
import PackagePlugin

/// Turns every `Data/*.csv` table into Swift source at build time, so the CSV files stay the only copy
/// of the tables and the `OneTap` module carries them without a resource bundle.
@main
struct OneTapTablesPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) async throws -> [Command] {
        let dataDirectory = context.package.directoryURL.appending(path: "Data")
        let names = try FileManager.default.contentsOfDirectory(atPath: dataDirectory.path(percentEncoded: false))
            .filter { $0.hasSuffix(".csv") }
            .sorted()
        let inputs = names.map { dataDirectory.appending(path: $0) }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedTables.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(names.count) OneTap tables from Data/",
                executable: try context.tool(named: "OneTapTableGenerator").url,
                arguments: [output.path(percentEncoded: false)] + inputs.map { $0.path(percentEncoded: false) },
                inputFiles: inputs,
                outputFiles: [output]
            )
        ]
    }
}
