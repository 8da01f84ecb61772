// OneTap: a pure-Swift decision engine for China's carrier one-tap login (一键登录).
//
// Modules layered so the compiler keeps them apart (as swift-nio keeps NIOCore apart from sockets):
//
//   OneTap          async   the auth server's login (LoginServer), the SMS code service, guests and merges,
//                           TokenVault, the device-side LoginCoordinator and ChannelHealth, the in-memory and
//                           file stores, event sinks, and the one place that draws from the system CSPRNG.
//                           Time enters through an injected `WallClock`, I/O through stores and providers.
//   ─────────────────────────────────────────────────────────────────────────────────────────────────────
//   OneTapCore      pure    carriers, routing, outcomes, the decision engine, the login session machine,
//                           SMS rules, gates, merge plans, token policy, the tables embedded from Data/*.csv:
//                           values in, values out; no clock, no randomness, no I/O.
//   OneTapSupport   package the JSON reader and writer, time, SHA-256/HMAC/Base64 (public: the vocabulary
//                           types Secret, ParseError, ErrorKind, JSONValue, SHA256Digest).
//
// Beside it: OneTapInsights (the event stream counted), OneTapPostgres (the stores on libpq) and
// OneTapTesting (test doubles and conformance suites), each a product of its own.
//
// `import OneTap` is the one line a user writes: it re-exports OneTapCore (and OneTapCore the vocabulary).
@_exported import OneTapCore
