@testable import OneTapGateways
import Testing

/// Form bodies against python3's `urllib.parse.quote_plus(s, safe="*")`, which differs from the WHATWG form encoding
/// only in leaving `~` as it is (WHATWG writes `%7E`; both decode to `~`).
@Suite struct FormEncodingTests {
    @Test func encodesAsWHATWGAndPythonsQuotePlusAgreeButForTilde() {
        // python3 -c 'import urllib.parse; print(urllib.parse.quote_plus("a b&c=d/é*~-._Z9", safe="*"))'
        // -> a+b%26c%3Dd%2F%C3%A9*~-._Z9
        #expect(FormEncoding.encode("a b&c=d/é*~-._Z9") == "a+b%26c%3Dd%2F%C3%A9*%7E-._Z9")
        #expect(String(decoding: FormEncoding.body([("k 1", "v=1"), ("paras", "2E37")]), as: UTF8.self) == "k+1=v%3D1&paras=2E37")
        #expect(FormEncoding.body([]).isEmpty)
        #expect(FormEncoding.encode("") == "")
    }
}
