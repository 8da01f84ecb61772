/// The one shape of every extensible error kind in OneTap: a stable id, for the error type `Failure`
/// (`ParseError.Kind` is `ErrorKind<ParseError>`, `StoreError.Kind` is `ErrorKind<StoreError>`, and so on).
///
/// Only OneTap makes kinds (each error's kinds are `static let` members of a constrained extension), so a
/// later release can add one without breaking a `switch`: match kinds with `==` or a `switch` that has a
/// `default`. Its ``id`` is stable, lowercase and hyphenated, for logs, JSON and metrics.
public struct ErrorKind<Failure>: Hashable, Sendable, CustomStringConvertible {
    /// The stable identifier, e.g. `"wrong-length"`.
    public let id: String

    /// A kind of `Failure` (the error types' own extensions make them).
    package init(_ id: String) { self.id = id }

    /// The identifier: kinds read the same in messages, logs and JSON.
    public var description: String { id }
}
