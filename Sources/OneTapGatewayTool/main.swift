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
import OneTapSupport

StandardStream.ignoreBrokenPipes()
exit(await GatewayTool.run(Array(CommandLine.arguments.dropFirst())))
