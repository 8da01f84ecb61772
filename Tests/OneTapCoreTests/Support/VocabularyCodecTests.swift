import Testing
@testable import OneTapCore

/// One codec (issue 19): OneTap's values are written and read by the package's JSON reader and writer,
/// and each has a text form (`description`, `init(_:)`) for a store or a log. They have no `Codable` form
/// of their own, which would be a second encoding to keep stable.
@Suite struct VocabularyCodecTests {
    @Test func theVocabularyIsNotCodable() {
        let types: [(String, Any.Type)] = [
            ("IPAddress", IPAddress.self), ("PLMN", PLMN.self), ("DeviceID", DeviceID.self), ("ExpiresIn", ExpiresIn.self),
            ("GuestID", GuestID.self), ("ResultCode", ResultCode.self), ("PhoneNumber", PhoneNumber.self), ("AccountID", AccountID.self),
            ("LoginSessionID", LoginSessionID.self), ("Platform", Platform.self), ("FlowSequence", FlowSequence.self),
            ("Decision.Step", Decision.Step.self),
        ]
        for (name, type) in types {
            #expect(!(type is any Encodable.Type), "\(name) is Encodable")
            #expect(!(type is any Decodable.Type), "\(name) is Decodable")
        }
    }
}
