// onetap-gateway: what `onetap gateway` runs. The one part of the command-line tool that links OpenSSL's libcrypto
// (through OneTapGateways), kept out of `onetap` so that every other command starts without it. `onetap gateway …`
// checks its arguments, then runs this tool beside itself with them in one form:
//
//   onetap-gateway check --config FILE [--json]
//   onetap-gateway sign GATEWAY --config FILE [--field NAME=VALUE]... [--field SECRET=-]... [--json]
//   onetap-gateway exchange GATEWAY --config FILE --token - [--flow F] [--json]
//   onetap-gateway verify GATEWAY --config FILE --token - --number N [--flow F] [--json]
//   onetap-gateway sms GATEWAY --config FILE --to N --param - [--json]
//
// with the token (the SMS code; each secret field of sign, in the order given) as one line on standard input, so that
// no secret is on a command line. It prints
// what `onetap gateway` prints and exits as it does (see GatewayCommand's help): 0 ok, 1 the vendor answered an error,
// 64 usage, 65 a malformed answer, 69 unreachable, 78 a configuration that cannot be used.

import Foundation
import OneTap
import OneTapGateways

StandardStream.ignoreBrokenPipes()
let arguments = Array(CommandLine.arguments.dropFirst())
let request = ToolRequest.parse(arguments)
let configuration: GatewayConfigurationFile
do {
    configuration = try GatewayConfigurationFile(contentsOf: request.config)
} catch {
    ToolExit.fail("\(error) (see 'onetap gateway --help')", .config)
}

if request.action == "check" {
    let report = GatewayCheck.run(configuration, file: request.config)
    ToolExit.print(request.json ? [report.json] : report.lines)
    exit(report.allOK ? 0 : ToolExit.Code.config.rawValue)
}

guard let registration = GatewayRegistry.registration(named: request.gateway) else {
    ToolExit.fail("\(request.gateway) is not built into this onetap (built in: \(GatewayRegistry.names))", .usage)
}
let built: BuiltGateway
do {
    built = try registration.build(try configuration.settings(request.gateway), CallTransport(), SystemClock())
} catch {
    ToolExit.fail("\(error) (see 'onetap gateway check')", .config)
}
let call = GatewayCall(gateway: request.gateway, built: built, can: registration.capabilities, json: request.json, flow: request.flow)
switch request.action {
case "sign":
    // A field given as `-` (a secret one: `onetap gateway` takes those from standard input only) is its one line.
    var fields = request.fields
    for name in request.fromStandardInput { fields[name] = ToolExit.secretLine("--field \(name)").reveal() }
    await call.sign(fields, secrets: request.fromStandardInput)
case "exchange": await call.exchange(ToolExit.secretLine("--token"))
case "verify": await call.verify(ToolExit.secretLine("--token"), number: request.number)
default: await call.sms(to: request.to, code: ToolExit.secretLine("--param"))
}
