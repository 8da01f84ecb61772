/// The one shape of every extensible error kind in OneTap (``ParseError/Kind``, ``ParseError/Subject``,
/// ``TableError/Kind``, and the token and store error kinds of `OneTap`).
///
/// A kind is a struct with a private initialiser and `static let` members, so only OneTap makes kinds
/// and a later release can add one without breaking a `switch`: match kinds with `==` or a `switch`
/// that has a `default`. Its ``id`` is stable, lowercase and hyphenated, for logs, JSON and metrics.
public protocol ErrorKind: Hashable, Sendable, CustomStringConvertible {
    /// The stable identifier, e.g. `"wrong-length"`.
    var id: String { get }
}

extension ErrorKind {
    /// The identifier: kinds read the same in messages, logs and JSON.
    public var description: String { id }
}
