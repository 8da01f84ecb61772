import OneTap

/// The verdicts of the number-verification providers, read from `Data/verification-codes.csv`
/// (``VerificationCodeTable``) by the gateway's name and the answer's code: one place for what a code says of the
/// number.
package enum VerificationVerdicts {
    /// The verdict of an answer.
    ///
    /// A code the table lists by value (aliyun-pnvs `OK/PASS`) takes its verdict from the member `value` reads, which
    /// is read only then; any other code takes its own row's verdict, else the gateway's `*` row's.
    /// - Parameters:
    ///   - gateway: The gateway's configuration name (`cmcc`).
    ///   - code: The answer's code as it came.
    ///   - member: The member holding the value, as the error names it (`data.isVerify`, `a VerifyResult of`).
    ///   - value: Reads the member's value from the answer (nil when it is missing).
    /// - Returns: The verdict.
    /// - Throws: ``GatewayError`` `malformedBody` for a code listed by value whose answer holds none of its listed
    ///   values (`200 without data.result 1, 2 or 3`), or what `value` throws.
    package static func verdict(
        gateway: String, code: ResultCode, member: String, value: () throws(GatewayError) -> String?
    ) throws(GatewayError) -> NumberVerdict {
        let table = VerificationCodeTable.builtIn
        guard table.takesValue(gateway: gateway, code: code.text) else { return verdict(table.entry(gateway: gateway, code: code.text)) }
        guard let found = try value(), let entry = table.entry(gateway: gateway, code: code.text, value: found) else {
            let values = table.values(gateway: gateway, code: code.text)
            let listed = values.count > 1 ? values.dropLast().joined(separator: ", ") + " or " + values[values.count - 1] : values.joined()
            throw GatewayError(gateway: gateway, .malformedBody("\(code.text) without \(member) \(listed)"))
        }
        return verdict(entry)
    }

    /// The verdict of an answer whose gateway lists no code by value (cmcc, jverification): the code's own row's
    /// verdict, else the gateway's `*` row's.
    /// - Parameters:
    ///   - gateway: The gateway's configuration name.
    ///   - code: The answer's code as it came.
    /// - Returns: The verdict.
    /// - Throws: ``GatewayError`` `malformedBody` when the table lists the code by value, whose value such a gateway
    ///   cannot give.
    package static func verdict(gateway: String, code: ResultCode) throws(GatewayError) -> NumberVerdict {
        try verdict(gateway: gateway, code: code, member: "its value of") { () throws(GatewayError) in nil }
    }

    /// A row's verdict; a gateway the table does not list cannot tell (`unknown`).
    private static func verdict(_ entry: VerificationCodeTable.Entry?) -> NumberVerdict {
        entry.flatMap { NumberVerdict(rawValue: $0.verdict) } ?? .unknown
    }
}
