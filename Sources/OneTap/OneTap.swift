// OneTap: a pure-Swift decision engine for China's carrier one-tap login (一键登录).
//
// The module is layered; each folder depends only on the folders listed below it:
//
//   Coordinator/  async   LoginCoordinator runs a LoginPlan over provider protocols; ChannelHealth; events
//   Tokens/       async   TokenVault / TokenManager actors over a TokenStore (memory, file); TokenPolicy
//   ───────────────────────────────────────────────────────────────────────────────────────────────
//   Engine/       pure    LoginDecisionEngine: plan(for:) and next(after:code:in:)
//   Routing/      pure    DeviceSnapshot, carrier evidence, RoutingPolicy, LoginPlan
//   Outcomes/     pure    ResultCode, OutcomeAction, OutcomeTable
//   Carriers/     pure    Carrier, LoginFlow, PLMN, PhoneNumber, IPAddress and their tables
//   Tables/       pure    the CSV reader, TableError, and the tables embedded from Data/*.csv
//   Support/      pure    ParseError, Secret, WallClock: the vocabulary every layer shares
//
// Pure layers hold no clocks, no I/O and no global mutable state. Time enters only through an injected
// `WallClock`; I/O only through `TokenStore`s and the provider protocols.
