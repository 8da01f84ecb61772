// OneTap: a pure-Swift decision engine for China's carrier one-tap login (一键登录).
//
// Two modules, layered so the compiler keeps them apart (as swift-nio keeps NIOCore apart):
//
//   OneTap       async   TokenVault (run), TokenManager and the token stores; LoginCoordinator, ChannelHealth;
//                        the event sink; reading replacement tables from disk. Time enters through an
//                        injected `WallClock`, I/O through stores and provider protocols.
//   ─────────────────────────────────────────────────────────────────────────────────────────────
//   OneTapCore   pure    carriers, outcomes, routing, the decision engine, token policy, the tables
//                        embedded from Data/*.csv: values in, values out, no clock, no I/O.
//
// `import OneTap` is the one line a user writes: it re-exports OneTapCore.
@_exported import OneTapCore
