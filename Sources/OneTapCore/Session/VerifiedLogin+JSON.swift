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
        try reader.members { (key, reader) throws(JSONReadError) in
            switch key {
            case "phoneNumber": try reader.parsed(&phoneNumber, key)
            case "account": try reader.parsed(&account, key)
            default: break
            }
        }
        guard let phoneNumber else { throw reader.missing("phoneNumber") }
        self.init(phoneNumber: phoneNumber, account: account ?? nil)
    }
}
