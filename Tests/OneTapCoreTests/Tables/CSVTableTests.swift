import Testing
@testable import OneTapCore

@Suite struct CSVTableTests {
    let columns = ["a", "b"]

    func read(_ text: String) throws(TableError) -> CSVTable {
        try CSVTable(text: text, file: "t.csv", columns: columns)
    }

    @Test func readsRowsWithLineNumbersSkippingCommentsAndBlanks() throws {
        let table = try read("# comment\n\na,b\n1,2\n  # indented comment\n3,4\n")
        #expect(table.rows.map(\.fields) == [["1", "2"], ["3", "4"]])
        #expect(table.rows.map(\.line) == [4, 6])
    }

    @Test func columnsAreFoundByNameInAnyOrder() throws {
        let table = try read("b,a\n2,1\n")
        #expect(table.rows[0].fields == ["1", "2"])
    }

    @Test(arguments: [
        ("a,b\r\n1,2\r\n", ["1", "2"]),                        // CRLF
        ("\u{FEFF}a,b\n1,2\n", ["1", "2"]),                     // byte-order mark
        ("a,b\n 1 , 2 \n", ["1", "2"]),                         // spaces trimmed
        ("a,b\n\"x, y\",\"say \"\"hi\"\"\"\n", ["x, y", "say \"hi\""]),  // quoting
        ("a,b\n\" padded \",2\n", [" padded ", "2"]),           // quoted spaces kept
        ("a,b\n,\n", ["", ""]),                                 // empty fields
        ("a,b\n1,2", ["1", "2"]),                               // no final newline
        ("a,b\n中国,移动\n", ["中国", "移动"]),
    ])
    func acceptedDialect(text: String, fields: [String]) throws {
        #expect(try read(text).rows.map(\.fields) == [fields])
    }

    @Test(arguments: [
        ("", TableError.Kind.missingHeader, 0),
        ("# only comments\n\n", .missingHeader, 0),
        ("a\n1\n", .missingColumn, 1),
        ("a,b,c\n1,2,3\n", .unknownColumn, 1),
        ("a,a,b\n", .unknownColumn, 1),
        ("a,b\n1\n", .fieldCount, 2),
        ("a,b\n1,2,3\n", .fieldCount, 2),
        ("a,b\n\"1,2\n", .quoting, 2),
        ("a,b\n1\"x\",2\n", .quoting, 2),
        ("a,b\n\"1\"x,2\n", .quoting, 2),
        ("a,b\n1,2\u{0}\n", .invalidValue, 2),
    ])
    func malformedTablesNameTheLine(text: String, kind: TableError.Kind, line: Int) {
        #expect {
            try read(text)
        } throws: { error in
            let error = error as! TableError
            return error.kind == kind && error.line == line && error.file == "t.csv"
        }
    }

    /// A replacement table's row without a source is refused, naming its line and column (an attacker's read: only a
    /// test over `Data/` held the rule, so a replacement table's unsourced rows loaded without a word), through
    /// `CSVTable` and a table built on it; a quoted blank is no source either.
    @Test(arguments: ["2,", "2,\" \""])
    func aRowWithoutItsSourceIsRefused(row: String) {
        #expect {
            try CSVTable(text: "a,source\n1,doc\n\(row)\n", file: "t.csv", columns: ["a", "source"])
        } throws: { error in
            guard let error = error as? TableError else { return false }
            return error.kind == .invalidValue && error.line == 3 && error.column == "source"
                && error.description.hasPrefix("t.csv:3: column 'source': the row cites no source")
        }
        #expect {
            try PLMNTable(csv: "mcc,mnc,carrier,note,source\n460,00,mobile,,\n", file: "p.csv")
        } throws: { ($0 as? TableError)?.line == 2 && ($0 as? TableError)?.column == "source" }
    }

    /// A first line that names none of the table's columns is no header of it and is never quoted (an attacker's read:
    /// `onetap route --policy /etc/onetap/keys` printed `unknown column "k1:<the key>"`); a header with one unknown
    /// column among known ones still names it.
    @Test func aFileThatIsNoTableIsNotQuoted() {
        for text in ["k1:q83vEjRWeJq83vEjRWeJq83vEjRWeJq83vEjRWeJ=\n", "db,5432,onetap,hunter2\n1,2,3,4\n"] {
            #expect {
                try read(text)
            } throws: { error in
                let error = error as! TableError
                return error.kind == .unknownColumn && error.line == 1
                    && error.description == "t.csv:1: the first line names none of the table's columns (a,b): no header of this table; its text is not shown"
            }
        }
        #expect {
            try read("a,b,extra\n1,2,3\n")
        } throws: { error in
            (error as! TableError).description == "t.csv:1: unknown column \"extra\" in the header; the columns are a,b"
        }
    }

    @Test func errorDescriptionNamesFileLineAndColumn() {
        let error = TableError(file: "x.csv", line: 3, column: "carrier", kind: .invalidValue, message: "bad")
        #expect(error.description == "x.csv:3: column 'carrier': bad")
        #expect(TableError(file: "x.csv", line: 0, kind: .incomplete, message: "m").description == "x.csv: m")
    }
}
