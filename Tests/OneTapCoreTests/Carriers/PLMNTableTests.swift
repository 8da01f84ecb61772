import Testing
@testable import OneTapCore

@Suite struct PLMNTableTests {
    let table = PLMNTable.builtIn

    /// Every row of Data/plmn.csv, read independently, through every accepted form.
    @Test(arguments: DataFile.rows("plmn.csv"))
    func everyRowResolves(row: DataRow) throws {
        try #require(row.problem == nil)
        let plmn = try PLMN(mcc: row["mcc"], mnc: row["mnc"])
        let carrier = try #require(Carrier(rawValue: row["carrier"]))
        #expect(plmn.isMainland)
        #expect(table.carrier(for: plmn) == carrier)
        for form in [row["mcc"] + row["mnc"], row["mcc"] + "-" + row["mnc"], row["mcc"] + " " + row["mnc"]] {
            #expect(try table.carrier(forReported: form) == carrier)
        }
    }

    /// The assignments the issue fixes, checked independently of the file.
    @Test(arguments: [
        ("46000", Carrier.mobile), ("46002", .mobile), ("46004", .mobile), ("46007", .mobile), ("46008", .mobile),
        ("46001", .unicom), ("46006", .unicom), ("46009", .unicom),
        ("46003", .telecom), ("46005", .telecom), ("46011", .telecom),
        ("46015", .broadnet), ("46020", .tietong),
    ])
    func mainlandAssignments(text: String, carrier: Carrier) throws {
        #expect(try table.carrier(forReported: text) == carrier)
    }

    @Test(arguments: [
        ("45412", Carrier.other),   // China Mobile Hong Kong: not mainland
        ("45400", .other), ("45500", .other), ("46692", .other), ("310260", .other), ("20801", .other),
        ("46010", .unknown), ("46099", .unknown), ("460000", .unknown), ("460001", .unknown), ("46012", .unknown),
        ("65535", .unknown), ("--", .unknown), ("", .unknown), ("  ", .unknown),
    ])
    func otherAndUnknown(text: String, carrier: Carrier) throws {
        #expect(try table.carrier(forReported: text) == carrier)
    }

    @Test func malformedReportsStillThrow() {
        #expect(throws: ParseError.self) { try table.carrier(forReported: "4600a") }
    }

    @Test(arguments: [
        ("mcc,mnc,carrier,note,source\n460,00,mobil,n,s\n", 2, "carrier", TableError.Kind.invalidValue),
        ("mcc,mnc,carrier,note,source\n460,00,other,n,s\n", 2, "carrier", .invalidValue),
        ("mcc,mnc,carrier,note,source\n460,00,unknown,n,s\n", 2, "carrier", .invalidValue),
        ("mcc,mnc,carrier,note,source\n454,12,mobile,n,s\n", 2, "mcc", .invalidValue),
        ("mcc,mnc,carrier,note,source\n460,0x,mobile,n,s\n", 2, "mnc", .invalidValue),
        ("mcc,mnc,carrier,note,source\n46,00,mobile,n,s\n", 2, "mcc", .invalidValue),
        ("mcc,mnc,carrier,note,source\n460,00,mobile,n,s\n460,00,unicom,n,s\n", 3, nil, .duplicateKey),
        ("mcc,carrier,note,source\n460,mobile,n,s\n", 1, "mnc", .missingColumn),
    ] as [(String, Int, String?, TableError.Kind)])
    func malformedRowsNameLineAndColumn(text: String, line: Int, column: String?, kind: TableError.Kind) {
        #expect {
            try PLMNTable(csv: text, file: "p.csv")
        } throws: { error in
            let error = error as! TableError
            return error.line == line && error.column == column && error.kind == kind && error.file == "p.csv"
        }
    }
}
