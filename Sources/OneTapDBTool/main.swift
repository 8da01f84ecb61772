// onetap-db: what `onetap db` runs. The one part of the command-line tool that links libpq (and the TLS,
// Kerberos and LDAP libraries libpq brings), kept out of `onetap` so that every other command starts
// without loading them. `onetap db migrate …` and `onetap db reconcile …` check their arguments, then run
// this tool beside itself with them in one form:
//
//   onetap-db migrate --url - [--schema NAME] [--json]
//   onetap-db reconcile --url - [--schema NAME] [--older-than SECONDS] [--json]
//
// with the URL as one line on standard input (`--url -`), so that its password is on no command line.
// It prints what `onetap db` prints and exits as it does: 0 migrated, current or listed; 1 the server
// refused (or the schema is older than this OneTap: migrate first); 64 an argument it cannot use (an
// invalid URL or schema); 69 the server cannot be reached. The URL's password is never printed.

import Foundation
import OneTapSupport

StandardStream.ignoreBrokenPipes()
exit(await DBTool.run(Array(CommandLine.arguments.dropFirst())))
