import Testing
@testable import OneTapCore

@Suite struct NumberSegmentTableTests {
    let table = NumberSegmentTable.builtIn

    /// The rows of Data/number-segments.csv, read independently.
    static let rows = DataFile.rows("number-segments.csv")

    /// The obvious reference over the file's rows: every prefix tried with hasPrefix, the longest kept.
    func reference(_ digits: String) -> DataRow? {
        Self.rows.filter { digits.hasPrefix($0["prefix"]) }.max { $0["prefix"].count < $1["prefix"].count }
    }

    /// Every row of Data/number-segments.csv: a number in the segment resolves to the longest row that
    /// prefixes it (the row itself unless a longer row carves it out).
    @Test(arguments: rows)
    func everyRowResolves(row: DataRow) throws {
        try #require(row.problem == nil)
        let prefix = row["prefix"]
        for fill in ["0", "5", "9"] {
            let digits = prefix + String(repeating: fill, count: 11 - prefix.count)
            let number = try PhoneNumber(digits)
            let expected = try #require(reference(digits))
            #expect(table.segment(for: number)?.prefix == expected["prefix"])
            #expect(table.carrier(for: number).rawValue == expected["carrier"])
            #expect(table.match(number).kind?.rawValue == expected["kind"])
        }
    }

    @Test func trieMatchesTheReferenceOnEveryFiveDigitPrefix() throws {
        for head in 13000...19999 {
            let digits = String(head) + "000000"
            let number = try PhoneNumber(digits)
            #expect(table.segment(for: number)?.prefix == reference(digits)?["prefix"], "\(digits)")
        }
    }

    @Test(arguments: [
        ("13800138000", Carrier.mobile), ("15300000000", .telecom), ("15500000000", .unicom), ("15600000000", .unicom),
        ("15000000000", .mobile), ("17000000000", .telecom), ("17010000000", .telecom), ("17020000000", .telecom),
        ("17030000000", .mobile), ("17050000000", .mobile), ("17060000000", .mobile), ("17040000000", .unicom),
        ("17070000000", .unicom), ("17080000000", .unicom), ("17090000000", .unicom), ("19200000000", .broadnet),
        ("13490000000", .telecom), ("13400000000", .mobile), ("18900000000", .telecom), ("18600000000", .unicom),
        ("19800000000", .mobile), ("15400000000", .unknown), ("14000000000", .unknown), ("19400000000", .unknown),
    ])
    func segmentsTheIssueNames(digits: String, carrier: Carrier) throws {
        #expect(table.carrier(for: try PhoneNumber(digits)) == carrier)
    }

    @Test(arguments: [("17031234567", NumberSegment.Kind.virtual), ("16212345678", .virtual), ("13800138000", .standard), ("14512345678", .data), ("14612345678", .iot), ("14812345678", .iot), ("13491234567", .satellite)])
    func kinds(digits: String, kind: NumberSegment.Kind) throws {
        #expect(table.match(try PhoneNumber(digits)).kind == kind)
    }

    @Test(arguments: [
        ("prefix,carrier,kind,note,source\n23,mobile,standard,n,s\n", "prefix"),
        ("prefix,carrier,kind,note,source\n13,mobile,standard,n,s\n", "prefix"),
        ("prefix,carrier,kind,note,source\n13800000,mobile,standard,n,s\n", "prefix"),
        ("prefix,carrier,kind,note,source\n13a,mobile,standard,n,s\n", "prefix"),
        ("prefix,carrier,kind,note,source\n117,mobile,standard,n,s\n", "prefix"),  // 11x is no mobile segment: no number could match
        ("prefix,carrier,kind,note,source\n1000,mobile,standard,n,s\n", "prefix"),
        ("prefix,carrier,kind,note,source\n138,moble,standard,n,s\n", "carrier"),
        ("prefix,carrier,kind,note,source\n138,mobile,mvno,n,s\n", "kind"),
        ("prefix,carrier,kind,note,source\n138,mobile,standard,n,s\n138,unicom,standard,n,s\n", "prefix"),
    ])
    func malformedRowsAreRefused(text: String, column: String) {
        #expect {
            try NumberSegmentTable(csv: text, file: "n.csv")
        } throws: { error in
            (error as! TableError).column == column
        }
    }
}
