import Foundation
import OneTap

/// Judges a gateway's HTTP answer before its fields are read: the status, the content type and the JSON, each
/// failure a ``GatewayError`` naming the gateway and what was wrong, never the body.
package enum GatewayAnswer {
    /// The longest answer body any gateway accepts: 16 KiB. Every vendor's answer is a small JSON object (a code, a
    /// number, an id); a longer body is an error page or worse, and is cut off unread.
    package static let maximumBytes = 16_384

    /// The JSON object an answer holds. A 2xx body that is a JSON object is read whatever its content type: most
    /// vendors' documents name none, and the answer to a billed call (a number, a rotated refresh token) must not be
    /// thrown away for its label; the content type names what came only when the body is no JSON object.
    /// - Parameters:
    ///   - response: The answer.
    ///   - gateway: The gateway's name, for errors.
    ///   - contentTypes: The media types expected (`application/json`), compared without regard to case and
    ///     without their parameters (`; charset=UTF-8`).
    /// - Returns: The object's members.
    /// - Throws: ``GatewayError``: `httpStatus` outside 200–299; `bodyTooLarge` for a body longer than
    ///   ``maximumBytes`` (read by no one, whatever transport let it through); for a body that is not UTF-8, not JSON,
    ///   or not an object, `wrongContentType` when its content type is none of those expected, else `malformedBody`.
    package static func jsonObject(_ response: HTTPResponse, gateway: String, contentTypes: [String]) throws(GatewayError) -> [String: JSONValue] {
        guard (200...299).contains(response.status) else { throw GatewayError(gateway: gateway, .httpStatus(response.status)) }
        guard response.body.count <= maximumBytes else { throw GatewayError(gateway: gateway, .bodyTooLarge(limit: maximumBytes)) }
        let contentType = response.header("content-type")
        let mediaType = contentType.map { String($0.prefix { $0 != ";" }).trimmingCharacters(in: .whitespaces).lowercased() }
        let expected = mediaType.map { type in contentTypes.contains { $0.lowercased() == type } } ?? false
        func refused(_ reason: String) -> GatewayError {
            GatewayError(gateway: gateway, expected ? .malformedBody(reason) : .wrongContentType(contentType.map { DisplayText.label($0, limit: 80) }))
        }
        guard let text = String(validating: response.body, as: UTF8.self) else { throw refused("the body is not UTF-8 (\(response.body.count) bytes)") }
        let value: JSONValue
        do {
            value = try JSONValue.parse(text)
        } catch {
            throw refused("the body is not JSON (\(response.body.count) bytes)")
        }
        guard let object = value.objectValue else { throw refused("the body is JSON but not an object") }
        return object
    }

    /// What an exchange adapter makes of an answer's code and the number it may carry: for a code the built-in table
    /// calls a success the number is read strictly (missing, unbound to this request or unreadable, the answer is at
    /// fault); for another code that carries a number (one a replacement table may call a success) the number is taken
    /// only when it reads cleanly, else the code comes back without it, so a refusal with junk in its number field
    /// stays the refusal its row says, never a gateway error (a review: such a refusal became `malformedBody`, its
    /// ledger entry unknown and its row's retry or alert lost).
    /// - Parameters:
    ///   - code: The answer's code.
    ///   - gateway: The gateway's name.
    ///   - carried: The answer's number field as text, read leniently.
    ///   - without: The answer without a number.
    ///   - read: Reads the answer with its number (the binding checks first), throwing when it cannot.
    /// - Returns: The answer.
    /// - Throws: What `read` throws, for a code the built-in table calls a success only.
    package static func numbered<Answer>(
        _ code: ResultCode, gateway: String, carried: String?, without: () -> Answer, _ read: () throws(GatewayError) -> Answer
    ) throws(GatewayError) -> Answer {
        let success = ExchangeCodeTable.returnsTheNumber(code, gateway: gateway)
        guard success || !(carried ?? "").isEmpty else { return without() }
        do {
            return try read()
        } catch {
            if success { throw error }
            return without()
        }
    }

    /// A member holding text: a JSON string; or a whole number (some gateways send codes as numbers) where
    /// `acceptingNumbers` says so.
    /// - Parameters:
    ///   - object: The answer's members.
    ///   - names: The member's names, tried in order (a document that spells it two ways: `resultCode`,
    ///     `resultcode`).
    ///   - gateway: The gateway's name, for errors.
    ///   - acceptingNumbers: Whether a whole number reads as its digits: true for codes, flags and ids kept for support;
    ///     false by default, for what the vendor's document gives as a string and a login rests on (a phone number, the
    ///     echo of this request's id), so an answer that is not the document's is refused, never read into one.
    /// - Returns: The text, or nil when no name is present (or it is `null`).
    /// - Throws: ``GatewayError/Kind/malformedBody(_:)`` naming the member when it holds anything else.
    package static func text(
        _ object: [String: JSONValue], _ names: String..., gateway: String, acceptingNumbers: Bool = false
    ) throws(GatewayError) -> String? {
        for name in names {
            switch object[name] {
            case nil, .null?:
                continue
            case .string(let text)?:
                return text
            case .number(let number)? where acceptingNumbers && number.rounded() == number && abs(number) < 1e15:
                return String(Int64(number))
            default:
                throw GatewayError(gateway: gateway, .malformedBody("'\(name)' is not a string"))
            }
        }
        return nil
    }

    /// An id a vendor adds for its support and for reconciliation (`taskId`, `tradeNo`, `RequestId`), as shown text:
    /// what ``text(_:_:gateway:)`` reads (a string, or a whole number under 10^15), cut to 128 characters with unsafe
    /// characters replaced. One that does not read so (a number past 10^15 that a `Double` no longer holds exactly, a
    /// fraction, a flag, an object) is left out: an id kept for support never costs the answer it came with (a billed
    /// number, a message sent).
    /// - Parameters:
    ///   - object: The answer's members.
    ///   - names: The member's names, tried in order.
    /// - Returns: The id's text, or nil when it is absent or does not read.
    package static func bookkeepingID(_ object: [String: JSONValue], _ names: String...) -> String? {
        for name in names {
            do {
                if let id = try text(object, name, gateway: "", acceptingNumbers: true) { return DisplayText.label(id) }
            } catch {
                return nil   // there, but no text: left out
            }
        }
        return nil
    }

    /// A member read as a result code: what every gateway's answer carries first.
    /// - Parameters:
    ///   - object: The answer's members.
    ///   - names: The member's names, tried in order (`resultCode`, `resultcode`).
    ///   - gateway: The gateway's name, for errors.
    ///   - label: How errors name the member (`Code`, `header.resultCode`); `'name'` when nil.
    /// - Returns: The code.
    /// - Throws: ``GatewayError/Kind/malformedBody(_:)``: `no <label>` when it is missing, `<label> is not a code` when
    ///   it is empty, over 64 bytes or holds a control character.
    package static func code(_ object: [String: JSONValue], _ names: String..., gateway: String, label: String? = nil) throws(GatewayError) -> ResultCode {
        let label = label ?? "'\(names[0])'"
        var text: String?
        for name in names where text == nil { text = try Self.text(object, name, gateway: gateway, acceptingNumbers: true) }
        guard let text else { throw GatewayError(gateway: gateway, .malformedBody("no \(label)")) }
        do {
            return try ResultCode(text)
        } catch {
            throw GatewayError(gateway: gateway, .malformedBody("\(label) is not a code (empty, over 64 bytes or a control character)"))
        }
    }

    /// A member's text (plain, or as decrypted) as a mainland mobile number.
    /// - Parameters:
    ///   - text: The text.
    ///   - gateway: The gateway's name, for errors.
    ///   - label: How the error names the member (`'phone'`, `GetMobileResultDTO.Mobile`).
    /// - Returns: The number.
    /// - Throws: ``GatewayError/Kind/malformedBody(_:)`` `<label> is not a mainland mobile number`, never quoting the text.
    package static func phoneNumber(_ text: String, gateway: String, label: String) throws(GatewayError) -> PhoneNumber {
        do {
            return try PhoneNumber(text)
        } catch {
            throw GatewayError(gateway: gateway, .malformedBody("\(label) is not a mainland mobile number"))
        }
    }

    /// A number the vendor encrypted to the app's key, its plaintext UTF-8 or UTF-16LE text (no vendor document says
    /// which; a public China Mobile integration, gin-vue-admin's oneLogin plugin, decodes `msisdn` as UTF-16LE). A
    /// ciphertext that does not decrypt (wrong padding, another key) and one that decrypts to anything but a mainland
    /// mobile number give one error, word for word: told apart, they would be a padding oracle for whoever can inject
    /// answers. The error quotes nothing it read.
    /// - Parameters:
    ///   - gateway: The gateway's name, for errors.
    ///   - label: How the error names the member (`msisdn`, `'phone'`).
    ///   - key: What the error says of the key, for an operator (`with msisdnKey`).
    ///   - decrypt: Decrypts the member's ciphertext.
    /// - Returns: The number.
    /// - Throws: ``GatewayError/Kind/malformedBody(_:)`` `<label> does not decrypt to a mainland mobile number <key>`.
    package static func decryptedPhoneNumber(
        gateway: String, label: String, key: String, _ decrypt: () throws(CryptoError) -> [UInt8]
    ) throws(GatewayError) -> PhoneNumber {
        let failure = GatewayError(gateway: gateway, .malformedBody("\(label) does not decrypt to a mainland mobile number \(key)"))
        let plaintext: [UInt8]
        do {
            plaintext = try decrypt()
        } catch {
            throw failure
        }
        guard let number = try? PhoneNumber(Self.text(ofPlaintext: plaintext)) else { throw failure }
        return number
    }

    /// A decrypted number's text: UTF-16LE when every second byte is zero (each code unit under 256, as digits are),
    /// else UTF-8.
    /// - Parameter plaintext: The decrypted bytes.
    /// - Returns: The text.
    /// - Complexity: O(*n*) in the plaintext's length.
    static func text(ofPlaintext plaintext: [UInt8]) -> String {
        let wide = !plaintext.isEmpty && plaintext.count.isMultiple(of: 2) && stride(from: 1, to: plaintext.count, by: 2).allSatisfy { plaintext[$0] == 0 }
        return wide ? String(decoding: stride(from: 0, to: plaintext.count, by: 2).map { plaintext[$0] }, as: UTF8.self) : String(decoding: plaintext, as: UTF8.self)
    }

    /// An object member (`data`, `header`), if present.
    /// - Parameters:
    ///   - object: The answer's members.
    ///   - name: The member's name.
    ///   - gateway: The gateway's name, for errors.
    /// - Returns: Its members, or nil when absent or `null`.
    /// - Throws: ``GatewayError/Kind/malformedBody(_:)`` when it is something else.
    package static func object(_ object: [String: JSONValue], _ name: String, gateway: String) throws(GatewayError) -> [String: JSONValue]? {
        switch object[name] {
        case nil, .null?: return nil
        case .object(let members)?: return members
        default: throw GatewayError(gateway: gateway, .malformedBody("'\(name)' is not an object"))
        }
    }
}
