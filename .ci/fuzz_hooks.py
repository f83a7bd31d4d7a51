"""schemathesis hooks of .ci/fuzz: where a rule of docs/openapi.yaml depends on more than one
request, or on the clock, the requests are made the way a client following the rule makes them,
so that a refusal of one of them is a real disagreement and not the fuzzer breaking the rule."""

import hashlib
import json
from datetime import datetime, timedelta, timezone

import schemathesis
from hypothesis import strategies as st

# InputTime: not before 1900 and not more than a day ahead of the server's clock. Times up to now
# keep within that for as long as a run lasts.
EARLIEST = datetime(1900, 1, 1)
OFFSET_MINUTES = 23 * 60 + 59


def rfc3339(instant: datetime, offset_minutes: int, digits: int, separator: str, zulu: str) -> str:
    zone = timezone(timedelta(minutes=offset_minutes))
    local = instant.replace(tzinfo=timezone.utc).astimezone(zone)
    text = local.strftime(f"%Y-%m-%d{separator}%H:%M:%S")
    if digits:
        text += "." + f"{local.microsecond:06d}"[:digits]
    if offset_minutes == 0:
        return text + zulu
    sign = "+" if offset_minutes > 0 else "-"
    hours, minutes = divmod(abs(offset_minutes), 60)
    return f"{text}{sign}{hours:02d}:{minutes:02d}"


schemathesis.openapi.format(
    "date-time",
    st.builds(
        rfc3339,
        st.datetimes(min_value=EARLIEST, max_value=datetime.now(timezone.utc).replace(tzinfo=None)),
        st.integers(-OFFSET_MINUTES, OFFSET_MINUTES),
        st.integers(0, 6),
        # RFC 3339 lets the separator and the Z be lower case, and the separator be a space.
        st.sampled_from("Tt "),
        st.sampled_from("Zz"),
    ),
)


def valid_key(value) -> bool:
    return isinstance(value, str) and 1 <= len(value) <= 255 and all("!" <= c <= "~" for c in value)


# What each contest's log sends beyond the serial number and report, as `svc contest contests`
# gives its example: a log's exchange is read by its contest's fields, a rule between two
# fields of POST /v1/contests that the schema leaves to docs/API.md.
EXCHANGES = {
    "ARRL-FD": "2A CT", "ARRL-FIELD-DAY": "2A CT", "FD": "2A CT", "WFD": "1O CT",
    "CQ-WW-CW": "5", "CQ-WW-SSB": "5", "CQ-WW-RTTY": "5 MA",
    "CQ-WPX-CW": "", "CQ-WPX-SSB": "", "ARRL-DX-CW": "100", "ARRL-DX-SSB": "100",
    "ARRL-SS-CW": "A 72 CT", "ARRL-SS-SSB": "A 72 CT", "NAQP-CW": "BOB MA",
    "NAQP-SSB": "BOB MA", "ARRL-10": "CT", "ARRL-RTTY": "CT", "SERIAL": "",
}


@schemathesis.hook
def before_call(context, case, kwargs):
    """An Idempotency-Key names one request: the same key for another request is refused (400),
    which a schema cannot say. A valid generated key is replaced by one made of the request
    itself, so a request sent again replays and a new request has a new key. A contest log is
    started with its contest's exchange, as a client reading the contest's fields starts it."""
    if (
        case.method.upper() == "POST"
        and case.path == "/v1/contests"
        and isinstance(case.body, dict)
        and isinstance(case.body.get("contestId"), str)
        and case.body["contestId"].upper() in EXCHANGES
    ):
        case.body["exchange"] = EXCHANGES[case.body["contestId"].upper()]
    headers = case.headers or {}
    key = headers.get("Idempotency-Key")
    if not valid_key(key):
        return
    body = case.body if isinstance(case.body, (dict, list, str, int, float, bool, type(None))) else None
    request = json.dumps(
        [case.method, case.formatted_path, body], sort_keys=True, separators=(",", ":"), default=str
    )
    headers["Idempotency-Key"] = "fuzz-" + hashlib.sha256(request.encode()).hexdigest()
    case.headers = headers
