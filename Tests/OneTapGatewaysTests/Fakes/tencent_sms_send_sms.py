#!/usr/bin/env python3
"""A fake of Tencent Cloud SMS SendSms (API 3.0, version 2021-01-11), on loopback, written from Tencent's SendSms
document and its error code list (Data/gateways/tencent-sms.md names them), not from OneTap's Swift. Standard
library only (tencent_api_fake.py, tencent_tc3.py).

Run: tencent_sms_send_sms.py --secret-id ID --secret-key KEY --sdk-app-id 1400006666 --sign-name S --template-id 1110
Prints its port on stdout's first line; serves until stdin closes.

It checks the common parameters and the TC3 signature (tencent_api_fake), then the body: PhoneNumberSet (1 to 200
strings, +86 and 11 digits here), SmsSdkAppId, TemplateId, SignName as configured, TemplateParamSet strings (a
verification template's: 0-6 digits), nothing else. The number chooses the answer (SendStatusSet[0].Code unless said):
  +8613800000001  LimitExceeded.PhoneNumberDailyLimit
  +8613800000002  LimitExceeded.PhoneNumberThirtySecondLimit
  +8613800000003  LimitExceeded.PhoneNumberOneHourLimit
  +8613800000004  InvalidParameterValue.IncorrectPhoneNumber
  +8613800000005  FailedOperation.PhoneNumberInBlacklist
  +8613800000006  FailedOperation.InsufficientBalanceInSmsPackage (as Response.Error)
  +8613800000007  LimitExceeded.AppDailyLimit (as Response.Error)
  +8613900000001  slow (3 s), +8613900000002 HTTP 500, +8613900000003 truncated, +8613900000004 not JSON,
  +8613900000005  text/html
  anything else   Ok
"""
import re
import uuid

import tencent_api_fake
from tencent_api_fake import Refused

STATUS_CODES = {
    "+8613800000001": "LimitExceeded.PhoneNumberDailyLimit",
    "+8613800000002": "LimitExceeded.PhoneNumberThirtySecondLimit",
    "+8613800000003": "LimitExceeded.PhoneNumberOneHourLimit",
    "+8613800000004": "InvalidParameterValue.IncorrectPhoneNumber",
    "+8613800000005": "FailedOperation.PhoneNumberInBlacklist",
}
ERROR_CODES = {
    "+8613800000006": "FailedOperation.InsufficientBalanceInSmsPackage",
    "+8613800000007": "LimitExceeded.AppDailyLimit",
}
FAULTS = {"+8613900000001": "slow-", "+8613900000002": "status-500-", "+8613900000003": "truncated-",
          "+8613900000004": "malformed-", "+8613900000005": "html-"}
KNOWN = {"PhoneNumberSet", "SmsSdkAppId", "TemplateId", "SignName", "TemplateParamSet", "ExtendCode", "SessionContext", "SenderId"}


def main():
    def extra(parser):
        parser.add_argument("--sdk-app-id", required=True)
        parser.add_argument("--sign-name", required=True)
        parser.add_argument("--template-id", required=True)

    args = tencent_api_fake.arguments(extra)

    def handle(fields, fault):
        if any(name not in KNOWN for name in fields):
            raise Refused("InvalidParameter", "a member SendSms does not take")
        numbers = fields.get("PhoneNumberSet")
        if not isinstance(numbers, list) or not numbers:
            raise Refused("MissingParameter.EmptyPhoneNumberSet")
        if len(numbers) > 200:
            raise Refused("LimitExceeded.PhoneNumberCountLimit")
        if any(not isinstance(n, str) or not re.fullmatch(r"\+861[3-9]\d{9}", n) for n in numbers):
            raise Refused("InvalidParameterValue.IncorrectPhoneNumber")
        for name in ("SmsSdkAppId", "TemplateId"):
            if not isinstance(fields.get(name), str):
                raise Refused("MissingParameter" if name not in fields else "InvalidParameter")
        if fields["SmsSdkAppId"] != args.sdk_app_id:
            raise Refused("InvalidParameterValue.SdkAppIdNotExist")
        if fields["TemplateId"] != args.template_id:
            raise Refused("FailedOperation.TemplateIncorrectOrUnapproved")
        if fields.get("SignName") != args.sign_name:
            raise Refused("FailedOperation.SignatureIncorrectOrUnapproved")
        parameters = fields.get("TemplateParamSet", [])
        if not isinstance(parameters, list) or any(not isinstance(p, str) for p in parameters):
            raise Refused("InvalidParameter")
        if any(not re.fullmatch(r"\d{0,6}", p) for p in parameters):
            raise Refused("InvalidParameterValue.TemplateParameterFormatError")
        number = numbers[0]
        if number in ERROR_CODES:
            raise Refused(ERROR_CODES[number])
        if number in FAULTS:
            fault(FAULTS[number])
        code = STATUS_CODES.get(number, "Ok")
        return {"SendStatusSet": [{
            "SerialNo": "2028:%s" % uuid.uuid4().hex, "PhoneNumber": number, "Fee": 1 if code == "Ok" else 0,
            "SessionContext": "", "Code": code, "Message": "send success" if code == "Ok" else "refused by the fake",
            "IsoCode": "CN"}]}

    tencent_api_fake.serve(args, "SendSms", "2021-01-11", "sms", handle, region_required=True)


if __name__ == "__main__":
    main()
