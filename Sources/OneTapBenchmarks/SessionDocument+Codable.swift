import Foundation
import OneTap

// The `Codable` forms `SessionDocument` reads and writes its members with: the benchmark's own, since
// OneTap's values have no `Codable` form (one codec, issue 19). Each is the value's text form, parsed as
// the library parses it, so the reference does the same work per member as `LoginSession(json:)`.

/// A value whose `Codable` form, in the reference, is its text form (a JSON string).
public protocol TextCodable: Codable, CustomStringConvertible {
    /// Reads the text form.
    static func parse(_ text: String) throws -> Self
}

extension TextCodable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            self = try Self.parse(text)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(error)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

extension PhoneNumber: TextCodable {
    public static func parse(_ text: String) throws -> PhoneNumber { try PhoneNumber(text) }
}

extension AccountID: TextCodable {
    public static func parse(_ text: String) throws -> AccountID { try AccountID(text) }
}

extension LoginSessionID: TextCodable {
    public static func parse(_ text: String) throws -> LoginSessionID { try LoginSessionID(text) }
}

extension Platform: TextCodable {
    public static func parse(_ text: String) throws -> Platform { try Platform(text) }
}

extension Decision.Step: TextCodable {
    public static func parse(_ text: String) throws -> Decision.Step {
        guard let step = Decision.Step(text) else { throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "not a step: \(text)")) }
        return step
    }
}

extension FlowSequence: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let flows = try container.decode([LoginFlow].self)
        if let problem = FlowSequence.validate(flows) { throw DecodingError.dataCorruptedError(in: container, debugDescription: problem) }
        self.init(unchecked: flows)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(Array(self))
    }
}
