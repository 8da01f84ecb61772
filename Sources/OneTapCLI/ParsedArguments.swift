import OneTapSupport

/// One option a command accepts (a command's ``CommandDescription/options`` lists them): how
/// ``ParsedArguments/parse(_:options:command:)`` sorts it, and, through ``CommandRegistry``, whether an
/// argument before the command's name is an option's value.
struct OptionSpec: Sendable {
    /// The long name without dashes: `json`, `plmn`.
    let name: String
    /// Whether it takes a value (`--plmn 46000` / `--plmn=46000`).
    let takesValue: Bool
    /// Whether it may be given more than once (its values accumulate).
    let repeatable: Bool

    /// A flag: `--json`.
    static func flag(_ name: String) -> OptionSpec { OptionSpec(name: name, takesValue: false, repeatable: false) }
    /// An option with a value: `--plmn 46000`; a repeatable one collects every value (`--mobile`).
    static func value(_ name: String, repeatable: Bool = false) -> OptionSpec {
        OptionSpec(name: name, takesValue: true, repeatable: repeatable)
    }
}

/// A command's arguments sorted into options and operands: what a command's
/// ``CommandDescription/parse(_:)`` reads.
struct ParsedArguments {
    /// Values of value options, in the order given.
    var values: [String: [String]] = [:]
    /// Flags given.
    var flags: Set<String> = []
    /// Operands, in the order given (`-` included).
    var operands: [String] = []
    /// Whether `--help` or `-h` was given.
    var help = false

    /// The single value of an option, if given.
    func value(_ name: String) -> String? { values[name]?.last }

    /// Whether a flag was given.
    func has(_ name: String) -> Bool { flags.contains(name) }

    /// Sorts arguments: options and operands in any order; `--name value` and `--name=value`; `--` ends
    /// the options; `-` is an operand (standard input); an argument that reads as a negative number
    /// (`-8994014`) is an operand, not an option.
    static func parse(_ arguments: ArraySlice<String>, options: [OptionSpec], command: String?) throws(UsageError) -> ParsedArguments {
        var parsed = ParsedArguments()
        var index = arguments.startIndex
        var optionsEnded = false
        while index < arguments.endIndex {
            let argument = arguments[index]
            index += 1
            if optionsEnded || argument == "-" || !argument.hasPrefix("-") || isNegativeNumber(argument) {
                parsed.operands.append(argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            if argument == "-h" || argument == "--help" {
                parsed.help = true
                continue
            }
            guard argument.hasPrefix("--") else {
                throw UsageError("unknown option \(quotedAction(argument)); options are spelled --name", command: command)
            }
            let body = argument.dropFirst(2)
            let name: String
            var inlineValue: String? = nil
            if let equals = body.firstIndex(of: "=") {
                name = String(body[..<equals])
                inlineValue = String(body[body.index(after: equals)...])
            } else {
                name = String(body)
            }
            guard let spec = options.first(where: { $0.name == name }) else {
                let known = options.map { "--" + $0.name }.joined(separator: ", ")
                let takes = command == nil ? "no command takes it" : "this command takes \(known.isEmpty ? "no options" : known)"
                throw UsageError("unknown option \(quotedAction("--" + name)); \(takes)", command: command)
            }
            if spec.takesValue {
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else {
                    guard index < arguments.endIndex else {
                        throw UsageError("option --\(name) needs a value", command: command)
                    }
                    value = arguments[index]
                    index += 1
                }
                if !spec.repeatable, parsed.values[name] != nil {
                    throw UsageError("option --\(name) is given twice", command: command)
                }
                parsed.values[name, default: []].append(value)
            } else {
                guard inlineValue == nil else {
                    throw UsageError("option --\(name) takes no value", command: command)
                }
                guard parsed.flags.insert(name).inserted else { throw UsageError("option --\(name) is given twice", command: command) }
            }
        }
        return parsed
    }

    /// `-8994014`, `-1`: a minus sign followed by a digit.
    static func isNegativeNumber(_ argument: String) -> Bool {
        let utf8 = argument.utf8
        guard utf8.count >= 2, utf8.first == UInt8(ascii: "-") else { return false }
        let second = utf8[utf8.index(after: utf8.startIndex)]
        return second >= UInt8(ascii: "0") && second <= UInt8(ascii: "9")
    }
}

/// An argument quoted for a message.
func quoted(_ text: String) -> String {
    "'\(text.unicodeScalars.map { $0.isUnsafeToShow ? "\\u{\(String($0.value, radix: 16))}" : String($0) }.joined())'"
}

/// An argument that stands where a command's action goes, for a message: quoted when it looks like an
/// action's name (1 to 32 lower-case letters and hyphens), else only its length, for where a token or a code
/// may be typed by mistake (`onetap credential "$TOKEN"`): such an argument is never repeated.
func quotedAction(_ text: String) -> String {
    QuotedInput.unlessSecret(text, as: "an argument") { ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || $0 == UInt8(ascii: "-") } ?? quoted(text)
}

/// Reads an enumerated option value.
func choice<Value: RawRepresentable & CaseIterable>(
    _ parsed: ParsedArguments, _ name: String, command: String
) throws(UsageError) -> Value? where Value.RawValue == String {
    guard let text = parsed.value(name) else { return nil }
    guard let value = Value(rawValue: text) else {
        throw UsageError(
            "option --\(name) must be one of \(Value.allCases.map(\.rawValue).joined(separator: ", ")), not \(quoted(text))",
            command: command)
    }
    return value
}
