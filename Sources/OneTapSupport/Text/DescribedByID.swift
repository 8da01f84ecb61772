/// A value that reads as its id, its raw value (`"newest-first"`, `"cellular"`): in messages, logs and
/// files alike, so a value is never written one way and described another.
package protocol DescribedByID: RawRepresentable, CustomStringConvertible where RawValue == String {}

extension DescribedByID {
    /// The id, e.g. `"newest-first"`.
    package var description: String { rawValue }
}
