"""Format checkers that really check, with no extra dependencies.

jsonschema only enforces some formats out of the box: ``date-time`` and ``time`` need
``rfc3339-validator``, ``uri`` needs ``rfc3987`` or ``rfc3986-validator``, ``hostname`` needs
``fqdn``, ``duration`` needs ``isoduration``; without them those formats silently pass anything,
and ``email`` only checks for an ``@``. The checkers here are small, self-contained
implementations of the relevant grammars (RFC 3339, RFC 3986, RFC 5321/5322 addr-spec, RFC 1123,
RFC 4122), registered on a per-draft copy of jsonschema's own checker.

Every checker returns a bool and never raises: a format checker that raised on hostile input
would turn bad arguments into an exception. jsonschema's remaining built-in checkers are wrapped
the same way (``regex`` can raise ``RecursionError`` on a pattern nested thousands deep).
"""

from __future__ import annotations

import ipaddress
import re
from functools import lru_cache
from typing import Any, Callable

from jsonschema import FormatChecker


_DATE_RE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")
_TIME_RE = re.compile(r"([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.[0-9]+)?([Zz]|[+-][0-9]{2}:[0-9]{2})")
_DATETIME_RE = re.compile(_DATE_RE.pattern + "[Tt]" + _TIME_RE.pattern)

_DAYS = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def _valid_date(y: int, m: int, d: int) -> bool:
    if not 1 <= m <= 12 or d < 1:
        return False
    if m == 2:
        return d <= (29 if _leap(y) else 28)
    return d <= _DAYS[m - 1]


def _valid_time(hh: int, mm: int, ss: int, offset: str) -> bool:
    if hh > 23 or mm > 59 or ss > 60:
        return False
    off = 0
    if offset not in ("Z", "z"):
        oh, om = int(offset[1:3]), int(offset[4:6])
        if oh > 23 or om > 59:
            return False
        off = (oh * 60 + om) * (1 if offset[0] == "+" else -1)
    if ss == 60:  # a leap second only exists at 23:59:60 UTC
        utc = (hh * 60 + mm - off) % (24 * 60)
        return utc == 23 * 60 + 59
    return True


def is_date(value: str) -> bool:
    """RFC 3339 full-date: ``2026-05-18``."""
    m = _DATE_RE.fullmatch(value)
    return bool(m) and _valid_date(int(m[1]), int(m[2]), int(m[3]))


def is_time(value: str) -> bool:
    """RFC 3339 full-time, offset required: ``14:30:00Z``, ``14:30:00.5+02:00``."""
    m = _TIME_RE.fullmatch(value)
    return bool(m) and _valid_time(int(m[1]), int(m[2]), int(m[3]), m[4])


def is_datetime(value: str) -> bool:
    """RFC 3339 date-time: ``2026-05-18T14:30:00Z`` (``T``/``Z`` in either case, offset required)."""
    m = _DATETIME_RE.fullmatch(value)
    return (bool(m) and _valid_date(int(m[1]), int(m[2]), int(m[3]))
            and _valid_time(int(m[4]), int(m[5]), int(m[6]), m[7]))


_DURATION_RE = re.compile(
    r"P(?:[0-9]+W|(?=[0-9T])(?:[0-9]+Y)?(?:[0-9]+M)?(?:[0-9]+D)?"
    r"(?:T(?=[0-9])(?:[0-9]+H)?(?:[0-9]+M)?(?:[0-9]+S)?)?)")


def is_duration(value: str) -> bool:
    """RFC 3339 appendix A duration: ``P3DT4H``, ``PT20M``, ``P2W``."""
    return bool(_DURATION_RE.fullmatch(value)) and not value.endswith("T")


# --- RFC 3986 URIs ------------------------------------------------------------------------------

_UNRESERVED = r"A-Za-z0-9\-._~"
_SUBDELIMS = r"!$&'()*+,;="
_PCT = r"%[0-9A-Fa-f]{2}"
_PCHAR = rf"(?:[{_UNRESERVED}{_SUBDELIMS}:@]|{_PCT})"
_PCHAR_NC = rf"(?:[{_UNRESERVED}{_SUBDELIMS}@]|{_PCT})"  # no colon (first segment of a relative path)
_USERINFO = rf"(?:[{_UNRESERVED}{_SUBDELIMS}:]|{_PCT})*"
_REGNAME = rf"(?:[{_UNRESERVED}{_SUBDELIMS}]|{_PCT})*"
_IPLITERAL = rf"\[(?P<ip>[0-9A-Fa-f:.]+|v[0-9A-Fa-f]+\.[{_UNRESERVED}{_SUBDELIMS}:]+)\]"
_AUTHORITY = rf"(?:{_USERINFO}@)?(?:{_IPLITERAL}|{_REGNAME})(?::[0-9]*)?"
_PATH_ABEMPTY = rf"(?:/{_PCHAR}*)*"
_PATH_ABSOLUTE = rf"/(?:{_PCHAR}+(?:/{_PCHAR}*)*)?"
_PATH_ROOTLESS = rf"{_PCHAR}+(?:/{_PCHAR}*)*"
_PATH_NOSCHEME = rf"{_PCHAR_NC}+(?:/{_PCHAR}*)*"
_QUERY = rf"(?:\?(?:{_PCHAR}|[/?])*)?"
_FRAGMENT = rf"(?:#(?:{_PCHAR}|[/?])*)?"
_SCHEME = r"[A-Za-z][A-Za-z0-9+\-.]*"

_URI_RE = re.compile(
    rf"{_SCHEME}:(?://{_AUTHORITY}{_PATH_ABEMPTY}|{_PATH_ABSOLUTE}|{_PATH_ROOTLESS}|){_QUERY}{_FRAGMENT}")
_RELATIVE_RE = re.compile(
    rf"(?://{_AUTHORITY}{_PATH_ABEMPTY}|{_PATH_ABSOLUTE}|{_PATH_NOSCHEME}|){_QUERY}{_FRAGMENT}")


def _ip_literal_ok(m: re.Match[str]) -> bool:
    ip = m.group("ip")
    if ip is None or ip.startswith("v"):
        return True
    try:
        ipaddress.IPv6Address(ip)
    except ValueError:
        return False
    return True


def is_uri(value: str) -> bool:
    """RFC 3986 URI (absolute: a scheme is required): ``https://example.com/path``, ``urn:isbn:1``."""
    m = _URI_RE.fullmatch(value)
    return bool(m) and _ip_literal_ok(m)


def is_uri_reference(value: str) -> bool:
    """RFC 3986 URI-reference: a URI or a relative reference (``/docs/intro``, ``../a?b``)."""
    m = _URI_RE.fullmatch(value) or _RELATIVE_RE.fullmatch(value)
    return bool(m) and _ip_literal_ok(m)


# --- e-mail, host names, UUIDs, IP addresses ----------------------------------------------------

_ATEXT = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~\-]"
_LOCAL_RE = re.compile(rf"{_ATEXT}+(?:\.{_ATEXT}+)*|\"(?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\[\x20-\x7e])*\"")
_LABEL_RE = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9\-]{0,61}[A-Za-z0-9])?")


def is_hostname(value: str) -> bool:
    """RFC 1123 host name: dot-separated labels of 1-63 letters, digits and inner hyphens."""
    if not value or len(value) > 253:
        return False
    return all(_LABEL_RE.fullmatch(label) for label in value.split("."))


def is_email(value: str) -> bool:
    """RFC 5321/5322 addr-spec: ``local@domain`` (dot-atom or quoted local part; host name or
    ``[IPv4]`` / ``[IPv6:...]`` literal domain)."""
    if len(value) > 254 or "@" not in value:
        return False
    local, _, domain = value.rpartition("@")
    if not local or len(local) > 64 or not _LOCAL_RE.fullmatch(local):
        return False
    if domain.startswith("[") and domain.endswith("]"):
        lit = domain[1:-1]
        try:
            if lit[:5].lower() == "ipv6:":
                ipaddress.IPv6Address(lit[5:])
            else:
                ipaddress.IPv4Address(lit)
        except ValueError:
            return False
        return True
    return is_hostname(domain)


_UUID_RE = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


def is_uuid(value: str) -> bool:
    """RFC 4122 hyphenated form: ``123e4567-e89b-12d3-a456-426614174000``."""
    return bool(_UUID_RE.fullmatch(value))


def is_ipv4(value: str) -> bool:
    """Dotted-quad IPv4 (no leading zeros): ``192.0.2.10``."""
    try:
        ipaddress.IPv4Address(value)
    except ValueError:
        return False
    return True


def is_ipv6(value: str) -> bool:
    """RFC 4291 IPv6 text form, without a zone id: ``2001:db8::1``."""
    if "%" in value:
        return False
    try:
        ipaddress.IPv6Address(value)
    except ValueError:
        return False
    return True


CHECKERS: dict[str, Callable[[str], bool]] = {
    "date": is_date,
    "time": is_time,
    "date-time": is_datetime,
    "duration": is_duration,
    "email": is_email,
    "hostname": is_hostname,
    "uri": is_uri,
    "uri-reference": is_uri_reference,
    "uuid": is_uuid,
    "ipv4": is_ipv4,
    "ipv6": is_ipv6,
}


def _safe(func: Callable[[Any], bool], strings_only: bool) -> Callable[[Any], bool]:
    def check(instance: Any) -> bool:
        if strings_only and not isinstance(instance, str):
            return True  # formats constrain strings only; other types are the "type" keyword's job
        try:
            return bool(func(instance))
        except Exception:  # a checker must never raise on hostile input: treat as "not valid"
            return False

    check.__name__ = getattr(func, "__name__", "check")
    return check


@lru_cache(maxsize=None)
def format_checker_for(validator_cls: type) -> FormatChecker:
    """jsonschema's checker for this draft, with toolbound's checkers on top, none able to raise."""
    base = getattr(validator_cls, "FORMAT_CHECKER", None) or FormatChecker()
    fc = FormatChecker(formats=())
    for name, (func, _raises) in base.checkers.items():
        fc.checkers[name] = (_safe(func, strings_only=False), ())
    for name, func in CHECKERS.items():
        fc.checkers[name] = (_safe(func, strings_only=True), ())
    return fc
