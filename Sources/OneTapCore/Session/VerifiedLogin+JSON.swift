// A verified login's JSON, inside a session's: `{"phoneNumber":…,"account":…}` (`account` only when
// there is one).

extension VerifiedLogin: JSONRecord {
    package func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.member("phoneNumber", phoneNumber.digits)
            writer.member("account", account?.rawValue)
        }
    }

    package init(reading reader: inout JSONReader) throws(JSONReadError) {
        var phoneNumber: PhoneNumber?, account: AccountID??
        var members = try reader.beginObject()
        while let key = try reader.nextKey(in: &members) {
            switch key {
            case "phoneNumber":
                try reader.member(&phoneNumber, key) { (reader) throws(JSONReadError) in try reader.parsed { (text) throws(ParseError) in try PhoneNumber(text) } }
            case "account":
                try reader.member(&account, key) { (reader) throws(JSONReadError) in try reader.parsed { (text) throws(ParseError) in try AccountID(text) } }
            default: break
            }
        }
        guard let phoneNumber else { throw reader.missing("phoneNumber") }
        self.init(phoneNumber: phoneNumber, account: account ?? nil)
    }
}
