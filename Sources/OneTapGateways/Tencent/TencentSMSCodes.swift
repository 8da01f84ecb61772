import OneTap

/// What Tencent Cloud SMS's codes mean for ``SMSSender``: each code of `SendStatusSet[].Code` or `Response.Error.Code`
/// mapped to an ``SMSDeliveryError/Reason``, from `SendSms`'s error code list (2021-01-11) and the API's common error
/// codes; `Data/gateways/tencent-sms.md` gives each row's source.
package enum TencentSMSCodes {
    /// The code of a message the gateway took: `Ok`.
    package static let sent = "Ok"

    /// Codes for the gateway's own rate limits: wait (`throttled`).
    package static let throttled: [String: String] = [
        "LimitExceeded.PhoneNumberThirtySecondLimit": "the number's 30-second limit was reached",
        "LimitExceeded.PhoneNumberOneHourLimit": "the number's one-hour limit was reached",
        "LimitExceeded.PhoneNumberDailyLimit": "the number's daily limit was reached",
        "LimitExceeded.PhoneNumberSameContentDailyLimit": "the number's limit for the same content was reached",
        "LimitExceeded.DeliveryFrequencyLimit": "the account's delivery frequency policy was hit",
        "LimitExceeded.AppDailyLimit": "the application's daily limit was reached",
        "LimitExceeded.DailyLimit": "the daily limit (international) was reached",
        "RequestLimitExceeded": "the API's request frequency limit was reached",
        "RequestLimitExceeded.GlobalRegionUinLimitExceeded": "the account's request frequency limit was reached",
        "RequestLimitExceeded.IPLimitExceeded": "the caller address's request frequency limit was reached",
    ]

    /// Codes for a number the gateway will not send to: asking again does not help (`numberRejected`).
    package static let numberRejected: [String: String] = [
        "InvalidParameterValue.IncorrectPhoneNumber": "the number's format is wrong",
        "FailedOperation.PhoneNumberInBlacklist": "the number is on the do-not-disturb list (unsubscribed or the carrier's list)",
        "FailedOperation.PhoneNumberOnBlacklist": "the number is on the do-not-disturb list (unsubscribed or the carrier's list)",
        "UnsupportedOperation.ContainDomesticAndInternationalPhoneNumber": "mainland and international numbers were mixed in one request",
        "UnsupportedOperation.UnsuportedRegion": "the number's region is not served",
    ]

    /// Codes OneTap names for the operator (everything else is `failed` too, its code kept).
    package static let failed: [String: String] = [
        "FailedOperation.SignatureIncorrectOrUnapproved": "signName is not an approved signature: check it in the SMS console",
        "FailedOperation.TemplateIncorrectOrUnapproved": "templateId is not an approved template, or the parameters do not match it",
        "FailedOperation.InsufficientBalanceInSmsPackage": "the SMS package's balance is used up",
        "FailedOperation.ContainSensitiveWord": "the content holds a sensitive word",
        "FailedOperation.MarketingSendTimeConstraint": "marketing messages go out 8:00–22:00 only",
        "InvalidParameterValue.SdkAppIdNotExist": "sdkAppId does not exist",
        "InvalidParameterValue.TemplateParameterFormatError": "a verification template's parameters must be 0–6 digits",
        "InvalidParameterValue.TemplateParameterLengthLimit": "a template parameter is longer than 12 characters",
        "InvalidParameterValue.ProhibitedUseUrlInTemplateParameter": "template parameters must not hold a URL",
        "UnauthorizedOperation.SdkAppIdIsDisabled": "the SdkAppId is disabled",
        "UnauthorizedOperation.SerivceSuspendDueToArrears": "the service is suspended for arrears",
        "UnauthorizedOperation.RequestIpNotInWhitelist": "this server's address is not on the account's whitelist",
        "UnauthorizedOperation.SmsSdkAppIdVerifyFail": "sdkAppId does not belong to this API key's account",
        "AuthFailure.SignatureFailure": "the TC3-HMAC-SHA256 signature is wrong: check secretKey",
        "AuthFailure.SignatureExpire": "X-TC-Timestamp is more than five minutes from Tencent's clock: check this server's time",
        "AuthFailure.SecretIdNotFound": "secretId does not exist or is disabled",
        "AuthFailure.InvalidSecretId": "secretId is not an API key's",
        "InternalError.Timeout": "Tencent timed out sending the message",
        "InternalError.RequestTimeException": "the request's time is more than ten minutes from Tencent's clock",
    ]

    /// The reason for a code that is not ``sent``.
    /// - Parameter code: The code as it came.
    /// - Returns: `throttled`, `numberRejected`, or `failed` for every other code.
    package static func reason(_ code: String) -> SMSDeliveryError.Reason {
        if throttled[code] != nil { return .throttled }
        if numberRejected[code] != nil { return .numberRejected }
        return .failed
    }

    /// The error for a code that is not ``sent``.
    /// - Parameters:
    ///   - code: The code as it came.
    ///   - requestID: `RequestId`, for Tencent's support.
    /// - Returns: The error, its message the code's documented meaning.
    package static func error(_ code: String, requestID: String?) -> SMSDeliveryError {
        let meaning = throttled[code] ?? numberRejected[code] ?? failed[code] ?? "Tencent Cloud SMS did not send the message"
        return SMSDeliveryError(reason(code), gateway: TencentSMSSender.name, code: code, message: meaning + (requestID.map { " (RequestId \($0))" } ?? ""))
    }
}
