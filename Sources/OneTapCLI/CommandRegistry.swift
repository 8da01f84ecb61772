/// Every `onetap` command, in one list: what the help overview shows, what the command line dispatches
/// to, and where the options that may stand before a command's name come from.
enum CommandRegistry {
    /// The commands, in the order the help overview lists them. A new command is one more description
    /// here (see ``CommandDescription``).
    static let all: [any CommandDescription.Type] = [
        CarrierCommand.self,
        NumberCommand.self,
        RouteCommand.self,
        OutcomeCommand.self,
        SimulateCommand.self,
        CheckCommand.self,
        SessionCommand.self,
        SMSCommand.self,
        QuotaCommand.self,
        GateCommand.self,
        MergeCommand.self,
        TokenCommand.self,
        CredentialCommand.self,
        StatsCommand.self,
        ReplayCommand.self,
        DBCommand.self,
        GatewayCommand.self,
    ]

    /// The command of a name.
    /// - Parameter name: The name on the command line.
    /// - Returns: Its description, or nil when no command has that name.
    static func command(named name: String) -> (any CommandDescription.Type)? {
        all.first { $0.name == name }
    }

    /// `carrier, number, …, db`: the names, for a usage error.
    static var names: String { all.map { $0.name }.joined(separator: ", ") }

    /// The commands that accept an option, in the registry's order.
    /// - Parameter option: The option's name without dashes.
    /// - Returns: Their names.
    static func commands(accepting option: String) -> [String] {
        all.filter { $0.options.contains { $0.name == option } }.map { $0.name }
    }

    /// Every command's options, each name once (repeatable when any command repeats it): what may stand on a command
    /// line that names no command (`onetap --json --help`).
    static let everyOption: [OptionSpec] = {
        var seen: [String: Int] = [:]
        var options: [OptionSpec] = []
        for option in all.flatMap({ $0.options }) {
            if let index = seen[option.name] {
                options[index] = OptionSpec(name: option.name, takesValue: options[index].takesValue, repeatable: options[index].repeatable || option.repeatable)
            } else {
                seen[option.name] = options.count
                options.append(option)
            }
        }
        return options
    }()

    /// `--data`, `--plmn`, …: the options of any command that take a value, spelled as on the command line.
    static let valueOptions: Set<String> = Set(all.flatMap { $0.options }.filter(\.takesValue).map { "--" + $0.name })

    /// Where the command's name stands: the first argument that is not an option or an option's value
    /// (options may come before the command: `onetap --json carrier 46000`, `onetap --data DIR route`).
    /// - Parameter arguments: The arguments after the program name.
    /// - Returns: The index of the command's name, or nil when there are only options.
    static func commandPosition(_ arguments: [String]) -> Int? {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" { return index + 1 < arguments.count ? index + 1 : nil }
            if argument == "-" || !argument.hasPrefix("-") { return index }
            index += valueOptions.contains(argument) ? 2 : 1
        }
        return nil
    }
}
