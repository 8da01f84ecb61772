import Testing
@testable import OneTap

@Suite struct TianyiRefreshResponseTests {
    @Test func success() throws {
        let response = try TianyiRefreshResponse.decode(Array(#"{"result":0,"accessToken":"AT-NEW","refreshToken":"RT-NEW","expiresIn":"2592000"}"#.utf8))
        #expect(response.accessToken.reveal() == "AT-NEW")
        #expect(response.refreshToken?.reveal() == "RT-NEW")
        #expect(response.expiresIn?.seconds == 2_592_000)
        #expect(!response.description.contains("AT-NEW") && !response.description.contains("RT-NEW"))
    }

    @Test func emptyRefreshTokenKeepsTheOld() throws {
        let response = try TianyiRefreshResponse.decode(Array(#"{"result":"0","accessToken":"A","refreshToken":"","expiresIn":7200}"#.utf8))
        #expect(response.refreshToken?.isEmpty == true)
        #expect(response.expiresIn?.seconds == 7200)
    }

    @Test(arguments: [
        (#"{"result":-1,"msg":"刷新token失败"}"#, ErrorKind<TokenError>.reloginRequired),
        (#"{"result":1}"#, .reloginRequired),
        (#"{"result":0}"#, .refreshFailed),
        (#"{"result":0,"accessToken":""}"#, .refreshFailed),
        (#"{"result":0,"accessToken":"A","expiresIn":"-5"}"#, .refreshFailed),
        (#"{"result":0,"accessToken":"A","expiresIn":"99999999999"}"#, .refreshFailed),
        (#"{"result":0,"accessToken":7}"#, .refreshFailed),
        (#"<html>502 Bad Gateway</html>"#, .refreshFailed),
        ("", .refreshFailed),
        (#"{"accessToken":"A"}"#, .refreshFailed),
    ])
    func failuresAreClassified(body: String, kind: ErrorKind<TokenError>) {
        #expect {
            try TianyiRefreshResponse.decode(Array(body.utf8))
        } throws: { error in
            (error as! TokenError).kind == kind
        }
    }

    /// A refused refresh whose answer still carries new tokens (and a message quoting them): the error
    /// names none of them, though they are not yet known to the caller as secrets.
    @Test(arguments: [
        #"{"result":1,"msg":"refused; issued AT-NEW-1 and RT-NEW-1 anyway","accessToken":"AT-NEW-1","refreshToken":"RT-NEW-1"}"#,
        #"{"result":0,"accessToken":"","msg":"RT-NEW-1"}"#,
        #"{"result":0,"accessToken":"AT-NEW-1","expiresIn":"RT-NEW-1"}"#,
    ])
    func aFailedRefreshNamesNoNewToken(body: String) {
        do {
            _ = try TianyiRefreshResponse.decode(Array(body.utf8))
            Issue.record("the refresh answer was accepted: \(body)")
        } catch {
            #expect(!error.description.contains("AT-NEW-1"), "\(error)")
            #expect(!error.description.contains("RT-NEW-1"), "\(error)")
        }
    }

    /// A token-vault attacker's read: every result but 0 was taken as the carrier refusing the refresh token, and an
    /// expired token was then deleted, so a burst over the call limit (-65), a clock step (-10009) or a wrong
    /// app secret after a deploy (-20005) logged every account it touched out. Those answers (the open platform's
    /// own codes, `TianyiRefreshResponse.platformRefusals`) are failed refreshes: the token is kept, and the
    /// refresh is tried again after its back-off.
    @Test(arguments: ["-64", "-65", "-10009", "-20005", "-20006"])
    func thePlatformsOwnRefusalsKeepTheToken(code: String) {
        let error = #expect(throws: TokenError.self) { try TianyiRefreshResponse.decode(Array(#"{"result":\#(code),"msg":"调用接口超限"}"#.utf8)) }
        #expect(error?.kind == .refreshFailed, "\(String(describing: error))")
        #expect(error.map { "\($0)".contains("result \(code)") } == true)
    }

    /// A code the token API's table marks `misconfigured` but that speaks of the token itself (51004, the app and the
    /// token do not match) is still the carrier refusing the refresh token.
    @Test func aRefusalOfTheTokenItselfIsStillARefusal() {
        let error = #expect(throws: TokenError.self) { try TianyiRefreshResponse.decode(Array(#"{"result":51004}"#.utf8)) }
        #expect(error?.kind == .reloginRequired)
    }

    /// A refused refresh names the carrier's result and message (what the `relogin-required` event shows).
    /// The path of a malformed answer names its keys, which are the carrier's (or a man in the middle's): a key
    /// holding a line break or a megabyte was put in the error (and the event's text) as it came.
    @Test func anOddKeyInAMalformedAnswerIsQuotedAndCut() {
        let key = "x\\ny: forged" + String(repeating: "k", count: 10_000)
        let body = #"{"result":0,""# + key + #"":tru}"#
        #expect {
            try TianyiRefreshResponse.decode(Array(body.utf8))
        } throws: { error in
            guard let message = (error as? TokenError)?.message else { return false }
            return !message.contains("\n") && message.utf8.count < 300 && message.contains(#""x\ny: forged"#)
        }
    }

    @Test func aRefusalNamesTheResultAndTheMessage() {
        #expect {
            try TianyiRefreshResponse.decode(Array(#"{"result":-1,"msg":"刷新token失败"}"#.utf8))
        } throws: { error in
            (error as? TokenError)?.message == "the carrier refused the refresh token (result -1): 刷新token失败"
        }
    }

    /// A carrier (or a proxy) whose refusal quotes the tokens the request carried: neither reaches the message.
    @Test func aRefusalQuotingTheSentTokensNamesNeither() {
        let body = #"{"result":-1,"msg":"invalid refreshToken RT-SENT-1 for accessToken AT-SENT-1"}"#
        #expect {
            try TianyiRefreshResponse.decode(Array(body.utf8), sent: [Secret("AT-SENT-1"), Secret("RT-SENT-1")])
        } throws: { error in
            let message = (error as? TokenError)?.message ?? ""
            return message.hasPrefix("the carrier refused the refresh token (result -1): invalid refreshToken ")
                && !message.contains("RT-SENT-1") && !message.contains("AT-SENT-1")
        }
    }

    /// A success that cannot be served (no access token, an `expiresIn` that is no lifetime) but carries a rotated
    /// refresh token hands that refresh token back, marked unusable with a reason that quotes no token; without one it
    /// is a failed refresh, as before.
    @Test(arguments: [
        (#"{"result":0,"accessToken":"","refreshToken":"RT-NEW-1","msg":"RT-NEW-1"}"#, "the refresh answer has result 0 but no accessToken"),
        (#"{"result":0,"refreshToken":"RT-NEW-1"}"#, "the refresh answer has result 0 but no accessToken"),
        (#"{"result":0,"accessToken":"AT-NEW-1","refreshToken":"RT-NEW-1","expiresIn":"RT-NEW-1"}"#, "the refresh answer's expiresIn is no lifetime"),
        (#"{"result":0,"accessToken":"AT-NEW-1","refreshToken":"RT-NEW-1","expiresIn":0}"#, "the refresh answer's expiresIn is no lifetime"),
        (#"{"result":0,"accessToken":"AT-NEW-1","refreshToken":"RT-NEW-1","expiresIn":7200.0}"#, "the refresh answer's expiresIn is no lifetime"),
        (#"{"result":0,"accessToken":"AT-NEW-1","refreshToken":"RT-NEW-1","expiresIn":1e3}"#, "the refresh answer's expiresIn is no lifetime"),
        (#"{"result":0,"accessToken":"AT-NEW-1","refreshToken":"RT-NEW-1","expiresIn":99999999999999999999999}"#, "the refresh answer's expiresIn is no lifetime"),
        (#"{"result":0,"accessToken":"AT-NEW-1","refreshToken":"RT-NEW-1","expiresIn":true}"#, "the refresh answer's expiresIn is no lifetime"),
        (#"{"result":0,"accessToken":"AT-NEW-1","refreshToken":"RT-NEW-1","expiresIn":[7200]}"#, "the refresh answer's expiresIn is no lifetime"),
        (#"{"result":0,"accessToken":"AT-NEW-1","refreshToken":"RT-NEW-1","expiresIn":{"s":7200}}"#, "the refresh answer's expiresIn is no lifetime"),
        (#"{"result":0,"accessToken":7,"refreshToken":"RT-NEW-1"}"#, "the refresh answer has result 0 but no accessToken"),
        (#"{"result":0,"accessToken":null,"refreshToken":"RT-NEW-1","expiresIn":"7200"}"#, "the refresh answer has result 0 but no accessToken"),
    ])
    func aSuccessThatCannotBeServedHandsBackItsRotatedRefreshToken(body: String, why: String) throws {
        let response = try TianyiRefreshResponse.decode(Array(body.utf8))
        #expect(response.refreshToken?.reveal() == "RT-NEW-1")
        let unusable = try #require(response.unusable)
        #expect(unusable.hasPrefix(why), "\(unusable)")
        #expect(!unusable.contains("NEW-1") && !response.description.contains("NEW-1"))
    }

    /// `msg` says nothing the refresh needs: one that is no string (a number, an object, an array) is read as absent,
    /// so a success keeps its rotated refresh token and a refusal stays a refusal (an attacker's read: such an
    /// answer failed to decode as a whole, and the vault kept the refresh token the carrier had just retired).
    @Test(arguments: [#""msg":0"#, #""msg":{"zh":"成功"}"#, #""msg":["ok"]"#, #""msg":true"#, #""msg":null"#])
    func aMessageOfAnotherTypeIsNoReasonToLoseTheAnswer(msg: String) throws {
        let response = try TianyiRefreshResponse.decode(Array(#"{"result":0,"accessToken":"AT2","refreshToken":"RT2","expiresIn":"2592000",\#(msg)}"#.utf8))
        #expect(response.accessToken.reveal() == "AT2" && response.refreshToken?.reveal() == "RT2" && response.unusable == nil)
        let refusal = #expect(throws: TokenError.self) { try TianyiRefreshResponse.decode(Array(#"{"result":-1,\#(msg)}"#.utf8)) }
        #expect(refusal?.kind == .reloginRequired)
    }

    /// `expiresIn` null reads as absent.
    @Test func aNullLifetimeIsAbsent() throws {
        let response = try TianyiRefreshResponse.decode(Array(#"{"result":0,"accessToken":"A","expiresIn":null}"#.utf8))
        #expect(response.expiresIn == nil && response.unusable == nil)
        // Without a refresh token to keep, a lifetime that is none is a failed refresh.
        let error = #expect(throws: TokenError.self) { try TianyiRefreshResponse.decode(Array(#"{"result":0,"accessToken":"A","expiresIn":{}}"#.utf8)) }
        #expect(error?.kind == .refreshFailed)
        // Text that is not JSON stays a failed refresh, whatever comes before it.
        let broken = #expect(throws: TokenError.self) { try TianyiRefreshResponse.decode(Array(#"{"result":0,"refreshToken":"R","expiresIn":1.e5}"#.utf8)) }
        #expect(broken.map { "\($0)".contains("not the documented JSON") } == true)
    }
}
