import Foundation
import OneTap
import OneTapGateways
import OneTapSupport

/// `sign`, `exchange`, `verify` and `sms` on one built gateway: each prints its lines (or one JSON object) and returns
/// the exit status, or throws the ``ToolFailure`` that stops it.
struct GatewayCall {
    let gateway: String
    let built: BuiltGateway
    /// What the gateway's registration can do (what `built` does is `built.roles`: cmcc verifies only with `appKey`).
    let can: [GatewayCapability]
    let json: Bool
    /// The flow `--flow` named, if any.
    let flow: LoginFlow?

    /// The flow a call's token is of: the one `--flow` named, when the gateway takes its tokens, else the gateway's own.
    private func flow(_ own: LoginFlow) throws(ToolFailure) -> LoginFlow {
        guard let flow, flow != own else { return own }
        guard built.flows.contains(flow) else {
            throw ToolFailure("\(gateway) takes \(own) tokens only; --flow \(flow) is for the aggregators (aliyun-pnvs, jverification, shanyan, yidun)", .usage)
        }
        return flow
    }

    /// A usage error: the gateway, as its object configures it, does not do this; when another configuration of it
    /// would (cmcc verifies with `appKey`), the message says so.
    private func doesNot(_ action: String, _ capability: GatewayCapability) -> ToolFailure {
        let does = built.roles.map(\.rawValue).joined(separator: ", ")
        if can.contains(capability) {
            return ToolFailure("\(gateway) does not \(action) as configured (it does: \(does); see 'onetap gateway check')", .usage)
        }
        return ToolFailure("\(gateway) does not \(action) (it does: \(does))", .usage)
    }

    /// Shows what a gateway signs.
    /// - Parameters:
    ///   - fields: The request's values given.
    ///   - secrets: The names of the fields whose values are secrets (read from standard input): each shown as `<name>`
    ///     where it stands in the string signed, as written and as the gateways encode it (every occurrence: a short SMS
    ///     code may hide a digit run more, never show one).
    func sign(_ fields: [String: String], secrets: [String]) async throws(ToolFailure) -> Int32 {
        guard let preview = built.signPreview else { throw ToolFailure("\(gateway) shows no sign preview", .usage) }
        let result: SignPreview
        do { result = try preview(fields) } catch { throw ToolFailure("\(error) (see 'onetap gateway sign --help')", .usage) }
        var shown = result.stringToSign
        // The longest first: a value inside another (an access token inside a joined token) is hidden whole.
        let forms = secrets.flatMap { name in
            fields[name].map { value in [value, AliyunSignatureV3.percentEncode(value), FormEncoding.encode(value)].map { (name, $0) } } ?? []
        }
        for (name, form) in forms.filter({ !$0.1.isEmpty }).sorted(by: { $0.1.count > $1.1.count }) {
            shown = shown.replacing(form, with: "<\(name)>")
        }
        if json {
            print(object { writer in
                writer.member("gateway", gateway)
                writer.member("algorithm", result.algorithm)
                writer.member("stringToSign", shown)
                writer.member("signature", result.signature)
            })
        } else {
            ToolExit.print(["gateway    \(gateway)", "algorithm  \(result.algorithm)", "signed     \(shown)", "signature  \(result.signature)"])
        }
        return 0
    }

    func exchange(_ token: Secret) async throws(ToolFailure) -> Int32 {
        guard let (provider, own) = built.exchange else { throw doesNot("exchange", .exchange) }
        let flow = try flow(own)
        let response: ExchangeResponse
        do { response = try await provider.exchange(CarrierCredential(flow: flow, token: token)) } catch { throw ToolExit.failure(error) }
        let entry = ExchangeCodeTable.builtIn.entry(for: flow, gateway: gateway, code: response.code)
        let number = response.phoneNumber?.masked
        if json {
            print(object(flow: flow, code: response.code) { writer in
                writer.member("action", entry.action.rawValue)
                writer.member("alert", entry.alert)
                writer.member("meaning", entry.meaningEN)
                writer.member("meaningZh", entry.meaningZH)
                writer.member("number", number)
            })
        } else {
            ToolExit.print([
                "gateway  \(gateway) (\(flow.rawValue))", "code     \(response.code.text)", "action   \(entry.action.rawValue)\(entry.alert ? " (alert)" : "")",
                "meaning  \(entry.meaningEN) (\(entry.meaningZH))", "number   \(number ?? "none")",
            ])
        }
        return entry.action == .success ? 0 : ToolExit.Code.vendorError.rawValue
    }

    func verify(_ token: Secret, number: PhoneNumber?) async throws(ToolFailure) -> Int32 {
        guard let (provider, own) = built.verification else { throw doesNot("verify numbers", .verify) }
        let flow = try flow(own)
        guard let number else { throw ToolFailure("onetap gateway verify needs --number N", .usage) }
        let response: NumberVerificationResponse
        do { response = try await provider.verify(CarrierCredential(flow: flow, token: token), number: number) } catch { throw ToolExit.failure(error) }
        // The row the provider's verdict came from (Data/verification-codes.csv); every built-in verifier has rows.
        let entry = VerificationCodeTable.builtIn.entry(gateway: gateway, code: response.code.text, verdict: response.verdict.rawValue)
        let meaningZH = entry.flatMap { $0.meaningZH.isEmpty ? nil : $0.meaningZH }
        if json {
            print(object(flow: flow, code: response.code) { writer in
                writer.member("verdict", response.verdict.rawValue)
                writer.member("meaning", entry?.meaningEN)
                writer.member("meaningZh", meaningZH)
                writer.member("number", number.masked)
            })
        } else {
            let meaning = entry.map { ["meaning  \($0.meaningEN)" + (meaningZH.map { " (\($0))" } ?? "")] } ?? []
            ToolExit.print(
                ["gateway  \(gateway) (\(flow.rawValue))", "code     \(response.code.text)", "verdict  \(response.verdict.rawValue)"] + meaning
                    + ["number   \(number.masked)"])
        }
        return response.verdict == .pass ? 0 : ToolExit.Code.vendorError.rawValue
    }

    func sms(to number: PhoneNumber?, code: Secret, at now: Date) async throws(ToolFailure) -> Int32 {
        guard let sender = built.sms else { throw doesNot("send SMS", .sms) }
        guard let number else { throw ToolFailure("onetap gateway sms needs --to N", .usage) }
        let message = SMSMessage(number: number, code: code, expiresAt: now.addingTimeInterval(SMSCodeRules.lifetime.seconds), session: nil)
        do {
            try await sender.send(message)
        } catch let error as SMSDeliveryError {
            // The error's message is the code's meaning, which quotes no number, code sent or secret.
            report(number: number, outcome: error.reason.rawValue, code: error.code, meaning: error.message)
            return ToolExit.Code.vendorError.rawValue
        } catch {
            throw ToolExit.failure(error)
        }
        report(number: number, outcome: "sent", code: nil, meaning: nil)
        return 0
    }

    /// `sms`'s answer: the outcome, the vendor's code and its meaning (none when sent), the number masked.
    private func report(number: PhoneNumber, outcome: String, code: String?, meaning: String?) {
        if json {
            print(object { writer in
                writer.member("gateway", gateway)
                writer.member("outcome", outcome)
                writer.member("code", code)
                writer.member("meaning", meaning)
                writer.member("number", number.masked)
            })
        } else {
            ToolExit.print(
                ["gateway  \(gateway)", "outcome  \(outcome)", "code     \(code ?? "none")"] + (meaning.map { ["meaning  \($0)"] } ?? [])
                    + ["number   \(number.masked)"])
        }
    }

    /// `{"gateway":"cmcc","flow":"mobile","code":"103000",…}`: a call's answer, its own members after these.
    private func object(flow: LoginFlow, code: ResultCode, _ body: (inout JSONWriter) -> Void) -> String {
        object { writer in
            writer.member("gateway", gateway)
            writer.member("flow", flow.rawValue)
            writer.member("code", code.text)
            body(&writer)
        }
    }

    private func object(_ body: (inout JSONWriter) -> Void) -> String {
        var writer = JSONWriter()
        writer.object(body)
        return writer.text
    }
}
