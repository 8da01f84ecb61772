import OneTap

/// The help overview and the version. The overview is derived from ``CommandRegistry``: its command list,
/// and which commands take each shared option. A command's own help is its description's
/// ``CommandDescription/help``.
enum Help {
    /// What `onetap --version` prints.
    static let version = "onetap 0.1.0"

    /// What `onetap --help` (and `onetap` alone) prints.
    static let overview = """
        onetap: decide China carrier one-tap login (一键登录) from the command line.

        USAGE: onetap <command> [options] [operands]

        COMMANDS:
        \(CommandRegistry.all.map { "  " + padded($0.name, 9) + $0.summary }.joined(separator: "\n"))

        OPTIONS:
        \(option("--json", "print one JSON object per result per line (NDJSON)", name: "json"))
        \(option("--data DIR", dataText, name: "data"))
        \(option("--policy FILE", policyText, name: "policy"))
          -h, --help        show help (also: onetap <command> --help)
          --version         print the version

        Options and operands may come in any order; --name value and --name=value are the same;
        -- ends the options; an operand that reads as a negative number (-8994014) is a value.
        A single - operand reads one input per line from standard input.

        EXIT STATUS: 0 ok; 1 a check failed (db: the server refused; credential: not valid;
                     gateway: the vendor answered an error); 64 usage error; 65 bad input data
                     (gateway: a malformed answer); 66 input file unreadable; 69 a server that
                     cannot be reached (db, gateway); 70 a tool it runs crashed (db, gateway);
                     74 output write error; 78 a gateway misconfigured (gateway); 129, 130,
                     143 a tool it runs stopped by SIGHUP, SIGINT or SIGTERM (db, gateway).
        """

    /// What `--data` does: the tables it can replace are ``TableLoader/replaceable``'s.
    private static let dataText = "use replacement tables from DIR, under their Data/ names ("
        + TableLoader.replaceable.map { $0.fileName }.joined(separator: ", ") + "); a table missing from DIR stays built in"

    /// What `--policy` does, for the commands that take it.
    private static let policyText =
        "use a replacement routing policy (sms: a replacement SMS policy; quota: a replacement login quota policy; replay: the routing policy to try on the recorded logins)"

    /// The widest line of the overview's option descriptions.
    private static let width = 90
    /// Where an option's description starts.
    private static let column = 20

    /// An option of the overview: its spelling and what it does, then the commands that take it, wrapped.
    private static func option(_ spelling: String, _ text: String, name: String) -> String {
        let indent = String(repeating: " ", count: column)
        let lines = wrapped(text) + wrapped("(" + accepting(name) + ")")
        return "  " + padded(spelling, column - 2) + lines.joined(separator: "\n" + indent)
    }

    /// The text's words in lines that fit between ``column`` and ``width``.
    private static func wrapped(_ text: String) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty, column + line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        return lines + [line]
    }

    /// `every command`, `every command but token and db`, `gate, merge and stats`: the commands that take
    /// an option, in the fewest words.
    private static func accepting(_ name: String) -> String {
        let takers = CommandRegistry.commands(accepting: name)
        let others = CommandRegistry.all.map { $0.name }.filter { !takers.contains($0) }
        if others.isEmpty { return "every command" }
        return others.count < takers.count ? "every command but " + listed(others) : listed(takers)
    }

    /// `a`, `a and b`, `a, b and c`.
    private static func listed(_ names: [String]) -> String {
        names.count < 2 ? names.joined() : names.dropLast().joined(separator: ", ") + " and " + names[names.count - 1]
    }

    /// The text padded with spaces to `width` characters (and one space at least).
    private static func padded(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }
}
